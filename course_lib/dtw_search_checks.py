"""Which lower bound holds for which metric and step pattern: the argument checks of the pruned
DTW searches of :mod:`course_lib.dtw_search`, and the settings their compiled kernels take.

LB_Kim and early abandoning need local costs >= 0; LB_Keogh needs (squared) Euclidean costs and
one of the step patterns whose weights are shown to fall on rows and columns as its sum assumes
(Keogh & Ratanamahatana 2005; the proofs are in the docstring of :mod:`course_lib.dtw_search`).
The checks refuse anything else by the user's argument name; they sit apart so that the
searches read as the bounds and the cascade, with the bookkeeping of codes, band and slots here.
"""

from __future__ import annotations

import numpy as np

from .dtw_costs import _metric_terms
from .dtw_pruning import _QUERY_SIDE, _TEMPLATE_SIDE
from .dtw_sequences import _as_sequence, _as_sequence_list, _check_same_dim, _concatenate_sequences
from .dtw_step_patterns import ASYMMETRIC_P1, STEP_PATTERNS, StepPattern, _get_step_pattern
from .dtw_subsequence import _subsequence_pattern
from .validation import _as_bool, _as_positive_int, _check_choice

# How the LB_Keogh row and column sums combine for each pattern (course_lib.dtw_search).
_ROWS, _ROWS_PLUS_COLUMNS, _LARGER = 0, 1, 2
_KEOGH_COMBINATION = {
    STEP_PATTERNS["asymmetric"]: _ROWS,
    ASYMMETRIC_P1: _ROWS,
    STEP_PATTERNS["symmetric2"]: _ROWS_PLUS_COLUMNS,
    STEP_PATTERNS["symmetricP1"]: _ROWS_PLUS_COLUMNS,
    STEP_PATTERNS["symmetric1"]: _LARGER,
}
_NORMALISATION_CODE = {"none": 0, "n+m": 1, "n": 2}
_KIM_METRICS = ("euclidean", "sqeuclidean", "cosine")
_KEOGH_METRICS = ("euclidean", "sqeuclidean")


def _check_kim_metric(metric) -> None:
    """Refuse a ``metric`` whose local costs may be negative (no bound, no early abandoning)."""
    _check_choice(metric, "metric", set(_KIM_METRICS) | {"gaussian_nll"})
    if metric == "gaussian_nll":
        raise ValueError("metric: 'gaussian_nll' local costs can be negative, so D may decrease "
                         "along a path and neither lower bounds nor early abandoning hold; use "
                         f"one of {list(_KIM_METRICS)}")


def _check_keogh_metric(metric) -> None:
    """Refuse a ``metric`` for which the box distance does not bound the local cost."""
    _check_kim_metric(metric)
    if metric not in _KEOGH_METRICS:
        raise ValueError(f"metric: LB_Keogh bounds the distance to the envelope only for "
                         f"{list(_KEOGH_METRICS)}, got {metric!r}")


def _keogh_combination(pattern: StepPattern) -> int:
    """How LB_Keogh's row and column sums combine for ``pattern`` (ROWS, ROWS_PLUS_COLUMNS or
    LARGER); other patterns are refused by ``step_pattern``."""
    combination = _KEOGH_COMBINATION.get(pattern)
    if combination is None:
        raise ValueError(f"step_pattern: LB_Keogh is shown valid here only for symmetric1, "
                         f"symmetric2, symmetricP1, asymmetric and asymmetricP1, not "
                         f"{pattern.name!r}")
    return combination


def _supports_lower_bounds(step_pattern: str | StepPattern, metric: str) -> bool:
    """Whether LB_Keogh (so ``nearest_templates(lower_bounds=True)``) holds for this step
    pattern and metric (see the docstring of :mod:`course_lib.dtw_search`)."""
    return _get_step_pattern(step_pattern) in _KEOGH_COMBINATION and metric in _KEOGH_METRICS


def _effective_band(r: int, longest: int) -> int:
    """The band radius for the compiled code from a checked one (:func:`course_lib.dtw.as_band`):
    -1 (no band) also for a radius that reaches every cell anyway (r >= max(n, m) - 1), so
    envelope windows stay as small as the sequences."""
    return -1 if r >= longest - 1 else r


def _end_weight(pattern: StepPattern) -> float:
    """The smallest weight a move gives the cell it ends in (the last cell of every path)."""
    return min(cells[-1][2] for _, cells in pattern.moves)


def _pair_inputs(x, y, metric):
    """``x`` and ``y`` checked as sequences of one dimension, and the local-distance terms."""
    x, y = _as_sequence(x, "x"), _as_sequence(y, "y")
    _check_same_dim(x, y, "x", "y")
    return x, y, _metric_terms(metric, None, x, y, ("x", "y"))


def _length_slots(lengths: np.ndarray):
    """The distinct template lengths, and ``length_slot[m]``: the position of length m among
    them (a search keeps one query envelope per template length)."""
    distinct = np.unique(lengths).astype(np.int64)
    length_slot = np.full(distinct[-1] + 1, -1, dtype=np.int64)
    length_slot[distinct] = np.arange(len(distinct))
    return distinct, length_slot


def _search_options(metric, pattern: StepPattern, lower_bounds: bool, leading_features,
                   dim: int) -> tuple[int, int]:
    """``(keogh, leading)`` of :func:`course_lib.dtw_search.nearest_templates`: which side of
    LB_Keogh the search uses (0 for none) and how many leading features its first pass takes,
    after checking that ``metric`` and the step pattern admit them."""
    if lower_bounds:
        _check_keogh_metric(metric)
        keogh = (_TEMPLATE_SIDE if _keogh_combination(pattern) == _ROWS else _QUERY_SIDE)
    else:
        _check_kim_metric(metric)
        keogh = 0
    if leading_features is None:
        leading = dim
    else:
        leading = _as_positive_int(leading_features, "leading_features", maximum=dim)
        if metric not in _KEOGH_METRICS:
            raise ValueError(f"leading_features: a DTW on fewer features bounds the full one "
                             f"only for metric {list(_KEOGH_METRICS)}, got {metric!r}")
    return keogh, leading


def _subsequence_inputs(query, references, n_best, early_abandon, step_pattern, metric):
    """The arguments of :func:`course_lib.dtw_search.subsequence_search`, checked, with the step
    pattern and the local-distance terms."""
    query = _as_sequence(query, "query")
    references = _as_sequence_list(references, "references")
    _check_same_dim(query, references[0], "query", "references")
    n_best = _as_positive_int(n_best, "n_best")
    early_abandon = _as_bool(early_abandon, "early_abandon")
    pattern = _subsequence_pattern(step_pattern)
    _check_kim_metric(metric)
    for k, reference in enumerate(references):
        if reference.shape[0] < query.shape[0]:
            raise ValueError(f"references[{k}]: has {reference.shape[0]} frames, fewer than the "
                             f"query ({query.shape[0]} frames)")
    ref_all, _ = _concatenate_sequences(references)
    local = _metric_terms(metric, None, query, ref_all, ("query", "references"),
                         per_frame_ok=False)
    return query, references, n_best, early_abandon, pattern, local
