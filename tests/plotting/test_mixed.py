"""Tests of course_lib.plotting.mixed, Unit 7's figures: the ELBO ledger's bars, the Likert
levels and their cut points, a rater's levels by strength and paired scores, each drawing the
numbers it is given, and mismatched input refused naming the argument."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.mixed import LikertConfidence  # noqa: E402
from course_lib.plotting.mixed import (plot_elbo_ledger, plot_levels_by_strength,  # noqa: E402
                                       plot_likert_levels, plot_paired_scores)
from bad_input import check_names_argument  # noqa: E402


@pytest.mark.parametrize("call, name", [
    (lambda: plot_elbo_ledger(plt.gca(), ["a"], [1.0, 2.0], 1.0), "names"),
    (lambda: plot_likert_levels(plt.gca(), [0.0, 1.0], np.ones((3, 3)), [0.0, 1.0, 2.0]),
     "probabilities"),
    (lambda: plot_levels_by_strength(plt.gca(), [0, 1, 2], [0.5, 1.0]), "strength"),
    (lambda: plot_levels_by_strength(plt.gca(), [0, 1], [0.5, 1.0], level_names=["a"]),
     "level_names"),
    (lambda: plot_paired_scores(plt.gca(), [0.1, 0.2], [0.3]), "second"),
    (lambda: plot_paired_scores(plt.gca(), [0.1], [0.3], names=["one"]), "names"),
])
def test_bad_input_names_the_argument(call, name):
    check_names_argument(call, name)
    plt.close("all")


def test_plot_elbo_ledger_sums_the_parts_and_one_kl():
    fig, ax = plt.subplots()
    plot_elbo_ledger(ax, ["a", "b"], [-3.0, 1.5], 2.0)
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == [-3.0, 1.5, -2.0, -3.5]
    assert [t.get_text() for t in ax.get_xticklabels()][-2:] == ["− KL", "ELBO"]
    ax.clear()
    plot_elbo_ledger(ax, ["a", "b"], [-3.0, 1.5], 2.0, kl_weight=2.0)
    assert [bar.get_height() for bar in ax.patches][-2:] == [-4.0, -5.5]
    assert [t.get_text() for t in ax.get_xticklabels()][-2:] == ["− 2 × KL", "objective"]
    plt.close(fig)


def test_plot_likert_levels_draws_each_level_and_the_cuts():
    likelihood = LikertConfidence(3, gaps=[0.5, 0.5])
    z = np.linspace(-3, 3, 61)
    p = likelihood.level_probabilities(z)
    fig, ax = plt.subplots()
    plot_likert_levels(ax, z, p, likelihood.cut_points, cap=0.5)
    level_lines = [line for line in ax.lines if line.get_label().startswith("level")]
    assert len(level_lines) == 3
    for level, line in enumerate(level_lines):
        np.testing.assert_allclose(line.get_ydata(), p[:, level])
    cut_lines = [line for line in ax.lines if line.get_linestyle() == ":"]
    assert sorted(line.get_xdata()[0] for line in cut_lines) == [-1.0, -0.5, 0.5, 1.0]
    plt.close(fig)


def test_plot_levels_by_strength_columns_counts_and_cuts():
    levels = np.array([0, 2, 2, 1, 2])
    strength = np.array([0.1, 2.5, 0.3, 0.9, 1.7])
    fig, ax = plt.subplots()
    plot_levels_by_strength(ax, levels, strength, cut_points=[0.0, 1.0, 2.0])
    points = [line for line in ax.lines if line.get_marker() == "o"]
    for level, line in enumerate(points):
        assert sorted(line.get_ydata()) == sorted(strength[levels == level])
        assert np.all(np.abs(line.get_xdata() - level) <= 0.25)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["level 0\n1 pair", "level 1\n1 pair", "level 2\n3 pairs"]
    cuts = sorted(line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == ":")
    assert cuts == [1.0, 2.0]
    plt.close(fig)


def test_plot_paired_scores_joins_each_split_and_marks_the_means():
    fig, ax = plt.subplots()
    plot_paired_scores(ax, [0.2, 0.3, 0.1], [0.15, 0.35, 0.05])
    joins = [line for line in ax.lines if line.get_marker() in ("None", "", None)
             and line.get_color() == "0.6"]
    assert [tuple(line.get_ydata()) for line in joins] == [(0.2, 0.15), (0.3, 0.35),
                                                            (0.1, 0.05)]
    means = [line.get_ydata()[0] for line in ax.lines if line.get_linewidth() == 3]
    np.testing.assert_allclose(means, [0.2, 0.55 / 3])
    plt.close(fig)
