"""Explorers for Unit 2 (Gaussians, k-means, mixtures and EM).

``gaussian_explorer``: a 1-D or 2-D Gaussian from sliders (means, standard deviations,
correlation), samples drawn from it, its contours and the ML estimate from the samples.

``kmeans_explorer``: k-means on 2-D points one iteration at a time. "Step" runs one update and
assignment step; the figure shows the clusters, the centroids (with arrows from where they
were), the nearest-centroid regions and the distortion J.

``em_explorer``: EM on 2-D points one step at a time. "Step" runs one M-step + E-step,
recolours the points by responsibility and extends the log-likelihood curve; "Reset" starts
again from the current settings; "New init" moves to the next initialisation seed. Changing
K, the covariance type, the variance floor, the initialisation or its seed also starts again.

Both steppers drive the library's own loops (:func:`course_lib.gmm.clustering.kmeans_steps`,
:func:`course_lib.gmm.em.em_steps`) and keep a consistent state after an error: new settings are
validated and the new start computed before anything is stored, so a failed reset leaves the
previous model in place and the explorer shows the error until the controls are valid again.
The example data is :func:`course_lib.gmm.mixture.demo_mixture`; the drawing is
:mod:`course_lib.plotting.gmm`.
"""

from __future__ import annotations

import warnings

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from ..gmm.gaussian import covariance_2d, fit_gaussian, sample_gaussian
from ..gmm.em import em_steps
from ..gmm.mixture import ComponentCollapseWarning, demo_mixture, sample_gmm
from ..gmm.em import initialise_gmm
from ..gmm.clustering import initialise_centroids, kmeans_steps
from ..plotting.gmm import (plot_distortion_trace, plot_gaussian_fit, plot_kmeans_state,
                            plot_log_likelihood_trace, plot_responsibilities)
from ..validation import RngLike, as_float_array, as_rng
from .base import Explorer

__all__ = ["gaussian_explorer", "kmeans_explorer", "em_explorer"]


def _slider(cls, value, lo, hi, step, description, **kwargs):
    return cls(value=value, min=lo, max=hi, step=step, description=description,
               continuous_update=False, **kwargs)


def _points_2d(X, seed):
    if X is None:
        return sample_gmm(demo_mixture(), 300, rng=seed)[0]
    X = as_float_array(X, "X", ndim=2)
    if X.shape[1] != 2:
        raise ValueError(f"X: the explorer shows 2-D points, got shape {X.shape}")
    return X


def gaussian_explorer(*, rng: RngLike = 0) -> Explorer:
    """Sliders for a 1-D or 2-D Gaussian; shows samples, the density / contours, the ML fit.

    One seed is drawn from ``rng`` here and every redraw samples afresh from it, so moving a
    slider changes the Gaussian, not the random draw.
    """
    seed = int(as_rng(rng).integers(2 ** 32))

    controls = {
        "dimension": W.Dropdown(options=["1-D", "2-D"], value="2-D", description="dimension"),
        "mu1": _slider(W.FloatSlider, 0.0, -3.0, 3.0, 0.1, "mu1"),
        "mu2": _slider(W.FloatSlider, 0.0, -3.0, 3.0, 0.1, "mu2"),
        "sigma1": _slider(W.FloatSlider, 1.0, 0.2, 3.0, 0.1, "sigma1"),
        "sigma2": _slider(W.FloatSlider, 1.0, 0.2, 3.0, 0.1, "sigma2"),
        "rho": _slider(W.FloatSlider, 0.5, -0.95, 0.95, 0.05, "rho"),
        "n_samples": _slider(W.IntSlider, 200, 10, 2000, 10, "N samples"),
    }

    def render(dimension, mu1, mu2, sigma1, sigma2, rho, n_samples):
        draw = np.random.default_rng(seed)
        if dimension == "1-D":
            mean, cov = np.array([mu1]), np.array([sigma1 ** 2])
            x = sample_gaussian(mean, cov, n_samples, rng=draw, covariance_type="diag")
            fitted = fit_gaussian(x, "diag")
        else:
            mean, cov = np.array([mu1, mu2]), covariance_2d(sigma1, sigma2, rho)
            x = sample_gaussian(mean, cov, n_samples, rng=draw)
            fitted = fit_gaussian(x)
        # fixed margins where constrained layout put them (it drew the figure twice); in 2-D
        # the square axes sit in the middle of a wider box, as they did
        fig, ax = plt.subplots(figsize=(5.5, 4.5), gridspec_kw=dict(
            left=0.12 if dimension == "1-D" else 0.019, right=0.992, bottom=0.105, top=0.943))
        plot_gaussian_fit(ax, x, mean, cov, *fitted)
        return fig

    return Explorer(render, controls, title="A Gaussian: parameters, samples, ML estimate")


