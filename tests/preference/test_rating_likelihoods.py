"""Likelihoods of a rating of one item (course_lib.preference.rating_likelihoods): the
truncated Gaussian equal to scipy's truncnorm with its mean, and the warped probit's density
carrying the Jacobian of the warp, so that it integrates to one. (Every family's derivatives
by finite differences and predictive densities are in test_likelihoods.py; the Beta rating's
algebra in test_probit_beta.py.)"""

import numpy as np
import pytest
from scipy import integrate, stats

from course_lib.preference.rating_likelihoods import TruncatedGaussianRating, WarpedProbitRating


def test_truncated_gaussian_against_scipy_truncnorm():
    rng = np.random.default_rng(8)
    lik = TruncatedGaussianRating(0.2)
    z = rng.normal(0, 2, 40)
    y = rng.uniform(0, 1, 40)
    y[:2] = [0.0, 1.0]  # the density is defined on the closed interval
    m = stats.norm.cdf(z)
    a, b = (0 - m) / 0.2, (1 - m) / 0.2
    np.testing.assert_allclose(lik.log_likelihood(z, y),
                               stats.truncnorm.logpdf(y, a, b, loc=m, scale=0.2), rtol=1e-11)
    # E[y | z] through the expectation machinery: z with variance 0 is z itself
    np.testing.assert_allclose(lik.predictive_mean(z, np.zeros(40)),
                               stats.truncnorm.mean(a, b, loc=m, scale=0.2), rtol=1e-11)


def test_warped_density_carries_the_jacobian_of_the_warp():
    """p(y | z) = N(Phi^-1(y); z, s^2) / phi(Phi^-1(y)) integrates to one over y in (0, 1);
    the form printed in the thesis (eq. 2.39, dividing by Phi(Phi^-1(y)) = y) does not."""
    lik = WarpedProbitRating(0.4)
    for z in (-1.2, 0.0, 0.8):
        def density(y):
            return np.exp(lik.log_likelihood([z], [y])[0])

        total, _ = integrate.quad(density, 0, 1, epsabs=1e-12, limit=200)
        assert total == pytest.approx(1.0, abs=1e-8)
        printed, _ = integrate.quad(
            lambda y: stats.norm.pdf(stats.norm.ppf(y), z, 0.4) / y, 1e-12, 1 - 1e-12, limit=200)
        assert abs(printed - 1.0) > 0.05
    # and the Gaussian part is Gaussian regression on Phi^-1(y)
    y = np.array([0.1, 0.6, 0.95])
    terms = lik.terms(np.zeros(3), y)
    np.testing.assert_allclose(terms.gradient, stats.norm.ppf(y) / 0.16)
    np.testing.assert_allclose(terms.curvature, 1 / 0.16)
