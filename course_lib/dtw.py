"""Dynamic time warping (Unit 1): compare two sequences of feature frames.

Notation follows the lecture. ``x`` has ``n = T_x`` frames and ``y`` has ``m = T_y`` frames;
**rows are frames**, so ``x`` has shape ``(n, d)`` and ``y`` shape ``(m, d)``. A 1-D array is
accepted as a sequence of ``n`` scalar frames, i.e. shape ``(n, 1)``. A sequence must have at
least one frame; length 1 is allowed (it is a legal, if degenerate, sequence), and if the step
pattern cannot align the two lengths you get a :class:`NoWarpingPathError`.

Indices in code are 0-based: the slides' cell ``(1, 1)`` is ``(0, 0)`` here and ``(T_x, T_y)``
is ``(n - 1, m - 1)``. ``x`` indexes the rows of every matrix (``i``), ``y`` the columns (``j``).

The dynamic programme of the slides, with local distance ``d(i, j)`` and step weights ``m``:

* initialisation ``D(0, 0) = d(0, 0) m(1)``;
* recursion ``D(i, j) = min over allowed moves (i', j') -> (i, j) of
  [ D(i', j') + sum over the cells c the move enters of  w_c d(c) ]``;
* termination ``d(X, Y) = D(n - 1, m - 1) / M_phi``, where ``M_phi`` is the sum of the weights
  along the path. For the normalisable patterns ``M_phi`` does not depend on the path.

Step patterns (names and moves as in dtw-python, which takes them from Sakoe & Chiba 1978 and
Rabiner & Juang 1993). A move is written origin offset -> cells entered (offset back from the
destination ``(i, j)``, weight):

===============  ===========================================  ======  ===================
name             moves (origin: entered cells with weights)   m(1)    normalisation M_phi
===============  ===========================================  ======  ===================
symmetric1       (1,1): (0,0) w1; (0,1): (0,0) w1;            1       none (path-dependent)
                 (1,0): (0,0) w1
symmetric2       (1,1): (0,0) w2; (0,1): (0,0) w1;            2       n + m
                 (1,0): (0,0) w1
asymmetric       (1,0): (0,0) w1; (1,1): (0,0) w1;            1       n
                 (1,2): (0,0) w1
symmetricP1      (1,2): (0,1) w2, (0,0) w1; (1,1): (0,0) w2;  2       n + m
                 (2,1): (1,0) w2, (0,0) w1
asymmetricP1     (1,2): (0,1) w1/2, (0,0) w1/2;               1       n
                 (1,1): (0,0) w1; (2,1): (1,0) w1, (0,0) w1
===============  ===========================================  ======  ===================

``asymmetricP1`` (:data:`ASYMMETRIC_P1`, not in ``STEP_PATTERNS``: pass the object) keeps the
asymmetric pattern's normaliser ``n`` but limits the slope to between 1/2 and 2, so it needs
``(n - 1) / 2 <= m - 1 <= 2 (n - 1)``. In subsequence search a match therefore spans at least
about half the query's frames, where plain ``asymmetric`` may squeeze the whole query onto a
single reference frame.

``m(1)`` is the weight of the first cell. We use the textbook value (Rabiner & Juang: the path
starts from a virtual cell (-1, -1), so the first cell of a symmetric pattern has weight 1 + 1 =
2); then the weights along *every* path sum to exactly ``n + m`` (``n`` for asymmetric) and the
normalised distance is a weighted mean of local costs. dtw-python gives the first cell weight 1
for every pattern, so its accumulated costs are ours minus ``(m(1) - 1) d(0, 0)``; the moves and
all other weights are identical, and so are the optimal paths.

Sakoe-Chiba band of radius ``r`` (``band=r``, in frames), for unequal lengths widened on the
longer side: cell ``(i, j)`` is allowed iff

    -r - max(0, n - m)  <=  j - i  <=  r + max(0, m - n).

It is symmetric in ``x`` and ``y`` (so symmetric patterns stay symmetric), ``r = 0`` always
contains a path for symmetric1/symmetric2, and ``r >= max(n, m) - 1`` is the same as no band.
(dtaidistance's ``window=r + 1`` and tslearn's ``sakoe_chiba_radius=r`` are the same band;
dtw-python's ``"sakoechiba"`` is not widened, so it differs when ``n != m``.)

The pruned searches of :mod:`course_lib.dtw_search` run this very recursion, so they reuse, beside
``__all__``: the argument checks (:func:`check_same_dim`, :func:`as_band`, :func:`metric_terms`,
:func:`subsequence_pattern`), the packing of many sequences (:func:`concatenate_sequences`,
:func:`pack_sequences`, :func:`frame_norms`, :meth:`StepPattern.kernel_form`), the compiled pair
computation (:func:`local_cost_row`, :func:`accumulate_row`, :func:`pair_dtw`,
:func:`sequence_block`) and :func:`backtrack` with the step codes ``START`` and ``NO_PATH``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from .validation import as_float_array, as_positive_int, as_positive_float, as_rng, check_choice

METRICS = ("euclidean", "sqeuclidean", "cosine", "gaussian_nll")
_METRIC_CODE = {name: code for code, name in enumerate(METRICS)}
START = -1      # step code of a cell where a path starts
NO_PATH = -2    # step code of a cell no path reaches (or outside the band)


class NoWarpingPathError(ValueError):
    """No warping path joins the start and end cells under the band and step pattern."""


# --------------------------------------------------------------------------------------------
# Step patterns
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StepPattern:
    """A DTW step pattern as data.

    ``moves`` is a tuple of ``(origin, cells)``: ``origin = (di, dj)`` is the predecessor
    ``(i - di, j - dj)``; ``cells`` lists ``(a, b, w)`` for each cell ``(i - a, j - b)`` the
    move enters, in path order and ending with the destination ``(0, 0, w)``. The move adds
    ``sum w * d(i - a, j - b)``. A move may enter at most one intermediate cell (enough for
    the patterns here and for symmetricP0/P1; keeping the compiled loop free of a nested loop
    makes it several times faster). ``start_weight`` is ``m(1)``, the weight of the first cell.
    ``normalisation`` is ``"n+m"``, ``"n"`` or ``"none"`` (see the module docstring table).
    """

    name: str
    moves: tuple
    start_weight: float
    normalisation: str

    def __post_init__(self):
        check_choice(self.normalisation, "normalisation", {"n+m", "n", "none"})
        for origin, cells in self.moves:
            if min(origin) < 0 or max(origin) < 1 or tuple(cells[-1][:2]) != (0, 0):
                raise ValueError(f"moves: move {origin} must go forward and end at (0, 0)")
            if len(cells) > 2 or any(c[2] <= 0 for c in cells):
                raise ValueError(f"moves: move {origin} may enter at most one intermediate "
                                 f"cell before (0, 0), each with a weight > 0")

    @property
    def is_symmetric(self) -> bool:
        """True when swapping the roles of x and y maps the pattern onto itself."""
        def canon(moves):
            return sorted((o, tuple(c)) for o, c in moves)
        swapped = [((dj, di), tuple((b, a, w) for a, b, w in cells))
                   for (di, dj), cells in self.moves]
        return canon(swapped) == canon(self.moves)

    def normaliser(self, n: int, m: int) -> float | None:
        """``M_phi`` for lengths ``n`` and ``m``, or None when it depends on the path."""
        return {"n+m": float(n + m), "n": float(n), "none": None}[self.normalisation]

    def arrays(self):
        """The moves as flat arrays for the compiled recursion.

        ``move_di, move_dj, move_w`` (origin offset, weight of the destination cell) and
        ``mid_di, mid_dj, mid_w`` (the intermediate cell, weight 0 when there is none).
        """
        rows = []
        for (di, dj), cells in self.moves:
            mid = cells[0] if len(cells) == 2 else (0, 0, 0.0)
            rows.append((di, dj, cells[-1][2], *mid))
        cols = list(zip(*rows))
        as_int = [np.array(c, dtype=np.int64) for c in (cols[0], cols[1], cols[3], cols[4])]
        as_float = [np.array(c, dtype=np.float64) for c in (cols[2], cols[5])]
        return as_int[0], as_int[1], as_float[0], as_int[2], as_int[3], as_float[1]

    def kernel_form(self):
        """The pattern as the compiled kernels take it: ``(arrays(), start_weight, unit)``.

        ``unit = (w_diag, w_across, w_down)`` when the moves are exactly (1, 1), (0, 1) and
        (1, 0), entering no intermediate cell (symmetric1, symmetric2): those patterns run in a
        faster two-row loop. Else ``unit`` is an empty array.
        """
        moves = dict(self.moves)
        if len(self.moves) != 3 or set(moves) != {(1, 1), (0, 1), (1, 0)} or \
                any(len(cells) != 1 for cells in moves.values()):
            unit = np.empty(0)
        else:
            unit = np.array([moves[origin][0][2] for origin in ((1, 1), (0, 1), (1, 0))])
        return self.arrays(), self.start_weight, unit


STEP_PATTERNS = {
    "symmetric1": StepPattern("symmetric1", (
        ((1, 1), ((0, 0, 1.0),)),
        ((0, 1), ((0, 0, 1.0),)),
        ((1, 0), ((0, 0, 1.0),)),
    ), start_weight=1.0, normalisation="none"),
    "symmetric2": StepPattern("symmetric2", (
        ((1, 1), ((0, 0, 2.0),)),
        ((0, 1), ((0, 0, 1.0),)),
        ((1, 0), ((0, 0, 1.0),)),
    ), start_weight=2.0, normalisation="n+m"),
    "asymmetric": StepPattern("asymmetric", (
        ((1, 0), ((0, 0, 1.0),)),
        ((1, 1), ((0, 0, 1.0),)),
        ((1, 2), ((0, 0, 1.0),)),
    ), start_weight=1.0, normalisation="n"),
    "symmetricP1": StepPattern("symmetricP1", (
        ((1, 2), ((0, 1, 2.0), (0, 0, 1.0))),
        ((1, 1), ((0, 0, 2.0),)),
        ((2, 1), ((1, 0, 2.0), (0, 0, 1.0))),
    ), start_weight=2.0, normalisation="n+m"),
}


# Sakoe & Chiba's slope constraint P = 1 on the asymmetric pattern (dtw-python's asymmetricP1):
# every query frame still carries total weight 1, so M_phi = n and matching costs of
# subsequence matches of different lengths stay comparable.
ASYMMETRIC_P1 = StepPattern("asymmetricP1", (
    ((1, 2), ((0, 1, 0.5), (0, 0, 0.5))),
    ((1, 1), ((0, 0, 1.0),)),
    ((2, 1), ((1, 0, 1.0), (0, 0, 1.0))),
), start_weight=1.0, normalisation="n")


def get_step_pattern(step_pattern: str | StepPattern) -> StepPattern:
    """Look up a step pattern by name (``STEP_PATTERNS``) or pass a :class:`StepPattern` on."""
    if isinstance(step_pattern, StepPattern):
        return step_pattern
    check_choice(step_pattern, "step_pattern", STEP_PATTERNS)
    return STEP_PATTERNS[step_pattern]


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------

# Larger values would overflow float64 in the local distances or their sums along a path.
MAX_ABS_VALUE = 1e100


def as_sequence(x, name: str) -> np.ndarray:
    """A finite ``(n, d)`` float64 C-contiguous sequence (rows are frames); 1-D -> ``(n, 1)``.

    Values must stay below :data:`MAX_ABS_VALUE` in magnitude (squared distances of larger
    ones, summed along a path, overflow float64).
    """
    arr = as_float_array(x, name, ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr[:, None]
    peak = float(np.max(np.abs(arr)))
    if peak > MAX_ABS_VALUE:
        raise ValueError(f"{name}: values as large as {peak:.3g} are out of range for DTW "
                         f"(|value| <= {MAX_ABS_VALUE:g}, or the distances overflow float64); "
                         f"scale the features down")
    return np.ascontiguousarray(arr)


def as_sequence_list(sequences, name: str) -> list[np.ndarray]:
    """A list of sequences (each as in :func:`as_sequence`), all with the same ``d``."""
    if isinstance(sequences, np.ndarray) and sequences.ndim == 3:
        sequences = list(sequences)
    if isinstance(sequences, np.ndarray) or not isinstance(sequences, Sequence) or \
            isinstance(sequences, str):
        raise TypeError(f"{name}: expected a list of (n, d) sequences (or a 3-D array); "
                        f"wrap a single sequence in a list")
    if len(sequences) == 0:
        raise ValueError(f"{name}: must contain at least one sequence")
    out = [as_sequence(s, f"{name}[{k}]") for k, s in enumerate(sequences)]
    dims = {s.shape[1] for s in out}
    if len(dims) > 1:
        raise ValueError(f"{name}: sequences have different feature dimensions {sorted(dims)}")
    return out


def check_same_dim(x, y, x_name: str, y_name: str) -> None:
    """Raise ``ValueError`` naming ``y_name`` unless the frames of x and y have as many
    features."""
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"{y_name}: has {y.shape[1]} features per frame but {x_name} has "
                         f"{x.shape[1]}")


def as_band(band) -> int:
    """-1 for no band, else the radius r >= 0 (a radius beyond any length is no band: capped
    so that the compiled loops get an int64)."""
    return -1 if band is None else min(as_positive_int(band, "band", minimum=0), 2 ** 40)


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


def metric_terms(metric, variances, x_frames, y_frames, names, per_frame_ok=True):
    """The local distance as the compiled kernels take it: ``(metric code, inv_var_t,
    log_norm)``, the Gaussian terms of :func:`_gaussian_terms` (dummies for other metrics).

    Checks ``metric``, ``variances`` (one per frame of ``y_frames`` only if ``per_frame_ok``)
    and, for cosine, that no frame is all zeros (``names`` name x and y in the messages).
    """
    check_choice(metric, "metric", _METRIC_CODE)
    d = x_frames.shape[1]
    if metric == "gaussian_nll":
        inv_var, log_norm = _gaussian_terms(variances, y_frames.shape[0], d, per_frame_ok)
    else:
        if variances is not None:
            raise ValueError("variances: only used with metric='gaussian_nll'")
        inv_var, log_norm = np.ones((d, 1)), np.zeros(1)
    if metric == "cosine":
        for frames, name in zip((x_frames, y_frames), names):
            if np.any(np.all(frames == 0, axis=1)):
                raise ValueError(f"{name}: cosine distance is undefined for an all-zero frame")
    return _METRIC_CODE[metric], inv_var, log_norm


# --------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _row_limits(i, n, m, band):
    """First and last allowed column of row i (see the band definition in the docstring)."""
    if band < 0:
        return 0, m - 1
    return max(0, i - band - max(0, n - m)), min(m - 1, i + band + max(0, m - n))


@njit(cache=True)
def _band_limits(n, m, band):
    """:func:`_row_limits` of every row, as two arrays ``lo`` and ``hi``."""
    lo = np.empty(n, dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    for i in range(n):
        first, last = _row_limits(i, n, m, band)
        lo[i] = first
        hi[i] = last
    return lo, hi


@njit(cache=True)
def local_cost_row(x_i, x_norm_i, y_t, y_norm, local, j_lo, j_hi, out):
    """out[j] = d(x_i, y_j) for j_lo <= j <= j_hi; ``local = (metric code, inv_var_t, log_norm)``
    as :func:`metric_terms` returns it (metric codes follow ``METRICS``).

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
def _local_cost_rows(x, x_norm, i, y_t, y_norm, local, band, out, out_next):
    """:func:`local_cost_row` for rows i and i + 1 (if there is one) of the band, into ``out``
    and ``out_next``.

    For the (squared) Euclidean metrics one loop serves both rows, over the columns either of
    them needs: each value of y is loaded once for two rows, which halves the loop overhead
    that dominates the narrow rows of a band. Each row's sums are the same as row by row.
    """
    n, m = x.shape[0], y_t.shape[1]
    metric = local[0]
    j_lo, j_hi = _row_limits(i, n, m, band)
    if i + 1 == n or metric > 1:
        for row in range(i, min(i + 2, n)):
            row_lo, row_hi = _row_limits(row, n, m, band)
            local_cost_row(x[row], x_norm[row], y_t, y_norm, local, row_lo, row_hi,
                           out if row == i else out_next)
        return
    last = _row_limits(i + 1, n, m, band)[1]  # the next row starts and ends no earlier
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
def frame_norms(x, metric):
    """Frame lengths |x_i| for the cosine metric (ones, unused, for the others)."""
    if metric != 2:
        return np.ones(x.shape[0])
    return np.sqrt(np.sum(x * x, axis=1))


