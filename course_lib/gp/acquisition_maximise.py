"""Maximising bivariate expected improvement over a box: multi-start L-BFGS-B.

The search around the acquisition of :mod:`course_lib.gp.acquisition` (bEI and its gradient,
J. B. Nielsen, PhD thesis, DTU 2014/2015, ch. 3 and appendix I): the starts (the best grid
points, or uniform random ones; Nielsen, Nielsen & Larsen 2015, 4-D: 5 random starts), the
bounded L-BFGS-B runs, snapping to a grid, and the result type with the path mean that
:mod:`course_lib.gp.ei_convergence` smooths. Apart from the core because a student follows
bEI without it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ..validation import (RngLike, _as_bool, _as_float_array, _as_positive_int, _as_rng,
                          _check_choice)
from .acquisition import _best_input, bivariate_ei, bivariate_ei_gradient, _check_model
from .inputs import _as_inputs

__all__ = ["AcquisitionMaximum", "maximise_acquisition"]


@dataclass(frozen=True)
class AcquisitionMaximum:
    """Result of :func:`maximise_acquisition`.

    x : (d,) the chosen setting (snapped to the grid when asked); value: its bEI.
    starts, ends : (n_restarts, d) start and end of every L-BFGS-B run; end_values: their bEI.
    path_mean : mean bEI over every point the ascents evaluated (the 4-D convergence measure
        of Nielsen et al.). grid_values : bEI on ``X_grid`` when one was given, else None.
    x_best : the incumbent the improvement was measured against.
    """

    x: np.ndarray
    value: float
    starts: np.ndarray
    ends: np.ndarray
    end_values: np.ndarray
    path_mean: float
    grid_values: np.ndarray | None
    x_best: np.ndarray


def _check_box(bounds, d: int) -> np.ndarray:
    bounds = _as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape != (d, 2):
        raise ValueError(f"bounds: expected shape ({d}, 2) (low, high per parameter), got "
                         f"{bounds.shape}")
    if np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError("bounds: every low must be < its high")
    return bounds


def maximise_acquisition(model, bounds, *, X_grid=None, n_restarts: int = 5,
                         starts: str | None = None, snap: bool = False, x_best=None,
                         max_iter: int = 100, rng: RngLike = None) -> AcquisitionMaximum:
    """Maximise bEI on the box ``bounds`` ((d, 2), natural units) by multi-start L-BFGS-B.

    ``starts="grid"`` (default when ``X_grid`` is given): bEI on the whole grid in one solve, then
    polish the ``n_restarts`` best grid points. ``starts="random"`` (default otherwise):
    ``n_restarts`` uniform starts in the box (Nielsen et al., 4-D: 5 starts; few starts leave the
    global maximum often unfound, which adds exploration). ``snap``: return the grid row nearest to
    the best end point (needs ``X_grid``). ``max_iter`` caps each L-BFGS-B run.
    """
    model = _check_model(model)
    d = model.X_train.shape[1]
    bounds = _check_box(bounds, d)
    n_restarts = _as_positive_int(n_restarts, "n_restarts")
    max_iter = _as_positive_int(max_iter, "max_iter")
    snap = _as_bool(snap, "snap")
    if X_grid is not None:
        X_grid = _as_inputs(X_grid, "X_grid", d)
    if starts is None:
        starts = "grid" if X_grid is not None else "random"
    _check_choice(starts, "starts", {"grid", "random"})
    if (starts == "grid" or snap) and X_grid is None:
        raise ValueError(f"X_grid: needed for {'snap' if snap else 'starts=grid'}")
    z = _best_input(model, x_best)
    rng = _as_rng(rng)

    grid_values = None
    if starts == "grid":
        grid_values = bivariate_ei(model, X_grid, z)
        order = np.argsort(-grid_values, kind="stable")[:n_restarts]
        start_points = np.clip(X_grid[order], bounds[:, 0], bounds[:, 1])
    else:
        start_points = rng.uniform(bounds[:, 0], bounds[:, 1], size=(n_restarts, d))

    visited: list[float] = []

    def negative(x):
        value, gradient = bivariate_ei_gradient(model, x, z)
        visited.append(float(value[0]))
        return -float(value[0]), -gradient[0]

    ends = np.empty_like(start_points)
    end_values = np.empty(start_points.shape[0])
    for i, x0 in enumerate(start_points):
        result = minimize(negative, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": max_iter})
        ends[i] = np.clip(result.x, bounds[:, 0], bounds[:, 1])
        end_values[i] = -result.fun
    best = int(np.argmax(end_values))
    x, value = ends[best].copy(), float(end_values[best])
    if snap:
        nearest = int(np.argmin(np.sum((X_grid - x) ** 2, axis=1)))
        x = X_grid[nearest].copy()
        value = float(bivariate_ei(model, x[None, :], z)[0])
    return AcquisitionMaximum(x, value, start_points, ends, end_values,
                              float(np.mean(visited)), grid_values, z)

