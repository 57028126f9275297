"""course_lib.gmm.em / kmeans against scikit-learn (GaussianMixture, KMeans) on the same inputs.

Conventions that differ, and how they are mapped here:
* sklearn takes PRECISIONS as its initial covariance parameter (precisions_init = Sigma^-1
  for "full", 1/sigma2 for "diag"); ours takes covariances.
* sklearn's reg_covar is added to the diagonal of every covariance in each M-step; that is our
  ``ridge`` (not our variance_floor, a max(), nor our MAP prior, which sklearn does not have),
  so variance_floor=0 and prior=None here.
* sklearn's lower_bounds_ are MEAN per-frame log-likelihoods of the parameters before each
  M-step; our log_likelihood_trace holds TOTALS of theta_0 ... theta_T, so
  lower_bounds_ == log_likelihood_trace[:-1] / N.
* sklearn adds 10*eps to N_k and diag covariances use E[x^2] - mu^2: rounding-level differences,
  hence the 1e-10 tolerance instead of exact equality.
* BIC: both are -2 l + p ln N, lower is better. sklearn's model is given our fitted parameters by
  setting its fitted attributes (weights_, means_, covariances_ and the Cholesky factors of the
  precisions it scores with), so both score the same model.
"""

import warnings

import numpy as np
import pytest
from sklearn import cluster, mixture

from course_lib.gmm.em import predict_proba, score_samples
from course_lib.gmm.mixture import GMMParams
from course_lib.gmm.selection import bic, n_parameters
from course_lib.gmm.em import fit_gmm
from course_lib.gmm.clustering import kmeans


def data():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0, 0.0], [4.0, 3.0, -1.0], [-3.0, 4.0, 2.0]])
    return np.vstack([rng.normal(c, [1.0, 0.6, 1.4], (250, 3)) for c in centres])


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
@pytest.mark.parametrize("reg", [0.0, 1e-6, 0.3])
def test_em_equals_sklearn_from_same_start(covariance_type, reg):
    X = data()
    N, D = X.shape
    K = 4
    rng = np.random.default_rng(1)
    w0 = rng.dirichlet(np.ones(K) * 5)
    mu0 = X[rng.choice(N, K, replace=False)]
    if covariance_type == "full":
        A = rng.normal(size=(K, D, D)) * 0.3
        cov0 = np.eye(D) * 1.5 + A @ A.transpose(0, 2, 1)
        prec0 = np.linalg.inv(cov0)
    else:
        cov0 = rng.uniform(0.5, 2.0, (K, D))
        prec0 = 1.0 / cov0
    n_iter = 25
    ours = fit_gmm(X, K, covariance_type=covariance_type, init=GMMParams(w0, mu0, cov0,
                   covariance_type), max_iter=n_iter, tol=0.0, ridge=reg)
    sk = mixture.GaussianMixture(K, covariance_type=covariance_type, weights_init=w0,
                                 means_init=mu0, precisions_init=prec0, max_iter=n_iter,
                                 tol=0.0, reg_covar=reg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # ConvergenceWarning: tol=0 runs all iterations
        sk.fit(X)
    assert sk.n_iter_ == ours.n_iter == n_iter
    np.testing.assert_allclose(ours.params.weights, sk.weights_, rtol=1e-10)
    np.testing.assert_allclose(ours.params.means, sk.means_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.params.covariances, sk.covariances_, rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(ours.log_likelihood_trace[:-1] / N, sk.lower_bounds_,
                               rtol=1e-12)
    np.testing.assert_allclose(score_samples(X, ours.params), sk.score_samples(X), rtol=1e-10)
    np.testing.assert_allclose(predict_proba(X, ours.params), sk.predict_proba(X),
                               atol=1e-10)


def test_kmeans_equals_sklearn_from_same_start():
    X = data()
    start = X[[0, 1, 2, 300]]
    ours = kmeans(X, 4, init=start, max_iter=300, tol=0.0)
    # sklearn's Lloyd with the same explicit centres; its tol is on centre shift, so use 0
    sk = cluster.KMeans(4, init=start, n_init=1, max_iter=300, tol=0.0,
                        algorithm="lloyd").fit(X)
    np.testing.assert_allclose(ours.centroids, sk.cluster_centers_, rtol=1e-10)
    np.testing.assert_array_equal(ours.labels, sk.labels_)
    assert ours.inertia == pytest.approx(sk.inertia_, rel=1e-10)


def sklearn_model_of(params: GMMParams) -> mixture.GaussianMixture:
    """A fitted-looking GaussianMixture holding our parameters."""
    model = mixture.GaussianMixture(params.n_components, covariance_type=params.covariance_type)
    model.weights_ = params.weights
    model.means_ = params.means
    model.covariances_ = params.covariances
    if params.covariance_type == "full":
        # precisions_cholesky_: upper factor U with Sigma^-1 = U U^T, i.e. U = L^-T
        model.precisions_cholesky_ = np.stack([np.linalg.inv(np.linalg.cholesky(S)).T
                                               for S in params.covariances])
    else:
        model.precisions_cholesky_ = 1.0 / np.sqrt(params.covariances)
    return model


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
@pytest.mark.parametrize("K", [1, 3, 5])
def test_bic_and_parameter_count_equal_sklearn_on_the_same_fit(covariance_type, K):
    X = data()
    params = fit_gmm(X, K, covariance_type=covariance_type, rng=K).params
    model = sklearn_model_of(params)
    np.testing.assert_allclose(model.score_samples(X), score_samples(X, params), rtol=1e-10)
    assert n_parameters(K, X.shape[1], covariance_type) == model._n_parameters()
    assert bic(X, params) == pytest.approx(model.bic(X), rel=1e-12)
