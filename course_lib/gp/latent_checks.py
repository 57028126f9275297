"""Argument checks shared by the latent-Gaussian approximations (Laplace, EP, variational).

Each approximation of p(f | y) for f ~ N(0, K) and z = M f takes the same four arguments; their
checks are written once here, at the border, so that the cores (:mod:`course_lib.gp.laplace`,
:mod:`course_lib.gp.ep`, :mod:`course_lib.gp.mixed_likelihood`) work on trusted arrays.
"""

from __future__ import annotations

import numpy as np

from ..linalg import as_square_matrix, check_symmetric
from ..validation import as_float_array
from .likelihoods import Likelihood

__all__ = ["check_latent_problem"]


def check_latent_problem(K, M, likelihood, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the inputs of a latent-Gaussian approximation (Laplace or EP): the items' prior
    covariance ``K`` (n x n, symmetric), the map ``M`` (m x n), a ``likelihood`` and its m
    observations ``y``; returns K, M and y as checked arrays, errors name the argument."""
    K = as_square_matrix(K, "K")
    check_symmetric(K, "K")
    n = K.shape[0]
    M = as_float_array(M, "M", ndim=2)
    if M.shape[1] != n:
        raise ValueError(f"M: expected {n} columns (one per item, as K is {n} x {n}), got shape "
                         f"{M.shape}")
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.gp.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    y = likelihood.check_observations(y, "y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"y: expected {M.shape[0]} observations (one per row of M), got shape "
                         f"{y.shape}")
    return K, M, y
