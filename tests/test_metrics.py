"""Score metrics (course_lib.metrics): RMSE, rounded PCC/MSE, the discretised predictive of one
rater's score and the discrete KL, against scipy and numerical integration.

(The recognition metrics, in course_lib.recognition.metrics, are tested in
tests/recognition/test_metrics.py; the level-set and preference scores in tests/mixed/test_levelset.py
and tests/mixed/test_levelset_metrics.py.)
"""

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import quad
from scipy.special import logsumexp

from course_lib.metrics import (clopper_pearson_interval, discrete_kl, discretised_log_predictive, log_normal_interval,
                                panel_log_predictive, rmse, round_scores, rounded_pcc_mse)

EDGES = np.arange(0, 12) - 0.5  # the bins of the scale 0..10


def naive_probabilities(mean, variance, edges=EDGES):
    """Differences of scipy's normal CDF, renormalised over the bins (linear space)."""
    sd = np.sqrt(variance)[:, None]
    cdf = stats.norm.cdf((edges[None, :] - mean[:, None]) / sd)
    mass = np.diff(cdf, axis=1)
    return mass / mass.sum(axis=1, keepdims=True)


def log_probabilities_by_quadrature(mean, sd, edges=EDGES):
    """log P(c) from :func:`log_interval_by_quadrature` over each standardised bin,
    renormalised over the scale."""
    z = (edges - mean) / sd
    log_mass = np.array([log_interval_by_quadrature(a, b) for a, b in zip(z[:-1], z[1:])])
    return log_mass - logsumexp(log_mass)


# ----- the mass of a normal interval -----------------------------------------------------------
def log_interval_by_quadrature(a, b):
    """log(Phi(b) - Phi(a)) by adaptive quadrature of the standard normal density, written as
    exp(-(t^2 - anchor^2)/2) with the end nearest 0 as anchor, so far tails keep their digits."""
    anchor = min(abs(a), abs(b)) if a * b > 0 else 0.0
    integral, _ = quad(lambda t: np.exp(-0.5 * (t * t - anchor * anchor)), a, b, epsabs=0.0,
                       epsrel=1e-13)
    return np.log(integral) - 0.5 * anchor ** 2 - 0.5 * np.log(2 * np.pi)


# both tails, across 0, nearly touching ends, and the infinite ends of an ordinal level
INTERVALS = [(-41.0, -40.0), (-8.0, -7.999), (-3.0, 2.0), (-1e-6, 1e-6), (0.0, 0.5),
             (7.0, 7.5), (39.0, np.inf), (-np.inf, -39.0), (-np.inf, 0.3), (-0.3, np.inf),
             (2.0, np.inf)]


@pytest.mark.parametrize("a, b", INTERVALS)
def test_normal_interval_matches_quadrature(a, b):
    # relative accuracy of the log mass, as quadrature gives it (rtol 1e-13 on the integral)
    np.testing.assert_allclose(log_normal_interval(a, b), log_interval_by_quadrature(a, b),
                               rtol=1e-11, atol=1e-12)


