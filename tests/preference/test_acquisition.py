"""Acquisition for preference GPs (course_lib.preference.acquisition): uEI and bEI against Monte Carlo
from the posterior, bEI exactly zero at the incumbent, the corrected bEI gradient against finite
differences (every LatentGaussian form, a non-stationary kernel), grid evaluation = pointwise
evaluation, the EI tail against an independent quadrature, the multinomial draw and its all-zero
fallback, Thompson sampling, and the grid mean of bEI shrinking as comparisons accumulate.

Monte Carlo tolerances: 5 standard errors of the Monte Carlo mean (estimated from the same
draws), so a correct formula fails with probability below 1e-6 per check.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import ndtr

from course_lib.gp import GPRegression, LatentGaussian, Linear, Matern52, SquaredExponential
from course_lib.preference.acquisition import (bivariate_ei, bivariate_ei_gradient, expected_improvement,
                                               improvement_moments, incumbent, multinomial_sample,
                                               thompson_sample, univariate_ei)
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseProbit
from course_lib.preference.preference_gp import PreferenceGP

from preference_data import preference_model, utility


def regression_model(seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (12, 2))
    return GPRegression(Matern52([1.0, 1.5], 1.0), noise_variance=0.05).fit(
        X, utility(X) + 0.1 * rng.standard_normal(12))


def namespace_model(form, seed=2):
    """A bare model (kernel, X_train, posterior) whose posterior has the 'covariance' form or
    the 'precision' form with a diagonal W (R of shape (n,))."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (9, 2))
    kernel = SquaredExponential([1.0, 1.3], 1.2)
    K = kernel(X)
    mean = utility(X)
    if form == "covariance":
        A = rng.standard_normal((9, 9))
        posterior = LatentGaussian.from_mean_cov(K, mean, 0.05 * A @ A.T + 0.01 * np.eye(9))
    else:
        posterior = LatentGaussian.from_precision(K, mean, rng.uniform(0.5, 2.0, 9))
    return SimpleNamespace(kernel=kernel, X_train=X, posterior=posterior)


MODELS = {
    "probit": lambda: preference_model(),
    "beta-degree": lambda: preference_model(kind="pair-degree"),
    "matern-probit": lambda: preference_model(Matern52([1.0, 2.0], 2.0)),
    "linear+se (non-stationary)": lambda: preference_model(
        Linear(0.3) + SquaredExponential([1.2, 1.8], 1.0)),
    "regression (noise form)": regression_model,
    "covariance form": lambda: namespace_model("covariance"),
    "diagonal precision form": lambda: namespace_model("precision"),
}


def joint_moments(model, X, x_best):
    """Mean and covariance of (f(X), f(x_best)) from the model's posterior via the full
    predictive covariance (the slow, obvious route)."""
    Z = np.vstack([X, x_best[None, :]])
    K_cross = model.kernel(model.X_train, Z)
    return model.posterior.predict(K_cross, model.kernel(Z))


# ----- expected_improvement ----------------------------------------------------------------
@pytest.mark.parametrize("mean, var, best", [(0.3, 0.5, 0.0), (-1.0, 0.2, 0.5), (2.0, 4.0, 1.0),
                                             (-0.5, 0.01, -0.45)])
def test_expected_improvement_matches_monte_carlo(mean, var, best):
    rng = np.random.default_rng(10)
    improvement = np.maximum(mean + np.sqrt(var) * rng.standard_normal(400_000) - best, 0.0)
    ei = expected_improvement(mean, var, best)
    assert abs(ei - improvement.mean()) < 5 * improvement.std() / np.sqrt(improvement.size)


def test_expected_improvement_tail_against_quadrature():
    # For u < 0: EI / s = phi(u) * int_0^inf t exp(u t - t^2 / 2) dt (shift t -> t - u in the
    # defining integral), an integral quad resolves to full precision; phi(u) in log space.
    for u in [-1.0, -2.0, -5.0, -12.0, -30.0, -37.0]:
        integral, _ = quad(lambda t, u=u: t * np.exp(u * t - 0.5 * t * t), 0, np.inf,
                           epsabs=0, epsrel=1e-13)
        log_reference = np.log(integral) - 0.5 * u * u - 0.5 * np.log(2 * np.pi)
        for s in [1e-3, 1.0, 1e3]:
            ei = float(expected_improvement(u * s, s * s))
            assert ei > 0
            assert np.log(ei) == pytest.approx(np.log(s) + log_reference, abs=1e-9)


