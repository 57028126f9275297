"""Explorers for Unit 5 (several raters per item; annotators whose reliability differs).

* :func:`spread_term_explorer`: the joint model's log-likelihood against one rater's noise
  variance sigma^2, split into the GP term and the spread term c(sigma^2); a checkbox drops the
  spread term, which turns the joint model back into the GP on the mean score.
* :func:`panel_explorer`: "one utterance, five raters": the raters' histogram of one test
  utterance against the discretised predictive distributions of the base (mean) and joint
  models, with the per-item KL.
* :func:`annotator_explorer`: the toy of Gil-Gonzalez et al. 2018 with an editable 3 x 3 table
  Lambda of noise variances (region x annotator), the number of regions of the per-region model and
  the noise floor: what GOLD, Av, MA and MANH learn, and the learned variance tables against the
  truth with the variances at the floor framed. A half-typed Lambda cell is reported in one line.

The models are :class:`course_lib.gp.multi_rater.MultiRaterGP`, the metrics come from
:mod:`course_lib.metrics`, the drawing from :mod:`course_lib.plotting.raters`. The toy data are
one-dimensional so that every score can be seen: x is the fraction of an utterance spent in
pauses and :func:`toy_truth` its true fluency; simulated raters score it 0-10 with
:func:`course_lib.simulators.rater_scores.simulate_integer_scores`. Random draws use one fixed seed
per explorer, so moving a slider deforms the same draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ..gp.annotator_cells import NOISE_FLOOR
from ..gp.annotator_noise import AnnotatorNoiseGP
from ..gp.annotator_regions import Regions, assign_regions
from ..gp.kernels import SquaredExponential
from ..gp.multi_rater import MODES, MultiRaterGP, joint_log_likelihood
from ..gp.rater_data import RaterData
from ..gp.regression import GPRegression
from ..metrics import discrete_kl, discretised_log_predictive, rmse
from ..plotting.gp import plot_gp_posterior
from ..plotting.raters import MODEL_COLOURS, _plot_annotator_fit, plot_noise_profile, \
    plot_noise_table, plot_rater_scores, plot_score_distribution
from ..simulators.rater_scores import ANNOTATOR_TOY_LAMBDA, annotator_toy_gold, simulate_integer_scores, \
    simulate_regions
from ..validation import RngLike, as_float_array, _as_positive_float, _as_positive_int, _as_rng, \
    _check_choice
from .base import Explorer, InputError

__all__ = ["toy_truth", "ToyPanel", "toy_rater_data", "centre_scores", "ScoreModel",
           "fit_score_model", "NoiseProfile", "noise_profile", "TOY_KERNEL", "spread_term_explorer", "panel_explorer",
           "AnnotatorToy", "annotator_toy_data",
           "fit_annotator_models", "true_noise_table", "annotator_explorer"]

SCALE = (0, 10)
#: The toy's kernel, close to what ML-II finds on it (lengthscale 0.2, variance 4): the
#: spread-term explorer holds it fixed so that only sigma^2 moves.
TOY_KERNEL = dict(lengthscale=0.2, variance=4.0)


def toy_truth(x) -> np.ndarray:
    """True fluency (0-10) of a toy utterance that spends a fraction x in [0, 1] of its time in
    pauses: 8 - 5x + sin(3 pi x), falling from 8 to 3 with a bump (short pauses barely hurt)."""
    x = as_float_array(x, "x")
    return 8.0 - 5.0 * x + np.sin(3.0 * np.pi * x)


@dataclass(frozen=True)
class ToyPanel:
    """Toy utterances scored by one panel of raters (see :func:`toy_rater_data`).

    ``X`` (n_items, 1) pause fractions, ``truth`` their true fluency, ``data`` the panel's
    scores; ``X_test``, ``truth_test``, ``test``: the same raters (same biases) scoring
    ``n_test`` evenly spaced test utterances (``None`` without test utterances).
    """

    X: np.ndarray
    truth: np.ndarray
    data: RaterData
    X_test: np.ndarray | None = None
    truth_test: np.ndarray | None = None
    test: RaterData | None = None


def toy_rater_data(n_items: int = 40, n_raters: int = 5, noise_sd: float = 1.0,
                   bias_sd: float = 0.0, *, n_test: int = 0, rng: RngLike = 0) -> ToyPanel:
    """Toy utterances scored by a panel of raters on the 0-10 scale.

    Training inputs are uniform on [0, 1] and sorted, test inputs evenly spaced on
    [0.02, 0.98]; truth is :func:`toy_truth`. Rater r has a bias b_r ~ N(0, bias_sd^2) and scores
    round(truth + b_r + N(0, noise_sd^2)), clipped to 0..10
    (:func:`~course_lib.simulators.rater_scores.simulate_integer_scores`). The draws come in a
    fixed order (biases, inputs, training noise, test noise), so the same ``rng`` seed with another
    ``noise_sd`` or ``bias_sd`` rescales the same random numbers.
    """
    n_items = _as_positive_int(n_items, "n_items")
    n_raters = _as_positive_int(n_raters, "n_raters")
    n_test = _as_positive_int(n_test, "n_test", minimum=0)
    noise_sd = _as_positive_float(noise_sd, "noise_sd", allow_zero=True)
    bias_sd = _as_positive_float(bias_sd, "bias_sd", allow_zero=True)
    rng = _as_rng(rng)
    bias = bias_sd * rng.standard_normal(n_raters)
    x = np.sort(rng.uniform(0.0, 1.0, n_items))
    x_test = np.linspace(0.02, 0.98, n_test)
    slope, noise = np.ones(n_raters), np.full(n_raters, noise_sd)
    panels = [(x[:, None], toy_truth(x), simulate_integer_scores(
        toy_truth(x), bias, slope, noise, scale=SCALE, rng=rng))]
    if n_test:
        panels.append((x_test[:, None], toy_truth(x_test), simulate_integer_scores(
            toy_truth(x_test), bias, slope, noise, scale=SCALE, rng=rng)))
    return ToyPanel(*[part for panel in panels for part in panel])


@dataclass(frozen=True)
class ScoreModel:
    """A :class:`MultiRaterGP` fitted to centred scores, and the offset to add back.

    Both seeds use a zero-mean GP, but scores sit around 5-7 on a 0-10 scale: the model is
    fitted to the scores minus ``offset`` (the training mean of the item means).
    """

    model: MultiRaterGP
    offset: float

    def predict_one_rater(self, X_test) -> tuple[np.ndarray, np.ndarray, float]:
        """(mean score, latent variance, noise of one rater's score) at the rows of X_test."""
        mean, var = self.model.predict(X_test)
        return mean + self.offset, var, self.model.noise_variance

    def log_predictive(self, X_test, scale=SCALE) -> np.ndarray:
        """log P(one rater gives score c) for each test item and whole score c, (n*, L)."""
        mean, var = self.model.predict(X_test, include_noise=True)
        return discretised_log_predictive(mean + self.offset, var, scale)


def fit_score_model(X, data: RaterData, mode: str, *, lengthscale: float = 0.2,
                    variance: float = 4.0, noise_variance: float = 1.0, optimise: bool = True,
                    n_restarts: int = 3, rng: RngLike = 0) -> ScoreModel:
    """A :class:`MultiRaterGP` (SE kernel) of ``mode`` fitted to the centred scores of ``data``,
    by ML-II with ``n_restarts`` runs when ``optimise`` (else at the given hyper-parameters)."""
    _check_choice(mode, "mode", MODES)
    model = MultiRaterGP(SquaredExponential(lengthscale, variance), noise_variance,
                         mode=mode).fit(X, centre_scores(data))
    if optimise:
        model.optimise_hyperparameters(n_restarts, rng=rng)
    return ScoreModel(model, float(data.means.mean()))


@dataclass(frozen=True)
class NoiseProfile:
    """The joint model's log-likelihood on a grid of one rater's noise variance, in its terms:
    ``total = gp_term + spread_term`` (see :func:`course_lib.gp.multi_rater.joint_log_likelihood`).
    ``gp_term`` alone is the evidence of the GP on the mean scores with noise sigma^2 / R_i."""

    noise: np.ndarray
    gp_term: np.ndarray
    spread_term: np.ndarray
    total: np.ndarray


def noise_profile(K, data: RaterData, noise) -> NoiseProfile:
    """Evaluate :func:`~course_lib.gp.multi_rater.joint_log_likelihood` (kernel matrix ``K`` of the
    items, centred scores ``data``) at every noise variance of the grid ``noise``."""
    noise = as_float_array(noise, "noise", ndim=1)
    terms = [joint_log_likelihood(K, data, value) for value in noise]
    gp_term = np.array([term.gp_term.value for term in terms])
    spread_term = np.array([term.spread_term for term in terms])
    return NoiseProfile(noise, gp_term, spread_term, gp_term + spread_term)


def centre_scores(data: RaterData) -> RaterData:
    """The same labels with every score minus the mean of the item means (no scale: centred
    scores are not whole numbers): what a zero-mean GP should be fitted to."""
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData, got {type(data).__name__}")
    return RaterData(data.items, data.raters, data.scores - data.means.mean(),
                     n_items=data.n_items, n_raters=data.n_raters)


def _fixed_seed(rng: RngLike) -> int:
    """One integer seed drawn from ``rng``: every render redraws the same random numbers."""
    return int(_as_rng(rng).integers(2 ** 63))


_FULL_LABEL = {"description_width": "initial"}   # show a control's whole description


def _int_slider(description, value, low, high):
    return W.IntSlider(value=value, min=low, max=high, description=description,
                       continuous_update=False, style=_FULL_LABEL)


def _float_slider(description, value, low, high, step=0.1):
    return W.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=False, style=_FULL_LABEL)


