"""The prediction step every GP model of the course ends in (course_lib.gp.prediction): a
Gaussian over the training latents, stored as noise, precision or covariance form, predicts
what the two equations written out with inverses give (J. B. Nielsen 2015, eqs. 2.14-2.16), a
singular W included, and the whitened form is the same Gaussian."""

import numpy as np

from course_lib.gp.kernels import SquaredExponential
from course_lib.gp.prediction import LatentGaussian, predict_from_gaussian
from course_lib.gp.regression import GPRegression
from tests.gp.test_regression import X, X_TEST, Y


def test_general_prediction_step_reduces_to_exact_regression():
    kernel, s2 = SquaredExponential(0.3, 1.2), 0.07  # short lengthscale: K well conditioned
    gp = GPRegression(kernel, s2).fit(X, Y)
    K, K_cross = kernel(X), kernel(X, X_TEST)
    # exact posterior of the training latents, written out: mu = K (K + s2 I)^-1 y,
    # Sigma = K - K (K + s2 I)^-1 K
    inverse = np.linalg.inv(K + s2 * np.eye(len(Y)))
    mu, Sigma = K @ inverse @ Y, K - K @ inverse @ K
    expected_mean, expected_cov = gp.predict(X_TEST, full_cov=True)
    forms = {
        "covariance": LatentGaussian.from_mean_cov(K, mu, Sigma),
        "precision (diagonal R)": LatentGaussian.from_precision(K, mu, np.full(len(Y), s2 ** -0.5)),
        "precision (matrix R)": LatentGaussian.from_precision(K, mu, np.eye(len(Y)) / np.sqrt(s2)),
    }
    for label, q in forms.items():
        mean, cov = q.predict(K_cross, kernel(X_TEST))
        np.testing.assert_allclose(mean, expected_mean, atol=1e-8, err_msg=label)
        np.testing.assert_allclose(cov, expected_cov, atol=1e-8, err_msg=label)
    mean, var = predict_from_gaussian(K, K_cross, kernel.diag(X_TEST), mu, Sigma)
    np.testing.assert_allclose(var, np.diag(expected_cov), atol=1e-8)
    np.testing.assert_allclose(gp.posterior.mean, mu, atol=1e-10)
    np.testing.assert_allclose(gp.posterior.covariance(K), Sigma, atol=1e-10)


def test_precision_form_with_singular_w_matches_dense_formula():
    # a pairwise-like W = M^T D M is singular; the R-form needs no inverse of W
    rng = np.random.default_rng(3)
    kernel = SquaredExponential(1.0, 1.0)
    Xp = rng.uniform(-2, 2, (6, 1))
    M = np.zeros((4, 6))
    for row, (u, v) in enumerate([(0, 1), (1, 2), (3, 4), (4, 5)]):
        M[row, u], M[row, v] = -1.0, 1.0
    w = rng.uniform(0.5, 2.0, 4)
    R = M.T * np.sqrt(w)
    K = kernel(Xp)
    f_hat = rng.normal(size=6)
    q = LatentGaussian.from_precision(K, f_hat, R)
    Sigma = np.linalg.inv(np.linalg.inv(K) + M.T @ np.diag(w) @ M)
    mean, cov = q.predict(kernel(Xp, X_TEST), kernel(X_TEST))
    Kinv = np.linalg.inv(K)
    Kc = kernel(Xp, X_TEST)
    np.testing.assert_allclose(mean, Kc.T @ Kinv @ f_hat, atol=1e-8)
    np.testing.assert_allclose(cov, kernel(X_TEST) - Kc.T @ (Kinv - Kinv @ Sigma @ Kinv) @ Kc,
                               atol=1e-8)


def test_from_whitened_is_the_same_gaussian_as_from_mean_cov():
    rng = np.random.default_rng(5)
    K = SquaredExponential(0.8, 1.2)(X[:6]) + 0.1 * np.eye(6)
    L_K = np.linalg.cholesky(K)
    w, T = rng.normal(size=6), np.tril(rng.normal(size=(6, 6)))
    whitened = LatentGaussian.from_whitened(L_K, w, T)
    mean, Sigma = L_K @ w, L_K @ T @ T.T @ L_K.T
    literal = LatentGaussian.from_mean_cov(K, mean, Sigma)
    np.testing.assert_allclose(whitened.mean, mean)
    np.testing.assert_allclose(whitened.covariance(), Sigma, atol=1e-12)
    K_cross = SquaredExponential(0.8, 1.2)(X[:6], X_TEST)
    K_test = SquaredExponential(0.8, 1.2)(X_TEST)
    for got, want in zip(whitened.predict(K_cross, K_test), literal.predict(K_cross, K_test)):
        np.testing.assert_allclose(got, want, atol=1e-9)
