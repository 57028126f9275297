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

**Clustering.** Each pair says "these two stretches sound alike". Fragments of one utterance that
overlap by at least ``min_overlap`` of the shorter one are taken to be one *occurrence*; two
occurrences are linked when a pair joins them; average-linkage clustering of that link graph
groups occurrences that are densely linked (:func:`cluster_fragments`; Park & Glass cluster a
similar graph by modularity). Ideally one cluster per recurring word.

**Measuring it afterwards.** Only now are labels used: given each utterance's word spans (start
and end frame of every word token), a fragment's *word* is the token that overlaps most of its
frames. A pair is *right* when both fragments have the same word (:func:`evaluate_discoveries`).
Precision is the fraction of right pairs; coverage the fraction of all word tokens that are the
word of a fragment in at least one right pair.

References: A. Park and J. Glass, "Unsupervised pattern discovery in speech", IEEE Trans. Audio,
Speech and Language Processing 16(1), 2008 (segmental DTW, least-average subsequences, graph
clustering); Y.-L. Lin, T. Jiang and K.-M. Chao, "Efficient algorithms for locating the
length-constrained heaviest segments", J. Computer and System Sciences, 2002 (the ``2L - 1``
bound used in step 4).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from tqdm.auto import tqdm

from .dtw import local_cost_matrix
from .dtw_sequences import as_sequence, as_sequence_list
from .validation import as_bool, as_float_array, as_positive_float, as_positive_int, check_choice

__all__ = [ "DEFAULT_THRESHOLD", "Fragment", "BandFragment",
           "SegmentalDTWResult", "DiscoveredPair", "DiscoveryReport", "band_offsets",
           "band_alignment", "least_average_segment", "segmental_dtw", "discover_pairs",
           "cluster_fragments", "fragment_word", "evaluate_discoveries"]

_DISCOVERY_METRICS = ("cosine", "euclidean", "sqeuclidean")
# Cosine distances of unrelated mean-normalised frames are about 1 and the best band fragments of
# unrelated speech stay above about 0.4 (the lecture's histogram); a quarter keeps to near copies.
DEFAULT_THRESHOLD = 0.25


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
    """The least-average-distortion stretch of one band's path (steps 3-4 of the module doc).

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


@dataclass(frozen=True, eq=False)
class DiscoveryReport:
    """How many discovered pairs are right, judged by known word spans.

    ``words[k]`` is the (first, second) word of pair k (see :func:`fragment_word`), ``correct[k]``
    whether they agree; ``found_tokens[u]`` flags the word tokens of utterance u that are the word
    of a fragment in a right pair.
    """

    words: list[tuple]
    correct: np.ndarray
    found_tokens: list[np.ndarray]

    @property
    def n_pairs(self) -> int:
        return int(self.correct.size)

    @property
    def precision(self) -> float:
        """Fraction of the pairs whose two fragments have the same word (NaN without pairs)."""
        return float(np.mean(self.correct)) if self.correct.size else float("nan")

    @property
    def coverage(self) -> float:
        """Fraction of all word tokens found by at least one right pair."""
        return float(np.mean(np.concatenate(self.found_tokens)))


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
    """Step 4: (start, end, mean) of the lowest-mean stretch of >= min_length values."""
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

def band_offsets(n: int, m: int, band_radius: int, min_length: int) -> np.ndarray:
    """Diagonal offsets ``c`` of the bands (step 2): multiples of R whose diagonal has >= L cells.

    The diagonal ``j - i = c`` of an ``n x m`` matrix has ``min(n, m - c)`` cells for ``c >= 0``
    and ``min(m, n + c)`` for ``c < 0``, so ``-(n - L) <= c <= m - L``.
    """
    n, m = as_positive_int(n, "n"), as_positive_int(m, "m")
    band_radius, min_length = _check_band(band_radius, min_length)
    if min(n, m) < min_length:
        return np.empty(0, dtype=np.int64)
    below = -np.arange(band_radius, n - min_length + 1, band_radius)[::-1]
    above = np.arange(0, m - min_length + 1, band_radius)
    return np.concatenate([below, above]).astype(np.int64)


def band_alignment(cost, offset: int, band_radius: int) -> np.ndarray:
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


def least_average_segment(values, min_length: int) -> tuple[int, int, float]:
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
    cost = local_cost_matrix(x, y, metric=metric)
    offsets = band_offsets(len(x), len(y), band_radius, min_length)
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
            if np.any(np.all(s == 0, axis=1)):
                raise ValueError(f"utterances[{k}]: cosine distance is undefined for an "
                                 f"all-zero frame")
    pairs = list(itertools.combinations(range(len(sequences)), 2))
    found: list[DiscoveredPair] = []
    for a, b in tqdm(pairs, desc="utterance pairs", disable=not progress):
        cost = local_cost_matrix(sequences[a], sequences[b], metric=metric)
        offsets = band_offsets(*cost.shape, band_radius, min_length)
        found.extend(_keep_best(_band_fragments(cost, offsets, band_radius, min_length), a, b,
                                threshold))
    return sorted(found, key=lambda p: p.distortion)


def _check_pairs(pairs) -> list[DiscoveredPair]:
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs: expected a list of DiscoveredPair, got {type(pairs).__name__}")
    pairs = list(pairs)
    for k, pair in enumerate(pairs):
        if not isinstance(pair, DiscoveredPair):
            raise TypeError(f"pairs[{k}]: expected a DiscoveredPair, got {type(pair).__name__}")
    return pairs


def _occurrences(fragments: list[Fragment], min_overlap: float) -> list[list[int]]:
    """Indices of ``fragments`` grouped into occurrences: within one utterance, fragments that
    share at least ``min_overlap`` of the shorter one's frames (and chains of such)."""
    parent = list(range(len(fragments)))

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in itertools.combinations(range(len(fragments)), 2):
        fa, fb = fragments[a], fragments[b]
        if fa.overlap(fb) >= min_overlap * min(fa.length, fb.length):
            parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for k in range(len(fragments)):
        groups.setdefault(root(k), []).append(k)
    return list(groups.values())


