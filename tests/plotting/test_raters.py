"""Tests of course_lib.plotting.raters, Unit 5's figures: every rater's label, noise profiles
relative to their maxima, score distributions, the speed-up guide, the noise table's floor
hits, regions and an annotator model's fit, each drawing the numbers it is given, and bad input
refused naming the argument."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.metrics import discretised_log_predictive  # noqa: E402
from course_lib.plotting.raters import (plot_annotator_fit, plot_noise_profile,  # noqa: E402
                                        plot_noise_table, plot_rater_scores, plot_regions,
                                        plot_score_distribution, plot_speedup)
from course_lib.rater_data import RaterData  # noqa: E402
from course_lib.simulators.rater_scores import annotator_toy_data  # noqa: E402


def test_plot_rater_scores_draws_every_label():
    data = RaterData.from_matrix([[1, 2, np.nan], [4, 5, 6]])
    fig, ax = plt.subplots()
    plot_rater_scores(ax, [0.0, 1.0], data)
    rater_lines = [line for line in ax.lines if line.get_label().startswith("rater")]
    assert sum(line.get_xydata().shape[0] for line in rater_lines) == data.n_labels
    np.testing.assert_allclose(ax.lines[-1].get_ydata(), data.means)
    with pytest.raises(ValueError, match="x"):
        plot_rater_scores(ax, [0.0, 1.0, 2.0], data)
    with pytest.raises(ValueError, match="rater_names"):
        plot_rater_scores(ax, [0.0, 1.0], data, rater_names=["a"])
    with pytest.raises(TypeError, match="data"):
        plot_rater_scores(ax, [0.0, 1.0], data.matrix())
    plt.close(fig)


def test_plot_noise_profile_shows_each_curve_relative_to_its_maximum():
    grid = np.geomspace(0.1, 10, 30)
    curves = {"a": -(np.log(grid) - 0.5) ** 2 - 100.0, "b": -np.log(grid) ** 2}
    fig, ax = plt.subplots()
    plot_noise_profile(ax, grid, curves, true_noise=1.2, depth=5.0)
    line_a = ax.lines[0]
    np.testing.assert_allclose(line_a.get_ydata(), curves["a"] - curves["a"].max())
    assert ax.get_ylim() == pytest.approx((-5.0, 0.4))
    nearest = grid[np.argmin(np.abs(np.log(grid) - 0.5))]      # the peak is at e^0.5
    assert f"max at σ² = {nearest:.3g}" in line_a.get_label()
    with pytest.raises(ValueError, match="noise"):
        plot_noise_profile(ax, -grid, curves)
    with pytest.raises(ValueError, match="curves"):
        plot_noise_profile(ax, grid, {"a": curves["a"][:-1]})
    with pytest.raises(ValueError, match="curves"):
        plot_noise_profile(ax, grid, {})
    plt.close(fig)


def test_plot_score_distribution_bars_and_lines():
    counts = np.zeros(11)
    counts[[4, 5, 5, 6]] += 1
    log_p = discretised_log_predictive([5.0], [1.0])[0]
    fig, ax = plt.subplots()
    plot_score_distribution(ax, counts, {"joint": log_p}, kl={"joint": 0.123})
    np.testing.assert_allclose([p.get_height() for p in ax.patches], counts / counts.sum())
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.exp(log_p))
    assert ax.lines[0].get_label() == "joint: KL = 0.12"
    with pytest.raises(ValueError, match="counts"):
        plot_score_distribution(ax, counts[:5], {"joint": log_p})
    with pytest.raises(ValueError, match="counts"):
        plot_score_distribution(ax, np.zeros(11), {"joint": log_p})
    with pytest.raises(ValueError, match="log_probabilities"):
        plot_score_distribution(ax, counts, {"joint": log_p[:5]})
    with pytest.raises(ValueError, match="kl"):
        plot_score_distribution(ax, counts, {"joint": log_p}, kl={"base": 1.0})
    plt.close(fig)


def test_plot_speedup_draws_the_r_cubed_guide():
    R = np.array([2.0, 5.0, 10.0])
    fig, ax = plt.subplots()
    plot_speedup(ax, R, {"fit": [5.0, 60.0, 400.0]}, powers=(3, 2))
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [5.0, 60.0, 400.0])
    guide = ax.lines[1]
    np.testing.assert_allclose(guide.get_ydata(), guide.get_xdata() ** 3)
    assert guide.get_label() == "R^3"
    with pytest.raises(ValueError, match="ratios"):
        plot_speedup(ax, R, {"fit": [1.0, 2.0]})
    with pytest.raises(ValueError, match="n_raters"):
        plot_speedup(ax, [0.0, 1.0], {"fit": [1.0, 2.0]})
    plt.close(fig)


def test_plot_noise_table_marks_floor_hits():
    learned = np.array([[1e-4, 0.6], [0.3, 1e-4]])
    truth = np.array([[0.0, 0.65], [0.25, 0.0]])
    floor = learned <= 1e-4
    fig, ax = plt.subplots()
    plot_noise_table(ax, learned, truth, floor)
    assert len(ax.patches) == 2                              # one red frame per floor hit
    texts = [text.get_text() for text in ax.texts]
    assert "0.6\n(true 0.65)" in texts
    with pytest.raises(ValueError, match="truth"):
        plot_noise_table(ax, learned, truth[:1])
    with pytest.raises(ValueError, match="at_floor"):
        plot_noise_table(ax, learned, truth, floor.astype(int))
    with pytest.raises(ValueError, match="row_labels"):
        plot_noise_table(ax, learned, row_labels=["one"])
    plt.close(fig)


def test_plot_regions_shades_each_run_of_one_region():
    x = np.array([0.0, 0.1, 0.2, 0.5, 0.6, 0.9])
    regions = np.array([0, 0, 1, 1, 1, 0])
    fig, ax = plt.subplots()
    plot_regions(ax, x, regions)
    assert len(ax.patches) == 3
    with pytest.raises(ValueError, match="regions"):
        plot_regions(ax, x, regions[:-1])
    with pytest.raises(ValueError, match="regions"):
        plot_regions(ax, x, regions.astype(float))
    plt.close(fig)


def test_plot_annotator_fit_draws_band_gold_labels_and_regions():
    toy = annotator_toy_data(n_test=50, rng=1)
    mean, var = np.zeros(50), np.full(50, 0.04)
    fig, ax = plt.subplots()
    plot_annotator_fit(ax, toy.X_test, mean, var, gold=toy.gold_test, X=toy.X, data=toy.data,
                       regions=toy.regions.labels, color="C3")
    labels = [line.get_label() for line in ax.lines]
    assert "gold" in labels and {"annotator 1", "annotator 2", "annotator 3"} <= set(labels)
    assert len(ax.patches) == 3                               # three regions shaded
    with pytest.raises(ValueError, match="gold"):
        plot_annotator_fit(ax, toy.X_test, mean, var, gold=toy.gold_test[:5])
    with pytest.raises(ValueError, match="X"):
        plot_annotator_fit(ax, toy.X_test, mean, var, data=toy.data)
    plt.close(fig)
