"""Likelihoods on z = M f (course_lib.preference.likelihoods with its pairwise family; the
families of probit_beta and rating_likelihoods too): every derivative against finite
differences (in z and in every log-parameter, far tails included), the pairwise densities
against scipy, predictive means and densities against adaptive quadrature and Monte Carlo, the
orientation by swapping, stability where naive formulas give 0/0. (The Beta algebra's and the
ratings' own densities are tested in test_probit_beta.py and test_rating_likelihoods.py.)

Orientation: z = f(first) - f(second); y = 1 (or degree > 0.5) means the first item won.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from course_lib.preference.likelihoods import _DEFAULT_CLIP
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating, TruncatedGaussianRating, WarpedProbitRating
from numerics import adaptive_expectation

Z_GRID = np.array([-40.0, -25.0, -13.0, -11.0, -6.0, -1.3, -0.2, 0.0, 0.4, 2.5, 7.0, 15.0, 40.0])

LIKELIHOODS = {
    "gaussian": lambda: PairwiseGaussian(0.8),
    "probit": lambda: PairwiseProbit(0.6),
    "probit small sd": lambda: PairwiseProbit(0.05),
    "beta": lambda: PairwiseBeta(0.4, 12.0),
    "beta vague": lambda: PairwiseBeta(1.5, 0.7),
    "beta rating": lambda: BetaRating(5.0),
    "truncated gaussian": lambda: TruncatedGaussianRating(0.2),
    "truncated gaussian wide": lambda: TruncatedGaussianRating(3.0),
    "warped probit": lambda: WarpedProbitRating(0.3),
}
PAIRWISE = [name for name in LIKELIHOODS if LIKELIHOODS[name]().observation_kind != "bounded"]
# the width over which each likelihood changes in z (for probit and Beta the sd of the
# difference's noise sqrt(2) sigma; for ratings, where Phi(z) moves by about a noise sd)
SCALE = {"gaussian": 0.8, "probit": np.sqrt(2) * 0.6, "probit small sd": np.sqrt(2) * 0.05,
         "beta": np.sqrt(2) * 0.4, "beta vague": np.sqrt(2) * 1.5, "beta rating": 1.0,
         "truncated gaussian": 0.5, "truncated gaussian wide": 1.0, "warped probit": 0.3}


def answers(name, z, rng):
    """Valid answers for the likelihood named ``name``, one per entry of z."""
    if name.startswith("gaussian"):
        return z + rng.normal(0, 1.0, z.size)
    if name.startswith("probit"):
        return rng.integers(0, 2, z.size).astype(float)
    # degrees and ratings: inside (0, 1), plus both ends and the middle (clipped / exact)
    y = rng.uniform(0, 1, z.size)
    y[:3] = [0.0, 1.0, 0.5][:z.size]
    return y


def fd(fun, x, h):
    """Central finite difference of an elementwise function."""
    return (fun(x + h) - fun(x - h)) / (2 * h)


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_z_derivatives_match_finite_differences_far_into_the_tails(name):
    lik = LIKELIHOODS[name]()
    rng = np.random.default_rng(1)
    z = np.concatenate([Z_GRID, rng.normal(0, 3, 20)])
    y = answers(name, z, rng)
    terms = lik.terms(z, y, order=3)
    h = 1e-5 * np.maximum(1.0, np.abs(z))
    assert np.all(np.isfinite(terms.log_likelihood))
    np.testing.assert_allclose(terms.gradient, fd(lambda v: lik.log_likelihood(v, y), z, h),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(terms.curvature,
                               -fd(lambda v: lik.terms(v, y).gradient, z, h),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(terms.third,
                               -fd(lambda v: lik.terms(v, y).curvature, z, h),
                               rtol=1e-5, atol=1e-8)
    assert lik.terms(z, y).third is None


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_parameter_derivatives_match_finite_differences(name):
    lik = LIKELIHOODS[name]()
    rng = np.random.default_rng(2)
    z = np.concatenate([Z_GRID, rng.normal(0, 2, 10)])
    y = answers(name, z, rng)
    analytic = lik.parameter_terms(z, y)
    assert analytic.shape == (lik.n_params, 3, z.size)
    h = 1e-6
    for p in range(lik.n_params):
        step = np.zeros(lik.n_params)
        step[p] = h
        up, down = lik.with_theta(lik.theta + step), lik.with_theta(lik.theta - step)
        for i, field in enumerate(["log_likelihood", "gradient", "curvature"]):
            numeric = (getattr(up.terms(z, y), field) - getattr(down.terms(z, y), field)) / (2 * h)
            np.testing.assert_allclose(analytic[p, i], numeric, rtol=1e-5, atol=1e-7,
                                       err_msg=f"{lik.param_names[p]}, {field}")


def test_probit_against_scipy_norm():
    lik = PairwiseProbit(0.7)
    z = np.linspace(-30, 30, 61)
    t = z / (np.sqrt(2) * 0.7)
    np.testing.assert_allclose(lik.log_likelihood(z, np.ones_like(z)), stats.norm.logcdf(t),
                               rtol=1e-12)
    np.testing.assert_allclose(lik.log_likelihood(z, np.zeros_like(z)), stats.norm.logsf(t),
                               rtol=1e-12)


def test_probit_is_stable_where_the_naive_ratio_is_zero_over_zero():
    lik = PairwiseProbit(1.0)
    z = np.array([-40.0, -1e3, -1e6, -1e10])
    with np.errstate(all="raise"):
        terms = lik.terms(z, np.ones(4), order=3)
    t = z / np.sqrt(2)
    with np.errstate(all="ignore"):
        naive = stats.norm.pdf(t) / stats.norm.cdf(t)
    assert np.isnan(naive[1:]).all()  # the 0/0 the stable form avoids
    # asymptotic series of log Phi(t) as t -> -inf (independent of the library's recurrence):
    # d/dt = -t - 1/t + 2/t^3 - 10/t^5, d^2/dt^2 = -1 + 1/t^2 - 6/t^4 + 50/t^6,
    # d^3/dt^3 = -2/t^3 + 24/t^5 - 300/t^7 + 4144/t^9; here z = sqrt(2) t, so d/dz = 2^-1/2 d/dt
    np.testing.assert_allclose(terms.gradient, (-t - 1 / t + 2 / t ** 3 - 10 / t ** 5) / np.sqrt(2),
                               rtol=1e-8)
    np.testing.assert_allclose(terms.curvature, (1 - t ** -2 + 6 * t ** -4 - 50 * t ** -6) / 2,
                               rtol=1e-8)
    np.testing.assert_allclose(terms.third,
                               (-2 * t ** -3 + 24 * t ** -5 - 300 * t ** -7 + 4144 * t ** -9)
                               / 2 ** 1.5, rtol=1e-6)
    assert np.all(terms.curvature > 0) and np.all(terms.curvature < 0.5)


def test_probit_curvature_is_positive_and_bounded():
    lik = PairwiseProbit(0.3)
    z = np.linspace(-50, 50, 2001)
    for y in (0.0, 1.0):
        w = lik.terms(z, np.full(z.size, y)).curvature
        c2 = 1 / (2 * 0.3 ** 2)
        assert np.all(w >= 0) and np.all(w < c2)


@pytest.mark.parametrize("name", PAIRWISE)
def test_swapping_the_options_leaves_the_likelihood_unchanged(name):
    lik = LIKELIHOODS[name]()
    rng = np.random.default_rng(4)
    z = rng.normal(0, 3, 30)
    y = answers(name, z, rng)
    y_swapped = -y if lik.observation_kind == "pair-difference" else 1.0 - y
    a, b = lik.terms(z, y, order=3), lik.terms(-z, y_swapped, order=3)
    np.testing.assert_allclose(b.log_likelihood, a.log_likelihood, rtol=1e-13)
    np.testing.assert_allclose(b.gradient, -a.gradient, rtol=1e-13)  # dz' = -dz
    np.testing.assert_allclose(b.curvature, a.curvature, rtol=1e-13)
    np.testing.assert_allclose(b.third, -a.third, rtol=1e-13, atol=1e-300)


def test_gaussian_against_scipy_and_closed_forms():
    lik = PairwiseGaussian(0.8)
    z, y = np.array([-1.0, 0.5, 3.0]), np.array([0.2, 0.5, -1.0])
    np.testing.assert_allclose(lik.log_likelihood(z, y), stats.norm.logpdf(y, z, 0.8))
    mean, var = np.array([0.3, -1.0, 2.0]), np.array([0.5, 2.0, 0.0])
    np.testing.assert_allclose(lik.predictive_log_density(y, mean, var),
                               stats.norm.logpdf(y, mean, np.sqrt(0.64 + var)))
    np.testing.assert_array_equal(lik.predictive_mean(mean, var), mean)


def test_probit_predictive_probability_against_quadrature_and_monte_carlo():
    lik = PairwiseProbit(0.6)
    mean, var = np.array([0.7, -2.0, 0.0, 3.0]), np.array([1.9, 0.3, 4.0, 0.01])
    closed = lik.predictive_mean(mean, var)
    reference = [adaptive_expectation(lambda z: stats.norm.cdf(z / (np.sqrt(2) * 0.6)), m, v)
                 for m, v in zip(mean, var)]
    np.testing.assert_allclose(closed, reference, rtol=1e-9)
    rng = np.random.default_rng(5)
    draws = mean + np.sqrt(var) * rng.standard_normal((400_000, 4))
    answers_mc = rng.uniform(size=draws.shape) < stats.norm.cdf(draws / (np.sqrt(2) * 0.6))
    np.testing.assert_allclose(closed, answers_mc.mean(axis=0), atol=4e-3)
    np.testing.assert_allclose(lik.predictive_log_density(np.zeros(4), mean, var),
                               np.log1p(-closed), rtol=1e-10)


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_expected_log_likelihood_against_quadrature(name):
    lik = LIKELIHOODS[name]()
    rng = np.random.default_rng(6)
    # Gauss-Hermite is accurate while sd(z) stays within a few of the likelihood's own scale
    scale = SCALE[name]
    mean = scale * np.array([-3.0, -0.4, 0.0, 1.5])
    var = scale ** 2 * np.array([0.05, 1.0, 2.5, 0.6])
    y = answers(name, mean, rng)
    value, d_mean, d_var = lik.expected_log_likelihood(y, mean, var)
    for k in range(4):
        reference = adaptive_expectation(
            lambda z: lik.log_likelihood(np.array([z]), y[k:k + 1])[0], mean[k], var[k])
        assert value[k] == pytest.approx(reference, rel=1e-8, abs=1e-10)
    # derivatives by finite differences of the (quadrature) expectation itself
    h = 1e-5
    up = lik.expected_log_likelihood(y, mean + h, var)[0]
    down = lik.expected_log_likelihood(y, mean - h, var)[0]
    np.testing.assert_allclose(d_mean, (up - down) / (2 * h), rtol=1e-6, atol=1e-9)
    up = lik.expected_log_likelihood(y, mean, var + h)[0]
    down = lik.expected_log_likelihood(y, mean, var - h)[0]
    np.testing.assert_allclose(d_var, (up - down) / (2 * h), rtol=1e-6, atol=1e-9)


def test_parameters_round_trip_and_are_immutable():
    lik = PairwiseProbit(0.5, noise_sd_bounds=(0.1, 2.0))
    assert lik.param_names == ("noise_sd",)
    np.testing.assert_allclose(lik.bounds, np.log([[0.1, 2.0]]))
    moved = lik.with_theta(np.log([1.5]))
    assert moved.params["noise_sd"] == pytest.approx(1.5)
    assert lik.params["noise_sd"] == pytest.approx(0.5)
    fixed = PairwiseGaussian(0.3, noise_sd_bounds="fixed")
    assert fixed.bounds[0, 0] == fixed.bounds[0, 1]


# ----- clipped answers, negative curvature ------------------------------------------------------


def test_answers_of_exactly_zero_or_one_are_clipped_as_documented():
    lik = PairwiseBeta(0.5, 8.0)
    z = np.array([-1.0, 0.3, 2.0])
    ends = lik.log_likelihood(z, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(ends, lik.log_likelihood(z, [_DEFAULT_CLIP, 1 - _DEFAULT_CLIP,
                                                               1 - _DEFAULT_CLIP]))
    assert np.all(np.isfinite(ends))
    coarse = PairwiseBeta(0.5, 8.0, clip=1e-3)
    np.testing.assert_array_equal(coarse.check_observations([0.0, 0.5, 1.0]),
                                  [1e-3, 0.5, 1 - 1e-3])
    # a degree inside (0, 1) is untouched
    np.testing.assert_array_equal(lik.check_observations([0.25]), [0.25])
    warped = WarpedProbitRating(0.3)
    assert np.all(np.isfinite(warped.log_likelihood(z, [0.0, 1.0, 0.5])))


@pytest.mark.parametrize("name", ["beta", "beta rating", "truncated gaussian"])
def test_non_log_concave_likelihoods_have_negative_curvature_somewhere(name):
    """Documented: w = -d^2 log p / dz^2 < 0 for some (z, y), so Newton needs damping and W is
    indefinite; the probit's w stays positive on the same grid (previous test)."""
    lik = LIKELIHOODS[name]()
    z = np.repeat(np.linspace(-6, 6, 121), 5)
    y = np.tile([0.02, 0.3, 0.5, 0.7, 0.98], 121)
    w = lik.terms(z, y).curvature
    assert np.any(w < -1e-3) and np.any(w > 1e-3)