@njit(cache=True)
def _local_costs(x, x_norm, y_t, y_norm, local, out):
    """out[i, j] = d(x_i, y_j) for every cell (y given as columns, see local_cost_row)."""
    for i in range(x.shape[0]):
        local_cost_row(x[i], x_norm[i], y_t, y_norm, local, 0, y_t.shape[1] - 1, out[i])


@njit(cache=True)
def accumulate_row(i, d, j_lo, j_hi, move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                    start_weight, free_start, D, steps, keep_steps):
    """Row i of the DTW recursion of the slides; D must arrive filled with +inf.

    A move k from (i - move_di[k], j - move_dj[k]) adds ``mid_w[k] d(i - mid_di[k],
    j - mid_dj[k]) + move_w[k] d(i, j)`` (mid_w = 0 when it enters no intermediate cell).
    ``steps[i, j]`` records the winning move (first in pattern order on ties), ``START`` for a
    start cell and ``NO_PATH`` where nothing arrives. With ``free_start`` every cell of row 0
    may start a path (subsequence DTW).
    """
    n_moves = move_di.shape[0]
    for j in range(j_lo, j_hi + 1):
        best = np.inf
        best_move = NO_PATH
        if i == 0 and (j == 0 or free_start):
            best = start_weight * d[0, j]
            best_move = START
        d_ij = d[i, j]
        for k in range(n_moves):
            pi = i - move_di[k]
            pj = j - move_dj[k]
            if pi < 0 or pj < 0:
                continue
            # D is +inf outside the band and where no path arrives, so such origins never win
            total = D[pi, pj] + move_w[k] * d_ij
            if mid_w[k] != 0.0:
                total += mid_w[k] * d[i - mid_di[k], j - mid_dj[k]]
            if total < best:
                best = total
                best_move = k
        D[i, j] = best
        if keep_steps:
            steps[i, j] = best_move


