"""Level-set estimation (course_lib.gp.levelset): the bivariate normal CDF, the look-ahead of a
Bernoulli probit answer, and the acquisitions, each against scipy, a closed form or Monte Carlo."""

import numpy as np
import pytest
from scipy.special import ndtr
from scipy.stats import multivariate_normal

from course_lib.gp.levelset import bvn_cdf

BOUNDS = [-5.0, -1.3, -1e-3, 0.0, 1e-3, 0.7, 4.0]
CORRELATIONS = [-0.999999, -0.9, -0.3, 0.0, 0.5, 0.95, 0.999999]


@pytest.mark.parametrize("rho", CORRELATIONS)
def test_bvn_cdf_matches_scipy_on_a_grid(rho):
    reference_law = multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]], abseps=1e-14,
                                        releps=1e-14)
    h, k = np.meshgrid(BOUNDS, BOUNDS, indexing="ij")
    reference = reference_law.cdf(np.stack([h.ravel(), k.ravel()], axis=1)).reshape(h.shape)
    np.testing.assert_allclose(bvn_cdf(h, k, rho), reference, rtol=0, atol=1e-14)


def test_bvn_cdf_closed_forms_at_rho_zero_and_one():
    h, k = np.meshgrid(BOUNDS, BOUNDS, indexing="ij")
    np.testing.assert_allclose(bvn_cdf(h, k, 0.0), ndtr(h) * ndtr(k), rtol=1e-14, atol=2e-16)
    np.testing.assert_allclose(bvn_cdf(h, k, 1.0), ndtr(np.minimum(h, k)), rtol=1e-14, atol=0)
    np.testing.assert_allclose(bvn_cdf(h, k, -1.0), np.maximum(0.0, ndtr(h) + ndtr(k) - 1.0),
                               rtol=1e-14, atol=1e-16)
    rho = np.linspace(-1.0, 1.0, 11)
    np.testing.assert_allclose(bvn_cdf(0.0, 0.0, rho), 0.25 + np.arcsin(rho) / (2 * np.pi),
                               rtol=1e-14, atol=1e-17)


def test_bvn_cdf_approaches_its_limits_continuously():
    """Just inside rho = +-1 the Owen's T branch must agree with the limiting closed forms."""
    h, k = np.meshgrid([-2.0, -0.1, 0.0, 0.3, 1.5], [-2.0, 0.0, 0.2, 1.0], indexing="ij")
    for rho, limit in ((1.0, ndtr(np.minimum(h, k))),
                       (-1.0, np.maximum(0.0, ndtr(h) + ndtr(k) - 1.0))):
        near = bvn_cdf(h, k, rho * (1.0 - 1e-12))
        np.testing.assert_allclose(near, limit, rtol=0, atol=1e-6)


def test_bvn_cdf_infinite_bounds_and_broadcasting():
    k = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(bvn_cdf(np.inf, k, 0.4), ndtr(k), rtol=1e-15)
    np.testing.assert_allclose(bvn_cdf(k, np.inf, -0.4), ndtr(k), rtol=1e-15)
    np.testing.assert_array_equal(bvn_cdf(-np.inf, k, 0.4), 0.0)
    assert bvn_cdf(np.inf, np.inf, 0.9) == 1.0
    out = bvn_cdf(np.zeros((4, 1)), k, np.array([0.1, 0.2, 0.3]))
    assert out.shape == (4, 3)
    np.testing.assert_allclose(out[0], [bvn_cdf(0.0, kk, r) for kk, r in zip(k, [0.1, .2, .3])])
