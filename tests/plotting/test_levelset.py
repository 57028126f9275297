"""Tests of course_lib.plotting.levelset, Unit 7's level-set figures: a map, the threshold's
contours, the trials and the query, an F1 trace and the detection curve draw what they are
given, and mismatched input is refused naming the argument."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.plotting.levelset import (plot_contours, plot_detection_curve,  # noqa: E402
                                          plot_f1_trace, plot_map, plot_trials)


def test_plots_draw_what_they_are_given():
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3)
    axis = np.linspace(-1, 1, 5)
    field = np.add.outer(axis, axis)            # crosses 0.3
    plot_map(ax1, axis, axis, field)
    assert len(ax1.images) == 1 and ax1.get_xlim() == (-1, 1)
    plot_contours(ax1, axis, axis, threshold=0.3, true_latent=field, mean=field + 5)
    assert len(ax1.collections) == 1            # the mean never crosses: only the truth's line
    X = np.array([[0, 0], [0.5, 0.5], [-0.5, 0.2]])
    plot_trials(ax1, X, np.array([1, 0, 1]), constraints=X[:1], query=np.array([0.1, 0.1]))
    counts = [line.get_xdata().size for line in ax1.lines]
    assert counts == [1, 2, 1, 1]               # constraint, yes, no, query
    plot_f1_trace(ax2, [1, 2, 3], [0.2, 0.5, 0.6], n_initial=2)
    assert ax2.lines[0].get_ydata().tolist() == [0.2, 0.5, 0.6]
    levels = np.linspace(0, 1, 11)
    plot_detection_curve(ax3, levels, levels, p_low=levels * 0.5, p_high=levels,
                         threshold_level=0.75, X=np.array([0.2, 0.4, 0.9]),
                         answers=np.array([0, 1, 1]), query=0.5, constraint_levels=[0.0])
    rug = [line for line in ax3.lines if line.get_marker() == "|"]
    assert [line.get_ydata().tolist() for line in rug] == [[1.0, 1.0], [0.0]]
    plt.close(fig)


def test_plots_refuse_mismatched_input_naming_it():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="^values:"):
        plot_map(ax, np.arange(3), np.arange(4), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="^answers:"):
        plot_trials(ax, np.zeros((2, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="^f1:"):
        plot_f1_trace(ax, [1, 2], [0.5])
    with pytest.raises(ValueError, match="^answers:"):
        plot_detection_curve(ax, np.linspace(0, 1, 3), np.zeros(3), X=np.zeros(2),
                             answers=np.zeros(1))
    plt.close(fig)