def dense_log_predictive(lik, y, mean, var, n=200_001):
    """Reference: log of the integral of p(y | z) N(z; mean, var) by the trapezoid rule on a
    fine grid over mean +- 40 sd (spectrally accurate for these smooth, decaying integrands)."""
    sd = np.sqrt(var)
    z = np.linspace(mean - 40 * sd, mean + 40 * sd, n)
    h = lik.log_likelihood(z, np.full(n, y)) + stats.norm.logpdf(z, mean, sd)
    return float(np.logaddexp.reduce(h) + np.log(z[1] - z[0]))


PREDICTIVE_CASES = [
    # (likelihood, answer, mean, sd): a narrow likelihood bump far from the Gaussian, a second
    # bump (non-log-concave), a plateau, answers at the ends, a wide Gaussian, a narrow one
    (lambda: PairwiseBeta(0.3, 300.0), 0.93, 2.5, 0.3),
    (lambda: PairwiseBeta(0.3, 300.0), 1.0, -3.0, 0.3),
    (lambda: PairwiseBeta(0.1, 30.0), 0.2, -2.0, 3.0),
    (lambda: PairwiseBeta(1.0, 0.5), 0.5, 0.7, 0.01),
    (lambda: BetaRating(50.0), 0.001, 2.5, 0.3),
    (lambda: BetaRating(2.0), 0.0, 0.0, 1.0),
    (lambda: TruncatedGaussianRating(0.05), 0.93, 2.5, 1.0),
    (lambda: TruncatedGaussianRating(0.05), 0.001, 0.0, 3.0),
    (lambda: TruncatedGaussianRating(0.5), 0.5, 2.5, 3.0),
]


