"""Explorers for Unit 2 (Gaussians, mixtures, EM).

``gaussian_explorer``: a 1-D or 2-D Gaussian from sliders (means, standard deviations,
correlation), samples drawn from it, its contours and the ML estimate from the samples.

``em_explorer``: EM on 2-D points one step at a time. "Step" runs one E-step + M-step,
recolours the points by responsibility and extends the log-likelihood curve; "Reset" starts
again from the current settings; "New init" moves to the next initialisation seed. Changing
K, the covariance type, the variance floor, the initialisation or its seed also starts again.
The compute is :mod:`course_lib.gmm`, the drawing :mod:`course_lib.plotting.gmm`.
"""

from __future__ import annotations

import warnings

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from ..gaussian import fit_gaussian, sample_gaussian
from ..gmm import ComponentCollapseWarning, GMMParams, e_step, initialise_gmm, m_step, \
    sample_gmm
from ..plotting.gmm import (plot_gaussian_1d, plot_gaussian_contours, plot_loglik_trace,
                            plot_responsibilities)
from ..validation import as_float_array
from .base import Explorer

__all__ = ["gaussian_explorer", "em_explorer", "EMStepper", "demo_points"]


def _slider(cls, value, lo, hi, step, description, **kwargs):
    return cls(value=value, min=lo, max=hi, step=step, description=description,
               continuous_update=False, **kwargs)


def covariance_2d(sigma1: float, sigma2: float, rho: float) -> np.ndarray:
    """Sigma = [[s1^2, rho s1 s2], [rho s1 s2, s2^2]] from standard deviations and correlation."""
    off = rho * sigma1 * sigma2
    return np.array([[sigma1 ** 2, off], [off, sigma2 ** 2]])


def gaussian_explorer(seed: int = 0) -> Explorer:
    """Sliders for a 1-D or 2-D Gaussian; shows samples, the density / contours, the ML fit."""
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
        rng = np.random.default_rng(seed)
        fig, ax = plt.subplots(figsize=(5.5, 4.5))
        if dimension == "1-D":
            x = sample_gaussian(np.array([mu1]), np.array([sigma1 ** 2]), n_samples, rng=rng,
                                covariance_type="diag")
            plot_gaussian_1d(ax, mu1, sigma1 ** 2, x, x_range=(-8.0, 8.0))
            ax.axvline(x.mean(), color="C3", ls="--", label=f"ML mean {x.mean():.2f}")
            ax.set_title(f"ML estimates from N={n_samples}: mean {x.mean():.2f}, "
                         f"variance {x.var():.2f}")
            ax.legend(loc="upper right", fontsize=8)
            return fig
        mu, Sigma = np.array([mu1, mu2]), covariance_2d(sigma1, sigma2, rho)
        x = sample_gaussian(mu, Sigma, n_samples, rng=rng)
        ax.scatter(x[:, 0], x[:, 1], s=6, alpha=0.5, color="C0")
        plot_gaussian_contours(ax, mu, Sigma, color="k")
        mu_ml, Sigma_ml = fit_gaussian(x)
        plot_gaussian_contours(ax, mu_ml, Sigma_ml, levels=(1.0, 2.0), color="C3",
                               linestyle="--")
        ax.set(xlim=(-10, 10), ylim=(-10, 10), aspect="equal", xlabel="x1", ylabel="x2",
               title=f"true (black) vs ML from N={n_samples} (red dashed)")
        return fig

    return Explorer(render, controls, title="A Gaussian: parameters, samples, ML estimate")


def demo_points(n_samples: int = 300, rng=0) -> np.ndarray:
    """2-D points from a fixed three-component mixture (the EM explorer's default data)."""
    truth = GMMParams(np.array([0.4, 0.35, 0.25]),
                      np.array([[0.0, 0.0], [3.5, 1.0], [1.0, 3.5]]),
                      np.array([[[1.0, 0.6], [0.6, 1.0]], [[0.4, 0.0], [0.0, 1.2]],
                                [[0.9, -0.3], [-0.3, 0.3]]]), "full")
    return sample_gmm(truth, n_samples, rng=rng)[0]


