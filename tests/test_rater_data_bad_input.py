"""Bad-input catalogue: the multi-rater container (course_lib.rater_data), family "raters".

Awkward but valid data (one label per rater, missing labels, raters with no overlap) are
accepted and tested in tests/raters/test_multi_rater.py; here are the ones that must be refused.

Decisions recorded here: a subset takes integer indices or a boolean mask of length n_items
(:func:`course_lib.validation.as_selection`); a mask is understood, never read as the indices 0
and 1. A numpy masked array is honoured where "missing" has a meaning (``RaterData.from_matrix``:
masked = missing, as NaN) and refused naming ``scores`` in long format, where its hidden numbers
would be used silently.
"""

import numpy as np
import pytest

from bad_input import BadInput, RightAnswer, check_case, parametrize
from course_lib.rater_data import RaterData

TABLE = np.array([[3.0, 4.0, np.nan], [5.0, np.nan, 6.0], [np.nan, 2.0, 8.0]])
DATA = RaterData.from_matrix(TABLE, scale=(0, 10))

RATINGS = RaterData.from_matrix([[2.0, 3.0], [7.0, np.nan], [5.0, 6.0], [np.nan, 9.0]])


def _same_ratings(pair):
    a, b = pair
    np.testing.assert_array_equal(a.matrix(), b.matrix())
    assert a.n_items == b.n_items and a.n_raters == b.n_raters


def _masked_table():
    Y = np.array([[2.0, 3.0], [7.0, -99.0], [5.0, 6.0], [-99.0, 9.0]])   # -99: nobody scored
    masked = np.ma.masked_array(Y, Y == -99.0)
    return RaterData.from_matrix(masked, scale=(0, 10)), RaterData.from_matrix(
        np.where(Y == -99.0, np.nan, Y), scale=(0, 10))