@pytest.mark.parametrize("case", range(len(PREDICTIVE_CASES)))
def test_predictive_log_density_against_dense_integration(case):
    make, y, mean, sd = PREDICTIVE_CASES[case]
    lik = make()
    ours = lik.predictive_log_density([y], [mean], [sd ** 2])[0]
    reference = dense_log_predictive(lik, lik.check_observations([y])[0], mean, sd ** 2)
    tolerance = 1e-6 if isinstance(lik, TruncatedGaussianRating) else 1e-9
    assert ours == pytest.approx(reference, abs=tolerance)


NORMALISATION_CASES = {
    # Gaussians over z that put (almost) no answers within _DEFAULT_CLIP of 0 or 1: where a
    # Beta shape below 1 or a wide warped Gaussian puts mass there, the clipped density is
    # constant on [0, clip] and the total falls short of one (documented)
    "beta": (lambda: PairwiseBeta(0.4, 40.0), [(0.2, 0.05), (-0.3, 0.03)]),
    "beta rating": (lambda: BetaRating(40.0), [(0.3, 0.05), (-0.5, 0.05)]),
    "truncated gaussian": (lambda: TruncatedGaussianRating(0.2), [(0.4, 0.3), (-1.0, 2.0)]),
    "truncated gaussian wide": (lambda: TruncatedGaussianRating(3.0), [(0.4, 0.3), (-1.0, 2.0)]),
    "warped probit": (lambda: WarpedProbitRating(0.3), [(0.4, 0.2), (-0.8, 0.1)]),
}