def cluster_fragments(pairs, *, min_overlap: float = 0.5,
                      min_link_fraction: float = 0.3) -> list[list[Fragment]]:
    """Group what the discovered ``pairs`` found into clusters of occurrences of one pattern.

    1. **Occurrences.** Fragments of one utterance that share at least ``min_overlap`` of the
       shorter one's frames are the same occurrence; it spans all their frames.
    2. **Links.** Two occurrences are linked when a discovered pair joins fragments of them.
    3. **Average linkage.** Starting from single occurrences, the two clusters with the largest
       fraction of linked occurrence pairs between them are merged, as long as that fraction is
       at least ``min_link_fraction`` (agglomerative clustering with average linkage on the
       distance 0 = linked, 1 = not). Unlike connected components, one wrong pair cannot chain
       two words' clusters together: a merge needs many links.

    Returns the clusters, largest first; each is a list of occurrences (a :class:`Fragment` per
    occurrence, sorted by utterance and start).
    """
    pairs = _check_pairs(pairs)
    min_overlap = _as_fraction(min_overlap, "min_overlap")
    min_link_fraction = _as_fraction(min_link_fraction, "min_link_fraction")
    fragments = sorted({f for p in pairs for f in (p.first, p.second)},
                       key=lambda f: (f.utterance, f.start, f.end))
    if not fragments:
        return []
    groups = _occurrences(fragments, min_overlap)
    occurrence_of = {fragments[k]: g for g, members in enumerate(groups) for k in members}
    spans = [Fragment(fragments[members[0]].utterance,
                      min(fragments[k].start for k in members),
                      max(fragments[k].end for k in members)) for members in groups]
    linked = np.zeros((len(groups), len(groups)), dtype=bool)
    for p in pairs:
        a, b = occurrence_of[p.first], occurrence_of[p.second]
        linked[a, b] = linked[b, a] = True
    distance = 1.0 - linked
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    labels = fcluster(tree, t=1.0 - min_link_fraction, criterion="distance")
    clusters: dict[int, list[Fragment]] = {}
    for label, span in zip(labels, spans):
        clusters.setdefault(int(label), []).append(span)
    return sorted((sorted(c, key=lambda f: (f.utterance, f.start)) for c in clusters.values()),
                  key=lambda c: (-len(c), c[0].utterance, c[0].start))


