"""Comparisons (course_lib.preference.comparisons): the comparison matrix M and its null space, the one
orientation convention, duplicate items, the comparison graph, only-winning items, ratings."""

import warnings

import numpy as np
import pytest

from course_lib.preference.comparisons import _NO_SECOND, Comparisons, DisconnectedComparisonsWarning


def random_comparisons(n_items=7, m=15, seed=0, kind="pair-binary"):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n_items, 2))
    first = rng.integers(0, n_items, m)
    second = (first + rng.integers(1, n_items, m)) % n_items  # never the same item
    # make sure the graph is connected: a path through all items
    first[:n_items - 1], second[:n_items - 1] = np.arange(n_items - 1), np.arange(1, n_items)
    y = {"pair-binary": rng.integers(0, 2, m).astype(float),
         "pair-degree": rng.uniform(0, 1, m),
         "pair-difference": rng.normal(0, 1, m)}[kind]
    return Comparisons(X, first, second, y, kind=kind)


def test_matrix_rows_sum_to_zero_and_constants_span_the_null_space():
    comparisons = random_comparisons()
    M = comparisons.matrix()
    assert M.shape == (comparisons.n_comparisons, comparisons.n_items)
    np.testing.assert_array_equal(M.sum(axis=1), 0.0)
    np.testing.assert_array_equal((M == 1).sum(axis=1), 1)
    np.testing.assert_array_equal((M == -1).sum(axis=1), 1)
    # S = M^T M is the graph Laplacian: for a connected graph its null space is exactly the
    # constants (one zero eigenvalue, eigenvector proportional to 1)
    eigenvalues, eigenvectors = np.linalg.eigh(M.T @ M)
    assert eigenvalues[0] == pytest.approx(0.0, abs=1e-10)
    assert eigenvalues[1] > 1e-3
    np.testing.assert_allclose(np.abs(eigenvectors[:, 0]),
                               np.full(comparisons.n_items, 1 / np.sqrt(comparisons.n_items)))


def test_orientation_z_is_first_minus_second():
    comparisons = Comparisons([[0.0], [1.0], [2.0]], [2, 0], [1, 2], [1, 0])
    f = np.array([0.5, -1.0, 3.0])
    np.testing.assert_array_equal(comparisons.matrix() @ f, [3.0 - -1.0, 0.5 - 3.0])
    np.testing.assert_array_equal(comparisons.differences(f), comparisons.matrix() @ f)
    # y = 1: first preferred -> item 2 won its comparison with 1; y = 0: item 2 beat item 0
    np.testing.assert_array_equal(comparisons.wins, [0, 0, 2])
    np.testing.assert_array_equal(comparisons.losses, [1, 1, 0])


@pytest.mark.parametrize("kind", ["pair-binary", "pair-degree", "pair-difference"])
def test_swapped_negates_z_and_mirrors_the_answers(kind):
    comparisons = random_comparisons(kind=kind, seed=3)
    mirror = comparisons.swapped()
    np.testing.assert_array_equal(mirror.matrix(), -comparisons.matrix())
    expected = -comparisons.y if kind == "pair-difference" else 1.0 - comparisons.y
    np.testing.assert_array_equal(mirror.y, expected)
    np.testing.assert_array_equal(mirror.wins, comparisons.wins)
    np.testing.assert_array_equal(mirror.losses, comparisons.losses)
    np.testing.assert_array_equal(mirror.swapped().y, comparisons.y)


def test_degree_ties_count_as_neither_win_nor_loss():
    comparisons = Comparisons(np.arange(3.0), [0, 1, 2], [1, 2, 0], [0.5, 0.9, 0.2],
                              kind="pair-degree")
    # (0, 1) a tie; 1 beats 2 (0.9 > 0.5); 0 beats 2 (0.2 < 0.5: the second item, 0, won)
    np.testing.assert_array_equal(comparisons.wins, [1, 1, 0])
    np.testing.assert_array_equal(comparisons.losses, [0, 0, 2])