# ----- the discretised predictive --------------------------------------------------------------
def test_matches_scipy_cdf_differences_in_the_moderate_region():
    rng = np.random.default_rng(0)
    mean, variance = rng.uniform(-3, 13, 300), rng.uniform(0.05, 20, 300)
    ours = discretised_log_predictive(mean, variance, scale=(0, 10))
    naive = naive_probabilities(mean, variance)
    assert ours.shape == (300, 11)
    np.testing.assert_allclose(np.exp(ours), naive, atol=1e-12)
    kept = naive > 1e-6  # where the CDF differences have kept their relative accuracy
    np.testing.assert_allclose(ours[kept], np.log(naive[kept]), rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("mean, sd", [(40.0, 1.0), (-20.0, 2.0), (3.3, 0.7), (5.0, 0.02),
                                      (2000.0, 1e3), (5.0, 990.0), (5.0, 1.01e3), (5.0, 1e5),
                                      (-300.0, 3e5)])
def test_matches_quadrature_in_the_tails_and_for_very_wide_predictives(mean, sd):
    # far tails (log P down to -1e5) and sds around and beyond the switch to the midpoint rule
    ours = discretised_log_predictive([mean], [sd ** 2])[0]
    np.testing.assert_allclose(ours, log_probabilities_by_quadrature(mean, sd), rtol=1e-11,
                               atol=1e-11)


def test_rows_sum_to_one_even_at_the_extremes():
    mean = np.array([5.0, 40.0, -1e5, 5.0, 5.5, 1e6, 0.0, 10.0])
    variance = np.array([1.0, 1e-2, 1.0, 1e300, 1e-30, 1e8, 1e-6, 3.0])
    log_p = discretised_log_predictive(mean, variance)
    assert np.all(np.isfinite(log_p))
    np.testing.assert_allclose(logsumexp(log_p, axis=1), 0.0, atol=1e-12)
    # a predictive far wider than the scale is flat over it
    np.testing.assert_allclose(log_p[3], np.log(1 / 11), rtol=1e-12)


def test_a_score_40_sd_in_the_tail_has_a_finite_probability_and_kl():
    # predictive N(2, 0.2^2); one of the raters gave 10, which lies 40 sd above the mean
    mean, variance = np.array([2.0]), np.array([0.04])
    reference = np.zeros((1, 11))
    reference[0, [2, 10]] = [4, 1]
    ours = discretised_log_predictive(mean, variance)
    # bin [9.5, 10.5] = Phi(-37.5) - Phi(-42.5) = Phi(-37.5) (1 - about e^-200): scipy's log
    # survival function at 37.5 (the renormalisation divides by 1 - Phi(-12.5), i.e. 1)
    assert ours[0, 10] == pytest.approx(stats.norm.logsf(37.5), rel=1e-12)
    assert -710 < ours[0, 10] < -700
    kl = discrete_kl(reference, ours)
    assert np.isfinite(kl[0]) and kl[0] > 100
    # the same in linear space: 1 - 1 = 0 for that bin, log 0 = -inf, and the KL is inf
    naive = naive_probabilities(mean, variance)
    assert naive[0, 10] == 0.0
    with np.errstate(divide="ignore"):
        naive_log = np.log(naive)
    assert discrete_kl(reference, naive_log)[0] == np.inf


def test_mirror_symmetry():
    rng = np.random.default_rng(1)
    mean, variance = rng.uniform(-5, 15, 40), rng.uniform(0.01, 30, 40)
    np.testing.assert_allclose(discretised_log_predictive(mean, variance)[:, ::-1],
                               discretised_log_predictive(10 - mean, variance), atol=1e-10,
                               rtol=1e-12)
    # on a scale 1..5 the mirror is 6 - mean
    np.testing.assert_allclose(discretised_log_predictive(mean, variance, scale=(1, 5))[:, ::-1],
                               discretised_log_predictive(6 - mean, variance, scale=(1, 5)),
                               atol=1e-10, rtol=1e-12)


def test_other_scales_use_their_own_bins():
    log_p = discretised_log_predictive([2.0], [0.5], scale=(1, 5))
    assert log_p.shape == (1, 5)
    expected = naive_probabilities(np.array([2.0]), np.array([0.5]), np.arange(1, 7) - 0.5)
    np.testing.assert_allclose(np.exp(log_p), expected, atol=1e-14)
    # mass beyond the end bins is dropped and the rest renormalised, not lumped into the ends
    sd = np.sqrt(0.5)
    inside = stats.norm.cdf((5.5 - 2) / sd) - stats.norm.cdf((0.5 - 2) / sd)
    bin_1 = stats.norm.cdf((1.5 - 2) / sd) - stats.norm.cdf((0.5 - 2) / sd)
    assert np.exp(log_p[0, 0]) == pytest.approx(bin_1 / inside, rel=1e-12)


# ----- discrete KL ----------------------------------------------------------------------------
# ----- the panel's mixture -----------------------------------------------------------------
def test_panel_predictive_is_the_average_of_each_raters_distribution():
    # closed form in linear space: the mean over raters of each one's renormalised bin masses
    rng = np.random.default_rng(1)
    mean, latent = rng.uniform(-1, 11, 50), rng.uniform(0.0, 3.0, 50)
    noise = np.array([0.4, 1.1, 2.5, 0.9, 1.7])
    expected = np.mean([naive_probabilities(mean, latent + value) for value in noise], axis=0)
    ours = panel_log_predictive(mean, latent, noise)
    np.testing.assert_allclose(np.exp(ours), expected, atol=1e-12)
    np.testing.assert_allclose(logsumexp(ours, axis=1), 0.0, atol=1e-12)


def test_a_panel_of_equal_raters_is_one_rater():
    mean, latent = np.array([2.5, 7.0]), np.array([0.3, 0.0])
    np.testing.assert_allclose(panel_log_predictive(mean, latent, [1.2, 1.2, 1.2]),
                               discretised_log_predictive(mean, latent + 1.2), atol=1e-13)


def test_a_panel_far_in_the_tail_stays_finite():
    # a mean of -40: score 10 has log P near -300 for each rater, beyond exp's range in a sum
    ours = panel_log_predictive([-40.0], [0.5], [0.5, 1.0])[0]
    each = [log_probabilities_by_quadrature(-40.0, np.sqrt(0.5 + value)) for value in (0.5, 1.0)]
    assert ours[-1] < -250
    np.testing.assert_allclose(ours, np.logaddexp(*each) - np.log(2.0), rtol=1e-10)


@pytest.mark.parametrize("noise, latent, name", [([], [0.5], "noise_per_rater"),
                                                 ([1.0, 0.0], [0.5], "noise_per_rater"),
                                                 ([1.0], [-0.5], "latent_variance"),
                                                 ([[1.0]], [0.5], "noise_per_rater")])
def test_panel_predictive_refuses_bad_variances_by_name(noise, latent, name):
    with pytest.raises(ValueError, match=name):
        panel_log_predictive([5.0], latent, noise)


def test_discrete_kl_matches_scipy_entropy():
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 4, (50, 11)).astype(float)
    counts[counts.sum(axis=1) == 0, 0] = 1
    log_p = discretised_log_predictive(rng.uniform(0, 10, 50), rng.uniform(0.2, 5, 50))
    ours = discrete_kl(counts, log_p)
    expected = [stats.entropy(c, np.exp(lp)) for c, lp in zip(counts, log_p)]
    np.testing.assert_allclose(ours, expected, rtol=1e-10)
    # counts and fractions give the same value; KL >= 0 and 0 when P equals the histogram
    np.testing.assert_allclose(discrete_kl(counts / counts.sum(axis=1, keepdims=True), log_p),
                               ours, rtol=1e-13)
    assert np.all(ours >= 0)
    fractions = np.array([[0.2, 0.3, 0.5]])
    assert discrete_kl(fractions, np.log(fractions))[0] == pytest.approx(0.0, abs=1e-15)


