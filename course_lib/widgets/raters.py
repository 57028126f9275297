"""Explorers for Unit 5 (several raters per item; annotators whose reliability differs).

* :func:`spread_term_explorer`: the joint model's log-likelihood against one rater's noise
  variance sigma^2, split into the GP term and the spread term c(sigma^2); a checkbox drops the
  spread term, which turns the joint model back into the GP on the mean score.
* :func:`panel_explorer`: "one utterance, five raters": the raters' histogram of one test
  utterance against the discretised predictive distributions of the base (mean) and joint
  models, with the per-item KL.
* :func:`annotator_explorer`: the toy of Gil-Gonzalez et al. 2019 with an editable 3 x 3 table
  Lambda of noise variances (region x annotator), the number of regions of the per-region model and
  the noise floor: what GOLD, Av, MA and MANH learn, and the learned variance tables against the
  truth with the variances at the floor framed. A half-typed Lambda cell is reported in one line.

The explorers wire controls to the models (:class:`course_lib.raters.multi_rater.MultiRaterGP`, the
comparisons of :mod:`course_lib.raters.rater_comparison`), the toy problems of
:mod:`course_lib.simulators.rater_scores` (x the fraction of an utterance spent in pauses,
scored 0-10 by simulated raters), the metrics of :mod:`course_lib.metrics` and the drawing of
:mod:`course_lib.plotting.raters`. Random draws use one fixed seed per explorer, so moving a
slider deforms the same draws.
"""

from __future__ import annotations

import functools

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ..gp.kernels import SquaredExponential
from ..raters.rater_comparison import (NOISE_FLOOR, centre_scores, fit_annotator_models,
                                       fit_score_model, noise_profile, true_noise_table)
from ..metrics import discrete_kl, rmse
from ..plotting.gp import plot_gp_posterior
from ..plotting.raters import (MODEL_COLOURS, plot_annotator_fit, plot_noise_profile,
                               plot_noise_table, plot_rater_scores, plot_score_distribution)
from ..simulators.rater_scores import (ANNOTATOR_TOY_LAMBDA, TOY_KERNEL, annotator_toy_data,
                                       toy_rater_data)
from ..validation import RngLike, as_positive_int
from .base import (_FULL_LABEL, Explorer, InputError, _fixed_seed, _float_slider,
                   _RedrawnFigure)

__all__ = ["spread_term_explorer", "panel_explorer", "annotator_explorer"]


# the fitted panels the panel explorer keeps (a fit is most of a redraw; the utterance slider
# needs none)
_KEPT_PANELS = 4


def _int_slider(description, value, low, high):
    return W.IntSlider(value=value, min=low, max=high, description=description,
                       continuous_update=False, style=_FULL_LABEL)


