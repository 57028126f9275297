"""Plots for Unit 2 (Gaussians, mixtures, EM): pure functions ``plot_x(ax, ...) -> ax``."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from scipy.linalg import cholesky

from ..gaussian import as_covariance, gaussian_log_density
from ..gmm import GMMParams, score_samples

__all__ = ["component_colours", "plot_gaussian_contours", "plot_gaussian_1d",
           "plot_responsibilities", "plot_gmm_density_1d", "plot_loglik_trace",
           "plot_model_selection"]


def component_colours(n_components: int) -> np.ndarray:
    """(K, 3) RGB colours, one per component (tab10, cycled)."""
    palette = colormaps["tab10"].colors
    return np.array([palette[k % len(palette)] for k in range(n_components)])[:, :3]


def plot_gaussian_contours(ax, mean, cov, *, levels=(1.0, 2.0, 3.0), color="k",
                           n_points: int = 100, **line_kwargs):
    """Ellipses of constant Mahalanobis distance r (``levels``) of a 2-D Gaussian.

    With Sigma = L L^T the ellipse {x : (x - mu)^T Sigma^{-1} (x - mu) = r^2} is
    x = mu + r L u for u on the unit circle. ``cov`` is (2, 2) or (2,) variances.
    """
    mean = np.asarray(mean, dtype=float)
    cov = np.asarray(cov, dtype=float)
    cov = as_covariance(cov, 2, "full" if cov.ndim == 2 else "diag", name="cov")
    L = cholesky(cov, lower=True) if cov.ndim == 2 else np.diag(np.sqrt(cov))
    t = np.linspace(0.0, 2.0 * np.pi, n_points)
    circle = np.stack([np.cos(t), np.sin(t)])
    for i, r in enumerate(levels):
        curve = mean[:, None] + r * (L @ circle)
        ax.plot(curve[0], curve[1], color=color, alpha=max(0.3, 1.0 - 0.25 * i), **line_kwargs)
    return ax


def plot_gaussian_1d(ax, mean: float, var: float, samples=None, *, x_range=None,
                     bins: int = 30, color="C0"):
    """The density N(x | mean, var) as a curve, over a histogram of ``samples`` if given."""
    sd = np.sqrt(var)
    lo, hi = x_range if x_range is not None else (mean - 4 * sd, mean + 4 * sd)
    x = np.linspace(lo, hi, 400)
    density = np.exp(gaussian_log_density(x[:, None], np.array([mean]), np.array([var]), "diag"))
    if samples is not None:
        ax.hist(np.ravel(samples), bins=bins, range=(lo, hi), density=True, color=color,
                alpha=0.35, label=f"{np.size(samples)} samples")
    ax.plot(x, density, color=color, label=f"N(x | {mean:.2g}, {var:.2g})")
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    return ax


def plot_responsibilities(ax, X, resp, params: GMMParams | None = None, *, size: float = 12,
                          dims=(0, 1)):
    """Scatter 2-D points coloured by responsibility: colour_n = sum_k gamma_nk colour_k.

    With ``params`` each component's mean (x) and 1-, 2-sigma contours are drawn in its
    colour. ``dims`` picks the two columns to show.
    """
    X = np.asarray(X, dtype=float)[:, list(dims)]
    resp = np.asarray(resp, dtype=float)
    colours = component_colours(resp.shape[1])
    ax.scatter(X[:, 0], X[:, 1], c=np.clip(resp @ colours, 0, 1), s=size, linewidths=0)
    if params is not None:
        index = np.ix_(list(dims), list(dims))
        for k, colour in enumerate(colours):
            cov = params.full_covariances()[k][index]
            plot_gaussian_contours(ax, params.means[k, list(dims)], cov, levels=(1.0, 2.0),
                                   color=colour, linewidth=1.5)
            ax.plot(*params.means[k, list(dims)], "x", color=colour, markersize=10, mew=2)
    ax.set_xlabel(f"x{dims[0] + 1}")
    ax.set_ylabel(f"x{dims[1] + 1}")
    return ax


def plot_gmm_density_1d(ax, params: GMMParams, x_range, samples=None, *, bins: int = 40,
                        components: bool = True):
    """1-D mixture density p(x) (and each pi_k N(x | mu_k, sigma2_k)) over optional data."""
    x = np.linspace(*x_range, 500)[:, None]
    if samples is not None:
        ax.hist(np.ravel(samples), bins=bins, range=x_range, density=True, color="0.7")
    if components:
        for k, colour in enumerate(component_colours(params.n_components)):
            var = params.full_covariances()[k][0, 0]
            log_pk = gaussian_log_density(x, params.means[k], np.array([var]), "diag")
            ax.plot(x[:, 0], params.weights[k] * np.exp(log_pk), color=colour, lw=1, ls="--")
    ax.plot(x[:, 0], np.exp(score_samples(x, params)), color="k", lw=2, label="p(x)")
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    return ax


def plot_loglik_trace(ax, trace, *, per_frame: int | None = None, label: str | None = None,
                      **line_kwargs):
    """EM log-likelihood l(theta_t) against iteration t (t = 0 is the initialisation).

    ``per_frame=N`` divides by the number of frames (comparable across data sizes).
    """
    trace = np.asarray(trace, dtype=float)
    values = trace / per_frame if per_frame else trace
    ax.plot(np.arange(len(values)), values, "o-", markersize=3, label=label, **line_kwargs)
    ax.set_xlabel("EM iteration t")
    ax.set_ylabel("log-likelihood per frame" if per_frame else "log-likelihood")
    return ax


def plot_model_selection(ax, n_components, train_scores, dev_scores, *, best_index=None):
    """Per-frame train and dev log-likelihood against K (log2 axis), best K marked."""
    n_components = np.asarray(n_components)
    ax.plot(n_components, train_scores, "o-", label="train")
    ax.plot(n_components, dev_scores, "s-", label="dev")
    if best_index is not None:
        ax.axvline(n_components[best_index], color="0.5", ls=":",
                   label=f"best K = {n_components[best_index]}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("number of components K")
    ax.set_ylabel("log-likelihood per frame")
    ax.legend()
    return ax
