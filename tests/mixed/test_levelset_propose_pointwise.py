"""The level-set acquisitions of the query's own marginal (course_lib.mixed.levelset_propose):
BALD against adaptive quadrature and Monte Carlo, also for a very wide and a nearly certain
posterior, and straddle from the predictive."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from course_lib.gp import GPRegression, SquaredExponential
from course_lib.mixed.levelset_propose import bald_bernoulli, straddle

from levelset_data import CANDIDATES, THRESHOLD, entropy_bits, preference_model, regression_model


def _expected_entropy(mean, sd, lower, upper):
    """E[H(Phi(f))] in bits over f ~ N(mean, sd^2) restricted to [lower, upper], adaptively."""
    return quad(lambda f: norm.pdf(f, mean, sd) * entropy_bits(norm.cdf(f)), lower, upper,
                epsabs=1e-13, epsrel=1e-12, limit=200)[0]


@pytest.mark.parametrize("make_model", [regression_model, preference_model])
def test_bald_bernoulli_matches_quadrature_and_monte_carlo(make_model):
    model = make_model()
    value = bald_bernoulli(model, CANDIDATES)
    mean, var = model.predict(CANDIDATES)
    rng = np.random.default_rng(7)
    for j in range(len(CANDIDATES)):
        sd = np.sqrt(var[j])
        inner = _expected_entropy(mean[j], sd, -np.inf, np.inf)
        exact = entropy_bits(norm.cdf(mean[j] / np.sqrt(1 + var[j]))) - inner
        assert abs(value[j] - exact) < 1e-9
        f = rng.normal(mean[j], sd, size=400_000)
        assert abs(np.mean(entropy_bits(norm.cdf(f))) - inner) < 5e-3


def test_bald_bernoulli_extremes():
    """A wide posterior (sd 30) and a nearly certain one (sd 1e-4) are integrated correctly."""
    X = np.array([[0.0], [1.0]])
    wide = GPRegression(SquaredExponential(0.3, 900.0), noise_variance=1e-8).fit(X, [0.5, -2.0])
    points = np.array([[0.0], [10.0]])
    mean, var = wide.predict(points)
    assert var[0] < 1e-7 and abs(var[1] - 900.0) < 1e-6
    for j, value in enumerate(bald_bernoulli(wide, points)):
        sd = np.sqrt(var[j])
        inner = _expected_entropy(mean[j], sd, mean[j] - 12 * sd, mean[j] + 12 * sd)
        exact = entropy_bits(norm.cdf(mean[j] / np.sqrt(1 + var[j]))) - inner
        assert abs(value - exact) < 1e-9


def test_straddle_from_the_predictive():
    model = regression_model()
    mean, var = model.predict(CANDIDATES)
    np.testing.assert_allclose(straddle(model, CANDIDATES, THRESHOLD, width=2.5),
                               2.5 * np.sqrt(var) - np.abs(mean - THRESHOLD), rtol=1e-14)