def spread_term_explorer(n_items: int = 40, n_grid: int = 120, *, rng: RngLike = 0) -> Explorer:
    """Rater noise, raters per item, bias spread and the spread term on/off -> the joint
    log-likelihood against sigma^2 (each curve relative to its maximum) next to the data with
    the predictive band of one rater's score at the sigma^2 that the plotted total prefers.

    The kernel is held at :data:`TOY_KERNEL`. With the spread term the band uses the joint
    model's sigma^2; without it the model is the GP on the means, whose noise sigma_base^2 =
    sigma^2 / R is the noise of a mean score, and that is what it adds for one rater.
    """
    n_items = as_positive_int(n_items, "n_items", minimum=2)
    noise_grid = np.geomspace(0.02, 30.0, as_positive_int(n_grid, "n_grid", minimum=10))
    x_test = np.linspace(0.0, 1.0, 150)
    seed = _fixed_seed(rng)
    kernel = SquaredExponential(**TOY_KERNEL)
    controls = {
        "noise_sd": _float_slider("rater noise sd", 1.0, 0.3, 3.0),
        "n_raters": _int_slider("raters R", 5, 2, 10),
        "bias_sd": _float_slider("bias spread", 0.0, 0.0, 2.0),
        "include_spread_term": W.Checkbox(value=True, description="spread term c(σ²)"),
    }

    def render(noise_sd, n_raters, bias_sd, include_spread_term) -> Figure:
        panel = toy_rater_data(n_items, n_raters, noise_sd, bias_sd, rng=seed)
        X, data = panel.X, panel.data
        profile = noise_profile(kernel(X), centre_scores(data), noise_grid)
        if include_spread_term:
            curves = {"joint": profile.total, "GP term (mean model)": profile.gp_term,
                      "spread term": profile.spread_term}
            chosen = profile.total
        else:
            curves = {"GP term (mean model)": profile.gp_term}
            chosen = profile.gp_term
        sigma2 = float(noise_grid[np.argmax(chosen)])
        mode = "joint" if include_spread_term else "mean"
        rater_noise = sigma2 if include_spread_term else sigma2 / n_raters
        fitted = fit_score_model(X, data, mode, noise_variance=rater_noise, optimise=False,
                                 **TOY_KERNEL)
        mean, var, noise = fitted.predict_one_rater(x_test[:, None])
        fig, (ax_p, ax_d) = plt.subplots(1, 2, figsize=(10, 3.7), gridspec_kw=dict(
            left=0.075, right=0.99, bottom=0.14, top=0.91, wspace=0.22))
        plot_noise_profile(ax_p, noise_grid, curves, true_noise=noise_sd ** 2 + 1 / 12,
                           true_label="noise sd² + 1/12", legend_loc="lower left",
                           legend_fontsize="x-small", styles={
            "joint": {"color": MODEL_COLOURS["joint"]},
            "GP term (mean model)": {"color": MODEL_COLOURS["mean"], "ls": "--"},
            "spread term": {"color": "0.45", "ls": ":"}})
        ax_p.set_title("evidence against one rater's noise (kernel fixed)", fontsize="medium")
        plot_gp_posterior(ax_d, x_test, mean, var, noise_variance=noise,
                          color=MODEL_COLOURS[mode])
        plot_rater_scores(ax_d, X, data, show_means=False, markersize=3)
        ax_d.set(xlabel="fraction of time in pauses", ylabel="fluency score", ylim=(-0.5, 10.5))
        label = ("joint: one rater ± 2 sd, σ²" if include_spread_term else
                 "mean model: ± 2 sd, σ_base² = σ²/R")
        ax_d.set_title(f"{label} = {noise:.3g}", fontsize="medium")
        ax_d.legend(loc="lower left", fontsize="x-small", ncol=3)
        return fig

    return Explorer(render, controls, title="What the spread term does")


