"""The band's envelope for LB_Keogh (Keogh & Ratanamahatana 2005), compiled: running maxima and
minima of each feature over the window of frames the Sakoe-Chiba band lets a row reach.

For every column j the envelope is ``upper[k, j] = max`` and ``lower[k, j] = min`` of feature k
over the frames ``j - a .. j + b`` (:func:`_band_reach`). Each window is covered by two
power-of-two windows from tables of running extremes (:func:`_extreme_tables`,
:func:`_window_extremes`), so an envelope costs O(n log w) per feature for windows of w frames.
The bound that measures frames against these boxes, and the searches that use it, are in
:mod:`course_lib.dtw_pruning`; this is apart because a student follows the bound without the
tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _band_reach(n, m, band):
    """How far left (``a``) and right (``b``) of the diagonal the band reaches in a row of an
    n x m matrix: row i allows the columns ``i - a .. i + b`` that exist (the band of
    course_lib.dtw)."""
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
