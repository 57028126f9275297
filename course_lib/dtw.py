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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from .validation import as_float_array, as_positive_int, as_positive_float, as_rng, check_choice

METRICS = ("euclidean", "sqeuclidean", "cosine", "gaussian_nll")
_METRIC_CODE = {name: code for code, name in enumerate(METRICS)}
_START = -1      # step code of a cell where a path starts
_NO_PATH = -2    # step code of a cell no path reaches (or outside the band)


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
    ``normalization`` is ``"n+m"``, ``"n"`` or ``"none"`` (see the module docstring table).
    """

    name: str
    moves: tuple
    start_weight: float
    normalization: str

    def __post_init__(self):
        check_choice(self.normalization, "normalization", {"n+m", "n", "none"})
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

    def normalizer(self, n: int, m: int) -> float | None:
        """``M_phi`` for lengths ``n`` and ``m``, or None when it depends on the path."""
        return {"n+m": float(n + m), "n": float(n), "none": None}[self.normalization]

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


STEP_PATTERNS = {
    "symmetric1": StepPattern("symmetric1", (
        ((1, 1), ((0, 0, 1.0),)),
        ((0, 1), ((0, 0, 1.0),)),
        ((1, 0), ((0, 0, 1.0),)),
    ), start_weight=1.0, normalization="none"),
    "symmetric2": StepPattern("symmetric2", (
        ((1, 1), ((0, 0, 2.0),)),
        ((0, 1), ((0, 0, 1.0),)),
        ((1, 0), ((0, 0, 1.0),)),
    ), start_weight=2.0, normalization="n+m"),
    "asymmetric": StepPattern("asymmetric", (
        ((1, 0), ((0, 0, 1.0),)),
        ((1, 1), ((0, 0, 1.0),)),
        ((1, 2), ((0, 0, 1.0),)),
    ), start_weight=1.0, normalization="n"),
    "symmetricP1": StepPattern("symmetricP1", (
        ((1, 2), ((0, 1, 2.0), (0, 0, 1.0))),
        ((1, 1), ((0, 0, 2.0),)),
        ((2, 1), ((1, 0, 2.0), (0, 0, 1.0))),
    ), start_weight=2.0, normalization="n+m"),
}


# Sakoe & Chiba's slope constraint P = 1 on the asymmetric pattern (dtw-python's asymmetricP1):
# every query frame still carries total weight 1, so M_phi = n and matching costs of
# subsequence matches of different lengths stay comparable.
ASYMMETRIC_P1 = StepPattern("asymmetricP1", (
    ((1, 2), ((0, 1, 0.5), (0, 0, 0.5))),
    ((1, 1), ((0, 0, 1.0),)),
    ((2, 1), ((1, 0, 1.0), (0, 0, 1.0))),
), start_weight=1.0, normalization="n")


def get_step_pattern(step_pattern: str | StepPattern) -> StepPattern:
    """Look up a step pattern by name (``STEP_PATTERNS``) or pass a :class:`StepPattern` on."""
    if isinstance(step_pattern, StepPattern):
        return step_pattern
    check_choice(step_pattern, "step_pattern", STEP_PATTERNS)
    return STEP_PATTERNS[step_pattern]


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------

def as_sequence(x, name: str) -> np.ndarray:
    """A finite ``(n, d)`` float64 C-contiguous sequence (rows are frames); 1-D -> ``(n, 1)``."""
    arr = as_float_array(x, name, ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr[:, None]
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


def _check_same_dim(x, y, x_name, y_name):
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"{y_name}: has {y.shape[1]} features per frame but {x_name} has "
                         f"{x.shape[1]}")


def _as_band(band) -> int:
    """-1 for no band, else the radius r >= 0."""
    return -1 if band is None else as_positive_int(band, "band", minimum=0)


def _gaussian_terms(variances, m: int, d: int, per_frame_ok: bool = True):
    """1 / variance and the log normaliser 0.5 sum log(2 pi var), one row per template frame."""
    var = np.ones(d) if variances is None else as_float_array(variances, "variances", (1, 2))
    allowed = [(d,), (1, d)] + ([(m, d)] if per_frame_ok else [])
    if var.shape not in allowed:
        raise ValueError(f"variances: expected shape {' or '.join(map(str, allowed))}, "
                         f"got {var.shape}")
    if np.any(var <= 0):
        raise ValueError("variances: must all be > 0")
    var = np.atleast_2d(var)
    return np.ascontiguousarray(1.0 / var), 0.5 * np.sum(np.log(2 * np.pi * var), axis=1)


def _metric_terms(metric, variances, x_frames, y_frames, names, per_frame_ok=True):
    """Metric code plus the Gaussian terms (dummies for other metrics); checks cosine norms."""
    check_choice(metric, "metric", _METRIC_CODE)
    d = x_frames.shape[1]
    if metric == "gaussian_nll":
        inv_var, log_norm = _gaussian_terms(variances, y_frames.shape[0], d, per_frame_ok)
    else:
        if variances is not None:
            raise ValueError("variances: only used with metric='gaussian_nll'")
        inv_var, log_norm = np.ones((1, d)), np.zeros(1)
    if metric == "cosine":
        for frames, name in zip((x_frames, y_frames), names):
            if np.any(np.all(frames == 0, axis=1)):
                raise ValueError(f"{name}: cosine distance is undefined for an all-zero frame")
    return _METRIC_CODE[metric], inv_var, log_norm


# --------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _band_limits(n, m, band):
    """First and last allowed column of each row (see the band definition in the docstring)."""
    lo = np.zeros(n, dtype=np.int64)
    hi = np.full(n, m - 1, dtype=np.int64)
    if band >= 0:
        below = band + max(0, n - m)
        above = band + max(0, m - n)
        for i in range(n):
            lo[i] = max(0, i - below)
            hi[i] = min(m - 1, i + above)
    return lo, hi


# Reassociating the sums over features lets LLVM vectorise them (about 2x faster overall); it
# changes results only by round-off and keeps exact zeros for identical frames.
@njit(cache=True, fastmath={"reassoc", "contract"})
def _local_cost_row(x, y, i, metric, inv_var, log_norm, x_norm, y_norm, j_lo, j_hi, out):
    """out[i, j] = d(x_i, y_j) for j_lo <= j <= j_hi (metric codes follow ``METRICS``)."""
    dim = x.shape[1]
    shared_var = inv_var.shape[0] == 1
    for j in range(j_lo, j_hi + 1):
        if metric == 2:  # cosine: 1 - <x, y> / (|x| |y|), clipped at 0 against round-off
            dot = 0.0
            for k in range(dim):
                dot += x[i, k] * y[j, k]
            out[i, j] = max(0.0, 1.0 - dot / (x_norm[i] * y_norm[j]))
        elif metric == 3:  # -log N(x_i; mean y_j, diag(var_j))
            row = 0 if shared_var else j
            s = 0.0
            for k in range(dim):
                diff = x[i, k] - y[j, k]
                s += diff * diff * inv_var[row, k]
            out[i, j] = 0.5 * s + log_norm[row]
        else:
            s = 0.0
            for k in range(dim):
                diff = x[i, k] - y[j, k]
                s += diff * diff
            out[i, j] = np.sqrt(s) if metric == 0 else s


@njit(cache=True)
def _frame_norms(x, metric):
    """Frame lengths |x_i| for the cosine metric (unused, empty, for the others)."""
    if metric != 2:
        return np.empty(0)
    return np.sqrt(np.sum(x * x, axis=1))


@njit(cache=True)
def _local_costs(x, y, metric, inv_var, log_norm, lo, hi, out):
    """out[i, j] = d(x_i, y_j) for lo[i] <= j <= hi[i]; other cells are left untouched."""
    x_norm, y_norm = _frame_norms(x, metric), _frame_norms(y, metric)
    for i in range(x.shape[0]):
        _local_cost_row(x, y, i, metric, inv_var, log_norm, x_norm, y_norm, lo[i], hi[i], out)


@njit(cache=True)
def _accumulate_row(i, d, j_lo, j_hi, move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                    start_weight, free_start, D, steps, keep_steps):
    """Row i of the DTW recursion of the slides; D must arrive filled with +inf.

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
    """The whole recursion, row by row (see :func:`_accumulate_row`)."""
    for i in range(d.shape[0]):
        _accumulate_row(i, d, lo[i], hi[i], move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                        start_weight, free_start, D, steps, keep_steps)