@pytest.mark.parametrize("name", NORMALISATION_CASES)
def test_predictive_density_integrates_to_one_over_the_answers(name):
    make, gaussians = NORMALISATION_CASES[name]
    lik = make()
    for mean, var in gaussians:
        def density(y):
            return np.exp(lik.predictive_log_density([y], [mean], [var])[0])

        total = sum(integrate.quad(density, a, b, epsabs=1e-11, limit=200)[0]
                    for a, b in ((0.0, 0.5), (0.5, 1.0)))
        assert total == pytest.approx(1.0, abs=1e-7)


@pytest.mark.parametrize("name", ["beta", "beta rating", "truncated gaussian", "warped probit"])
def test_predictive_mean_against_monte_carlo_and_quadrature(name):
    lik = LIKELIHOODS[name]()
    mean, var = np.array([0.6, -1.1, 0.0]), np.array([0.5, 2.0, 0.05])
    predicted = lik.predictive_mean(mean, var)
    reference = [adaptive_expectation(lambda z: lik.predictive_mean([z], [0.0])[0], m, v)
                 for m, v in zip(mean, var)]
    np.testing.assert_allclose(predicted, reference, rtol=1e-8)
    # simulate answers: z from the Gaussian, then y from the likelihood
    rng = np.random.default_rng(9)
    n = 200_000
    z = mean + np.sqrt(var) * rng.standard_normal((n, 3))
    if name.startswith("beta"):
        scale = 1 / (np.sqrt(2) * lik.params["noise_sd"]) if name == "beta" else 1.0
        nu = lik.params["concentration"]
        alpha = np.maximum(nu * stats.norm.cdf(scale * z), 1e-300)  # numpy refuses 0
        beta = np.maximum(nu * stats.norm.sf(scale * z), 1e-300)
        y = rng.beta(alpha, beta)
    elif name == "warped probit":
        y = stats.norm.cdf(z + lik.params["noise_sd"] * rng.standard_normal(z.shape))
    else:
        m, s = stats.norm.cdf(z), lik.params["noise_sd"]
        y = stats.truncnorm.rvs((0 - m) / s, (1 - m) / s, loc=m, scale=s, random_state=rng)
    np.testing.assert_allclose(predicted, y.mean(axis=0), atol=3e-3)
