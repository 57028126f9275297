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

The step patterns (the moves, their weights, ``m(1)`` and ``M_phi`` of Sakoe & Chiba 1978 and
Rabiner & Juang 1993) are data, tabled in :mod:`course_lib.dtw.step_patterns`.

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

The sequences DTW takes. Rows are frames: a sequence is a finite ``(n, d)`` float64 array (a
1-D array is ``n`` scalar frames). :func:`as_sequence`, :func:`as_sequence_list` and
:func:`_check_same_dim` are the argument checks of every public DTW entry point (this module's,
:mod:`course_lib.dtw.distance_matrix`, :mod:`course_lib.dtw.subsequence`,
:mod:`course_lib.dtw.search`, :mod:`course_lib.dtw.term_discovery`), run once at the border;
many sequences run in one compiled loop after :func:`_concatenate_sequences` and
:func:`_pack_sequences`.

Beside this core: :mod:`course_lib.dtw.step_patterns` (the step patterns as data),
:mod:`course_lib.dtw.local_costs` (the local distances, compiled),
:mod:`course_lib.dtw.distance_matrix` (many against many: every query against every template in
one compiled loop), :mod:`course_lib.dtw.subsequence` (subsequence DTW, connected words) and
:mod:`course_lib.dtw.search` (lower bounds and early abandoning, with their compiled kernels in
:mod:`course_lib.dtw.pruning`), which reuse :func:`accumulate_row` and
:func:`course_lib.dtw.distance_matrix._pair_dtw`, so the pruned searches give the very numbers
of the exhaustive ones.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass
from numba import njit
from collections.abc import Sequence

from ..validation import as_float_array, as_positive_int
from .local_costs import _frame_norms, _local_costs, _metric_terms
from .step_patterns import StepPattern, get_step_pattern


__all__ = ["NoWarpingPathError", "local_cost_matrix", "band_mask", "DTWResult",
           "dtw_from_cost_matrix", "dtw", "as_sequence", "as_sequence_list"]

_START = -1      # step code of a cell where a path starts
_NO_PATH = -2    # step code of a cell no path reaches (or outside the band)


class NoWarpingPathError(ValueError):
    """No warping path joins the start and end cells under the band and step pattern."""


def _as_band(band) -> int:
    """-1 for no band, else the radius r >= 0 (a radius beyond any length is no band: capped
    so that the compiled loops get an int64)."""
    return -1 if band is None else min(as_positive_int(band, "band", minimum=0), 2 ** 40)


# --------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def row_limits(i, n, m, band):
    """First and last allowed column of row i (see the band definition in the docstring).
    Lecture 01, section 5 (A global constraint: the Sakoe-Chiba band)."""
    if band < 0:
        return 0, m - 1
    return max(0, i - band - max(0, n - m)), min(m - 1, i + band + max(0, m - n))


