"""The checks Unit 5's models make of their input (course_lib.raters._model_input): a model's
``data`` must be a RaterData (course_lib.rater_data, tested in tests/test_rater_data.py) that
rates one row of ``X`` per item, and each refusal names the argument."""

import numpy as np
import pytest

from course_lib.rater_data import RaterData
from course_lib.raters._model_input import _as_items_and_ratings, _as_rater_data

TABLE = np.array([[3.0, 4.0], [5.0, np.nan], [6.0, 7.0]])


def test_a_model_takes_rater_data_with_one_row_of_x_per_item():
    data = RaterData.from_matrix(TABLE)
    X, checked = _as_items_and_ratings(np.arange(3.0)[:, None], data)
    assert checked is data and X.shape == (3, 1)
    with pytest.raises(TypeError, match="data: expected a RaterData"):
        _as_rater_data(TABLE)
    with pytest.raises(ValueError, match="data: has 3 items but X has 2 rows"):
        _as_items_and_ratings(np.arange(2.0)[:, None], data)
