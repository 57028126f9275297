"""Unit tests for course_lib.dtw.subsequence: subsequence DTW against plain DTW over every start,
non-overlapping matches, connected words' spans, and bad input naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.dtw.alignment import NoWarpingPathError, dtw
from course_lib.dtw.step_patterns import ASYMMETRIC_P1
from course_lib.dtw.subsequence import align_words, find_matches, subsequence_dtw

INF = np.inf


# --- subsequence DTW ------------------------------------------------------------------------------

def test_subsequence_finds_an_embedded_copy():
    rng = np.random.default_rng(13)
    reference = rng.normal(size=(60, 3))
    query = reference[21:33].copy()
    result = subsequence_dtw(query, reference)
    assert (result.start, result.end) == (21, 32)
    assert result.distance == 0.0
    np.testing.assert_array_equal(result.path, np.stack([np.arange(12), np.arange(21, 33)], 1))
    # the matching cost is D(n-1, j) / n, the free-start recursion's last row
    np.testing.assert_allclose(result.matching_cost, result.accumulated[-1] / 12)


def test_subsequence_free_start_equals_min_over_start_points():
    rng = np.random.default_rng(14)
    query, reference = rng.normal(size=(4, 2)), rng.normal(size=(9, 2))
    result = subsequence_dtw(query, reference, step_pattern="symmetric1")
    for end in range(9):
        best = min(dtw(query, reference[s:end + 1], step_pattern="symmetric1").distance
                   for s in range(end + 1))
        assert result.matching_cost[end] == pytest.approx(best, rel=1e-12)


def test_find_matches_returns_non_overlapping_hits():
    rng = np.random.default_rng(15)
    query = rng.normal(size=(8, 2))
    stretched = np.repeat(query, 2, axis=0)  # the same word said twice as slowly
    reference = np.concatenate([rng.normal(size=(10, 2)) + 3, query, rng.normal(size=(15, 2)) + 3,
                                stretched, rng.normal(size=(10, 2)) + 3])
    matches = find_matches(query, reference, max_matches=2)
    spans = sorted((m.start, m.end) for m in matches)
    assert spans[0] == (10, 17)
    # asymmetric steps consume each query frame once and may skip reference frames, so the
    # slow copy (frames 33..48) is matched at cost 0 by any path through one copy of each frame
    assert 33 <= spans[1][0] <= 34 and 47 <= spans[1][1] <= 48
    assert matches[0].distance == matches[1].distance == 0.0
    assert find_matches(query, reference, max_matches=5, max_distance=0.0)[0].start == 10
    assert all(m.distance <= 0.0 for m in find_matches(query, reference, max_distance=0.0))


def test_asymmetric_p1_subsequence_free_start_and_minimum_span():
    rng = np.random.default_rng(18)
    query, reference = rng.normal(size=(5, 2)), rng.normal(size=(14, 2))
    result = subsequence_dtw(query, reference, step_pattern=ASYMMETRIC_P1)
    for end in range(14):
        candidates = []
        for start in range(end + 1):
            try:
                candidates.append(dtw(query, reference[start:end + 1],
                                      step_pattern=ASYMMETRIC_P1).normalised_distance)
            except NoWarpingPathError:
                pass
        expected = min(candidates) if candidates else INF
        assert result.matching_cost[end] == pytest.approx(expected, rel=1e-12)
    # (dtw-python's open_begin differs here: its virtual zero row lets the first two query
    # frames share one reference frame, so its costs can be lower or higher than ours.)


def test_asymmetric_p1_cannot_squeeze_a_query_onto_one_frame():
    # a flat query equals one reference frame: plain asymmetric maps every query frame onto it
    # (a one-frame match at cost 0), the slope limit forces a span of at least (n + 1) / 2
    query = np.zeros((9, 1))
    reference = np.concatenate([np.full(10, 3.0), [0.0], np.full(10, 3.0)])[:, None]
    loose = subsequence_dtw(query, reference, step_pattern="asymmetric")
    assert (loose.start, loose.end, loose.distance) == (10, 10, 0.0)
    limited = subsequence_dtw(query, reference, step_pattern=ASYMMETRIC_P1)
    assert limited.end - limited.start + 1 >= 5 and limited.distance > 0


# --- word spans by aligning a transcript ---------------------------------------------------

def test_align_words_recovers_the_spans_of_stretched_words():
    rng = np.random.default_rng(19)
    words = [rng.normal(size=(k, 3)) + 4 * w for w, k in enumerate((6, 9, 5))]
    # the utterance says the words at other speeds: each frame repeated 1 or 2 times
    pieces = [np.repeat(word, rng.integers(1, 3, size=len(word)), axis=0) for word in words]
    ends = np.cumsum([len(p) for p in pieces])
    spans = align_words(np.concatenate(pieces), words)
    np.testing.assert_array_equal(spans, np.stack([ends - [len(p) for p in pieces], ends - 1], 1))
    assert spans.dtype == np.int64


def test_align_words_bad_input():
    with pytest.raises(ValueError, match="^word_templates"):
        align_words(np.ones((6, 2)), [np.ones((3, 3))])
    with pytest.raises(ValueError, match="^utterance"):
        align_words(np.full((6, 2), np.nan), [np.ones((3, 2))])
    with pytest.raises(TypeError, match="^word_templates"):
        align_words(np.ones((6, 2)), np.ones((3, 2)))
    # asymmetric may skip a column: a one-frame middle word is jumped over
    with pytest.raises(ValueError, match="^step_pattern"):
        align_words(np.array([0.0, 10.0]), [np.array([0.0]), np.array([100.0]), np.array([10.0])],
                    step_pattern="asymmetric")


@pytest.mark.parametrize("call,match", [
    (lambda: subsequence_dtw(np.ones((5, 1)), np.ones((4, 1))), "query"),
    (lambda: subsequence_dtw(np.ones((2, 1)), np.ones((4, 1)), step_pattern="symmetric2"),
     "step_pattern"),
    (lambda: subsequence_dtw(np.ones((2, 1)), np.ones((4, 2))), "reference"),
    (lambda: find_matches(np.ones((2, 1)), np.ones((4, 1)), max_matches=0), "max_matches"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=f"^{match}"):
        call()
