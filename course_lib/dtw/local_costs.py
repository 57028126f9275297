"""Local distances d(i, j) between frames, as the compiled DTW kernels compute them (Unit 1).

The engine behind :func:`course_lib.dtw.alignment.local_cost_matrix` (which lists the metrics and their
formulas), the compiled pair computation :func:`course_lib.dtw.distance_matrix._pair_dtw` and the pruned
searches of :mod:`course_lib.dtw.search`. :func:`_metric_terms` checks ``metric`` and
``variances`` and turns them into the tuple ``local = (metric code, inv_var_t, log_norm)`` every
kernel takes; :func:`local_cost_row` fills one row of local costs, in a loop order that LLVM
vectorises.

numba's on-disk cache of a kernel is rebuilt only when its own file changes, not when a kernel
it inlines from here does: after editing this file, clear the cache (``course_lib/__pycache__``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..validation import as_float_array, check_choice

__all__ = ["METRICS"]

#: The local distances every DTW entry point takes as ``metric``, in the order of their codes.
METRICS = ("euclidean", "sqeuclidean", "cosine", "gaussian_nll")
_METRIC_CODE = {name: code for code, name in enumerate(METRICS)}


def _gaussian_terms(variances, m: int, d: int, per_frame_ok: bool = True):
    """1 / variance as columns ``(d, 1)`` or ``(d, m)`` (one per template frame), and the log
    normaliser 0.5 sum log(2 pi var) of each column."""
    var = np.ones(d) if variances is None else as_float_array(variances, "variances", (1, 2))
    allowed = [(d,), (1, d)] + ([(m, d)] if per_frame_ok else [])
    if var.shape not in allowed:
        raise ValueError(f"variances: expected shape {' or '.join(map(str, allowed))}, "
                         f"got {var.shape}")
    if np.any(var <= 0):
        raise ValueError("variances: must all be > 0")
    var = np.atleast_2d(var)
    return np.ascontiguousarray((1.0 / var).T), 0.5 * np.sum(np.log(2 * np.pi * var), axis=1)


def _metric_terms(metric, variances, x_frames, y_frames, names, per_frame_ok=True):
    """The local distance as the compiled kernels take it: ``(metric code, inv_var_t,
    log_norm)``, the Gaussian terms of :func:`_gaussian_terms` (dummies for other metrics).

    Checks ``metric``, ``variances`` (one per frame of ``y_frames`` only if ``per_frame_ok``)
    and, for cosine, that no frame is all zeros (``names`` name x and y in the messages).
    """
    check_choice(metric, "metric", _METRIC_CODE)
    d = x_frames.shape[1]
    if metric == "gaussian_nll":
        local = (_METRIC_CODE[metric],
                 *_gaussian_terms(variances, y_frames.shape[0], d, per_frame_ok))
    else:
        if variances is not None:
            raise ValueError("variances: only used with metric='gaussian_nll'")
        local = _plain_metric_terms(metric, d)
    if metric == "cosine":
        for frames, name in zip((x_frames, y_frames), names):
            _check_nonzero_frames(frames, name)
    return local


def _plain_metric_terms(metric: str, d: int):
    """:func:`_metric_terms` of a checked metric other than gaussian_nll, for ``d`` features."""
    return _METRIC_CODE[metric], np.ones((d, 1)), np.zeros(1)


def _check_nonzero_frames(frames: np.ndarray, name: str) -> None:
    """Refuse an all-zero frame, whose cosine distance is undefined."""
    if np.any(np.all(frames == 0, axis=1)):
        raise ValueError(f"{name}: cosine distance is undefined for an all-zero frame")


@njit(cache=True)
def local_cost_row(x_i, x_norm_i, y_t, y_norm, local, j_lo, j_hi, out):
    """out[j] = d(x_i, y_j) for j_lo <= j <= j_hi; ``local = (metric code, inv_var_t, log_norm)``
    as :func:`_metric_terms` returns it (metric codes follow ``METRICS``).
    Lecture 01, section 2 (The local cost matrix).

    ``y_t`` holds the frames of y as columns (features as rows, shape (d, m)), ``y_norm[j]``
    and ``x_norm_i`` the frame lengths (cosine only). ``inv_var_t`` is (d, 1) (shared
    variances) or (d, m) (one column per frame of y).

    The loop over features is the outer one: each frame's sum still adds k = 0, 1, ..., d - 1
    in order, the same numbers as the plain scalar loop (no fastmath), while the inner loop
    runs over neighbouring frames in contiguous memory, which LLVM vectorises. (Indices go
    through slices starting at 0: a computed index that might be negative makes numba check
    for wrap-around, which stops the vectorisation.)
    """
    metric, inv_var_t, log_norm = local
    row = out[j_lo:j_hi + 1]
    width = row.shape[0]
    cols = slice(j_lo, j_hi + 1)
    for t in range(width):
        row[t] = 0.0
    # one loop nest per metric: a test on the metric inside the loops would run d times a row
    if metric == 2:  # cosine: 1 - <x, y> / (|x| |y|), clipped at 0 against round-off
        for k in range(x_i.shape[0]):
            x_ik, y_k = x_i[k], y_t[k, cols]
            for t in range(width):
                row[t] += x_ik * y_k[t]
        y_n = y_norm[cols]
        for t in range(width):
            row[t] = max(0.0, 1.0 - row[t] / (x_norm_i * y_n[t]))
    elif metric == 3:  # -log N(x_i; mean y_j, diag(var_j))
        per_frame_var = inv_var_t.shape[1] > 1
        for k in range(x_i.shape[0]):
            x_ik, y_k = x_i[k], y_t[k, cols]
            if per_frame_var:
                w_k = inv_var_t[k, cols]
                for t in range(width):
                    diff = x_ik - y_k[t]
                    row[t] += diff * diff * w_k[t]
            else:
                w = inv_var_t[k, 0]
                for t in range(width):
                    diff = x_ik - y_k[t]
                    row[t] += diff * diff * w
        for t in range(width):
            row[t] = 0.5 * row[t] + log_norm[j_lo + t if per_frame_var else 0]
    else:  # squared Euclidean, and its square root for euclidean
        for k in range(x_i.shape[0]):
            x_ik, y_k = x_i[k], y_t[k, cols]
            for t in range(width):
                diff = x_ik - y_k[t]
                row[t] += diff * diff
        if metric == 0:
            for t in range(width):
                row[t] = np.sqrt(row[t])


@njit(cache=True)
def _local_cost_two_rows(x, x_norm, i, y_t, y_norm, local, limits, limits_next, out, out_next):
    """:func:`local_cost_row` for rows i and i + 1 (if there is one) of the band, into ``out``
    and ``out_next``; ``limits`` and ``limits_next`` are the first and last allowed column of
    each row.

    For the (squared) Euclidean metrics one loop serves both rows, over the columns either of
    them needs: each value of y is loaded once for two rows, which halves the loop overhead
    that dominates the narrow rows of a band. Each row's sums are the same as row by row.
    """
    n = x.shape[0]
    metric = local[0]
    # max(0, .): column limits known to be >= 0 spare numba's wrap-around check on the slices
    # below, which would stop the vectorisation (see local_cost_row)
    j_lo, j_hi = max(0, limits[0]), max(0, limits[1])
    next_lo, last = max(0, limits_next[0]), max(0, limits_next[1])
    if i + 1 == n or metric > 1:
        local_cost_row(x[i], x_norm[i], y_t, y_norm, local, j_lo, j_hi, out)
        if i + 1 < n:
            local_cost_row(x[i + 1], x_norm[i + 1], y_t, y_norm, local, next_lo, last, out_next)
        return
    # the next row starts and ends no earlier: one loop over j_lo..last serves both
    row, row_next = out[j_lo:last + 1], out_next[j_lo:last + 1]
    cols = slice(j_lo, last + 1)
    for t in range(row.shape[0]):
        row[t] = 0.0
        row_next[t] = 0.0
    for k in range(x.shape[1]):
        x_ik, x_next_k, y_k = x[i, k], x[i + 1, k], y_t[k, cols]
        for t in range(row.shape[0]):
            diff, diff_next = x_ik - y_k[t], x_next_k - y_k[t]
            row[t] += diff * diff
            row_next[t] += diff_next * diff_next
    if metric == 0:
        for t in range(row.shape[0]):
            row[t] = np.sqrt(row[t])
            row_next[t] = np.sqrt(row_next[t])


@njit(cache=True)
def _frame_norms(x, metric):
    """Frame lengths |x_i| for the cosine metric (ones, unused, for the others)."""
    if metric != 2:
        return np.ones(x.shape[0])
    return np.sqrt(np.sum(x * x, axis=1))


@njit(cache=True)
def _local_costs(x, x_norm, y_t, y_norm, local, out):
    """out[i, j] = d(x_i, y_j) for every cell (y given as columns, see :func:`local_cost_row`)."""
    for i in range(x.shape[0]):
        # np.int64(0), not 0: numba compiles a kernel again for each literal argument
        local_cost_row(x[i], x_norm[i], y_t, y_norm, local, np.int64(0), y_t.shape[1] - 1,
                       out[i])
