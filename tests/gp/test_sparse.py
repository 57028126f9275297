"""Sparse GP regression: Titsias' collapsed bound, its gradient, q(u), predictions, fitting.

Independent checks: a brute-force version of the bound that forms Q_ff = K_fu K_uu^-1 K_uf
explicitly (small N), central finite differences for every gradient, and the exact GP of
course_lib.gp.regression (GPRegression) for the limits.
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.gp.sparse import select_inducing_inputs
from course_lib.gp.kernels import Linear, Matern32, Periodic, SquaredExponential
from course_lib.gp.prediction import predict_from_gaussian
from course_lib.gp.regression import GPRegression
from course_lib.gp.sparse import (DEFAULT_JITTER, collapsed_evidence, fit_sparse_gp,
                                  sparse_posterior)
from sparse_data import NOISE, spread_inducing, toy_data


def bound_value(X, y, Z, kernel, noise, **options):
    """F, the value of the collapsed evidence bound."""
    return collapsed_evidence(X, y, Z, kernel, noise, **options).value


def exact_log_evidence(X, y, kernel, noise):
    """log N(y | 0, K + s2 I) from the exact GP."""
    return GPRegression(kernel, noise).fit(X, y).log_evidence()


def dense_bound(X, y, Z, kernel, noise, jitter):
    """F by its definition, with N x N matrices (brute force, small N only)."""
    K_uu = kernel(Z)
    K_uu += jitter * np.mean(np.diag(K_uu)) * np.eye(len(Z))
    K_uf = kernel(Z, X)
    Q = K_uf.T @ np.linalg.solve(K_uu, K_uf)
    C = Q + noise * np.eye(len(y))
    _, logdet = np.linalg.slogdet(C)
    return (-0.5 * len(y) * np.log(2 * np.pi) - 0.5 * logdet - 0.5 * y @ np.linalg.solve(C, y)
            - np.trace(kernel(X) - Q) / (2 * noise))


KERNELS = {
    "se": SquaredExponential(0.8, 1.3),
    "se+linear": SquaredExponential(0.8, 1.3) + Linear(0.3),
    "matern32*periodic": Matern32(1.5, 0.7) * Periodic(1.0, 2.5, 1.2),
}


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("jitter", [0.0, 1e-4])
def test_bound_equals_its_dense_definition(name, jitter):
    X, y = toy_data()
    Z = spread_inducing(7)
    F = bound_value(X, y, Z, KERNELS[name], NOISE, jitter=jitter)
    assert F == pytest.approx(dense_bound(X, y, Z, KERNELS[name], NOISE, jitter), abs=1e-9)


def finite_difference_gradient(X, y, Z, kernel, noise, jitter, eps=1e-5):
    def F(theta, log_noise, Z_now):
        return bound_value(X, y, Z_now, kernel.with_theta(theta), np.exp(log_noise),
                               jitter=jitter)

    theta, log_noise = kernel.theta, np.log(noise)
    d_theta = np.array([(F(theta + eps * e, log_noise, Z) - F(theta - eps * e, log_noise, Z))
                        / (2 * eps) for e in np.eye(len(theta))])
    d_noise = (F(theta, log_noise + eps, Z) - F(theta, log_noise - eps, Z)) / (2 * eps)
    d_Z = np.zeros_like(Z)
    for idx in np.ndindex(*Z.shape):
        step = np.zeros_like(Z)
        step[idx] = eps
        d_Z[idx] = (F(theta, log_noise, Z + step) - F(theta, log_noise, Z - step)) / (2 * eps)
    return d_theta, d_noise, d_Z


@pytest.mark.parametrize("name", KERNELS)
def test_gradient_matches_finite_differences(name):
    # the default-sized jitter is raised to 1e-3 so that its own derivative terms matter
    X, y = toy_data()
    Z = spread_inducing(7)
    kernel = KERNELS[name]
    result = collapsed_evidence(X, y, Z, kernel, NOISE, eval_gradient=True, jitter=1e-3)
    d_theta, d_noise, d_Z = finite_difference_gradient(X, y, Z, kernel, NOISE, 1e-3)
    np.testing.assert_allclose(result.gradient[:-1], d_theta, rtol=1e-6, atol=1e-6)
    assert result.gradient[-1] == pytest.approx(d_noise, rel=1e-6, abs=1e-6)
    np.testing.assert_allclose(result.gradient_inducing, d_Z, rtol=1e-6, atol=1e-6)
    assert result.value == pytest.approx(bound_value(X, y, Z, kernel, NOISE, jitter=1e-3))
    assert collapsed_evidence(X, y, Z, kernel, NOISE).gradient is None


def test_gradient_ard_in_two_dimensions_with_chunked_data():
    # N > the chunk size (64 rows), so the blockwise accumulation over data rows is exercised
    X, y = toy_data(n=150, dim=2)
    Z = spread_inducing(6, dim=2)
    kernel = SquaredExponential([0.9, 1.7], 1.1)
    result = collapsed_evidence(X, y, Z, kernel, NOISE, eval_gradient=True)
    d_theta, d_noise, d_Z = finite_difference_gradient(X, y, Z, kernel, NOISE, 1e-8)
    np.testing.assert_allclose(result.gradient[:-1], d_theta, rtol=1e-6, atol=1e-5)
    assert result.gradient[-1] == pytest.approx(d_noise, rel=1e-6)
    np.testing.assert_allclose(result.gradient_inducing, d_Z, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("m", [1, 3, 10, 25])
def test_bound_is_below_the_exact_log_evidence(m):
    X, y = toy_data()
    kernel = SquaredExponential(0.8, 1.3)
    exact = exact_log_evidence(X, y, kernel, NOISE)
    for seed in range(3):
        Z = select_inducing_inputs(X, m, rng=seed) + 0.01 * seed
        assert bound_value(X, y, Z, kernel, NOISE) <= exact + 1e-10


def grid_problem():
    """Inputs on a grid spaced 0.3 with lengthscale 0.5: K is well conditioned."""
    X = np.arange(30)[:, None] * 0.3
    y = np.cos(X[:, 0]) + 0.1 * np.random.default_rng(3).standard_normal(30)
    return X, y, SquaredExponential(0.5, 1.2)


def test_bound_equals_exact_when_inducing_inputs_are_the_training_inputs():
    X, y, kernel = grid_problem()
    exact = exact_log_evidence(X, y, kernel, NOISE)
    assert bound_value(X, y, X, kernel, NOISE, jitter=0.0) == pytest.approx(exact, abs=1e-8)
    # more inducing inputs than data points is allowed: with Z containing X it is still exact
    Z = np.vstack([X, [[0.45], [3.1], [9.5]]])
    assert bound_value(X, y, Z, kernel, NOISE, jitter=0.0) == pytest.approx(exact, abs=1e-8)
    # the default jitter keeps it a bound, lower by about N * jitter * variance / (2 s2)
    gap = exact - bound_value(X, y, X, kernel, NOISE)
    assert 0 < gap < 2 * 30 * DEFAULT_JITTER * kernel.variance / (2 * NOISE)


def test_predictions_equal_exact_gp_when_inducing_inputs_are_the_training_inputs():
    X, y, kernel = grid_problem()
    X_star = np.linspace(-1, 10, 57)[:, None]
    model = sparse_posterior(X, y, X, kernel, NOISE, jitter=0.0)
    mean, var = model.predict(X_star)
    exact_mean, exact_var = GPRegression(kernel, NOISE).fit(X, y).predict(X_star)
    np.testing.assert_allclose(mean, exact_mean, atol=1e-9)
    np.testing.assert_allclose(var, exact_var, atol=1e-9)


def test_predictions_approach_exact_gp_as_inducing_points_are_added():
    X, y = toy_data(n=300)
    kernel = SquaredExponential(0.8, 1.3)
    X_star = np.linspace(0, 5, 101)[:, None]
    exact_mean, exact_var = GPRegression(kernel, NOISE).fit(X, y).predict(X_star)
    order = np.random.default_rng(4).permutation(300)
    bounds, mean_err, var_err = [], [], []
    for m in (3, 6, 12, 24, 48):  # nested sets of inducing inputs
        model = sparse_posterior(X, y, X[order[:m]], kernel, NOISE)
        mean, var = model.predict(X_star)
        bounds.append(model.log_evidence)
        mean_err.append(np.max(np.abs(mean - exact_mean)))
        var_err.append(np.max(np.abs(var - exact_var)))
    assert np.all(np.diff(bounds) > 0)  # a larger nested Z can only raise the bound
    assert mean_err[-1] < 1e-3 < mean_err[0]
    assert var_err[-1] < 1e-4 < var_err[0]
    assert bounds[-1] == pytest.approx(exact_log_evidence(X, y, kernel, NOISE), abs=1e-2)


def test_predictions_are_the_two_equations_applied_to_q_u():
    # q(u) = N(m, S) at Z plays the role of the training-latent posterior in the thesis' 2.14/2.15
    X, y = toy_data(n=200)
    kernel = SquaredExponential(0.8, 1.3)
    Z = spread_inducing(9)
    model = sparse_posterior(X, y, Z, kernel, NOISE, jitter=0.0)
    m, S = model.q_u()
    X_star = np.linspace(-1, 6, 40)[:, None]
    for test_cov, full in ((kernel.diag(X_star), False), (kernel(X_star), True)):
        expected_mean, expected_cov = predict_from_gaussian(kernel(Z), kernel(Z, X_star),
                                                            test_cov, m, S)
        mean, cov = model.predict(X_star, full_cov=full)
        np.testing.assert_allclose(mean, expected_mean, atol=1e-8)
        np.testing.assert_allclose(cov, expected_cov, atol=1e-8)


def test_fit_with_fixed_inducing_inputs_raises_bound_and_finds_the_noise():
    X, y = toy_data(n=2000, seed=5)
    Z = select_inducing_inputs(X, 15, method="kmeans", rng=0)
    start = SquaredExponential(2.0, 0.5)
    before = bound_value(X, y, Z, start, 0.5)
    model = fit_sparse_gp(X, y, Z, start, 0.5)
    assert model.converged, model.message
    assert model.log_evidence > before
    np.testing.assert_array_equal(model.Z, Z)
    assert model.noise_variance == pytest.approx(NOISE, rel=0.15)  # data made with s2 = 0.05
    refit = bound_value(X, y, Z, model.kernel, model.noise_variance)
    assert model.log_evidence == pytest.approx(refit)


def test_fit_respects_fixed_noise_and_fixed_kernel_parameters():
    X, y = toy_data(n=300, seed=8)
    Z = spread_inducing(8)
    kernel = SquaredExponential(2.0, 0.5, variance_bounds="fixed")
    model = fit_sparse_gp(X, y, Z, kernel, 0.3, noise_bounds="fixed")
    assert model.noise_variance == pytest.approx(0.3, rel=1e-12)
    assert model.kernel.variance == pytest.approx(0.5, rel=1e-12)
    assert model.kernel.lengthscale != pytest.approx(2.0, rel=1e-3)  # the free one moved


def test_optimising_inducing_inputs_beats_a_poor_placement():
    X, y = toy_data(n=400, seed=6)
    Z = np.linspace(0.0, 1.0, 5)[:, None]  # crowded into one end of [0, 5]
    kernel = SquaredExponential(1.0, 1.0)
    fixed = fit_sparse_gp(X, y, Z, kernel, 0.1)
    moved = fit_sparse_gp(X, y, Z, kernel, 0.1, optimise_inducing=True)
    assert moved.log_evidence > fixed.log_evidence + 10
    assert moved.Z.max() > 2.5  # the inducing inputs spread out over the data
    assert moved.log_evidence <= exact_log_evidence(X, y, moved.kernel, moved.noise_variance) + 1e-8


def test_tens_of_thousands_of_points_run():
    # size only (no timing): 20 000 points and 30 inducing inputs, no N x N matrix
    rng = np.random.default_rng(7)
    X = rng.uniform(0, 10, 20_000)
    y = np.sin(X) + 0.2 * rng.standard_normal(X.size)
    Z = select_inducing_inputs(X, 30, rng=rng)
    result = collapsed_evidence(X, y, Z, SquaredExponential(1.0, 1.0), 0.04, eval_gradient=True)
    assert np.isfinite(result.value) and np.all(np.isfinite(result.gradient_inducing))
    mean, _ = sparse_posterior(X, y, Z, SquaredExponential(1.0, 1.0), 0.04).predict([[2.0]])
    assert mean[0] == pytest.approx(np.sin(2.0), abs=0.05)


def test_predictions_equal_the_textbook_formulas_with_dense_matrices():
    # mean = K*u Sigma^-1 K_uf y / s2, cov = K** - K*u K_uu^-1 K_u* + K*u Sigma^-1 K_u*, with
    # Sigma = K_uu + K_uf K_fu / s2, by plain dense solves (independent of the factor algebra)
    X, y = toy_data(n=120)
    kernel = SquaredExponential(0.8, 1.3) + Linear(0.3)
    Z = spread_inducing(8)
    X_star = np.linspace(-1, 6, 25)[:, None]
    model = sparse_posterior(X, y, Z, kernel, NOISE, jitter=0.0)
    K_uu, K_uf, K_su = kernel(Z), kernel(Z, X), kernel(X_star, Z)
    Sigma = K_uu + K_uf @ K_uf.T / NOISE
    mean = K_su @ np.linalg.solve(Sigma, K_uf @ y) / NOISE
    cov = (kernel(X_star) - K_su @ np.linalg.solve(K_uu, K_su.T)
           + K_su @ np.linalg.solve(Sigma, K_su.T))
    got_mean, got_cov = model.predict(X_star, full_cov=True)
    np.testing.assert_allclose(got_mean, mean, atol=1e-8)
    np.testing.assert_allclose(got_cov, cov, atol=1e-8)
    _, var = model.predict(X_star)
    np.testing.assert_allclose(var, np.diag(cov), atol=1e-8)
    m, S = model.q_u()   # q(u) = N(K_uu Sigma^-1 K_uf y / s2, K_uu Sigma^-1 K_uu)
    np.testing.assert_allclose(m, K_uu @ np.linalg.solve(Sigma, K_uf @ y) / NOISE, atol=1e-8)
    np.testing.assert_allclose(S, K_uu @ np.linalg.solve(Sigma, K_uu), atol=1e-10)
