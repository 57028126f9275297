"""The checks Unit 5's models make of their input: that a model's ``data`` is a
:class:`~course_lib.rater_data.RaterData` and that it rates one row of ``X`` per item, each
message naming the argument.

An engine the models share (``raters.multi_rater``, ``raters.annotator_noise``,
``raters._noise_table``); it shows no name of its own. The data type itself is
:mod:`course_lib.rater_data`, below the models, imported from there alone.
"""

from __future__ import annotations

import numpy as np

from ..gp.kernel_base import as_inputs, check_exact_size
from ..rater_data import RaterData


def _as_rater_data(data) -> RaterData:
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData (RaterData.from_long or from_matrix), got "
                        f"{type(data).__name__}")
    return data


def _as_items_and_ratings(X, data) -> tuple[np.ndarray, RaterData]:
    """``(X, data)`` checked together: one row of X per item that ``data`` rates."""
    X = as_inputs(X, "X")
    check_exact_size(X.shape[0], "X")
    data = _as_rater_data(data)
    if data.n_items != X.shape[0]:
        raise ValueError(f"data: has {data.n_items} items but X has {X.shape[0]} rows (one "
                         "row per item)")
    return X, data
