"""Tests of course_lib.plotting.personalisation_results: the figures of Nielsen et al.'s (2015)
personalisation experiment and of the acquisition race draw the committed results' numbers
(regret, convergence, share settled, forced choice, paired differences), and a bad study,
group, measure or result is refused naming the argument."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from course_lib.plotting import personalisation_results as plots
from course_lib.results import load_result
from experiments import acquisition_race as race
from experiments import nielsen2015_personalisation as nielsen


@pytest.fixture
def ax():
    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


@pytest.mark.parametrize("study", ["2d", "4d"])
def test_plots_draw_the_committed_personalisation_result(ax, study):
    document = load_result(nielsen.NAME)
    summary = document["result"]["summary"][study]
    plots.plot_regret(ax, document, study)
    assert len(ax.lines) >= len(summary["groups"])
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               summary["groups"]["regular"]["regret"]["mean"])
    ax.clear()
    plots.plot_regret(ax, document, study, groups=["switches"], which="heard_regret",
                      band=False)
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               summary["groups"]["switches"]["heard_regret"]["mean"])
    ax.clear()
    plots.plot_convergence(ax, document, study)
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               summary["groups"]["regular"]["convergence"]["median"])
    ax.clear()
    plots.plot_share_settled(ax, document, study)
    ei = ax.lines[0].get_ydata()
    settled = summary["groups"]["regular"]["ei_settled"]
    assert ei[-1] == pytest.approx(settled["n_settled"] / settled["n_listeners"])
    ax.clear()
    plots.plot_forced_choice(ax, document, study)
    n_points = sum(c.get_offsets().shape[0] for c in ax.collections)
    assert n_points == len(document["result"]["per_listener"][study])


def test_plots_draw_the_committed_race(ax):
    document = load_result(race.NAME)
    plots.plot_regret(ax, document, "2d", band=False)
    labels = ax.get_legend_handles_labels()[1]
    assert [label.split(" (n =")[0] for label in labels] == [plots._GROUP_LABELS[r]
                                                             for r in race.RULES]
    ax.clear()
    plots.plot_paired_differences(ax, document, "2d", reference="bei")
    bars = list(ax.patches)
    assert len(bars) == (len(race.RULES) - 1) * len(race.PAIRED_STEPS)
    expected = [p["mean_difference"] for step in race.PAIRED_STEPS
                for p in document["result"]["paired"]["2d"]
                if p["reference"] == "bei" and p["step"] == step]
    np.testing.assert_allclose([b.get_height() for b in bars], expected)


def test_plots_name_the_bad_argument(ax):
    document = load_result(nielsen.NAME)
    with pytest.raises(ValueError, match="study"):
        plots.plot_regret(ax, document, "3d")
    with pytest.raises(ValueError, match="groups"):
        plots.plot_regret(ax, document, "2d", groups=["nobody"])
    with pytest.raises(ValueError, match="which"):
        plots.plot_regret(ax, document, "2d", which="loss")
    with pytest.raises(TypeError, match="result"):
        plots.plot_convergence(ax, [1, 2], "2d")
    with pytest.raises(ValueError, match="result"):
        plots.plot_paired_differences(ax, document, "2d")
    with pytest.raises(ValueError, match="reference"):
        plots.plot_paired_differences(ax, load_result(race.NAME), "2d", reference="oracle")
    with pytest.raises(ValueError, match="group"):
        plots.plot_share_settled(ax, document, "2d", group="nobody")
