"""Shared dense linear algebra: Cholesky factors, jitter, log-determinants, Gaussian draws.

Every model in the course that needs ``Sigma^-1`` or ``log|Sigma|`` (Gaussians, GMMs, GPs)
goes through a Cholesky factor ``A = L L^T``:

    log|A| = 2 sum_i log L_ii,        A^-1 b = L^-T (L^-1 b)   (two triangular solves),

never through ``inv`` or ``det``, which overflow, underflow or lose precision.

Jitter policy (GP kernels on dense grids are singular to machine precision): when a plain
Cholesky fails, ``cholesky_with_jitter`` adds ``j * mean(diag(A)) * I`` for
j = 1e-10, 1e-9, ..., 1e-4 and warns (:class:`JitterWarning`) with the amount it used; beyond
1e-4 it raises :class:`NotPositiveDefiniteError` with advice.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, lapack, solve_triangular

from .validation import RngLike, as_float_array, as_positive_int, as_rng, check_choice

__all__ = ["LOG_2PI", "JitterWarning", "NotPositiveDefiniteError", "cholesky_with_jitter",
           "log_det_from_cholesky", "sample_gaussian"]

LOG_2PI = float(np.log(2.0 * np.pi))
_JITTER_START = 1e-10
_JITTER_CAP = 1e-4
# Relative size of a negative eigenvalue that is still round-off of a positive semi-definite matrix.
_PSD_TOLERANCE = 1e-8


class JitterWarning(UserWarning):
    """A Cholesky factorisation needed jitter on the diagonal to succeed."""


class NotPositiveDefiniteError(ValueError):
    """A matrix stayed non-positive-definite even with the largest allowed jitter."""


def as_square_matrix(A, name: str, n: int | None = None) -> np.ndarray:
    """Check ``A`` is a finite square (n, n) float matrix; raise naming ``name`` otherwise."""
    A = as_float_array(A, name, ndim=2)
    if A.shape[0] != A.shape[1] or (n is not None and A.shape[0] != n):
        want = f"({n}, {n})" if n is not None else "square"
        raise ValueError(f"{name}: expected a {want} matrix, got shape {A.shape}")
    return A


def check_symmetric(A: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` naming ``name`` and the worst entry unless ``A`` is symmetric."""
    # one tolerance relative to the largest entry: a single temporary, cheap for large kernels
    asymmetry = np.abs(A - A.T)
    if asymmetry.size and asymmetry.max() > 1e-10 * np.max(np.abs(A)):
        worst = np.unravel_index(np.argmax(asymmetry), A.shape)
        raise ValueError(f"{name}: must be symmetric; entry {tuple(map(int, worst))} is "
                         f"{A[worst]:.6g} but its mirror is {A[worst[::-1]]:.6g}")


def cholesky_factor(A, name: str = "Sigma") -> np.ndarray:
    """Lower Cholesky factor L of a symmetric positive-definite matrix, ``A = L L^T``.

    Raises ``ValueError`` naming ``name`` for a non-square, non-finite, non-symmetric or not
    positive-definite ``A`` (with its smallest eigenvalue).
    """
    A = as_square_matrix(A, name)
    check_symmetric(A, name)
    try:
        return cholesky(A, lower=True, check_finite=False)
    except LinAlgError:
        raise ValueError(f"{name}: not positive definite (smallest eigenvalue "
                         f"{np.linalg.eigvalsh(A)[0]:.3g})") from None


