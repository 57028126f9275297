"""Likelihoods for mixed-feedback variational GPs (Unit 7, Wu et al. (2025)): BernoulliProbit,
GaussianConstraint, LikertConfidence and OrdinalProbit in course_lib.mixed.feedback_likelihoods.

Every expected log-likelihood E log p(y | z), z ~ N(mean, var), and its derivatives in mean and
var are checked against scipy's adaptive quadrature (told where the likelihood has kinks) and
against finite differences of the value, from tiny to huge variances and far into the tails;
log-likelihood derivatives in z and in each log-parameter against finite differences.
Stated accuracy: expectations within 1e-8 (relative to max(1, |reference|)).
"""

import numpy as np
import pytest
from scipy import integrate, stats

from course_lib.mixed.feedback_likelihoods import (BernoulliProbit, GaussianConstraint,
                                                  LikertConfidence, OrdinalProbit)
from course_lib.preference import PairwiseBeta, PairwiseProbit
from course_lib.preference.rating_likelihoods import TruncatedGaussianRating

MEANS = np.array([-30.0, -6.0, -1.2, -0.3, 0.0, 0.45, 1.7, 5.0, 25.0])
VARS = np.array([1e-10, 1e-4, 0.04, 1.0, 9.0, 1e4])
TOL = 1e-8


def gaussian_constraint():
    return GaussianConstraint(np.full(MEANS.size * VARS.size, 0.3))


LIKELIHOODS = {
    "bernoulli": BernoulliProbit,
    "constraint": gaussian_constraint,
    "likert": lambda: LikertConfidence(3, [0.5, 0.5], 0.1, lapse_bounds=(1e-3, 0.5)),
    "likert wide": lambda: LikertConfidence(5, [2.0, 0.3, 1.2, 1.9], 0.02, max_gap=2.0,
                                            lapse_bounds=(1e-3, 0.5)),
    "ordinal": lambda: OrdinalProbit(5, [0.7, 0.05, 2.5]),
}


def answers(name, m, rng):
    if name == "constraint":
        return rng.normal(0.0, 2.0, m)
    if name.startswith(("likert", "ordinal")):
        return rng.integers(0, LIKELIHOODS[name]().n_levels, m).astype(float)
    return rng.integers(0, 2, m).astype(float)


def one_row(lik, k):
    """The likelihood of row k alone (per-row noise: a one-row constraint)."""
    return GaussianConstraint(lik.noise_sd[k:k + 1]) if isinstance(lik, GaussianConstraint) else lik


def kinks(lik):
    """Where log p(y | z) has a kink in z (Likert: 0 and +-cut points)."""
    if isinstance(lik, LikertConfidence):
        return sorted(set(np.concatenate([lik.cut_points, -lik.cut_points]).tolist()))
    return []


def away_from_kinks(lik, z, margin=1e-3):
    """The entries of z farther than ``margin`` from every kink (finite differences there)."""
    points = np.array(kinks(lik) or [np.inf])
    return np.min(np.abs(z[:, None] - points[None, :]), axis=1) > margin


def reference_expectations(lik, y, mean, var):
    """E[log p], E[d log p/dz], d/dvar E[log p] by scipy.integrate.quad_vec, row by row."""
    out = np.zeros((3, mean.size))
    for k in range(mean.size):
        row = one_row(lik, k)
        sd = np.sqrt(var[k])
        low, high = mean[k] - 14 * sd, mean[k] + 14 * sd
        points = [p for p in kinks(lik) if low < p < high]

        def pieces(z, row=row, k=k):
            t = row.terms(np.array([z]), y[k:k + 1])
            return np.array([t.log_likelihood[0], t.gradient[0], -0.5 * t.curvature[0]])

        # Likert: d log p/dz jumps at each kink, a point mass in the second derivative
        for kink in points:
            sides = row.terms(np.array([kink + 1e-12, kink - 1e-12]), np.repeat(y[k], 2))
            jump = sides.gradient[0] - sides.gradient[1]
            out[2, k] += 0.5 * jump * stats.norm.pdf(kink, mean[k], sd)
        # one adaptive integral of the three integrands together per smooth piece (quad's own
        # ``points`` option missed a kink's effect by 3e-3 nats at mean -1.9, sd 0.1); the
        # error bound holds for each of the three (max norm)
        edges = [low, *points, high]
        for a, b in zip(edges[:-1], edges[1:]):
            out[:, k] += integrate.quad_vec(
                lambda z, k=k, sd=sd: pieces(z) * stats.norm.pdf(z, mean[k], sd),
                a, b, limit=400, epsabs=1e-11, epsrel=1e-9, norm="max")[0]
    return out


