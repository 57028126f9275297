"""Tests for course_lib.gmm.gaussian: densities by hand and against scipy, ML estimates, sampling."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from course_lib.gmm.gaussian import (covariance_2d, fit_gaussian, gaussian_log_density,
                                     sample_gaussian)

SIGMA = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])


def test_standard_normal_by_hand():
    # log N(0 | 0, 1) = -log(2 pi)/2 ; at x = 2: -log(2 pi)/2 - 2
    out = gaussian_log_density(np.array([[0.0], [2.0]]), np.zeros(1), np.eye(1))
    np.testing.assert_allclose(out, [-0.5 * np.log(2 * np.pi), -0.5 * np.log(2 * np.pi) - 2.0])


def test_2d_correlated_by_hand():
    # Sigma = [[1, r], [r, 1]], |Sigma| = 1 - r^2, x = (1, 1): x^T Sigma^-1 x = 2 / (1 + r)
    r = 0.5
    Sigma = np.array([[1.0, r], [r, 1.0]])
    expected = -np.log(2 * np.pi) - 0.5 * np.log(1 - r ** 2) - 0.5 * 2 / (1 + r)
    out = gaussian_log_density(np.ones((1, 2)), np.zeros(2), Sigma)
    assert out[0] == pytest.approx(expected, rel=1e-14)


def test_full_matches_scipy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)) * 3
    mu = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(gaussian_log_density(X, mu, SIGMA),
                               multivariate_normal(mu, SIGMA).logpdf(X), rtol=1e-12)


def test_diag_equals_full_with_diagonal_matrix():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 4))
    var = np.array([0.5, 1.0, 2.0, 4.0])
    np.testing.assert_allclose(gaussian_log_density(X, np.ones(4), var, "diag"),
                               gaussian_log_density(X, np.ones(4), np.diag(var)), rtol=1e-12)


def test_covariance_2d_by_hand():
    # s1 = 2, s2 = 0.5, rho = -0.5: off-diagonal -0.5 * 2 * 0.5 = -0.5
    np.testing.assert_allclose(covariance_2d(2.0, 0.5, -0.5), [[4.0, -0.5], [-0.5, 0.25]])
    # its correlation is rho again
    S = covariance_2d(1.5, 3.0, 0.3)
    assert S[0, 1] / np.sqrt(S[0, 0] * S[1, 1]) == pytest.approx(0.3, rel=1e-14)


def test_ml_estimates_do_not_depend_on_a_large_offset():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 2)) @ np.array([[1.0, 0.4], [0.0, 0.3]])
    shifted = X + 1e8
    base = shifted - 1e8                      # the same points as stored after the shift
    mu, Sigma = fit_gaussian(shifted)
    mu0, Sigma0 = fit_gaussian(base)
    np.testing.assert_allclose(mu - 1e8, mu0, atol=1e-6)
    np.testing.assert_allclose(Sigma, Sigma0, rtol=1e-6)


def test_density_can_exceed_one():
    assert gaussian_log_density(np.zeros((1, 1)), np.zeros(1), np.array([[1e-4]]))[0] > 0


def test_ml_estimates_by_hand():
    # points (0,0), (2,0), (0,2), (2,2): mean (1,1), covariance I (1/N convention)
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    mu, Sigma = fit_gaussian(X)
    np.testing.assert_allclose(mu, [1.0, 1.0])
    np.testing.assert_allclose(Sigma, np.eye(2))
    mu_d, var = fit_gaussian(X, "diag")
    np.testing.assert_allclose(var, [1.0, 1.0])


def test_ml_estimates_are_biased_np_cov_and_maximise_likelihood():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3)) @ np.linalg.cholesky(SIGMA).T
    mu, Sigma = fit_gaussian(X)
    np.testing.assert_allclose(Sigma, np.cov(X.T, bias=True), rtol=1e-12)
    best = gaussian_log_density(X, mu, Sigma).sum()
    for eps in (1e-2, -1e-2):   # nudging either estimate lowers the likelihood
        assert gaussian_log_density(X, mu + eps, Sigma).sum() < best
        assert gaussian_log_density(X, mu, Sigma * (1 + eps)).sum() < best


def test_sampling_recovers_parameters_and_is_reproducible():
    mu = np.array([1.0, -2.0, 0.5])
    X = sample_gaussian(mu, SIGMA, 20000, rng=3)
    m, S = fit_gaussian(X)
    np.testing.assert_allclose(m, mu, atol=0.05)
    np.testing.assert_allclose(S, SIGMA, atol=0.06)
    np.testing.assert_array_equal(X, sample_gaussian(mu, SIGMA, 20000, rng=3))
    Xd = sample_gaussian(mu, np.array([1.0, 4.0, 0.25]), 20000, rng=4, covariance_type="diag")
    np.testing.assert_allclose(Xd.var(0), [1.0, 4.0, 0.25], rtol=0.05)


@pytest.mark.parametrize("call, match", [
    (lambda: gaussian_log_density(np.zeros((2, 2)), np.zeros(2), np.array([[1, 2], [2, 1.]])),
     "Sigma"),                                                            # indefinite
    (lambda: gaussian_log_density(np.zeros((2, 2)), np.zeros(2), np.array([[1, .5], [0, 1.]])),
     "Sigma"),                                                            # not symmetric
    (lambda: gaussian_log_density(np.zeros((2, 2)), np.zeros(2), np.zeros((2, 2))), "Sigma"),
    (lambda: gaussian_log_density(np.zeros((2, 2)), np.zeros(2), np.eye(3)), "Sigma"),
    (lambda: gaussian_log_density(np.zeros((2, 2)), np.zeros(2), np.array([1.0, -1.0]),
                                  "diag"), "Sigma"),
    (lambda: gaussian_log_density(np.zeros((2, 2)), np.zeros(3), np.eye(2)), "mu"),
    (lambda: gaussian_log_density(np.array([[np.nan, 0.0]]), np.zeros(2), np.eye(2)), "X"),
    (lambda: gaussian_log_density(np.zeros(2), np.zeros(2), np.eye(2)), "X"),
    (lambda: gaussian_log_density(np.zeros((1, 2)), np.zeros(2), np.eye(2), "spherical"),
     "covariance_type"),
    (lambda: fit_gaussian(np.eye(3)), "X"),                               # n <= d
    (lambda: fit_gaussian(np.ones((5, 2))), "X"),                         # duplicates: singular
    (lambda: fit_gaussian(np.c_[np.arange(5.0), np.ones(5)], "diag"), "X"),  # constant dim
    (lambda: sample_gaussian(np.zeros(2), np.eye(2), 0), "n_samples"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
