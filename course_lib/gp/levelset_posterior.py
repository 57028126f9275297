"""What the level-set acquisitions read from a fitted model, and their small shared helpers.

:mod:`course_lib.gp.levelset` forms the look-ahead from posterior means, variances and
candidate-reference covariances. They come from a fitted course_lib GP (``kernel``,
``X_train`` and a :class:`~course_lib.gp.prediction.LatentGaussian` ``posterior``): the
marginals at a set of points with the whitened cross-kernels V (and U) from which any
covariance between two sets follows as k(A, B) - V_A^T V_B (+ U_A^T U_B). Beside them: each
point's coefficients of the tetrachoric series (:mod:`course_lib.gp.bivariate_normal`) and their
decay factor, the binary entropy in bits, and the check of a threshold. An engine, apart from
the core: a student follows the look-ahead on the arrays alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.special import xlogy

from ..validation import _as_float_array
from .bivariate_normal import _SERIES_TERMS, _hermite_coefficients
from .prediction import LatentGaussian

__all__ = []


def _as_threshold(threshold) -> float:
    """``threshold`` as a float, or an error naming it."""
    value = _as_float_array(threshold, "threshold", ndim=0)
    return float(value)


def _fitted_posterior(model):
    """(kernel, X_train, posterior) of a fitted course_lib GP, or an error naming ``model``."""
    missing = [name for name in ("kernel", "X_train", "posterior") if not hasattr(model, name)]
    if missing:
        raise TypeError(f"model: expected a fitted course_lib GP (GPRegression, PreferenceGP, "
                        f"...) with kernel, X_train and posterior; {type(model).__name__} has "
                        f"no {', '.join(missing)}")
    if model.posterior is None:
        raise ValueError("model: not fitted yet; call fit before computing an acquisition")
    if not isinstance(model.posterior, LatentGaussian):
        raise TypeError(f"model: posterior must be a LatentGaussian, got "
                        f"{type(model.posterior).__name__}")
    return model.kernel, model.X_train, model.posterior


@dataclass(frozen=True)
class _Marginals:
    """Posterior means and variances at some points, with the whitened cross-kernels that give
    any covariance between two sets as k(A, B) - V_A^T V_B (+ U_A^T U_B)."""

    X: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    V: np.ndarray
    U: np.ndarray | None


def _marginals(kernel, X_train, posterior, X) -> _Marginals:
    """Posterior means and variances of f at the rows of ``X`` (R&W 2006 eqs. 3.21, 3.24), with
    the factors their covariances with other points are built from."""
    K_cross = kernel(X_train, X)
    # LatentGaussian.predict returns only the variances; the covariances need its factors
    V, U = posterior.reduction_factors(K_cross)
    var = kernel.diag(X) - np.einsum("ij,ij->j", V, V)
    if U is not None:
        var += np.einsum("ij,ij->j", U, U)
    return _Marginals(X, K_cross.T @ posterior.alpha, np.maximum(var, 0.0), V, U)


@njit(cache=True)
def _hermite_table(x):
    """(len(x), SERIES_TERMS): row i holds the series coefficients of x[i]."""
    table = np.empty((x.size, _SERIES_TERMS))
    for i in range(x.size):
        _hermite_coefficients(x[i], table[i], _SERIES_TERMS)
    return table


def _series_decay(x):
    """exp(-x^2 / 4), 0 at +-inf: each side's factor of the bound on the series' terms."""
    with np.errstate(over="ignore"):
        return np.exp(-0.25 * np.square(x))


def _binary_entropy_bits(p, q):
    """Binary entropy in bits of arrays p and q = 1 - p (each passed at full accuracy)."""
    return -(xlogy(p, p) + xlogy(q, q)) / np.log(2.0)
