"""Integrals against N(z; mean, var) (course_lib.preference.quadrature): the rules against closed forms,
the refinement (kinks, windows, link zones) against adaptive quadrature, the Gauss-Hermite
shortcut against the panel rule, and the refusal of Gaussians too far out.

Tolerances of the closed-form checks. The 8-node Gauss-Legendre rule on a panel of width h errs
by h^17 (8!)^4 / (17 (16!)^3) f^(16)(xi) = 1.7e-23 h^17 f^(16) (the error term of the n-point
Gauss-Legendre rule, n = 8). For f = N(z; mean, var) on panels at most sd / 2 wide, h^17 |f^(16)| is at most
(1/2)^17 max|He_16(x) phi(x)| = 6.2, so each panel errs by about 1e-22 (times the size of a smooth
factor such as z^2 or Phi(z)), and cutting the range at mean +- 10 sd loses 2 Phi(-10) = 2e-23.
What remains is round-off in sums of up to a few hundred terms of one sign: 1e-14 relative
(about 45 eps) leaves room for that and nothing else. The 48-node Gauss-Hermite rule is exact
for polynomials up to degree 95, so its moments too are exact up to round-off.
"""

import numpy as np
import pytest
from scipy import stats
from scipy.special import log_ndtr, ndtr

from course_lib.preference import quadrature as quadrature
from course_lib.preference.likelihoods import log_ndtr_derivatives
from course_lib.preference import PairwiseProbit
from course_lib.preference.quadrature import LatentOverflowError
from numerics import adaptive_expectation

# means and variances from far below to far above the probit's scale 1, and far out
MEAN = np.array([-3.0, 0.0, 0.4, 2.5, -20.0, 7.0, 100.0, -0.05])
VAR = np.array([0.01, 1.0, 4.0, 0.3, 25.0, 900.0, 1e4, 1e-6])
ROUND_OFF = 1e-14



def probit_slopes(z):
    """d/dz and d^2/dz^2 of log Phi(z)."""
    return log_ndtr_derivatives(z)[1:3]


@pytest.mark.parametrize("smooth", [False, True])
def test_moments_and_the_probit_integral_match_their_closed_forms(smooth):
    # smooth=True sends the rows with sd <= 1 link scale to Gauss-Hermite, the others to the
    # panel rule: both must give E[1] = 1, E[z] = m, E[z^2] = m^2 + v and
    # E[Phi(z)] = Phi(m / sqrt(1 + v)) (R&W 2006, eq. 3.82) up to round-off
    one, first, second, probit = quadrature.expectation(
        lambda z, row: (np.ones_like(z), z, z * z, ndtr(z)), MEAN, VAR, smooth=smooth)
    np.testing.assert_allclose(one, 1.0, rtol=ROUND_OFF)
    np.testing.assert_allclose(first, MEAN, rtol=0, atol=ROUND_OFF * np.max(np.abs(MEAN)))
    np.testing.assert_allclose(second, MEAN ** 2 + VAR, rtol=ROUND_OFF)
    np.testing.assert_allclose(probit, ndtr(MEAN / np.sqrt(1.0 + VAR)), rtol=0, atol=ROUND_OFF)


def test_gauss_hermite_nodes_are_exact_for_low_moments():
    nodes, weights, row, row_start = quadrature._gauss_hermite_nodes(MEAN, VAR)
    assert nodes.shape == weights.shape == (MEAN.size, 48)
    np.testing.assert_array_equal(row, np.arange(MEAN.size))
    np.testing.assert_array_equal(row_start, np.arange(MEAN.size))
    centred = (nodes - MEAN[:, None]) / np.sqrt(VAR)[:, None]
    for k, moment in enumerate([1.0, 0.0, 1.0, 0.0, 3.0, 0.0, 15.0]):
        np.testing.assert_allclose((weights * centred ** k).sum(axis=1), moment,
                                   rtol=ROUND_OFF, atol=ROUND_OFF * 15.0)


def test_a_kink_needs_a_break_point():
    # E|z - c| = s sqrt(2/pi) exp(-d^2 / (2 v)) + d (1 - 2 Phi(-d / s)), d = m - c: exact up to
    # round-off with a break point at c; without one, the panel holding c errs (by 3e-4 here)
    c = 1.0 / 3.0
    sd, d = np.sqrt(VAR), MEAN - c
    exact = sd * np.sqrt(2.0 / np.pi) * np.exp(-0.5 * d * d / VAR) + d * (1.0 - 2.0 * ndtr(-d / sd))
    with_kink = quadrature.expectation(lambda z, row: np.abs(z - c), MEAN, VAR, kinks=(c,))
    np.testing.assert_allclose(with_kink, exact, rtol=ROUND_OFF, atol=ROUND_OFF)
    without = quadrature.expectation(lambda z, row: np.abs(z - c), MEAN, VAR)
    assert np.max(np.abs(without - exact)) > 1e-6