def spread_term_explorer(n_items: int = 40, n_grid: int = 120, *, rng: RngLike = 0) -> Explorer:
    """Rater noise, raters per item, bias spread and the spread term on/off -> the joint
    log-likelihood against sigma^2 (each curve relative to its maximum) next to the data with
    the predictive band of one rater's score at the sigma^2 that the plotted total prefers.

    The kernel is held at :data:`TOY_KERNEL`. With the spread term the band uses the joint
    model's sigma^2; without it the model is the GP on the means, whose noise sigma_base^2 =
    sigma^2 / R is the noise of a mean score, and that is what it adds for one rater.
    """
    n_items = _as_positive_int(n_items, "n_items", minimum=2)
    noise_grid = np.geomspace(0.02, 30.0, _as_positive_int(n_grid, "n_grid", minimum=10))
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
    per-item KL(raters || model) and its mean over the ``n_test`` test utterances."""
    n_items = _as_positive_int(n_items, "n_items", minimum=2)
    n_test = _as_positive_int(n_test, "n_test", minimum=1)
    n_restarts = _as_positive_int(n_restarts, "n_restarts")
    x_grid = np.linspace(0.0, 1.0, 150)
    seed = _fixed_seed(rng)
    controls = {
        "n_raters": _int_slider("raters R", 5, 2, 10),
        "noise_sd": _float_slider("rater noise sd", 1.0, 0.3, 3.0),
        "bias_sd": _float_slider("bias spread", 0.0, 0.0, 2.0),
        "utterance": _int_slider("test utterance", n_test // 3, 0, n_test - 1),
    }

    def render(n_raters, noise_sd, bias_sd, utterance) -> Figure:
        panel = toy_rater_data(n_items, n_raters, noise_sd, bias_sd, n_test=n_test, rng=seed)
        X, data, X_test, test = panel.X, panel.data, panel.X_test, panel.test
        models = {mode_name: fit_score_model(X, data, mode, n_restarts=n_restarts, rng=seed)
                  for mode_name, mode in (("base", "mean"), ("joint", "joint"))}
        log_p = {name: fitted.log_predictive(X_test) for name, fitted in models.items()}
        counts = test.histograms()
        kl = {name: discrete_kl(counts, values) for name, values in log_p.items()}
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

def _left_to_right(regions: Regions) -> Regions:
    """The same partition of one-dimensional inputs with the regions numbered by their centre,
    left to right (k-means numbers them in no particular order)."""
    order = np.argsort(regions.centres[:, 0])
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return Regions(rank[regions.labels], regions.centres[order], regions.method)


@dataclass(frozen=True)
class AnnotatorToy:
    """Gil-Gonzalez et al.'s toy: ``X`` (N, 1) inputs on [0, 1], ``gold`` their gold standard,
    ``regions`` the k-means regions the noise was simulated with (numbered left to right), ``data``
    the annotators' labels; ``X_test`` and ``gold_test`` the evenly spaced test inputs."""

    X: np.ndarray
    gold: np.ndarray
    regions: Regions
    data: RaterData
    X_test: np.ndarray
    gold_test: np.ndarray


