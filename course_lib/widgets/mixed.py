"""Explorers for Unit 7 (GPs that mix several kinds of feedback).

* :func:`elbo_ledger_explorer`: the evidence lower bound of a variational GP on 1-D items as a
  ledger: one bar per data type's expected log-likelihood, one for minus the KL, and their sum;
  data types switched on and off, the kernel's lengthscale, the KL counted once or (the
  bookkeeping trap) once per data type, and the posterior they give.
* :func:`constraint_explorer`: constraints as pseudo-observations in a sparse variational GP
  (Wu et al.'s model): how firm they are, whether an inducing point sits on each, the posterior
  after N trials, and the ledger that shows a rigid fit.
* :func:`likert_explorer`: the confidence likelihood of Wu et al. 2025 (eq. 2 with a lapse,
  :class:`~course_lib.mixed.feedback_likelihoods.LikertConfidence`): P(level | z) for the cut
  points and lapse on the sliders, the probabilities at one strength z, and the cap on the
  middle level.
* :func:`rater_explorer`: the over-confident rater. One subject's pairs and choices, with
  confidence levels re-drawn from a histogram the student sets (pairs at each level) and a
  rating noise that decides how closely the levels follow the true strength |f(a) - f(b)|;
  the Brier and F1 scores of the choices-only model and of the model with the ratings on a few
  fixed train/test splits show the ratings' gain appear or vanish.

The explorers wire controls to the fits of :mod:`course_lib.mixed.feedback_fits` (the ELBO's
ledger on chosen data types, constraints of one sd), to
:meth:`~course_lib.mixed.feedback_likelihoods.LikertConfidence.level_probabilities`, and to the
scores of :func:`course_lib.simulators.confidence_raters.preference_scores` (one model per
split, Brier and F1 on its test pairs); the drawing is :mod:`course_lib.plotting.mixed`. The
explorers hold no data of their own: answers, constraints, parts and subjects come from the
caller (the lecture builds them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from scipy.stats import norm, spearmanr

from ..mixed.constraints import detection_likelihood
from ..mixed.feedback_fits import constraint_fit, ledger_fit
from ..mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint, LikertConfidence
from ..gp.kernel_base import Kernel, as_inputs
from ..mixed.variational_model import MixedLikelihood
from ..mixed.inducing import inducing_points
from ..plotting.mixed import (plot_binary_answers, plot_constraints, plot_elbo_ledger,
                              plot_latent_band, plot_levels_by_strength, plot_likert_levels,
                              plot_paired_scores)
from ..simulators.confidence_raters import RATER_TOL, ConfidenceTrials
from ..simulators.rating_noise import RatingNoiseStudy
from ..validation import RngLike, as_float_array, as_positive_int
from .base import _FULL_LABEL, Explorer, InputError
from .hmm import _parse_vector

__all__ = ["elbo_ledger_explorer", "constraint_explorer", "likert_explorer", "rater_explorer"]

# How the ledger explorer counts the KL: once (the ELBO), or once per data type (the
#: bookkeeping error of a per-type normalisation, which maximises E - T KL for T types).
_KL_COUNTS = ("once (the ELBO)", "once per data type (a bookkeeping error)")


def _draw_data(ax, X, parts, names, use):
    """Constraints (GaussianConstraint) and yes/no answers (BernoulliProbit) on identity rows."""
    for index, (likelihood, M, y) in enumerate(parts):
        M = np.asarray(M)
        if not use[index] or not np.all(np.sum(M != 0, axis=1) == 1):
            continue
        items = X[np.argmax(M != 0, axis=1), 0]
        if isinstance(likelihood, GaussianConstraint):
            plot_constraints(ax, items, y, likelihood.noise_sd, colour=f"C{index}",
                             label=names[index])
        elif isinstance(likelihood, BernoulliProbit):
            plot_binary_answers(ax, items, y, colour=f"C{index}", label=names[index])


def elbo_ledger_explorer(X, parts: Sequence, names: Sequence[str], kernel: Kernel, *,
                         truth=None, x_plot=None) -> Explorer:
    """Checkboxes (one per data type in ``names``), the kernel's lengthscale and how the KL is
    counted (:data:`_KL_COUNTS`) -> the posterior of f over ``x_plot`` (default: 200 points
    spanning the 1-D items ``X``) and the ledger of the fit: each used type's expected
    log-likelihood, minus the (weighted) KL, and the objective. With the KL counted once per
    type, the ELBO's own posterior is drawn dashed beside the mis-weighted one.

    ``parts`` as :func:`ledger_fit`; on identity rows a
    :class:`~course_lib.mixed.feedback_likelihoods.GaussianConstraint` part is drawn as constraints
    and a :class:`~course_lib.mixed.feedback_likelihoods.BernoulliProbit` part as answer ticks.
    ``truth`` (optional): the true latent at ``x_plot``."""
    X = as_inputs(X, "X")
    if X.shape[1] != 1:
        raise ValueError(f"X: the ledger explorer draws 1-D inputs, got {X.shape[1]} columns")
    if len(names) != len(parts):
        raise ValueError(f"names: expected {len(parts)} names (one per part), got {len(names)}")
    MixedLikelihood(parts)     # every part checked once, here, before any control exists
    x_plot = (np.linspace(X.min(), X.max(), 200) if x_plot is None
              else as_float_array(x_plot, "x_plot", ndim=1))
    truth = None if truth is None else as_float_array(truth, "truth", ndim=1)
    lengthscale = float(kernel.params["lengthscale"])
    controls = {f"use_{index}": W.Checkbox(value=True, description=f"use {name}",
                                           style=_FULL_LABEL, indent=False)
                for index, name in enumerate(names)}
    controls["lengthscale"] = W.FloatLogSlider(
        value=lengthscale, base=10, min=np.log10(lengthscale) - 1, max=np.log10(lengthscale) + 1,
        step=0.05, description="lengthscale", continuous_update=False, style=_FULL_LABEL)
    controls["kl_count"] = W.Dropdown(options=list(_KL_COUNTS), value=_KL_COUNTS[0],
                                      description="KL counted", style=_FULL_LABEL)

    def render(lengthscale, kl_count, **flags) -> Figure:
        use = [flags[f"use_{index}"] for index in range(len(parts))]
        theta = kernel.theta.copy()
        theta[kernel.param_names.index("lengthscale")] = np.log(lengthscale)
        chosen_kernel = kernel.with_theta(theta)
        kl_weight = 1.0 if kl_count == _KL_COUNTS[0] else float(sum(use))
        if not any(use):  # shown in the panel, not as a traceback
            raise InputError("use: switch on at least one data type (with none there is no "
                             "likelihood, only the prior)")
        result = ledger_fit(X, parts, chosen_kernel, use, kl_weight=kl_weight)
        K_cross, K_test = chosen_kernel(X, x_plot[:, None]), chosen_kernel.diag(x_plot[:, None])
        mean, var = result.posterior.predict(K_cross, K_test)
        fig, (ax_f, ax_l) = plt.subplots(1, 2, figsize=(11.5, 4.0), gridspec_kw=dict(
            left=0.07, right=0.99, bottom=0.2, top=0.9, wspace=0.22, width_ratios=[1.3, 1]))
        plot_latent_band(ax_f, x_plot, mean, var, truth=truth,
                         label="posterior mean ± 2 sd" if kl_weight == 1.0 else
                         f"KL counted {kl_weight:g} times")
        if kl_weight != 1.0:
            elbo_fit = ledger_fit(X, parts, chosen_kernel, use)
            ax_f.plot(x_plot, elbo_fit.posterior.predict(K_cross, K_test)[0], color="C0",
                      ls="-.", lw=1.5, label="the ELBO's posterior mean")
        _draw_data(ax_f, X, parts, names, use)
        ax_f.legend(loc="upper center", fontsize="small", framealpha=0.9)
        ax_f.set_title("posterior of the latent under q", fontsize="medium")
        used = [name for name, on in zip(names, use) if on]
        colours = [f"C{index}" for index, on in enumerate(use) if on]
        plot_elbo_ledger(ax_l, used, result.part_expected_log_likelihoods, result.kl,
                         kl_weight=kl_weight, colours=colours)
        ax_l.set_title(f"{'ELBO' if kl_weight == 1.0 else 'objective'} = Σ E log p − "
                       f"{'' if kl_weight == 1.0 else f'{kl_weight:g} × '}KL = "
                       f"{result.part_expected_log_likelihoods.sum() - kl_weight * result.kl:.2f}",
                       fontsize="medium")
        return fig

    return Explorer(render, controls, title="The ELBO as a ledger: every data type once, "
                                            "one KL")


def constraint_explorer(X, answers, constraint_X, constraint_y, kernel: Kernel, bounds, *,
                        n_inducing: int = 6, truth=None, x_plot=None, rng=0) -> Explorer:
    """Constraint sd sigma (1e-2 to 1, i.e. sigma^2 from 1e-4 to 1), whether an inducing point
    sits on every constraint, and the number N of trials used (the first N rows of the 1-D
    ``X``, ``answers``) -> the sparse variational GP's posterior over ``x_plot`` (default: 200
    points across ``bounds``) with the full-rank VGP's mean beside it, the 75 %-correct level
    Phi^-1(0.75) of the latent, the inducing points, and the ledger of the sparse fit.

    The inducing points are ``n_inducing`` scrambled Sobol points of ``bounds`` (scrambled by
    ``rng``, the same for every setting), plus the constraint locations when the box is ticked
    (:func:`~course_lib.mixed.inducing.inducing_points`). ``truth``: the true latent at
    ``x_plot`` (optional)."""
    X = as_inputs(X, "X")
    if X.shape[1] != 1:
        raise ValueError(f"X: the constraint explorer draws 1-D inputs, got {X.shape[1]} columns")
    answers = as_float_array(answers, "answers", ndim=1)
    if answers.size != X.shape[0] or X.shape[0] < 2:
        raise ValueError(f"answers: expected one answer per row of X ({X.shape[0]}, at least "
                         f"2), got {answers.size}")
    constraint_X = as_inputs(constraint_X, "constraint_X")
    detection_likelihood(X, answers, constraint_X=constraint_X, constraint_y=constraint_y)
    bounds = as_float_array(bounds, "bounds", ndim=2)
    sobol = inducing_points(bounds, as_positive_int(n_inducing, "n_inducing"), rng=rng)
    x_plot = (np.linspace(bounds[0, 0], bounds[0, 1], 200) if x_plot is None
              else as_float_array(x_plot, "x_plot", ndim=1))
    truth = None if truth is None else as_float_array(truth, "truth", ndim=1)
    level = float(norm.ppf(0.75))
    controls = {
        "constraint_sd": W.FloatLogSlider(value=0.1, base=10, min=-2, max=0, step=0.1,
                                          description="constraint sd σ",
                                          continuous_update=False, style=_FULL_LABEL),
        "on_constraints": W.Checkbox(value=True, description="inducing point on each constraint",
                                     style=_FULL_LABEL, indent=False),
        "n_trials": W.IntSlider(value=min(20, X.shape[0]), min=2, max=X.shape[0],
                                description="trials N", continuous_update=False,
                                style=_FULL_LABEL),
    }

    def render(constraint_sd, on_constraints, n_trials) -> Figure:
        inducing = np.vstack([sobol, constraint_X]) if on_constraints else sobol
        args = (X[:n_trials], answers[:n_trials], constraint_X, constraint_y)
        sparse = constraint_fit(*args, kernel, inducing, constraint_sd)
        data = detection_likelihood(*args[:2], constraint_X=constraint_X,
                                    constraint_y=constraint_y)
        full = constraint_fit(*args, kernel, data.items, constraint_sd)   # Z = X: full rank
        mean, var = sparse.predict(x_plot[:, None])
        fig, (ax_f, ax_l) = plt.subplots(1, 2, figsize=(11.5, 4.0), gridspec_kw=dict(
            left=0.07, right=0.99, bottom=0.2, top=0.9, wspace=0.22, width_ratios=[1.3, 1]))
        plot_latent_band(ax_f, x_plot, mean, var, truth=truth, label="sparse VGP ± 2 sd")
        ax_f.plot(x_plot, full.predict(x_plot[:, None])[0], color="0.4", ls="-.", lw=1.5,
                  label="full VGP mean")
        ax_f.axhline(level, color="0.5", lw=0.8, ls=":", label="75 % correct")
        plot_binary_answers(ax_f, X[:n_trials], answers[:n_trials])
        plot_constraints(ax_f, constraint_X, constraint_y,
                         np.full(constraint_X.shape[0], constraint_sd))
        ax_f.plot(inducing[:, 0], np.full(inducing.shape[0], 0.1), "^", color="k", ms=7,
                  transform=ax_f.get_xaxis_transform(), label="inducing points")
        ax_f.legend(loc="upper left", fontsize="x-small", framealpha=0.9, ncol=2)
        sd_at = np.sqrt(sparse.predict(constraint_X)[1])
        ax_f.set_title(f"σ² = {constraint_sd ** 2:.0e}: posterior sd at the constraints "
                       f"{', '.join(f'{v:.2f}' for v in sd_at)}", fontsize="medium")
        result = sparse.result
        plot_elbo_ledger(ax_l, ["yes/no", "constraints"], result.expected_log_likelihoods,
                         result.kl)
        ax_l.set_title(f"ledger of the sparse fit: ELBO {result.value:.1f}", fontsize="medium")
        return fig

    return Explorer(render, controls, title="Constraints as pseudo-observations: how firm, and "
                                            "where the inducing points sit")


def likert_explorer(n_grid: int = 601, z_max: float = 6.0) -> Explorer:
    """Gaps between the cut points of a 3-level confidence likelihood (each at most Wu et al.'s
    ``max_gap`` = 2), the lapse and one strength z -> P(level | z) over [-z_max, z_max] with
    the cut points, the middle level's peak for these gaps and its cap over all gaps <= 2; and
    the three probabilities at z."""
    z = np.linspace(-float(z_max), float(z_max), as_positive_int(n_grid, "n_grid", minimum=3))
    controls = {
        "gap_1": W.FloatSlider(value=0.5, min=0.05, max=2.0, step=0.05,
                               description="gap c₁ − c₀", continuous_update=False,
                               style=_FULL_LABEL),
        "gap_2": W.FloatSlider(value=0.5, min=0.05, max=2.0, step=0.05,
                               description="gap c₂ − c₁", continuous_update=False,
                               style=_FULL_LABEL),
        "lapse": W.FloatLogSlider(value=0.1, base=10, min=-4, max=np.log10(0.5), step=0.05,
                                  description="lapse λ", continuous_update=False,
                                  style=_FULL_LABEL),
        "strength": W.FloatSlider(value=1.0, min=-z_max, max=z_max, step=0.1,
                                  description="strength z", continuous_update=False,
                                  style=_FULL_LABEL),
    }

    def render(gap_1, gap_2, lapse, strength) -> Figure:
        likelihood = LikertConfidence(3, gaps=[gap_1, gap_2], lapse=lapse)
        widest = LikertConfidence(3, gaps=[gap_1, likelihood.max_gap], lapse=lapse)
        probabilities = likelihood.level_probabilities(z)
        cap = float(widest.level_probabilities(z)[:, 1].max())
        at = likelihood.level_probabilities([strength])[0]
        fig, (ax_c, ax_b) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw=dict(
            left=0.07, right=0.99, bottom=0.15, top=0.9, wspace=0.25, width_ratios=[2, 1]))
        plot_likert_levels(ax_c, z, probabilities, likelihood.cut_points, cap=cap)
        ax_c.axvline(strength, color="k", lw=1)
        ax_c.legend(loc="upper right", fontsize="small")
        ax_c.set_title(f"middle level peaks at {probabilities[:, 1].max():.3f}; "
                       f"cap with gaps ≤ {likelihood.max_gap:g}: {cap:.3f}", fontsize="medium")
        bars = ax_b.bar(range(3), at, color=["C0", "C1", "C2"])
        for bar, p in zip(bars, at):
            ax_b.text(bar.get_x() + bar.get_width() / 2, p + 0.02, f"{p:.3f}", ha="center",
                      fontsize="small")
        ax_b.set_xticks(range(3), ["level 0", "level 1", "level 2"])
        ax_b.set_ylim(0, 1)
        ax_b.set_title(f"P(level | z = {strength:g})", fontsize="medium")
        return fig

    return Explorer(render, controls, title="Confidence ratings: cut points, lapse and the cap "
                                            "on the middle level")


def _gain_title(metric: str, without, with_ratings, better_sign: float) -> str:
    gain = better_sign * (with_ratings - without)
    return (f"{metric}: ratings gain {gain.mean():+.3f}\n(better on {int(np.sum(gain > 0))} "
            f"of {gain.size} splits)")


def rater_explorer(trials: ConfidenceTrials, kernel: Kernel, *, n_train: int = 20,
                   n_splits: int = 4, likert: LikertConfidence | None = None,
                   tol: float = RATER_TOL, rng: RngLike = 0,
                   fitted: Mapping | None = None) -> Explorer:
    """The over-confident rater: how many pairs sit at each confidence level and how closely
    the levels follow the true strength -> the Brier and F1 gains of mixing in the ratings.

    The pairs, their true strengths |f(a) - f(b)| and the choices are those of ``trials``
    (e.g. a haptic-like subject); only the confidence levels change. The controls set how many
    pairs sit at each level and the rating noise sd sigma (in units of the strength): the
    levels are
    :func:`~course_lib.simulators.confidence_raters.ranked_levels` of the strength plus N(0,
    sigma^2), so a small sigma ranks the pairs by strength (a calibrated rater) and a large one
    deals the histogram out at random (a rater who ignores the pair, as Wu et al.'s subject #2 did).
    The noise draws are fixed: a slider changes the levels, never the luck.

    Panels: the strength of the pairs in each level with ``likert``'s cut points (where the
    model expects a higher level) and the rank correlation of level and strength; the Brier
    score and F1 of the choices-only model and of the model with the ratings on each of
    ``n_splits`` fixed random splits (``n_train`` pairs to train, the rest to test), all held
    by a :class:`~course_lib.simulators.rating_noise.RatingNoiseStudy`: the choices-only
    scores are computed once, and a split's fit with the ratings once for each levels of its
    training pairs, or read from ``fitted``, the study's table made ahead for the same trials,
    kernel and ``rng`` (lecture 07 passes one fitted on every value of the noise slider). A
    setting that needs new fits (four take about two seconds) says so at once, with the other
    controls disabled until it is drawn. The histogram is typed as three whole numbers (the
    subject's own to start with); one that does not sum to the subject's pairs is refused with
    an :class:`~course_lib.widgets.base.InputError` naming ``counts``, and nothing is drawn
    until it does."""
    study = RatingNoiseStudy(trials, kernel, n_train=n_train, n_splits=n_splits, likert=likert,
                             tol=tol, rng=rng, fitted=fitted)
    likert, choices_only, strength = study.likert, study.choices_only, study.strength
    own_counts = np.bincount(trials.levels.astype(int), minlength=3)
    controls = {
        "counts": W.Text(value=" ".join(str(count) for count in own_counts),
                         description="pairs at levels 0, 1, 2", continuous_update=False,
                         style=_FULL_LABEL, layout=W.Layout(width="300px")),
        "noise_sd": W.FloatLogSlider(value=0.1, base=10, min=-2, max=2, step=0.1,
                                     description="rating noise σ", continuous_update=False,
                                     style=_FULL_LABEL),
    }
    names = ["level 0\n(1–3)", "level 1\n(4–6)", "level 2\n(7–9)"]

    def render(counts, noise_sd) -> Figure:
        try:
            counts = _parse_vector(counts, "counts")
            if counts.size != 3:
                raise ValueError(f"counts: expected 3 numbers (the pairs at levels 0, 1 and 2), "
                                 f"got {counts.size}")
            levels = study.levels(counts, noise_sd)
        except ValueError as err:          # a half-typed histogram: one line, no figure
            raise InputError(str(err)) from None
        with_ratings = study.with_ratings(levels)
        fig, axes = plt.subplots(1, 3, figsize=(12.5, 4.0), gridspec_kw=dict(
            left=0.06, right=0.99, bottom=0.17, top=0.86, wspace=0.3,
            width_ratios=[1.3, 1, 1]))
        plot_levels_by_strength(axes[0], levels, strength, level_names=names,
                                cut_points=likert.cut_points)
        axes[0].legend(loc="upper left", fontsize="x-small")
        # one level for every pair has no rank correlation: say so instead of printing nan
        agreement = (f"rank correlation of\nlevel and strength "
                     f"{spearmanr(levels, strength).statistic:.2f}" if np.ptp(levels) > 0
                     else "every pair at one level:\nthe level says nothing")
        axes[0].set_title(f"the ratings (σ = {noise_sd:.3g}): {agreement}", fontsize="medium")
        for ax, column, metric, sign in ((axes[1], 0, "Brier (lower is better)", -1.0),
                                         (axes[2], 1, "F1 (higher is better)", 1.0)):
            plot_paired_scores(ax, choices_only[:, column], with_ratings[:, column],
                               ylabel=metric.split()[0])
            ax.set_title(_gain_title(metric, choices_only[:, column], with_ratings[:, column],
                                     sign), fontsize="medium")
        return fig

    return Explorer(render, controls, title=f"The over-confident rater: do the ratings still "
                                            f"help? ({n_splits} splits, {n_train} training "
                                            f"pairs, {trials.n_trials - n_train} test pairs "
                                            f"each)",
                    busy=f"Fitting the model with the ratings on the {n_splits} splits…")
