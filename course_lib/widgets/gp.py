"""Explorers for Unit 4 (GP regression): kernels and prior samples, conditioning, the evidence
surface.

Each builder returns a :class:`course_lib.widgets.Explorer`; compute lives in
:mod:`course_lib.gp`, drawing in :mod:`course_lib.plotting.gp`. Random draws use one fixed
seed per explorer (drawn once from ``rng``), so moving a slider deforms the same samples
smoothly. The explorers draw one-dimensional inputs.
"""

from __future__ import annotations


import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ..gp.kernels import KERNEL_FAMILIES, SquaredExponential, make_kernel
from ..gp.evidence_surface import log_evidence_surface
from ..gp.regression import GPRegression
from ..linalg import sample_gaussian
from ..plotting.gp import (plot_evidence_surface, plot_gp_posterior, plot_kernel_function,
                           plot_samples)
from ..gp.toy_data import toy_regression_data
from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int,
                          warn_deprecated)
from .base import Explorer, _fixed_seed

__all__ = ["kernel_explorer", "conditioning_explorer", "evidence_surface_explorer",
           "lml_surface_explorer"]

def _log_slider(description, value, low, high):
    return W.FloatLogSlider(value=value, base=10, min=np.log10(low), max=np.log10(high),
                            step=0.05, description=description, continuous_update=False)


