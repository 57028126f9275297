"""Explorers for Unit 6 (preference GPs): one answer's likelihood, and Laplace against the truth.

* :func:`likelihood_explorer`: the probit ("which do you prefer") or Beta ("and how much")
  likelihood of one answer as a function of z = f(first) - f(second), its curvature w(z) with
  the region where it is negative shaded, and what the answer does to the posterior of z
  (exact on a grid, and Laplace).
* :func:`laplace_explorer`: two items with correlated prior utilities and one comparison: the
  exact posterior on a 2-D grid against the Laplace Gaussian, Newton's path from a chosen start
  (steps that needed the clipped weights max(w, 0) marked) and the band of (f(first),
  f(second)) where the curvature is negative.

The exact posterior is :func:`course_lib.preference.exact_posterior.grid_posterior`, the brute-force
reference (the posterior on a product grid, normalised by a Riemann sum in log space); the models
are
:mod:`course_lib.preference.likelihoods` (with :mod:`course_lib.preference.probit_beta`) and :func:`course_lib.preference.laplace.laplace_mode` /
:func:`~course_lib.preference.laplace.newton_path`, the drawing :mod:`course_lib.plotting.preference`.
Orientation (:mod:`course_lib.preference.comparisons`): a degree y > 0.5 means the first item was
preferred; the explorers read the slider that way for the probit too (y > 0.5: "first", y < 0.5:
"second"; y = 0.5 is no binary answer and is refused).
"""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ..preference.exact_posterior import grid_posterior, two_item_prior
from ..preference.laplace import laplace_mode, newton_path
from ..preference.laplace import InvalidLaplaceError
from ..preference.likelihoods import Likelihood
from ..preference.likelihoods import PairwiseProbit
from ..preference.probit_beta import PairwiseBeta
from ..plotting.preference import (LAPLACE_COLOUR, plot_curvature, plot_likelihood,
                                   plot_posterior_1d, plot_posterior_2d, shade_negative)
from ..validation import as_float_array, as_positive_float, check_choice
from .base import _FULL_LABEL, Explorer, InputError, _float_slider

__all__ = ["likelihood_explorer", "laplace_explorer"]

# The explorers' answer models, by the name their dropdown shows.
_MODELS = ("probit (which?)", "Beta (how much?)")


def _pairwise_likelihood(model: str, noise_sd: float, concentration: float) -> Likelihood:
    """The explorers' likelihood: ``PairwiseProbit(noise_sd)`` or
    ``PairwiseBeta(noise_sd, concentration)`` by the name in :data:`_MODELS`."""
    check_choice(model, "model", _MODELS)
    if model == _MODELS[0]:
        return PairwiseProbit(noise_sd)
    return PairwiseBeta(noise_sd, concentration)


def _answer_for(model: str, answer: float) -> float:
    """The answer the likelihood sees: the slider's degree for the Beta model; for the probit
    its side, 1 (first preferred, degree > 0.5) or 0. A degree of exactly 0.5 (no preference)
    is no binary answer, and a slider set to NaN (from code) no answer at all: both an
    :class:`~course_lib.widgets.base.InputError` naming ``answer``."""
    check_choice(model, "model", _MODELS)
    try:
        answer = float(as_float_array(answer, "answer", ndim=0))
    except ValueError as err:     # NaN would otherwise read as "second preferred" (not > 0.5)
        raise InputError(str(err)) from None
    if model == _MODELS[1]:
        return answer
    if answer == 0.5:
        raise InputError("answer: 0.5 means 'no preference', which a binary (probit) answer "
                         "cannot say; move the slider to one side or choose the Beta model")
    return 1.0 if answer > 0.5 else 0.0


def _concentration_slider():
    return W.FloatLogSlider(value=10.0, base=10, min=0, max=2, step=0.05,
                            description="Beta concentration ν", continuous_update=False,
                            style=_FULL_LABEL)


def _model_dropdown():
    return W.Dropdown(options=list(_MODELS), value=_MODELS[1], description="answer model",
                      style=_FULL_LABEL)


def likelihood_explorer(n_grid: int = 801, z_max: float = 8.0) -> Explorer:
    """Answer model, answer (slider degree; its side for the probit), noise sd sigma, Beta
    concentration nu and the prior sd of each utility -> three panels over
    z = f(first) - f(second): the likelihood of the answer, its curvature w(z) (negative part
    shaded) and the posterior of z after this one answer (two independent items, so z has prior
    variance 2 prior_sd^2): exact on a grid of ``n_grid`` points on [-z_max, z_max] against the
    Laplace Gaussian."""
    z = np.linspace(-as_positive_float(z_max, "z_max"), z_max, int(n_grid))
    controls = {
        "model": _model_dropdown(),
        "answer": _float_slider("answer y (> 0.5: first)", 0.95, 0.01, 0.99, 0.01),
        "noise_sd": _float_slider("noise sd σ", 1.0, 0.1, 3.0, 0.05),
        "concentration": _concentration_slider(),
        "prior_sd": _float_slider("prior sd of f", 1.0, 0.25, 3.0, 0.05),
    }

    def render(model, answer, noise_sd, concentration, prior_sd) -> Figure:
        y = _answer_for(model, answer)
        likelihood = _pairwise_likelihood(model, noise_sd, concentration)
        terms = likelihood.terms(z, np.full(z.size, y))
        prior_var = 2.0 * prior_sd ** 2
        # z itself as the one latent: prior N(0, 2 prior_sd^2), an identity row of M
        exact = grid_posterior([[prior_var]], [[1.0]], likelihood, [y], (z,))
        laplace = laplace_mode([[prior_var]], [[1.0]], likelihood, [y])
        fig, (ax_l, ax_w, ax_p) = plt.subplots(1, 3, figsize=(11, 3.6), gridspec_kw=dict(
            left=0.06, right=0.99, bottom=0.15, top=0.9, wspace=0.3))
        said = (f"y = {y:g}" if model == _MODELS[1] else
                "first preferred" if y == 1 else "second preferred")
        plot_likelihood(ax_l, z, terms.log_likelihood, label=said)
        ax_l.set_title(f"{type(likelihood).__name__}: {said}", fontsize="medium")
        plot_curvature(ax_w, z, terms.curvature)
        ax_w.set_title("curvature of log p(y | z)", fontsize="medium")
        if np.any(terms.curvature < 0):
            ax_w.legend(loc="upper left", fontsize="small")
        plot_posterior_1d(ax_p, exact, prior_var=prior_var,
                          laplace=(laplace.f_hat[0], laplace.covariance()[0, 0]))
        ax_p.set_xlabel("z = f(first) − f(second)")
        ax_p.set_title("posterior of z after this answer", fontsize="medium")
        ax_p.legend(loc="upper left", fontsize="small")
        return fig

    return Explorer(render, controls, title="One answer: likelihood, curvature and posterior")


