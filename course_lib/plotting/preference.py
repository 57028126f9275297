"""Plots for preference GPs (Unit 6): ``plot_xxx(ax, ...) -> ax``.

Orientation as in :mod:`course_lib.preference.comparisons`: z = f(first) - f(second), and a degree of
preference y > 0.5 means the first item was preferred.

* :func:`plot_likelihood` -- p(y | z) of one answer against z;
* :func:`plot_curvature` -- w(z) = -d^2 log p / dz^2, its negative part (where the likelihood
  is not log-concave) shaded;
* :func:`plot_posterior_1d`, :func:`plot_posterior_2d` -- an exact posterior on a grid
  (``course_lib.preference.exact_posterior.GridPosterior``) against a Gaussian (Laplace) approximation,
  in 2-D with the Newton path and the region of negative curvature;
* :func:`plot_acquisition` -- acquisition functions over 1-D settings with the incumbent;
* :func:`plot_learning_curves` -- the learning curves of Jensen, Nielsen & Larsen 2011 from the
  committed result ``jensen2011_learning_curves`` (one axis per noise level).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.patches import Ellipse

from ..validation import as_float_array, check_length
from .colour import _series_linestyle
from .gp import _flat

__all__ = ["LAPLACE_COLOUR", "plot_likelihood", "plot_curvature", "plot_posterior_1d",
           "plot_posterior_2d", "plot_acquisition", "plot_learning_curves", "shade_negative"]

_NEGATIVE_COLOUR = "C3"   # w < 0: the likelihood is not log-concave there
_EXACT_COLOUR = "k"
LAPLACE_COLOUR = "C0"
_EP_COLOUR = "C2"


def _gaussian_density(x, mean: float, var: float) -> np.ndarray:
    return np.exp(-0.5 * (x - mean) ** 2 / var) / np.sqrt(2.0 * np.pi * var)


def plot_likelihood(ax, z, log_likelihood, *, label: str | None = None, color: str = "C0",
                    **line_kwargs):
    """Draw p(y | z) = exp(``log_likelihood``) against z = f(first) - f(second)."""
    z = _flat(z, "z")
    log_likelihood = check_length(as_float_array(log_likelihood, "log_likelihood"),
                                   "log_likelihood", z.size, "z")
    ax.plot(z, np.exp(log_likelihood), color=color,
            label=label, **({"lw": 2} | line_kwargs))
    ax.axvline(0.0, color="0.7", lw=0.8, ls=":")
    ax.set_xlabel("z = f(first) − f(second)")
    ax.set_ylabel("p(y | z)")
    return ax


def _spans(mask: np.ndarray):
    """(start, stop) index pairs of the runs of True in a 1-D boolean mask."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1)


def shade_negative(ax, z, curvature, *, label: str | None = "w < 0 (not log-concave)"):
    """Shade, in ``_NEGATIVE_COLOUR``, the z where the curvature w(z) is negative."""
    z = _flat(z, "z")
    w = as_float_array(curvature, "curvature")
    for index, (start, stop) in enumerate(_spans(w < 0)):
        ax.axvspan(z[start], z[stop], color=_NEGATIVE_COLOUR, alpha=0.15, lw=0,
                   label=label if index == 0 else None)
    return ax


def plot_curvature(ax, z, curvature, *, color: str = "C0", label: str | None = None,
                   shade: bool = True):
    """Draw the curvature w(z) = -d^2 log p(y | z) / dz^2 and shade, in ``_NEGATIVE_COLOUR``,
    the z where it is negative (log p is convex there: not log-concave)."""
    z = _flat(z, "z")
    w = check_length(as_float_array(curvature, "curvature"), "curvature", z.size, "z")
    ax.plot(z, w, color=color, lw=2, label=label)
    ax.axhline(0.0, color="0.5", lw=0.8)
    if shade:
        shade_negative(ax, z, w)
    ax.set_xlabel("z = f(first) − f(second)")
    ax.set_ylabel("w = −d² log p / dz²")
    return ax


def plot_posterior_1d(ax, posterior, *, laplace: tuple[float, float] | None = None,
                      ep: tuple[float, float] | None = None, prior_var: float | None = None,
                      item: int = 0):
    """The exact posterior of one latent on its grid (``posterior``: a ``GridPosterior``; for
    two items the marginal of ``item``) against Gaussians (mean, variance): ``laplace``,
    optionally ``ep``, and the zero-mean prior (``prior_var``)."""
    grid = posterior.axes[item]
    density = posterior.marginal(item)
    ax.plot(grid, density, color=_EXACT_COLOUR, lw=2,
            label=f"exact (mean {posterior.mean[item]:.2f}, sd "
                  f"{np.sqrt(posterior.cov[item, item]):.2f})")
    for name, moments, colour, style in (("Laplace", laplace, LAPLACE_COLOUR, "--"),
                                         ("EP", ep, _EP_COLOUR, "-.")):
        if moments is not None:
            mean, var = float(moments[0]), float(moments[1])
            ax.plot(grid, _gaussian_density(grid, mean, var), color=colour, lw=2, ls=style,
                    label=f"{name} (mean {mean:.2f}, sd {np.sqrt(var):.2f})")
    if prior_var is not None:
        ax.plot(grid, _gaussian_density(grid, 0.0, float(prior_var)), color="0.6", lw=1.2,
                ls=":", label="prior")
    ax.set_ylabel("density")
    ax.set_ylim(bottom=0.0)
    return ax


