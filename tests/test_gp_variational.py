"""MixedLikelihood and VariationalGP (course_lib.gp.variational)."""

import numpy as np
import pytest

from course_lib.gp.comparisons import Comparisons
from course_lib.gp.likelihoods import PairwiseGaussian, PairwiseProbit
from course_lib.gp.variational import MixedLikelihood

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
