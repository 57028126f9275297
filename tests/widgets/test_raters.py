"""Unit 5 explorers: every control at its extremes, and what they show (the figures' own
tests are in tests/plotting/test_raters.py)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.gp import SquaredExponential  # noqa: E402
from course_lib.raters.rater_comparison import (centre_scores, fit_annotator_models,  # noqa: E402
                                                fit_score_model, noise_profile)
from course_lib.metrics import discrete_kl  # noqa: E402
from course_lib.simulators.rater_scores import (ANNOTATOR_TOY_LAMBDA, TOY_KERNEL,  # noqa: E402
                                                annotator_toy_data, toy_rater_data)
from course_lib.widgets import raters as raters_widgets  # noqa: E402
from course_lib.widgets.base import _drawn  # noqa: E402
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


def test_panel_explorer_fits_a_panel_once_whichever_utterance_it_shows(monkeypatch):
    explorer = panel_explorer(n_test=10)
    fits, real = [], raters_widgets.fit_score_model
    monkeypatch.setattr(raters_widgets, "fit_score_model",
                        lambda *args, **options: fits.append(args[2]) or real(*args, **options))
    drawn = [explorer.render(n_raters=5, noise_sd=1.0, bias_sd=0.0, utterance=utterance)
             for utterance in (3, 5, 3)]
    assert fits == ["mean", "joint"], "the utterance slider refitted the models"
    first, again = ([line.get_ydata() for line in fig.axes[1].lines] for fig in drawn[::2])
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    plt.close("all")


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


def test_annotator_explorer_draws_into_its_panels_what_a_new_figure_shows():
    """The explorer keeps its figure's panels and empties them for every setting
    (``base._RedrawnFigure``): each PNG must be the one a new explorer draws first at that
    setting, whatever came before (a MANH table with more or fewer rows, another floor, another
    Lambda, and back)."""
    explorer = quick_annotator_explorer()
    defaults = explorer.values()
    for change in ({}, {"n_regions": 6}, {"n_regions": 1}, {"noise_floor": 1e-6},
                   {"lambda_0_1": "2"}, {}):
        values = dict(defaults, **change)
        kept = _drawn(lambda: explorer.render(**values)).data
        new = _drawn(lambda: quick_annotator_explorer().render(**values)).data
        assert kept == new, (f"after the settings before {change}, the kept panels drew "
                             "another figure")


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