@njit(cache=True)
def _accumulate(d, lo, hi, move_di, move_dj, move_w, mid_di, mid_dj, mid_w, start_weight,
                free_start, D, steps, keep_steps):
    """The whole recursion, row by row (see :func:`accumulate_row`)."""
    for i in range(d.shape[0]):
        accumulate_row(i, d, lo[i], hi[i], move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                       start_weight, free_start, D, steps, keep_steps)


def backtrack(steps, end_i: int, end_j: int, pattern: StepPattern) -> np.ndarray:
    """The optimal path into cell (end_i, end_j), as (L, 2) rows (i, j) from its start cell:
    the moves of ``pattern`` that :func:`accumulate_row` recorded in ``steps``, followed back."""
    move_di, move_dj, _, mid_di, mid_dj, mid_w = pattern.arrays()
    return _follow_moves(steps, end_i, end_j, move_di, move_dj, mid_di, mid_dj, mid_w)


@njit(cache=True)
def _follow_moves(steps, end_i, end_j, move_di, move_dj, mid_di, mid_dj, mid_w):
    """Follow the recorded moves back from (end_i, end_j) to a start cell; path as (L, 2)."""
    path = np.empty((steps.shape[0] + steps.shape[1], 2), dtype=np.int64)
    length = 0
    i, j = end_i, end_j
    while steps[i, j] != START:
        k = steps[i, j]
        path[length, 0] = i
        path[length, 1] = j
        length += 1
        if mid_w[k] != 0.0:
            path[length, 0] = i - mid_di[k]
            path[length, 1] = j - mid_dj[k]
            length += 1
        i -= move_di[k]
        j -= move_dj[k]
    path[length, 0] = i
    path[length, 1] = j
    length += 1
    return path[:length][::-1].copy()


