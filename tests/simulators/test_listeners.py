"""Simulated listeners (course_lib.simulators.listeners): IRFs, answers that follow the likelihood
in the one orientation, the pathologies and forced choices."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from course_lib.gp import SquaredExponential
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.simulators.listeners import (CannotHear, Fatigue, GPDrawResponse,
                                             MattersAboveThreshold, SimulatedListener,
                                             SwitchesPreference, gp_draw_2d, gp_draw_4d,
                                             negated_griewank, settings_grid)
from numerics import round_off

# binomial and mean tolerances: this many standard errors (a false alarm about 1 in 10^5)
Z_TOL = 4.5


def linear_irf(X):
    """f(x) = x_0: the first setting's utility is its first coordinate."""
    return np.asarray(X, dtype=float)[:, 0]


def assert_frequency(successes, n, p, what):
    se = np.sqrt(p * (1 - p) / n)
    assert abs(successes / n - p) <= Z_TOL * se + 1e-12, (
        f"{what}: frequency {successes / n:.4f} vs probability {p:.4f} (se {se:.4f})")


def draw_round_off(irf, X):
    """Round-off of a GP draw's values at X: f(x) = k(x, A) w with w = K_AA^-1 f_A, whose terms
    cancel (|k| |w| ~ 1e6 for values ~ 4 on an 11 x 11 grid of [-20, 20]^2), so a setting's
    value depends on the BLAS kernel and the batch it is evaluated in by ~eps |k| |w| ~ 1e-10."""
    return round_off(np.max(np.abs(irf.kernel(X, irf.anchors)) @ np.abs(irf._weights)))


# ----- internal response functions ------------------------------------------------------------

def test_negated_griewank_has_three_peaks_with_the_centre_highest():
    x = np.linspace(-8, 8, 16001)
    f = negated_griewank(x[:, None])
    peaks = np.flatnonzero((f[1:-1] > f[:-2]) & (f[1:-1] > f[2:])) + 1
    assert peaks.size == 3
    assert np.allclose(x[peaks], [-2 * np.pi, 0.0, 2 * np.pi], atol=0.01)
    assert f[peaks[1]] == pytest.approx(1.0)
    # the side peaks are lower by about (2 pi)^2 / 4000
    assert f[peaks[1]] - f[peaks[0]] == pytest.approx((2 * np.pi) ** 2 / 4000, rel=1e-3)
    assert np.allclose(negated_griewank(x), f)  # a 1-D array is one setting per entry


def test_settings_grid_is_the_personalisation_studys_grid():
    grid = settings_grid(-20, 20, 1, 2)
    assert grid.shape == (1681, 2)
    assert len({tuple(row) for row in grid}) == 1681
    assert grid.min() == -20 and grid.max() == 20
    assert [0.0, 0.0] in grid.tolist()
    assert settings_grid(0, 80, 5, 4).shape == (17 ** 4, 4)


def test_gp_draw_is_exact_at_anchors_and_reproducible():
    irf = gp_draw_2d(rng=3)
    assert np.allclose(irf(irf.anchors), irf.values, atol=1e-6 * np.abs(irf.values).max())
    grid = settings_grid(-20, 20, 1, 2)
    assert np.array_equal(irf(grid), gp_draw_2d(rng=3)(grid))
    assert not np.allclose(irf(grid), gp_draw_2d(rng=4)(grid))
    assert gp_draw_4d(rng=0)(settings_grid(0, 80, 40, 4)).shape == (81,)


def test_gp_draw_evaluated_in_chunks_agrees_with_small_calls():
    irf = gp_draw_2d(rng=2)
    fine = settings_grid(-20, 20, 0.5, 2)   # 6561 settings: more than one chunk
    assert np.allclose(irf(fine), np.concatenate([irf(fine[:100]), irf(fine[100:])]),
                       rtol=0, atol=draw_round_off(irf, fine))


def test_gp_draw_values_have_the_kernel_covariance():
    kernel = SquaredExponential(1.5, 2.0)
    anchors = np.array([[0.0], [1.0], [3.0]])
    draws = np.array([GPDrawResponse(kernel, anchors, rng=seed).values for seed in range(4000)])
    K = kernel(anchors)
    se = np.sqrt((K ** 2 + np.outer(np.diag(K), np.diag(K))) / draws.shape[0])
    assert np.all(np.abs(np.cov(draws.T) - K) <= Z_TOL * se)
    assert np.all(np.abs(draws.mean(axis=0)) <= Z_TOL * np.sqrt(np.diag(K) / draws.shape[0]))


