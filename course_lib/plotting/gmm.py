"""Plots for Unit 2 (Gaussians, k-means, mixtures, EM): pure functions ``plot_x(ax, ...) -> ax``.

The EM trace, :func:`plot_log_likelihood_trace`, is also Unit 3's: Baum-Welch is EM for an HMM.

Traces and scores are per *item*: ``item="frame"`` for speech, ``item="point"`` for the 2-D toy
data, so an axis never calls a toy point a frame.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgb
from matplotlib.ticker import MaxNLocator
from scipy.linalg import cholesky

from ..gmm.gaussian import as_covariance, gaussian_log_density
from ..gmm.em import score_samples
from ..gmm.mixture import GMMParams
from ..gmm.clustering import assign_clusters
from ..validation import (as_float_array, as_positive_float, as_positive_int,
                          warn_deprecated)
from .colour import _COURSE_COLOURS

__all__ = ["component_colours", "plot_gaussian_contours", "plot_gaussian_1d",
           "plot_responsibilities", "plot_gmm_density_1d", "plot_log_likelihood_trace",
           "plot_model_selection", "plot_bic", "plot_kmeans_state", "plot_distortion_trace",
           "plot_gaussian_fit"]


def component_colours(n_components: int) -> np.ndarray:
    """(K, 3) RGB colours, one per component (the course's colour-blind-safe palette, cycled)."""
    return np.array([to_rgb(_COURSE_COLOURS[k % len(_COURSE_COLOURS)])
                     for k in range(n_components)]).reshape(n_components, 3)


def plot_gaussian_contours(ax, mean, cov, *, levels=(1.0, 2.0, 3.0), color="k",
                           n_points: int = 100, **line_kwargs):
    """Ellipses of constant Mahalanobis distance r (``levels``) of a 2-D Gaussian.

    With Sigma = L L^T the ellipse {x : (x - mu)^T Sigma^{-1} (x - mu) = r^2} is
    x = mu + r L u for u on the unit circle. ``cov`` is (2, 2) or (2,) variances.
    """
    mean = as_float_array(mean, "mean", ndim=1)
    if mean.shape != (2,):
        raise ValueError(f"mean: expected a 2-D mean (2,), got shape {mean.shape}")
    cov = as_float_array(cov, "cov", ndim=(1, 2))
    cov = as_covariance(cov, 2, "full" if cov.ndim == 2 else "diag", name="cov")
    levels = as_float_array(levels, "levels", ndim=(0, 1)).reshape(-1)
    if np.any(levels <= 0):
        raise ValueError("levels: expected Mahalanobis radii > 0")
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
    mean = float(as_float_array(mean, "mean", ndim=0))
    var = as_positive_float(var, "var")
    if samples is not None:
        samples = as_float_array(samples, "samples")
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


def plot_gaussian_fit(ax, samples, mean, cov, fitted_mean, fitted_cov, *,
                      limits=(-10.0, 10.0)):
    """Samples of a Gaussian with the true and the fitted (ML) density, in 1-D or 2-D.

    1-D (``mean`` of length 1, ``cov`` its variance): histogram, true density and the fitted
    mean as a dashed line. 2-D: scatter, true 1-3 sigma contours (black) and fitted 1-2 sigma
    contours (red dashed).
    """
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    fitted_mean = np.atleast_1d(np.asarray(fitted_mean, dtype=float))
    samples = np.asarray(samples, dtype=float)
    if mean.shape == (1,):
        var, fitted_var = float(np.ravel(cov)[0]), float(np.ravel(fitted_cov)[0])
        plot_gaussian_1d(ax, mean[0], var, samples, x_range=limits)
        ax.axvline(fitted_mean[0], color="C3", ls="--", label=f"ML mean {fitted_mean[0]:.2f}")
        ax.set_title(f"ML estimates from N={len(samples)}: mean {fitted_mean[0]:.2f}, "
                     f"variance {fitted_var:.2f}")
        ax.legend(loc="upper right", fontsize=8)
        return ax
    ax.scatter(samples[:, 0], samples[:, 1], s=6, alpha=0.5, color="C0")
    plot_gaussian_contours(ax, mean, cov, color="k")
    plot_gaussian_contours(ax, fitted_mean, fitted_cov, levels=(1.0, 2.0), color="C3",
                           linestyle="--")
    ax.set(xlim=limits, ylim=limits, aspect="equal", xlabel="$x_1$", ylabel="$x_2$",
           title=f"true (black) vs ML from N={len(samples)} (red dashed)")
    return ax


def plot_responsibilities(ax, X, resp, params: GMMParams | None = None, *, size: float = 12,
                          dims=(0, 1)):
    """Scatter 2-D points coloured by responsibility: colour_n = sum_k gamma_nk colour_k.

    With ``params`` each component's mean (x) and 1-, 2-sigma contours are drawn in its
    colour. ``dims`` picks the two columns to show.
    """
    X = as_float_array(X, "X", ndim=2)
    resp = as_float_array(resp, "resp", ndim=2)
    if resp.shape[0] != X.shape[0]:
        raise ValueError(f"resp: expected one row per point ({X.shape[0]}), got shape "
                         f"{resp.shape}")
    if len(dims) != 2 or not all(isinstance(d, (int, np.integer)) and 0 <= d < X.shape[1]
                                 for d in dims):
        raise ValueError(f"dims: expected two column indices of X (0..{X.shape[1] - 1}), got "
                         f"{dims!r}")
    X = X[:, list(dims)]
    colours = component_colours(resp.shape[1])
    ax.scatter(X[:, 0], X[:, 1], c=np.clip(resp @ colours, 0, 1), s=size, linewidths=0)
    if params is not None:
        index = np.ix_(list(dims), list(dims))
        for k, colour in enumerate(colours):
            cov = params.full_covariances()[k][index]
            plot_gaussian_contours(ax, params.means[k, list(dims)], cov, levels=(1.0, 2.0),
                                   color=colour, linewidth=1.5)
            ax.plot(*params.means[k, list(dims)], "x", color=colour, markersize=10, mew=2)
    ax.set_xlabel(f"$x_{dims[0] + 1}$")
    ax.set_ylabel(f"$x_{dims[1] + 1}$")
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


def plot_log_likelihood_trace(ax, trace, *, n_items: int | None = None, item: str = "frame",
                              reference: float | None = None,
                              reference_label: str = "true model", label: str | None = None,
                              algorithm: str = "EM", **line_kwargs):
    """The training log-likelihood l(theta_t) against EM iteration t (t = 0 is the start).

    One figure for every EM of the course: a GMM's (Unit 2) and Baum-Welch, EM for an HMM
    (Unit 3: ``trace[t] = log P(O | lambda_t)``, ``algorithm="Baum-Welch"``), whose ascent
    EM guarantees. ``n_items=N`` divides by the number of frames or points (comparable across
    data sizes), ``item`` names them on the axis; ``reference`` (e.g. the log-likelihood of the
    model that generated the data, on the same scale) is a dashed line.
    """
    trace = as_float_array(trace, "trace", ndim=1)
    n_items = None if n_items is None else as_positive_int(n_items, "n_items")
    scale = n_items or 1
    ax.plot(np.arange(trace.size), trace / scale, "o-", markersize=3, label=label,
            **line_kwargs)
    if reference is not None:
        ax.axhline(reference / scale, ls="--", color="grey", label=reference_label)
    if reference is not None or label is not None:
        ax.legend(fontsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(-0.5, max(trace.size - 1, 1) + 0.5)  # whole iterations, also before the first
    ax.set_xlabel(f"{algorithm} iteration t")
    ax.set_ylabel(f"log-likelihood per {item}" if n_items else "log-likelihood")
    ax.set_title("training log-likelihood")
    return ax


def plot_loglik_trace(ax, trace, *, n_items: int | None = None, item: str = "frame",
                      label: str | None = None, **line_kwargs):
    """Deprecated, removed in the next release: ``plot_log_likelihood_trace`` (the exercises
    of lecture 02 as released before issue 60 called this name)."""
    warn_deprecated("plot_loglik_trace", "plot_log_likelihood_trace")
    return plot_log_likelihood_trace(ax, trace, n_items=n_items, item=item, label=label,
                                     **line_kwargs)


def plot_model_selection(ax, n_components, train_scores, dev_scores, *, best_index=None,
                         item: str = "frame"):
    """Mean train and dev log-likelihood per frame (or point) against K, best K marked."""
    n_components = _candidates(n_components)
    _scores(train_scores, "train_scores", n_components)
    _scores(dev_scores, "dev_scores", n_components)
    ax.plot(n_components, train_scores, "o-", label="train")
    ax.plot(n_components, dev_scores, "s-", label="dev")
    if best_index is not None:
        ax.axvline(n_components[best_index], color="0.5", ls=":",
                   label=f"best K = {n_components[best_index]}")
    _k_axis(ax, n_components)
    ax.set_ylabel(f"log-likelihood per {item}")
    ax.legend()
    return ax


def _candidates(n_components) -> np.ndarray:
    """Candidate numbers of components: whole numbers >= 1, one per score."""
    values = as_float_array(n_components, "n_components", ndim=1)
    if np.any(values != np.round(values)) or np.any(values < 1):
        raise ValueError("n_components: expected whole numbers of components >= 1")
    return values.astype(np.int64)


def _scores(scores, name: str, n_components: np.ndarray) -> np.ndarray:
    scores = as_float_array(scores, name, ndim=1)
    if scores.shape != n_components.shape:
        raise ValueError(f"{name}: expected one value per candidate K ({n_components.size}), "
                         f"got {scores.size}")
    return scores


def _k_axis(ax, n_components) -> None:
    """K on a log2 axis when the candidates double (1, 2, 4, ...), else a linear one."""
    doubling = len(n_components) > 1 and np.all(n_components[1:] == 2 * n_components[:-1])
    if doubling:
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
    ax.set_xticks(n_components, [str(k) for k in n_components])
    ax.set_xlabel("number of components K")


def plot_bic(ax, n_components, bic, *, best_index=None, **line_kwargs):
    """BIC = -2 l + p ln N against K (lower is better), the minimum marked."""
    n_components = _candidates(n_components)
    _scores(bic, "bic", n_components)
    ax.plot(n_components, bic, "D-", **line_kwargs)
    if best_index is not None:
        ax.axvline(n_components[best_index], color="0.5", ls=":",
                   label=f"lowest BIC: K = {n_components[best_index]}")
        ax.legend()
    _k_axis(ax, n_components)
    ax.set_ylabel(r"BIC $= -2\ell + p \ln N$")
    return ax


def plot_kmeans_state(ax, X, centroids, labels, *, previous=None, regions: bool = True,
                      limits=None):
    """2-D points coloured by cluster, centroids (x), and the nearest-centroid regions.

    ``previous`` (K, 2): the centroids before the last update, joined to the new ones by
    arrows. ``regions`` shades the plane by nearest centroid (the Voronoi cells the next
    assignment step uses).
    """
    X = as_float_array(X, "X", ndim=2)
    centroids = as_float_array(centroids, "centroids", ndim=2)
    if X.shape[1] != 2 or centroids.shape[1] != 2:
        raise ValueError(f"X: expected 2-D points and centroids (two columns each), got shapes "
                         f"{X.shape} and {centroids.shape}")
    labels = as_float_array(labels, "labels", ndim=1)
    if labels.shape != (X.shape[0],) or np.any(labels != np.round(labels)) or \
            np.any(labels < 0) or np.any(labels >= centroids.shape[0]):
        raise ValueError(f"labels: expected one cluster 0..{centroids.shape[0] - 1} per point "
                         f"({X.shape[0]})")
    labels = labels.astype(np.int64)
    colours = component_colours(len(centroids))
    if limits is None:
        pad = 0.05 * (X.max(axis=0) - X.min(axis=0)) + 1e-9
        limits = np.stack([X.min(axis=0) - pad, X.max(axis=0) + pad], axis=1)
    (x0, x1), (y0, y1) = limits
    if regions:
        gx, gy = np.meshgrid(np.linspace(x0, x1, 200), np.linspace(y0, y1, 200))
        nearest, _ = assign_clusters(np.c_[gx.ravel(), gy.ravel()], centroids)
        shade = 0.25 * colours[nearest] + 0.75                      # pale version of each colour
        ax.imshow(shade.reshape(200, 200, 3), origin="lower", extent=(x0, x1, y0, y1),
                  aspect="auto", interpolation="nearest")
    ax.scatter(X[:, 0], X[:, 1], c=colours[labels], s=10, linewidths=0)
    if previous is not None:
        for old, new in zip(np.asarray(previous, dtype=float), centroids):
            if np.any(old != new):
                ax.annotate("", xy=new, xytext=old,
                            arrowprops=dict(arrowstyle="->", color="k", lw=1.2))
    ax.scatter(centroids[:, 0], centroids[:, 1], c=colours, marker="X", s=140,
               edgecolors="k", linewidths=1.2, zorder=3)
    ax.set(xlim=(x0, x1), ylim=(y0, y1), xlabel="$x_1$", ylabel="$x_2$")
    return ax


def plot_distortion_trace(ax, distortions, *, n_items: int | None = None, item: str = "point",
                          **line_kwargs):
    """k-means distortion J after each iteration t (t = 0: the initial assignment)."""
    values = as_float_array(distortions, "distortions", ndim=1)
    n_items = None if n_items is None else as_positive_int(n_items, "n_items")
    values = values / n_items if n_items else values
    ax.plot(np.arange(len(values)), values, "o-", markersize=3, **line_kwargs)
    ax.set_xlabel("k-means iteration t")
    ax.set_ylabel(f"distortion J per {item}" if n_items else "distortion J")
    return ax
