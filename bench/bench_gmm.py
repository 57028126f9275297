"""Speed of course_lib's GMM EM against scikit-learn's GaussianMixture.

Workload (issue 3): K = 8 full-covariance components, 50 EM iterations without early stopping,
on 20 000 x 13 MFCC frames of the spoken-digit data, from the same initial weights, means and
covariances in both libraries, single-threaded BLAS. The training split alone has ~10 000
frames, so the frames of all splits are stacked and the first 20 000 taken (a timing workload,
not an evaluation). Checks that both end at the same log-likelihood, then prints the median
time of each and the median ratio ours/theirs (timing rules: bench/harness.py).

    .venv/bin/python bench/bench_gmm.py
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import warnings  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.data.digits import digit_features  # noqa: E402
from course_lib.gmm.em import fit_gmm  # noqa: E402
from course_lib.gmm.mixture import GMMParams  # noqa: E402
from course_lib.gmm.clustering import kmeans  # noqa: E402

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
    with harness.one_thread():
        ours, theirs = run_ours(X, start), run_sklearn(X, start)  # also the warm-up
        # same arithmetic: sklearn's lower bound is the mean log-likelihood before each M-step
        ours_ll = ours.log_likelihood_trace[-2] / X.shape[0]
        print(f"final mean log-likelihood: ours {ours_ll:.12f}  sklearn "
              f"{theirs.lower_bound_:.12f}  |diff| {abs(ours_ll - theirs.lower_bound_):.2e}")
        print(f"max |means diff| {np.abs(ours.params.means - theirs.means_).max():.2e}")
        print(f"workload: K={K} full, {N_ITER} EM iterations, X {X.shape}")
        harness.compare("gmm_em_full_k8", lambda: run_ours(X, start),
                        lambda: run_sklearn(X, start), repeats=REPEATS, goal=GOAL,
                        labels=("ours", "sklearn"), warm_up=False)


if __name__ == "__main__":
    main()
