"""Tests of course_lib.plotting.personalisation_session, the figures of one "personalise it
yourself" session: a map of settings, the comparisons and who won, the incumbent and the pair
on trial, the convergence measure and the equaliser's curves draw what they are given."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.plotting.personalisation_session import (  # noqa: E402
    plot_comparisons, plot_convergence_measure, plot_equaliser_curves, plot_session_marks,
    plot_setting_map)


def test_plots_draw_what_they_are_given():
    fig, axes = plt.subplots(1, 4)
    axis = np.arange(-2.0, 3.0)
    values = np.arange(20.0).reshape(4, 5)
    plot_setting_map(axes[0], axis, axis[:4], values, label="u")
    np.testing.assert_array_equal(axes[0].images[0].get_array(), values)
    assert axes[0].images[0].get_extent() == [-2.5, 2.5, -2.5, 1.5]
    with pytest.raises(ValueError, match="^values:"):
        plot_setting_map(axes[0], axis, axis, values)
    plot_comparisons(axes[0], [[0, 0], [1, 1], [3, 3]], [[1, 0], [2, 2], [4, 4]],
                     [0.9, 0.5, 0.2])
    winners = [line for line in axes[0].lines if line.get_label() == "preferred"]
    np.testing.assert_array_equal(winners[0].get_xydata(), [[0, 0], [4, 4]])
    np.testing.assert_array_equal(axes[0].collections[0].get_segments()[2], [[3, 3], [4, 4]])
    plot_session_marks(axes[1], incumbent=[1, 1], pair=[[1, 1], [2, -1]], optimum=[0, 0])
    assert [t.get_text() for t in axes[1].texts] == ["A", "B"]
    plot_convergence_measure(axes[2], [1.0, 0.1, 0.001], [1.0, 0.55, 0.367], threshold=0.02,
                             settled_at=2, n_random=1)
    assert len(axes[2].lines) >= 4
    f = np.geomspace(40, 8000, 20)
    plot_equaliser_curves(axes[3], f, {"A x": np.zeros(20), "B y": np.ones(20)})
    assert [t.get_text() for t in axes[3].texts] == ["A x", "B y"]
    plt.close(fig)