class _KMeansStepper:
    """k-means state that a lecture steps by hand: the centroids and J after each iteration.

    ``reset(...)`` draws starting centroids (:func:`course_lib.gmm.clustering.initialise_centroids`)
    and assigns the points; ``step()`` takes the next state of
    :func:`course_lib.gmm.clustering.kmeans_steps`. ``states`` holds every state since the reset.
    """

    def __init__(self, X):
        self.X = as_float_array(X, "X", ndim=2)
        self.settings = None
        self.states: list = []
        self._steps = None

    def reset(self, n_clusters: int, *, init: str = "random", rng: RngLike = 0) -> None:
        settings = (n_clusters, init, rng)
        centroids = initialise_centroids(self.X, n_clusters, init=init, rng=rng)
        steps = kmeans_steps(self.X, centroids)
        first = next(steps)
        # commit only after everything above succeeded
        self.settings, self._steps, self.states = settings, steps, [first]

    def step(self) -> None:
        if self._steps is None:
            raise RuntimeError("KMeansStepper.step: call reset(...) first")
        self.states.append(next(self._steps))

    @property
    def state(self):
        return self.states[-1]

    @property
    def distortions(self) -> list[float]:
        return [s.distortion for s in self.states]


def kmeans_explorer(X=None, *, max_clusters: int = 8, rng: RngLike = 0) -> Explorer:
    """Step through k-means on 2-D points (``X`` (N, 2); default: the demo mixture's points)."""
    X = _points_2d(X, rng)
    stepper = _KMeansStepper(X)
    pad = 0.05 * (X.max(axis=0) - X.min(axis=0))
    limits = np.stack([X.min(axis=0) - pad, X.max(axis=0) + pad], axis=1)
    controls = {
        "n_clusters": _slider(W.IntSlider, 3, 1, max_clusters, 1, "K"),
        "init": W.Dropdown(options=["random", "k-means++"], value="random", description="init"),
        "init_seed": _slider(W.IntSlider, 0, 0, 20, 1, "init seed"),
    }

    def sync(values):
        settings = (values["n_clusters"], values["init"], values["init_seed"])
        if stepper.settings != settings:
            stepper.reset(settings[0], init=settings[1], rng=settings[2])

    def step():
        sync(explorer.values())
        stepper.step()

    def reset():
        values = explorer.values()
        stepper.reset(values["n_clusters"], init=values["init"], rng=values["init_seed"])

    def new_init():
        seed_control = controls["init_seed"]
        seed_control.value = (seed_control.value + 1) % (seed_control.max + 1)

    def render(**values):
        sync(values)
        state = stepper.state
        previous = stepper.states[-2].centroids if len(stepper.states) > 1 else None
        t = len(stepper.states) - 1
        fig, (ax_points, ax_trace) = plt.subplots(1, 2, figsize=(10, 4.2),
                                                  gridspec_kw={"width_ratios": [1.25, 1]})
        plot_kmeans_state(ax_points, stepper.X, state.centroids, state.labels,
                          previous=previous, limits=limits)
        ax_points.set_title(f"t = {t}: points to their nearest centroid (x)", fontsize=10)
        plot_distortion_trace(ax_trace, stepper.distortions, n_items=len(stepper.X))
        ax_trace.set_xlim(-0.5, max(10, t) + 0.5)
        ax_trace.set_title(f"J per point = {state.distortion / len(stepper.X):.4f}",
                           fontsize=10)
        fig.subplots_adjust(wspace=0.3, bottom=0.14)
        return fig

    explorer = Explorer(render, controls,
                        buttons={"Step": step, "Reset": reset, "New init": new_init},
                        title="k-means, one iteration at a time")
    explorer.stepper = stepper
    return explorer