def test_expected_improvement_continuous_across_the_two_forms():
    u = np.array([np.nextafter(-1.0, -2.0), -1.0, np.nextafter(-1.0, 0.0)])
    ei = expected_improvement(u, np.ones(3))
    assert np.allclose(ei, ei[1], rtol=1e-14, atol=0)


def test_expected_improvement_without_spread_is_the_clipped_mean():
    mean = np.array([-2.0, -1e-300, 0.0, 1e-300, 3.0])
    for var in [0.0, 1e-320]:  # zero and subnormal variance: no 0/0, no inf * 0
        ei = expected_improvement(mean, np.full(5, var))
        assert np.all(np.isfinite(ei))
        assert np.allclose(ei, np.maximum(mean, 0.0), atol=1e-150, rtol=1e-12)


def test_expected_improvement_broadcasts_and_bounds():
    mean = np.linspace(-3, 3, 7)
    var = np.array([[0.1], [1.0], [5.0]])
    ei = expected_improvement(mean, var, 0.5)
    assert ei.shape == (3, 7)
    assert np.all(ei >= np.maximum(mean - 0.5, 0.0))     # Jensen: E max(I, 0) >= max(E I, 0)
    assert np.all(ei <= np.maximum(mean - 0.5, 0.0) + np.sqrt(var / (2 * np.pi)) + 1e-15)
    assert np.all(np.diff(ei, axis=0) > 0)                # more spread, more expected gain
    assert np.all(np.diff(ei, axis=1) > 0)                # higher mean, more expected gain


# ----- uEI and bEI against Monte Carlo ------------------------------------------------------
def test_bivariate_ei_matches_monte_carlo_from_the_joint_posterior():
    model = preference_model()
    _, x_best = incumbent(model)
    X = np.array([[0.5, -1.0], [-2.0, 2.0], [2.5, 0.3], x_best + 0.05])
    mean, cov = joint_moments(model, X, x_best)
    rng = np.random.default_rng(11)
    draws = rng.multivariate_normal(mean, cov, size=300_000, method="eigh")
    gains = np.maximum(draws[:, :-1] - draws[:, -1:], 0.0)
    bei = bivariate_ei(model, X)
    error = 5 * gains.std(axis=0) / np.sqrt(draws.shape[0])
    assert np.all(np.abs(bei - gains.mean(axis=0)) < error)
    # the marginal-only (uEI) value differs clearly where f(x) and f(x_best) are correlated
    assert univariate_ei(model, X)[-1] > bei[-1] + 10 * error[-1]


def test_univariate_ei_matches_monte_carlo():
    model = preference_model()
    X = np.array([[0.5, -1.0], [-2.0, 2.0], [2.5, 0.3]])
    mean, var = model.predict(X)
    best = np.max(model.posterior.mean)
    rng = np.random.default_rng(12)
    draws = mean + np.sqrt(var) * rng.standard_normal((300_000, 3))
    gains = np.maximum(draws - best, 0.0)
    error = 5 * gains.std(axis=0) / np.sqrt(draws.shape[0])
    assert np.all(np.abs(univariate_ei(model, X) - gains.mean(axis=0)) < error)
    assert np.allclose(univariate_ei(model, X, best=0.2),
                       expected_improvement(mean, var, 0.2), rtol=1e-14)