CASES = [
    # ----- the container -------------------------------------------------------------------
    BadInput("raters: score above the scale",
             lambda: RaterData.from_matrix([[3, 11], [2, 4]], scale=(0, 10)), ValueError,
             "scores"),
    BadInput("raters: negative score on a 0-10 scale",
             lambda: RaterData.from_long([0, 1], [0, 0], [3, -1], scale=(0, 10)), ValueError,
             "scores"),
    BadInput("raters: fractional score on a scale",
             lambda: RaterData.from_long([0, 0], [0, 1], [3, 4.5], scale=(0, 10)), ValueError,
             "scores"),
    BadInput("raters: booleans as scores",
             lambda: RaterData.from_long([0, 1], [0, 0], np.array([True, False])), TypeError,
             "scores"),
    BadInput("raters: a table of booleans",
             lambda: RaterData.from_matrix([[True, False], [False, True]]), TypeError, "Y"),
    BadInput("raters: an (item, rater) pair given twice",
             lambda: RaterData.from_long([0, 0, 1], [1, 1, 0], [1, 2, 3]), ValueError, "raters"),
    BadInput("raters: an item between others without labels",
             lambda: RaterData.from_long([0, 0, 2], [0, 1, 0], [1, 2, 3], n_items=3),
             ValueError, "items"),
    BadInput("raters: an item index beyond the number of labels",
             lambda: RaterData.from_long([0, 5], [0, 0], [1, 2]), ValueError, "items"),
    BadInput("raters: more items declared than labels",
             lambda: RaterData.from_long([0], [0], [1.0], n_items=5), ValueError, "n_items"),
    BadInput("raters: n_items zero", lambda: RaterData.from_long([0], [0], [1.0], n_items=0),
             ValueError, "n_items"),
    BadInput("raters: n_raters not an integer",
             lambda: RaterData.from_long([0], [0], [1.0], n_raters=2.5), TypeError, "n_raters"),
    BadInput("raters: rater index beyond n_raters",
             lambda: RaterData.from_long([0, 1], [0, 3], [1, 2], n_raters=2), ValueError,
             "raters"),
    BadInput("raters: a rater id (not an index) of 10^12",
             lambda: RaterData.from_long([0, 1], [0, 10 ** 12], [1, 2]), ValueError, "raters"),
    BadInput("raters: NaN in items", lambda: RaterData.from_long([0, np.nan], [0, 1], [1, 2]),
             ValueError, "items"),
    BadInput("raters: items None", lambda: RaterData.from_long(None, [0], [1]), TypeError,
             "items"),
    BadInput("raters: negative item index",
             lambda: RaterData.from_long([0, -1], [0, 1], [1, 2]), ValueError, "items"),
    BadInput("raters: fractional rater index",
             lambda: RaterData.from_long([0, 0], [0, 0.5], [1, 2]), ValueError, "raters"),
    BadInput("raters: item index 1e300",
             lambda: RaterData.from_long([0, 1e300], [0, 0], [1, 2]), ValueError, "items"),
    BadInput("raters: fewer scores than labels",
             lambda: RaterData.from_long([0, 0, 1], [0, 1, 0], [1, 2]), ValueError, "scores"),
    BadInput("raters: NaN score in long format",
             lambda: RaterData.from_long([0, 1], [0, 0], [1, np.nan]), ValueError, "scores"),
    BadInput("raters: scores as text",
             lambda: RaterData.from_long([0, 1], [0, 0], ["good", "bad"]), TypeError, "scores"),
    BadInput("raters: ragged table", lambda: RaterData.from_matrix([[1, 2], [3]]), TypeError,
             "Y"),
    BadInput("raters: table of None", lambda: RaterData.from_matrix(None), TypeError, "Y"),
    BadInput("raters: complex table", lambda: RaterData.from_matrix([[1 + 1j, 2]]), TypeError,
             "Y"),
    BadInput("raters: table with inf", lambda: RaterData.from_matrix([[1, np.inf]]), ValueError,
             "Y"),
    BadInput("raters: one-dimensional table", lambda: RaterData.from_matrix([1, 2, 3]),
             ValueError, "Y"),
    BadInput("raters: a table row with no score",
             lambda: RaterData.from_matrix([[1, 2], [np.nan, np.nan]]), ValueError, "Y"),
    BadInput("raters: a table without any score",
             lambda: RaterData.from_matrix(np.full((2, 3), np.nan)), ValueError, "Y"),
    BadInput("raters: reversed scale", lambda: RaterData.from_matrix(TABLE, scale=(10, 0)),
             ValueError, "scale"),
    BadInput("raters: scale with a half score",
             lambda: RaterData.from_matrix(TABLE, scale=(0, 10.5)), TypeError, "scale"),
    BadInput("raters: scale as text", lambda: RaterData.from_matrix(TABLE, scale="0-10"),
             TypeError, "scale"),
    BadInput("raters: histograms without a scale",
             lambda: RaterData.from_matrix(TABLE).histograms(), ValueError, "scale"),
    BadInput("raters: subset with a repeated item", lambda: DATA.subset([1, 1]), ValueError,
             "items"),
    BadInput("raters: subset beyond the items", lambda: DATA.subset([0, 3]), ValueError,
             "items"),
    # ----- one index rule for items ------------------------------------------------------------
    RightAnswer("raters: subset by a boolean mask",
                lambda: (RATINGS.subset([False, True, True, False]), RATINGS.subset([1, 2])),
                _same_ratings),
    BadInput("raters: subset by a mask of the wrong length",
             lambda: RATINGS.subset([True, False]), ValueError, "items", first=True),
    BadInput("raters: subset by fractional indices", lambda: RATINGS.subset([0.5, 2]),
             ValueError, "items", first=True),
    BadInput("raters: subset by a mask selecting nothing",
             lambda: RATINGS.subset(np.zeros(4, dtype=bool)), ValueError, "items", first=True),
    # ----- masked arrays ------------------------------------------------------------------------
    RightAnswer("raters: a masked table's masked scores are missing", _masked_table,
                _same_ratings),
    BadInput("raters: masked scores in long format",
             lambda: RaterData.from_long([0, 1], [0, 0],
                                         np.ma.masked_array([3.0, 4.0], [False, True])),
             TypeError, "scores", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


def test_scores_outside_the_scale_are_named_by_row():
    with pytest.raises(ValueError) as info:
        RaterData.from_long([0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [3, 11, 4, -2, 5], scale=(0, 10))
    assert "rows 1, 3" in str(info.value) and "0..10" in str(info.value), str(info.value)
    with pytest.raises(ValueError) as info:
        RaterData.from_long(np.repeat(np.arange(8), 2), np.tile([0, 1], 8), np.full(16, 12),
                            scale=(0, 10))
    assert "rows 0, 1, 2, 3, 4 and 11 more" in str(info.value), str(info.value)


def test_a_repeated_pair_and_an_unlabelled_item_are_named():
    with pytest.raises(ValueError, match="pair given again at row 2;"):
        RaterData.from_long([0, 1, 0], [1, 0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="no label for items 1, 3;"):
        RaterData.from_long([0, 2, 4, 4, 4], [0, 0, 0, 1, 2], [1, 2, 3, 4, 5], n_items=5)
