"""Unit tests for course_lib.dtw.alignment: hand-worked example, brute force, invariants, bad inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from course_lib.dtw.alignment import (NoWarpingPathError, band_mask, dtw, dtw_from_cost_matrix,
                                      local_cost_matrix)
from course_lib.dtw.step_patterns import ASYMMETRIC_P1, STEP_PATTERNS, StepPattern
from course_lib.recognition import select_templates

PATTERNS = list(STEP_PATTERNS)
INF = np.inf

# ---------------------------------------------------------------------------------------------
# Golden example, worked by hand (0-based indices, local cost |x_i - y_j|).
#
#   x = [0, 2, 3, 1] (rows i),  y = [0, 1, 2, 3, 3, 1] (columns j)
#
#   d =  i=0: 0 1 2 3 3 1        symmetric1: D(i,j) = d(i,j) + min(D(i-1,j-1), D(i,j-1), D(i-1,j))
#        i=1: 2 1 0 1 1 1          row 0: 0 1 3 6 9 10           (running sum along the row)
#        i=2: 3 2 1 0 0 2          row 1: 2 1 1 2 3 4            e.g. D(1,2) = 0 + min(1, 1, 3) = 1
#        i=3: 1 0 1 2 2 0          row 2: 5 3 2 1 1 3            e.g. D(2,3) = 0 + min(1, 2, 2) = 1
#                                  row 3: 6 3 3 3 3 1            D(3,5) = 0 + min(1, 3, 3) = 1
#
#   symmetric2: diagonal move weight 2, horizontal/vertical 1, first cell m(1) = 2 d(0,0):
#     row 0: 0 1 3 6 9 10
#     row 1: 2 2 1 2 3 4       D(1,1) = min(D00 + 2*1, D10 + 1, D01 + 1) = min(2, 3, 2) = 2
#     row 2: 5 4 2 1 1 3       D(2,1) = min(D10 + 4, D20 + 2, D11 + 2) = min(6, 7, 4) = 4
#     row 3: 6 4 3 3 3 1       D(3,5) = min(D24 + 0, D34 + 0, D25 + 0) = 1
#   so d(X, Y) = 1 / (n + m) = 1 / 10.
#   Back-tracking (ties go to the diagonal, then (0,1), then (1,0)) gives in both cases
#   (0,0) (0,1) (1,2) (2,3) (2,4) (3,5): local costs 0+1+0+0+0+0 = 1.
# ---------------------------------------------------------------------------------------------
GOLDEN_X = np.array([0.0, 2, 3, 1])
GOLDEN_Y = np.array([0.0, 1, 2, 3, 3, 1])
GOLDEN_D = {
    "symmetric1": np.array([[0, 1, 3, 6, 9, 10], [2, 1, 1, 2, 3, 4], [5, 3, 2, 1, 1, 3],
                            [6, 3, 3, 3, 3, 1]], dtype=float),
    "symmetric2": np.array([[0, 1, 3, 6, 9, 10], [2, 2, 1, 2, 3, 4], [5, 4, 2, 1, 1, 3],
                            [6, 4, 3, 3, 3, 1]], dtype=float),
}
GOLDEN_PATH = np.array([[0, 0], [0, 1], [1, 2], [2, 3], [2, 4], [3, 5]])


@pytest.mark.parametrize("pattern", ["symmetric1", "symmetric2"])
def test_golden_hand_worked_example(pattern):
    result = dtw(GOLDEN_X, GOLDEN_Y, step_pattern=pattern)
    np.testing.assert_array_equal(result.cost, np.abs(GOLDEN_X[:, None] - GOLDEN_Y[None, :]))
    np.testing.assert_array_equal(result.accumulated, GOLDEN_D[pattern])
    np.testing.assert_array_equal(result.path, GOLDEN_PATH)
    assert result.distance == 1.0
    if pattern == "symmetric2":
        assert result.normaliser == 10 and result.normalised_distance == pytest.approx(0.1)
    else:
        assert result.normaliser is None and result.normalised_distance is None


# --- brute force over every warping path --------------------------------------------------------

def brute_force(cost, pattern: StepPattern, band=None):
    """Minimum weighted path cost by enumerating every path (tiny matrices only)."""
    n, m = cost.shape
    allowed = band_mask(n, m, band)
    best = INF

    def extend(i, j, total):
        nonlocal best
        if (i, j) == (n - 1, m - 1):
            best = min(best, total)
            return
        for (di, dj), cells in pattern.moves:
            ti, tj = i + di, j + dj
            if ti < n and tj < m and allowed[ti, tj]:
                extend(ti, tj, total + sum(w * cost[ti - a, tj - b] for a, b, w in cells))

    extend(0, 0, pattern.start_weight * cost[0, 0])
    return best


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("shape,band", [((4, 6), None), ((5, 5), 1), ((6, 4), 0), ((5, 7), 2)])
def test_recursion_equals_brute_force(pattern, shape, band):
    rng = np.random.default_rng([sum(map(ord, pattern)), *shape])  # str hash() varies per run
    cost = rng.uniform(0, 1, shape)
    p = STEP_PATTERNS[pattern]
    expected = brute_force(cost, p, band)
    if not np.isfinite(expected):
        with pytest.raises(NoWarpingPathError, match="band|step_pattern"):
            dtw_from_cost_matrix(cost, step_pattern=pattern, band=band)
        return
    result = dtw_from_cost_matrix(cost, step_pattern=pattern, band=band)
    assert result.distance == pytest.approx(expected, rel=1e-12)
    # the path re-adds to the distance with the pattern's weights
    path = result.path
    assert tuple(path[0]) == (0, 0) and tuple(path[-1]) == (shape[0] - 1, shape[1] - 1)
    assert np.all(np.diff(path, axis=0) >= 0)


def test_normalised_distance_is_weighted_mean_of_local_costs():
    # with every local cost equal to c, every path of a normalisable pattern costs c * M_phi
    for pattern in ("symmetric2", "asymmetric", "symmetricP1"):
        result = dtw_from_cost_matrix(np.full((6, 9), 0.7), step_pattern=pattern)
        assert result.normalised_distance == pytest.approx(0.7, rel=1e-12)


# --- local distances ------------------------------------------------------------------------------

def test_gaussian_with_unit_variance_is_half_squared_euclidean_plus_constant():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(8, 3))
    shift = 1.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(local_cost_matrix(x, y, "gaussian_nll"),
                               0.5 * local_cost_matrix(x, y, "sqeuclidean") + shift, rtol=1e-12)
    # same optimal path as DTW with squared Euclidean cost (symmetric2 adds a path-independent
    # constant (n + m) * shift)
    a = dtw(x, y, metric="gaussian_nll")
    b = dtw(x, y, metric="sqeuclidean")
    np.testing.assert_array_equal(a.path, b.path)
    assert a.distance == pytest.approx(0.5 * b.distance + (6 + 8) * shift, rel=1e-12)


# --- invariants ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine"])
def test_distance_to_itself_is_zero(pattern, metric):
    x = np.random.default_rng(3).normal(size=(12, 5))
    result = dtw(x, x, step_pattern=pattern, metric=metric)
    assert result.distance == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_array_equal(result.path, np.stack([np.arange(12)] * 2, axis=1))


@pytest.mark.parametrize("pattern", ["symmetric1", "symmetric2", "symmetricP1"])
@pytest.mark.parametrize("band", [None, 3])
def test_symmetric_patterns_are_symmetric(pattern, band):
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(9, 3)), rng.normal(size=(13, 3))
    assert STEP_PATTERNS[pattern].is_symmetric
    assert dtw(x, y, step_pattern=pattern, band=band).distance == pytest.approx(
        dtw(y, x, step_pattern=pattern, band=band).distance, rel=1e-12)


def test_asymmetric_pattern_is_not_symmetric():
    assert not STEP_PATTERNS["asymmetric"].is_symmetric
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(9, 3)), rng.normal(size=(13, 3))
    assert dtw(x, y, step_pattern="asymmetric").distance != pytest.approx(
        dtw(y, x, step_pattern="asymmetric").distance)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_wide_band_equals_no_band(pattern):
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(10, 2)), rng.normal(size=(14, 2))
    full = dtw(x, y, step_pattern=pattern)
    wide = dtw(x, y, step_pattern=pattern, band=13)
    assert wide.distance == full.distance
    np.testing.assert_array_equal(wide.path, full.path)
    # a band never lowers the cost
    assert dtw(x, y, step_pattern=pattern, band=1).distance >= full.distance


def test_band_definition_for_unequal_lengths():
    mask = band_mask(3, 5, 0)  # j - i in [0, 2]
    expected = np.array([[1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1]], dtype=bool)
    np.testing.assert_array_equal(mask, expected)
    np.testing.assert_array_equal(band_mask(5, 3, 0), expected.T)
    np.testing.assert_array_equal(band_mask(4, 4, 1),
                                  np.abs(np.subtract.outer(np.arange(4), np.arange(4))) <= 1)
    # path stays in the band; cells outside are +inf
    rng = np.random.default_rng(7)
    result = dtw(rng.normal(size=(8, 2)), rng.normal(size=(11, 2)), band=1)
    allowed = band_mask(8, 11, 1)
    assert np.all(allowed[result.path[:, 0], result.path[:, 1]])
    assert np.all(np.isinf(result.accumulated[~allowed]))


def test_band_zero_equal_lengths_is_the_diagonal():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(7, 3)), rng.normal(size=(7, 3))
    result = dtw(x, y, step_pattern="symmetric1", band=0)
    assert result.distance == pytest.approx(np.sum(np.linalg.norm(x - y, axis=1)), rel=1e-12)


def test_one_d_input_is_a_sequence_of_scalar_frames():
    a = dtw([1.0, 2.0, 3.0], [1.0, 3.0])
    b = dtw(np.array([[1.0], [2.0], [3.0]]), np.array([[1.0], [3.0]]))
    assert a.distance == b.distance


def test_length_one_sequences():
    x = np.array([[1.0, 0.0]])
    y = np.array([[1.0, 0.0], [2.0, 0.0], [4.0, 0.0]])
    # symmetric2: the single frame of x is matched to every frame of y: 2*0 + 1 + 3
    assert dtw(x, y).distance == pytest.approx(4.0)
    assert dtw(x, x).distance == 0.0
    with pytest.raises(NoWarpingPathError, match="step_pattern"):
        dtw(x, y, step_pattern="asymmetric")


# --- templates ---------------------------------------------------------------------------------------

def test_select_templates_without_groups_and_errors():
    labels = np.array([0, 0, 0, 1, 1, 1, 1])
    chosen = select_templates(labels, 2, rng=1)
    assert np.all(np.bincount(labels[chosen]) == 2)
    np.testing.assert_array_equal(chosen, select_templates(labels, 2, rng=1))
    with pytest.raises(ValueError, match="n_per_class"):
        select_templates(labels, 4)
    with pytest.raises(ValueError, match="groups"):
        select_templates(labels, 1, groups=[0, 1])


# --- bad input catalogue -------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: dtw([[1.0, np.nan]], [[1.0, 2.0]]), "x"),
    (lambda: dtw([[1.0, 2.0]], [[np.inf, 2.0]]), "y"),
    (lambda: dtw(np.zeros((0, 2)), np.ones((3, 2))), "x"),
    (lambda: dtw([], [1.0]), "x"),
    (lambda: dtw(np.ones((3, 2)), np.ones((3, 3))), "y"),
    (lambda: dtw(np.ones((2, 2, 2)), np.ones((3, 2))), "x"),
    (lambda: dtw(np.ones((3, 1)), np.ones((3, 1)), step_pattern="nope"), "step_pattern"),
    (lambda: dtw(np.ones((3, 1)), np.ones((3, 1)), metric="manhattan"), "metric"),
    (lambda: dtw(np.ones((3, 1)), np.ones((3, 1)), band=-1), "band"),
    (lambda: dtw(np.ones((3, 1)), np.ones((9, 1)), step_pattern="symmetricP1", band=0), "band"),
    (lambda: dtw(np.ones((3, 1)), np.ones((3, 1)), variances=[1.0]), "variances"),
    (lambda: dtw(np.ones((3, 2)), np.ones((3, 2)), metric="gaussian_nll", variances=[1, 0]),
     "variances"),
    (lambda: dtw(np.ones((3, 2)), np.ones((3, 2)), metric="gaussian_nll", variances=[1, 2, 3]),
     "variances"),
    (lambda: dtw(np.zeros((3, 2)), np.ones((3, 2)), metric="cosine"), "x"),
    (lambda: dtw_from_cost_matrix(np.ones(3)), "cost"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=f"^{match}"):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: dtw("abc", [1.0]), "x"),
    (lambda: dtw([1.0], [1.0], band=2.5), "band"),
])
def test_bad_input_type_errors(call, match):
    with pytest.raises((TypeError, ValueError), match=f"^{match}"):
        call()


def test_no_path_error_is_a_value_error_with_a_hint():
    with pytest.raises(ValueError, match="^band: no warping path within a band of radius 0"):
        dtw(np.ones((3, 1)), np.ones((9, 1)), step_pattern="asymmetric", band=0)
    # the lengths are the real obstacle here (asymmetric needs m <= 2n - 1): the hint says so
    with pytest.raises(NoWarpingPathError, match="none without a band either"):
        dtw(np.ones((3, 1)), np.ones((9, 1)), step_pattern="asymmetric", band=0)


def test_widened_band_never_removes_the_last_path_of_the_shipped_patterns():
    # exhaustive over small lengths: with the band widened by |n - m|, any radius r >= 0 keeps a
    # path whenever the pattern has one without a band (so a band error is about the lengths,
    # or about a custom pattern whose moves cannot follow the strip)
    checked = 0
    for pattern in [*STEP_PATTERNS.values(), ASYMMETRIC_P1]:
        for n, m in itertools.product(range(1, 13), range(1, 13)):
            cost = np.ones((n, m))
            try:
                unbanded = dtw_from_cost_matrix(cost, step_pattern=pattern)
            except NoWarpingPathError:
                continue
            for r in range(3):
                banded = dtw_from_cost_matrix(cost, step_pattern=pattern, band=r)
                assert np.isfinite(banded.distance), (pattern.name, n, m, r)
                assert banded.distance >= unbanded.distance  # a band only removes paths
                checked += 1
    assert checked > 300


def test_every_pair_of_brute_force_lengths_runs():
    # small exhaustive sweep of lengths 1..4 for each pattern: DP == brute force or both fail
    rng = np.random.default_rng(16)
    for pattern, n, m in itertools.product(PATTERNS, range(1, 5), range(1, 5)):
        cost = rng.uniform(size=(n, m))
        expected = brute_force(cost, STEP_PATTERNS[pattern])
        if np.isfinite(expected):
            got = dtw_from_cost_matrix(cost, step_pattern=pattern).distance
            assert got == pytest.approx(expected, rel=1e-12)
        else:
            with pytest.raises(NoWarpingPathError):
                dtw_from_cost_matrix(cost, step_pattern=pattern)


# --- the slope-limited asymmetric pattern (asymmetricP1) -------------------------------------

def test_asymmetric_p1_equals_brute_force_and_normalises_by_n():
    # brute force enumerates every path with the pattern's moves and weights (independent of the
    # compiled loop); every path of asymmetricP1 carries total weight n
    rng = np.random.default_rng(17)
    for n, m in itertools.product(range(1, 7), range(1, 9)):
        cost = rng.uniform(size=(n, m))
        expected = brute_force(cost, ASYMMETRIC_P1)
        if not np.isfinite(expected):
            with pytest.raises(NoWarpingPathError):
                dtw_from_cost_matrix(cost, step_pattern=ASYMMETRIC_P1)
            continue
        # a path exists exactly when the slope limits 1/2 .. 2 can join the corners
        assert (n - 1) <= 2 * (m - 1) and (m - 1) <= 2 * (n - 1)
        result = dtw_from_cost_matrix(cost, step_pattern=ASYMMETRIC_P1)
        assert result.distance == pytest.approx(expected, rel=1e-12)
        assert result.normaliser == n
    flat = dtw_from_cost_matrix(np.full((7, 11), 0.3), step_pattern=ASYMMETRIC_P1)
    assert flat.normalised_distance == pytest.approx(0.3, rel=1e-12)
    x = rng.normal(size=(10, 3))
    assert dtw(x, x, step_pattern=ASYMMETRIC_P1).distance == 0.0
    assert not ASYMMETRIC_P1.is_symmetric