@njit(cache=True)
def _band_limits(n, m, band):
    """:func:`row_limits` of every row, as two arrays ``lo`` and ``hi``."""
    lo = np.empty(n, dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    for i in range(n):
        first, last = row_limits(i, n, m, band)
        lo[i] = first
        hi[i] = last
    return lo, hi


@njit(cache=True)
def accumulate_row(i, d, j_lo, j_hi, move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                    start_weight, free_start, D, steps, keep_steps):
    """Row i of the DTW recursion of the slides; D must arrive filled with +inf.
    Lecture 01, section 3 (The dynamic programme, step patterns and normalisation).

    A move k from (i - move_di[k], j - move_dj[k]) adds ``mid_w[k] d(i - mid_di[k],
    j - mid_dj[k]) + move_w[k] d(i, j)`` (mid_w = 0 when it enters no intermediate cell).
    ``steps[i, j]`` records the winning move (first in pattern order on ties), ``_START`` for a
    start cell and ``_NO_PATH`` where nothing arrives. With ``free_start`` every cell of row 0
    may start a path (subsequence DTW).
    """
    n_moves = move_di.shape[0]
    for j in range(j_lo, j_hi + 1):
        best = np.inf
        best_move = _NO_PATH
        if i == 0 and (j == 0 or free_start):
            best = start_weight * d[0, j]
            best_move = _START
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
    """Follow the recorded moves back from (end_i, end_j) to a start cell; path as (L, 2).
    Lecture 01, section 4 (Back-tracking: which frame goes with which)."""
    path = np.empty((steps.shape[0] + steps.shape[1], 2), dtype=np.int64)
    length = 0
    i, j = end_i, end_j
    while steps[i, j] != _START:
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

    One row of the matrix is :func:`course_lib.dtw.local_costs.local_cost_row`.

    Returns the ``(n, m)`` matrix (rows are frames of ``x``).
    """
    x, y = as_sequence(x, "x"), as_sequence(y, "y")
    _check_same_dim(x, y, "x", "y")
    return _local_cost_matrix_trusted(x, y, _metric_terms(metric, variances, x, y, ("x", "y")))


def _local_cost_matrix_trusted(x, y, local) -> np.ndarray:
    """:func:`local_cost_matrix` of checked sequences, ``local`` as
    :func:`course_lib.dtw.local_costs._metric_terms` returns it."""
    out = np.empty((x.shape[0], y.shape[0]))
    _local_costs(x, _frame_norms(x, local[0]), np.ascontiguousarray(y.T),
                 _frame_norms(y, local[0]), local, out)
    return out


def band_mask(n: int, m: int, band: int | None) -> np.ndarray:
    """Boolean ``(n, m)`` mask of the cells the Sakoe-Chiba band of radius ``band`` allows."""
    n, m = as_positive_int(n, "n"), as_positive_int(m, "m")
    lo, hi = _band_limits(n, m, _as_band(band))
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

    See the module docstring for the recursion and the band, :mod:`course_lib.dtw.step_patterns`
    for the step patterns. Raises :class:`NoWarpingPathError` (a ``ValueError``) naming
    ``band`` (or ``step_pattern``) when no path reaches ``(n - 1, m - 1)``.
    """
    cost = np.ascontiguousarray(as_float_array(cost, "cost", ndim=2))
    pattern = get_step_pattern(step_pattern)
    r = _as_band(band)
    n, m = cost.shape
    lo, hi = _band_limits(n, m, r)
    arrays = pattern.arrays()
    D = np.full((n, m), np.inf)
    steps = np.full((n, m), _NO_PATH, dtype=np.int8)
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
    lo, hi = _band_limits(n, m, _as_band(band))
    D = np.full((n, m), np.inf)
    _accumulate(np.zeros((n, m)), lo, hi, *pattern.arrays(), pattern.start_weight, False, D,
                np.empty((1, 1), dtype=np.int8), False)
    return bool(np.isfinite(D[n - 1, m - 1]))


def _no_path_error(pattern, band, n, m) -> NoWarpingPathError:
    """The error for lengths n, m without a path: it names ``band`` when there is one (and
    says whether the lengths are to blame), else ``step_pattern``."""
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

    ``d(X, Y) = D(n - 1, m - 1) / M_phi`` with the recursion and band of the module docstring,
    the step patterns of :mod:`course_lib.dtw.step_patterns` and the local distance ``metric``
    of :func:`local_cost_matrix`.
    Returns a :class:`DTWResult` (cost and accumulated matrices, path, raw and normalised
    distance).
    """
    cost = local_cost_matrix(x, y, metric=metric, variances=variances)
    return dtw_from_cost_matrix(cost, step_pattern=step_pattern, band=band)


def _dtw_distance(x, y, **kwargs) -> float:
    """The normalised DTW distance if the pattern has one, else the raw D(n-1, m-1)."""
    result = dtw(x, y, **kwargs)
    return result.distance if result.normalised_distance is None else result.normalised_distance


# Larger values would overflow float64 in the local distances or their sums along a path.
_MAX_ABS_VALUE = 1e100


def as_sequence(x, name: str) -> np.ndarray:
    """``x`` checked as a sequence DTW takes and returned as a finite ``(n, d)`` float64
    C-contiguous array (rows are frames); 1-D -> ``(n, 1)``; errors name the argument ``name``.

    Values must stay below 1e100 in magnitude (squared distances of larger
    ones, summed along a path, overflow float64). A read-only array (the course's data sets
    are) is copied: numba would compile every kernel it reaches a second time for it.
    """
    arr = as_float_array(x, name, ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr[:, None]
    peak = float(np.max(np.abs(arr)))
    if peak > _MAX_ABS_VALUE:
        raise ValueError(f"{name}: values as large as {peak:.3g} are out of range for DTW "
                         f"(|value| <= {_MAX_ABS_VALUE:g}, or the distances overflow float64); "
                         f"scale the features down")
    return np.require(arr, requirements=("C", "W"))


def as_sequence_list(sequences, name: str) -> list[np.ndarray]:
    """``sequences`` checked and returned as a list of sequences (each as in
    :func:`as_sequence`), all with the same ``d``; errors name the argument ``name``."""
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


def _check_same_dim(x, y, x_name: str, y_name: str) -> None:
    """Raise ``ValueError`` naming ``y_name`` unless the frames of x and y have as many
    features."""
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"{y_name}: has {y.shape[1]} features per frame but {x_name} has "
                         f"{x.shape[1]}")


def _concatenate_sequences(sequences):
    """The frames of all sequences one after the other, and ``offsets``: sequence s is rows
    ``offsets[s]:offsets[s + 1]``."""
    offsets = np.cumsum([0] + [len(s) for s in sequences]).astype(np.int64)
    return np.ascontiguousarray(np.concatenate(sequences)), offsets


def _pack_sequences(frames, offsets, metric_code):
    """Sequences as the compiled kernels take them: ``(frames, offsets, blocks, norms)``, from
    the output of :func:`_concatenate_sequences`; ``blocks`` as :func:`_transposed_blocks`
    stores them, ``norms`` the frame lengths (cosine only, see
    :func:`course_lib.dtw.local_costs.local_cost_row`)."""
    blocks = _transposed_blocks(frames, offsets)
    return frames, offsets, blocks, _frame_norms(frames, metric_code)


def _transposed_blocks(frames: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sequences stored one after the other, each transposed: sequence s (rows
    ``offsets[s]:offsets[s + 1]`` of ``frames``) becomes the (d, m_s) block
    :func:`_sequence_block` returns. One sequence's numbers stay together in memory, which the
    cache rewards."""
    return np.concatenate([frames[a:b].T.ravel() for a, b in zip(offsets[:-1], offsets[1:])])


@njit(cache=True)
def _sequence_block(blocks, offsets, s):
    """Sequence s of :func:`_transposed_blocks` as a (d, m_s) array (a view)."""
    m = offsets[s + 1] - offsets[s]
    dim = blocks.shape[0] // offsets[-1]
    return blocks[offsets[s] * dim:offsets[s + 1] * dim].reshape((dim, m))