def pack_sequences(frames, offsets, metric_code):
    """Sequences as the compiled kernels take them: ``(frames, offsets, blocks, norms)``, from
    the output of :func:`concatenate_sequences`; ``blocks`` as :func:`_transposed_blocks`
    stores them, ``norms`` the frame lengths (cosine only, see :func:`local_cost_row`)."""
    blocks = _transposed_blocks(frames, offsets)
    return frames, offsets, blocks, frame_norms(frames, metric_code)


def _transposed_blocks(frames: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sequences stored one after the other, each transposed: sequence s (rows
    ``offsets[s]:offsets[s + 1]`` of ``frames``) becomes the (d, m_s) block
    :func:`sequence_block` returns. One sequence's numbers stay together in memory, which the cache rewards."""
    return np.concatenate([frames[a:b].T.ravel() for a, b in zip(offsets[:-1], offsets[1:])])


@njit(cache=True)
def sequence_block(blocks, offsets, s):
    """Sequence s of :func:`_transposed_blocks` as a (d, m_s) array (a view)."""
    m = offsets[s + 1] - offsets[s]
    dim = blocks.shape[0] // offsets[-1]
    return blocks[offsets[s] * dim:offsets[s + 1] * dim].reshape((dim, m))


@njit(cache=True)
def _unit_step_row(i, d, j_lo, j_hi, unit, start_weight, prev, cur, rest):
    """Row i of the recursion when the moves are (1, 1), (0, 1), (1, 0) only: two rows of D.

    ``unit = (w_diag, w_across, w_down)``, ``d`` the local costs of row i;
    ``prev[j + 1] = D(i - 1, j)`` and ``cur[j + 1] = D(i, j)``, index 0 standing for column -1.
    Both rows must start filled with +inf, so a cell outside the band never offers a way in.
    Each D(i, j) is the minimum of the same three sums as in :func:`accumulate_row`, so the
    values are identical. Returns the row's lowest ``D(i, j) + rest[j + 1]`` (for early
    abandoning, see :func:`_row_floor`; found on the way, the chain along the row is the slow
    part anyway).
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
def pair_dtw(x, x_norm, y_t, y_norm, local, band, pattern, cost_buf, acc_buf, cutoff, rest_rows,
             rest_cols):
    """``(D(n - 1, m - 1), abandoned)`` of ``x`` (n, d) against y, given as ``y_t`` (d, m) (see
    :func:`local_cost_row`); D = +inf when no path arrives. ``local`` as :func:`metric_terms`
    returns it, ``pattern`` as :meth:`StepPattern.kernel_form` does.

    The one pair computation behind :func:`dtw_distance_matrix` and the pruned searches of
    :mod:`course_lib.dtw_search`, so both give identical numbers. Local costs are computed a
    row at a time, inside the band only; unit-step patterns (``unit`` non-empty, see
    :meth:`StepPattern.kernel_form`) keep two rows of D, the others the whole matrix.
    ``cost_buf`` and ``acc_buf`` are scratch space of at least max(n m, 2 m) and
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
        j_lo, j_hi = _row_limits(i, n, m, band)
        costs = cost_buf[(i % 2) * m:(i % 2 + 1) * m] if unit_steps else d[i]
        if i % 2 == 0:  # rows i and i + 1 are computed together
            _local_cost_rows(x, x_norm, i, y_t, y_norm, local, band, costs,
                             cost_buf[m:2 * m] if unit_steps else d[min(i + 1, n - 1)])
        if unit_steps:
            floors[i] = _unit_step_row(i, costs, j_lo, j_hi, unit, start_weight, prev, cur,
                                       rest_cols) + rest_rows[i + 1]
            prev, cur = cur, prev
        else:
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

    Queries and templates come packed by :func:`pack_sequences`; ``chunks`` splits the pairs
    into consecutive runs, one task each with parallel=True, and each run allocates its scratch
    space once. When D is the same for the transposed matrix (``transposable``: a symmetric
    pattern and metric), the shorter sequence gives the rows: they are then wider, which suits
    the vectorised cost loop.
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
                cols_t, cols_norm = sequence_block(x_blocks, x_off, a), x_norm[xs]
            else:
                rows, rows_norm = x_all[xs], x_norm[xs]
                cols_t, cols_norm = sequence_block(y_blocks, y_off, b), y_norm[ys]
            out[p] = pair_dtw(rows, rows_norm, cols_t, cols_norm, local, band,
                              (moves, start_weight, unit), cost_buf, acc_buf, np.inf, no_bound,
                              no_bound)[0]


_pair_distances_serial = njit(cache=True)(_pair_distances)
_pair_distances_parallel = None  # compiled on first use of parallel=True (not cached)


# --------------------------------------------------------------------------------------------
# One pair
# --------------------------------------------------------------------------------------------

def local_cost_matrix(x, y, metric: str = "euclidean", variances=None) -> np.ndarray:
    """Local distances ``d(i, j)`` between every frame of ``x`` (n, d) and of ``y`` (m, d).

    ``metric``:

    * ``"euclidean"``: ``||x_i - y_j||``;
    * ``"sqeuclidean"``: ``||x_i - y_j||^2``;
    * ``"cosine"``: ``1 - x_i . y_j / (||x_i|| ||y_j||)`` (all-zero frames are rejected);
    * ``"gaussian_nll"``: ``-log N(x_i; y_j, diag(variances))``
      ``= 0.5 sum_k (x_ik - y_jk)^2 / var_k + 0.5 sum_k log(2 pi var_k)``: the template frame
      ``y_j`` is the mean of a diagonal Gaussian and ``x_i`` is scored under it. ``variances``
      is ``(d,)`` (shared) or ``(m, d)`` (one per template frame), default all ones. With equal
      variances this is squared Euclidean up to scale and shift: the slides' bridge from DTW to
      Gaussian models. It can be negative.

    Returns the ``(n, m)`` matrix (rows are frames of ``x``).
    """
    x, y = as_sequence(x, "x"), as_sequence(y, "y")
    check_same_dim(x, y, "x", "y")
    local = metric_terms(metric, variances, x, y, ("x", "y"))
    out = np.empty((x.shape[0], y.shape[0]))
    _local_costs(x, frame_norms(x, local[0]), np.ascontiguousarray(y.T),
                 frame_norms(y, local[0]), local, out)
    return out


def band_mask(n: int, m: int, band: int | None) -> np.ndarray:
    """Boolean ``(n, m)`` mask of the cells the Sakoe-Chiba band of radius ``band`` allows."""
    n, m = as_positive_int(n, "n"), as_positive_int(m, "m")
    lo, hi = _band_limits(n, m, as_band(band))
    cols = np.arange(m)
    return (cols >= lo[:, None]) & (cols <= hi[:, None])


@dataclass(frozen=True)
class DTWResult:
    """Everything the lecture plots about one alignment (0-based indices).

    ``cost`` (n, m): local distances d(i, j). ``accumulated`` (n, m): D(i, j), +inf outside the
    band or where no path arrives. ``steps`` (n, m): index of the winning move (-1 start,
    -2 none). ``path`` (L, 2): the optimal warping path as rows (i, j) from (0, 0) to
    (n - 1, m - 1). ``distance``: D(n - 1, m - 1). ``normaliser``: M_phi (None for symmetric1,
    whose path weight sum depends on the path). ``normalised_distance``: distance / M_phi
    (None when M_phi is).
    """

    cost: np.ndarray
    accumulated: np.ndarray
    steps: np.ndarray
    path: np.ndarray
    distance: float
    normaliser: float | None
    normalised_distance: float | None
    step_pattern: StepPattern
    band: int | None = None


def dtw_from_cost_matrix(cost, *, step_pattern: str | StepPattern = "symmetric2",
                         band: int | None = None) -> DTWResult:
    """Run the DTW dynamic programme on a given local cost matrix ``cost`` (n, m).

    See the module docstring for the recursion, the step patterns and the band. Raises
    :class:`NoWarpingPathError` (a ``ValueError``) naming ``band`` (or ``step_pattern``) when
    no path reaches ``(n - 1, m - 1)``.
    """
    cost = np.ascontiguousarray(as_float_array(cost, "cost", ndim=2))
    pattern = get_step_pattern(step_pattern)
    r = as_band(band)
    n, m = cost.shape
    lo, hi = _band_limits(n, m, r)
    arrays = pattern.arrays()
    D = np.full((n, m), np.inf)
    steps = np.full((n, m), NO_PATH, dtype=np.int8)
    _accumulate(cost, lo, hi, *arrays, pattern.start_weight, False, D, steps, True)
    distance = D[n - 1, m - 1]
    if not np.isfinite(distance):
        raise _no_path_error(pattern, band, n, m)
    path = backtrack(steps, n - 1, m - 1, pattern)
    normaliser = pattern.normaliser(n, m)
    normalised = None if normaliser is None else float(distance / normaliser)
    return DTWResult(cost, D, steps, path, float(distance), normaliser, normalised, pattern,
                     band)


def _path_exists(pattern, n, m, band) -> bool:
    """Whether the step pattern joins (0, 0) to (n - 1, m - 1) inside the band at all."""
    lo, hi = _band_limits(n, m, as_band(band))
    D = np.full((n, m), np.inf)
    _accumulate(np.zeros((n, m)), lo, hi, *pattern.arrays(), pattern.start_weight, False, D,
                np.empty((1, 1), dtype=np.int8), False)
    return bool(np.isfinite(D[n - 1, m - 1]))


def _no_path_error(pattern, band, n, m) -> NoWarpingPathError:
    what = f"step pattern {pattern.name!r} and lengths n={n}, m={m}"
    if band is not None:
        # the widened band always keeps the corner-to-corner strip, so for the shipped
        # patterns the lengths, not the band, are to blame: say which
        advice = ("widen the band (or use band=None)" if _path_exists(pattern, n, m, None) else
                  "there is none without a band either: the step pattern cannot join these "
                  "lengths (e.g. asymmetric needs m <= 2n - 1)")
        return NoWarpingPathError(f"band: no warping path within a band of radius {band} for "
                                  f"{what}; {advice}")
    return NoWarpingPathError(f"step_pattern: {what} admit no warping path from (0, 0) to "
                              f"(n-1, m-1) (e.g. asymmetric needs m <= 2n - 1)")


def dtw(x, y, *, step_pattern: str | StepPattern = "symmetric2", metric: str = "euclidean",
        band: int | None = None, variances=None) -> DTWResult:
    """Align ``x`` (n, d) to ``y`` (m, d) by dynamic time warping.

    ``d(X, Y) = D(n - 1, m - 1) / M_phi`` with the recursion, step patterns and band of the
    module docstring and the local distance ``metric`` of :func:`local_cost_matrix`.
    Returns a :class:`DTWResult` (cost and accumulated matrices, path, raw and normalised
    distance).
    """
    cost = local_cost_matrix(x, y, metric=metric, variances=variances)
    return dtw_from_cost_matrix(cost, step_pattern=step_pattern, band=band)


def dtw_distance(x, y, **kwargs) -> float:
    """The normalised DTW distance if the pattern has one, else the raw D(n-1, m-1)."""
    result = dtw(x, y, **kwargs)
    return result.distance if result.normalised_distance is None else result.normalised_distance


# --------------------------------------------------------------------------------------------
# Many against many
# --------------------------------------------------------------------------------------------

def concatenate_sequences(sequences):
    """The frames of all sequences one after the other, and ``offsets``: sequence s is rows
    ``offsets[s]:offsets[s + 1]``."""
    offsets = np.cumsum([0] + [len(s) for s in sequences]).astype(np.int64)
    return np.ascontiguousarray(np.concatenate(sequences)), offsets


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
    by ``M_phi`` when the pattern has one (see the module docstring), True requires it, False
    returns the raw ``D(n-1, m-1)``. ``variances`` (gaussian_nll) must be shared, shape
    ``(d,)``. Pairs without a warping path raise :class:`NoWarpingPathError`
    (``on_no_path="raise"``) or get ``+inf`` (``on_no_path="inf"``).
    """
    queries = as_sequence_list(queries, "queries")
    all_pairs = templates is None
    templates = queries if all_pairs else as_sequence_list(templates, "templates")
    check_same_dim(queries[0], templates[0], "queries", "templates")
    pattern = get_step_pattern(step_pattern)
    r = as_band(band)
    check_choice(on_no_path, "on_no_path", {"raise", "inf"})
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel: expected True or False, got {type(parallel).__name__}")
    if normalise not in (None, True, False):
        raise TypeError(f"normalise: expected None, True or False, got {normalise!r}")
    if normalise and pattern.normalisation == "none":
        raise ValueError(f"normalise: step pattern {pattern.name!r} admits no normalisation "
                         f"(its path weight sum depends on the path); use normalise=False")
    x_all, x_off = concatenate_sequences(queries)
    y_all, y_off = (x_all, x_off) if all_pairs else concatenate_sequences(templates)
    local = metric_terms(metric, variances, x_all, y_all, ("queries", "templates"),
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
    kernel(pack_sequences(x_all, x_off, local[0]), pack_sequences(y_all, y_off, local[0]), pair_x,
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
# Choosing templates (the recogniser itself is in course_lib.recognition)
# --------------------------------------------------------------------------------------------

def select_templates(labels, n_per_class: int, *, groups=None, rng=None) -> np.ndarray:
    """Indices of ``n_per_class`` templates for every class (sorted).

    With ``groups`` (e.g. speaker ids), ``n_per_class`` groups are drawn at random among those
    that have every class, and all their items are used (so "3 templates per digit" means the
    recordings of 3 speakers); without it, items are drawn per class. A group with several items
    of one class contributes its first.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"labels: expected a non-empty 1-D array, got shape {labels.shape}")
    n_per_class = as_positive_int(n_per_class, "n_per_class")
    rng = as_rng(rng)
    classes = np.unique(labels)
    if groups is None:
        chosen = []
        for c in classes:
            members = np.flatnonzero(labels == c)
            if len(members) < n_per_class:
                raise ValueError(f"n_per_class: class {c.item()!r} has only {len(members)} items")
            chosen.extend(rng.choice(members, size=n_per_class, replace=False))
        return np.sort(np.asarray(chosen, dtype=np.int64))
    groups = np.asarray(groups)
    if groups.shape != labels.shape:
        raise ValueError(f"groups: expected shape {labels.shape}, got {groups.shape}")
    complete = [g for g in np.unique(groups)
                if set(labels[groups == g].tolist()) >= set(classes.tolist())]
    if len(complete) < n_per_class:
        raise ValueError(f"n_per_class: only {len(complete)} groups have every class, "
                         f"asked for {n_per_class}")
    picked = rng.choice(np.asarray(complete), size=n_per_class, replace=False)
    chosen = [np.flatnonzero((groups == g) & (labels == c))[0] for g in picked for c in classes]
    return np.sort(np.asarray(chosen, dtype=np.int64))


