"""Making DTW fast (Unit 1): lower bounds, early abandoning, pruned searches.

Recognising a query by its nearest template needs the smallest DTW distance, not all of them,
and query-by-example needs only the best matches. Two cheap ideas skip most of the work and
still return exactly what the exhaustive search returns:

* a **lower bound** ``LB(X, Y) <= d(X, Y)`` that costs far less than DTW: when it already
  exceeds the best distance found so far, that template cannot win and its DTW never runs;
* **early abandoning**: with local costs >= 0, ``D`` never decreases along a warping path, and
  every path crosses every row of the matrix. Once every cell of a row, plus a lower bound of
  what the path must still pay, exceeds the best so far, the rest of the matrix is skipped.

Notation as in :mod:`course_lib.dtw.alignment` (``x``: n frames, rows ``i``; ``y``: m frames,
columns ``j``; the widened Sakoe-Chiba band; ``M_phi`` the pattern's normaliser). Every bound
here is on the scale of the distance the searches report, :func:`course_lib.dtw.alignment.dtw`'s
``normalised_distance`` (the raw ``distance`` divided by ``M_phi``, which does not depend on the
path, so bounding the raw sum is enough), or ``distance`` when the pattern has no normaliser.

**LB_Kim** (its first-and-last-frame form, as in the UCR suite): every path starts in (0, 0) and
ends in (n-1, m-1), so ``D >= m(1) d(0, 0) + w_end d(n-1, m-1)``, where ``w_end`` is the
smallest weight a move gives the cell it ends in. Valid for every step pattern and every local
cost that is >= 0 (euclidean, sqeuclidean, cosine).

**LB_Keogh** with the band: row i of every path stays inside the band, in columns
``lo_i..hi_i``, so a cell of row i costs at least the distance from ``x_i`` to the box
``[L_i, U_i]`` spanned feature by feature by ``y_lo_i, ..., y_hi_i`` (the envelope of y). That
box distance is a lower bound of the local cost only for ``metric="euclidean"`` or
``"sqeuclidean"``. Summing over rows needs to know how a pattern's weights fall on rows and
columns:

* ``asymmetric``, ``asymmetricP1``: every row carries total weight exactly 1, so
  ``D >= sum_i box(x_i)`` (**rows**; columns may be skipped, so they give nothing);
* ``symmetric2``, ``symmetricP1``: each cell's weight is 1 for entering a new row plus 1 for
  entering a new column (a diagonal step weighs 2, a horizontal or vertical one 1, the first
  cell 2; the P1 moves the same), so ``D >= sum_i box(x_i) + sum_j box(y_j)``, the second sum
  taken against the envelope of x around each column (**rows + columns**);
* ``symmetric1``: every cell weighs 1 and a diagonal step enters a row and a column at once,
  so only ``D >= max(rows, columns)``.

:func:`lb_keogh` computes this bound. Other step patterns raise ``ValueError`` naming
``step_pattern``. ``"gaussian_nll"`` costs can be negative, so no bound and no early abandoning
holds for it (``ValueError`` naming ``metric``).

**Leading features** (an option of :func:`nearest_templates`): with (squared) Euclidean local
costs, leaving features out lowers every local cost, so the DTW on the first K features is a
lower bound of the DTW on all of them. It costs about K / d of the full one and is tight when
those features carry most of the differences, as the 13 static MFCCs do beside their deltas.

**Exactness.** Bounds and DTW are sums computed in floating point, in different orders. A search
skips a template only when its bound exceeds the best distance so far by more than the worst-case
round-off of such sums (a relative margin of ``4 (n + m + d + 4)`` machine epsilons, about
``1e-13`` for the digits), so a skipped template would have been strictly worse: the pruned
searches return the same indices and bit-for-bit the same distances as the exhaustive ones
(:func:`course_lib.dtw.distance_matrix.dtw_distance_matrix`,
:func:`course_lib.dtw.subsequence.subsequence_dtw`), whose compiled pair computation they
share. Ties go to the lowest index.

The border: which bound holds for which metric and step pattern. LB_Kim and early abandoning
need local costs >= 0; LB_Keogh needs (squared) Euclidean costs and one of the step patterns
whose weights fall on rows and columns as its sum assumes (above; Keogh & Ratanamahatana 2005).
The searches check this once, here, and refuse anything else by the user's argument name; the
settings their compiled kernels take (the codes of pattern and normalisation, the band, the
slots of template lengths) are prepared here too. The kernels themselves, which run the
bounds, the cascade and early abandoning, are in :mod:`course_lib.dtw.pruning`.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass

from ..validation import as_bool, as_positive_int, check_choice
from .local_costs import _frame_norms, _metric_terms
from .pruning import (_QUERY_SIDE, _TEMPLATE_SIDE, _band_reach, _keogh_scratch, _nearest_kernel,
                       _one_sided_keogh, _rounding_margin, _subsequence_rows, kim_raw, normaliser)
from .alignment import (NoWarpingPathError, _NO_PATH, _as_band, as_sequence, as_sequence_list,
                        _check_same_dim, _concatenate_sequences, _pack_sequences, backtrack)
from .step_patterns import ASYMMETRIC_P1, STEP_PATTERNS, StepPattern, get_step_pattern
from .subsequence import SubsequenceMatch, _subsequence_pattern


__all__ = ["lb_kim", "lb_keogh", "NearestTemplates", "nearest_templates", "SubsequenceSearch",
           "subsequence_search", "supports_lower_bounds"]

# --------------------------------------------------------------------------------------------
# The two bounds for one pair
# --------------------------------------------------------------------------------------------

def lb_kim(x, y, *, metric: str = "euclidean",
           step_pattern: str | StepPattern = "symmetric2") -> float:
    """LB_Kim: a lower bound of ``dtw_distance(x, y, step_pattern=..., metric=...)`` for any band.

    ``(m(1) d(0, 0) + w_end d(n-1, m-1)) / M_phi`` with ``w_end`` the smallest weight a move
    gives its end cell (only the first term when both sequences have one frame); see the module
    docstring. Valid for every step pattern; ``metric`` must give costs >= 0 (euclidean,
    sqeuclidean, cosine). The bound itself: :func:`course_lib.dtw.pruning.kim_raw`.
    """
    _check_kim_metric(metric)
    pattern = get_step_pattern(step_pattern)
    x, y, local = _pair_inputs(x, y, metric)
    n, m = x.shape[0], y.shape[0]
    raw = kim_raw(x, _frame_norms(x, local[0]), np.ascontiguousarray(y.T),
                  _frame_norms(y, local[0]), local, pattern.start_weight, _end_weight(pattern),
                  np.empty(m))
    return float(raw / normaliser(_NORMALISATION_CODE[pattern.normalisation], n, m))


def lb_keogh(x, y, *, band: int | None, metric: str = "euclidean",
             step_pattern: str | StepPattern = "symmetric2") -> float:
    """LB_Keogh: a lower bound of ``dtw_distance(x, y, band=band, step_pattern=..., metric=...)``.

    The box distances of the frames of x to the envelope of y inside the band (``band=None``: the
    whole of y), and of the frames of y to the envelope of x, combined as the step pattern
    allows: x's frames only (asymmetric, asymmetricP1), the sum of both (symmetric2,
    symmetricP1) or the larger one (symmetric1), then divided by ``M_phi``; see the module
    docstring. ``metric``: euclidean or sqeuclidean. A narrower band gives a tighter bound. The
    box distances: :func:`course_lib.dtw.pruning._keogh_terms`.
    """
    _check_keogh_metric(metric)
    pattern = get_step_pattern(step_pattern)
    combination = _keogh_combination(pattern)
    radius = _as_band(band)
    x, y, (code, _, _) = _pair_inputs(x, y, metric)
    n, m = x.shape[0], y.shape[0]
    r = _effective_band(radius, max(n, m))
    x_t, y_t = np.ascontiguousarray(x.T), np.ascontiguousarray(y.T)
    scratch = _keogh_scratch(n, m, x.shape[1], r)
    a, b = _band_reach(n, m, r)
    rows = _one_sided_keogh(x_t, y_t, a, b, code, scratch, np.empty(n + 1))
    if combination == _ROWS:
        raw = rows
    else:  # seen from y, the band reaches b to the left and a to the right
        columns = _one_sided_keogh(y_t, x_t, b, a, code, scratch, np.empty(m + 1))
        raw = rows + columns if combination == _ROWS_PLUS_COLUMNS else max(rows, columns)
    return float(raw / normaliser(_NORMALISATION_CODE[pattern.normalisation], n, m))


# --------------------------------------------------------------------------------------------
# Nearest template
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class NearestTemplates:
    """The nearest template of each query, and how much DTW the search avoided.

    ``index`` (Q,): template index (-1 when the query has no warping path to any template and
    ``on_no_path="inf"``); ``distance`` (Q,): its DTW distance, equal to the exhaustive
    ``dtw_distance_matrix(...).min(axis=1)``. Every query-template pair is counted exactly once:
    ``pruned_by_kim`` (LB_Kim exceeded the best so far), ``pruned_by_keogh`` (LB_Keogh did),
    ``abandoned`` (DTW started but stopped early) or ``computed_in_full``; they add up to
    ``n_pairs``.
    """

    index: np.ndarray
    distance: np.ndarray
    n_pairs: int
    pruned_by_kim: int
    pruned_by_keogh: int
    abandoned: int
    computed_in_full: int

    @property
    def pruning_rate(self) -> float:
        """Fraction of the pairs whose DTW never started: ``(pruned_by_kim + pruned_by_keogh) /
        n_pairs`` (abandoned pairs did part of the work and are not counted)."""
        return (self.pruned_by_kim + self.pruned_by_keogh) / self.n_pairs


def nearest_templates(queries, templates, *, band: int | None,
                      step_pattern: str | StepPattern = "symmetric2", metric: str = "euclidean",
                      lower_bounds: bool = True, early_abandon: bool = True,
                      leading_features: int | None = None, on_no_path: str = "raise",
                      parallel: bool = False) -> NearestTemplates:
    """The template nearest (in DTW distance) to each query, found with pruning.

    Same answer as ``dtw_distance_matrix(queries, templates, band=band, step_pattern=...,
    metric=...)`` followed by ``argmin`` / ``min`` along each row: the same index (the lowest
    one on ties) and the same distance to the last bit. For each query the templates are
    visited in order of LB_Kim, so a close one usually comes first, then:

    * ``lower_bounds``: a template is skipped when LB_Kim, then LB_Keogh with the band, exceeds
      the best distance so far. The search uses one side of LB_Keogh: for symmetric1,
      symmetric2 and symmetricP1 the template's frames against the envelope of the query (the
      classic form; the envelope is computed once per template length), for asymmetric and
      asymmetricP1, which may skip template frames, the query's frames against each template's
      envelope;
    * ``early_abandon``: a DTW stops once no cell of a row, plus the LB_Keogh terms of the
      frames the path must still cross, can finish below the best so far;
    * ``leading_features=K``: each DTW first runs on the first K features only (a lower bound,
      about K / d of the cost) and is abandoned there if it can; the full DTW runs only for
      the templates that survive. Worth it when the first features carry most of the
      differences, e.g. ``K = 13`` for MFCCs followed by their deltas.

    See the module docstring for the bounds and their validity. ``lower_bounds=True`` and
    ``leading_features`` need ``metric`` "euclidean" or "sqeuclidean", and ``lower_bounds`` one
    of the five shipped step patterns; early abandoning alone works with any pattern and
    "cosine" too. "gaussian_nll" is refused (its costs can be negative). A query with no warping
    path to any template raises :class:`~course_lib.dtw.alignment.NoWarpingPathError`
    (``on_no_path="raise"``) or gets index -1 and distance +inf (``"inf"``). ``parallel=True``
    spreads the queries over numba threads. Returns a :class:`NearestTemplates` with the counts
    of what was pruned.
    """
    queries = as_sequence_list(queries, "queries")
    templates = as_sequence_list(templates, "templates")
    _check_same_dim(queries[0], templates[0], "queries", "templates")
    dim = queries[0].shape[1]
    pattern = get_step_pattern(step_pattern)
    r = _effective_band(_as_band(band), max(len(s) for s in queries + templates))
    lower_bounds = as_bool(lower_bounds, "lower_bounds")
    early_abandon = as_bool(early_abandon, "early_abandon")
    parallel = as_bool(parallel, "parallel")
    check_choice(on_no_path, "on_no_path", {"raise", "inf"})
    keogh, leading = _search_options(metric, pattern, lower_bounds, leading_features, dim)
    x_all, x_off = _concatenate_sequences(queries)
    y_all, y_off = _concatenate_sequences(templates)
    local = _metric_terms(metric, None, x_all, y_all, ("queries", "templates"),
                         per_frame_ok=False)
    search = (pattern.is_symmetric, _NORMALISATION_CODE[pattern.normalisation],
              _end_weight(pattern), keogh, lower_bounds, early_abandon, leading,
              *_length_slots(np.diff(y_off)))
    index = np.empty(len(queries), dtype=np.int64)
    distance = np.empty(len(queries))
    counts = np.zeros((len(queries), 4), dtype=np.int64)
    _nearest_kernel(parallel)(
        _pack_sequences(x_all, x_off, local[0]), _pack_sequences(y_all, y_off, local[0]),
        np.ascontiguousarray(y_all[:, :leading]), local, r, pattern.kernel_form(), search, index,
        distance, counts)
    hopeless = np.flatnonzero(index < 0)
    if hopeless.size and on_no_path == "raise":
        raise NoWarpingPathError(f"queries: query {int(hopeless[0])} has no warping path to any "
                                 f"template ({hopeless.size} such queries; check band / "
                                 f"step_pattern, or pass on_no_path='inf')")
    pruned_kim, pruned_keogh, abandoned, full = (int(c) for c in counts.sum(axis=0))
    return NearestTemplates(index, distance, len(queries) * len(templates), pruned_kim,
                            pruned_keogh, abandoned, full)


# --------------------------------------------------------------------------------------------
# Query-by-example over many references
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class SubsequenceSearch:
    """The best matches of one query over many references, best first.

    ``reference[k]`` is the index of the reference holding match ``matches[k]`` (a
    :class:`~course_lib.dtw.subsequence.SubsequenceMatch`: start and end frame in that
    reference, distance, path), each the best match in its reference, exactly as
    :func:`~course_lib.dtw.subsequence.subsequence_dtw` finds it. Every reference is counted
    once: ``abandoned`` (its subsequence DTW stopped early) or ``computed_in_full``.
    """

    reference: np.ndarray
    matches: tuple[SubsequenceMatch, ...]
    n_references: int
    abandoned: int
    computed_in_full: int

    @property
    def distance(self) -> np.ndarray:
        """The matching cost of each match, ascending."""
        return np.array([match.distance for match in self.matches])

    @property
    def abandon_rate(self) -> float:
        """Fraction of references whose subsequence DTW stopped early."""
        return self.abandoned / self.n_references


def subsequence_search(query, references, *, n_best: int = 1,
                       step_pattern: str | StepPattern = "asymmetric",
                       metric: str = "euclidean", early_abandon: bool = True
                       ) -> SubsequenceSearch:
    """Query-by-example over many references: the ``n_best`` references whose best match of
    ``query`` costs least, with early abandoning.
    Lecture 01, section 11 (Making DTW fast: lower bounds and early abandoning).

    For each reference in turn, subsequence DTW
    (:func:`course_lib.dtw.subsequence.subsequence_dtw`: free start and end, ``step_pattern``
    normalised by the query length or not at all) runs row by row, and stops as soon as no
    match can beat the ``n_best``-th best matching cost found so far (``early_abandon``). The
    result is the exhaustive one: the same references, matches and costs, ranked by cost and
    then by reference index. Every reference must be at least as long as the query; ``metric``
    must give costs >= 0 (euclidean, sqeuclidean, cosine).
    """
    query, references, n_best, early_abandon, pattern, local = _subsequence_inputs(
        query, references, n_best, early_abandon, step_pattern, metric)
    n, dim = query.shape
    query_norm = _frame_norms(query, local[0])
    kernel_pattern = pattern.kernel_form()
    scale = float(n) if pattern.normalisation == "n" else 1.0  # M_phi, the same for every match
    best: list[tuple[float, int, SubsequenceMatch]] = []
    abandoned = 0
    for k, reference in enumerate(references):
        cutoff = np.inf
        if early_abandon and len(best) == n_best:
            cutoff = best[-1][0] * scale * (1.0 + _rounding_margin(n, reference.shape[0], dim))
        match, stopped = _best_match(query, query_norm, reference, local, pattern,
                                     kernel_pattern, scale, cutoff)
        abandoned += stopped
        if match is not None:
            best.append((match.distance, k, match))
            best.sort(key=lambda item: (item[0], item[1]))
            del best[n_best:]
    if not best:
        raise NoWarpingPathError(f"step_pattern: {pattern.name!r} cannot match the query "
                                 f"({n} frames) anywhere in any reference")
    return SubsequenceSearch(np.array([k for _, k, _ in best], dtype=np.int64),
                             tuple(match for _, _, match in best), len(references), abandoned,
                             len(references) - abandoned)


def _best_match(query, query_norm, reference, local, pattern, kernel_pattern, scale, cutoff):
    """``(match, abandoned)``: the best match of the query in one reference, as
    :func:`course_lib.dtw.subsequence.subsequence_dtw` finds it, or None when the subsequence
    DTW was abandoned at ``cutoff`` (then ``abandoned``) or no path places the query there."""
    n, m = query.shape[0], reference.shape[0]
    d = np.empty((n, m))
    D = np.full((n, m), np.inf)
    steps = np.full((n, m), _NO_PATH, dtype=np.int8)
    if not _subsequence_rows(query, query_norm, np.ascontiguousarray(reference.T),
                            _frame_norms(reference, local[0]), local, kernel_pattern, cutoff,
                            d, D, steps):
        return None, True
    matching_cost = D[n - 1] / scale
    if not np.any(np.isfinite(matching_cost)):
        return None, False
    end = int(np.argmin(matching_cost))
    path = backtrack(steps, n - 1, end, pattern)
    return SubsequenceMatch(int(path[0, 1]), end, float(matching_cost[end]), path), False


# How the LB_Keogh row and column sums combine for each pattern (course_lib.dtw.search).
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
    check_choice(metric, "metric", set(_KIM_METRICS) | {"gaussian_nll"})
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


def supports_lower_bounds(step_pattern: str | StepPattern, metric: str) -> bool:
    """Whether LB_Keogh (so ``nearest_templates(lower_bounds=True)``) holds for this step
    pattern and metric (see the docstring of :mod:`course_lib.dtw.search`)."""
    return get_step_pattern(step_pattern) in _KEOGH_COMBINATION and metric in _KEOGH_METRICS


def _effective_band(r: int, longest: int) -> int:
    """The band radius for the compiled code from a checked one (:func:`course_lib.dtw.alignment._as_band`):
    -1 (no band) also for a radius that reaches every cell anyway (r >= max(n, m) - 1), so
    envelope windows stay as small as the sequences."""
    return -1 if r >= longest - 1 else r


def _end_weight(pattern: StepPattern) -> float:
    """The smallest weight a move gives the cell it ends in (the last cell of every path)."""
    return min(cells[-1][2] for _, cells in pattern.moves)


def _pair_inputs(x, y, metric):
    """``x`` and ``y`` checked as sequences of one dimension, and the local-distance terms."""
    x, y = as_sequence(x, "x"), as_sequence(y, "y")
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
    """``(keogh, leading)`` of :func:`course_lib.dtw.search.nearest_templates`: which side of
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
        leading = as_positive_int(leading_features, "leading_features", maximum=dim)
        if metric not in _KEOGH_METRICS:
            raise ValueError(f"leading_features: a DTW on fewer features bounds the full one "
                             f"only for metric {list(_KEOGH_METRICS)}, got {metric!r}")
    return keogh, leading


def _subsequence_inputs(query, references, n_best, early_abandon, step_pattern, metric):
    """The arguments of :func:`course_lib.dtw.search.subsequence_search`, checked, with the step
    pattern and the local-distance terms."""
    query = as_sequence(query, "query")
    references = as_sequence_list(references, "references")
    _check_same_dim(query, references[0], "query", "references")
    n_best = as_positive_int(n_best, "n_best")
    early_abandon = as_bool(early_abandon, "early_abandon")
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
