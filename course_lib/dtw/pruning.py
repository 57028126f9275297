"""Compiled kernels of the pruned DTW searches (Unit 1): LB_Kim, LB_Keogh against the band's
envelope, early abandoning, and the searches' loops over templates and references.

:mod:`course_lib.dtw.search` checks the arguments and calls these kernels; what they compute
and why the result is exact (the lower bounds, early abandoning, the rounding margin) is in its
docstring. The recursion they run is :func:`course_lib.dtw.alignment.accumulate_row` and the
pair computation :func:`course_lib.dtw.distance_matrix._pair_dtw`, so a pruned search gives the
very numbers of the exhaustive one.

The band's envelope for LB_Keogh (Keogh & Ratanamahatana 2005): running maxima and minima of
each feature over the window of frames the Sakoe-Chiba band lets a row reach. For every column
j the envelope is ``upper[k, j] = max`` and ``lower[k, j] = min`` of feature k over the frames
``j - a .. j + b`` (:func:`_band_reach`). Each window is covered by two power-of-two windows
from tables of running extremes (:func:`_extreme_tables`, :func:`_window_extremes`), so an
envelope costs O(n log w) per feature for windows of w frames; :func:`_keogh_terms` measures
frames against these boxes.

numba's on-disk cache of a kernel here is rebuilt only when this file changes, not when the
kernels it inlines from :mod:`course_lib.dtw.alignment`, :mod:`course_lib.dtw.distance_matrix`
or :mod:`course_lib.dtw.local_costs` do: after editing those, clear the cache
(``course_lib/dtw/__pycache__``). A stale cache cannot pass unnoticed: tests/dtw/test_search.py
compares every search with the exhaustive one, which compiles from those very files.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .local_costs import local_cost_row
from .alignment import _sequence_block, accumulate_row
from .distance_matrix import _pair_dtw



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
    round-off of sums of n + m local costs of d features each (see course_lib.dtw.search)."""
    return 4.0 * (n + m + dim + 4) * np.finfo(np.float64).eps