# --------------------------------------------------------------------------------------------
# Subsequence DTW (query-by-example)
# --------------------------------------------------------------------------------------------

def subsequence_pattern(step_pattern: str | StepPattern) -> StepPattern:
    """:func:`get_step_pattern`, refusing a pattern whose costs of matches of different spans
    are not comparable (it must normalise by the query length ``n`` or not at all)."""
    pattern = get_step_pattern(step_pattern)
    if pattern.normalisation not in ("n", "none"):
        raise ValueError(f"step_pattern: {pattern.name!r} normalises by the matched span, so "
                         f"costs of different matches are not comparable; use 'asymmetric' or "
                         f"'symmetric1'")
    return pattern


@dataclass(frozen=True)
class SubsequenceMatch:
    """One hit of a query in the reference: frames ``start..end`` (inclusive) of the reference."""

    start: int
    end: int
    distance: float
    path: np.ndarray


@dataclass(frozen=True)
class SubsequenceResult:
    """Subsequence DTW of a query (n frames) inside a reference (m frames).

    ``cost``, ``accumulated``, ``steps``: (n, m) as in :class:`DTWResult`, but every cell of
    row 0 may start a path. ``matching_cost`` (m,): ``D(n - 1, j) / M_phi``, the cost of the
    best match ending at reference frame j (``M_phi = n`` for asymmetric, 1 for symmetric1).
    ``start``, ``end``, ``path``, ``distance``: the best match.
    """

    cost: np.ndarray
    accumulated: np.ndarray
    steps: np.ndarray
    matching_cost: np.ndarray
    start: int
    end: int
    path: np.ndarray
    distance: float
    step_pattern: StepPattern

    def match_ending_at(self, end: int) -> SubsequenceMatch:
        """Back-track the best match that ends at reference frame ``end``."""
        end = as_positive_int(end, "end", minimum=0)
        if end >= len(self.matching_cost) or not np.isfinite(self.matching_cost[end]):
            raise ValueError(f"end: no match ends at reference frame {end}")
        path = backtrack(self.steps, self.cost.shape[0] - 1, end, self.step_pattern)
        return SubsequenceMatch(int(path[0, 1]), end, float(self.matching_cost[end]), path)