def _ellipse(ax, mean, cov, n_sd: float, **kwargs):
    values, vectors = np.linalg.eigh(cov)
    angle = np.degrees(np.arctan2(vectors[1, 1], vectors[0, 1]))
    width, height = 2.0 * n_sd * np.sqrt(np.maximum(values[::-1], 0.0))
    ax.add_patch(Ellipse(mean, width, height, angle=angle, fill=False, **kwargs))


def plot_posterior_2d(ax, posterior, *, laplace_mean=None, laplace_cov=None, path=None,
                      negative=None, levels: int = 8):
    """The exact posterior of two items' utilities (``GridPosterior`` on a 2-D grid) as filled
    contours; the Laplace Gaussian as 1- and 2-sd ellipses around its mode; ``path`` the Newton
    iterates (``course_lib.preference.laplace.NewtonStep`` list; steps that used the clipped weights
    max(w, 0) drawn as open squares); ``negative`` a boolean mask on the grid where some
    curvature w is negative (shaded)."""
    f1, f2 = posterior.axes
    density = np.exp(posterior.log_density)
    ax.contourf(f1, f2, density.T, levels=levels, cmap="Greys")
    if negative is not None:
        mask = np.asarray(negative, dtype=bool).T
        if mask.any():
            ax.contourf(f1, f2, mask.astype(float), levels=[0.5, 1.5], colors=[_NEGATIVE_COLOUR],
                        alpha=0.15)
            ax.contour(f1, f2, mask.astype(float), levels=[0.5], colors=_NEGATIVE_COLOUR,
                       linewidths=0.8)
            ax.fill_between([], [], color=_NEGATIVE_COLOUR, alpha=0.15, label="w < 0")
    ax.plot(*posterior.mean, "k+", ms=12, mew=2, label="exact mean")
    if laplace_mean is not None and laplace_cov is not None:
        for n_sd in (1.0, 2.0):
            _ellipse(ax, laplace_mean, np.asarray(laplace_cov), n_sd, color=LAPLACE_COLOUR,
                     lw=1.8, ls="--" if n_sd > 1 else "-")
        ax.plot(*laplace_mean, "o", color=LAPLACE_COLOUR, ms=6, label="Laplace mode, 1 and 2 sd")
    if path is not None:
        points = np.array([step.f for step in path])
        ax.plot(points[:, 0], points[:, 1], "-", color="C1", lw=1.5, label="Newton path")
        clipped = np.array([step.clipped for step in path])
        ax.plot(points[~clipped, 0], points[~clipped, 1], "o", color="C1", ms=4)
        if clipped.any():
            ax.plot(points[clipped, 0], points[clipped, 1], "s", mfc="none", color="C1", ms=7,
                    label="step with clipped w")
    ax.set_xlim(f1[0], f1[-1])
    ax.set_ylim(f2[0], f2[-1])
    ax.set_xlabel("f(first)")
    ax.set_ylabel("f(second)")
    ax.set_aspect("equal")
    return ax


def plot_acquisition(ax, x, values: Mapping[str, np.ndarray], *, incumbent: float | None = None,
                     picks: Mapping[str, float] | None = None):
    """Acquisition functions over 1-D settings ``x`` (``values``: label -> array), the
    incumbent as a vertical line and each rule's pick (``picks``: label -> x) as a marker."""
    x = _flat(x, "x")
    for index, (label, curve) in enumerate(values.items()):
        colour = f"C{index + 2}"
        curve = check_length(as_float_array(curve, label), f"values[{label!r}]", x.size, "x")
        ax.plot(x, curve, color=colour, lw=2, ls=_series_linestyle(index), label=label)
        if picks is not None and label in picks:
            at = int(np.argmin(np.abs(x - picks[label])))
            ax.plot(x[at], curve[at], "v", color=colour, ms=9, mec="k")
    if incumbent is not None:
        ax.axvline(incumbent, color="k", lw=1, ls="--", label="incumbent x_best")
    ax.set_xlabel("setting x")
    ax.set_ylabel("expected improvement")
    ax.set_ylim(bottom=0.0)
    return ax


#: Jensen, Nielsen & Larsen's (2011) conditions as the learning-curve plot draws them: key
#: prefix, label, line style.
_LEARNING_CURVES = (("BR_noise", "BR Noise (probit on thresholded answers)", "s-"),
                   ("CBR_ideal", "CBR Ideal (Beta, ν known)", "o-"),
                   ("CBR_noise", "CBR Noise (Beta, ν by MAP-II)", "^-"),
                   ("BR_noise_free", "BR NoiseFree", "k--"),
                   ("CBR_noise_free", "CBR NoiseFree (ν = 1000)", "k:"))


def plot_learning_curves(axes: Sequence, result: Mapping):
    """Jensen, Nielsen & Larsen's mean error rate against the number of comparisons m, one axis per
    noise level ν_D, from the result document ``jensen2011_learning_curves`` (``load_result`` or the
    dict its script writes). Returns ``axes``."""
    settings, mer = result["settings"], result["result"]["summary"]["mer"]
    levels, m_values = settings["noise_levels_nu_D"], settings["m_values"]
    if len(axes) != len(levels):
        raise ValueError(f"axes: expected {len(levels)} axes (one per noise level), got "
                         f"{len(axes)}")
    for ax, nu in zip(axes, levels):
        for key, label, style in _LEARNING_CURVES:
            cell = key if key.endswith("noise_free") else f"{key}/nu={nu}"
            ax.plot(m_values, mer[cell]["mean"], style, label=label, ms=4)
        ax.set_title(f"ν_D = {nu}")
        ax.set_xlabel("number of comparisons m")
        ax.set_xscale("log")
    axes[0].set_ylabel(f"mean error rate ({len(settings['realisations'])} realisations)")
    axes[0].legend(fontsize="small")
    return axes
