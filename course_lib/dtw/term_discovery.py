"""Spoken term discovery (Unit 1): find words that recur across utterances, without labels.

Query-by-example needs a spoken query. Term discovery has none: it compares every pair of
utterances and looks for stretches of one that match a stretch of the other, so it finds the
words that recur in a collection without being told what or where they are. The method here is
*segmental DTW* (Park & Glass 2008), in four steps. Rows are frames throughout; ``X`` has ``n``
frames, ``Y`` has ``m``; frames are 0-based.

1. **Local costs.** ``d(i, j)`` between every frame of ``X`` and of ``Y``: by default the cosine
   distance ``1 - x_i.y_j / (|x_i| |y_j|)``, which is 0 for frames that point the same way and
   about 1 for unrelated frames of mean-normalised features, whatever the speaker's loudness.

2. **Diagonal bands.** A recurring word shows up as a short, nearly diagonal valley of low cost
   somewhere in the ``n x m`` matrix; where it starts in either utterance is unknown. Band ``c``
   (an offset of the diagonal) holds the cells

       B_c = {(i, j) : |(j - i) - c| <= R},      c = ..., -2R, -R, 0, R, 2R, ...

   (``R = band_radius``): bands of width ``2R + 1`` every ``R`` frames, so neighbouring bands
   overlap and every cell lies in at least one band. Offsets are kept while the diagonal ``j - i
   = c`` has at least ``L = min_length`` cells.

3. **Alignment inside a band.** DTW from the cell where the diagonal enters the matrix,
   ``(i_0, j_0) = (max(0, -c), max(0, c))``, to where it leaves it, with the symmetric1 moves:

       D(i_0, j_0) = d(i_0, j_0),
       D(i, j) = d(i, j) + min{D(i-1, j-1), D(i, j-1), D(i-1, j)}    over cells of B_c,

   and back-tracking from the end cell gives the band's path ``p_1, ..., p_K``. The band keeps
   the path near the diagonal, so one stretch of X cannot absorb a long stretch of Y.

4. **The least-average-distortion fragment.** Along the path the local costs are
   ``a_k = d(p_k)``. The fragment of the band is the stretch of at least ``L`` path cells with
   the lowest mean cost,

       (s*, e*) = argmin_{e - s + 1 >= L}  (1 / (e - s + 1)) sum_{k=s}^{e} a_k,

   its **distortion** is that mean. A stretch of ``2L`` or more cells splits into two stretches
   of at least ``L`` cells, one of which has a mean no larger than the whole, so only lengths
   ``L .. 2L - 1`` need to be searched: ``O(K L)`` per band.

A band's fragment is a **discovered pair** when its distortion is at most ``threshold``.
Neighbouring bands often find the same match twice; of pairs that overlap in both utterances only
the one with the lowest distortion is kept.

The types. A :class:`Fragment` is frames ``start..end`` of one utterance, a :class:`BandFragment`
the least-average stretch of one band's path (:func:`segmental_dtw` returns them in a
:class:`SegmentalDTWResult`), a :class:`DiscoveredPair` two fragments that sound alike
(:func:`discover_pairs`). Clustering the pairs into word-like units
(:mod:`course_lib.dtw.term_clusters`) and judging them with known word spans
(:mod:`course_lib.dtw.term_evaluation`) take these pairs, checked by :func:`_check_pairs`.
Frames are 0-based and spans inclusive.

References: A. Park and J. Glass, "Unsupervised pattern discovery in speech", IEEE Trans. Audio,
Speech and Language Processing 16(1), 2008 (segmental DTW, least-average subsequences, graph
clustering); Y.-L. Lin, T. Jiang and K.-M. Chao, "Efficient algorithms for locating the
length-constrained heaviest segments", J. Computer and System Sciences, 2002 (the ``2L - 1``
bound used in step 4).
"""

from __future__ import annotations

import itertools
import numpy as np
from dataclasses import dataclass
from numba import njit
from tqdm.auto import tqdm

from ..validation import (as_bool, as_float_array, as_positive_float, as_positive_int,
                          check_choice)
from .local_costs import _check_nonzero_frames, _plain_metric_terms
from .alignment import as_sequence, as_sequence_list, _local_cost_matrix_trusted