# ----- answers follow the likelihood, in the one orientation ----------------------------------

A, B = np.array([[1.0]]), np.array([[0.2]])   # f(A) - f(B) = 0.8 under linear_irf
N = 4000


def test_binary_answers_follow_the_probit_and_swap_to_the_complement():
    sigma = 0.7
    listener = SimulatedListener(linear_irf, PairwiseProbit(sigma), rng=0)
    p = ndtr(0.8 / (np.sqrt(2) * sigma))
    y = listener.answer(np.repeat(A, N, 0), np.repeat(B, N, 0))
    assert set(np.unique(y)) <= {0.0, 1.0}
    assert_frequency(y.sum(), N, p, "first preferred")
    swapped = listener.answer(np.repeat(B, N, 0), np.repeat(A, N, 0))
    assert_frequency(swapped.sum(), N, 1 - p, "swapped pair")
    assert listener.n_answers == 2 * N


def test_degree_answers_are_beta_around_the_probit_mean():
    sigma, nu = 0.5, 8.0
    listener = SimulatedListener(linear_irf, PairwiseBeta(sigma, nu), rng=1)
    mu = ndtr(0.8 / (np.sqrt(2) * sigma))
    y = listener.answer(np.repeat(A, N, 0), np.repeat(B, N, 0))
    assert stats.kstest(y, stats.beta(nu * mu, nu * (1 - mu)).cdf).pvalue > 1e-4
    swapped = listener.answer(np.repeat(B, N, 0), np.repeat(A, N, 0))
    assert stats.kstest(swapped, stats.beta(nu * (1 - mu), nu * mu).cdf).pvalue > 1e-4


def test_difference_answers_are_gaussian_around_the_difference():
    listener = SimulatedListener(linear_irf, PairwiseGaussian(0.3), rng=2)
    y = listener.answer(np.repeat(A, N, 0), np.repeat(B, N, 0))
    assert stats.kstest(y, stats.norm(0.8, 0.3).cdf).pvalue > 1e-4
    swapped = listener.answer(np.repeat(B, N, 0), np.repeat(A, N, 0))
    assert stats.kstest(swapped, stats.norm(-0.8, 0.3).cdf).pvalue > 1e-4


def test_answer_probability_is_the_likelihood_mean():
    listener = SimulatedListener(linear_irf, PairwiseProbit(0.7), rng=0)
    Xa, Xb = np.array([[1.0], [0.0], [-2.0]]), np.array([[0.2], [0.5], [1.0]])
    z = linear_irf(Xa) - linear_irf(Xb)
    assert np.allclose(listener.answer_probability(Xa, Xb), ndtr(z / (np.sqrt(2) * 0.7)))
    assert listener.n_answers == 0  # asking for the probability is no answer


def test_very_sure_slider_answers_stay_in_the_unit_interval():
    listener = SimulatedListener(linear_irf, PairwiseBeta(0.01, 30.0), rng=0)
    y = listener.answer(np.array([[50.0], [-50.0]]), np.array([[-50.0], [50.0]]))
    assert 0.5 < y[0] <= 1.0 and 0.0 <= y[1] < 0.5


# ----- pathologies ----------------------------------------------------------------------------

def test_cannot_hear_flat_gives_coin_flips_and_scaled_gives_a_weaker_signal():
    flat = SimulatedListener(linear_irf, PairwiseProbit(0.1), rng=0, pathology=CannotHear(0.0))
    y = flat.answer(np.repeat(A, N, 0), np.repeat(B, N, 0))
    assert_frequency(y.sum(), N, 0.5, "flat listener")
    weak = SimulatedListener(linear_irf, PairwiseProbit(0.7), rng=0, pathology=CannotHear(0.25))
    assert weak.answer_probability(A, B)[0] == pytest.approx(ndtr(0.2 / (np.sqrt(2) * 0.7)))


def test_switching_listener_answers_by_the_second_irf_after_k_answers():
    listener = SimulatedListener(linear_irf, PairwiseProbit(1e-3), rng=0,
                                 pathology=SwitchesPreference(lambda X: -linear_irf(X), after=5))
    y = listener.answer(np.repeat(A, 12, 0), np.repeat(B, 12, 0))
    assert np.array_equal(y, [1.0] * 5 + [0.0] * 7)
    assert listener.utility(A)[0] == pytest.approx(-1.0)   # after the switch