def annotator_toy_data(variance_table=ANNOTATOR_TOY_LAMBDA, n_items: int = 60, n_test: int = 600,
                       *, rng: RngLike = 0) -> AnnotatorToy:
    """Gil-Gonzalez et al.'s toy: ``n_items`` inputs uniform on [0, 1], gold :func:`annotator_toy_gold`, as many
    k-means regions as ``variance_table`` has rows (numbered left to right), and one label per
    item from every annotator (column), y = gold + N(0, variance_table[region, annotator])
    (:func:`~course_lib.simulators.rater_scores.simulate_regions`; zeros allowed). The draws come
    in a fixed order (inputs, regions, noise), so another table with the same ``rng`` seed rescales
    the same noise."""
    table = as_float_array(variance_table, "variance_table", ndim=2)
    n_items = _as_positive_int(n_items, "n_items", minimum=2 * table.shape[0])
    n_test = _as_positive_int(n_test, "n_test")
    rng = _as_rng(rng)
    x = np.sort(rng.uniform(0.0, 1.0, n_items))
    X = x[:, None]
    regions = _left_to_right(assign_regions(X, table.shape[0], "kmeans", rng=rng))
    data = simulate_regions(annotator_toy_gold(x), regions, table, rng=rng)
    x_test = np.linspace(0.0, 1.0, n_test)
    return AnnotatorToy(X, annotator_toy_gold(x), regions, data, x_test[:, None],
                        annotator_toy_gold(x_test))