__all__ = ["DEFAULT_THRESHOLD", "SegmentalDTWResult", "segmental_dtw", "discover_pairs", "Fragment",
           "BandFragment", "DiscoveredPair"]

_DISCOVERY_METRICS = ("cosine", "euclidean", "sqeuclidean")
# Cosine distances of unrelated mean-normalised frames are about 1 and the best band fragments of
# unrelated speech stay above about 0.4 (the lecture's histogram); a quarter keeps to near copies.
DEFAULT_THRESHOLD = 0.25


@dataclass(frozen=True, eq=False)
class SegmentalDTWResult:
    """Segmental DTW of one pair: the local costs (n, m) and one fragment per band."""

    cost: np.ndarray
    band_radius: int
    min_length: int
    metric: str
    fragments: list[BandFragment]

    def discovered(self, threshold: float | None = None) -> list["DiscoveredPair"]:
        """The band fragments with distortion <= ``threshold`` as pairs of utterances 0 and 1,
        best first, without those that overlap a better one in both (as in
        :func:`discover_pairs`)."""
        return _keep_best(self.fragments, 0, 1, _check_threshold(threshold, self.metric))


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------

def _check_band(band_radius, min_length):
    return (as_positive_int(band_radius, "band_radius"),
            as_positive_int(min_length, "min_length", minimum=2))


def _check_threshold(threshold, metric):
    if threshold is None:
        if metric != "cosine":
            raise ValueError(f"threshold: there is no default for metric {metric!r} (its "
                             f"distances have the scale of the features); pass one")
        return DEFAULT_THRESHOLD
    return as_positive_float(threshold, "threshold")


# --------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------

@njit(cache=True)
def _band_path(cost, offset, radius):
    """Steps 3 of the module docstring: the DTW path of band ``offset``, rows (i, j).
    Lecture 01, section 10 (Spoken term discovery: recurring words without any labels).

    D is stored per row for the ``2R + 1`` band cells: column k of row i is cell
    ``j = i + offset + k - R``, so the diagonal predecessor has the same k, the one to the left
    k - 1 and the one below k + 1. Move codes: -1 start, 0 diagonal, 1 along j, 2 along i.
    """
    n, m = cost.shape
    width = 2 * radius + 1
    i_start, j_start = max(0, -offset), max(0, offset)
    i_end = min(n - 1, m - 1 - offset)
    D = np.full((n, width), np.inf)
    move = np.zeros((n, width), dtype=np.int8)
    for i in range(i_start, i_end + 1):
        for k in range(width):
            j = i + offset + k - radius
            if j < 0 or j >= m:
                continue
            if i == i_start and j == j_start:
                D[i, k] = cost[i, j]
                move[i, k] = -1
                continue
            best, code = np.inf, 0
            if i > i_start and D[i - 1, k] < best:
                best, code = D[i - 1, k], 0
            if k > 0 and D[i, k - 1] < best:
                best, code = D[i, k - 1], 1
            if i > i_start and k < width - 1 and D[i - 1, k + 1] < best:
                best, code = D[i - 1, k + 1], 2
            if best < np.inf:
                D[i, k] = best + cost[i, j]
                move[i, k] = code
    path = np.empty((n + m, 2), dtype=np.int64)
    length = 0
    i, k = i_end, radius
    while True:
        path[length, 0] = i
        path[length, 1] = i + offset + k - radius
        length += 1
        code = move[i, k]
        if code == -1:
            break
        if code == 0:
            i -= 1
        elif code == 1:
            k -= 1
        else:
            i -= 1
            k += 1
    return path[:length][::-1].copy()


@njit(cache=True)
def _least_average(values, min_length):
    """Step 4: (start, end, mean) of the lowest-mean stretch of >= min_length values.
    Lecture 01, section 10 (Spoken term discovery: recurring words without any labels)."""
    K = values.shape[0]
    prefix = np.zeros(K + 1)
    for k in range(K):
        prefix[k + 1] = prefix[k] + values[k]
    best, best_start, best_end = np.inf, -1, -1
    for start in range(K - min_length + 1):
        for length in range(min_length, min(2 * min_length, K - start + 1)):
            mean = (prefix[start + length] - prefix[start]) / length
            if mean < best:
                best, best_start, best_end = mean, start, start + length - 1
    return best_start, best_end, best