class EMStepper:
    """EM state that a lecture steps by hand: theta_t, gamma under theta_t, l(theta_0..t).

    ``reset(...)`` draws theta_0 with :func:`course_lib.gmm.initialise_gmm`; ``step()`` runs
    one M-step from the current responsibilities and the E-step of the new parameters.
    Collapse warnings are kept in ``notes`` (and not raised) so a widget can show them.
    """

    def __init__(self, X):
        self.X = as_float_array(X, "X", ndim=2)
        self.config = None
        self.notes: list[str] = []

    def reset(self, n_components: int, covariance_type: str = "full", variance_floor=0.0,
              init: str = "random", seed: int = 0) -> None:
        self.config = (n_components, covariance_type, variance_floor, init, seed)
        self.notes = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ComponentCollapseWarning)
            self.params = initialise_gmm(self.X, n_components, covariance_type=covariance_type,
                                         init=init, variance_floor=variance_floor, rng=seed)
        self._note(caught)
        self.gamma, ll = e_step(self.X, self.params)
        self.trace = [ll]

    def step(self) -> None:
        _, covariance_type, variance_floor, _, _ = self.config
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ComponentCollapseWarning)
            self.params = m_step(self.X, self.gamma, covariance_type,
                                 variance_floor=variance_floor)
        self._note(caught)
        self.gamma, ll = e_step(self.X, self.params)
        self.trace.append(ll)

    def _note(self, caught) -> None:
        if any(issubclass(w.category, ComponentCollapseWarning) for w in caught):
            self.notes.append(f"collapse repaired at t={len(getattr(self, 'trace', []))}")


def em_explorer(X=None, *, max_components: int = 6, seed: int = 0) -> Explorer:
    """Step through EM on 2-D points (``X`` (N, 2); default :func:`demo_points`)."""
    X = demo_points(rng=seed) if X is None else as_float_array(X, "X", ndim=2)
    if X.shape[1] != 2:
        raise ValueError(f"X: the EM explorer shows 2-D points, got shape {X.shape}")
    stepper = EMStepper(X)
    controls = {
        "n_components": _slider(W.IntSlider, 3, 1, max_components, 1, "K"),
        "covariance_type": W.Dropdown(options=["full", "diag"], value="full",
                                      description="covariance"),
        "variance_floor": _slider(W.FloatSlider, 0.0, 0.0, 1.0, 0.01, "var floor"),
        "init": W.Dropdown(options=["random", "kmeans"], value="random", description="init"),
        "init_seed": _slider(W.IntSlider, seed, 0, 20, 1, "init seed"),
    }

    def current(values):
        config = (values["n_components"], values["covariance_type"], values["variance_floor"],
                  values["init"], values["init_seed"])
        if stepper.config != config:
            stepper.reset(*config)

    def step():
        current(explorer.values())
        stepper.step()

    def reset():
        stepper.config = None
        current(explorer.values())

    def new_init():
        seed_control = controls["init_seed"]
        seed_control.value = (seed_control.value + 1) % (seed_control.max + 1)

    def render(**values):
        current(values)
        fig, (ax_points, ax_trace) = plt.subplots(1, 2, figsize=(10, 4.2))
        plot_responsibilities(ax_points, stepper.X, stepper.gamma, stepper.params)
        t = len(stepper.trace) - 1
        ax_points.set_title(f"t = {t}: colours = responsibilities gamma_nk")
        plot_loglik_trace(ax_trace, stepper.trace, per_frame=stepper.X.shape[0])
        ax_trace.set_xlim(-0.5, max(10, t) + 0.5)
        note = f"  ({stepper.notes[-1]})" if stepper.notes else ""
        ax_trace.set_title(f"log-likelihood per frame {stepper.trace[-1] / len(stepper.X):.4f}"
                           f"{note}", fontsize=9)
        fig.subplots_adjust(wspace=0.3, bottom=0.14)
        return fig

    explorer = Explorer(render, controls,
                        buttons={"Step": step, "Reset": reset, "New init": new_init},
                        title="EM for a Gaussian mixture, one step at a time")
    explorer.stepper = stepper
    return explorer
