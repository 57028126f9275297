"""Unit 5 explorers and plots: every control at its extremes, and the figures they draw."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.gp import SquaredExponential  # noqa: E402
from course_lib.raters.rater_comparison import (centre_scores, fit_annotator_models,  # noqa: E402
                                                fit_score_model, noise_profile)
from course_lib.metrics import discrete_kl, discretised_log_predictive  # noqa: E402
from course_lib.plotting.raters import (plot_annotator_fit, plot_noise_profile,  # noqa: E402
                                        plot_noise_table, plot_rater_scores, plot_regions,
                                        plot_score_distribution, plot_speedup)
from course_lib.raters import RaterData  # noqa: E402
from course_lib.simulators.rater_scores import (ANNOTATOR_TOY_LAMBDA, TOY_KERNEL,  # noqa: E402
                                                annotator_toy_data, toy_rater_data)
from course_lib.widgets.raters import (annotator_explorer, panel_explorer,  # noqa: E402
                                       spread_term_explorer)

# ------------------------------------------------------------------------------ explorers

@pytest.mark.parametrize("build", [spread_term_explorer, panel_explorer])
def test_explorer_survives_every_control(build):
    explorer = build()
    checked = exercise_explorer(explorer)
    assert checked >= 1 + 2 * len(explorer.controls)


def _line_labels(ax):
    return [line.get_label() for line in ax.lines]


def test_spread_term_explorer_curves_peak_where_the_library_says():
    explorer = spread_term_explorer()
    fig = explorer.render(noise_sd=1.0, n_raters=5, bias_sd=0.0, include_spread_term=True)
    ax_profile, ax_data = fig.axes
    curves = [line for line in ax_profile.lines if line.get_label().startswith(
        ("joint", "GP term", "spread"))]
    assert len(curves) == 3
    for line in curves:                       # drawn relative to its own maximum
        assert line.get_ydata().max() == pytest.approx(0.0)
    # the joint curve's maximum is at the sigma^2 the band uses (title)
    joint_line = curves[0]
    best = joint_line.get_xdata()[np.argmax(joint_line.get_ydata())]
    assert f"{best:.3g}" in ax_data.get_title()
    # the same profile from the library directly
    panel = toy_rater_data(40, 5, 1.0, 0.0, rng=explorer_seed(explorer))
    grid = joint_line.get_xdata()
    direct = noise_profile(SquaredExponential(**TOY_KERNEL)(panel.X), centre_scores(panel.data),
                           grid)
    np.testing.assert_allclose(joint_line.get_ydata(), direct.total - direct.total.max())
    plt.close(fig)


def explorer_seed(explorer):
    """The seed an explorer built with the default rng=0 draws its data with."""
    return int(np.random.default_rng(0).integers(2 ** 63))


def test_dropping_the_spread_term_gives_the_band_of_a_mean_score():
    explorer = spread_term_explorer()
    on = explorer.render(noise_sd=1.0, n_raters=5, bias_sd=0.0, include_spread_term=True)
    off = explorer.render(noise_sd=1.0, n_raters=5, bias_sd=0.0, include_spread_term=False)
    assert len([line for line in off.axes[0].lines if "spread" in line.get_label()]) == 0
    noise_on = float(on.axes[1].get_title().rsplit("=", 1)[1])
    noise_off = float(off.axes[1].get_title().rsplit("=", 1)[1])
    # without the spread term the band carries sigma^2 / R: about R times narrower in variance
    assert 2.5 < noise_on / noise_off < 10
    plt.close("all")


def test_panel_explorer_reports_the_kl_of_the_library():
    explorer = panel_explorer(n_test=10)
    fig = explorer.render(n_raters=5, noise_sd=1.0, bias_sd=0.0, utterance=3)
    ax_hist = fig.axes[1]
    panel = toy_rater_data(40, 5, 1.0, 0.0, n_test=10, rng=explorer_seed(explorer))
    counts = panel.test.histograms()
    for name, mode in (("base", "mean"), ("joint", "joint")):
        fitted = fit_score_model(panel.X, panel.data, mode, n_restarts=2,
                                 rng=explorer_seed(explorer))
        kl = discrete_kl(counts, fitted.log_predictive(panel.X_test))
        assert f"{name}: KL = {kl[3]:.2f}" in _line_labels(ax_hist)
        line = [line for line in ax_hist.lines if line.get_label().startswith(name)][0]
        np.testing.assert_allclose(line.get_ydata(),
                                   np.exp(fitted.log_predictive(panel.X_test[3:4])[0]))
    # the bars are the raters' fractions for that utterance
    heights = [patch.get_height() for patch in ax_hist.patches]
    np.testing.assert_allclose(heights, counts[3] / counts[3].sum())
    plt.close(fig)


def quick_annotator_explorer():
    """The annotator explorer with fewer test points and restarts (the same code paths)."""
    return annotator_explorer(n_items=30, n_test=60, n_restarts=1)


def test_annotator_explorer_survives_every_control_and_refuses_bad_cells():
    explorer = quick_annotator_explorer()
    checked = exercise_explorer(explorer, error_settings=[
        {"lambda_0_1": "0.6x"}, {"lambda_2_2": "-1"}, {"lambda_1_0": ""},
        {"lambda_0_0": "nan"}])
    assert checked >= 1 + 4 + 9 + 2 * 3


def test_annotator_explorer_error_names_the_cell():
    explorer = quick_annotator_explorer()
    explorer.controls["lambda_1_2"].value = "0.7."
    explorer.refresh()
    assert "Lambda[2,3]" in str(explorer.last_error)
    explorer.controls["lambda_1_2"].value = "0.75"
    explorer.refresh()
    assert explorer.last_error is None


def test_annotator_explorer_tables_show_the_fitted_models():
    explorer = annotator_explorer()                         # the lecture's settings
    fig = explorer.render(**explorer.values())
    toy = annotator_toy_data(ANNOTATOR_TOY_LAMBDA, 60, 300, rng=explorer_seed(explorer))
    models, regions = fit_annotator_models(toy.X, toy.data, toy.gold, 3, 1e-4, n_restarts=3,
                                           rng=explorer_seed(explorer))
    titles = [ax.get_title() for ax in fig.axes]
    for name in ("GOLD", "Av", "MA", "MANH"):
        mean, _ = models[name].predict(toy.X_test)
        rmse_x100 = 100 * np.sqrt(np.mean((mean - toy.gold_test) ** 2))
        assert f"{name}: RMSE × 100 = {rmse_x100:.1f}" in titles
    manh_table = fig.axes[-1]
    assert len(manh_table.patches) == int(models["MANH"].at_floor_.sum())
    # Gil-González et al. (2019)'s Lambda: each annotator is perfect in one region, so MANH puts 3 at the floor
    assert models["MANH"].at_floor_.sum() == 3
    assert np.array_equal(np.argmax(models["MANH"].at_floor_, axis=1), [0, 1, 2])
    plt.close(fig)


# ------------------------------------------------------------------------------ plots

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
