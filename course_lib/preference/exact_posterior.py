"""The exact posterior of one to three items' utilities on a grid: the brute-force reference
the Laplace and EP approximations of Unit 6 are judged against.

:func:`grid_posterior` evaluates log N(f; 0, K) + sum_k log p(y_k | (M f)_k) at every point of a
product grid and normalises it by a Riemann sum in log space; :func:`two_item_prior` is the
prior of the two-item problem the lecture draws (two settings whose kernel correlation is rho).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import logsumexp

from ..linalg import as_square_matrix, cholesky_with_jitter
from ..validation import as_positive_float, as_float_array
from .likelihoods import Likelihood

__all__ = ["GridPosterior", "grid_posterior", "two_item_prior"]

# brute-force grids hold at most this many points (a 3-item grid of 200^3 would be 64 MB)
_MAX_GRID_POINTS = 2_000_000


@dataclass(frozen=True)
class GridPosterior:
    """An exact posterior of n = 1, 2 or 3 items' utilities on a product grid.

    ``axes``: one 1-D grid per item; ``log_density``: log p(f | y) at every grid point (shape
    of the mesh, ``indexing="ij"``), normalised so that ``exp(log_density) * cell`` sums to 1;
    ``mean`` (n,) and ``cov`` (n, n) its moments; ``cell`` the volume of one grid cell.
    """

    axes: tuple[np.ndarray, ...]
    log_density: np.ndarray
    mean: np.ndarray
    cov: np.ndarray
    cell: float

    def marginal(self, item: int = 0) -> np.ndarray:
        """The marginal density of one item's utility on its grid."""
        others = tuple(k for k in range(len(self.axes)) if k != item)
        spacing = [np.diff(self.axes[k][:2])[0] for k in others]
        return np.exp(logsumexp(self.log_density, axis=others)) * float(np.prod(spacing))


def grid_posterior(K, M, likelihood: Likelihood, y, axes) -> GridPosterior:
    """Brute force: log N(f; 0, K) + sum_k log p(y_k | (M f)_k) at every point of the product
    grid of ``axes`` (one evenly spaced 1-D grid per item, at most three items), normalised by
    a Riemann sum in log space. The reference that the Laplace (and EP) approximations are
    judged against; accurate when the grids cover the posterior's mass and resolve its
    width."""
    K = as_square_matrix(K, "K")
    n = K.shape[0]
    if n > 3:
        raise ValueError(f"K: a grid posterior is for 1 to 3 items, got {n}")
    M = as_float_array(M, "M", ndim=2)
    if M.shape[1] != n:
        raise ValueError(f"M: expected {n} columns (one per item), got shape {M.shape}")
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    y = likelihood.check_observations(y, "y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"y: expected {M.shape[0]} answers (one per row of M), got {y.shape}")
    if len(axes) != n:
        raise ValueError(f"axes: expected {n} grids (one per item), got {len(axes)}")
    axes = tuple(as_float_array(a, f"axes[{k}]", ndim=1) for k, a in enumerate(axes))
    for k, a in enumerate(axes):
        steps = np.diff(a)
        if a.size < 3 or np.any(steps <= 0) or np.ptp(steps) > 1e-9 * steps[0]:
            raise ValueError(f"axes[{k}]: expected an increasing, evenly spaced grid of at "
                             "least 3 points")
    if np.prod([a.size for a in axes]) > _MAX_GRID_POINTS:
        raise ValueError(f"axes: at most {_MAX_GRID_POINTS} grid points in all")
    points = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    L, _ = cholesky_with_jitter(K, "K", warn=False)
    whitened = solve_triangular(L, points.T, lower=True)
    log_prior = -0.5 * np.sum(whitened ** 2, axis=0)       # constants cancel in normalising
    z = points @ M.T                                        # (G, m)
    log_lik = likelihood.log_likelihood(z.ravel(), np.tile(y, points.shape[0]))
    log_post = log_prior + log_lik.reshape(z.shape).sum(axis=1)
    cell = float(np.prod([a[1] - a[0] for a in axes]))
    log_post = log_post - logsumexp(log_post) - np.log(cell)
    weights = np.exp(log_post) * cell
    mean = weights @ points
    centred = points - mean
    cov = (centred * weights[:, None]).T @ centred
    shape = tuple(a.size for a in axes)
    return GridPosterior(axes, log_post.reshape(shape), mean, cov, cell)


def two_item_prior(prior_sd: float, correlation: float) -> np.ndarray:
    """Prior covariance of two items' utilities: prior_sd^2 [[1, rho], [rho, 1]] (two settings
    whose kernel correlation is rho). Their difference z has prior variance
    2 prior_sd^2 (1 - rho)."""
    prior_sd = as_positive_float(prior_sd, "prior_sd")
    correlation = float(as_float_array(correlation, "correlation", ndim=0))
    if not -1.0 < correlation < 1.0:
        raise ValueError(f"correlation: expected a value in (-1, 1), got {correlation:g}")
    return prior_sd ** 2 * np.array([[1.0, correlation], [correlation, 1.0]])
