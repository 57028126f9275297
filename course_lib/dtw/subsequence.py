"""DTW inside a longer recording (Unit 1): subsequence DTW and connected words.

**Subsequence DTW** (query-by-example; Giorgino 2009, open begin and end): where does a query
of n frames best match inside a reference of m >= n frames? The recursion of
:mod:`course_lib.dtw.alignment`, except that every reference frame may start a path
(``D(0, j) = m(1) d(0, j)``) and a path may end in any cell ``(n - 1, j)`` of the last row.
:func:`subsequence_dtw` finds the best match, :func:`find_matches` several that do not overlap.

**Connected words with a known transcript** (:func:`align_words`): the word templates joined
into one reference and aligned to the utterance by plain DTW.

Notation, step patterns and local distances as in :mod:`course_lib.dtw.alignment`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .alignment import (_NO_PATH, NoWarpingPathError, _accumulate, backtrack, dtw_from_cost_matrix,
                        _local_cost_matrix_trusted)
from .local_costs import _metric_terms
from .alignment import as_sequence, as_sequence_list, _check_same_dim
from .step_patterns import StepPattern, get_step_pattern
from ..validation import as_positive_float, as_positive_int

__all__ = ["SubsequenceMatch", "SubsequenceResult", "subsequence_dtw", "find_matches",
           "align_words"]


def _subsequence_pattern(step_pattern: str | StepPattern) -> StepPattern:
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

    ``cost``, ``accumulated``, ``steps``: (n, m) as in :class:`course_lib.dtw.alignment.DTWResult`, but
    every cell of row 0 may start a path. ``matching_cost`` (m,): ``D(n - 1, j) / M_phi``, the
    cost of the best match ending at reference frame j (``M_phi = n`` for asymmetric, 1 for symmetric1).
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
        return self._match(end)

    def _match(self, end: int) -> SubsequenceMatch:
        """:meth:`match_ending_at` for an ``end`` with a finite matching cost."""
        path = backtrack(self.steps, self.cost.shape[0] - 1, end, self.step_pattern)
        return SubsequenceMatch(int(path[0, 1]), end, float(self.matching_cost[end]), path)


def subsequence_dtw(query, reference, *, step_pattern: str | StepPattern = "asymmetric",
                    metric: str = "euclidean", variances=None) -> SubsequenceResult:
    """Find where ``query`` (n, d) best matches inside ``reference`` (m, d), free start and end.
    Lecture 01, section 9 (Query-by-example: finding a spoken word inside a longer utterance).

    Same recursion as :func:`dtw` except that every reference frame may be the first
    (``D(0, j) = m(1) d(0, j)``) and the path may end at any ``(n - 1, j)``. The matching cost
    ``D(n - 1, j) / M_phi`` can only be compared across end points when ``M_phi`` does not
    depend on the matched span, so the pattern must normalise by ``n`` (asymmetric, the
    default and dtw-python's requirement for open begin/end) or not at all (symmetric1, raw
    sum). The query must not be longer than the reference.
    """
    query, reference = as_sequence(query, "query"), as_sequence(reference, "reference")
    _check_same_dim(query, reference, "query", "reference")
    pattern = _subsequence_pattern(step_pattern)
    n, m = query.shape[0], reference.shape[0]
    if n > m:
        raise ValueError(f"query: has {n} frames, longer than the reference ({m} frames)")
    cost = _local_cost_matrix_trusted(
        query, reference, _metric_terms(metric, variances, query, reference, ("query", "reference")))
    lo, hi = np.zeros(n, dtype=np.int64), np.full(n, m - 1, dtype=np.int64)  # no band
    D = np.full((n, m), np.inf)
    steps = np.full((n, m), _NO_PATH, dtype=np.int8)
    _accumulate(cost, lo, hi, *pattern.arrays(), pattern.start_weight, True, D, steps, True)
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
        match = result._match(int(end))
        if np.any(covered[match.start:match.end + 1]):
            covered[end] = True
            continue
        covered[match.start:match.end + 1] = True
        matches.append(match)
    return matches


# ----------------------------------------------------------------------------- connected words

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
    reference = np.concatenate(templates)
    cost = _local_cost_matrix_trusted(
        utterance, reference,
        _metric_terms(metric, None, utterance, reference, ("utterance", "word_templates")))
    path = dtw_from_cost_matrix(cost, step_pattern=step_pattern, band=band).path
    word_of_cell = np.searchsorted(boundaries, path[:, 1], side="right") - 1
    spans = np.empty((len(templates), 2), dtype=np.int64)
    for w in range(len(templates)):
        rows = path[word_of_cell == w, 0]
        if rows.size == 0:
            raise ValueError(f"step_pattern: the optimal path skips every frame of word {w}; "
                             f"use a pattern that visits every template frame")
        spans[w] = rows.min(), rows.max()
    return spans
