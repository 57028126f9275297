"""Plots for Gaussian-process regression (Unit 4): ``plot_xxx(ax, ...) -> ax``.

All functions draw one-dimensional inputs (the lecture's pictures); ``x`` arguments are 1-D
arrays or (n, 1) arrays.
"""

from __future__ import annotations


import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

from ..gp.kernel_base import Kernel
from ..gp.optimise import HyperparameterFit
from ..gp.evidence_surface import EvidenceSurface
from ..validation import (as_float_array, as_positive_float, check_choice, check_length,
                          warn_deprecated)
from .colour import _series_marker

__all__ = ["plot_kernel_function", "plot_samples", "plot_gp_posterior", "plot_evidence_surface",
           "plot_evidence_terms", "plot_optimiser_runs", "plot_inducing_inputs", "plot_timings",
           "plot_lml_surface"]


def _flat(x, name: str) -> np.ndarray:
    """One-dimensional inputs, (n,) or (n, 1), as a vector (the x axis of a 1-D figure; the
    Unit 5-6 figures take it too)."""
    x = as_float_array(x, name, ndim=(1, 2))
    if x.ndim == 2:
        if x.shape[1] != 1:
            raise ValueError(f"{name}: expected one-dimensional inputs, shape (n,) or (n, 1); "
                             f"got {x.shape}")
        x = x[:, 0]
    return x


def plot_kernel_function(ax, kernel: Kernel, x, origin: float = 0.0, **line_kwargs):
    """Draw ``k(origin, x)`` against x: how the covariance with one point decays with distance."""
    x = _flat(x, "x")
    values = kernel(np.array([[origin]]), x[:, None])[0]
    ax.plot(x, values, **({"color": "C0"} | line_kwargs))
    ax.axvline(origin, color="0.7", lw=0.8, ls=":")
    ax.set_xlabel("x")
    ax.set_ylabel(f"k({origin:g}, x)")
    return ax


def plot_samples(ax, x, samples, color: str = "C0", alpha: float = 0.8, label: str | None = None):
    """Draw function samples (rows of ``samples``, shape (n_samples, n)) against x."""
    x = _flat(x, "x")
    samples = np.atleast_2d(samples)
    check_length(samples.T, "samples", x.size, "x")
    for index, sample in enumerate(samples):
        ax.plot(x, sample, color=color, lw=1.0, alpha=alpha,
                label=label if index == 0 else None)
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    return ax


def plot_gp_posterior(ax, x_test, mean, var, X_train=None, y_train=None, samples=None,
                      noise_variance: float = 0.0, n_sigma: float = 2.0, color: str = "C0"):
    """Mean, +-``n_sigma`` bands of f* (dark) and of y* = f* + noise (light, if noise > 0),
    optional posterior samples and the training data."""
    x = _flat(x_test, "x_test")
    mean = check_length(np.asarray(mean, dtype=float), "mean", x.size, "x_test")
    var = check_length(np.asarray(var, dtype=float), "var", x.size, "x_test")
    sd = np.sqrt(np.maximum(var, 0.0))
    if samples is not None:
        check_length(np.atleast_2d(samples).T, "samples", x.size, "x_test")
    if X_train is not None and y_train is not None:
        X_train = _flat(X_train, "X_train")
        y_train = check_length(np.asarray(y_train, dtype=float), "y_train", X_train.size,
                                "X_train")
    if noise_variance > 0:
        sd_y = np.sqrt(sd ** 2 + noise_variance)
        ax.fill_between(x, mean - n_sigma * sd_y, mean + n_sigma * sd_y, color=color, alpha=0.12,
                        lw=0, label=f"y* ± {n_sigma:g} sd")
    ax.fill_between(x, mean - n_sigma * sd, mean + n_sigma * sd, color=color, alpha=0.3, lw=0,
                    label=f"f* ± {n_sigma:g} sd")
    if samples is not None:
        plot_samples(ax, x, samples, color=color, alpha=0.5)
    ax.plot(x, mean, color=color, lw=2, label="mean")
    if X_train is not None and y_train is not None:
        ax.plot(X_train, y_train, "k.", ms=7, label="data")
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    return ax


def plot_evidence_surface(ax, surface: EvidenceSurface, levels: int = 20, current=None,
                          cmap="viridis", depth: float = 100.0):
    """Filled contours of the log evidence over two hyper-parameters (log axes), the grid
    optimum marked with a star and ``current`` = (x, y) with a cross.

    Values more than ``depth`` nats below the maximum (and failed grid points) are floored at
    max - ``depth``, so the colour scale resolves the top ``depth`` nats: a small depth (say
    12) separates neighbouring optima, the default 100 shows the whole landscape. Tick labels
    are plain numbers (0.01, 0.1, 1), not powers of ten.
    """
    depth = as_positive_float(depth, "depth")
    values = surface.values
    finite = np.isfinite(values)
    top = values[finite].max()
    shown = np.where(finite, np.maximum(values, top - depth), top - depth)
    xx, yy = np.meshgrid(surface.x_values, surface.y_values)
    contour = ax.contourf(xx, yy, shown, levels=levels, cmap=cmap)
    ax.figure.colorbar(contour, ax=ax, label="log p(y | X, θ)")
    ax.plot(*surface.best, "w*", ms=14, mec="k", label="grid optimum")
    if current is not None:
        ax.plot(*current, "x", color="C3", ms=10, mew=2, label="current")
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(surface.x_name)
    ax.set_ylabel(surface.y_name)
    ax.legend(loc="lower right", fontsize="small")
    return ax