def test_discrete_kl_refuses_log_probabilities_that_do_not_sum_to_one():
    # a common slip: log densities at the scores instead of bin probabilities
    log_density = stats.norm(5, 0.5).logpdf(np.arange(11))[None, :]
    with pytest.raises(ValueError, match="log_probabilities: row 0 sums to"):
        discrete_kl(np.ones((1, 11)), log_density + 1.0)


# ----- PCC, MSE, RMSE -------------------------------------------------------------------------
def test_round_scores_rounds_half_up():
    values = np.array([0.5, 1.5, 2.5, -0.5, 2.4999999, 7.5000001, 9.5])
    np.testing.assert_array_equal(round_scores(values), [1, 2, 3, 0, 2, 8, 10])
    assert not np.array_equal(np.round(values), round_scores(values))  # numpy: half to even


def test_rounded_pcc_mse_against_scipy_on_rounded_values():
    rng = np.random.default_rng(3)
    reference = rng.uniform(0, 10, 200)
    predictions = reference + rng.normal(0, 1.5, 200)
    pcc, mse = rounded_pcc_mse(predictions, reference)
    a, b = np.floor(predictions + 0.5), np.floor(reference + 0.5)
    assert pcc == pytest.approx(stats.pearsonr(a, b)[0], rel=1e-12)
    assert mse == pytest.approx(np.mean((a - b) ** 2), rel=1e-12)


