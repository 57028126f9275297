"""Compiled kernels of the pruned DTW searches: the engine behind :mod:`course_lib.dtw_search`.

What they compute and why it is exact (the lower bounds, early abandoning, the rounding margin)
is in the docstring of :mod:`course_lib.dtw_search`; the recursion they run is
:func:`course_lib.dtw.accumulate_row` and the pair computation
:func:`course_lib.dtw_matrix.pair_dtw`.

The envelopes LB_Keogh measures against (running extremes over the band's windows) are built
in :mod:`course_lib.dtw_envelope`.

numba's on-disk cache of a kernel here is rebuilt only when this file changes, not when the
kernels it inlines from :mod:`course_lib.dtw`, :mod:`course_lib.dtw_matrix`,
:mod:`course_lib.dtw_costs`, :mod:`course_lib.dtw_envelope` or :mod:`course_lib.dtw_sequences`
do: after editing those, clear the cache (``course_lib/__pycache__``). A stale cache cannot pass
unnoticed: tests/test_dtw_search.py compares every search with the exhaustive one, which
compiles from those very files.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .dtw import accumulate_row
from .dtw_costs import local_cost_row
from .dtw_envelope import (_band_reach, _extreme_tables, _keogh_scratch, _levels_for,
                           _window_extremes)
from .dtw_matrix import _pair_dtw
from .dtw_sequences import _sequence_block


@njit(cache=True)
def normaliser(code, n, m):
    """M_phi for the normalisation codes 0 (none: 1), 1 (n + m), 2 (n)."""
    if code == 1:
        return float(n + m)
    if code == 2:
        return float(n)
    return 1.0


@njit(cache=True)
def _rounding_margin(n, m, dim):
    """Relative slack when comparing a bound with a best-so-far distance: more than the
    round-off of sums of n + m local costs of d features each (see course_lib.dtw_search)."""
    return 4.0 * (n + m + dim + 4) * np.finfo(np.float64).eps


@njit(cache=True)
def kim_raw(x, x_norm, y_t, y_norm, local, start_weight, end_weight, cost_buf):
    """LB_Kim before normalisation, from the very local costs DTW uses for those two cells."""
    n, m = x.shape[0], y_t.shape[1]
    bound = 0.0
    for last in range(2 if n > 1 or m > 1 else 1):  # one cell when both have one frame
        i, j = (n - 1, m - 1) if last else (0, 0)
        local_cost_row(x[i], x_norm[i], y_t, y_norm, local, j, j, cost_buf)
        bound += (end_weight if last else start_weight) * cost_buf[j]
    return bound


@njit(cache=True)
def _keogh_terms(frames_t, upper, lower, metric, rest):
    """Box distances of the frames (columns of ``frames_t``, (d, L)) to the boxes
    ``[lower[:, i], upper[:, i]]``; ``rest[i]`` becomes their sum over frames i.. (``rest[L] =
    0``), a bound on what frames i.. still cost a path, and ``rest[0]`` is returned.

    Feature by feature the gap to the box is at most the difference to any frame inside it,
    and the squared gaps are added in the same order as a local cost, so a term is at most the
    local cost (euclidean, code 0, or sqeuclidean) of any cell its frame has in the band.
    """
    dim, length = frames_t.shape
    squares = rest[:length]
    squares[:] = 0.0
    for k in range(dim):
        values, hi, lo = frames_t[k], upper[k], lower[k]
        for i in range(length):
            gap = max(values[i] - hi[i], lo[i] - values[i], 0.0)
            squares[i] += gap * gap
    rest[length] = 0.0
    for i in range(length - 1, -1, -1):
        rest[i] = rest[i + 1] + (np.sqrt(squares[i]) if metric == 0 else squares[i])
    return rest[0]


@njit(cache=True)
def _one_sided_keogh(frames_t, other_t, a, b, metric, scratch, rest):
    """Sum of the box distances of the frames (columns of ``frames_t``) to the envelope of the
    other sequence over the window ``i - a .. i + b`` of each (``rest`` filled as in
    :func:`_keogh_terms`)."""
    tables_hi, tables_lo, upper_buf, lower_buf = scratch
    dim, n_rows = frames_t.shape
    length = a + b + n_rows
    _extreme_tables(other_t, a, length, _levels_for(a + b + 1), tables_hi, tables_lo)
    upper = upper_buf[:dim * n_rows].reshape((dim, n_rows))
    lower = lower_buf[:dim * n_rows].reshape((dim, n_rows))
    _window_extremes(tables_hi, tables_lo, length, a, a, b, upper, lower)
    return _keogh_terms(frames_t, upper, lower, metric, rest)


_QUERY_SIDE, _TEMPLATE_SIDE = 1, 2  # which side of LB_Keogh a nearest-template search uses


@njit(cache=True)
def _query_envelopes(x_t, band, slot_lengths, keogh):
    """The query's envelope for each template length (LB_Keogh's QUERY_SIDE), from one set of
    extreme tables: slot s is ``upper``/``lower`` ``[start[s]:start[s + 1]]``, (d, m_s) each.
    Empty unless ``keogh`` is QUERY_SIDE."""
    if keogh != _QUERY_SIDE:
        return np.empty(0), np.empty(0), np.zeros(1, dtype=np.int64)
    dim, n = x_t.shape
    start = np.zeros(slot_lengths.shape[0] + 1, dtype=np.int64)
    start[1:] = np.cumsum(slot_lengths) * dim
    upper, lower = np.empty(start[-1]), np.empty(start[-1])
    pad_left, length, widest = 0, 0, 1
    for m in slot_lengths:  # seen from a template frame the band reaches b left, a right
        a, b = _band_reach(n, m, band)
        pad_left, widest = max(pad_left, b), max(widest, a + b + 1)
    for m in slot_lengths:
        a, b = _band_reach(n, m, band)
        length = max(length, pad_left + a + m)
    tables_hi = np.empty(_levels_for(widest) * dim * length)
    tables_lo = np.empty(_levels_for(widest) * dim * length)
    _extreme_tables(x_t, pad_left, length, _levels_for(widest), tables_hi, tables_lo)
    for s in range(slot_lengths.shape[0]):
        m = slot_lengths[s]
        a, b = _band_reach(n, m, band)
        _window_extremes(tables_hi, tables_lo, length, pad_left, b, a,
                         upper[start[s]:start[s + 1]].reshape((dim, m)),
                         lower[start[s]:start[s + 1]].reshape((dim, m)))
    return upper, lower, start


@njit(cache=True)
def _kim_bounds(x, x_norm, templates, local, start_weight, end_weight, normalisation, use_kim,
                cost_buf):
    """LB_Kim of the query against every template: raw and divided by M_phi (zeros unless
    ``use_kim``)."""
    _, y_off, y_blocks, y_norm = templates
    n_t = y_off.shape[0] - 1
    kim = np.zeros(n_t)
    scaled = np.zeros(n_t)
    for t in range(n_t if use_kim else 0):
        kim[t] = kim_raw(x, x_norm, _sequence_block(y_blocks, y_off, t),
                         y_norm[y_off[t]:y_off[t + 1]], local, start_weight, end_weight,
                         cost_buf)
        scaled[t] = kim[t] / normaliser(normalisation, x.shape[0], y_off[t + 1] - y_off[t])
    return kim, scaled


@njit(cache=True)
def _keogh_bound(keogh, x_t, y_t, slot, envelopes, band, metric, scratch, rest):
    """LB_Keogh of the pair (0 when ``keogh`` is 0), with ``rest`` filled as in
    :func:`_keogh_terms`: template frames against the query's envelope of their length (slot
    ``slot`` of ``envelopes``, QUERY_SIDE) or query frames against the template's envelope
    (TEMPLATE_SIDE)."""
    if keogh == _QUERY_SIDE:
        upper, lower, start = envelopes
        dim, m = y_t.shape
        return _keogh_terms(y_t, upper[start[slot]:start[slot + 1]].reshape((dim, m)),
                            lower[start[slot]:start[slot + 1]].reshape((dim, m)), metric, rest)
    if keogh == _TEMPLATE_SIDE:
        a, b = _band_reach(x_t.shape[1], y_t.shape[1], band)
        return _one_sided_keogh(x_t, y_t, a, b, metric, scratch, rest)
    return 0.0


@njit(cache=True)
def _bounded_dtw(rows, rows_lead, rows_norm, cols_t, cols_norm, local, band, pattern, leading,
                 limit, rest_rows, rest_cols, cost_buf, acc_buf):
    """``(D(n - 1, m - 1), abandoned)`` as :func:`course_lib.dtw_matrix.pair_dtw` with cutoff
    ``limit``, first on the ``leading`` features (a cheaper lower bound) when there are fewer
    than all and a cutoff: the full DTW runs only if that one is not abandoned."""
    dim = rows.shape[1]
    first_pass = 0 if leading < dim and limit < np.inf else 1
    raw, abandoned = np.inf, False
    for full in range(first_pass, 2):
        features = dim if full else leading
        raw, abandoned = _pair_dtw(rows if full else rows_lead, rows_norm, cols_t[:features],
                                  cols_norm, local, band, pattern, cost_buf, acc_buf, limit,
                                  rest_rows, rest_cols)
        if abandoned:
            break
    return raw, abandoned


@njit(cache=True)
def _query_scratch(n, max_m, dim, band):
    """Scratch space of one query's search: the buffers of :func:`course_lib.dtw_matrix.pair_dtw`,
    LB_Keogh's terms still to come per frame (``rest``, see :func:`_keogh_terms`), zeros for
    no such bound, and the tables of :func:`course_lib.dtw_envelope.keogh_scratch`."""
    longest = max(n, max_m)
    cost_buf = np.empty(max(n * max_m, 2 * longest))
    acc_buf = np.empty(max(n * max_m, 2 * longest + 2))
    return (cost_buf, acc_buf, np.zeros(longest + 1), np.zeros(longest + 1),
            _keogh_scratch(n, max_m, dim, band))


@njit(cache=True)
def _nearest_one(x, x_t, x_norm, templates, y_lead, local, band, pattern, search, counts):
    """Index and distance of the template nearest to query x; counts[0..3] += pairs pruned by
    LB_Kim, by LB_Keogh, abandoned, computed in full (see dtw_search.nearest_templates).

    ``x`` comes as frames, as columns ``x_t`` and with its frame lengths ``x_norm``, the
    templates packed by :func:`course_lib.dtw_sequences._pack_sequences`; ``local``, ``band``
    and ``pattern`` as :func:`course_lib.dtw_matrix.pair_dtw` takes them. ``search`` holds the
    settings ``(transposable, normalisation, end_weight, keogh, use_kim, early_abandon,
    leading, slot_lengths, length_slot)``: the normalisation code of :func:`normaliser`, the
    weight of LB_Kim's last cell, and the options below.

    Templates are visited in order of increasing LB_Kim, so a good best-so-far comes early;
    ties still go to the lowest index. ``keogh``: 0 (none), QUERY_SIDE or TEMPLATE_SIDE (see
    :func:`_keogh_bound`; ``length_slot[m]`` is the slot of length m in ``slot_lengths``);
    ``leading``: see :func:`_bounded_dtw`. As in :func:`course_lib.dtw_matrix._pair_distances`, the
    shorter sequence gives the rows when ``transposable``, but only without LB_Keogh: its terms
    for what the path still owes are per template frame, and tell most along a row.
    """
    y_all, y_off, y_blocks, y_norm = templates
    (transposable, normalisation, end_weight, keogh, use_kim, early_abandon, leading,
     slot_lengths, length_slot) = search
    n, dim = x.shape
    cost_buf, acc_buf, rest, no_rest, scratch = _query_scratch(n, np.max(slot_lengths), dim,
                                                               band)
    envelopes = _query_envelopes(x_t, band, slot_lengths, keogh)
    x_lead = np.ascontiguousarray(x[:, :leading])
    kim, scaled_kim = _kim_bounds(x, x_norm, templates, local, pattern[1], end_weight,
                                  normalisation, use_kim, cost_buf)
    best, best_t = np.inf, -1
    for t in np.argsort(scaled_kim, kind="mergesort"):
        y_t = _sequence_block(y_blocks, y_off, t)
        m = y_t.shape[1]
        scale = normaliser(normalisation, n, m)
        # a pair whose bound exceeds this can neither beat nor tie the best so far
        cutoff = best * scale * (1.0 + _rounding_margin(n, m, dim))
        if use_kim and kim[t] > cutoff:
            counts[0] += 1
            continue
        if _keogh_bound(keogh, x_t, y_t, length_slot[m], envelopes, band, local[0], scratch,
                        rest) > cutoff:
            counts[1] += 1
            continue
        ys = slice(y_off[t], y_off[t + 1])
        if transposable and m < n and keogh == 0:
            rows, rows_lead, rows_norm = y_all[ys], y_lead[ys], y_norm[ys]
            cols_t, cols_norm = x_t, x_norm
        else:
            rows, rows_lead, rows_norm, cols_t, cols_norm = x, x_lead, x_norm, y_t, y_norm[ys]
        rest_rows, rest_cols = (no_rest, rest) if keogh == _QUERY_SIDE else (rest, no_rest)
        raw, abandoned = _bounded_dtw(rows, rows_lead, rows_norm, cols_t, cols_norm, local, band,
                                      pattern, leading, cutoff if early_abandon else np.inf,
                                      rest_rows, rest_cols, cost_buf, acc_buf)
        if abandoned:
            counts[2] += 1
            continue
        counts[3] += 1
        distance = raw / scale if normalisation != 0 else raw
        if distance < best or (distance == best and t < best_t):
            best, best_t = distance, t
    return best_t, best


def _nearest_all(queries, templates, y_lead, local, band, pattern, search, index, distance,
                 counts):
    """:func:`_nearest_one` for every query (packed as the templates; one row of counts per
    query)."""
    x_all, x_off, x_blocks, x_norm = queries
    moves, start_weight, unit = pattern  # a parallel loop takes no nested tuple
    for q in prange(index.shape[0]):
        lo, hi = x_off[q], x_off[q + 1]
        found, value = _nearest_one(x_all[lo:hi], _sequence_block(x_blocks, x_off, q),
                                    x_norm[lo:hi], templates, y_lead, local, band,
                                    (moves, start_weight, unit), search, counts[q])
        index[q] = found
        distance[q] = value


_nearest_serial = njit(cache=True)(_nearest_all)
_nearest_parallel = None  # compiled on first use of parallel=True (not cached)


def _nearest_kernel(parallel: bool):
    """The compiled nearest-template search over all queries, serial or over numba threads."""
    global _nearest_parallel
    if not parallel:
        return _nearest_serial
    if _nearest_parallel is None:
        _nearest_parallel = njit(parallel=True)(_nearest_all)
    return _nearest_parallel


@njit(cache=True)
def _subsequence_rows(query, query_norm, ref_t, ref_norm, local, pattern, cutoff, d, D, steps):
    """Subsequence DTW of ``query`` in one reference (columns of ``ref_t``), row by row, as
    :func:`course_lib.dtw_subsequence.subsequence_dtw` computes it; False when abandoned.
    ``local`` and ``pattern`` as :func:`course_lib.dtw_matrix.pair_dtw` takes them.

    Every match crosses each row of the query (one of every two rows when a move advances two),
    and D never decreases along it, so once those rows hold no cell at or below ``cutoff`` no
    match in this reference can end at or below it.
    """
    n, m = query.shape[0], ref_t.shape[1]
    moves, start_weight, _ = pattern
    move_di, move_dj, move_w, mid_di, mid_dj, mid_w = moves
    rows_per_move = np.max(move_di)
    floors = np.full(n, np.inf)
    for i in range(n):
        local_cost_row(query[i], query_norm[i], ref_t, ref_norm, local, 0, m - 1, d[i])
        accumulate_row(i, d, 0, m - 1, move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                       start_weight, True, D, steps, True)
        if cutoff < np.inf:
            floors[i] = np.min(D[i])
            if np.min(floors[max(0, i - rows_per_move + 1):i + 1]) > cutoff:
                return False
    return True

