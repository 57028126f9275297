"""Speed of course_lib's GMM EM against scikit-learn's GaussianMixture.

Workload (issue 3): K = 8 full-covariance components, 50 EM iterations without early stopping,
on 20 000 x 13 MFCC frames of the spoken-digit data, from the same initial weights, means and
covariances in both libraries, single-threaded BLAS. The training split alone has ~10 000
frames, so the frames of all splits are stacked and the first 20 000 taken (a timing workload,
not an evaluation). Prints the median time of each, the median ratio ours/theirs and checks
that both end at the same log-likelihood.

    .venv/bin/python bench/bench_gmm.py
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from course_lib.data.digits import digit_features  # noqa: E402
from course_lib.gmm import GMMParams, fit_gmm  # noqa: E402
from course_lib.kmeans import kmeans  # noqa: E402

N_FRAMES, K, N_ITER, REPEATS, GOAL = 20_000, 8, 50, 5, 1.0
RIDGE = 1e-6  # sklearn's reg_covar, added to the diagonal in every M-step by both


def frames() -> np.ndarray:
    features, _, _ = digit_features("all", deltas=False, cmn=True)
    X = np.vstack(features)
    if X.shape[0] < N_FRAMES:
        raise SystemExit(f"only {X.shape[0]} MFCC frames available, need {N_FRAMES}")
    return np.ascontiguousarray(X[:N_FRAMES])


def initial_params(X: np.ndarray) -> GMMParams:
    """k-means hard assignments -> weights, means, covariances (+ ridge), shared by both."""
    labels = kmeans(X, K, rng=0).labels
    weights = np.bincount(labels, minlength=K) / X.shape[0]
    means = np.stack([X[labels == k].mean(0) for k in range(K)])
    covs = np.stack([np.cov(X[labels == k].T, bias=True) + RIDGE * np.eye(X.shape[1])
                     for k in range(K)])
    return GMMParams(weights, means, covs, "full")


def run_ours(X, start):
    return fit_gmm(X, K, init=start, max_iter=N_ITER, tol=0.0, ridge=RIDGE)


def run_sklearn(X, start):
    from sklearn.mixture import GaussianMixture
    model = GaussianMixture(K, covariance_type="full", weights_init=start.weights,
                            means_init=start.means,
                            precisions_init=np.linalg.inv(start.covariances),
                            max_iter=N_ITER, tol=0.0, reg_covar=RIDGE, n_init=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: tol=0 never "converges"
        return model.fit(X)


def main():
    X = frames()
    start = initial_params(X)
    with threadpool_limits(1):
        ours, theirs = run_ours(X, start), run_sklearn(X, start)  # warm-up
        # same arithmetic: sklearn's lower bound is the mean log-likelihood before each M-step
        ours_ll = ours.log_likelihood_trace[-2] / X.shape[0]
        print(f"final mean log-likelihood: ours {ours_ll:.12f}  sklearn "
              f"{theirs.lower_bound_:.12f}  |diff| {abs(ours_ll - theirs.lower_bound_):.2e}")
        print(f"max |means diff| {np.abs(ours.params.means - theirs.means_).max():.2e}")
        times = {"ours": [], "sklearn": []}
        for _ in range(REPEATS):
            for name, run in (("ours", run_ours), ("sklearn", run_sklearn)):
                t0 = time.perf_counter()
                run(X, start)
                times[name].append(time.perf_counter() - t0)
    med = {name: float(np.median(t)) for name, t in times.items()}
    ratios = np.array(times["ours"]) / np.array(times["sklearn"])
    print(f"workload: K={K} full, {N_ITER} EM iterations, X {X.shape}, BLAS 1 thread, "
          f"{REPEATS} alternating repeats")
    print(f"median ours {med['ours']:.3f} s   median sklearn {med['sklearn']:.3f} s   "
          f"ratio of minima {min(times['ours']) / min(times['sklearn']):.2f}")
    print(f"ratio gmm_em_full_k8: {np.median(ratios):.2f} (goal <= {GOAL})")


if __name__ == "__main__":
    main()