def subsequence_dtw(query, reference, *, step_pattern: str | StepPattern = "asymmetric",
                    metric: str = "euclidean", variances=None) -> SubsequenceResult:
    """Find where ``query`` (n, d) best matches inside ``reference`` (m, d), free start and end.

    Same recursion as :func:`dtw` except that every reference frame may be the first
    (``D(0, j) = m(1) d(0, j)``) and the path may end at any ``(n - 1, j)``. The matching cost
    ``D(n - 1, j) / M_phi`` can only be compared across end points when ``M_phi`` does not
    depend on the matched span, so the pattern must normalise by ``n`` (asymmetric, the
    default and dtw-python's requirement for open begin/end) or not at all (symmetric1, raw
    sum). The query must not be longer than the reference.
    """
    query, reference = as_sequence(query, "query"), as_sequence(reference, "reference")
    check_same_dim(query, reference, "query", "reference")
    pattern = subsequence_pattern(step_pattern)
    n, m = query.shape[0], reference.shape[0]
    if n > m:
        raise ValueError(f"query: has {n} frames, longer than the reference ({m} frames)")
    cost = local_cost_matrix(query, reference, metric=metric, variances=variances)
    lo, hi = _band_limits(n, m, -1)
    arrays = pattern.arrays()
    D = np.full((n, m), np.inf)
    steps = np.full((n, m), NO_PATH, dtype=np.int8)
    _accumulate(cost, lo, hi, *arrays, pattern.start_weight, True, D, steps, True)
    matching_cost = D[n - 1] / (pattern.normaliser(n, m) or 1.0)
    if not np.any(np.isfinite(matching_cost)):
        raise NoWarpingPathError(f"step_pattern: {pattern.name!r} cannot match a query of {n} "
                                 f"frames anywhere in the reference")
    end = int(np.argmin(matching_cost))
    path = backtrack(steps, n - 1, end, pattern)
    return SubsequenceResult(cost, D, steps, matching_cost, int(path[0, 1]), end, path,
                             float(matching_cost[end]), pattern)