def plot_lml_surface(ax, surface: EvidenceSurface, levels: int = 20, current=None,
                     cmap="viridis", depth: float = 100.0):
    """Deprecated, removed in the next release: ``plot_evidence_surface`` (the exercises of
    lecture 04 as released before issue 48 called this name)."""
    warn_deprecated("plot_lml_surface", "plot_evidence_surface")
    return plot_evidence_surface(ax, surface, levels, current, cmap, depth)


def plot_evidence_terms(ax, surface: EvidenceSurface, row: int = 0):
    """The two terms of the log evidence along the first hyper-parameter of ``surface`` (log x
    axis), the second one held at ``surface.y_values[row]``:

    data fit = -1/2 y^T (K + sigma_n^2 I)^-1 y,  complexity = -1/2 log det(K + sigma_n^2 I),
    total = data fit + complexity - n/2 log 2 pi (the constant only shifts the curve).

    The maximum of the total is marked with a dot.
    """
    check_choice(row, "row", range(surface.y_values.size))
    x = surface.x_values
    total, fit, complexity = (surface.values[row], surface.data_fit[row],
                              surface.complexity[row])
    ax.plot(x, fit, color="C1", ls="--", label="data fit  −½ yᵀ(K+σₙ²I)⁻¹y")
    ax.plot(x, complexity, color="C2", ls="-.", label="complexity  −½ log det(K+σₙ²I)")
    ax.plot(x, total, color="k", lw=2, label="log p(y | X, θ)")
    best = int(np.argmax(np.where(np.isfinite(total), total, -np.inf)))
    ax.plot(x[best], total[best], "ko", ms=7)
    ax.set_xscale("log")
    ax.set_xlabel(surface.x_name)
    ax.set_ylabel("nats")
    ax.set_title(f"{surface.y_name} = {surface.y_values[row]:.3g}")
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_optimiser_runs(ax, fit: HyperparameterFit, x_name: str, y_name: str,
                        color: str = "w"):
    """Each optimiser run of ``fit`` as a line from its start (open circle) to its end (dot),
    in natural units of the hyper-parameters ``x_name`` and ``y_name``; the best end gets a
    vermillion ring. Meant to be drawn over :func:`plot_evidence_surface` (log axes).

    Starts outside the current axis limits are still drawn (matplotlib clips them).
    """
    check_choice(x_name, "x_name", fit.param_names)
    check_choice(y_name, "y_name", fit.param_names)
    ix, iy = fit.param_names.index(x_name), fit.param_names.index(y_name)
    starts, ends = np.exp(fit.starts), np.exp(fit.ends)
    for index, (start, end) in enumerate(zip(starts, ends)):
        label = "run: start → end" if index == 0 else None
        ax.plot([start[ix], end[ix]], [start[iy], end[iy]], "-", color=color, lw=0.8,
                alpha=0.7)
        ax.plot(start[ix], start[iy], "o", mfc="none", mec=color, ms=5)
        ax.plot(end[ix], end[iy], "o", color=color, mec="k", ms=6, label=label)
    best = ends[fit.best]
    ax.plot(best[ix], best[iy], "o", mfc="none", mec="C3", mew=2, ms=12, label="best run")
    return ax


def plot_inducing_inputs(ax, Z, color: str = "C3", label: str = "inducing inputs"):
    """Mark one-dimensional inducing inputs Z ((M,) or (M, 1)) as triangles on the x axis
    (drawn in axis coordinates, so they stay at the bottom whatever the y range)."""
    Z = _flat(Z, "Z")
    ax.plot(Z, np.full(Z.shape, 0.02), "^", color=color, ms=8, mec="k",
            transform=ax.get_xaxis_transform(), clip_on=False, label=label)
    return ax


def plot_timings(ax, timings, slopes=None):
    """Run time against problem size on log-log axes.

    ``timings`` maps a label to ``(sizes, seconds)`` (equal-length 1-D arrays); ``slopes``
    optionally maps some labels to a power p, drawn as a dashed guide ``t ∝ N^p`` through that
    series' largest size (e.g. 3 for an exact GP, 1 for a sparse one).
    """
    slopes = dict(slopes or {})
    for name in slopes:
        check_choice(name, "slopes", tuple(timings))
    for index, (label, (sizes, seconds)) in enumerate(timings.items()):
        sizes = as_float_array(sizes, "sizes", ndim=1)
        seconds = as_float_array(seconds, "seconds", ndim=1)
        if sizes.shape != seconds.shape:
            raise ValueError(f"seconds: expected shape {sizes.shape} like the sizes of "
                             f"{label!r}, got {seconds.shape}")
        color = f"C{index}"
        ax.plot(sizes, seconds, "-", marker=_series_marker(index), color=color, label=label)
        if label in slopes:
            power = slopes[label]
            guide = seconds[-1] * (sizes / sizes[-1]) ** power
            ax.plot(sizes, guide, "--", color=color, lw=1, alpha=0.7,
                    label=f"∝ N^{power:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of training points N")
    ax.set_ylabel("seconds")
    ax.legend(loc="best", fontsize="small")
    return ax