# --------------------------------------------------------------------------------------------
# One pair
# --------------------------------------------------------------------------------------------

def _band_offsets(n: int, m: int, band_radius: int, min_length: int) -> np.ndarray:
    """Diagonal offsets ``c`` of the bands (step 2): multiples of R whose diagonal has >= L cells.

    The diagonal ``j - i = c`` of an ``n x m`` matrix has ``min(n, m - c)`` cells for ``c >= 0``
    and ``min(m, n + c)`` for ``c < 0``, so ``-(n - L) <= c <= m - L``.
    """
    if min(n, m) < min_length:
        return np.empty(0, dtype=np.int64)
    below = -np.arange(band_radius, n - min_length + 1, band_radius)[::-1]
    above = np.arange(0, m - min_length + 1, band_radius)
    return np.concatenate([below, above]).astype(np.int64)


def _band_alignment(cost, offset: int, band_radius: int) -> np.ndarray:
    """The DTW path (K, 2) inside band ``offset`` of the local cost matrix ``cost`` (step 3)."""
    cost = as_float_array(cost, "cost", ndim=2)
    if np.any(cost < 0):
        raise ValueError("cost: local costs must be >= 0")
    band_radius = as_positive_int(band_radius, "band_radius")
    n, m = cost.shape
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise TypeError(f"offset: expected an integer, got {type(offset).__name__}")
    if not -(n - 1) <= offset <= m - 1:
        raise ValueError(f"offset: the diagonal j - i = {offset} misses the {n} x {m} matrix "
                         f"(allowed {-(n - 1)} .. {m - 1})")
    return _band_path(np.ascontiguousarray(cost), int(offset), band_radius)


def _least_average_segment(values, min_length: int) -> tuple[int, int, float]:
    """``(start, end, mean)`` of the stretch of at least ``min_length`` values with the lowest
    mean (step 4; ``end`` inclusive; the first such stretch on ties)."""
    values = as_float_array(values, "values", ndim=1)
    min_length = as_positive_int(min_length, "min_length")
    if min_length > len(values):
        raise ValueError(f"min_length: {min_length} is more than the {len(values)} values")
    start, end, mean = _least_average(np.ascontiguousarray(values), min_length)
    return int(start), int(end), float(mean)


def _band_fragments(cost, offsets, band_radius, min_length) -> list[BandFragment]:
    found = []
    for offset in offsets:
        path = _band_path(cost, int(offset), band_radius)
        if len(path) < min_length:
            continue
        start, end, mean = _least_average(cost[path[:, 0], path[:, 1]], min_length)
        found.append(BandFragment(int(offset), path, int(start), int(end), float(mean)))
    return found


def segmental_dtw(x, y, *, band_radius: int = 10, min_length: int = 25,
                  metric: str = "cosine") -> SegmentalDTWResult:
    """Steps 1-4 of the module docstring for one pair ``x`` (n, d), ``y`` (m, d).

    Returns the local cost matrix and, for every band, its path and least-average fragment,
    before any threshold (so a figure can show them all).
    """
    x, y = as_sequence(x, "x"), as_sequence(y, "y")
    band_radius, min_length = _check_band(band_radius, min_length)
    check_choice(metric, "metric", _DISCOVERY_METRICS)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"y: has {y.shape[1]} features per frame but x has {x.shape[1]}")
    if metric == "cosine":
        _check_nonzero_frames(x, "x")
        _check_nonzero_frames(y, "y")
    cost = _local_cost_matrix_trusted(x, y, _plain_metric_terms(metric, x.shape[1]))
    offsets = _band_offsets(len(x), len(y), band_radius, min_length)
    return SegmentalDTWResult(cost, band_radius, min_length, metric,
                              _band_fragments(cost, offsets, band_radius, min_length))


# --------------------------------------------------------------------------------------------
# A collection
# --------------------------------------------------------------------------------------------

def _overlaps_in_both(a: DiscoveredPair, b: DiscoveredPair) -> bool:
    return a.first.overlap(b.first) > 0 and a.second.overlap(b.second) > 0


