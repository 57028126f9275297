"""Plots for Gaussian-process regression (Unit 4): ``plot_xxx(ax, ...) -> ax``.

All functions draw one-dimensional inputs (the lecture's pictures); ``x`` arguments are 1-D
arrays or (n, 1) arrays.
"""

from __future__ import annotations

import numpy as np

from ..gp.kernels import Kernel
from ..gp.regression import LMLSurface

__all__ = ["plot_kernel_function", "plot_samples", "plot_gp_posterior", "plot_lml_surface"]


def _flat(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x[:, 0] if x.ndim == 2 else x


def plot_kernel_function(ax, kernel: Kernel, x, origin: float = 0.0, **line_kwargs):
    """Draw ``k(origin, x)`` against x: how the covariance with one point decays with distance."""
    x = _flat(x)
    values = kernel(np.array([[origin]]), x[:, None])[0]
    ax.plot(x, values, **({"color": "C0"} | line_kwargs))
    ax.axvline(origin, color="0.7", lw=0.8, ls=":")
    ax.set_xlabel("x")
    ax.set_ylabel(f"k({origin:g}, x)")
    return ax


def plot_samples(ax, x, samples, color: str = "C0", alpha: float = 0.8, label: str | None = None):
    """Draw function samples (rows of ``samples``, shape (n_samples, n)) against x."""
    x = _flat(x)
    samples = np.atleast_2d(samples)
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
    x = _flat(x_test)
    mean = np.asarray(mean, dtype=float)
    sd = np.sqrt(np.maximum(np.asarray(var, dtype=float), 0.0))
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
        ax.plot(_flat(X_train), np.asarray(y_train, dtype=float), "k.", ms=7, label="data")
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    return ax


def plot_lml_surface(ax, surface: LMLSurface, levels: int = 20, current=None, cmap="viridis"):
    """Filled contours of the log marginal likelihood over two hyper-parameters (log axes),
    the grid optimum marked with a star and ``current`` = (x, y) with a cross.

    Values far below the maximum are floored (max - 100 nats) so the interesting region is
    resolved by the colour scale.
    """
    values = surface.values
    finite = np.isfinite(values)
    top = values[finite].max()
    shown = np.where(finite, np.maximum(values, top - 100.0), top - 100.0)
    xx, yy = np.meshgrid(surface.x_values, surface.y_values)
    contour = ax.contourf(xx, yy, shown, levels=levels, cmap=cmap)
    ax.figure.colorbar(contour, ax=ax, label="log p(y | X, θ)")
    ax.plot(*surface.best, "w*", ms=14, mec="k", label="grid optimum")
    if current is not None:
        ax.plot(*current, "rx", ms=10, mew=2, label="current")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(surface.x_name)
    ax.set_ylabel(surface.y_name)
    ax.legend(loc="lower right", fontsize="small")
    return ax