def _as_fraction(value, name: str) -> float:
    value = as_positive_float(value, name)
    if value > 1:
        raise ValueError(f"{name}: a fraction, at most 1, got {value}")
    return value


# --------------------------------------------------------------------------------------------
# Evaluation with known word spans
# --------------------------------------------------------------------------------------------

def _check_spans(word_spans, transcripts):
    if isinstance(word_spans, (str, bytes)) or not hasattr(word_spans, "__len__"):
        raise TypeError(f"word_spans: expected one (W_u, 2) array per utterance, got "
                        f"{type(word_spans).__name__}")
    if isinstance(transcripts, (str, bytes)) or not hasattr(transcripts, "__len__"):
        raise TypeError(f"transcripts: expected one word sequence per utterance, got "
                        f"{type(transcripts).__name__}")
    if len(transcripts) != len(word_spans):
        raise ValueError(f"transcripts: expected one per utterance of word_spans "
                         f"({len(word_spans)}), got {len(transcripts)}")
    spans = []
    for u, (s, words) in enumerate(zip(word_spans, transcripts)):
        s = as_float_array(s, f"word_spans[{u}]", ndim=2)
        if s.shape != (len(words), 2) or np.any(s != np.round(s)) or np.any(s[:, 1] < s[:, 0]):
            raise ValueError(f"word_spans[{u}]: expected {len(words)} rows [start, end] of "
                             f"frame numbers with start <= end (one per word of "
                             f"transcripts[{u}]), got shape {s.shape}")
        spans.append(s.astype(np.int64))
    return spans


def fragment_word(fragment: Fragment, word_spans, transcripts):
    """``(word, token)``: the word token of the fragment's utterance that overlaps most of its
    frames (the first on ties), or ``(None, -1)`` if it overlaps none."""
    if not isinstance(fragment, Fragment):
        raise TypeError(f"fragment: expected a Fragment, got {type(fragment).__name__}")
    spans = _check_spans(word_spans, transcripts)
    if not 0 <= fragment.utterance < len(spans):
        raise ValueError(f"fragment: utterance {fragment.utterance} is not one of the "
                         f"{len(spans)} utterances of word_spans")
    return _word_of(fragment, spans[fragment.utterance], transcripts[fragment.utterance])


def _word_of(fragment, spans, words):
    shared = np.minimum(spans[:, 1], fragment.end) - np.maximum(spans[:, 0], fragment.start) + 1
    token = int(np.argmax(shared))
    return (words[token], token) if shared[token] > 0 else (None, -1)


def evaluate_discoveries(pairs, word_spans, transcripts) -> DiscoveryReport:
    """Judge discovered ``pairs`` with the known word spans of every utterance.

    ``word_spans[u]`` is a (W_u, 2) array of [start, end] frames (inclusive) of the words
    ``transcripts[u]`` (a sequence of W_u words or digits). A pair is right when both fragments
    have the same :func:`fragment_word`; a fragment that overlaps no word never is.
    """
    pairs = _check_pairs(pairs)
    spans = _check_spans(word_spans, transcripts)
    found = [np.zeros(len(s), dtype=bool) for s in spans]
    words, correct = [], []
    for k, pair in enumerate(pairs):
        labelled = []
        for f in (pair.first, pair.second):
            if not 0 <= f.utterance < len(spans):
                raise ValueError(f"pairs[{k}]: utterance {f.utterance} is not one of the "
                                 f"{len(spans)} utterances of word_spans")
            labelled.append(_word_of(f, spans[f.utterance], transcripts[f.utterance]))
        (word_a, token_a), (word_b, token_b) = labelled
        right = word_a is not None and word_a == word_b
        if right:
            found[pair.first.utterance][token_a] = True
            found[pair.second.utterance][token_b] = True
        words.append((word_a, word_b))
        correct.append(right)
    return DiscoveryReport(words, np.array(correct, dtype=bool), found)
