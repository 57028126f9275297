"""The class figure builders (``plotting.class_panel``) on plain numbers: they draw what they are
given (nothing where a number is NaN), describe an empty class in words, and refuse arrays of
the wrong length by the argument's name. The figures drawn from a modelled class are tested in
tests/class_panel/test_figures.py."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from course_lib.plotting.class_panel import (ClassFigure, consensus_figure, held_out_figure,
                                             preferences_figure, reliability_figure,
                                             students_figure)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_the_consensus_leaves_out_the_clips_nobody_scored_and_says_how_far_the_class_sits():
    drawn = consensus_figure([2.0, 8.0, 5.0], [3.0, np.nan, 5.5], [[2, 4], [np.nan, np.nan],
                                                                   [5, 6]],
                             n_experts=5, interval_name="90 % Bayesian credible interval")
    assert isinstance(drawn, ClassFigure) and drawn.name == "consensus"
    ax = drawn.figure.axes[0]
    consensus = [line for line in ax.get_lines() if line.get_marker() == "o"]
    # the clips ordered by the experts' mean (2, 5, 8): the one nobody scored is not drawn
    np.testing.assert_array_equal(consensus[0].get_xdata(), [1, 2])
    np.testing.assert_array_equal(consensus[0].get_ydata(), [3.0, 5.5])
    # mean gap (3 - 2 + 5.5 - 5) / 2 = +0.75, shown to one decimal
    assert "on average +0.8 points from the experts (from +0.5 to +1.0 per clip)" in (
        drawn.description)
    assert "3 clips" in drawn.description and "nan" not in drawn.description.lower()


def test_an_empty_class_is_described_in_words():
    students = students_figure([], [], np.empty((0, 2)), [], np.empty((0, 2)), [],
                               np.empty((0, 2)), [0.1, -0.2], [0.5, 0.7], level=0.9,
                               interval_names=("bias interval", "correlation interval"),
                               left_out="; not shown: 2 with every score the same")
    assert students.description == ("Both sides are empty: no student gave informative "
                                     "scores; not shown: 2 with every score the same.")
    reliability = reliability_figure([], [], np.empty((0, 2)), experts=0.8, n_experts=5,
                                     level=0.9, k_needed=None, verdict="no student to count")
    assert "no curve is drawn" in reliability.description
    held_out = held_out_figure([], ["the class", "you", "both"], np.empty((3, 0)),
                               np.empty((3, 0)))
    assert held_out.description.startswith("An empty figure")


def test_the_pooled_interval_and_the_verdicts_are_drawn_as_given():
    drawn = preferences_figure(["1 vs 2", "1 vs 3"], [[0.6, 0.2, 0.2], [0.1, 0.1, 0.8]],
                               [[0.5, -1.0], [0.7, -0.4]], [0.6, -0.7], [[0.1, 1.1],
                                                                         [-1.5, 0.1]],
                               ["agrees", "no clear preference"], level=0.9)
    left, right = drawn.figure.axes
    assert [t.get_text() for t in right.texts] == ["agrees", "no clear preference"]
    assert "90 % credible interval" in drawn.description
    assert "agrees on 1 pairs" in drawn.description


@pytest.mark.parametrize("call, name", [
    (lambda: consensus_figure([1.0, 2.0], [1.0], [[0, 2], [1, 3]], n_experts=5,
                              interval_name="interval"), "consensus"),
    (lambda: reliability_figure([1, 2], [0.5, 0.6], [[0.4, 0.6]], experts=0.8, n_experts=5,
                                level=0.9, k_needed=None, verdict="v"), "band"),
    (lambda: preferences_figure(["1 vs 2"], [[0.5, 0.5, 0.0]], [[0.1]], [0.1], [[0.0, 0.2]],
                                ["agrees", "tastes differ"], level=0.9), "verdicts"),
    (lambda: held_out_figure([4, 8], ["the class"], [[0.1, 0.2]], [[0.1, 0.2], [0.1, 0.2]]),
     "se"),
    (lambda: students_figure(["a"], [0.1, 0.2], [[0, 1]], [0.3], [[0, 1]], [0.5], [[0, 1]],
                             [0.0], [0.5], level=0.9, interval_names=("b", "c")), "bias"),
])
def test_arrays_of_the_wrong_length_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=f"^{name}: expected one value per"):
        call()
