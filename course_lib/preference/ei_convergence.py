"""When a preference session has settled: the smoothed expected improvement.

Nielsen, Nielsen & Larsen (2015) follow the grid mean of bEI (2-D), or the mean bEI along the
ascent paths of :func:`~course_lib.preference.acquisition.maximise_acquisition` (4-D), smoothed
by a running mean over 4 iterations (:func:`average_ei_path`); :func:`settled_at` finds the
iteration from which it stays below a level, :func:`settling_threshold` the course's level (the
thesis gives none). Bookkeeping over a session's history, apart from the acquisitions of
:mod:`course_lib.preference.acquisition`.
"""

from __future__ import annotations

import numpy as np

from ..validation import as_float_array, as_positive_float, as_positive_int
from ..gp.kernel_base import Kernel, as_inputs

__all__ = ["average_ei_path", "settling_threshold", "settled_at"]


def average_ei_path(history, window: int = 4) -> np.ndarray:
    """Running mean of a per-iteration EI summary (grid mean of bEI, or the path mean of
    :class:`AcquisitionMaximum`) over the last ``window`` iterations (Nielsen et al., 4-D: 4); the
    first ``window - 1`` entries average what is available."""
    history = as_float_array(history, "history", ndim=1)
    if np.any(history < 0):
        raise ValueError("history: expected improvements must be >= 0")
    window = as_positive_int(window, "window")
    cumulative = np.concatenate([[0.0], np.cumsum(history)])
    index = np.arange(1, history.shape[0] + 1)
    lower = np.maximum(index - window, 0)
    return (cumulative[index] - cumulative[lower]) / (index - lower)


# The course's "settled" level of the convergence measure (the thesis gives none): a mean
# expected improvement of 1 % of the utility's prior sd, i.e. no setting is expected to beat the
# incumbent by a noticeable part of the spread of utilities.
_SETTLED_FRACTION = 0.01


def settling_threshold(kernel, X) -> float:
    """``_SETTLED_FRACTION`` times the utility's prior sd over the settings ``X`` (the root mean
    of ``kernel``'s diagonal there), the level for :func:`settled_at`: 0.02 for Nielsen et al.'s
    model (kernel variance 4)."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
    X = as_inputs(X, "X")
    return _SETTLED_FRACTION * float(np.sqrt(np.mean(kernel.diag(X))))


def settled_at(history, *, threshold: float, window: int = 4) -> int | None:
    """First iteration (0-based index into ``history``) from which the smoothed EI
    (:func:`average_ei_path`) stays below ``threshold`` to the end; None if it never does
    (a listener who keeps a clearly non-zero EI: inconsistent, or cannot hear differences).
    The thesis gives no threshold: :func:`settling_threshold` is the course's, relative to the
    utility scale."""
    threshold = as_positive_float(threshold, "threshold")
    smoothed = average_ei_path(history, window)
    above = np.flatnonzero(smoothed >= threshold)
    first = 0 if above.size == 0 else int(above[-1]) + 1
    return first if first < smoothed.shape[0] else None