def grid(name):
    lik = LIKELIHOODS[name]()
    mean, var = (a.ravel() for a in np.meshgrid(MEANS, VARS, indexing="ij"))
    y = answers(name, mean.size, np.random.default_rng(3))
    return lik, y, mean, var


# quad reports roundoff for var = 1e4 (an integrand of size z^2 over +-1400); the agreement
# asserted here to 1e-8 bounds the error of the reference as well
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize("name", LIKELIHOODS)
def test_expected_log_likelihood_matches_adaptive_quadrature(name):
    lik, y, mean, var = grid(name)
    got = np.array(lik.expected_log_likelihood(y, mean, var))
    want = reference_expectations(lik, y, mean, var)
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    assert np.max(err) < TOL, (name, np.unravel_index(np.argmax(err), err.shape), err.max())


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_expected_log_likelihood_derivatives_match_finite_differences(name):
    lik, y, mean, var = grid(name)
    keep = var >= 1e-4  # a finite difference in var needs var well above its step
    y, mean, var = y[keep], mean[keep], var[keep]
    lik = lik if name != "constraint" else GaussianConstraint(lik.noise_sd[keep])
    _, d_mean, d_var = lik.expected_log_likelihood(y, mean, var)
    h_mean, h_var = 1e-5 * np.sqrt(var), 1e-4 * var

    def value(m, v):
        return lik.expected_log_likelihood(y, m, v)[0]

    fd_mean = (value(mean + h_mean, var) - value(mean - h_mean, var)) / (2 * h_mean)
    fd_var = (value(mean, var + h_var) - value(mean, var - h_var)) / (2 * h_var)
    scale_mean = np.maximum(1.0, np.abs(d_mean))
    scale_var = np.maximum(1.0 / var, np.abs(d_var))
    assert np.max(np.abs(fd_mean - d_mean) / scale_mean) < 1e-5
    assert np.max(np.abs(fd_var - d_var) / scale_var) < 1e-5


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_log_likelihood_derivatives_match_finite_differences(name):
    lik, y, _, _ = grid(name)
    z = np.random.default_rng(4).normal(0.0, 4.0, y.size)
    z[:MEANS.size] = MEANS
    keep = away_from_kinks(lik, z)
    z, y = z[keep], y[keep]
    lik = lik if name != "constraint" else GaussianConstraint(lik.noise_sd[keep])
    t = lik.terms(z, y, order=3)
    h = 1e-5
    up, down = lik.terms(z + h, y, order=3), lik.terms(z - h, y, order=3)
    np.testing.assert_allclose((up.log_likelihood - down.log_likelihood) / (2 * h), t.gradient,
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose((up.gradient - down.gradient) / (2 * h), -t.curvature,
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose((down.curvature - up.curvature) / (2 * h), t.third,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_parameter_terms_match_finite_differences(name):
    lik, y, _, _ = grid(name)
    z = np.random.default_rng(5).normal(0.0, 2.0, y.size)
    keep = away_from_kinks(lik, z)
    z, y = z[keep], y[keep]
    lik = lik if name != "constraint" else GaussianConstraint(lik.noise_sd[keep])
    got = lik.parameter_terms(z, y)
    assert got.shape == (lik.n_params, 3, y.size)
    for p in range(lik.n_params):
        h = 1e-6
        shifted = [lik.with_theta(lik.theta + h * np.eye(lik.n_params)[p] * s) for s in (1, -1)]
        parts = [np.array([t.log_likelihood, t.gradient, t.curvature])
                 for t in (s.terms(z, y) for s in shifted)]
        np.testing.assert_allclose((parts[0] - parts[1]) / (2 * h), got[p], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", LIKELIHOODS)
def test_expected_parameter_gradient_matches_finite_differences(name):
    lik, y, mean, var = grid(name)
    keep = (var >= 1e-4) | (var == VARS[0])
    y, mean, var = y[keep], mean[keep], np.where(var[keep] == VARS[0], 0.0, var[keep])
    lik = lik if name != "constraint" else GaussianConstraint(lik.noise_sd[keep])
    got = lik.expected_parameter_gradient(y, mean, var)
    assert got.shape == (lik.n_params, y.size)
    h = 1e-6
    for p in range(lik.n_params):
        step = h * np.eye(lik.n_params)[p]
        up, down = (lik.with_theta(lik.theta + s * step).expected_log_likelihood(y, mean, var)[0]
                    for s in (1, -1))
        np.testing.assert_allclose((up - down) / (2 * h), got[p], rtol=1e-5, atol=1e-6)


def test_expected_parameter_gradient_of_unit_6_likelihoods():
    mean, var = np.array([-2.0, 0.0, 0.3, 1.5]), np.array([0.5, 0.0, 2.0, 0.01])
    cases = [(PairwiseBeta(0.4, 12.0), np.array([0.1, 0.5, 0.93, 1.0])),
             (TruncatedGaussianRating(0.2), np.array([0.0, 0.4, 0.7, 1.0]))]
    h = 1e-6
    for lik, y in cases:
        got = lik.expected_parameter_gradient(y, mean, var)
        for p in range(lik.n_params):
            step = h * np.eye(lik.n_params)[p]
            up, down = (lik.with_theta(lik.theta + s * step).expected_log_likelihood(
                y, mean, var)[0] for s in (1, -1))
            np.testing.assert_allclose((up - down) / (2 * h), got[p], rtol=1e-5, atol=1e-6)


def test_bernoulli_probit_is_phi_of_the_latent():
    z = np.array([-40.0, -3.0, 0.0, 0.7, 9.0])
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    lik = BernoulliProbit()
    np.testing.assert_allclose(lik.log_likelihood(z, y), stats.norm.logcdf((2 * y - 1) * z),
                               rtol=1e-12)
    # the same object as a Thurstone probit with noise sd 1/sqrt(2)
    pair = PairwiseProbit(1 / np.sqrt(2))
    for a, b in zip(lik.expected_log_likelihood(y, z, np.full(5, 2.0)),
                    pair.expected_log_likelihood(y, z, np.full(5, 2.0))):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    # P(y = 1) under z ~ N(0.7, 1.9) against Monte Carlo (2e5 draws: sd of the estimate 1e-3)
    draws = np.random.default_rng(0).normal(0.7, np.sqrt(1.9), 200_000)
    assert abs(lik.predictive_mean([0.7], [1.9])[0] - stats.norm.cdf(draws).mean()) < 4e-3
    assert lik.bounds[0, 0] == lik.bounds[0, 1]  # the scale is fixed


def test_gaussian_constraint_closed_forms_against_scipy():
    sd = np.array([0.03, 0.1, 0.5, 2.0])
    lik = GaussianConstraint(sd)
    y, mean, var = np.array([0.0, 2.0, -1.0, 0.3]), np.array([0.1, 1.5, 0.0, -4.0]), \
        np.array([0.0, 0.01, 2.0, 30.0])
    np.testing.assert_allclose(lik.log_likelihood(mean, y), stats.norm.logpdf(y, mean, sd),
                               rtol=1e-13)
    np.testing.assert_allclose(lik.predictive_log_density(y, mean, var),
                               stats.norm.logpdf(y, mean, np.sqrt(sd ** 2 + var)), rtol=1e-13)
    np.testing.assert_allclose(lik.predictive_mean(mean, var), mean)
    assert lik.n_params == 0 and lik.parameter_terms(mean, y).shape == (0, 3, 4)


def likert_probabilities(z, cuts, lapse):
    """Wu et al. (2025) eq. (2) with a lapse, written out level by level (a reference for the
    class)."""
    a, levels = abs(z), len(cuts)
    ends = list(cuts[1:]) + [np.inf]
    dist = np.array([max(cuts[i] - a, 0.0, a - ends[i]) for i in range(levels)])
    p = np.exp(-dist) / np.sum(np.exp(-dist))
    return (1 - lapse) * p + lapse / levels


@pytest.mark.parametrize("name", ["likert", "likert wide"])
def test_likert_probabilities_follow_equation_2(name):
    lik = LIKELIHOODS[name]()
    lapse = lik.params["lapse"]
    z = np.array([-60.0, -4.1, -1.0, -0.2, 0.0, 0.3, 0.5, 0.75, 1.7, 2.2, 3.5, 60.0])
    levels = np.arange(lik.n_levels, dtype=float)
    table = np.array([np.exp(lik.log_likelihood(np.full(lik.n_levels, v), levels)) for v in z])
    want = np.array([likert_probabilities(v, lik.cut_points, lapse) for v in z])
    np.testing.assert_allclose(table, want, rtol=1e-12)
    np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=1e-12)
    # a rating says nothing about the sign of z
    np.testing.assert_allclose(lik.log_likelihood(-z, np.ones(z.size)),
                               lik.log_likelihood(z, np.ones(z.size)), rtol=1e-14)
    # the expected level E[y | z] when var = 0, and its average by quadrature when var > 0
    np.testing.assert_allclose(lik.predictive_mean(z, np.zeros(z.size)), want @ levels,
                               rtol=1e-12)
    reference = integrate.quad(
        lambda v: likert_probabilities(v, lik.cut_points, lapse) @ levels
        * stats.norm.pdf(v, 0.4, 1.3), 0.4 - 14 * 1.3, 0.4 + 14 * 1.3,
        points=kinks(lik), limit=400, epsabs=1e-12)[0]
    assert abs(lik.predictive_mean([0.4], [1.69])[0] - reference) < 1e-9
    density = integrate.quad(
        lambda v: likert_probabilities(v, lik.cut_points, lapse)[1]
        * stats.norm.pdf(v, 0.4, 1.3), 0.4 - 14 * 1.3, 0.4 + 14 * 1.3,
        points=kinks(lik), limit=400, epsabs=1e-13)[0]
    assert abs(lik.predictive_log_density([1.0], [0.4], [1.69])[0] - np.log(density)) < 1e-9


def test_likert_cut_points_are_the_running_sum_of_the_gaps():
    lik = LikertConfidence(4, [0.4, 1.5, 2.0], 0.1)
    np.testing.assert_allclose(lik.cut_points, [0.0, 0.4, 1.9, 3.9], rtol=1e-14)
    assert lik.param_names == ("gap_1", "gap_2", "gap_3", "lapse")
    np.testing.assert_allclose(lik.bounds[:3, 1], np.log(2.0))     # gap <= max_gap
    assert lik.bounds[3, 0] == lik.bounds[3, 1]                     # the paper's fixed lapse


def test_ordinal_probit_against_scipy_and_bernoulli():
    lik = OrdinalProbit(4, [1.0, 0.3])
    edges = np.concatenate([[-np.inf], lik.thresholds, [np.inf]])
    z = np.array([-6.0, -1.0, 0.0, 0.4, 1.2, 6.0])
    for k in range(4):
        low, high = edges[k] - z, edges[k + 1] - z
        # the reference avoids cancellation too: survival functions when the interval is > 0
        want = np.where(low > 0, stats.norm.sf(low) - stats.norm.sf(high),
                        stats.norm.cdf(high) - stats.norm.cdf(low))
        np.testing.assert_allclose(np.exp(lik.log_likelihood(z, np.full(z.size, k))), want,
                                   rtol=1e-10, atol=1e-300)
    # far tails: log P against the log of scipy's survival and cdf differences in log space
    far = np.array([-30.0, 45.0])
    middle = np.log(stats.norm.sf(1.0 - far[0]) - stats.norm.sf(1.3 - far[0]))  # 1e-211
    np.testing.assert_allclose(lik.log_likelihood(far, [2.0, 2.0])[0], middle, rtol=1e-12)
    assert np.isfinite(lik.log_likelihood(far, [2.0, 2.0])).all()
    assert lik.log_likelihood(far, [2.0, 2.0])[1] < -900
    # two levels: the Bernoulli probit
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(OrdinalProbit(2).log_likelihood(z, y),
                               BernoulliProbit().log_likelihood(z, y), rtol=1e-13)
    # the expected level under z ~ N(0.5, 2) against adaptive quadrature
    reference = integrate.quad(
        lambda v: sum(k * np.exp(lik.log_likelihood([v], [float(k)])[0]) for k in range(4))
        * stats.norm.pdf(v, 0.5, np.sqrt(2.0)), -20, 20, limit=400, epsabs=1e-12)[0]
    assert abs(lik.predictive_mean([0.5], [2.0])[0] - reference) < 1e-9


def test_likert_probabilities_are_eq_2_by_hand():
    lapse = 1e-3
    likelihood = LikertConfidence(3, gaps=[2.0, 2.0], lapse=lapse)
    p = likelihood.level_probabilities([0.0, 1.0, -3.0, 7.0])
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    # distances of |z| to [0, 2), [2, 4), [4, inf)
    distances = np.array([[0, 2, 4], [0, 1, 3], [1, 0, 1], [5, 3, 0]], dtype=float)
    softmax = np.exp(-distances) / np.exp(-distances).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(p, (1 - lapse) * softmax + lapse / 3, rtol=1e-12)
    # the paper's printed examples (cuts 0, 2, 4), to its three decimals
    np.testing.assert_allclose(softmax[[1, 2, 0]], [[0.705, 0.259, 0.035], [0.212, 0.576, 0.212],
                                                    [0.867, 0.117, 0.016]], atol=6e-4)
    with pytest.raises(ValueError, match="^z:"):
        likelihood.level_probabilities([[0.0]])
    # E[y | z] is the mean level under these probabilities
    np.testing.assert_allclose(likelihood.predictive_mean([1.0], [0.0]), p[1] @ [0, 1, 2],
                               rtol=1e-12)
