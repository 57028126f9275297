"""What the annotator evidence returns, and the two linear-algebra steps behind it.

The evidence of the annotator model (Gil-Gonzalez, Alvarez & Orozco 2018; ``gp.annotator_noise``,
where its equations are) is log N(yhat; 0, K + Sigma) plus the spread term c, and its noise
gradient by Fisher's identity needs the posterior variances V_ii, hence the diagonal of
(K + Sigma)^-1. Here are its result type (the terms and the two gradients) and the numerics a
student need not read to follow the equations: conditioning the GP on the weighted means (quiet
while EM and restarts probe many noise tables, or blaming the kernel when ``fit`` fails) and the
inverse from the Cholesky factor.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack

from ..linalg import NotPositiveDefiniteError
from .prediction import LatentGaussian

__all__ = ["AnnotatorLikelihood", "condition"]


@dataclass(frozen=True)
class AnnotatorLikelihood:
    """log p(Y | X) = data_fit + complexity + constant + spread_term (``gp.annotator_noise``).

    data_fit = -1/2 yhat^T (K + Sigma)^-1 yhat; complexity = -1/2 log det(K + Sigma);
    constant = -N/2 log 2pi; spread_term = c. ``gradient_kernel`` (P,): d/d kernel
    log-parameters; ``gradient_log_noise`` (J,): d/d log s_j by Fisher's identity.
    """

    value: float
    data_fit: float
    complexity: float
    constant: float
    spread_term: float
    gradient_kernel: np.ndarray | None = None
    gradient_log_noise: np.ndarray | None = None


def condition(K, target, noise, warn: bool) -> LatentGaussian:
    """The GP posterior on the weighted means ``target`` with per-item ``noise``; ``warn=False``
    silences the jitter warnings (EM steps and restarts probe many noise tables)."""
    if warn:
        return LatentGaussian.from_noise(K, target, noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LatentGaussian.from_noise(K, target, noise)


def _fitted_posterior(K, target, noise) -> LatentGaussian:
    """The posterior ``fit`` conditions on; a matrix that is not positive definite is blamed on
    the kernel."""
    try:
        return LatentGaussian.from_noise(K, target, noise)
    except NotPositiveDefiniteError as err:
        raise NotPositiveDefiniteError(
            f"kernel: its matrix on X plus the noise is not positive definite; a valid "
            f"kernel gives a positive semi-definite matrix ({err})") from None


def _inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    """(K + Sigma)^-1 from its lower Cholesky factor (LAPACK dpotri), symmetric."""
    inverse, info = lapack.dpotri(L, lower=1)
    if info != 0:
        raise NotPositiveDefiniteError(f"K + noise: inverse from Cholesky failed (info={info})")
    return np.tril(inverse) + np.tril(inverse, -1).T
