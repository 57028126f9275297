"""Many against many (Unit 1): the DTW distance of every query to every template.

The recursion, step patterns, band and normalisation are those of :mod:`course_lib.dtw.alignment`; this
room runs them over many pairs in one compiled loop. :func:`_pair_dtw` computes one pair, with
local costs a row at a time inside the band and, for the unit-step patterns (symmetric1,
symmetric2), two rows of D (:func:`_unit_step_row`) instead of the whole matrix; it can abandon
a pair once no path can finish below a cutoff. The pruned searches of :mod:`course_lib.dtw.search`
reuse it, so they give the very numbers of :func:`dtw_distance_matrix`, which gives those of
:func:`course_lib.dtw.alignment.dtw`.

numba's on-disk cache of a kernel here is rebuilt only when this file changes, not when the
kernels it inlines from :mod:`course_lib.dtw.alignment` (the recursion, the band) or
:mod:`course_lib.dtw.local_costs` do: after editing those, clear the cache (``course_lib/__pycache__``).
tests/dtw/test_distance_matrix.py compares the matrix bit for bit with :func:`course_lib.dtw.alignment.dtw`, which
compiles from those very files.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from .alignment import NoWarpingPathError, accumulate_row, _as_band, _no_path_error, row_limits
from .local_costs import _local_cost_two_rows, _metric_terms
from .alignment import (as_sequence_list, _check_same_dim, _concatenate_sequences, _pack_sequences,
                        _sequence_block)
from .step_patterns import StepPattern, get_step_pattern
from ..validation import check_choice

__all__ = ["dtw_distance_matrix"]


def dtw_distance_matrix(queries, templates=None, *,
                        step_pattern: str | StepPattern = "symmetric2",
                        metric: str = "euclidean", band: int | None = None, variances=None,
                        normalise: bool | None = None, on_no_path: str = "raise",
                        parallel: bool = False) -> np.ndarray:
    """DTW distances between every query and every template, shape ``(Q, T)``.

    ``queries`` and ``templates`` are lists of ``(n_k, d)`` sequences. With ``templates=None``
    the all-pairs ``(Q, Q)`` matrix of ``queries`` is returned; when the step pattern and the
    metric are symmetric each pair is computed once and mirrored.

    All pairs run in one compiled loop over the concatenated sequences (no Python loop per
    pair); ``parallel=True`` spreads the pairs over numba threads. ``normalise``: None divides
    by ``M_phi`` when the pattern has one (see :mod:`course_lib.dtw.alignment`), True requires it, False
    returns the raw ``D(n-1, m-1)``. ``variances`` (gaussian_nll) must be shared, shape
    ``(d,)``. Pairs without a warping path raise
    :class:`~course_lib.dtw.alignment.NoWarpingPathError` (``on_no_path="raise"``) or get ``+inf``
    (``on_no_path="inf"``).
    """
    queries = as_sequence_list(queries, "queries")
    all_pairs = templates is None
    templates = queries if all_pairs else as_sequence_list(templates, "templates")
    _check_same_dim(queries[0], templates[0], "queries", "templates")
    pattern = get_step_pattern(step_pattern)
    r = _as_band(band)
    check_choice(on_no_path, "on_no_path", {"raise", "inf"})
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel: expected True or False, got {type(parallel).__name__}")
    if normalise not in (None, True, False):
        raise TypeError(f"normalise: expected None, True or False, got {normalise!r}")
    if normalise and pattern.normalisation == "none":
        raise ValueError(f"normalise: step pattern {pattern.name!r} admits no normalisation "
                         f"(its path weight sum depends on the path); use normalise=False")
    x_all, x_off = _concatenate_sequences(queries)
    y_all, y_off = (x_all, x_off) if all_pairs else _concatenate_sequences(templates)
    local = _metric_terms(metric, variances, x_all, y_all, ("queries", "templates"),
                         per_frame_ok=False)
    n_q, n_t = len(queries), len(templates)
    mirrored = all_pairs and pattern.is_symmetric and metric != "gaussian_nll"
    if mirrored:
        pair_x, pair_y = np.triu_indices(n_q)
    else:
        pair_x, pair_y = np.indices((n_q, n_t)).reshape(2, -1)
    pair_x, pair_y = pair_x.astype(np.int64), pair_y.astype(np.int64)
    raw = np.empty(len(pair_x))
    kernel = _parallel_kernel() if parallel else _pair_distances_serial
    kernel(_pack_sequences(x_all, x_off, local[0]), _pack_sequences(y_all, y_off, local[0]), pair_x,
           pair_y, _pair_chunks(len(raw), parallel), local, r, pattern.kernel_form(),
           pattern.is_symmetric and metric != "gaussian_nll", raw)
    if on_no_path == "raise" and not np.all(np.isfinite(raw)):
        p = int(np.flatnonzero(~np.isfinite(raw))[0])
        err = _no_path_error(pattern, band, len(queries[pair_x[p]]), len(templates[pair_y[p]]))
        raise NoWarpingPathError(f"{err} [query {pair_x[p]}, template {pair_y[p]}]")
    if normalise is not False and pattern.normalisation != "none":
        n_len = np.diff(x_off)[pair_x]
        m_len = np.diff(y_off)[pair_y]
        raw = raw / (n_len + m_len if pattern.normalisation == "n+m" else n_len)
    out = np.empty((n_q, n_t))
    out[pair_x, pair_y] = raw
    if mirrored:
        out[pair_y, pair_x] = raw
    return out


def _parallel_kernel():
    global _pair_distances_parallel
    if _pair_distances_parallel is None:
        _pair_distances_parallel = njit(parallel=True)(_pair_distances)
    return _pair_distances_parallel


def _pair_chunks(n_pairs: int, parallel: bool) -> np.ndarray:
    """Boundaries of consecutive runs of pairs: one run, or a few per numba thread so that
    threads which draw short pairs can pick up more."""
    n_runs = min(n_pairs, 8 * numba.get_num_threads()) if parallel else 1
    return np.linspace(0, n_pairs, n_runs + 1).round().astype(np.int64)


# --------------------------------------------------------------------------------------------
# Compiled kernels: one pair, then a run of pairs
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _unit_step_row(i, d, j_lo, j_hi, unit, start_weight, prev, cur, rest):
    """Row i of the recursion when the moves are (1, 1), (0, 1), (1, 0) only: two rows of D.
    Lecture 01, section 3 (The dynamic programme, step patterns and normalisation).

    ``unit = (w_diag, w_across, w_down)``, ``d`` the local costs of row i;
    ``prev[j + 1] = D(i - 1, j)`` and ``cur[j + 1] = D(i, j)``, index 0 standing for column -1.
    Both rows must start filled with +inf, so a cell outside the band never offers a way in.
    Each D(i, j) is the minimum of the same three sums as in
    :func:`~course_lib.dtw.alignment.accumulate_row`, so the values are identical. Returns the row's lowest
    ``D(i, j) + rest[j + 1]`` (for early abandoning, see :func:`_row_floor`; found on the way,
    the chain along the row is the slow part anyway).
    """
    cost = d[j_lo:j_hi + 1]
    up = prev[j_lo:j_hi + 2]        # up[t] = D(i - 1, j_lo + t - 1)
    here = cur[j_lo + 1:j_hi + 2]   # here[t] = D(i, j_lo + t)
    w_diag, w_across, w_down = unit[0], unit[1], unit[2]
    # the two moves from row i - 1 do not depend on each other: one pass that vectorises
    for t in range(cost.shape[0]):
        here[t] = min(up[t] + w_diag * cost[t], up[t + 1] + w_down * cost[t])
    if i == 0:
        here[0] = start_weight * cost[0]
    # the move along the row chains from cell to cell
    rest_after = rest[j_lo + 1:j_hi + 2]
    left = floor = np.inf
    for t in range(cost.shape[0]):
        left = min(here[t], left + w_across * cost[t])
        here[t] = left
        floor = min(floor, left + rest_after[t])
    return floor


@njit(cache=True)
def _row_floor(D_row, j_lo, rest_row, rest_cols):
    """Lowest ``D(i, j) + rest_row + rest_cols[j + 1]`` over the cells j_lo.. of row i: when
    the two rests bound together what a path must still pay after (i, j), no path through this
    row ends below it."""
    rest = rest_cols[j_lo + 1:j_lo + 1 + D_row.shape[0]]
    floor = np.inf
    for t in range(D_row.shape[0]):
        floor = min(floor, D_row[t] + rest[t])
    return floor + rest_row


@njit(cache=True)
def _pair_dtw(x, x_norm, y_t, y_norm, local, band, pattern, cost_buf, acc_buf, cutoff, rest_rows,
             rest_cols):
    """``(D(n - 1, m - 1), abandoned)`` of ``x`` (n, d) against y, given as ``y_t`` (d, m) (see
    :func:`~course_lib.dtw.local_costs.local_cost_row`); D = +inf when no path arrives. ``local`` as
    :func:`~course_lib.dtw.local_costs._metric_terms` returns it, ``pattern`` as
    :meth:`~course_lib.dtw.step_patterns.StepPattern.kernel_form` does.

    The one pair computation behind :func:`dtw_distance_matrix` and the pruned searches of
    :mod:`course_lib.dtw.search`, so both give identical numbers. Local costs are computed a
    row at a time, inside the band only; unit-step patterns (``unit`` non-empty, see
    :meth:`~course_lib.dtw.step_patterns.StepPattern.kernel_form`) keep two rows of D, the others the whole
    matrix. ``cost_buf`` and ``acc_buf`` are scratch space of at least max(n m, 2 m) and
    max(n m, 2 (m + 1)) numbers.

    Early abandoning (``cutoff`` < inf, same scale as D): D never decreases along a path
    (local costs >= 0), every path to the end cell passes through each row (through one of
    every two neighbouring rows if a move advances two rows), and after (i, j) it still pays at
    least ``rest_rows[i + 1] + rest_cols[j + 1]`` (zeros when there are no bounds). Once no
    cell of those rows can finish at or below ``cutoff`` the pair stops with ``(+inf, True)``.
    """
    n, m = x.shape[0], y_t.shape[1]
    moves, start_weight, unit = pattern
    unit_steps = unit.shape[0] > 0
    move_di, move_dj, move_w, mid_di, mid_dj, mid_w = moves
    # unit steps: two cost rows and two rows of D; other patterns: the whole matrices
    d = cost_buf[:n * m].reshape((n, m))
    D = acc_buf[:n * m].reshape((n, m))
    prev, cur = acc_buf[:m + 1], acc_buf[m + 1:2 * m + 2]
    if unit_steps:
        prev[:] = np.inf
        cur[:] = np.inf
    else:
        D[:] = np.inf
    no_steps = np.empty((1, 1), dtype=np.int8)
    rows_per_move = 1 if unit_steps else np.max(move_di)
    floors = np.full(n, np.inf)  # row floors, for moves that jump over a row
    for i in range(n):
        j_lo, j_hi = row_limits(i, n, m, band)
        costs = cost_buf[(i % 2) * m:(i % 2 + 1) * m] if unit_steps else d[i]
        if i % 2 == 0:  # rows i and i + 1 are computed together
            _local_cost_two_rows(x, x_norm, i, y_t, y_norm, local, (j_lo, j_hi),
                                row_limits(min(i + 1, n - 1), n, m, band), costs,
                                cost_buf[m:2 * m] if unit_steps else d[min(i + 1, n - 1)])
        if unit_steps:
            floors[i] = _unit_step_row(i, costs, j_lo, j_hi, unit, start_weight, prev, cur,
                                       rest_cols) + rest_rows[i + 1]
            prev, cur = cur, prev
        else:
            # literal False on purpose: numba compiles accumulate_row for it without the
            # bookkeeping of steps, ~6% faster than with run-time flags
            accumulate_row(i, d, j_lo, j_hi, move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                           start_weight, False, D, no_steps, False)
            if cutoff < np.inf:
                floors[i] = _row_floor(D[i, j_lo:j_hi + 1], j_lo, rest_rows[i + 1], rest_cols)
        if cutoff < np.inf and (floors[i] if rows_per_move == 1 else np.min(
                floors[max(0, i - rows_per_move + 1):i + 1])) > cutoff:
            return np.inf, True
    return (prev[m] if unit_steps else D[n - 1, m - 1]), False


def _pair_distances(queries, templates, pair_x, pair_y, chunks, local, band, pattern,
                    transposable, out):
    """out[p] = D(n-1, m-1) of query pair_x[p] against template pair_y[p] (+inf: no path).

    Queries and templates come packed by :func:`~course_lib.dtw.alignment._pack_sequences`;
    ``chunks`` splits the pairs into consecutive runs, one task each with parallel=True, and each
    run allocates its scratch space once. When D is the same for the transposed matrix
    (``transposable``: a symmetric pattern and metric), the shorter sequence gives the rows: they
    are then wider, which suits the vectorised cost loop.
    """
    x_all, x_off, x_blocks, x_norm = queries
    y_all, y_off, y_blocks, y_norm = templates
    moves, start_weight, unit = pattern  # a parallel loop takes no nested tuple
    max_n = np.max(x_off[1:] - x_off[:-1])
    max_m = np.max(y_off[1:] - y_off[:-1])
    longest = max(max_n, max_m)
    no_bound = np.zeros(longest + 1)
    for c in prange(chunks.shape[0] - 1):
        cost_buf = np.empty(max(max_n * max_m, 2 * longest))
        acc_buf = np.empty(max(max_n * max_m, 2 * longest + 2))
        for p in range(chunks[c], chunks[c + 1]):
            a, b = pair_x[p], pair_y[p]
            xs, ys = slice(x_off[a], x_off[a + 1]), slice(y_off[b], y_off[b + 1])
            if transposable and y_off[b + 1] - y_off[b] < x_off[a + 1] - x_off[a]:
                rows, rows_norm = y_all[ys], y_norm[ys]
                cols_t, cols_norm = _sequence_block(x_blocks, x_off, a), x_norm[xs]
            else:
                rows, rows_norm = x_all[xs], x_norm[xs]
                cols_t, cols_norm = _sequence_block(y_blocks, y_off, b), y_norm[ys]
            out[p] = _pair_dtw(rows, rows_norm, cols_t, cols_norm, local, band,
                              (moves, start_weight, unit), cost_buf, acc_buf, np.inf, no_bound,
                              no_bound)[0]


_pair_distances_serial = njit(cache=True)(_pair_distances)


_pair_distances_parallel = None  # compiled on first use of parallel=True (not cached)