def panel_explorer(n_items: int = 40, n_test: int = 25, *, n_restarts: int = 2,
                   rng: RngLike = 0) -> Explorer:
    """Raters per item, rater noise and bias spread -> the base (mean) and joint models fitted by
    ML-II to a toy training panel, and for one test utterance (slider) its raters' histogram
    against both models' discretised predictive distributions of one rater's score, with the
    per-item KL(raters || model) and its mean over the ``n_test`` test utterances. The fits do
    not depend on the utterance: the last few panels' are kept, so moving that slider only
    draws."""
    n_items = as_positive_int(n_items, "n_items", minimum=2)
    n_test = as_positive_int(n_test, "n_test", minimum=1)
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    x_grid = np.linspace(0.0, 1.0, 150)
    seed = _fixed_seed(rng)
    controls = {
        "n_raters": _int_slider("raters R", 5, 2, 10),
        "noise_sd": _float_slider("rater noise sd", 1.0, 0.3, 3.0),
        "bias_sd": _float_slider("bias spread", 0.0, 0.0, 2.0),
        "utterance": _int_slider("test utterance", n_test // 3, 0, n_test - 1),
    }

    @functools.lru_cache(maxsize=_KEPT_PANELS)
    def fitted_panel(n_raters, noise_sd, bias_sd):
        """The panel, both models fitted to it, their log predictive probabilities of the test
        utterances' scores, the raters' histograms and the KLs (the last few panels kept)."""
        panel = toy_rater_data(n_items, n_raters, noise_sd, bias_sd, n_test=n_test, rng=seed)
        models = {name: fit_score_model(panel.X, panel.data, mode, n_restarts=n_restarts,
                                        rng=seed)
                  for name, mode in (("base", "mean"), ("joint", "joint"))}
        log_p = {name: fitted.log_predictive(panel.X_test) for name, fitted in models.items()}
        counts = panel.test.histograms()
        kl = {name: discrete_kl(counts, values) for name, values in log_p.items()}
        return panel, models, log_p, counts, kl

    def render(n_raters, noise_sd, bias_sd, utterance) -> Figure:
        panel, models, log_p, counts, kl = fitted_panel(n_raters, noise_sd, bias_sd)
        X, data, X_test = panel.X, panel.data, panel.X_test
        fig, (ax_d, ax_h) = plt.subplots(1, 2, figsize=(10, 3.7), gridspec_kw=dict(
            left=0.07, right=0.99, bottom=0.14, top=0.91, wspace=0.2,
            width_ratios=[1.2, 1]))
        for name, fitted in models.items():
            mean, var, noise = fitted.predict_one_rater(x_grid[:, None])
            sd = np.sqrt(var + noise)
            colour = MODEL_COLOURS[name]
            ax_d.fill_between(x_grid, mean - 2 * sd, mean + 2 * sd, color=colour, alpha=0.18,
                              lw=0, label=f"{name}: one rater ± 2 sd (noise {noise:.2f})")
            ax_d.plot(x_grid, mean, color=colour, lw=2)
        plot_rater_scores(ax_d, X, data, show_means=False, markersize=3)
        ax_d.axvline(X_test[utterance, 0], color="k", lw=1, ls="--")
        ax_d.set(xlabel="fraction of time in pauses", ylabel="fluency score", ylim=(-0.5, 10.5),
                 title=f"mean KL over {n_test} test utterances: base "
                       f"{kl['base'].mean():.2f}, joint {kl['joint'].mean():.2f}")
        ax_d.title.set_fontsize("medium")
        handles, labels = ax_d.get_legend_handles_labels()
        ax_d.legend(handles[:2], labels[:2], loc="lower left", fontsize="x-small")
        plot_score_distribution(ax_h, counts[utterance],
                                {name: values[utterance] for name, values in log_p.items()},
                                kl={name: values[utterance] for name, values in kl.items()})
        ax_h.set_title(f"test utterance {utterance} (dashed): {n_raters} raters vs models",
                       fontsize="medium")
        return fig

    return Explorer(render, controls, title="One utterance, a panel of raters")


# --------------------------------------------------------------------------------------------
# Annotators whose reliability differs by region
# --------------------------------------------------------------------------------------------

def _lambda_entry(text: str, row: int, col: int) -> float:
    name = f"Lambda[{row + 1},{col + 1}]"
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{name}: enter a noise variance >= 0, e.g. 0.25 (got {text!r})") \
            from None
    if not np.isfinite(value) or value < 0 or value > 100:
        raise InputError(f"{name}: a noise variance must lie in 0..100, got {text!r}")
    return value


def annotator_explorer(n_items: int = 60, n_test: int = 300, *, n_restarts: int = 3,
                       rng: RngLike = 0) -> Explorer:
    """Gil-Gonzalez et al.'s toy with the noise table Lambda typed in (3 x 3: rows are the regions
    the noise is simulated with, left to right; columns the annotators), the number of regions of
    GPR-MANH and the noise floor -> GOLD, Av, MA and MANH fitted by ML-II
    (:func:`fit_annotator_models`), each with its RMSE x 100 against the gold on ``n_test`` test
    inputs, and the learned noise tables of MA and MANH against the truth
    (:func:`true_noise_table`), variances at the floor framed in red. Text boxes redraw on Enter or
    when they lose focus. The four fits take a moment: a new setting says so at once, with the
    other controls disabled until it is drawn."""
    n_items = as_positive_int(n_items, "n_items", minimum=6)
    n_test = as_positive_int(n_test, "n_test")
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    seed = _fixed_seed(rng)
    cell_layout = W.Layout(width="190px")
    controls = {f"lambda_{row}_{col}": W.Text(
        value=f"{ANNOTATOR_TOY_LAMBDA[row, col]:g}", description=f"Λ[{row + 1},{col + 1}]",
        continuous_update=False, layout=cell_layout,
        style={"description_width": "50px"}) for row in range(3) for col in range(3)}
    controls["n_regions"] = _int_slider("MANH regions", 3, 1, 6)
    controls["noise_floor"] = W.FloatLogSlider(value=NOISE_FLOOR, base=10, min=-6, max=-1,
                                               step=0.5, description="noise floor",
                                               continuous_update=False, style=_FULL_LABEL)

    def panels() -> Figure:
        """The four fits (sharing their axes) and the two noise tables, right."""
        fig = Figure(figsize=(10, 4.5))
        grid = fig.add_gridspec(2, 3, left=0.055, right=0.995, bottom=0.09, top=0.93,
                                wspace=0.22, hspace=0.42, width_ratios=[1, 1, 0.95])
        first = fig.add_subplot(grid[0, 0])
        for index in range(1, 4):
            fig.add_subplot(grid[index // 2, index % 2], sharex=first, sharey=first)
        fig.add_subplot(grid[0, 2])
        fig.add_subplot(grid[1, 2])
        return fig

    figure = _RedrawnFigure(panels)

    def render(n_regions, noise_floor, **cells) -> Figure:
        table = np.array([[_lambda_entry(cells[f"lambda_{row}_{col}"], row, col)
                           for col in range(3)] for row in range(3)])
        toy = annotator_toy_data(table, n_items, n_test, rng=seed)
        models, regions = fit_annotator_models(toy.X, toy.data, toy.gold, n_regions,
                                               noise_floor, n_restarts=n_restarts, rng=seed)
        fig = figure()
        *fit_axes, ax_ma, ax_manh = fig.axes
        for ax, (name, model) in zip(fit_axes, models.items()):
            mean, var = model.predict(toy.X_test)
            shown = regions if name == "MANH" else toy.regions
            plot_annotator_fit(ax, toy.X_test, mean, var, gold=toy.gold_test,
                               X=toy.X if name != "GOLD" else None,
                               data=toy.data if name != "GOLD" else None,
                               regions=shown.labels if name != "GOLD" else None,
                               color=MODEL_COLOURS[name])
            ax.set_title(f"{name}: RMSE × 100 = {100 * rmse(mean, toy.gold_test):.1f}",
                         fontsize="medium")
            ax.set_ylim(-3.2, 3.2)
            ax.label_outer()
        handles, labels = fig.axes[1].get_legend_handles_labels()
        keep = [i for i, label in enumerate(labels) if label.startswith(("gold", "annotator"))]
        fig.axes[0].legend([handles[i] for i in keep], [labels[i] for i in keep],
                           loc="lower center", fontsize="x-small", ncol=2)
        plot_noise_table(ax_ma, models["MA"].noise_table_,
                         true_noise_table(None, toy.regions, table), models["MA"].at_floor_,
                         row_labels=["all"], col_labels=["ann. 1", "ann. 2", "ann. 3"],
                         vmax=max(1.0, table.max()))
        ax_ma.set_title("MA: learned (true) variance", fontsize="medium")
        plot_noise_table(ax_manh, models["MANH"].noise_table_,
                         true_noise_table(regions, toy.regions, table), models["MANH"].at_floor_,
                         row_labels=[str(k + 1) for k in range(regions.n_regions)],
                         col_labels=["ann. 1", "ann. 2", "ann. 3"], vmax=max(1.0, table.max()))
        ax_manh.set_ylabel("region")
        ax_manh.set_title(f"MANH: {int(models['MANH'].at_floor_.sum())} at the floor (red)",
                          fontsize="medium")
        return fig

    return Explorer(render, controls, title="Annotators whose reliability differs by region",
                    busy="Fitting GOLD, Av, MA and MANH by ML-II…")
