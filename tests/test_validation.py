"""Tests of course_lib.validation, the argument checks every room calls: each turns good input
into the type a model needs and refuses bad input with a message that starts with the
argument's name."""

import inspect
import warnings

import numpy as np
import pytest

from course_lib.validation import (as_bool, as_float_array, as_positive_float, as_positive_int,
                                   as_rng, as_selection, as_waveform, check_array_size,
                                   check_choice, check_length, check_width, listed_rows,
                                   renamed_error, warn_deprecated)


def test_good_input_comes_back_as_the_type_a_model_needs():
    generator = np.random.default_rng(0)
    assert as_rng(generator) is generator
    assert as_rng(7).random() == np.random.default_rng(7).random()
    arr = as_float_array([[1, 2], [3, 4]], "X", ndim=2)
    assert arr.dtype == np.float64 and arr.shape == (2, 2)
    np.testing.assert_array_equal(as_float_array([0.0, np.inf], "d", allow_inf="+inf"),
                                  [0.0, np.inf])
    assert as_positive_int(np.int64(3), "n") == 3 and type(as_positive_int(3, "n")) is int
    assert as_positive_float(0, "noise", allow_zero=True) == 0.0
    assert as_bool(np.bool_(True), "flag") is True
    assert check_choice("full", "covariance_type", ("full", "diag")) == "full"
    np.testing.assert_array_equal(check_length(np.ones(3), "y", 3, "input"), np.ones(3))
    np.testing.assert_array_equal(as_waveform([0.0, 0.5]), [0.0, 0.5])


@pytest.mark.parametrize("call,error,match", [
    (lambda: as_rng("seed"), TypeError, "^rng: expected a numpy Generator"),
    (lambda: as_rng(True, "seed"), TypeError, "^seed:"),
    (lambda: as_float_array("abc", "X"), TypeError, "^X: expected a numeric array"),
    (lambda: as_float_array([[1.0], [1.0, 2.0]], "X"), TypeError, r"^X: expected a numeric"),
    (lambda: as_float_array([1 + 2j], "X"), TypeError, "^X: expected real numbers"),
    (lambda: as_float_array(np.ma.masked_array([1.0, 2.0], [0, 1]), "X"), TypeError,
     "^X: a masked array with 1 masked entries"),
    (lambda: as_float_array([10 ** 400], "X"), ValueError, "^X: a value is too large"),
    (lambda: as_float_array([1.0], "X", ndim=2), ValueError, r"^X: expected a 2-D array"),
    (lambda: as_float_array([], "X"), ValueError, "^X: must not be empty"),
    (lambda: as_float_array([np.nan], "X"), ValueError, "^X: contains NaN or inf"),
    (lambda: as_float_array([-np.inf], "d", allow_inf="+inf"), ValueError,
     "^d: contains NaN or -inf"),
    (lambda: as_positive_int(2.0, "n"), TypeError, "^n: expected an integer"),
    (lambda: as_positive_int(True, "n"), TypeError, "^n: expected an integer"),
    (lambda: as_positive_int(0, "n"), ValueError, "^n: must be >= 1, got 0"),
    (lambda: as_positive_int(10 ** 30, "n", maximum=5), ValueError,
     "^n: must be <= 5, got an integer with 31 digits"),
    (lambda: as_positive_float(0.0, "noise"), ValueError, r"^noise: must be finite and > 0"),
    (lambda: as_positive_float(10 ** 400, "noise"), ValueError, "^noise: too large"),
    (lambda: as_positive_float("1", "noise"), TypeError, "^noise: expected a real number"),
    (lambda: as_bool(1, "flag"), TypeError, "^flag: expected True or False"),
    (lambda: check_choice("tied", "covariance_type", ("full", "diag")), ValueError,
     r"^covariance_type: expected one of \['diag', 'full'\], got 'tied'"),
    (lambda: check_length(np.ones(2), "y", 3, "input"), ValueError,
     r"^y: expected one value per input \(3\), got 2"),
    (lambda: check_width(-1.7e308, 1.7e308, "bounds"), ValueError,
     "^bounds: the range from .* is wider than a float64"),
    (lambda: check_array_size((10 ** 6, 10 ** 6), "n_points", "the grid", "use fewer points"),
     ValueError, r"^n_points: the grid \(1,000,000 x 1,000,000 values\) would need 7.28 TiB"),
    (lambda: as_waveform(np.array([True, False])), TypeError, "^signal: a boolean array"),
])
def test_bad_input_is_refused_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_selection_is_indices_or_a_mask_never_a_mask_read_as_indices():
    np.testing.assert_array_equal(as_selection([True, False, True], "items", 3), [0, 2])
    np.testing.assert_array_equal(as_selection([2.0, 0], "items", 3), [2, 0])
    np.testing.assert_array_equal(as_selection(1, "items", 3), [1])
    cases = [([True, False], "a boolean mask must have one entry per item"),
             ([False, False, False], "the mask selects no item"),
             ([0.5], "entry 0 is 0.5; fractions are not rounded"),
             ([0, 3], "item indices run from 0 to 2 .* entry 1 is 3")]
    for values, message in cases:
        with pytest.raises(ValueError, match=f"^items: .*{message}"):
            as_selection(values, "items", 3)
    with pytest.raises(ValueError, match="^raters: rater 1 is given more than once"):
        as_selection([1, 1], "raters", 3, noun="rater", allow_repeats=False)
    with pytest.raises(TypeError, match="^items: expected item indices or a boolean mask"):
        as_selection(None, "items", 3)


def test_listed_rows_names_a_few_and_counts_the_rest():
    assert listed_rows(np.array([False, True])) == "row 1"
    assert listed_rows(np.arange(8) > 0, "clip", limit=3) == "clips 1, 2, 3 and 4 more"


def test_renamed_error_restates_the_callers_argument():
    renamed = renamed_error(ValueError("x: contains NaN or inf"), "x", "scores")
    assert type(renamed) is ValueError and str(renamed) == "scores: contains NaN or inf"
    assert renamed_error(ValueError("y: other"), "x", "scores") is None


def test_warn_deprecated_points_at_the_callers_line():
    def old_name():
        warn_deprecated("old_name", "new_name")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calling_line = inspect.currentframe().f_lineno + 1
        old_name()  # the line the warning names, not the one inside old_name
    assert caught[0].category is DeprecationWarning
    assert str(caught[0].message) == ("old_name is deprecated and will be removed in the next "
                                      "release; use new_name")
    assert (caught[0].filename, caught[0].lineno) == (__file__, calling_line)