def _se_kernel() -> SquaredExponential:
    return SquaredExponential(0.1, 1.0, lengthscale_bounds=(1e-3, 10.0),
                              variance_bounds=(1e-3, 100.0))


def fit_annotator_models(X, data: RaterData, gold, n_regions: int = 3,
                         noise_floor: float = NOISE_FLOOR, *, n_restarts: int = 3,
                         rng: RngLike = 0) -> tuple[dict, Regions]:
    """The four models of Gil-Gonzalez et al.'s comparison, each with an SE kernel fitted by ML-II
    (``n_restarts`` runs, every noise variance bounded below by ``noise_floor``):

    ``GOLD``  a GP on the gold labels (the upper bound no real data set allows);
    ``Av``    a GP on the average label of each item;
    ``MA``    :class:`~course_lib.gp.annotator_noise.AnnotatorNoiseGP`, one variance per annotator;
    ``MANH``  the same with one variance per (region, annotator), regions by k-means
              (``n_regions``, one-dimensional inputs numbered left to right, regions of fewer
              than 2 items merged).

    Returns ``(models, regions)``: the fitted models by name and MANH's regions.
    """
    rng = _as_rng(rng)
    noise_floor = _as_positive_float(noise_floor, "noise_floor")
    gold = as_float_array(gold, "gold", ndim=1)
    regions = assign_regions(X, _as_positive_int(n_regions, "n_regions"), "kmeans", rng=rng,
                             min_size=2)
    if np.shape(X)[1] == 1:
        regions = _left_to_right(regions)
    models = {
        "GOLD": GPRegression(_se_kernel(), 0.1, noise_bounds=(noise_floor, 100.0)).fit(X, gold),
        "Av": GPRegression(_se_kernel(), 0.1, noise_bounds=(noise_floor, 100.0)).fit(
            X, data.means),
        "MA": AnnotatorNoiseGP(_se_kernel(), data.n_raters, noise_variance=0.1,
                               noise_floor=noise_floor).fit(X, data),
        "MANH": AnnotatorNoiseGP(_se_kernel(), data.n_raters, regions, noise_variance=0.1,
                                 noise_floor=noise_floor).fit(X, data),
    }
    for model in models.values():
        model.optimise_hyperparameters(n_restarts, rng=rng)
    return models, regions