def cholesky_with_jitter(A: np.ndarray, name: str = "K", warn: bool = True
                         ) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor L (``A + jitter I = L L^T``) and the absolute jitter added.

    ``A`` is a symmetric ``(n, n)`` array (not modified; library code checks it first). The
    jitter ladder is described in the module docstring; ``warn=False`` silences the warning.
    """
    try:
        return cholesky(A, lower=True, check_finite=False), 0.0
    except LinAlgError:
        pass
    scale = float(np.mean(np.diag(A)))
    if not np.isfinite(scale) or scale <= 0:
        raise NotPositiveDefiniteError(
            f"{name}: not positive definite and its mean diagonal is {scale:.3g}; check that "
            "every variance hyper-parameter is positive and the kernel is valid")
    eye = np.eye(A.shape[0])
    jitter = _JITTER_START
    while jitter <= _JITTER_CAP * (1 + 1e-9):
        try:
            L = cholesky(A + jitter * scale * eye, lower=True, check_finite=False)
        except LinAlgError:
            jitter *= 10.0
            continue
        if warn:
            warnings.warn(JitterWarning(
                f"{name}: Cholesky needed jitter {jitter:.0e} * mean(diag) = {jitter * scale:.3g} "
                "on the diagonal (duplicated inputs or noise-free data?)"), stacklevel=3)
        return L, jitter * scale
    raise NotPositiveDefiniteError(
        f"{name}: not positive definite even with jitter {_JITTER_CAP:.0e} * mean(diag) on the "
        "diagonal. Try: a larger noise variance (or a White kernel term), removing duplicated "
        "inputs, a shorter lengthscale or smaller variance for very smooth kernels, rescaling "
        "the inputs, or checking that the kernel is a valid (positive semi-definite) one")


def log_det_from_cholesky(L: np.ndarray) -> float:
    """``log|A| = 2 sum_i log L_ii`` for ``A = L L^T``."""
    return 2.0 * float(np.sum(np.log(np.diag(L))))


def inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    """A^-1 from the lower Cholesky factor L of A (LAPACK potri fills the lower triangle, the
    mirror completes it): what the evidence gradients of Units 4 and 5 need whole."""
    inverse, info = lapack.dpotri(L, lower=1)
    if info != 0:
        raise NotPositiveDefiniteError(f"K + noise: inverse from Cholesky failed (info={info})")
    return np.tril(inverse) + np.tril(inverse, -1).T


def solve_lower(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``L^-1 B`` for a lower-triangular ``L`` (one triangular solve, no inverse)."""
    return solve_triangular(L, B, lower=True, check_finite=False)


def _solve_cholesky(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A^-1 B = L^-T (L^-1 B)`` for ``A = L L^T`` (two triangular solves)."""
    return cho_solve((L, True), B, check_finite=False)


def _sampling_root(cov: np.ndarray) -> np.ndarray:
    """A matrix R with R R^T = cov, for a positive semi-definite ``cov``.

    Cholesky under the jitter ladder, silently (a jitter of at most 1e-4 of the mean variance is
    invisible in a draw). Failing that (e.g. a posterior at noise-free training points, where cov
    is ~0), the symmetric eigen-decomposition, accepting negative eigenvalues only at round-off
    size; a clearly indefinite ``cov`` raises.
    """
    try:
        return cholesky_with_jitter(cov, "cov", warn=False)[0]
    except NotPositiveDefiniteError:
        eigval, Q = np.linalg.eigh(cov)
        if eigval[0] < -_PSD_TOLERANCE * max(eigval[-1], np.finfo(float).tiny):
            raise ValueError(f"cov: not positive semi-definite (smallest eigenvalue "
                             f"{eigval[0]:.3g}, largest {eigval[-1]:.3g})") from None
        return Q * np.sqrt(np.maximum(eigval, 0.0))


def sample_gaussian(mean, cov, n_samples: int, *, rng: RngLike = None,
                    covariance_type: str = "full") -> np.ndarray:
    """Draws ``x = mean + R e`` with ``e ~ N(0, I)`` and ``R R^T = cov``; shape (n_samples, D).

    ``cov`` is a symmetric positive semi-definite (D, D) matrix (``covariance_type="full"``) or
    the (D,) vector of variances of a diagonal covariance (``"diag"``), where R = diag(sqrt(cov)).
    """
    check_choice(covariance_type, "covariance_type", ("full", "diag"))
    mean = as_float_array(mean, "mean", ndim=1)
    n_samples = as_positive_int(n_samples, "n_samples")
    rng = as_rng(rng)
    D = mean.shape[0]
    e = rng.standard_normal((n_samples, D))
    if covariance_type == "diag":
        variances = as_float_array(cov, "cov", ndim=1)
        if variances.shape != (D,):
            raise ValueError(f"cov: expected {D} variances to match mean, got shape "
                             f"{variances.shape}")
        if np.any(variances < 0):
            raise ValueError(f"cov: variances must be >= 0, got min {variances.min():.3g}")
        return mean + e * np.sqrt(variances)
    cov = as_square_matrix(cov, "cov", D)
    check_symmetric(cov, "cov")
    return mean + e @ _sampling_root(cov).T