@pytest.mark.parametrize("name", list(MODELS))
def test_improvement_moments_equal_the_joint_covariance_route(name):
    model = MODELS[name]()
    _, x_best = incumbent(model)
    X = np.random.default_rng(13).uniform(-3, 3, (25, 2))
    mean, cov = joint_moments(model, X, x_best)
    expected_var = np.diag(cov)[:-1] + cov[-1, -1] - 2 * cov[:-1, -1]
    got_mean, got_var = improvement_moments(model, X)
    assert np.allclose(got_mean, mean[:-1] - mean[-1], rtol=1e-10, atol=1e-12)
    assert np.allclose(got_var, expected_var, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", list(MODELS))
def test_bivariate_ei_is_exactly_zero_at_the_incumbent(name):
    model = MODELS[name]()
    index, x_best = incumbent(model)
    assert index == int(np.argmax(model.posterior.mean))
    assert np.array_equal(x_best, model.X_train[index])
    assert bivariate_ei(model, x_best[None, :])[0] == 0.0
    mean, var = improvement_moments(model, x_best[None, :])
    assert mean[0] == 0.0 and var[0] == 0.0
    # and it vanishes continuously (like a cone, in proportion to the distance) as a candidate
    # approaches the incumbent
    steps = [bivariate_ei(model, (x_best + delta * np.array([0.6, -0.8]))[None, :])[0]
             for delta in [1e-2, 1e-3, 1e-4]]
    assert steps[0] > steps[1] > steps[2] > 0
    assert steps[2] < 0.2 * steps[1] < 0.04 * steps[0]


def test_univariate_ei_is_positive_at_the_incumbent_but_bivariate_is_not():
    model = preference_model()
    _, x_best = incumbent(model)
    assert univariate_ei(model, x_best[None, :])[0] > 0.05
    assert bivariate_ei(model, x_best[None, :])[0] == 0.0


def test_bivariate_ei_against_another_reference_setting():
    model = preference_model()
    reference = np.array([1.0, -2.0])
    X = np.random.default_rng(14).uniform(-3, 3, (10, 2))
    mean, cov = joint_moments(model, X, reference)
    expected = expected_improvement(mean[:-1] - mean[-1],
                                    np.diag(cov)[:-1] + cov[-1, -1] - 2 * cov[:-1, -1])
    assert np.allclose(bivariate_ei(model, X, x_best=reference), expected, rtol=1e-8,
                       atol=1e-12)


# ----- grid = pointwise; gradient by finite differences ----------------------------------------
def test_grid_evaluation_equals_pointwise_evaluation():
    model = preference_model()
    axis = np.linspace(-3, 3, 41)
    grid = np.stack(np.meshgrid(axis, axis), -1).reshape(-1, 2)
    on_grid = bivariate_ei(model, grid)
    assert on_grid.shape == (1681,)
    picks = np.random.default_rng(15).choice(grid.shape[0], 60, replace=False)
    pointwise = np.array([bivariate_ei_gradient(model, grid[i])[0][0] for i in picks])
    assert np.allclose(on_grid[picks], pointwise, rtol=1e-12, atol=1e-15)
    _, x_best = incumbent(model)
    pointwise_moments = np.array([improvement_moments(model, grid[i:i + 1], x_best)
                                  for i in picks])[:, :, 0]
    assert np.allclose(expected_improvement(*pointwise_moments.T), on_grid[picks], rtol=1e-12,
                       atol=1e-15)


@pytest.mark.parametrize("name", list(MODELS))
def test_bivariate_ei_gradient_matches_finite_differences(name):
    model = MODELS[name]()
    X = np.random.default_rng(16).uniform(-2.5, 2.5, (5, 2))
    values, gradients = bivariate_ei_gradient(model, X)
    assert np.allclose(values, bivariate_ei(model, X), rtol=1e-12, atol=1e-15)
    h = 1e-6
    for j in range(2):
        step = np.zeros(2)
        step[j] = h
        numeric = (bivariate_ei(model, X + step) - bivariate_ei(model, X - step)) / (2 * h)
        assert np.allclose(gradients[:, j], numeric, rtol=1e-5, atol=1e-8), (name, j)


def test_batch_gradient_equals_one_point_at_a_time():
    model = preference_model(Linear(0.3) + SquaredExponential([1.2, 1.8], 1.0))
    X = np.random.default_rng(17).uniform(-3, 3, (4, 2))
    values, gradients = bivariate_ei_gradient(model, X)
    for i in range(4):
        value, gradient = bivariate_ei_gradient(model, X[i])
        assert value[0] == pytest.approx(values[i], rel=1e-12)
        assert np.allclose(gradient[0], gradients[i], rtol=1e-10, atol=1e-14)


def test_gradient_without_the_correction_fails_finite_differences():
    # The printed appendix (I.4) multiplies dm/dx by phi(u) instead of Phi(u): show the check
    # can tell the two apart at a point where Phi(u) and phi(u) differ.
    model = preference_model()
    x = np.array([0.5, -1.0])
    mean, var = improvement_moments(model, x[None, :])
    u = mean[0] / np.sqrt(var[0])
    _, gradient = bivariate_ei_gradient(model, x)
    h = 1e-6
    numeric = np.array([(bivariate_ei(model, (x + h * e)[None])[0]
                         - bivariate_ei(model, (x - h * e)[None])[0]) / (2 * h)
                        for e in np.eye(2)])
    d_mean = np.array([(model.predict((x + h * e)[None])[0][0]
                        - model.predict((x - h * e)[None])[0][0]) / (2 * h) for e in np.eye(2)])
    phi = np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)
    misprinted = gradient[0] + (phi - ndtr(u)) * d_mean
    assert np.allclose(gradient[0], numeric, rtol=1e-5, atol=1e-9)
    assert not np.allclose(misprinted, numeric, rtol=1e-3, atol=1e-6)