def true_noise_table(model_regions, true_regions, variance_table) -> np.ndarray:
    """The true noise variance of every (model region, annotator) cell: the mean, over the
    items of that model region, of the variance ``variance_table[true region, annotator]`` their
    labels were drawn with (the table itself when the two partitions agree). Shape
    (n_model_regions, n_annotators); ``model_regions=None`` gives GPR-MA's single row."""
    table = as_float_array(variance_table, "variance_table", ndim=2)
    true_labels = (true_regions.labels if isinstance(true_regions, Regions)
                   else np.asarray(true_regions))
    per_item = table[true_labels]
    if model_regions is None:
        return per_item.mean(axis=0, keepdims=True)
    labels = (model_regions.labels if isinstance(model_regions, Regions)
              else np.asarray(model_regions))
    return np.vstack([per_item[labels == region].mean(axis=0)
                      for region in range(int(labels.max()) + 1)])


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
    when they lose focus."""
    n_items = _as_positive_int(n_items, "n_items", minimum=6)
    n_test = _as_positive_int(n_test, "n_test")
    n_restarts = _as_positive_int(n_restarts, "n_restarts")
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

    def render(n_regions, noise_floor, **cells) -> Figure:
        table = np.array([[_lambda_entry(cells[f"lambda_{row}_{col}"], row, col)
                           for col in range(3)] for row in range(3)])
        toy = annotator_toy_data(table, n_items, n_test, rng=seed)
        models, regions = fit_annotator_models(toy.X, toy.data, toy.gold, n_regions,
                                               noise_floor, n_restarts=n_restarts, rng=seed)
        fig = plt.figure(figsize=(10, 4.5))
        grid = fig.add_gridspec(2, 3, left=0.055, right=0.995, bottom=0.09, top=0.93,
                                wspace=0.22, hspace=0.42, width_ratios=[1, 1, 0.95])
        first = None
        for index, (name, model) in enumerate(models.items()):
            ax = fig.add_subplot(grid[index // 2, index % 2], sharex=first, sharey=first)
            first = first or ax
            mean, var = model.predict(toy.X_test)
            shown = regions if name == "MANH" else toy.regions
            _plot_annotator_fit(ax, toy.X_test, mean, var, gold=toy.gold_test,
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
        ax_ma = fig.add_subplot(grid[0, 2])
        plot_noise_table(ax_ma, models["MA"].noise_table_,
                         true_noise_table(None, toy.regions, table), models["MA"].at_floor_,
                         row_labels=["all"], col_labels=["ann. 1", "ann. 2", "ann. 3"],
                         vmax=max(1.0, table.max()))
        ax_ma.set_title("MA: learned (true) variance", fontsize="medium")
        ax_manh = fig.add_subplot(grid[1, 2])
        plot_noise_table(ax_manh, models["MANH"].noise_table_,
                         true_noise_table(regions, toy.regions, table), models["MANH"].at_floor_,
                         row_labels=[str(k + 1) for k in range(regions.n_regions)],
                         col_labels=["ann. 1", "ann. 2", "ann. 3"], vmax=max(1.0, table.max()))
        ax_manh.set_ylabel("region")
        ax_manh.set_title(f"MANH: {int(models['MANH'].at_floor_.sum())} at the floor (red)",
                          fontsize="medium")
        return fig

    return Explorer(render, controls, title="Annotators whose reliability differs by region")