def test_from_pairs_consolidates_duplicates_within_tol():
    X_first = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1e-10], [2.0, 2.0]])
    X_second = np.array([[1.0, 1.0], [2.0, 2.0], [2.0 + 5e-9, 2.0], [0.0, 0.0]])
    comparisons = Comparisons.from_pairs(X_first, X_second, [1, 0, 1, 1])
    assert comparisons.n_items == 3
    np.testing.assert_array_equal(comparisons.X, [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    np.testing.assert_array_equal(comparisons.first, [0, 1, 0, 2])
    np.testing.assert_array_equal(comparisons.second, [1, 2, 2, 0])
    # a tolerance below the offsets keeps them apart
    with pytest.warns(DisconnectedComparisonsWarning):
        apart = Comparisons.from_pairs(X_first, X_second, [1, 0, 1, 1], tol=1e-12)
    assert apart.n_items == 5
    # every stored item is the first occurrence of its inputs
    np.testing.assert_array_equal(comparisons.X[comparisons.first], X_first[[0, 1, 0, 3]])


def test_self_comparison_refused_naming_the_rows():
    with pytest.raises(ValueError, match=r"second: rows 1, 3 compare an item with itself"):
        Comparisons(np.arange(4.0), [0, 2, 1, 3], [1, 2, 0, 3], [1, 1, 0, 0])
    with pytest.raises(ValueError, match=r"X_second: row 1 present"):
        Comparisons.from_pairs([[0.0], [1.0]], [[2.0], [1.0 + 1e-12]], [1, 0])


def test_disconnected_graph_is_reported_not_refused():
    with pytest.warns(DisconnectedComparisonsWarning, match=r"2 components \(items 0, 1; "
                                                             r"items 2, 3, 4\)"):
        comparisons = Comparisons(np.arange(5.0), [0, 2, 3], [1, 3, 4], [1, 0, 1])
    assert not comparisons.is_connected
    assert comparisons.n_components == 2
    np.testing.assert_array_equal(comparisons.components(), [0, 0, 1, 1, 1])
    # the Laplacian now has two zero eigenvalues: one free level per component
    eigenvalues = np.linalg.eigvalsh(comparisons.matrix().T @ comparisons.matrix())
    assert np.sum(eigenvalues < 1e-10) == 2
    # the mirror image is the same graph and is not reported twice
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not comparisons.swapped().is_connected


def test_uncompared_items_do_not_make_the_graph_disconnected():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comparisons = Comparisons(np.arange(6.0), [0, 1], [1, 2], [1, 1])
    assert comparisons.is_connected
    np.testing.assert_array_equal(comparisons.compared, [1, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(comparisons.components(), [0, 0, 0, 1, 2, 3])


def test_component_count_includes_uncompared_items_and_matches_the_null_space():
    # items 0-2 and 3-4 compared among themselves, item 5 never: three components, and
    # M sends the indicator of each of them to zero
    with pytest.warns(DisconnectedComparisonsWarning,
                      match=r"has 3 components, 2 of them among the compared items \(items 0, "
                            r"1, 2; items 3, 4\) and 1 item in no comparison"):
        comparisons = Comparisons(np.arange(6.0), [0, 1, 0, 3], [1, 2, 2, 4], [1, 0, 1, 1])
    labels = comparisons.components()
    assert comparisons.n_components == np.unique(labels).size == 3
    M = comparisons.matrix()
    assert M.shape[1] - np.linalg.matrix_rank(M) == comparisons.n_components
    assert "n_components=3" in repr(comparisons)


def test_only_winning_and_only_losing_items_are_flagged():
    # item 0 beats everyone, item 3 loses to everyone, items 1 and 2 split
    comparisons = Comparisons(np.arange(4.0), [0, 0, 1, 2, 3], [1, 2, 2, 3, 1], [1, 1, 0, 1, 0])
    np.testing.assert_array_equal(comparisons.wins, [2, 1, 2, 0])
    np.testing.assert_array_equal(comparisons.losses, [0, 2, 1, 2])
    np.testing.assert_array_equal(comparisons.only_wins, [True, False, False, False])
    np.testing.assert_array_equal(comparisons.only_loses, [False, False, False, True])


def test_ratings_are_identity_rows_and_anchor_their_items():
    X = np.array([[0.0], [1.0], [0.0], [2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # separate items, but each one's level is observed
        ratings = Comparisons.from_ratings(X, [0.2, 0.7, 0.3, 1.0])
    assert ratings.kind == "bounded" and ratings.n_items == 3
    np.testing.assert_array_equal(ratings.second, _NO_SECOND)
    np.testing.assert_array_equal(ratings.matrix(), [[1, 0, 0], [0, 1, 0], [1, 0, 0],
                                                     [0, 0, 1]])
    assert ratings.is_connected
    np.testing.assert_array_equal(ratings.wins, 0)
    with pytest.raises(ValueError, match="kind"):
        ratings.swapped()


def test_arrays_are_read_only_and_not_the_callers():
    first = np.array([0, 1])
    comparisons = Comparisons(np.arange(3.0), first, [1, 2], [1, 0])
    with pytest.raises(ValueError):
        comparisons.y[0] = 0.0
    first[0] = 2
    assert comparisons.first[0] == 0


def test_disconnected_warning_points_at_the_callers_line():
    # both constructors report the user's line, not a line inside course_lib
    with pytest.warns(DisconnectedComparisonsWarning) as direct:
        Comparisons(np.arange(4.0), [0, 2], [1, 3], [1, 0])
    with pytest.warns(DisconnectedComparisonsWarning) as via_pairs:
        Comparisons.from_pairs([[0.0], [2.0]], [[1.0], [3.0]], [1, 0])
    assert {direct[0].filename, via_pairs[0].filename} == {__file__}
