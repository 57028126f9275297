"""Unit 6 benchmark: expectation propagation (course_lib.preference.ep) against GPy's EP.

Workload: probit classification, the one EP model both libraries have (GPy's Bernoulli
likelihood P(y = 1 | f) = Phi(f) is our PairwiseProbit(noise_sd = 1 / sqrt 2) on identity rows):
n points uniform in [-2, 2]^2, labels from a smooth function plus noise, SE kernel
(lengthscale 0.9, variance 1.7) fixed. Each side builds the kernel matrix, runs EP to its
convergence test (ours: no site moves by more than 1e-6 relative to its item's posterior;
GPy: its default epsilon 1e-6 on the sites' change) and returns the log evidence; both fixed
points agree (tests/preference/test_ep.py checks them against each other to 1e-8 at a tight
tolerance). Ours updates every site at once (parallel EP), GPy one at a time (sequential).
Goal: ours no slower than GPy (ratio <= 1).

Timing rules (one thread, alternating rounds, medians of the per-round ratios): bench/harness.py.
Run: .venv/bin/python bench/bench_ep.py [--repeats 5] [--sizes 100 300]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import warnings  # noqa: E402

import GPy  # noqa: E402
import numpy as np  # noqa: E402

from course_lib.gp import SquaredExponential
from course_lib.preference import PairwiseProbit
from course_lib.preference.ep import expectation_propagation  # noqa: E402

LENGTHSCALE, VARIANCE = 0.9, 1.7


def classification_data(n: int):
    rng = np.random.default_rng(n)
    X = rng.uniform(-2, 2, (n, 2))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] + 0.5 * rng.standard_normal(n) > 0).astype(float)
    return X, y


def bench_size(n: int, repeats: int) -> float:
    X, y = classification_data(n)
    likelihood = PairwiseProbit(1 / np.sqrt(2))
    identity = np.eye(n)

    def ours():
        K = SquaredExponential(LENGTHSCALE, VARIANCE)(X)
        return expectation_propagation(K, identity, likelihood, y).log_evidence

    def theirs():
        model = GPy.core.GP(X, y[:, None],
                            kernel=GPy.kern.RBF(2, variance=VARIANCE, lengthscale=LENGTHSCALE),
                            likelihood=GPy.likelihoods.Bernoulli(),
                            inference_method=GPy.inference.latent_function_inference.EP())
        return model.log_likelihood()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # GPy's own deprecation chatter
        gap = abs(ours() - theirs())
        print(f"n = {n}: log evidence ours - GPy = {gap:.1e} (each at its own tolerance)")
        return harness.compare(f"ep_probit_n{n}", ours, theirs, repeats=repeats, goal=1.0,
                               labels=("course_lib", "GPy"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300])
    args = parser.parse_args()
    with harness.one_thread():
        for size in args.sizes:
            bench_size(size, args.repeats)
