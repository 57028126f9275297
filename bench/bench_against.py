"""The library against itself at an earlier commit, in one process: did a change slow a model?

``python bench/bench_against.py REF`` takes ``course_lib`` as it was at git commit ``REF``,
renamed ``course_lib_at_ref`` in a temporary folder (``git archive``; the package's absolute
imports of itself renamed to match), and times the same fits with both, alternately (the
harness's rules: one thread, a warm-up, medians of per-round ratios). One line per model::

    ratio now_vs_<REF> <model>: <now / then> (goal <= 1.1)

The models are those a student walks through (``tests/test_student_walk.py``), their sparse
relatives and exact GP regression, on problems of the lectures' sizes: each is fitted, its
hyperparameters optimised (MAP-II, one start: the evidence and its gradient, many times) and
asked for predictions. Those three calls have the same names and arguments at every commit
this compares.
"""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import tarfile
import tempfile
import warnings
from io import BytesIO
from pathlib import Path

import harness  # noqa: F401  (before numpy: one thread)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.1
ABSOLUTE = re.compile(r"\bcourse_lib\b(?=[.\s])")


def library_at(ref: str, folder: Path):
    """``course_lib`` at commit ``ref``, importable as ``course_lib_at_ref`` from ``folder``."""
    archive = subprocess.run(["git", "archive", "--format=tar", ref, "course_lib"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "course_lib_at_ref"
    (folder / "course_lib").rename(package)
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(ABSOLUTE.sub("course_lib_at_ref", text), encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module("course_lib_at_ref")


def walk(model, data, X_test):
    """Fit, optimise the hyperparameters from one start; the predictions (mean, variance)."""
    model.fit(*data).optimise_hyperparameters(n_restarts=1, rng=0)
    return model.predict(X_test)


def workloads(lib) -> dict:
    """{model: callable} built from ``lib`` (either copy of the library); each returns a tuple
    whose first item the two copies must agree on."""
    gp, hmm, mixed, preference, raters = (importlib.import_module(f"{lib.__name__}.{unit}")
                                          for unit in ("gp", "hmm", "mixed", "preference",
                                                       "raters"))
    # MAP-II within a decade of the start: a sparse model's pseudo-inputs stay within reach
    kernel = lambda lengthscale: gp.SquaredExponential(  # noqa: E731
        lengthscale, 1.0, lengthscale_bounds=(lengthscale / 10, lengthscale * 10))
    rng = np.random.default_rng(0)
    X = np.linspace(-6, 6, 30)[:, None]
    first, second = rng.choice(30, (2, 120))
    keep = first != second
    f = np.sin(X[:, 0])
    comparisons = preference.Comparisons(
        X, first[keep], second[keep], (f[first] > f[second])[keep].astype(float))
    x = np.linspace(0.0, 6.0, 40)[:, None]
    y = np.sin(x[:, 0]) + 0.3 * rng.standard_normal(40)
    constraint = mixed.GaussianConstraint(np.full(40, 0.3))
    scores = np.sin(x[:, 0])[:, None] + rng.normal(0, [0.2, 0.5, 1.0], (40, 3))
    try:    # the data type's one home since issue 89; before it, the raters face showed it
        rater_data = importlib.import_module(f"{lib.__name__}.rater_data")
    except ModuleNotFoundError:
        rater_data = raters
    scores_data = rater_data.RaterData.from_matrix(scores)
    days = hmm.weather_mood_sequences(20, 50, rng=np.random.default_rng(1))
    start = hmm.random_hmm(3, 2, rng=np.random.default_rng(2))
    probit = preference.PairwiseProbit(0.5)
    return {
        "PreferenceGP (Laplace)": lambda: walk(preference.PreferenceGP(kernel(3.0), probit),
                                               (comparisons,), X),
        "SparsePreferenceGP": lambda: walk(preference.SparsePreferenceGP(
            kernel(3.0), probit, X[::3]), (comparisons,), X),
        "VariationalGP": lambda: walk(mixed.VariationalGP(kernel(1.0), constraint), (x, y), x),
        "SparseVariationalGP": lambda: walk(mixed.SparseVariationalGP(
            kernel(1.0), constraint, x[::4]), (x, y), x),
        "GPR-MA (AnnotatorNoiseGP)": lambda: walk(raters.AnnotatorNoiseGP(kernel(1.0), 3),
                                                  (x, scores_data), x),
        "GPRegression": lambda: walk(gp.GPRegression(kernel(1.0), noise_variance=0.1), (x, y),
                                     x),
        "Baum-Welch": lambda: (hmm.baum_welch(start, days, max_iter=20).log_likelihood_trace,),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="the git commit to compare the working tree with")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    import course_lib
    import course_lib.linalg

    with tempfile.TemporaryDirectory(prefix="course-lib-at-ref-") as folder, \
            harness.one_thread(), warnings.catch_warnings():
        # the variational bounds factorise K without noise: on these dense inputs it needs the
        # jitter it warns of, in both copies alike
        warnings.simplefilter("ignore", course_lib.linalg.JitterWarning)
        then = workloads(library_at(args.ref, Path(folder)))
        now = workloads(course_lib)
        worst = 0.0
        for model in now:
            # a refactoring keeps the answer: the same predictions, to rounding
            np.testing.assert_allclose(np.asarray(now[model]()[0], float),
                                       np.asarray(then[model]()[0], float),
                                       rtol=1e-7, atol=1e-9, err_msg=model)
            ratio = harness.compare(f"now_vs_{args.ref[:7]} {model}", now[model], then[model],
                                    repeats=args.repeats, goal=GOAL, labels=("now", "then"))
            worst = max(worst, ratio)
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
