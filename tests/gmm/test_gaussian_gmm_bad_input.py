"""Bad-input catalogue: Unit 2 (Gaussians, k-means, Gaussian mixtures and their explorers)."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gmm import gaussian as G
from course_lib.gmm import em as M
from course_lib.gmm import mixture as MP
from course_lib.gmm import selection as MS
from course_lib.gmm import em as MT
from course_lib.gmm import clustering as KM
from course_lib.widgets import gmm as W

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 2))
ONE = MP.GMMParams(np.ones(1), np.zeros((1, 2)), np.eye(2)[None])
TWO = MP.GMMParams(np.full(2, 0.5), np.array([[-1.0, 0.0], [1.0, 0.0]]), np.ones((2, 2)), "diag")
FEW = np.repeat(np.eye(3)[:, :2], 4, axis=0)        # 12 points on 3 distinct positions

CASES = [
    # --- gaussian
    BadInput("gaussian: NaN in X", lambda: G.gaussian_log_density([[np.nan, 0.0]], [0, 0],
                                                                   np.eye(2)), ValueError, "X"),
    BadInput("gaussian: mu of the wrong length",
             lambda: G.gaussian_log_density(X, np.zeros(3), np.eye(2)), ValueError, "mu"),
    BadInput("gaussian: indefinite Sigma",
             lambda: G.gaussian_log_density(X, np.zeros(2), [[1.0, 2.0], [2.0, 1.0]]),
             ValueError, "Sigma"),
    BadInput("gaussian: non-symmetric Sigma",
             lambda: G.gaussian_log_density(X, np.zeros(2), [[1.0, 0.5], [0.0, 1.0]]),
             ValueError, "Sigma"),
    BadInput("gaussian: negative diagonal variance",
             lambda: G.gaussian_log_density(X, np.zeros(2), [1.0, -1.0], "diag"),
             ValueError, "Sigma"),
    BadInput("gaussian: unknown covariance_type",
             lambda: G.gaussian_log_density(X, np.zeros(2), np.eye(2), "tied"),
             ValueError, "covariance_type"),
    BadInput("gaussian: complex X", lambda: G.fit_gaussian(X + 1j), TypeError, "X"),
    BadInput("gaussian: X as a string", lambda: G.fit_gaussian("frames"), TypeError, "X"),
    BadInput("gaussian: full fit with N <= D", lambda: G.fit_gaussian(np.eye(3)),
             ValueError, "X"),
    BadInput("gaussian: fit of identical points", lambda: G.fit_gaussian(np.ones((5, 2))),
             ValueError, "X"),
    BadInput("gaussian: fit of values 1e200 apart", lambda: G.fit_gaussian(X * 1e200),
             ValueError, "X"),
    BadInput("gaussian: correlation of 1", lambda: G.covariance_2d(1.0, 1.0, 1.0),
             ValueError, "rho"),
    BadInput("gaussian: zero standard deviation", lambda: G.covariance_2d(0.0, 1.0, 0.0),
             ValueError, "sigma1"),
    # --- kmeans
    BadInput("kmeans: NaN in X", lambda: KM.kmeans(np.r_[X, [[np.nan, 0.0]]], 2, rng=0),
             ValueError, "X"),
    BadInput("kmeans: 1-D X", lambda: KM.kmeans(np.arange(5.0), 2, rng=0), ValueError, "X"),
    BadInput("kmeans: more clusters than distinct points", lambda: KM.kmeans(FEW, 4, rng=0),
             ValueError, "n_clusters"),
    BadInput("kmeans: zero clusters", lambda: KM.kmeans(X, 0), ValueError, "n_clusters"),
    BadInput("kmeans: n_clusters as a float", lambda: KM.kmeans(X, 2.5), TypeError,
             "n_clusters"),
    BadInput("kmeans: unknown init", lambda: KM.kmeans(X, 2, init="kmeans"), ValueError, "init"),
    BadInput("kmeans: init centroids of the wrong shape",
             lambda: KM.kmeans(X, 2, init=np.zeros((3, 2))), ValueError, "init"),
    BadInput("kmeans: zero restarts", lambda: KM.kmeans(X, 2, n_restarts=0), ValueError,
             "n_restarts"),
    BadInput("kmeans: negative tol", lambda: KM.kmeans(X, 2, tol=-1.0), ValueError, "tol"),
    BadInput("kmeans: rng as a string", lambda: KM.kmeans(X, 2, rng="seed"), TypeError, "rng"),
    BadInput("kmeans: points spread over 1e200", lambda: KM.kmeans(X * 1e200, 2, rng=0),
             ValueError, "X"),
    BadInput("kmeans: centroids with the wrong width",
             lambda: KM.assign_clusters(X, np.zeros((2, 3))), ValueError, "centroids"),
    BadInput("kmeans: steps from more centroids than points",
             lambda: KM.kmeans_steps(X[:2], X[:3]), ValueError, "centroids"),
    BadInput("kmeans: initialise with unknown method",
             lambda: KM.initialise_centroids(X, 2, init="farthest"), ValueError, "init"),
    # --- gmm
    BadInput("gmm: NaN in X", lambda: MT.fit_gmm(np.r_[X, [[np.nan, 0.0]]], 2), ValueError, "X"),
    BadInput("gmm: fewer frames than dimensions", lambda: MT.fit_gmm(X[:2], 1), ValueError, "X"),
    BadInput("gmm: constant dimension", lambda: MT.fit_gmm(np.c_[X[:, 0], np.ones(60)], 2),
             ValueError, "X"),
    BadInput("gmm: frames spread over 1e200", lambda: MT.fit_gmm(X * 1e200, 2, rng=0),
             ValueError, "X"),
    BadInput("gmm: more components than distinct frames", lambda: MT.fit_gmm(FEW, 4, rng=0),
             ValueError, "n_components"),
    BadInput("gmm: unknown covariance_type", lambda: MT.fit_gmm(X, 2, covariance_type="tied"),
             ValueError, "covariance_type"),
    BadInput("gmm: unknown init", lambda: MT.fit_gmm(X, 2, init="kmeans++"), ValueError, "init"),
    BadInput("gmm: init params of another size", lambda: MT.fit_gmm(X, 2, init=ONE),
             ValueError, "init"),
    BadInput("gmm: zero restarts", lambda: MT.fit_gmm(X, 2, n_restarts=0), ValueError,
             "n_restarts"),
    BadInput("gmm: negative variance floor", lambda: MT.fit_gmm(X, 2, variance_floor=-1.0),
             ValueError, "variance_floor"),
    BadInput("gmm: floor of the wrong length", lambda: MT.fit_gmm(X, 2, variance_floor=[1, 2, 3]),
             ValueError, "variance_floor"),
    BadInput("gmm: negative ridge", lambda: MT.fit_gmm(X, 2, ridge=-1e-6), ValueError, "ridge"),
    BadInput("gmm: prior that is not a CovariancePrior", lambda: MT.fit_gmm(X, 2, prior=1.0),
             TypeError, "prior"),
    BadInput("gmm: prior with zero strength", lambda: MP.CovariancePrior(0.0), ValueError,
             "prior.strength"),
    BadInput("gmm: weights that do not sum to one",
             lambda: MP.GMMParams(np.array([0.5, 0.6]), np.zeros((2, 2)), np.ones((2, 2)), "diag"),
             ValueError, "weights"),
    BadInput("gmm: indefinite component covariance",
             lambda: MP.GMMParams(np.ones(1), np.zeros((1, 2)), np.array([[[1.0, 2.0],
                                                                           [2.0, 1.0]]])),
             ValueError, "covariances"),
    BadInput("gmm: params not a GMMParams", lambda: M.e_step(X, {"weights": [1.0]}), TypeError,
             "params"),
    BadInput("gmm: X of another dimension than the model",
             lambda: M.score_samples(X[:, :1], ONE), ValueError, "X"),
    BadInput("gmm: frame too far for any density",
             lambda: M.e_step(np.array([[0.0, 0.0], [1e200, 0.0]]), TWO), ValueError, "X"),
    BadInput("gmm: responsibilities that do not sum to one",
             lambda: M.m_step(X, np.full((60, 2), 0.7)), ValueError, "responsibilities"),
    BadInput("gmm: responsibilities for other frames",
             lambda: M.m_step(X, np.ones((59, 1))), ValueError, "responsibilities"),
    BadInput("gmm: em_steps from a model of another dimension",
             lambda: M.em_steps(np.c_[X, X], ONE), ValueError, "X"),
    BadInput("gmm: zero samples", lambda: MP.sample_gmm(ONE, 0), ValueError, "n_samples"),
    BadInput("gmm: dev set of another dimension",
             lambda: MS.select_n_components(X, X[:, :1], [1]), ValueError, "X_dev"),
    BadInput("gmm: no candidates", lambda: MS.select_n_components(X, X, []), ValueError,
             "candidates"),
    BadInput("gmm: zero perturbation", lambda: MS.split_components(ONE, 0.0), ValueError,
             "perturbation"),
    BadInput("gmm: parameter count for zero components", lambda: MS.n_parameters(0, 2),
             ValueError, "n_components"),
    BadInput("gmm: BIC of frames of another dimension", lambda: MS.bic(X[:, :1], ONE),
             ValueError, "X"),
    # --- widgets
    BadInput("widgets: EM explorer on 3-D points", lambda: W.em_explorer(np.zeros((10, 3))),
             ValueError, "X"),
    BadInput("widgets: k-means explorer on NaN points",
             lambda: W.kmeans_explorer(np.r_[X, [[np.nan, 0.0]]]), ValueError, "X"),
    BadInput("widgets: EM stepper reset with too many components",
             lambda: W._EMStepper(FEW).reset(4), ValueError, "n_components"),
    BadInput("widgets: k-means stepper reset with too many clusters",
             lambda: W._KMeansStepper(FEW).reset(4), ValueError, "n_clusters"),
    BadInput("widgets: EM stepper with an unknown init",
             lambda: W._EMStepper(X).reset(2, init="kmeans++"), ValueError, "init"),
    BadInput("widgets: EM stepper stepped before a reset", lambda: W._EMStepper(X).step(),
             RuntimeError, "reset"),
    BadInput("widgets: Gaussian explorer with a string rng",
             lambda: W.gaussian_explorer(rng="seed"), TypeError, "rng"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
