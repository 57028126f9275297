"""Argument checks shared by the latent-Gaussian approximations (Laplace, EP, variational).

Each approximation of p(f | y) for f ~ N(0, K) and z = M f takes the same four arguments; their
checks are written once here, at the border, so that the cores (:mod:`course_lib.gp.laplace`,
:mod:`course_lib.gp.ep`, :mod:`course_lib.gp.mixed_likelihood`) work on trusted arrays.
"""

from __future__ import annotations

import numpy as np

from ..linalg import _as_square_matrix, _check_symmetric
from ..validation import _as_float_array
from .likelihoods import Likelihood


def _check_latent_problem(K, M, likelihood, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the inputs of a latent-Gaussian approximation (Laplace or EP): the items' prior
    covariance ``K`` (n x n, symmetric), the map ``M`` (m x n), a ``likelihood`` and its m
    observations ``y``; returns K, M and y as checked arrays, errors name the argument."""
    K = _check_prior_covariance(K)
    M = _as_float_array(M, "M", ndim=2)
    _check_map_columns(M, K.shape[0])
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.gp.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    y = likelihood.check_observations(y, "y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"y: expected {M.shape[0]} observations (one per row of M), got shape "
                         f"{y.shape}")
    return K, M, y


def _check_prior_covariance(K) -> np.ndarray:
    """``K`` checked as the items' prior covariance (n x n, symmetric)."""
    K = _as_square_matrix(K, "K")
    _check_symmetric(K, "K")
    return K


def _check_map_columns(M: np.ndarray, n: int) -> None:
    """Refuse a map ``M`` without one column per item (n of them)."""
    if M.shape[1] != n:
        raise ValueError(f"M: expected {n} columns (one per item, as K is {n} x {n}), got shape "
                         f"{M.shape}")


def _check_variational_starts(alpha0, site_precision0, n: int, m: int):
    """The warm starts of a variational fit, each None or checked: ``alpha0`` (n,) weights and
    ``site_precision0`` (m,) positive precisions."""
    if alpha0 is not None:
        alpha0 = _as_float_array(alpha0, "alpha0", ndim=1)
        if alpha0.size != n:
            raise ValueError(f"alpha0: expected {n} weights (one per item), got {alpha0.size}")
    if site_precision0 is not None:
        lam = site_precision0 = _as_float_array(site_precision0, "site_precision0", ndim=1)
        if lam.size != m or np.any(lam <= 0):
            raise ValueError(f"site_precision0: expected {m} positive precisions (one per row "
                             f"of M), got {lam.size} values, smallest {lam.min():g}")
    return alpha0, site_precision0
