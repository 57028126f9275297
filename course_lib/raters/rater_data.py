"""Unit 5's multi-rater data: :class:`RaterData` (scores of several raters per item, in long
format, with the per-item summaries R_i, ybar_i and S_i of arXiv 2306.02719, §3), and the checks
its models make of their input.

The type itself is :mod:`course_lib.ratings`, below the models, so that the data loaders return
it without importing a model; here Unit 5 shows it, and checks that a model's ``data`` is one
and that it rates one row of ``X`` per item. It sits apart from the models that fit it
(``raters.multi_rater``, ``raters.annotator_noise``) because it is their shared input, not a model.
"""

from __future__ import annotations

import numpy as np

from ..ratings import RaterData
from ..gp.kernel_base import as_inputs, check_exact_size

__all__ = ["RaterData"]


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