def laplace_explorer(n_grid: int = 161, f_max: float = 4.0) -> Explorer:
    """Answer model, answer, noise sd, concentration, the prior correlation of the two items
    and Newton's start z0 (f0 = (z0/2, -z0/2)) -> the exact posterior of (f(first),
    f(second)) on an ``n_grid`` x ``n_grid`` grid on [-f_max, f_max]^2 (prior sd 1 each) with
    the Laplace ellipses, Newton's path (:func:`~course_lib.preference.laplace.newton_path`) and the
    shaded band where w(f(first) - f(second)) < 0; and the posterior of z = f(first) -
    f(second), exact against Laplace. A start from which no Laplace approximation exists
    (:class:`~course_lib.preference.laplace.InvalidLaplaceError`) is reported in one line."""
    f_max = as_positive_float(f_max, "f_max")
    grid = np.linspace(-f_max, f_max, int(n_grid))
    controls = {
        "model": _model_dropdown(),
        "answer": _float_slider("answer y (> 0.5: first)", 0.95, 0.01, 0.99, 0.01),
        "noise_sd": _float_slider("noise sd σ", 0.5, 0.1, 2.0, 0.05),
        "concentration": _concentration_slider(),
        "correlation": _float_slider("prior correlation ρ", 0.0, -0.9, 0.9, 0.05),
        "start": _float_slider("Newton start z0", -1.5, -6.0, 6.0, 0.25),
    }

    def render(model, answer, noise_sd, concentration, correlation, start) -> Figure:
        y = _answer_for(model, answer)
        likelihood = _pairwise_likelihood(model, noise_sd, concentration)
        K = two_item_prior(1.0, correlation)
        M = np.array([[1.0, -1.0]])
        exact = grid_posterior(K, M, likelihood, [y], (grid, grid))
        f0 = np.array([0.5 * start, -0.5 * start])
        try:
            result = laplace_mode(K, M, likelihood, [y], f0)
        except InvalidLaplaceError as err:
            raise InputError(f"start: {err}") from None
        path = newton_path(K, M, likelihood, [y], f0)
        first, second = np.meshgrid(grid, grid, indexing="ij")
        z = (first - second).ravel()
        negative = (likelihood.terms(z, np.full(z.size, y)).curvature < 0).reshape(first.shape)
        fig, (ax_2d, ax_z) = plt.subplots(1, 2, figsize=(10, 4.3), gridspec_kw=dict(
            left=0.07, right=0.99, bottom=0.13, top=0.9, wspace=0.25, width_ratios=[1, 1.15]))
        cov = result.covariance()
        plot_posterior_2d(ax_2d, exact, laplace_mean=result.f_hat, laplace_cov=cov, path=path,
                          negative=negative)
        ax_2d.legend(loc="lower left", fontsize="small")
        n_clipped = sum(step.clipped for step in path)
        ax_2d.set_title(f"Newton: {len(path) - 1} steps, {n_clipped} with clipped w",
                        fontsize="medium")
        # z = f1 - f2 on a grid of its own: the exact marginal by brute force in z directly
        z_var = float((M @ K @ M.T)[0, 0])
        z_grid = np.linspace(-2 * f_max, 2 * f_max, 2001)   # resolves sharp posteriors of z
        exact_z = grid_posterior([[z_var]], [[1.0]], likelihood, [y], (z_grid,))
        z_laplace = (float((M @ result.f_hat)[0]), float((M @ cov @ M.T)[0, 0]))
        plot_posterior_1d(ax_z, exact_z, laplace=z_laplace, prior_var=z_var)
        ax_z.set_xlabel("z = f(first) − f(second)")
        shade_negative(ax_z, z_grid, likelihood.terms(z_grid, np.full(z_grid.size, y)).curvature)
        ax_z.set_title("posterior of z (shaded: w < 0)", fontsize="medium")
        ax_z.legend(loc="upper left", fontsize="small")
        ax_z.axvline(z_laplace[0], color=LAPLACE_COLOUR, lw=0.8)
        return fig

    return Explorer(render, controls, title="Laplace against the exact posterior: two items")