def test_the_node_weight_rule_cuts_each_piece_into_equal_panels():
    # row 0: pieces [0, 1] (panels <= 0.3 wide: 4 of them), [1, 1] (empty), [1, 3] (<= 2: one);
    # row 1: [-1, 0] in 1000 panels of width 1e-3 is capped at 200
    edges = np.array([[0.0, 1.0, 1.0, 3.0], [-1.0, -1.0, -1.0, 0.0]])
    widths = np.array([[0.3, 1.0, 2.0], [1.0, 1.0, 1e-3]])
    mean, var = np.array([0.5, 0.0]), np.array([4.0, 1.0])
    nodes, log_weights, row, row_start = quadrature._gauss_legendre_panels(edges, widths, mean,
                                                                          var)
    assert nodes.shape == (5 + 200, quadrature._GAUSS_LEGENDRE_NODES)
    np.testing.assert_array_equal(row, [0] * 5 + [1] * 200)
    np.testing.assert_array_equal(row_start, [0, 5])
    spans = nodes[:, -1] - nodes[:, 0]  # the outer nodes of equal panels span equal widths
    np.testing.assert_allclose(spans[:4] / spans[4], 0.25 / 2.0, rtol=1e-13)
    np.testing.assert_allclose(spans[5:], spans[5], rtol=1e-10)
    assert np.all((nodes[:5] > 0) & (nodes[:5] < 3)) and np.all((nodes[5:] > -1) & (nodes[5:] < 0))
    # the weights include the Gaussian density: they sum to the Gaussian's mass on [low, high]
    mass = np.add.reduceat(np.exp(log_weights).sum(axis=1), row_start)
    np.testing.assert_allclose(mass, [ndtr(1.25) - ndtr(-0.25), ndtr(0.0) - ndtr(-1.0)],
                               rtol=ROUND_OFF)


