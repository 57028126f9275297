"""The log evidence (log marginal likelihood) of a GP regression on a grid of two
hyper-parameters.

A diagnostic, apart from :mod:`course_lib.gp.regression` (Rasmussen & Williams 2006, Alg. 2.1
and eq. 2.30, which it evaluates): the lecture draws the surface and its two terms, data fit
and complexity (R&W §5.4.1, Figs. 5.3 and 5.5), to show where ML-II lands and why it can have
several optima. Along a noise axis one eigendecomposition of K serves every noise level at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg import LOG_2PI, NotPositiveDefiniteError
from ..validation import as_float_array, warn_deprecated
from .parameters import _check_log_parameters
from .regression import GPRegression

__all__ = ["EvidenceSurface", "log_evidence_surface", "log_marginal_likelihood_surface"]


@dataclass(frozen=True)
class EvidenceSurface:
    """log p(y | X, theta) on a grid over two hyper-parameters (the others held fixed).

    ``values[i, j]`` is at ``y_values[i]``, ``x_values[j]`` (natural units; -inf where the
    factorisation failed); ``data_fit`` and ``complexity`` are its two terms on the same grid;
    ``best`` = (x, y) of the largest grid value.
    """

    x_name: str
    y_name: str
    x_values: np.ndarray
    y_values: np.ndarray
    values: np.ndarray
    data_fit: np.ndarray
    complexity: np.ndarray
    best: tuple[float, float]


def log_evidence_surface(gp: GPRegression, x_name: str, x_values, y_name: str, y_values
                         ) -> EvidenceSurface:
    """Evaluate the log evidence of a fitted ``gp`` over a grid of two
    hyper-parameters named as in ``gp.param_names`` (e.g. "lengthscale", "noise_variance"),
    given in natural units (positive), the others held at their current values.

    When one of the two is ``noise_variance``, each setting of the other one costs a single
    eigendecomposition ``K = Q diag(lambda) Q^T``, which serves every noise level s at once:
    ``K + s I = Q diag(lambda + s) Q^T``, so with ``c = Q^T y``

        data fit = -1/2 sum_i c_i^2 / (lambda_i + s),   complexity = -1/2 sum_i log(lambda_i + s).

    Grid points where ``K + s I`` is too ill-conditioned for that (condition number above
    1e10) are evaluated one by one with the Cholesky route of :meth:`GPRegression.
    evidence` (jitter included), so every value equals the pointwise one.
    """
    gp._require_fit()
    names = gp.param_names
    for arg, name in (("x_name", x_name), ("y_name", y_name)):
        if name not in names:
            raise ValueError(f"{arg}: unknown hyper-parameter {name!r}; known: {names}")
    x_values = as_float_array(x_values, "x_values", ndim=1)
    y_values = as_float_array(y_values, "y_values", ndim=1)
    for arg, values in (("x_values", x_values), ("y_values", y_values)):
        if np.any(values <= 0):
            raise ValueError(f"{arg}: hyper-parameter values must be > 0")
        _check_log_parameters(np.log(values), [arg] * values.size, arg)
    ix, iy = names.index(x_name), names.index(y_name)
    shape = (y_values.size, x_values.size)
    values, data_fit, complexity = np.full(shape, -np.inf), np.full(shape, -np.inf), np.zeros(shape)
    theta = gp.theta

    def pointwise(i, j):
        theta[ix], theta[iy] = np.log(x_values[j]), np.log(y_values[i])
        try:
            result = gp.evidence(theta, warn=False)
        except NotPositiveDefiniteError:
            return
        values[i, j], data_fit[i, j], complexity[i, j] = (result.value, result.data_fit,
                                                          result.complexity)

    # the eigendecomposition shortcut holds for one shared noise on plain targets only
    shortcut = isinstance(gp, GPRegression) and gp.learns_noise
    noise_axis = {x_name: 1, y_name: 0}.get("noise_variance") if shortcut else None
    if noise_axis is None:
        for i in range(shape[0]):
            for j in range(shape[1]):
                pointwise(i, j)
    else:
        # index of the kernel parameter on the other axis, and its values
        other, other_values = (iy, y_values) if noise_axis == 1 else (ix, x_values)
        noises = x_values if noise_axis == 1 else y_values
        P = gp.kernel.n_params
        constant = -0.5 * gp.y_train.size * LOG_2PI
        for k, value in enumerate(other_values):
            theta[other] = np.log(value)
            eigenvalues, Q = np.linalg.eigh(gp.kernel.with_theta(theta[:P])(gp.X_train))
            c2 = (Q.T @ gp.y_train) ** 2
            shifted = eigenvalues[None, :] + noises[:, None]          # (noise, eigenvalue)
            well_posed = shifted.min(axis=1) > 1e-10 * shifted.max(axis=1)
            safe = np.where(well_posed[:, None], shifted, 1.0)
            with np.errstate(over="ignore"):
                fit_row = np.where(well_posed, -0.5 * np.sum(c2 / safe, axis=1), -np.inf)
            if not np.all(np.isfinite(fit_row[well_posed])):
                gp.evidence(theta)  # raises, naming y (data-fit overflow)
            complexity_row = np.where(well_posed, -0.5 * np.sum(np.log(safe), axis=1), 0.0)
            index = (slice(None), k) if noise_axis == 0 else (k, slice(None))
            data_fit[index], complexity[index] = fit_row, complexity_row
            values[index] = fit_row + complexity_row + constant
            for n in np.flatnonzero(~well_posed):
                pointwise(*((n, k) if noise_axis == 0 else (k, n)))
    i, j = np.unravel_index(np.argmax(values), shape)
    return EvidenceSurface(x_name, y_name, x_values, y_values, values, data_fit, complexity,
                           (float(x_values[j]), float(y_values[i])))


def log_marginal_likelihood_surface(gp: GPRegression, x_name: str, x_values, y_name: str,
                                    y_values) -> EvidenceSurface:
    """Deprecated, removed in the next release: ``log_evidence_surface`` (the exercises of
    lecture 04 as released before issue 48 called this name)."""
    warn_deprecated("log_marginal_likelihood_surface", "log_evidence_surface")
    return log_evidence_surface(gp, x_name, x_values, y_name, y_values)
