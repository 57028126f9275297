"""The brute-force posterior on a grid (course_lib.preference.exact_posterior): the closed form of a
Gaussian likelihood, Monte Carlo for three items, quadrature for one bounded rating."""

import numpy as np
import pytest

from course_lib.preference.exact_posterior import grid_posterior, two_item_prior
from course_lib.preference.laplace import laplace_mode
from course_lib.preference import PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating
from bad_input import check_names_argument


def test_grid_posterior_of_gaussian_differences_is_the_closed_form():
    K = two_item_prior(1.2, 0.4)
    M = np.array([[1.0, -1.0]])
    y, noise = np.array([0.8]), 0.5
    grid = np.linspace(-6, 6, 241)
    exact = grid_posterior(K, M, PairwiseGaussian(noise), y, (grid, grid))
    S = M @ K @ M.T + noise ** 2
    mean = K @ M.T @ np.linalg.solve(S, y)
    cov = K - K @ M.T @ np.linalg.solve(S, M @ K)
    np.testing.assert_allclose(exact.mean, mean, atol=1e-6)
    np.testing.assert_allclose(exact.cov, cov, atol=1e-5)
    # and Laplace is exact for a Gaussian likelihood
    laplace = laplace_mode(K, M, PairwiseGaussian(noise), y)
    np.testing.assert_allclose(laplace.f_hat, mean, atol=1e-9)
    np.testing.assert_allclose(laplace.covariance(), cov, atol=1e-9)
    spacing = grid[1] - grid[0]
    for item in (0, 1):
        assert exact.marginal(item).sum() * spacing == pytest.approx(1.0, abs=1e-10)


def test_grid_posterior_with_three_items_matches_monte_carlo():
    X = np.array([0.0, 0.7, 1.5])
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2)
    M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
    likelihood, y = PairwiseProbit(0.7), np.array([1.0, 0.0])
    grid = np.linspace(-4.5, 4.5, 61)
    exact = grid_posterior(K, M, likelihood, y, (grid, grid, grid))
    rng = np.random.default_rng(4)
    draws = rng.multivariate_normal(np.zeros(3), K, size=400_000)
    weights = np.exp(likelihood.log_likelihood((draws @ M.T).ravel(),
                                               np.tile(y, draws.shape[0])).reshape(-1, 2)
                     .sum(axis=1))
    mc_mean = weights @ draws / weights.sum()
    np.testing.assert_allclose(exact.mean, mc_mean, atol=0.01)


def test_grid_posterior_of_one_bounded_rating_against_quadrature():
    likelihood = BetaRating(5.0)
    z = np.linspace(-7, 7, 1401)
    exact = grid_posterior([[1.5 ** 2]], [[1.0]], likelihood, [0.97], (z,))
    # the normaliser is the library's predictive density of the rating
    log_evidence = likelihood.predictive_log_density([0.97], [0.0], [1.5 ** 2])[0]
    prior = np.exp(-0.5 * z ** 2 / 1.5 ** 2) / np.sqrt(2 * np.pi * 1.5 ** 2)
    density = prior * np.exp(likelihood.log_likelihood(z, np.full(z.size, 0.97)) - log_evidence)
    np.testing.assert_allclose(exact.marginal(0), density, rtol=1e-6, atol=1e-12)



@pytest.mark.parametrize("call, name", [
    (lambda: grid_posterior(np.eye(4), np.ones((1, 4)), PairwiseProbit(), [1.0],
                            [np.linspace(0, 1, 5)] * 4), "K"),
    (lambda: grid_posterior(np.eye(2), np.ones((1, 3)), PairwiseProbit(), [1.0],
                            [np.linspace(0, 1, 5)] * 2), "M"),
    (lambda: grid_posterior(np.eye(2), [[1.0, -1.0]], PairwiseProbit(), [1.0, 0.0],
                            [np.linspace(0, 1, 5)] * 2), "y"),
    (lambda: grid_posterior(np.eye(2), [[1.0, -1.0]], PairwiseProbit(), [0.3],
                            [np.linspace(0, 1, 5)] * 2), "y"),
    (lambda: grid_posterior(np.eye(2), [[1.0, -1.0]], PairwiseProbit(), [1.0],
                            [np.linspace(0, 1, 5)]), "axes"),
    (lambda: grid_posterior(np.eye(2), [[1.0, -1.0]], PairwiseProbit(), [1.0],
                            [np.array([0.0, 0.1, 0.5]), np.linspace(0, 1, 5)]), "axes[0]"),
    (lambda: grid_posterior(np.eye(2), [[1.0, -1.0]], "probit", [1.0],
                            [np.linspace(0, 1, 5)] * 2), "likelihood"),
    (lambda: two_item_prior(1.0, 1.0), "correlation"),
])
def test_bad_input_names_the_argument(call, name):
    check_names_argument(call, name)