@njit(cache=True)
def kim_raw(x, x_norm, y_t, y_norm, local, start_weight, end_weight, cost_buf):
    """LB_Kim before normalisation, from the very local costs DTW uses for those two cells.
    Lecture 01, section 11 (Making DTW fast: lower bounds and early abandoning)."""
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
    Lecture 01, section 11 (Making DTW fast: lower bounds and early abandoning).

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
    # int64, not literal 0 and 1: numba types the calls below with a variable's first type too
    # and would compile a kernel again for the literals
    pad_left, length, widest = np.int64(0), np.int64(0), np.int64(1)
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
    """``(D(n - 1, m - 1), abandoned)`` as :func:`course_lib.dtw.distance_matrix._pair_dtw` with cutoff
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
    """Scratch space of one query's search: the buffers of :func:`course_lib.dtw.distance_matrix._pair_dtw`,
    LB_Keogh's terms still to come per frame (``rest``, see :func:`_keogh_terms`), zeros for
    no such bound, and the tables of :func:`course_lib.dtw.pruning._keogh_scratch`."""
    longest = max(n, max_m)
    cost_buf = np.empty(max(n * max_m, 2 * longest))
    acc_buf = np.empty(max(n * max_m, 2 * longest + 2))
    return (cost_buf, acc_buf, np.zeros(longest + 1), np.zeros(longest + 1),
            _keogh_scratch(n, max_m, dim, band))


@njit(cache=True)
def _nearest_one(x, x_t, x_norm, templates, y_lead, local, band, pattern, search, counts):
    """Index and distance of the template nearest to query x; counts[0..3] += pairs pruned by
    LB_Kim, by LB_Keogh, abandoned, computed in full (see search.nearest_templates).

    ``x`` comes as frames, as columns ``x_t`` and with its frame lengths ``x_norm``, the
    templates packed by :func:`course_lib.dtw.alignment._pack_sequences`; ``local``, ``band``
    and ``pattern`` as :func:`course_lib.dtw.distance_matrix._pair_dtw` takes them. ``search`` holds the
    settings ``(transposable, normalisation, end_weight, keogh, use_kim, early_abandon,
    leading, slot_lengths, length_slot)``: the normalisation code of :func:`normaliser`, the
    weight of LB_Kim's last cell, and the options below.

    Templates are visited in order of increasing LB_Kim, so a good best-so-far comes early;
    ties still go to the lowest index. ``keogh``: 0 (none), QUERY_SIDE or TEMPLATE_SIDE (see
    :func:`_keogh_bound`; ``length_slot[m]`` is the slot of length m in ``slot_lengths``);
    ``leading``: see :func:`_bounded_dtw`. As in :func:`course_lib.dtw.distance_matrix._pair_distances`, the
    shorter sequence gives the rows when ``transposable``, but only without LB_Keogh: its terms
    for what the path still owes are per template frame, and tell most along a row.
    Lecture 01, section 11 (Making DTW fast: lower bounds and early abandoning)."""
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
        # as int64: q is unsigned under parallel=True, a second _sequence_block for numba
        x_t = _sequence_block(x_blocks, x_off, np.int64(q))
        found, value = _nearest_one(x_all[lo:hi], x_t, x_norm[lo:hi], templates, y_lead, local,
                                    band, (moves, start_weight, unit), search, counts[q])
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
    :func:`course_lib.dtw.subsequence.subsequence_dtw` computes it; False when abandoned.
    ``local`` and ``pattern`` as :func:`course_lib.dtw.distance_matrix._pair_dtw` takes them.

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
        # np.int64(0), not 0: numba compiles a kernel again for each literal argument. The
        # literals to accumulate_row stay: compiled for them, it runs ~8% faster
        local_cost_row(query[i], query_norm[i], ref_t, ref_norm, local, np.int64(0), m - 1, d[i])
        accumulate_row(i, d, 0, m - 1, move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                       start_weight, True, D, steps, True)
        if cutoff < np.inf:
            floors[i] = np.min(D[i])
            if np.min(floors[max(0, i - rows_per_move + 1):i + 1]) > cutoff:
                return False
    return True



@njit(cache=True)
def _band_reach(n, m, band):
    """How far left (``a``) and right (``b``) of the diagonal the band reaches in a row of an
    n x m matrix: row i allows the columns ``i - a .. i + b`` that exist (the band of
    course_lib.dtw.alignment)."""
    if band < 0:
        return n - 1, m - 1
    return band + max(0, n - m), band + max(0, m - n)


@njit(cache=True)
def _levels_for(width):
    """Number of power-of-two levels whose largest window (2**(levels - 1)) fits in width."""
    levels = 1
    while (2 << (levels - 1)) <= width:
        levels += 1
    return levels


@njit(cache=True)
def _extreme_tables(seq_t, pad_left, length, levels, hi, lo):
    """Running extremes of each feature over windows of 2**q positions, for q < levels.

    The frames (columns of ``seq_t``, (d, n)) sit at positions pad_left.. of rows of ``length``
    positions; any other position is empty (-inf for the max, +inf for the min). Level q is the
    (d, length) block q of the flat arrays ``hi`` and ``lo``: at position p, the max and min of
    positions p .. p + 2**q - 1 (valid for p <= length - 2**q). Level q + 1 puts two level-q
    windows side by side, one pass over contiguous memory that vectorises.
    """
    dim, n = seq_t.shape
    size = dim * length
    base_hi = hi[:size].reshape((dim, length))
    base_lo = lo[:size].reshape((dim, length))
    base_hi[:] = -np.inf
    base_lo[:] = np.inf
    kept = min(n, length - pad_left)  # frames beyond the last position no window reaches
    base_hi[:, pad_left:pad_left + kept] = seq_t[:, :kept]
    base_lo[:, pad_left:pad_left + kept] = seq_t[:, :kept]
    for q in range(1, levels):
        shift = 1 << (q - 1)
        below_hi, below_lo = hi[(q - 1) * size:q * size], lo[(q - 1) * size:q * size]
        ahead_hi, ahead_lo = below_hi[shift:], below_lo[shift:]
        level_hi, level_lo = hi[q * size:(q + 1) * size], lo[q * size:(q + 1) * size]
        for f in range(size - shift):
            level_hi[f] = max(below_hi[f], ahead_hi[f])
            level_lo[f] = min(below_lo[f], ahead_lo[f])


@njit(cache=True)
def _window_extremes(hi, lo, length, pad_left, a, b, upper, lower):
    """``upper[k, j]``, ``lower[k, j]`` for every column j of upper: max and min of feature k
    over the frames j - a .. j + b of the sequence in the tables of :func:`_extreme_tables`
    (frames that do not exist count as empty): the extremes of two power-of-two windows that
    together cover exactly that range. Needs ``pad_left >= a`` and ``length >= pad_left + b +
    n_out`` (n_out = columns of upper)."""
    dim, n_out = upper.shape
    levels = _levels_for(a + b + 1)
    span = 1 << (levels - 1)
    size = dim * length
    level_hi = hi[(levels - 1) * size:levels * size].reshape((dim, length))
    level_lo = lo[(levels - 1) * size:levels * size].reshape((dim, length))
    first, second = pad_left - a, pad_left + b - span + 1  # window starts for j = 0
    for k in range(dim):
        hi_1, hi_2 = level_hi[k, first:first + n_out], level_hi[k, second:second + n_out]
        lo_1, lo_2 = level_lo[k, first:first + n_out], level_lo[k, second:second + n_out]
        up, low = upper[k], lower[k]
        for j in range(n_out):
            up[j] = max(hi_1[j], hi_2[j])
            low[j] = min(lo_1[j], lo_2[j])


@njit(cache=True)
def _keogh_scratch(max_n, max_m, dim, band):
    """Flat scratch space for the extreme tables and one envelope (upper, lower) of sequences
    of at most max_n and max_m frames."""
    longest = max(max_n, max_m)
    length = 3 * longest if band < 0 else 2 * longest + 2 * band + 1
    levels = _levels_for(length)
    return (np.empty(levels * dim * length), np.empty(levels * dim * length),
            np.empty(dim * longest), np.empty(dim * longest))