def test_gradient_at_the_incumbent_is_finite():
    model = preference_model()
    _, x_best = incumbent(model)
    value, gradient = bivariate_ei_gradient(model, x_best)
    assert value[0] == 0.0 and np.all(gradient == 0.0)


# ----- multinomial and Thompson draws -------------------------------------------------------
def _within_binomial(count, n, p, sds=5.0):
    return abs(count - n * p) <= sds * np.sqrt(n * p * (1 - p)) + 1e-12


def test_multinomial_sample_is_proportional_to_the_values():
    values = np.array([0.0, 1.0, 3.0, 0.0, 4.0])
    rng = np.random.default_rng(18)
    draws = np.array([multinomial_sample(values, rng=rng) for _ in range(8000)])
    counts = np.bincount(draws, minlength=5)
    assert counts[0] == 0 and counts[3] == 0           # zero EI is never drawn
    for index in (1, 2, 4):
        assert _within_binomial(counts[index], 8000, values[index] / values.sum())


def test_multinomial_all_zero_fallback_is_uniform():
    rng = np.random.default_rng(19)
    draws = np.array([multinomial_sample(np.zeros(6), rng=rng) for _ in range(6000)])
    counts = np.bincount(draws, minlength=6)
    assert counts.size == 6
    assert all(_within_binomial(c, 6000, 1 / 6) for c in counts)


def test_multinomial_fallback_when_every_ei_underflows():
    # far below the incumbent every EI underflows to exactly 0 (Nielsen et al.'s (2015) "numerical
    # issue")
    values = expected_improvement(np.full(4, -60.0), np.ones(4))
    assert np.all(values == 0.0)
    picks = {multinomial_sample(values, rng=seed) for seed in range(40)}
    assert picks == {0, 1, 2, 3}


def test_multinomial_sample_is_reproducible_with_a_seed():
    values = np.random.default_rng(20).uniform(size=50)
    assert multinomial_sample(values, rng=7) == multinomial_sample(values, rng=7)


def test_thompson_sample_picks_with_the_posterior_probability_of_being_best():
    model = preference_model()
    pair = np.array([[0.3, 0.5], [-0.4, 1.2]])
    mean, var = improvement_moments(model, pair[:1], x_best=pair[1])
    p_first = ndtr(mean[0] / np.sqrt(var[0]))
    assert 0.05 < p_first < 0.95                          # a pair that is not already decided
    rng = np.random.default_rng(21)
    picks = np.array([thompson_sample(model, pair, rng=rng) for _ in range(3000)])
    assert _within_binomial(np.sum(picks == 0), 3000, p_first)


def test_grid_mean_of_bei_shrinks_as_comparisons_accumulate():
    # the Nielsen et al. (2015) convergence measure: an informed listener model expects less
    # improvement
    axis = np.linspace(-3, 3, 21)
    grid = np.stack(np.meshgrid(axis, axis), -1).reshape(-1, 2)
    rng = np.random.default_rng(24)
    X = rng.uniform(-3, 3, (40, 2))
    means = []
    chain = np.arange(40)
    for m in (0, 60, 400):  # a chain through all 40 settings (connected graph), then m more
        first = np.r_[chain[:-1], rng.integers(0, 40, m)]
        second = np.r_[chain[1:], (first[39:] + rng.integers(1, 40, m)) % 40]
        z = utility(X[first]) - utility(X[second])
        pairs = Comparisons.from_pairs(X[first], X[second], (z > 0).astype(float))
        model = PreferenceGP(SquaredExponential([1.2, 1.8], 1.5), PairwiseProbit(0.2)).fit(pairs)
        means.append(bivariate_ei(model, grid).mean())
    assert means[0] > means[1] > means[2]