def find_matches(query, reference, *, max_matches: int = 5, max_distance: float | None = None,
                 step_pattern: str | StepPattern = "asymmetric", metric: str = "euclidean",
                 variances=None) -> list[SubsequenceMatch]:
    """Up to ``max_matches`` non-overlapping matches of ``query`` in ``reference``, best first.

    End frames are visited in order of increasing matching cost; each candidate is
    back-tracked and kept if its span ``start..end`` overlaps no match kept so far and its cost
    is at most ``max_distance`` (if given). Reference frames inside a kept span are no longer
    candidate end points.
    """
    max_matches = as_positive_int(max_matches, "max_matches")
    if max_distance is not None:
        max_distance = as_positive_float(max_distance, "max_distance", allow_zero=True)
    result = subsequence_dtw(query, reference, step_pattern=step_pattern, metric=metric,
                             variances=variances)
    covered = np.zeros(len(result.matching_cost), dtype=bool)
    matches: list[SubsequenceMatch] = []
    for end in np.argsort(result.matching_cost, kind="stable"):
        cost = result.matching_cost[end]
        if len(matches) == max_matches or not np.isfinite(cost) or \
                (max_distance is not None and cost > max_distance):
            break
        if covered[end]:
            continue
        match = result.match_ending_at(int(end))
        if np.any(covered[match.start:match.end + 1]):
            covered[end] = True
            continue
        covered[match.start:match.end + 1] = True
        matches.append(match)
    return matches


