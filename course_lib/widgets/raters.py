"""Explorers for Unit 5 (several raters per item; annotators whose reliability differs).

* :func:`spread_term_explorer`: the joint model's log-likelihood against one rater's noise
  variance sigma^2, split into the GP term and the spread term c(sigma^2); a checkbox drops the
  spread term, which turns the joint model back into the GP on the mean score.
* :func:`panel_explorer`: "one utterance, five raters": the raters' histogram of one test
  utterance against the discretised predictive distributions of the base (mean) and joint
  models, with the per-item KL.

The models are :class:`course_lib.gp.raters.MultiRaterGP`, the metrics come from
:mod:`course_lib.metrics`, the drawing from :mod:`course_lib.plotting.raters`. The toy data are
one-dimensional so that every score can be seen: x is the fraction of an utterance spent in
pauses and :func:`toy_truth` its true fluency; simulated raters score it 0-10 with
:func:`course_lib.gp.raters.simulate_integer_scores`. Random draws use one fixed seed per
explorer, so moving a slider deforms the same draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ..gp.kernels import SquaredExponential
from ..gp.raters import MODES, MultiRaterGP, RaterData, joint_log_likelihood, \
    simulate_integer_scores
from ..metrics import discrete_kl, discretised_log_predictive
from ..plotting.gp import plot_gp_posterior
from ..plotting.raters import MODEL_COLOURS, plot_noise_profile, plot_rater_scores, \
    plot_score_distribution
from ..validation import RngLike, as_float_array, as_positive_float, as_positive_int, as_rng, \
    check_choice
from .base import Explorer

__all__ = ["toy_truth", "ToyPanel", "toy_rater_data", "ScoreModel", "fit_score_model", "NoiseProfile",
           "noise_profile", "TOY_KERNEL", "spread_term_explorer", "panel_explorer"]

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
    (:func:`~course_lib.gp.raters.simulate_integer_scores`). The draws come in a fixed order
    (biases, inputs, training noise, test noise), so the same ``rng`` seed with another
    ``noise_sd`` or ``bias_sd`` rescales the same random numbers.
    """
    n_items = as_positive_int(n_items, "n_items")
    n_raters = as_positive_int(n_raters, "n_raters")
    n_test = as_positive_int(n_test, "n_test", minimum=0)
    noise_sd = as_positive_float(noise_sd, "noise_sd", allow_zero=True)
    bias_sd = as_positive_float(bias_sd, "bias_sd", allow_zero=True)
    rng = as_rng(rng)
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
    check_choice(mode, "mode", MODES)
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData, got {type(data).__name__}")
    offset = float(data.means.mean())
    centred = RaterData(data.items, data.raters, data.scores - offset, n_items=data.n_items,
                        n_raters=data.n_raters)
    model = MultiRaterGP(SquaredExponential(lengthscale, variance), noise_variance,
                         mode=mode).fit(X, centred)
    if optimise:
        model.optimise_hyperparameters(n_restarts, rng=rng)
    return ScoreModel(model, offset)


@dataclass(frozen=True)
class NoiseProfile:
    """The joint model's log-likelihood on a grid of one rater's noise variance, in its terms:
    ``total = gp_term + spread_term`` (see :func:`course_lib.gp.raters.joint_log_likelihood`).
    ``gp_term`` alone is the evidence of the GP on the mean scores with noise sigma^2 / R_i."""

    noise: np.ndarray
    gp_term: np.ndarray
    spread_term: np.ndarray
    total: np.ndarray


def noise_profile(K, data: RaterData, noise) -> NoiseProfile:
    """Evaluate :func:`~course_lib.gp.raters.joint_log_likelihood` (kernel matrix ``K`` of the
    items, centred scores ``data``) at every noise variance of the grid ``noise``."""
    noise = as_float_array(noise, "noise", ndim=1)
    terms = [joint_log_likelihood(K, data, value) for value in noise]
    gp_term = np.array([term.gp_term.value for term in terms])
    spread_term = np.array([term.spread_term for term in terms])
    return NoiseProfile(noise, gp_term, spread_term, gp_term + spread_term)


def _centred(data: RaterData) -> RaterData:
    return RaterData(data.items, data.raters, data.scores - data.means.mean(),
                     n_items=data.n_items, n_raters=data.n_raters)


