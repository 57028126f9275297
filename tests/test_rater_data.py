"""The multi-rater container (course_lib.rater_data, its one import path): summaries by hand,
the long and table forms, read-only labels and subsets."""

import pickle

import numpy as np
import pytest

from course_lib.rater_data import RaterData

TABLE = np.array([[3.0, 4.0, np.nan],
                  [5.0, np.nan, np.nan],
                  [np.nan, 2.0, 8.0]])


def test_summaries_by_hand():
    data = RaterData.from_matrix(TABLE, scale=(0, 10))
    assert (data.n_items, data.n_raters, data.n_labels) == (3, 3, 5)
    np.testing.assert_array_equal(data.counts, [2, 1, 2])
    np.testing.assert_array_equal(data.means, [3.5, 5.0, 5.0])
    np.testing.assert_array_equal(data.within_ss_per_item, [0.5, 0.0, 18.0])
    assert data.within_ss == 18.5
    np.testing.assert_array_equal(data.rater_counts, [2, 2, 1])
    hist = data.histograms()
    assert hist.shape == (3, 11)
    expected = np.zeros((3, 11))
    expected[0, [3, 4]] = expected[1, 5] = expected[2, [2, 8]] = 1
    np.testing.assert_array_equal(hist, expected)
    assert repr(data) == "RaterData(n_items=3, n_raters=3, n_labels=5, scale=(0, 10))"


def test_histograms_on_a_scale_that_does_not_start_at_zero():
    data = RaterData.from_matrix([[1.0, 1.0, 5.0], [2.0, np.nan, 3.0]], scale=(1, 5))
    np.testing.assert_array_equal(data.histograms(), [[2, 0, 0, 0, 1], [0, 1, 1, 0, 0]])
    with pytest.raises(ValueError, match="scale"):
        RaterData.from_matrix(TABLE).histograms()


def test_long_and_matrix_round_trip_in_any_row_order():
    data = RaterData.from_matrix(TABLE)
    np.testing.assert_array_equal(data.matrix(), TABLE)
    order = np.random.default_rng(0).permutation(data.n_labels)
    shuffled = RaterData.from_long(data.items[order], data.raters[order], data.scores[order])
    np.testing.assert_array_equal(shuffled.matrix(), TABLE)
    np.testing.assert_array_equal(shuffled.means, data.means)
    np.testing.assert_array_equal(shuffled.within_ss_per_item, data.within_ss_per_item)
    # declared sizes: a rater without labels and whole-number floats as indices
    wider = RaterData.from_long([0.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1, 2, 3], n_raters=4)
    assert wider.n_raters == 4 and wider.matrix().shape == (2, 4)
    np.testing.assert_array_equal(wider.rater_counts, [2, 0, 1, 0])


def test_label_arrays_and_summaries_are_read_only_also_after_pickling():
    """An edited score would leave the means and spreads computed from it stale."""
    original = RaterData.from_matrix(TABLE)
    for data in (original, pickle.loads(pickle.dumps(original))):
        for array in (data.items, data.raters, data.scores, data.counts, data.means,
                      data.within_ss_per_item):
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 1
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(original)).means, original.means)


def test_the_callers_arrays_stay_writable_and_do_not_alias_the_data():
    items, raters, scores = np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([1.0, 2.0, 3.0])
    data = RaterData.from_long(items, raters, scores)
    scores[0], items[0] = 9.0, 1
    np.testing.assert_array_equal(data.scores, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(data.items, [0, 0, 1])


def test_subset_renumbers_the_items_in_the_order_given():
    data = RaterData.from_matrix(TABLE, scale=(0, 10))
    part = data.subset([2, 0])
    np.testing.assert_array_equal(part.matrix(), TABLE[[2, 0]])
    assert part.scale == (0, 10) and part.n_raters == 3
    np.testing.assert_array_equal(part.means, [5.0, 3.5])
    with pytest.raises(ValueError, match="items"):
        data.subset([0, 0])


