"""The multivariate Gaussian: log-density through a Cholesky factor, ML estimates, sampling.

(``cholesky_factor``, ``sample_gaussian`` and ``LOG_2PI`` live in :mod:`course_lib.linalg` and
are re-exported here, where a Gaussian user looks for them.)

Rows of ``X`` are samples (frames), columns are the D dimensions. A covariance is given either
as a full (D, D) matrix ``Sigma`` or, for a diagonal covariance, as the (D,) vector of its
variances ``sigma2`` (``covariance_type="diag"``).

    log N(x | mu, Sigma) = -1/2 [ D log(2 pi) + log|Sigma| + (x - mu)^T Sigma^{-1} (x - mu) ]

is evaluated with the Cholesky factor Sigma = L L^T: log|Sigma| = 2 sum_d log L_dd and the
Mahalanobis term is ||z||^2 with z = L^{-1} (x - mu) from a triangular solve, never through
``inv`` or ``det`` (which overflow, underflow or lose precision for 13-dim MFCC covariances).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import cholesky

from .clustering import check_spread
from ..linalg import LOG_2PI, cholesky_factor, log_det_from_cholesky, sample_gaussian, solve_lower
from ..validation import as_float_array, as_positive_float, check_choice

__all__ = ["LOG_2PI", "covariance_2d", "gaussian_log_density", "fit_gaussian", "sample_gaussian",
           "as_covariance"]

_COVARIANCE_TYPES = ("full", "diag")


def as_covariance(Sigma, dim: int, covariance_type: str = "full",
                  name: str = "Sigma") -> np.ndarray:
    """Check a user covariance of ``dim`` dimensions and return it as a float array: a (D, D)
    symmetric positive definite matrix (``covariance_type="full"``) or (D,) positive variances
    (``"diag"``); errors name the argument ``name``."""
    check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    if covariance_type == "full":
        Sigma = as_float_array(Sigma, name, ndim=2)
        if Sigma.shape != (dim, dim):
            raise ValueError(f"{name}: expected a {(dim, dim)} covariance, got {Sigma.shape}")
        cholesky_factor(Sigma, name)
    else:
        Sigma = as_float_array(Sigma, name, ndim=1)
        if Sigma.shape != (dim,):
            raise ValueError(f"{name}: expected {dim} variances, got shape {Sigma.shape}")
        if np.any(Sigma <= 0):
            raise ValueError(f"{name}: variances must be > 0 (a diagonal covariance that is "
                             f"not positive definite), got min {Sigma.min():.3g}")
    return Sigma


def covariance_2d(sigma1: float, sigma2: float, rho: float) -> np.ndarray:
    """Sigma = [[s1^2, rho s1 s2], [rho s1 s2, s2^2]] from two standard deviations and a
    correlation -1 < rho < 1 (the three free numbers of a 2-D covariance)."""
    sigma1 = as_positive_float(sigma1, "sigma1")
    sigma2 = as_positive_float(sigma2, "sigma2")
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho: expected a real number, got {type(rho).__name__}")
    if not -1 < rho < 1:
        raise ValueError(f"rho: expected a correlation strictly between -1 and 1, got {rho!r}")
    off = float(rho) * sigma1 * sigma2
    return np.array([[sigma1 ** 2, off], [off, sigma2 ** 2]])


def _log_density_from_cholesky(X: np.ndarray, mu: np.ndarray, L: np.ndarray) -> np.ndarray:
    """log N(x_n | mu, L L^T) for every row of X (N, D), given the lower factor L (D, D).
    Lecture 02, section 2 (The Gaussian density in one and more dimensions).

    z_n = L^{-1}(x_n - mu) by a triangular solve; log N = -1/2 (D log 2pi + 2 sum log L_dd
    + ||z_n||^2). No argument checks (for library code that has already checked).
    """
    z = solve_lower(L, (X - mu).T)
    return -0.5 * (X.shape[1] * LOG_2PI + log_det_from_cholesky(L) + np.einsum("dn,dn->n", z, z))


def _log_density_diag(X, mu, sigma2):
    return -0.5 * (X.shape[1] * LOG_2PI + np.sum(np.log(sigma2))
                   + np.sum((X - mu) ** 2 / sigma2, axis=1))


def gaussian_log_density(X, mu, Sigma, covariance_type: str = "full") -> np.ndarray:
    """Log-density log N(x_n | mu, Sigma) of each row of ``X``, shape (N,).

    Parameters
    ----------
    X : (N, D) samples, rows are frames.
    mu : (D,) mean.
    Sigma : (D, D) covariance (``covariance_type="full"``) or (D,) variances ("diag").

    The full case uses Sigma = L L^T (:func:`_log_density_from_cholesky`); the diagonal case is the sum of
    D one-dimensional log-densities, -1/2 sum_d [log(2 pi sigma2_d) + (x_d - mu_d)^2 / sigma2_d].
    Densities can exceed 1, so log-densities can be positive.
    """
    X = as_float_array(X, "X", ndim=2)
    D = X.shape[1]
    mu = as_float_array(mu, "mu", ndim=1)
    if mu.shape != (D,):
        raise ValueError(f"mu: expected shape {(D,)} to match X's {D} columns, got {mu.shape}")
    Sigma = as_covariance(Sigma, D, covariance_type)
    if covariance_type == "diag":
        return _log_density_diag(X, mu, Sigma)
    return _log_density_from_cholesky(X, mu, cholesky(Sigma, lower=True))


def fit_gaussian(X, covariance_type: str = "full") -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood mean and covariance of the rows of ``X`` (N, D).
    Lecture 02, section 3 (Maximum-likelihood estimation).

        mu_ML = 1/N sum_n x_n,    Sigma_ML = 1/N sum_n (x_n - mu_ML)(x_n - mu_ML)^T

    (the biased 1/N estimate, which maximises the likelihood). With ``covariance_type="diag"``
    only the variances (D,) are returned. The ML covariance is singular unless N > D and no
    dimension is constant, so those cases raise ``ValueError`` instead of returning a matrix
    that has no density.
    """
    check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    X = as_float_array(X, "X", ndim=2)
    N, D = X.shape
    check_spread(X)
    if covariance_type == "full" and N <= D:
        raise ValueError(f"X: a full ML covariance needs more samples than dimensions "
                         f"(N = {N} <= D = {D}); it would be singular")
    if N < 2:
        raise ValueError("X: need at least 2 samples to estimate a variance")
    mu = X.mean(axis=0)
    centred = X - mu
    if covariance_type == "diag":
        Sigma = np.mean(centred ** 2, axis=0)
        if np.any(Sigma <= 0):
            raise ValueError(f"X: dimension(s) {np.flatnonzero(Sigma <= 0).tolist()} are "
                             f"constant, so the ML variance is 0")
        return mu, Sigma
    Sigma = centred.T @ centred / N
    try:
        cholesky(Sigma, lower=True)
    except np.linalg.LinAlgError:
        raise ValueError("X: the ML covariance is singular (duplicate points, a constant or "
                         "linearly dependent dimension)") from None
    return mu, Sigma