def _backtrack_arrays(pattern):
    move_di, move_dj, _, mid_di, mid_dj, mid_w = pattern.arrays()
    return move_di, move_dj, mid_di, mid_dj, mid_w


@njit(cache=True)
def _backtrack(steps, end_i, end_j, move_di, move_dj, mid_di, mid_dj, mid_w):
    """Follow the recorded moves back from (end_i, end_j) to a start cell; path as (L, 2)."""
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


def _pair_distances(x_all, x_off, y_all, y_off, pair_x, pair_y, metric, inv_var, log_norm,
                    band, move_di, move_dj, move_w, mid_di, mid_dj, mid_w, start_weight, out):
    """out[p] = D(n-1, m-1) of x number pair_x[p] against y number pair_y[p] (inf if no path).

    Local costs are computed one row ahead of the recursion, inside the band only.
    """
    no_steps = np.empty((1, 1), dtype=np.int8)
    for p in prange(pair_x.shape[0]):
        x = x_all[x_off[pair_x[p]]:x_off[pair_x[p] + 1]]
        y = y_all[y_off[pair_y[p]]:y_off[pair_y[p] + 1]]
        n, m = x.shape[0], y.shape[0]
        lo, hi = _band_limits(n, m, band)
        x_norm, y_norm = _frame_norms(x, metric), _frame_norms(y, metric)
        d = np.empty((n, m))
        D = np.full((n, m), np.inf)
        for i in range(n):
            _local_cost_row(x, y, i, metric, inv_var, log_norm, x_norm, y_norm, lo[i], hi[i], d)
            _accumulate_row(i, d, lo[i], hi[i], move_di, move_dj, move_w, mid_di, mid_dj, mid_w,
                            start_weight, False, D, no_steps, False)
        out[p] = D[n - 1, m - 1]


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
    _check_same_dim(x, y, "x", "y")
    code, inv_var, log_norm = _metric_terms(metric, variances, x, y, ("x", "y"))
    n, m = x.shape[0], y.shape[0]
    out = np.empty((n, m))
    lo, hi = _band_limits(n, m, -1)
    _local_costs(x, y, code, inv_var, log_norm, lo, hi, out)
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
    (n - 1, m - 1). ``distance``: D(n - 1, m - 1). ``normalizer``: M_phi (None for symmetric1,
    whose path weight sum depends on the path). ``normalized_distance``: distance / M_phi
    (None when M_phi is).
    """

    cost: np.ndarray
    accumulated: np.ndarray
    steps: np.ndarray
    path: np.ndarray
    distance: float
    normalizer: float | None
    normalized_distance: float | None
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
    path = _backtrack(steps, n - 1, m - 1, *_backtrack_arrays(pattern))
    normalizer = pattern.normalizer(n, m)
    normalized = None if normalizer is None else float(distance / normalizer)
    return DTWResult(cost, D, steps, path, float(distance), normalizer, normalized, pattern,
                     band)


def _path_exists(pattern, n, m, band) -> bool:
    """Whether the step pattern joins (0, 0) to (n - 1, m - 1) inside the band at all."""
    lo, hi = _band_limits(n, m, _as_band(band))
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
    return result.distance if result.normalized_distance is None else result.normalized_distance


# --------------------------------------------------------------------------------------------
# Many against many
# --------------------------------------------------------------------------------------------

def _concatenate(sequences):
    offsets = np.cumsum([0] + [len(s) for s in sequences]).astype(np.int64)
    return np.ascontiguousarray(np.concatenate(sequences)), offsets


def dtw_distance_matrix(queries, templates=None, *,
                        step_pattern: str | StepPattern = "symmetric2",
                        metric: str = "euclidean", band: int | None = None, variances=None,
                        normalize: bool | None = None, on_no_path: str = "raise",
                        parallel: bool = False) -> np.ndarray:
    """DTW distances between every query and every template, shape ``(Q, T)``.

    ``queries`` and ``templates`` are lists of ``(n_k, d)`` sequences. With ``templates=None``
    the all-pairs ``(Q, Q)`` matrix of ``queries`` is returned; when the step pattern and the
    metric are symmetric each pair is computed once and mirrored.

    All pairs run in one compiled loop over the concatenated sequences (no Python loop per
    pair); ``parallel=True`` spreads the pairs over numba threads. ``normalize``: None divides
    by ``M_phi`` when the pattern has one (see the module docstring), True requires it, False
    returns the raw ``D(n-1, m-1)``. ``variances`` (gaussian_nll) must be shared, shape
    ``(d,)``. Pairs without a warping path raise :class:`NoWarpingPathError`
    (``on_no_path="raise"``) or get ``+inf`` (``on_no_path="inf"``).
    """
    queries = as_sequence_list(queries, "queries")
    all_pairs = templates is None
    templates = queries if all_pairs else as_sequence_list(templates, "templates")
    _check_same_dim(queries[0], templates[0], "queries", "templates")
    pattern = get_step_pattern(step_pattern)
    r = _as_band(band)
    check_choice(on_no_path, "on_no_path", {"raise", "inf"})
    if normalize not in (None, True, False):
        raise TypeError(f"normalize: expected None, True or False, got {normalize!r}")
    if normalize and pattern.normalization == "none":
        raise ValueError(f"normalize: step pattern {pattern.name!r} admits no normalisation "
                         f"(its path weight sum depends on the path); use normalize=False")
    x_all, x_off = _concatenate(queries)
    y_all, y_off = (x_all, x_off) if all_pairs else _concatenate(templates)
    code, inv_var, log_norm = _metric_terms(metric, variances, x_all, y_all,
                                            ("queries", "templates"), per_frame_ok=False)
    n_q, n_t = len(queries), len(templates)
    mirrored = all_pairs and pattern.is_symmetric and metric != "gaussian_nll"
    if mirrored:
        pair_x, pair_y = np.triu_indices(n_q)
    else:
        pair_x, pair_y = np.indices((n_q, n_t)).reshape(2, -1)
    pair_x, pair_y = pair_x.astype(np.int64), pair_y.astype(np.int64)
    raw = np.empty(len(pair_x))
    kernel = _parallel_kernel() if parallel else _pair_distances_serial
    kernel(x_all, x_off, y_all, y_off, pair_x, pair_y, code, inv_var, log_norm, r,
           *pattern.arrays(), pattern.start_weight, raw)
    if on_no_path == "raise" and not np.all(np.isfinite(raw)):
        p = int(np.flatnonzero(~np.isfinite(raw))[0])
        err = _no_path_error(pattern, band, len(queries[pair_x[p]]), len(templates[pair_y[p]]))
        raise NoWarpingPathError(f"{err} [query {pair_x[p]}, template {pair_y[p]}]")
    if normalize is not False and pattern.normalization != "none":
        n_len = np.diff(x_off)[pair_x]
        m_len = np.diff(y_off)[pair_y]
        raw = raw / (n_len + m_len if pattern.normalization == "n+m" else n_len)
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
                raise ValueError(f"n_per_class: class {c!r} has only {len(members)} items")
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

_SUBSEQUENCE_PATTERNS = ("n", "none")


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
        path = _backtrack(self.steps, self.cost.shape[0] - 1, end,
                          *_backtrack_arrays(self.step_pattern))
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
    _check_same_dim(query, reference, "query", "reference")
    pattern = get_step_pattern(step_pattern)
    if pattern.normalization not in _SUBSEQUENCE_PATTERNS:
        raise ValueError(f"step_pattern: {pattern.name!r} normalises by the matched span, so "
                         f"costs of different matches are not comparable; use 'asymmetric' or "
                         f"'symmetric1'")
    n, m = query.shape[0], reference.shape[0]
    if n > m:
        raise ValueError(f"query: has {n} frames, longer than the reference ({m} frames)")
    cost = local_cost_matrix(query, reference, metric=metric, variances=variances)
    lo, hi = _band_limits(n, m, -1)
    arrays = pattern.arrays()
    D = np.full((n, m), np.inf)
    steps = np.full((n, m), _NO_PATH, dtype=np.int8)
    _accumulate(cost, lo, hi, *arrays, pattern.start_weight, True, D, steps, True)
    matching_cost = D[n - 1] / (pattern.normalizer(n, m) or 1.0)
    if not np.any(np.isfinite(matching_cost)):
        raise NoWarpingPathError(f"step_pattern: {pattern.name!r} cannot match a query of {n} "
                                 f"frames anywhere in the reference")
    end = int(np.argmin(matching_cost))
    path = _backtrack(steps, n - 1, end, *_backtrack_arrays(pattern))
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
    _check_same_dim(utterance, templates[0], "utterance", "word_templates")
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
