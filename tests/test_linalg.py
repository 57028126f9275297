"""Tests of course_lib.linalg: the Cholesky factor and what is read from it (log-determinant,
inverse, triangular solve) against numpy and scipy, the jitter ladder, and Gaussian draws whose
matrix square root is recovered exactly from the draws."""

import warnings

import numpy as np
import pytest
from scipy.linalg import solve_triangular

from course_lib.linalg import (JitterWarning, NotPositiveDefiniteError, check_symmetric,
                               cholesky_factor, cholesky_with_jitter, inverse_from_cholesky,
                               log_det_from_cholesky, sample_gaussian, solve_lower)

# A 4 x 4 SPD matrix of condition ~10: round-off of the factor and its solves stays within a
# few hundred eps of the entries' size (1).
ROUND_OFF = 1e-12


@pytest.fixture(scope="module")
def spd():
    G = np.random.default_rng(0).normal(size=(4, 4))
    return G @ G.T + 4 * np.eye(4)


def test_cholesky_factor_and_what_is_read_from_it(spd):
    L = cholesky_factor(spd, "Sigma")
    assert np.all(np.triu(L, 1) == 0)
    np.testing.assert_allclose(L @ L.T, spd, rtol=ROUND_OFF, atol=ROUND_OFF)
    sign, log_det = np.linalg.slogdet(spd)
    assert sign == 1 and log_det_from_cholesky(L) == pytest.approx(log_det, rel=ROUND_OFF)
    inverse = inverse_from_cholesky(L)
    np.testing.assert_array_equal(inverse, inverse.T)  # mirrored, so exactly symmetric
    # two inverses of a matrix of condition ~10: round-off times the condition number
    np.testing.assert_allclose(inverse, np.linalg.inv(spd), rtol=1e-10, atol=ROUND_OFF)
    B = np.arange(8.0).reshape(4, 2)
    np.testing.assert_allclose(solve_lower(L, B), solve_triangular(L, B, lower=True),
                               rtol=ROUND_OFF, atol=ROUND_OFF)


def test_a_positive_definite_matrix_needs_no_jitter(spd):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L, jitter = cholesky_with_jitter(spd)
    assert jitter == 0.0
    np.testing.assert_array_equal(L, cholesky_factor(spd))


def test_a_singular_matrix_gets_the_smallest_jitter_of_the_ladder_and_a_warning():
    ones = np.ones((3, 3))  # rank one: singular to machine precision
    with pytest.warns(JitterWarning, match="^K: Cholesky needed jitter"):
        L, jitter = cholesky_with_jitter(ones, "K")
    # the ladder runs 1e-10 .. 1e-4 times mean(diag) = 1
    assert 1e-10 <= jitter <= 1e-4
    np.testing.assert_allclose(L @ L.T, ones + jitter * np.eye(3), rtol=ROUND_OFF)
    with pytest.raises(NotPositiveDefiniteError, match="^K: not positive definite even with"):
        cholesky_with_jitter(np.diag([3.0, -1.0]), "K")  # -1 is far beyond 1e-4 * mean(diag)
    with pytest.raises(NotPositiveDefiniteError, match="^K: not positive definite and its mean"):
        cholesky_with_jitter(np.diag([1.0, -1.0]), "K")


def test_check_symmetric_names_the_worst_entry():
    A = np.eye(3)
    A[2, 0] = 0.5
    with pytest.raises(ValueError, match=r"^Sigma: must be symmetric; entry \(0, 2\) is 0 "
                                         "but its mirror is 0.5"):
        check_symmetric(A, "Sigma")
    with pytest.raises(ValueError, match="^cov: not positive definite"):
        cholesky_factor(np.diag([1.0, -2.0]), "cov")


def test_draws_are_mean_plus_a_square_root_of_cov_times_standard_normals(spd):
    mean = np.array([1.0, -2.0, 0.5, 3.0])
    X = sample_gaussian(mean, spd, 50, rng=3)
    e = np.random.default_rng(3).standard_normal((50, 4))  # the same draws the seed gives
    R_transposed = np.linalg.lstsq(e, X - mean, rcond=None)[0]
    # a least-squares fit of 50 exact rows (e is well conditioned): round-off of the sums
    np.testing.assert_allclose(R_transposed.T @ R_transposed, spd, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(X, sample_gaussian(mean, spd, 50, rng=3))
    diag = sample_gaussian(mean, [1.0, 4.0, 0.0, 9.0], 50, rng=3, covariance_type="diag")
    np.testing.assert_allclose(diag, mean + e * [1.0, 2.0, 0.0, 3.0], rtol=ROUND_OFF)


def test_a_singular_cov_draws_on_its_span_and_an_indefinite_one_is_refused():
    v = np.array([1.0, 2.0, -1.0])
    cov = np.outer(v, v)  # rank one: its Cholesky needs jitter
    X = sample_gaussian(np.zeros(3), cov, 20, rng=0)
    # every draw is a multiple of v plus the jitter's noise, whose standard deviation is at
    # most sqrt(1e-4 * mean(diag)), the ladder's cap: 6 of those bound 20 x 3 normal draws
    orthogonal = X - np.outer(X @ v / (v @ v), v)
    assert np.abs(orthogonal).max() < 6 * np.sqrt(1e-4 * np.mean(np.diag(cov)))
    assert np.abs(X).max() > 1.0  # the draws themselves are of the size of v
    with pytest.raises(ValueError, match="^cov: not positive semi-definite"):
        sample_gaussian(np.zeros(2), np.diag([1.0, -1.0]), 3, rng=0)
