"""course_lib.hmm.inference against hmmlearn's CategoricalHMM on the same parameters and data.

Conventions that differ, and how the tests line up:
* hmmlearn takes all sequences concatenated as an (n_frames, 1) int column plus ``lengths``;
  we pass the list of sequences.
* ``init_params=''`` keeps the parameters we set (otherwise ``fit`` re-initialises them);
  ``params='ste'`` re-estimates start, transitions and emissions like ours.
* ``tol=-inf`` forces exactly ``n_iter`` iterations, like our ``max_iter`` with ``tol=-inf``
  (its default tol=1e-2 stops early, also on a decrease). Its ``monitor_.history[k]`` is the log-likelihood BEFORE the k-th M-step,
  i.e. our ``log_likelihood_trace[:-1]`` (ours also holds the final model's value).
* ``score`` / ``decode`` return sums over sequences; we return one value per sequence.
* Viterbi ties: hmmlearn back-tracks toward the highest index, we toward the lowest, so paths
  are compared only on sequences whose best path is unique (checked from log_delta);
  log-probabilities are compared everywhere.
"""

import numpy as np
import pytest
from hmmlearn import hmm as hmmlearn_hmm

from course_lib.hmm import inference as H
from course_lib.hmm.model import DiscreteHMM, left_to_right_hmm, random_hmm, sample_sequences
from course_lib.hmm.training import baum_welch


def hmmlearn_model(model: DiscreteHMM, implementation: str, n_iter: int = 10):
    ref = hmmlearn_hmm.CategoricalHMM(n_components=model.n_states, n_features=model.n_symbols,
                                      init_params="", params="ste", n_iter=n_iter, tol=-np.inf,
                                      implementation=implementation)
    ref.startprob_, ref.transmat_, ref.emissionprob_ = model.pi, model.A, model.B
    return ref


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2024)
    true = random_hmm(4, 6, rng=rng)
    seqs = sample_sequences(true, rng.integers(1, 60, size=40), rng=rng).symbols
    start = random_hmm(4, 6, rng=rng)
    X = np.concatenate(seqs)[:, None]
    lengths = [len(s) for s in seqs]
    return start, seqs, X, lengths


def unique_best_path(model, seq, margin=1e-9) -> bool:
    """True when every back-tracking choice along our Viterbi path wins by more than ``margin``."""
    vit = H.viterbi(model, seq)
    final = np.sort(vit.log_delta[-1])
    if len(final) > 1 and final[-1] - final[-2] <= margin:
        return False
    for t in range(1, len(seq)):
        scores = np.sort(vit.log_delta[t - 1] + model.log_A[:, vit.path[t]])
        if scores[-1] - scores[-2] <= margin:
            return False
    return True


@pytest.mark.parametrize("implementation", ["log", "scaling"])
@pytest.mark.parametrize("method", ["log", "scaled"])
def test_forward_log_likelihood_matches(data, implementation, method):
    start, seqs, X, lengths = data
    ref = hmmlearn_model(start, implementation)
    ours = H.log_likelihoods(start, seqs, method=method)
    assert ours.sum() == pytest.approx(ref.score(X, lengths), rel=1e-12, abs=1e-8)
    for seq, value in zip(seqs[:5], ours[:5]):
        assert value == pytest.approx(ref.score(seq[:, None]), rel=1e-12)


@pytest.mark.parametrize("implementation", ["log", "scaling"])
def test_posteriors_match(data, implementation):
    start, seqs, X, lengths = data
    ref = hmmlearn_model(start, implementation)
    _, ref_gamma = ref.score_samples(X, lengths)
    for method in ("log", "scaled"):
        ours = np.concatenate([H.posteriors(start, s, method=method).gamma for s in seqs])
        np.testing.assert_allclose(ours, ref_gamma, atol=1e-12)


def test_viterbi_matches(data):
    start, seqs, X, lengths = data
    ref = hmmlearn_model(start, "log")
    ref_logprob, ref_states = ref.decode(X, lengths, algorithm="viterbi")
    ours = H._viterbi_paths(start, seqs)
    assert ours.log_probabilities.sum() == pytest.approx(ref_logprob, rel=1e-12)
    ref_paths = np.split(ref_states, np.cumsum(lengths)[:-1])
    tie_free = [s for s, seq in enumerate(seqs) if unique_best_path(start, seq)]
    assert len(tie_free) >= len(seqs) // 2, "the fixture should be mostly tie-free"
    for s in tie_free:
        np.testing.assert_array_equal(ours.paths[s], ref_paths[s])
    for s, seq in enumerate(seqs):  # all sequences, ties included: the same best score
        assert ours.log_probabilities[s] == pytest.approx(ref.decode(seq[:, None])[0], rel=1e-12)


@pytest.mark.parametrize("implementation", ["log", "scaling"])
@pytest.mark.parametrize("n_iter", [1, 15])
def test_baum_welch_iterates_match(data, implementation, n_iter):
    start, seqs, X, lengths = data
    ref = hmmlearn_model(start, implementation, n_iter=n_iter)
    ref.fit(X, lengths)
    ours = baum_welch(start, seqs, max_iter=n_iter, tol=-np.inf)
    assert ours.n_iter == n_iter == len(ref.monitor_.history)
    np.testing.assert_allclose(ours.hmm.pi, ref.startprob_, atol=1e-12)
    np.testing.assert_allclose(ours.hmm.A, ref.transmat_, atol=1e-12)
    np.testing.assert_allclose(ours.hmm.B, ref.emissionprob_, atol=1e-12)
    np.testing.assert_allclose(ours.log_likelihood_trace[:-1], ref.monitor_.history,
                               rtol=1e-12, atol=1e-8)


def test_baum_welch_keeps_left_to_right_zeros_like_hmmlearn(data):
    _, seqs, X, lengths = data
    start = left_to_right_hmm(4, 6, skip=0.2, rng=1)
    ref = hmmlearn_model(start, "log", n_iter=10)
    ref.fit(X, lengths)
    ours = baum_welch(start, seqs, max_iter=10, tol=-np.inf)
    np.testing.assert_allclose(ours.hmm.A, ref.transmat_, atol=1e-12)
    np.testing.assert_allclose(ours.hmm.B, ref.emissionprob_, atol=1e-12)
    np.testing.assert_array_equal(ours.hmm.A == 0, start.A == 0)