def test_newton_window_finds_the_mode_and_width_of_a_gaussian_integrand():
    # log p = log N(y; z, s^2) times N(z; m, v): the mode (y/s^2 + m/v) / (1/s^2 + 1/v) and the
    # width (1/s^2 + 1/v)^-1/2; the floored Newton steps shrink geometrically and stop below
    # 1e-10 link scales, so the mode is found within that
    y, s2 = np.array([1.0, -4.0, 0.3]), np.array([0.2, 1.0, 5.0])
    m, v = np.array([0.0, 2.0, 0.3]), np.array([1.0, 0.1, 9.0])
    centre, width = quadrature._newton_window(
        lambda z: -0.5 * (y - z) ** 2 / s2, lambda z: ((y - z) / s2, -1.0 / s2), m.copy(), m,
        1.0 / v)
    precision = 1.0 / s2 + 1.0 / v
    np.testing.assert_allclose(centre, (y / s2 + m / v) / precision, rtol=0, atol=1e-9)
    np.testing.assert_allclose(width, precision ** -0.5, rtol=ROUND_OFF)
    # precision 0: the likelihood's own bump, its width capped at the link scale
    centre, width = quadrature._newton_window(
        lambda z: -0.5 * (y - z) ** 2 / s2, lambda z: ((y - z) / s2, -1.0 / s2), np.zeros(3),
        np.zeros(3), np.zeros(3), link_scale=1.0)
    np.testing.assert_allclose(centre, y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(width, np.minimum(np.sqrt(s2), 1.0), rtol=ROUND_OFF)


def test_newton_window_stops_halving_a_step_below_its_tolerance():
    # slopes whose zero sits 1e-8 beyond h's mode (as the rating likelihoods' slopes and log
    # densities disagree in their last digits): near the mode every Newton step goes downhill,
    # and the row must stop halving it once it is below the 1e-10 tolerance, not halve on to
    # nothing (up to 40 times per Newton step)
    y, s2 = np.array([1.0, -4.0, 0.3]), np.array([0.2, 1.0, 5.0])
    calls = []

    def log_density(z):
        calls.append(z.size)
        return -0.5 * (y - z) ** 2 / s2

    centre, _ = quadrature._newton_window(
        log_density, lambda z: ((y + 1e-8 - z) / s2, -1.0 / s2), np.zeros(3), np.zeros(3),
        np.zeros(3), link_scale=1.0)
    np.testing.assert_allclose(centre, y, rtol=0, atol=2e-8)
    # the floored curvature (0.2 + 0.01) leaves the third row 0.01 / 0.21 of its distance a
    # step: 8 Newton steps from 0.3 to 1e-10, and 9 with the last; each a first trial and at most
    # 7 halvings from 1e-8 to 1e-10. Halving on to nothing needs more than this bound.
    assert len(calls) <= 1 + 9 * (1 + 7), len(calls)


def test_log_expectation_reaches_a_mode_far_from_the_mean_through_its_window():
    # log E[Phi(z)] = log Phi(m / sqrt(1 + v)): at m = -40 the integrand peaks 20 sds from the
    # mean, outside mean +- 10 sd, and only the window at its mode finds it; the sum in log space
    # keeps densities far below 1e-308 exact
    m = np.array([-40.0, -8.0, 0.0, 3.0, -300.0])
    v = np.array([1.0, 0.25, 4.0, 1e-4, 100.0])
    exact = log_ndtr(m / np.sqrt(1.0 + v))
    window = quadrature._newton_window(log_ndtr, probit_slopes, m.copy(), m, 1.0 / v)
    ours = quadrature._log_expectation(lambda z, row: log_ndtr(z), m, v, windows=[window])
    np.testing.assert_allclose(ours, exact, rtol=ROUND_OFF, atol=ROUND_OFF)
    blind = quadrature._log_expectation(lambda z, row: log_ndtr(z), m, v)
    assert abs(blind[0] - exact[0]) > 1.0


@pytest.mark.parametrize("noise_sd", [1 / np.sqrt(2), 0.02])
def test_probit_expectation_stays_accurate_for_wide_gaussians(noise_sd):
    """E log Phi(z / (sqrt2 sigma)) over N(mean, var) with sd up to 30 times the probit's
    scale sqrt(2) sigma and beyond (64-node Gauss-Hermite errs by 2e-4 at 6 times): relative
    error < 1e-9."""
    lik = PairwiseProbit(noise_sd)
    scale = np.sqrt(2) * noise_sd
    worst = 0.0
    for mean in np.linspace(-8, 8, 5):
        for sd in (0.1, 1.0, 6.0, 30.0):
            for y in (0.0, 1.0):
                value = lik.expected_log_likelihood([y], [mean], [sd ** 2])[0][0]
                reference = adaptive_expectation(
                    lambda z: stats.norm.logcdf((2 * y - 1) * z / scale), mean, sd ** 2,
                    points=scale * np.array([-100, -10, -1, 0, 1, 10, 100]))
                worst = max(worst, abs(value - reference) / max(1.0, abs(reference)))
    assert worst < 1e-9


@pytest.mark.parametrize("noise_sd", [1.0 / np.sqrt(2.0), 0.3])
def test_probit_expectations_by_gauss_hermite_equal_the_panel_rule_on_narrow_rows(noise_sd):
    # rows with sd(z) up to one link scale take the Gauss-Hermite path: it must agree with the
    # composite rule and with adaptive quadrature to round-off, right up to the switch
    lik = PairwiseProbit(noise_sd)
    link = np.sqrt(2.0) * noise_sd
    mean = link * np.repeat(np.linspace(-12.0, 8.0, 41), 4)
    sd = link * np.tile([0.01, 0.3, 1.0, 1.0 + 1e-9], 41)
    y = np.tile([1.0, 0.0], mean.size // 2)
    hermite = lik.expected_log_likelihood(y, mean, sd ** 2)
    narrow = sd <= link
    assert narrow.sum() == 3 * 41 and (~narrow).sum() == 41
    nodes, log_weights, row, start = quadrature._panel_rule(mean[narrow], sd[narrow] ** 2,
                                                           link_scale=link)
    terms = lik._derivatives(nodes, y[narrow][row, None], 2)
    for fast, term, factor in zip(hermite, terms, (1.0, 1.0, 0.5)):
        slow = np.add.reduceat((np.exp(log_weights) * term * factor).sum(axis=1), start)
        # the panel rule's own error is ~1e-12 relative
        np.testing.assert_allclose(fast[narrow], slow, rtol=1e-12, atol=1e-14)
    for k in (0, 62, 123):
        reference = adaptive_expectation(
            lambda z: lik.log_likelihood(np.array([z]), y[k:k + 1])[0], mean[k], sd[k] ** 2)
        assert hermite[0][k] == pytest.approx(reference, rel=1e-11, abs=1e-13)


def test_quadrature_refuses_a_gaussian_too_far_out_naming_mean_and_var():
    # a diverging optimiser's trial step: the composite rule's panels would lose their digits
    # to the mean (they vanished, and np.add.reduceat failed, before this check)
    with pytest.raises(LatentOverflowError, match=r"mean, var: row 1 has \|mean\| \+ sd"):
        quadrature._panel_rule(np.array([0.0, 2.5e92]), np.array([4.0, 4.0]))
    lik = PairwiseProbit(0.5)
    with pytest.raises(LatentOverflowError, match=r"mean, var: row 1 has \|mean\| \+ sd"):
        lik.expected_log_likelihood(np.ones(2), np.array([0.0, 2.5e92]), np.array([4.0, 4.0]))
    assert issubclass(LatentOverflowError, ValueError)
    # a narrow row is integrated by Gauss-Hermite, which has no such limit: log Phi there is 0
    value = lik.expected_log_likelihood(np.ones(1), np.array([2.5e92]), np.array([0.01]))[0]
    assert value[0] == 0.0