def _keep_best(fragments, first: int, second: int, threshold: float) -> list[DiscoveredPair]:
    """Band fragments of utterances ``first`` and ``second`` with distortion <= threshold, best
    first, dropping each that overlaps an already kept one in both utterances."""
    kept: list[DiscoveredPair] = []
    for f in sorted((f for f in fragments if f.distortion <= threshold),
                    key=lambda f: f.distortion):
        pair = DiscoveredPair(Fragment(first, *f.first_span), Fragment(second, *f.second_span),
                              f.distortion, f.path[f.path_start:f.path_end + 1])
        if not any(_overlaps_in_both(pair, other) for other in kept):
            kept.append(pair)
    return kept


def discover_pairs(utterances, *, band_radius: int = 10, min_length: int = 25,
                   threshold: float | None = None, metric: str = "cosine",
                   progress: bool = False) -> list[DiscoveredPair]:
    """Segmental DTW between every pair of ``utterances`` (a list of (T_k, d) arrays).

    Returns the discovered pairs (distortion <= ``threshold``; for the cosine metric the default
    is :data:`DEFAULT_THRESHOLD`), lowest distortion first, with ``first.utterance <
    second.utterance``. Within one pair of utterances a fragment pair overlapping a better one in
    both utterances is dropped. An utterance is not compared with itself.
    """
    sequences = as_sequence_list(utterances, "utterances")
    if len(sequences) < 2:
        raise ValueError(f"utterances: need at least two to compare, got {len(sequences)}")
    band_radius, min_length = _check_band(band_radius, min_length)
    check_choice(metric, "metric", _DISCOVERY_METRICS)
    threshold = _check_threshold(threshold, metric)
    progress = as_bool(progress, "progress")
    if metric == "cosine":
        for k, s in enumerate(sequences):
            _check_nonzero_frames(s, f"utterances[{k}]")
    local = _plain_metric_terms(metric, sequences[0].shape[1])
    pairs = list(itertools.combinations(range(len(sequences)), 2))
    found: list[DiscoveredPair] = []
    for a, b in tqdm(pairs, desc="utterance pairs", disable=not progress):
        cost = _local_cost_matrix_trusted(sequences[a], sequences[b], local)
        offsets = _band_offsets(*cost.shape, band_radius, min_length)
        found.extend(_keep_best(_band_fragments(cost, offsets, band_radius, min_length), a, b,
                                threshold))
    return sorted(found, key=lambda p: p.distortion)


@dataclass(frozen=True)
class Fragment:
    """Frames ``start..end`` (inclusive) of utterance number ``utterance``."""

    utterance: int
    start: int
    end: int

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    def overlap(self, other: "Fragment") -> int:
        """Frames shared with ``other`` (0 if they belong to different utterances)."""
        if other.utterance != self.utterance:
            return 0
        return max(0, min(self.end, other.end) - max(self.start, other.start) + 1)


@dataclass(frozen=True, eq=False)
class BandFragment:
    """The least-average-distortion stretch of one band's path (steps 3-4 of
    :mod:`course_lib.dtw.term_discovery`).

    ``path`` (K, 2) is the band's whole alignment, rows ``(i, j)``; the fragment is
    ``path[path_start:path_end + 1]`` and ``distortion`` the mean local cost along it.
    """

    offset: int
    path: np.ndarray
    path_start: int
    path_end: int
    distortion: float

    @property
    def first_span(self) -> tuple[int, int]:
        return int(self.path[self.path_start, 0]), int(self.path[self.path_end, 0])

    @property
    def second_span(self) -> tuple[int, int]:
        return int(self.path[self.path_start, 1]), int(self.path[self.path_end, 1])


@dataclass(frozen=True, eq=False)
class DiscoveredPair:
    """Two fragments, of utterances ``first.utterance < second.utterance``, that sound alike.

    ``path`` (K, 2) pairs frames of the first fragment (column 0) with frames of the second
    (column 1); ``distortion`` is the mean local cost along it.
    """

    first: Fragment
    second: Fragment
    distortion: float
    path: np.ndarray


def _check_pairs(pairs) -> list[DiscoveredPair]:
    """``pairs`` as a list, refused by name unless every item is a :class:`DiscoveredPair`."""
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs: expected a list of DiscoveredPair, got {type(pairs).__name__}")
    pairs = list(pairs)
    for k, pair in enumerate(pairs):
        if not isinstance(pair, DiscoveredPair):
            raise TypeError(f"pairs[{k}]: expected a DiscoveredPair, got {type(pair).__name__}")
    return pairs