# --------------------------------------------------------------------------------------------
# Connected words with a known transcript
# --------------------------------------------------------------------------------------------

def align_words(utterance, word_templates, *, step_pattern: str | StepPattern = "symmetric2",
                metric: str = "euclidean", band: int | None = None) -> np.ndarray:
    """Where each word of a known transcript lies in a connected ``utterance`` (n, d).

    The templates ``Y_1, ..., Y_W`` of the spoken words, in order, are joined into one
    reference ``Y = [Y_1; ...; Y_W]`` and aligned to the utterance by :func:`dtw`. Word w then
    covers the utterance frames that the optimal path maps onto frames of ``Y_w``. Returns an
    int array ``(W, 2)`` of ``[start, end]`` utterance frames (inclusive); neighbouring words
    may share a boundary frame. Raises ``ValueError`` naming ``step_pattern`` if the path
    skips every frame of some template (possible only for patterns that skip frames and
    one-frame templates).
    """
    utterance = as_sequence(utterance, "utterance")
    templates = as_sequence_list(word_templates, "word_templates")
    check_same_dim(utterance, templates[0], "utterance", "word_templates")
    boundaries = np.cumsum([0] + [len(t) for t in templates])
    path = dtw(utterance, np.concatenate(templates), step_pattern=step_pattern, metric=metric,
               band=band).path
    word_of_cell = np.searchsorted(boundaries, path[:, 1], side="right") - 1
    spans = np.empty((len(templates), 2), dtype=np.int64)
    for w in range(len(templates)):
        rows = path[word_of_cell == w, 0]
        if rows.size == 0:
            raise ValueError(f"step_pattern: the optimal path skips every frame of word {w}; "
                             f"use a pattern that visits every template frame")
        spans[w] = rows.min(), rows.max()
    return spans


__all__ = [
    "METRICS", "STEP_PATTERNS", "ASYMMETRIC_P1", "StepPattern", "get_step_pattern",
    "NoWarpingPathError",
    "as_sequence", "as_sequence_list", "local_cost_matrix", "band_mask", "DTWResult",
    "dtw_from_cost_matrix", "dtw", "dtw_distance", "dtw_distance_matrix", "select_templates", "SubsequenceMatch",
    "SubsequenceResult", "subsequence_dtw", "find_matches", "align_words",
]