class _EMStepper:
    """EM state that a lecture steps by hand: theta_t, gamma under theta_t, l(theta_0..t).

    ``reset(...)`` draws theta_0 with :func:`course_lib.gmm.em.initialise_gmm`; ``step()`` takes
    the next state of :func:`course_lib.gmm.em.em_steps` (one M-step, then the E-step of the new
    parameters). Repaired collapses are kept in ``notes`` so the explorer can show them.
    """

    def __init__(self, X):
        self.X = as_float_array(X, "X", ndim=2)
        self.settings = None
        self.states: list = []
        self.notes: list[str] = []
        self._steps = None

    def reset(self, n_components: int, *, covariance_type: str = "full", variance_floor=0.0,
              init: str = "random", rng: RngLike = 0) -> None:
        settings = (n_components, covariance_type, variance_floor, init, rng)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ComponentCollapseWarning)
            params = initialise_gmm(self.X, n_components, covariance_type=covariance_type,
                                    init=init, variance_floor=variance_floor, rng=rng)
        steps = em_steps(self.X, params, variance_floor=variance_floor)
        first = next(steps)
        repaired = any(issubclass(w.category, ComponentCollapseWarning) for w in caught)
        # commit only after everything above succeeded
        self.settings, self._steps, self.states = settings, steps, [first]
        self.notes = ["collapse repaired at t=0"] if repaired else []

    def step(self) -> None:
        if self._steps is None:
            raise RuntimeError("EMStepper.step: call reset(...) first")
        state = next(self._steps)
        self.states.append(state)
        if state.n_repaired:
            self.notes.append(f"collapse repaired at t={len(self.states) - 1}")

    @property
    def state(self):
        return self.states[-1]

    @property
    def params(self):
        return self.state.params

    @property
    def trace(self) -> list[float]:
        """l(theta_0), ..., l(theta_t)."""
        return [s.log_likelihood for s in self.states]


def em_explorer(X=None, *, max_components: int = 6, rng: RngLike = 0) -> Explorer:
    """Step through EM on 2-D points (``X`` (N, 2); default: the demo mixture's points)."""
    X = _points_2d(X, rng)
    stepper = _EMStepper(X)
    controls = {
        "n_components": _slider(W.IntSlider, 3, 1, max_components, 1, "K"),
        "covariance_type": W.Dropdown(options=["full", "diag"], value="full",
                                      description="covariance"),
        "variance_floor": _slider(W.FloatSlider, 0.0, 0.0, 1.0, 0.01, "var floor"),
        "init": W.Dropdown(options=["random", "kmeans"], value="random", description="init"),
        "init_seed": _slider(W.IntSlider, 0, 0, 20, 1, "init seed"),
    }

    def settings_of(values):
        return (values["n_components"], values["covariance_type"], values["variance_floor"],
                values["init"], values["init_seed"])

    def reset_to(settings):
        K, covariance_type, variance_floor, init, seed = settings
        stepper.reset(K, covariance_type=covariance_type, variance_floor=variance_floor,
                      init=init, rng=seed)

    def sync(values):
        if stepper.settings != settings_of(values):
            reset_to(settings_of(values))

    def step():
        sync(explorer.values())
        stepper.step()

    def reset():
        reset_to(settings_of(explorer.values()))

    def new_init():
        seed_control = controls["init_seed"]
        seed_control.value = (seed_control.value + 1) % (seed_control.max + 1)

    def render(**values):
        sync(values)
        state = stepper.state
        t = len(stepper.states) - 1
        fig, (ax_points, ax_trace) = plt.subplots(1, 2, figsize=(10, 4.2))
        plot_responsibilities(ax_points, stepper.X, state.responsibilities, state.params)
        ax_points.set_title(f"t = {t}: colours = responsibilities $\\gamma_{{nk}}$",
                            fontsize=10)
        plot_log_likelihood_trace(ax_trace, stepper.trace, n_items=len(stepper.X), item="point")
        ax_trace.set_xlim(-0.5, max(10, t) + 0.5)
        note = f"  ({stepper.notes[-1]})" if stepper.notes else ""
        ax_trace.set_title(f"log-likelihood per point {state.log_likelihood / len(stepper.X):.4f}"
                           f"{note}", fontsize=9)
        fig.subplots_adjust(wspace=0.3, bottom=0.14)
        return fig

    explorer = Explorer(render, controls,
                        buttons={"Step": step, "Reset": reset, "New init": new_init},
                        title="EM for a Gaussian mixture, one step at a time")
    explorer.stepper = stepper
    return explorer
