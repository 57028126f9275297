"""The bivariate normal CDF (course_lib.mixed.bivariate_normal): both methods against scipy's
multivariate normal, each other, Plackett's integral for the excess over independence, and the
closed forms and limits."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import ndtr
from scipy.stats import multivariate_normal

from course_lib.mixed import bivariate_normal as bivariate_normal
from course_lib.mixed.bivariate_normal import bvn_cdf
from numerics import EPS


BOUNDS = [-8.0, -5.0, -1.3, -1e-3, 0.0, 1e-3, 0.7, 4.0, 8.0]
# every form of the series method: the series (|rho| <= 0.6), the arcsine quadrature and the
# quadrature from rho = +-1 (|rho| >= 0.925), each side of both switches, and rho -> +-1
CORRELATIONS = [-0.999999, -0.99, -0.93, -0.92, -0.9, -0.6000001, -0.6, -0.3, 0.0, 1e-3,
                0.5, 0.6, 0.6000001, 0.8, 0.924999, 0.925, 0.95, 0.999, 0.999999]
METHODS = ["series", "owens_t"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("rho", CORRELATIONS)
def test_bvn_cdf_matches_scipy_on_a_grid(rho, method):
    abseps = 1e-14
    reference_law = multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]], abseps=abseps,
                                        releps=1e-14)
    h, k = np.meshgrid(BOUNDS, BOUNDS, indexing="ij")
    reference = reference_law.cdf(np.stack([h.ravel(), k.ravel()], axis=1)).reshape(h.shape)
    # measured: within 2e-16 for |rho| <= 0.999 and 1.3e-15 at +-0.999999 (both methods alike,
    # so the rest is scipy's own error). The reference promises abseps only, and its
    # algorithm changes with the scipy version (QMC in 1.17, Genz's Fortran before)
    np.testing.assert_allclose(bvn_cdf(h, k, rho, method=method), reference, rtol=0,
                               atol=abseps)


def test_bvn_cdf_series_equals_owens_t_on_a_dense_grid():
    """The two methods on 40 x 40 bounds (0 and +-1e-3 included) x 60 correlations up to
    +-(1 - 1e-12): equal to round-off everywhere."""
    bounds = np.concatenate([np.linspace(-9.0, 9.0, 37), [-1e-3, 0.0, 1e-3]])
    rho = np.concatenate([np.linspace(-1.0, 1.0, 51), [-1 + 1e-12, 1 - 1e-12, -0.6, 0.6,
                                                       -0.925, 0.925, 0.59999, 0.60001, 0.3]])
    h, k, r = np.meshgrid(bounds, bounds, rho, indexing="ij")
    # values in [0, 1], each method a short sum of libm calls: 16 eps (1 eps measured here;
    # another platform's libm rounds exp, erf and asin differently)
    np.testing.assert_allclose(bvn_cdf(h, k, r), bvn_cdf(h, k, r, method="owens_t"), rtol=0,
                               atol=16 * EPS)


def _excess_by_quadrature(h, k, rho):
    """delta = int_0^rho phi_2(h, k; r) dr (Plackett), adaptively, to relative 1e-13."""
    def density(r):
        return np.exp(-(h * h - 2 * r * h * k + k * k) / (2 * (1 - r * r))) / (
            2 * np.pi * np.sqrt(1 - r * r))
    return quad(density, 0.0, rho, epsabs=0.0, epsrel=1e-13, limit=200)[0]


@pytest.mark.parametrize("h, k, rho", [(0.3, -0.2, 0.1), (2.0, 1.5, 0.55), (-1.0, 3.0, -0.4),
                                       (0.0, 0.0, 0.59), (1.2, -0.4, 0.7), (-2.5, -2.0, 0.9),
                                       (0.5, 0.5, 0.97), (-1.5, 1.0, -0.99), (6.0, 5.5, 0.3),
                                       (-9.0, -9.5, 0.95)])
def test_bvn_excess_over_independence_matches_plackett_quadrature(h, k, rho):
    """delta = Phi_2 - Phi(h) Phi(k), what the look-ahead uses, carries no cancellation: its
    error is round-off of delta itself, not of Phi_2 (here values down to 7e-22: at
    (-9, -9.5, 0.95) a clamp of the bounds nearer than 40 would show)."""
    exact = _excess_by_quadrature(h, k, rho)
    excess = bivariate_normal._bvn_excess(*np.broadcast_arrays(np.float64(h), np.float64(k),
                                                       np.float64(rho)))
    assert abs(excess - exact) < 1e-16 + 1e-13 * abs(exact), (excess, exact)


@pytest.mark.parametrize("method", METHODS)
def test_bvn_cdf_closed_forms_at_rho_zero_and_one(method):
    h, k = np.meshgrid(BOUNDS, BOUNDS, indexing="ij")

    def cdf(h, k, rho):
        return bvn_cdf(h, k, rho, method=method)

    # relative 3e-14 in the tails: Phi(-8) = erfc(8 / sqrt 2) / 2 inherits 64x the rounding
    # of 8 / sqrt 2, and scipy's ndtr and the compiled erfc round it differently (1.3e-14 apart)
    np.testing.assert_allclose(cdf(h, k, 0.0), ndtr(h) * ndtr(k), rtol=3e-14, atol=2e-16)
    np.testing.assert_allclose(cdf(h, k, 1.0), ndtr(np.minimum(h, k)), rtol=3e-14, atol=0)
    # Phi(h) + Phi(k) - 1 written as Phi(h) - Phi(-k), which keeps the tails' digits
    np.testing.assert_allclose(cdf(h, k, -1.0), np.maximum(0.0, ndtr(h) - ndtr(-k)),
                               rtol=3e-14, atol=1e-16)
    rho = np.linspace(-1.0, 1.0, 11)
    np.testing.assert_allclose(cdf(0.0, 0.0, rho), 0.25 + np.arcsin(rho) / (2 * np.pi),
                               rtol=1e-14, atol=1e-17)


@pytest.mark.parametrize("method", METHODS)
def test_bvn_cdf_approaches_its_limits_continuously(method):
    """Just inside rho = +-1 both methods must agree with the limiting closed forms."""
    h, k = np.meshgrid([-2.0, -0.1, 0.0, 0.3, 1.5], [-2.0, 0.0, 0.2, 1.0], indexing="ij")
    for rho, limit in ((1.0, ndtr(np.minimum(h, k))),
                       (-1.0, np.maximum(0.0, ndtr(h) + ndtr(k) - 1.0))):
        near = bvn_cdf(h, k, rho * (1.0 - 1e-12), method=method)
        np.testing.assert_allclose(near, limit, rtol=0, atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_bvn_cdf_infinite_bounds_and_broadcasting(method):
    k = np.array([-1.0, 0.0, 2.0])
    # the limits within the round-off of a short quadrature (3 eps measured at 1e300); the
    # clamp's place is checked against Plackett's integral in the far tail (-9, -9.5, 0.95)
    limit_rtol = 16 * EPS
    for rho in (0.4, 0.8, -0.99):  # each form
        np.testing.assert_allclose(bvn_cdf(np.inf, k, rho, method=method), ndtr(k),
                                   rtol=limit_rtol)
        np.testing.assert_allclose(bvn_cdf(k, np.inf, -rho, method=method), ndtr(k),
                                   rtol=limit_rtol)
        np.testing.assert_array_equal(bvn_cdf(-np.inf, k, rho, method=method), 0.0)
    assert bvn_cdf(np.inf, np.inf, 0.9, method=method) == 1.0
    # huge finite bounds give the limits too (the quadratures clamp them at +-40)
    np.testing.assert_allclose(bvn_cdf(1e300, k, 0.95, method=method), ndtr(k),
                               rtol=limit_rtol)
    np.testing.assert_array_equal(bvn_cdf(-1e300, k, -0.7, method=method), 0.0)
    out = bvn_cdf(np.zeros((4, 1)), k, np.array([0.1, 0.2, 0.3]), method=method)
    assert out.shape == (4, 3)
    np.testing.assert_allclose(out[0], [bvn_cdf(0.0, kk, r, method=method)
                                        for kk, r in zip(k, [0.1, .2, .3])])
