"""Unit 5's view of the multi-rater data (course_lib.raters.rater_data): the type it shows is the
shared one the data loaders return (course_lib.ratings, tested in tests/test_ratings.py), and the
checks its models make of ``data`` and ``X`` name the argument."""

import numpy as np
import pytest

from course_lib import ratings
from course_lib.data.fluency import load_fluency
from course_lib.raters import RaterData
from course_lib.raters.rater_data import _as_items_and_ratings, _as_rater_data

TABLE = np.array([[3.0, 4.0], [5.0, np.nan], [6.0, 7.0]])


def test_unit_5_shows_the_type_the_data_loaders_return():
    assert RaterData is ratings.RaterData
    assert isinstance(load_fluency().ratings, RaterData)


def test_a_model_takes_rater_data_with_one_row_of_x_per_item():
    data = RaterData.from_matrix(TABLE)
    X, checked = _as_items_and_ratings(np.arange(3.0)[:, None], data)
    assert checked is data and X.shape == (3, 1)
    with pytest.raises(TypeError, match="data: expected a RaterData"):
        _as_rater_data(TABLE)
    with pytest.raises(ValueError, match="data: has 3 items but X has 2 rows"):
        _as_items_and_ratings(np.arange(2.0)[:, None], data)
