"""Judging discovered pairs with known word spans (course_lib.dtw.term_evaluation), by hand."""

from __future__ import annotations

import numpy as np

from course_lib.dtw.term_evaluation import evaluate_discoveries, fragment_word
from course_lib.dtw.term_discovery import DiscoveredPair, Fragment


def test_evaluate_discoveries_by_hand():
    F = Fragment
    spans = [np.array([[0, 9], [10, 19]]), np.array([[0, 14], [15, 29]])]
    words = [("one", "two"), ("two", "three")]

    def pair(f, g):
        return DiscoveredPair(f, g, 0.1, np.zeros((1, 2), dtype=int))

    pairs = [pair(F(0, 11, 19), F(1, 2, 12)),     # two ~ two: right
             pair(F(0, 2, 12), F(1, 16, 28))]     # one (8 of 11 frames) ~ three: wrong
    report = evaluate_discoveries(pairs, spans, words)
    assert report.words == [("two", "two"), ("one", "three")]
    np.testing.assert_array_equal(report.correct, [True, False])
    assert report.precision == 0.5 and report.coverage == 2 / 4
    assert fragment_word(F(1, 30, 40), spans, words) == (None, -1)
    assert fragment_word(F(0, 5, 14), spans, words) == ("one", 0)   # 5 and 5 frames: first
    assert np.isnan(evaluate_discoveries([], spans, words).precision)