def _fixed_seed(rng: RngLike) -> int:
    """One integer seed drawn from ``rng``: every render redraws the same random numbers."""
    return int(as_rng(rng).integers(2 ** 63))


def _int_slider(description, value, low, high):
    return W.IntSlider(value=value, min=low, max=high, description=description,
                       continuous_update=False)


def _float_slider(description, value, low, high, step=0.1):
    return W.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=False)


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
        profile = noise_profile(kernel(X), _centred(data), noise_grid)
        if include_spread_term:
            curves = {"joint = GP term + spread term": profile.total,
                      "GP term (GP on the means)": profile.gp_term,
                      "spread term c(σ²)": profile.spread_term}
            chosen = profile.total
        else:
            curves = {"GP term (GP on the means)": profile.gp_term}
            chosen = profile.gp_term
        sigma2 = float(noise_grid[np.argmax(chosen)])
        mode = "joint" if include_spread_term else "mean"
        rater_noise = sigma2 if include_spread_term else sigma2 / n_raters
        fitted = fit_score_model(X, data, mode, noise_variance=rater_noise, optimise=False,
                                 **TOY_KERNEL)
        mean, var, noise = fitted.predict_one_rater(x_test[:, None])
        fig, (ax_p, ax_d) = plt.subplots(1, 2, figsize=(12.5, 4.1), gridspec_kw=dict(
            left=0.06, right=0.99, bottom=0.13, top=0.9, wspace=0.2))
        plot_noise_profile(ax_p, noise_grid, curves, true_noise=noise_sd ** 2 + 1 / 12, styles={
            "joint = GP term + spread term": {"color": MODEL_COLOURS["joint"]},
            "GP term (GP on the means)": {"color": MODEL_COLOURS["mean"], "ls": "--"},
            "spread term c(σ²)": {"color": "0.45", "ls": ":"}})
        ax_p.set_title("log-likelihood against one rater's noise (kernel fixed)")
        plot_gp_posterior(ax_d, x_test, mean, var, noise_variance=noise,
                          color=MODEL_COLOURS[mode])
        plot_rater_scores(ax_d, X, data, show_means=False, markersize=3)
        ax_d.set(xlabel="fraction of time in pauses", ylabel="fluency score", ylim=(-0.5, 10.5))
        label = ("joint model: one rater's score ± 2 sd with σ²" if include_spread_term else
                 "GP on the means: band ± 2 sd with σ_base² = σ²/R")
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

    def render(n_raters, noise_sd, bias_sd, utterance) -> Figure:
        panel = toy_rater_data(n_items, n_raters, noise_sd, bias_sd, n_test=n_test, rng=seed)
        X, data, X_test, test = panel.X, panel.data, panel.X_test, panel.test
        models = {mode_name: fit_score_model(X, data, mode, n_restarts=n_restarts, rng=seed)
                  for mode_name, mode in (("base", "mean"), ("joint", "joint"))}
        log_p = {name: fitted.log_predictive(X_test) for name, fitted in models.items()}
        counts = test.histograms()
        kl = {name: discrete_kl(counts, values) for name, values in log_p.items()}
        fig, (ax_d, ax_h) = plt.subplots(1, 2, figsize=(12.5, 4.1), gridspec_kw=dict(
            left=0.06, right=0.99, bottom=0.13, top=0.9, wspace=0.18,
            width_ratios=[1.25, 1]))
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
                 title=f"{n_items} training utterances × {n_raters} raters; "
                       f"mean KL over {n_test} test utterances: base "
                       f"{kl['base'].mean():.2f}, joint {kl['joint'].mean():.2f}")
        ax_d.title.set_fontsize("medium")
        handles, labels = ax_d.get_legend_handles_labels()
        ax_d.legend(handles[:2], labels[:2], loc="lower left", fontsize="small")
        plot_score_distribution(ax_h, counts[utterance],
                                {name: values[utterance] for name, values in log_p.items()},
                                kl={name: values[utterance] for name, values in kl.items()})
        ax_h.set_title(f"test utterance {utterance} (dashed line): its {n_raters} raters "
                       "vs the models", fontsize="medium")
        return fig

    return Explorer(render, controls, title="One utterance, a panel of raters")
