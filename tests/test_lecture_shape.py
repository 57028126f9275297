"""A lecture is a lesson: a few paragraphs of prose per cell the student runs (issue 81 for
lectures 05-07, lecture 08's rule before them). Each lecture's own test
(tests/test_lecture_NN.py) ties the numbers its prose states."""

from __future__ import annotations

import pytest

from tests.lecture_text import LectureText

# lecture: (most prose words per code cell, longest stretch of prose between two code cells);
# 05-07 hold the room issue 88 asked for under 200 and 450: a new paragraph pays for itself
LIMITS = {"05_gp_raters": (192, 435), "06_preference_gp": (192, 435),
          "07_mixed_feedback": (192, 435), "08_pronunciation": (None, 250)}


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_prose_per_code_cell_and_longest_stretch(name):
    lecture = LectureText(name)
    per_cell, stretch = LIMITS[name]
    if per_cell is not None:
        assert lecture.words_per_code_cell() <= per_cell, (
            f"{name}: {lecture.words_per_code_cell():.1f} words of prose per code cell, at "
            f"most {per_cell}: cut, move to the experiment's page (experiments/<name>.md), "
            "or let the student compute")
    long = [(cell, words) for cell, words in lecture.stretches() if words > stretch]
    assert not long, f"{name}: more than {stretch} words of prose before these cells: {long}"
