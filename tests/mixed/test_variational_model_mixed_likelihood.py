"""MixedLikelihood (course_lib.mixed.variational_model): each row summed once by its own part, the
derivatives per row, and the parts' log-parameters in order.

Oracles: each part's own likelihood on its rows, and finite differences.
"""

import numpy as np
import pytest

from course_lib.preference.comparisons import Comparisons
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint, LikertConfidence
from course_lib.mixed import MixedLikelihood
from course_lib.preference import PairwiseGaussian, PairwiseProbit
from course_lib.mixed.feedback_likelihoods import OrdinalProbit

X3 = np.array([[0.0], [0.7], [1.5]])
PAIRS = Comparisons(X3, [0, 1, 2], [1, 2, 0], [1.0, 0.0, 1.0])


def mixed_example():
    """Probit pairs and Gaussian single-item answers about the same three items."""
    return MixedLikelihood([(PairwiseProbit(0.8), PAIRS.matrix(), PAIRS.y),
                            (PairwiseGaussian(0.5), np.eye(3)[[0, 2]], [0.3, -0.4])])


def test_mixed_sums_each_row_once_with_its_own_likelihood():
    mixed = mixed_example()
    mean = np.array([0.2, -0.5, 1.0, 0.1, -0.3])
    var = np.array([0.4, 1.3, 0.2, 0.05, 0.9])
    value, d_mean, d_var = mixed.expected_log_likelihood(mean, var)
    probit = PairwiseProbit(0.8).expected_log_likelihood(PAIRS.y, mean[:3], var[:3])
    # the Gaussian part in closed form: E log N(y; z, s^2) = log N(y; m, s^2) - v / (2 s^2)
    s2, y = 0.25, np.array([0.3, -0.4])
    gauss = (-0.5 * np.log(2 * np.pi * s2) - 0.5 * (y - mean[3:]) ** 2 / s2
             - 0.5 * var[3:] / s2)
    assert value == pytest.approx(probit[0].sum() + gauss.sum(), rel=1e-12)
    np.testing.assert_allclose(mixed.part_expected_log_likelihoods(mean, var),
                               [probit[0].sum(), gauss.sum()], rtol=1e-12)
    np.testing.assert_allclose(d_mean, np.r_[probit[1], (y - mean[3:]) / s2], rtol=1e-12)
    np.testing.assert_allclose(d_var, np.r_[probit[2], [-0.5 / s2] * 2], rtol=1e-12)
    assert mixed.n_items == 3 and mixed.n_rows == 5 and mixed.n_parts == 2
    np.testing.assert_array_equal(mixed.M[mixed.slices[0]], PAIRS.matrix())


def test_mixed_derivatives_match_finite_differences():
    mixed = mixed_example()
    mean = np.array([0.2, -0.5, 1.0, 0.1, -0.3])
    var = np.array([0.4, 1.3, 0.2, 0.05, 0.9])
    _, d_mean, d_var = mixed.expected_log_likelihood(mean, var)
    h = 1e-5
    for k in range(mean.size):
        step = np.zeros_like(mean)
        step[k] = h
        fd_mean = (mixed.expected_log_likelihood(mean + step, var)[0]
                   - mixed.expected_log_likelihood(mean - step, var)[0]) / (2 * h)
        fd_var = (mixed.expected_log_likelihood(mean, var + step)[0]
                  - mixed.expected_log_likelihood(mean, var - step)[0]) / (2 * h)
        assert fd_mean == pytest.approx(d_mean[k], rel=1e-6, abs=1e-8)
        assert fd_var == pytest.approx(d_var[k], rel=1e-6, abs=1e-8)


def parameter_example():
    """Every kind of part: probit pairs, Likert ratings of the same pairs (cut-point gaps and
    lapse), ordinal ratings, Bernoulli answers (no free parameter) and constraints (none)."""
    return MixedLikelihood([
        (PairwiseProbit(0.8), PAIRS.matrix(), PAIRS.y),
        (LikertConfidence(3, [0.4, 0.7], 0.05, lapse_bounds=(1e-3, 0.5)), PAIRS.matrix(),
         [0, 2, 1]),
        (OrdinalProbit(4, [0.6, 1.1]), np.eye(3), [0, 3, 2]),
        (BernoulliProbit(), np.eye(3)[[1]], [1.0]),
        (GaussianConstraint([0.3]), np.eye(3)[[0]], [-1.0])])


def test_mixed_parameters_are_the_parts_in_order():
    mixed = parameter_example()
    assert mixed.param_names == ("part0.noise_sd", "part1.gap_1", "part1.gap_2", "part1.lapse",
                                 "part2.gap_1", "part2.gap_2", "part3.noise_sd")
    np.testing.assert_allclose(np.exp(mixed.theta), [0.8, 0.4, 0.7, 0.05, 0.6, 1.1,
                                                     1 / np.sqrt(2)])
    assert mixed.bounds.shape == (7, 2)
    assert mixed.bounds[6, 0] == mixed.bounds[6, 1]  # BernoulliProbit fixes its scale
    theta = mixed.theta + np.linspace(-0.3, 0.3, 7)
    moved = mixed.with_theta(theta)
    np.testing.assert_allclose(moved.theta, theta)
    np.testing.assert_allclose(mixed.theta[1:3], np.log([0.4, 0.7]))  # the original unchanged
    np.testing.assert_allclose(moved.likelihoods[1].cut_points, np.r_[0, np.cumsum(np.exp(
        theta[1:3]))])
    assert moved.M is mixed.M and moved.y is mixed.y and moved.slices == mixed.slices


def test_mixed_parameter_gradient_matches_finite_differences():
    mixed = parameter_example()
    mean = np.array([0.2, -0.5, 1.0, 0.3, -0.6, 0.9, -0.8, 0.1, 0.4, 0.7, -1.1])
    var = np.array([0.4, 1.3, 0.2, 0.6, 0.05, 1.1, 0.3, 0.5, 0.8, 0.2, 0.1])
    gradient = mixed.expected_parameter_gradient(mean, var)
    assert gradient.shape == (7,)
    h = 1e-5
    for p in range(7):
        step = np.zeros(7)
        step[p] = h
        up, down = (mixed.with_theta(mixed.theta + sign * step) for sign in (1, -1))
        fd = (up.expected_log_likelihood(mean, var)[0]
              - down.expected_log_likelihood(mean, var)[0]) / (2 * h)
        assert gradient[p] == pytest.approx(fd, rel=1e-6, abs=1e-8), mixed.param_names[p]
    assert np.all(gradient[:6] != 0)  # every free parameter moves the bound
