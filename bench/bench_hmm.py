"""Speed of course_lib.hmm.inference against hmmlearn's CategoricalHMM (Unit 3 closing note).

Workload (issue 4): N = 5 states, M = 16 symbols, 200 sequences of length 50;
forward log-likelihood of all sequences, Viterbi of all sequences, 20 Baum-Welch iterations.
Both libraries run in this process. Like is compared with like: our scaled passes against
hmmlearn's ``implementation="scaling"`` and our log-space passes against its default ``"log"``
(Viterbi is log space in both). Each side gets its data already packed (hmmlearn: X and
lengths; ours: a _SequenceBatch), and the results are checked to agree before timing. Timing
rules (one thread, warm-up, alternating rounds, medians): bench/harness.py.

Run: .venv/bin/python bench/bench_hmm.py [--repeats 15]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.hmm import inference as H  # noqa: E402
from course_lib.hmm.model import random_hmm, sample_sequences  # noqa: E402
from course_lib.hmm._sequences import _pack_sequences  # noqa: E402
from course_lib.hmm.training import baum_welch  # noqa: E402

GOAL = 2.0


def compare(name: str, ours, theirs, repeats: int) -> float:
    return harness.compare(name, ours, theirs, repeats=repeats, goal=GOAL,
                           labels=("ours", "hmmlearn"))


def main() -> None:
    from hmmlearn.hmm import CategoricalHMM

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    N, M, n_seq, T, n_iter = 5, 16, 200, 50, 20
    true = random_hmm(N, M, rng=rng)
    seqs = sample_sequences(true, [T] * n_seq, rng=rng).symbols
    start = random_hmm(N, M, rng=rng)
    batch = _pack_sequences(seqs, M)
    X = np.concatenate(seqs)[:, None]
    lengths = [T] * n_seq

    def reference(implementation, iterations=n_iter):
        ref = CategoricalHMM(n_components=N, n_features=M, init_params="", params="ste",
                             n_iter=iterations, tol=-np.inf, implementation=implementation)
        ref.startprob_, ref.transmat_, ref.emissionprob_ = start.pi, start.A, start.B
        return ref

    ref_log, ref_scaling = reference("log"), reference("scaling")

    # agreement first
    for method, ref in (("scaled", ref_scaling), ("log", ref_log)):
        ours = H.log_likelihoods(start, batch, method=method).sum()
        assert abs(ours - ref.score(X, lengths)) < 1e-8, (method, ours)
    vit = H._viterbi_paths(start, batch)
    ref_logprob, _ = ref_log.decode(X, lengths)
    assert abs(vit.log_probabilities.sum() - ref_logprob) < 1e-8
    for implementation in ("scaling", "log"):
        fitted = reference(implementation).fit(X, lengths)
        ours = baum_welch(start, batch, max_iter=n_iter, tol=-np.inf).hmm
        assert np.abs(ours.A - fitted.transmat_).max() < 1e-10
        assert np.abs(ours.B - fitted.emissionprob_).max() < 1e-10
    print("results agree (log-likelihoods to 1e-8, Baum-Welch parameters to 1e-10)")
    print(f"workload: N={N} M={M} {n_seq} sequences x {T} symbols, {n_iter} Baum-Welch iterations, "
          f"{args.repeats} alternating repeats")

    ratios = {}
    with harness.one_thread():
        ratios["forward scaled"] = compare(
            "forward scaled", lambda: H.log_likelihoods(start, batch, method="scaled"),
            lambda: ref_scaling.score(X, lengths), args.repeats)
        ratios["forward log"] = compare(
            "forward log", lambda: H.log_likelihoods(start, batch, method="log"),
            lambda: ref_log.score(X, lengths), args.repeats)
        ratios["viterbi"] = compare(
            "viterbi", lambda: H._viterbi_paths(start, batch),
            lambda: ref_log.decode(X, lengths, algorithm="viterbi"), args.repeats)
        ratios["baum-welch 20 (vs scaling)"] = compare(
            "baum-welch 20 (vs scaling)",
            lambda: baum_welch(start, batch, max_iter=n_iter, tol=-np.inf),
            lambda: reference("scaling").fit(X, lengths), max(3, args.repeats // 3))
        ratios["baum-welch 20 (vs log)"] = compare(
            "baum-welch 20 (vs log)",
            lambda: baum_welch(start, batch, max_iter=n_iter, tol=-np.inf),
            lambda: reference("log").fit(X, lengths), max(3, args.repeats // 3))
    worst = max(ratios, key=ratios.get)
    print(f"worst ratio: {worst} {ratios[worst]:.2f} (goal <= {GOAL})")


if __name__ == "__main__":
    main()