def _one_dimensional_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """(X as (n, 1), y as (n,)): the explorers draw functions of one input."""
    if X is None or y is None:
        return toy_regression_data()
    X = as_float_array(X, "X", ndim=(1, 2))
    if X.ndim == 2 and X.shape[1] != 1:
        raise ValueError(f"X: the explorer draws one-dimensional inputs, so X must have shape "
                         f"(n,) or (n, 1); got {X.shape}")
    y = as_float_array(y, "y", ndim=1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y: expected {X.shape[0]} values (one per point of X), got {y.shape[0]}")
    return X.reshape(-1, 1), y


def _range(value, name: str) -> tuple[float, float]:
    try:
        low, high = (as_positive_float(v, name) for v in value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected (low, high) with 0 < low < high, got {value!r}") \
            from err
    if not low < high:
        raise ValueError(f"{name}: expected (low, high) with low < high, got {value!r}")
    return low, high


def kernel_explorer(n_samples: int = 3, n_grid: int = 150, *, rng: RngLike = 0) -> Explorer:
    """Kernel family, lengthscale and variance -> the kernel function k(0, x) and prior samples."""
    n_samples = as_positive_int(n_samples, "n_samples")
    x = np.linspace(-5.0, 5.0, as_positive_int(n_grid, "n_grid"))
    seed = _fixed_seed(rng)
    controls = {
        "family": W.Dropdown(options=KERNEL_FAMILIES, value="squared exponential",
                             description="kernel"),
        "lengthscale": _log_slider("lengthscale", 1.0, 0.1, 10.0),
        "variance": _log_slider("variance", 1.0, 0.1, 10.0),
    }

    def render(family, lengthscale, variance):
        kernel = make_kernel(family, lengthscale, variance)
        # the same seed on every render: sliders deform the same draws smoothly
        samples = sample_gaussian(np.zeros(x.size), kernel(x[:, None]), n_samples, rng=seed)
        # fixed margins, as wide as constrained layout makes them at the sliders' extremes:
        # constrained layout drew the figure twice (half of every redraw)
        fig, (ax_k, ax_f) = plt.subplots(1, 2, figsize=(10, 3.5), gridspec_kw=dict(
            left=0.08, right=0.995, bottom=0.135, top=0.925, wspace=0.21))
        plot_kernel_function(ax_k, kernel, x)
        ax_k.set_title(f"{family}: k(0, x)")
        plot_samples(ax_f, x, samples)
        sd = np.sqrt(kernel.diag(x[:, None]))
        ax_f.fill_between(x, -2 * sd, 2 * sd, color="0.85", lw=0, zorder=0)
        ax_f.set_title("prior samples (grey: ± 2 sd)")
        return fig

    return Explorer(render, controls, title="Kernels and samples from the GP prior")


def conditioning_explorer(X=None, y=None, n_samples: int = 3, n_grid: int = 120, *,
                          rng: RngLike = 0) -> Explorer:
    """Noise, lengthscale, variance and the number of points used -> posterior mean,
    bands and samples of an SE-kernel GP (the first ``n_points`` of the data).

    ``X`` has shape (n,) or (n, 1) (one-dimensional inputs), ``y`` shape (n,); both default to
    :func:`toy_regression_data`."""
    X, y = _one_dimensional_data(X, y)
    seed = _fixed_seed(rng)
    x_test = np.linspace(X.min() - 1.0, X.max() + 1.0, as_positive_int(n_grid, "n_grid"))
    n_samples = as_positive_int(n_samples, "n_samples")
    controls = {
        "noise_variance": _log_slider("noise var", 0.04, 1e-4, 1.0),
        "lengthscale": _log_slider("lengthscale", 1.0, 0.1, 10.0),
        "variance": _log_slider("variance", 1.0, 0.1, 10.0),
        "n_points": W.IntSlider(value=min(10, len(y)), min=1, max=len(y),
                                description="points", continuous_update=False),
    }

    def render(noise_variance, lengthscale, variance, n_points):
        gp = GPRegression(SquaredExponential(lengthscale, variance), noise_variance,
                          noise_bounds="fixed").fit(X[:n_points], y[:n_points])
        mean, cov = gp.predict(x_test[:, None], full_cov=True)
        samples = sample_gaussian(mean, cov, n_samples, rng=seed)
        # fixed margins (constrained layout drew the figure twice): as its widest
        fig, ax = plt.subplots(figsize=(8, 3.8), gridspec_kw=dict(
            left=0.088, right=0.994, bottom=0.124, top=0.93))
        plot_gp_posterior(ax, x_test, mean, np.diag(cov), X[:n_points], y[:n_points],
                          samples=samples, noise_variance=noise_variance)
        ax.plot(X[n_points:, 0], y[n_points:], "o", mfc="none", mec="0.6", ms=5,
                label="not used")
        ax.set_title(f"posterior from {n_points} point(s); "
                     f"log p(y|X) = {gp.log_evidence():.1f}")
        ax.legend(loc="upper left", fontsize="small", ncol=2)
        return fig

    return Explorer(render, controls, title="Conditioning a GP on data")


def evidence_surface_explorer(X=None, y=None, *, lengthscale_range=(0.1, 10.0),
                              noise_range=(1e-4, 1.0), n_grid: int = 40, depth: float = 100.0,
                              levels: int = 20, n_test: int = 100) -> Explorer:
    """The log evidence (log marginal likelihood) over (lengthscale, noise variance) for the
    chosen signal variance, with the grid optimum (star) and the current setting (cross), next
    to the fit at the current setting.

    ``X`` (shape (n,) or (n, 1)) and ``y`` default to :func:`toy_regression_data`. The sliders
    and the grid span ``lengthscale_range`` and ``noise_range`` (natural units, log-spaced,
    ``n_grid`` values each). ``depth`` and ``levels`` go to :func:`~course_lib.plotting.gp.
    plot_evidence_surface`: the colours resolve the top ``depth`` nats, so pass the depth of the
    static figure the explorer accompanies (e.g. 12 to tell two neighbouring optima apart).

    Each key press must redraw at once: the surface of a signal variance is computed on first
    use (one eigendecomposition per grid lengthscale) and kept, and the figure has a fixed
    layout and no minor ticks (constrained layout and log-axis minor ticks were most of the
    drawing time).
    """
    X, y = _one_dimensional_data(X, y)
    lengthscale_range = _range(lengthscale_range, "lengthscale_range")
    noise_range = _range(noise_range, "noise_range")
    n_grid = as_positive_int(n_grid, "n_grid", minimum=2)
    depth = as_positive_float(depth, "depth")
    levels = as_positive_int(levels, "levels", minimum=2)
    lengthscales = np.geomspace(*lengthscale_range, n_grid)
    noises = np.geomspace(*noise_range, n_grid)
    x_test = np.linspace(X.min() - 1.0, X.max() + 1.0, as_positive_int(n_test, "n_test"))
    surfaces: dict[float, object] = {}
    controls = {
        "lengthscale": _log_slider("lengthscale", np.clip(1.0, *lengthscale_range),
                                   *lengthscale_range),
        "noise_variance": _log_slider("noise var", np.clip(0.04, *noise_range), *noise_range),
        "variance": _log_slider("variance", 1.0, 0.1, 10.0),
    }

    def render(lengthscale, noise_variance, variance) -> Figure:
        gp = GPRegression(SquaredExponential(lengthscale, variance), noise_variance,
                          noise_bounds="fixed").fit(X, y)
        if variance not in surfaces:  # the surface depends only on the signal variance
            surfaces[variance] = log_evidence_surface(
                gp, "lengthscale", lengthscales, "noise_variance", noises)
        fig, (ax_s, ax_f) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw=dict(
            left=0.07, right=0.98, bottom=0.13, top=0.91, wspace=0.28))
        plot_evidence_surface(ax_s, surfaces[variance], levels=levels, depth=depth,
                              current=(lengthscale, noise_variance))
        ax_s.minorticks_off()
        ax_s.set_title(f"log marginal likelihood, top {depth:g} nats (variance = {variance:.3g})")
        mean, var = gp.predict(x_test[:, None])
        plot_gp_posterior(ax_f, x_test, mean, var, X, y, noise_variance=noise_variance)
        ax_f.set_title(f"fit at the cross: log p(y|X) = {gp.log_evidence():.1f}")
        return fig

    return Explorer(render, controls, title="The marginal likelihood: fit versus complexity")


def lml_surface_explorer(X=None, y=None, **options) -> Explorer:
    """Deprecated, removed in the next release: ``evidence_surface_explorer`` (the exercises of
    lecture 04 as released before issue 48 called this name)."""
    warn_deprecated("lml_surface_explorer", "evidence_surface_explorer")
    return evidence_surface_explorer(X, y, **options)