def test_fatigue_grows_the_noise_with_the_answers_given():
    sigma, rate = 0.4, 0.5
    listener = SimulatedListener(linear_irf, PairwiseProbit(sigma), rng=0,
                                 pathology=Fatigue(rate))
    before = listener.answer_probability(A, B)[0]
    listener.answer(np.repeat(A, 6, 0), np.repeat(B, 6, 0))
    after = listener.answer_probability(A, B)[0]
    assert before == pytest.approx(ndtr(0.8 / (np.sqrt(2) * sigma)))
    assert after == pytest.approx(ndtr(0.8 / (np.sqrt(2) * sigma * (1 + rate * 6))))
    # within one call every answer is one step more tired than the one before
    many = listener.answer_probability(np.repeat(A, 3, 0), np.repeat(B, 3, 0))
    assert np.all(np.diff(many) < 0)
    # the tired answers themselves follow the grown noise
    tired = SimulatedListener(linear_irf, PairwiseProbit(sigma), rng=5, pathology=Fatigue(rate))
    tired.n_answers = 10
    p_late = ndtr(0.8 / (np.sqrt(2) * sigma * (1 + rate * 10)))
    hits = sum(tired.answer(A, B)[0] for _ in range(2000))
    # the rate keeps growing during the 2000 answers: only the first one is at p_late
    assert hits / 2000 < p_late + Z_TOL * np.sqrt(p_late * (1 - p_late) / 2000)
    assert hits / 2000 > 0.5 - Z_TOL * np.sqrt(0.25 / 2000)


def test_fatigue_grows_the_noise_of_difference_answers():
    fresh = SimulatedListener(linear_irf, PairwiseGaussian(0.2), rng=0)
    fresh_y = fresh.answer(np.repeat(A, 500, 0), np.repeat(B, 500, 0))
    tired = SimulatedListener(linear_irf, PairwiseGaussian(0.2), rng=0, pathology=Fatigue(1.0))
    tired_y = tired.answer(np.repeat(A, 500, 0), np.repeat(B, 500, 0))
    # same normal draws, noise sd multiplied by 1 + t: the residuals scale exactly
    assert np.allclose(tired_y - 0.8, (fresh_y - 0.8) * (1 + np.arange(500)))
    assert tired.answer_probability(A, B)[0] == pytest.approx(0.8)   # E[y] stays the difference


def test_parameter_that_matters_only_above_threshold():
    irf = lambda X: X[:, 0] + 2.0 * X[:, 1]
    listener = SimulatedListener(irf, PairwiseProbit(1.0), rng=0,
                                 pathology=MattersAboveThreshold(dim=1, level=5.0))
    below = np.array([[0.0, -10.0], [0.0, 0.0], [0.0, 5.0]])
    above = np.array([[0.0, 6.0], [0.0, 10.0]])
    assert np.allclose(listener.utility(below), 10.0)
    assert np.allclose(listener.utility(above), [12.0, 20.0])
    # below the threshold the listener cannot tell the settings apart
    assert listener.answer_probability(below[:1], below[1:2])[0] == pytest.approx(0.5)


def test_pathologies_combine_noise_and_utility():
    listener = SimulatedListener(linear_irf, PairwiseProbit(0.5), rng=0,
                                 pathology=[CannotHear(0.5), Fatigue(1.0)])
    listener.n_answers = 1
    assert listener.answer_probability(A, B)[0] == pytest.approx(
        ndtr(0.4 / (np.sqrt(2) * 0.5 * 2.0)))


# ----- forced choice --------------------------------------------------------------------------

def test_forced_choice_counts_wins_of_the_found_setting_in_either_order():
    sure = SimulatedListener(linear_irf, PairwiseProbit(1e-3), rng=0)
    assert sure.forced_choice([1.0], [0.0], 20) == 20
    assert sure.forced_choice([0.0], [1.0], 20) == 0
    assert sure.n_answers == 40
    slider = SimulatedListener(linear_irf, PairwiseBeta(1e-3, 30.0), rng=0)
    assert slider.forced_choice(np.array([1.0]), np.array([0.0]), 11) == 11


def test_forced_choice_wins_are_binomial():
    sigma, n, reps = 1.0, 20, 400
    listener = SimulatedListener(linear_irf, PairwiseProbit(sigma), rng=7)
    p = ndtr(0.8 / (np.sqrt(2) * sigma))
    wins = np.array([listener.forced_choice(A[0], B[0], n) for _ in range(reps)])
    assert_frequency(wins.sum(), n * reps, p, "forced-choice wins")
    # binomial spread, not a fixed count
    assert np.var(wins) == pytest.approx(n * p * (1 - p), rel=0.35)