def test_rounded_pcc_mse_rounds_both_sides_half_up():
    # by hand: predictions 2.5, 4.5, 6.4 -> 3, 5, 6; reference 2.5, 3.5, 7 -> 3, 4, 7:
    # errors 0, 1, -1, MSE 2/3 (half to even would give 2, 4, 6 and 2, 4, 7: MSE 1/3)
    pcc, mse = rounded_pcc_mse([2.5, 4.5, 6.4], [2.5, 3.5, 7.0])
    assert mse == pytest.approx(2 / 3)
    assert pcc == pytest.approx(stats.pearsonr([3, 5, 6], [3, 4, 7])[0])


def test_rmse():
    assert rmse([1.0, 2.0, 3.0], [1.0, 2.0, 5.0]) == pytest.approx(np.sqrt(4 / 3), rel=1e-15)
    assert rmse([1.0, 2.0], [1.0, 2.0]) == 0.0
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=100), rng.normal(size=100)
    assert rmse(a, b) == pytest.approx(np.sqrt(np.mean((a - b) ** 2)), rel=1e-14)
    # magnitudes whose squares leave float64 still give the right value
    assert rmse([3e200, 0.0], [0.0, 4e200]) == pytest.approx(np.sqrt(12.5) * 1e200, rel=1e-14)


@pytest.mark.parametrize("successes, trials", [(0, 8), (7, 8), (8, 8), (4, 16), (2, 31),
                                               (12, 13), (500, 1000)])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_clopper_pearson_matches_scipys_exact_binomial_interval(successes, trials, confidence):
    # both are beta quantiles found by scipy's own root finders: they agree to far better than
    # the 1e-9 allowed, which is still far below the third decimal an interval is quoted to
    expected = stats.binomtest(successes, trials).proportion_ci(confidence, method="exact")
    assert clopper_pearson_interval(successes, trials, confidence) == pytest.approx(
        (expected.low, expected.high), abs=1e-9)


def test_clopper_pearson_holds_its_coverage_for_every_proportion():
    """Exact coverage from the binomial probabilities (no simulation needed): for n = 16 the
    95% interval covers p with probability at least 0.95 at every p of a fine grid."""
    n = 16
    ends = np.array([clopper_pearson_interval(k, n) for k in range(n + 1)])
    for p in np.linspace(0.005, 0.995, 199):
        covered = (ends[:, 0] <= p) & (p <= ends[:, 1])
        assert stats.binom.pmf(np.arange(n + 1), n, p)[covered].sum() >= 0.95 - 1e-12, p


@pytest.mark.parametrize("arguments, message", [((9, 8), "successes: must be <= 8"),
                                                ((-1, 8), "successes: must be >= 0"),
                                                ((1, 0), "trials: must be >= 1"),
                                                ((1.5, 8), "successes: expected an integer"),
                                                ((1, 8, 1.0), "confidence: must lie")])
def test_clopper_pearson_refuses_bad_counts_by_name(arguments, message):
    with pytest.raises((TypeError, ValueError), match=message):
        clopper_pearson_interval(*arguments)
