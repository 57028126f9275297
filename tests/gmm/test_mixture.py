"""Tests for course_lib.gmm.mixture: the joint log density against scipy, ancestral sampling,
the demonstration mixture, the covariance prior by hand, and the parameters' checks naming
the argument."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from course_lib.gmm.mixture import (CovariancePrior, GMMParams, _log_prior, demo_mixture,
                                    log_joint, sample_gmm)

SPD = np.array([[[1.0, 0.0], [0.0, 1.0]]])


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
def test_log_joint_is_log_weight_plus_scipy_log_density(covariance_type):
    truth = demo_mixture()
    params = truth if covariance_type == "full" else GMMParams(
        truth.weights, truth.means, np.array([[1.0, 0.5], [0.4, 1.2], [0.9, 0.3]]), "diag")
    X = sample_gmm(params, 40, rng=1)[0] + 1e3   # far from the origin: the shift must not cancel
    expected = np.stack([np.log(w) + multivariate_normal(m, S).logpdf(X)
                         for w, m, S in zip(params.weights, params.means,
                                            params.full_covariances())], axis=1)
    # log densities of size ~1e6 (Mahalanobis terms at 1e3 from the means): round-off relative
    np.testing.assert_allclose(log_joint(X, params), expected, rtol=1e-10)


def test_demo_mixture_is_a_valid_three_component_model():
    truth = demo_mixture()
    assert truth.n_components == 3 and truth.n_features == 2
    X, z = sample_gmm(truth, 300, rng=0)
    np.testing.assert_array_equal(X, sample_gmm(demo_mixture(), 300, rng=0)[0])
    assert np.abs(np.bincount(z) / 300 - truth.weights).max() < 0.08


def test_sample_gmm_labels_pick_their_components_mean():
    params = GMMParams(np.array([0.5, 0.5]), np.array([[-50.0], [50.0]]), np.ones((2, 1)), "diag")
    X, z = sample_gmm(params, 200, rng=3)
    # unit variance, means 100 apart: every sample lies within 10 of its label's mean
    assert np.all(np.abs(X[:, 0] - params.means[z, 0]) < 10)
    with pytest.raises(ValueError, match="n_samples"):
        sample_gmm(params, 0)
    with pytest.raises(TypeError, match="params"):
        sample_gmm((params.weights, params.means), 5)


def test_log_prior_by_hand():
    params = GMMParams(np.array([1.0]), np.zeros((1, 2)), np.array([[[2.0, 0.0], [0.0, 0.5]]]))
    tau = 3.0
    expected = -0.5 * tau * (np.log(1.0) + (1.0 / 2.0 + 1.0 / 0.5))   # Psi = I
    assert _log_prior(params, CovariancePrior(tau, 1.0), np.ones(2)) == pytest.approx(expected)


def test_a_matrix_prior_scale_needs_full_covariances():
    with pytest.raises(ValueError, match="prior.scale"):
        CovariancePrior(1.0, np.eye(2)).psi("diag", np.ones(2))
    np.testing.assert_array_equal(CovariancePrior(1.0, 2.0).psi("full", np.ones(2)), 2 * np.eye(2))


@pytest.mark.parametrize("call, match", [
    (lambda X: GMMParams(np.ones(1), np.zeros((1, 2)), np.array([[[1.0, 2.0], [2.0, 1.0]]])),
     "covariances"),                                                          # not PD
    (lambda X: GMMParams(np.ones(1), np.zeros((1, 2)), np.array([[1.0, 0.0]]), "diag"),
     "covariances"),
    (lambda X: GMMParams(np.array([0.5, 0.6]), np.zeros((2, 2)), np.stack([SPD[0]] * 2)),
     "weights"),
    (lambda X: GMMParams(np.ones(1), np.zeros((1, 2)), np.eye(3)[None]), "covariances"),
    (lambda X: CovariancePrior(0.0), "prior.strength"),
])
def test_bad_parameters_are_refused_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call(None)
