"""Log-densities behind EM (:mod:`course_lib.gmm`): of the frames under every component, and of
the covariances under the prior.

:func:`log_joint` gives log pi_k + log N(x_n | mu_k, Sigma_k) for every frame and component,
the input of the E-step's log-sum-exp. Numerics: every Mahalanobis term is evaluated after
shifting the frames and the means by a common reference point (the mixture mean), so data far
from the origin (a common offset of 1e8) loses no precision to cancellation; full covariances
are whitened through triangular inverses of their Cholesky factors, all components in one
matrix product, in blocks of frames that stay in cache.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky
from scipy.linalg.lapack import dtrtri

from .gaussian import LOG_2PI
from .gmm_params import CovariancePrior, GMMParams

__all__ = []


def _whitening(params: GMMParams) -> np.ndarray:
    """W_k = L_k^{-1} with Sigma_k = L_k L_k^T, from triangular solves; (K, D, D)."""
    K, D = params.means.shape
    W = np.empty((K, D, D))
    for k in range(K):
        L = cholesky(params.covariances[k], lower=True, check_finite=False)
        # LAPACK's triangular inverse: far cheaper than solving against I for small D
        W[k], _ = dtrtri(L, lower=1)
    return W


def log_joint(X: np.ndarray, params: GMMParams) -> np.ndarray:
    """log pi_k + log N(x_n | mu_k, Sigma_k), shape (N, K).

    Frames and means are first shifted by the mixture mean m = sum_k pi_k mu_k (Mahalanobis
    terms do not change), so the expansions below do not cancel for data far from the origin.
    Diag: sum_d (x_d - mu_d)^2 / s_d expanded into one matrix product.
    Full: z = W_k (x - mu_k) with W_k = L_k^{-1}, so (x - mu)^T Sigma^{-1} (x - mu) = ||z||^2 and
    log|Sigma_k| = -2 sum_d log W_k,dd. All components are whitened with one matrix product.
    """
    with np.errstate(over="ignore", invalid="ignore"):   # absurd inputs: refused by gmm._posteriors
        return _log_joint_unguarded(X, params)


def _log_joint_unguarded(X, params):
    N, D = X.shape
    K = params.n_components
    reference = params.weights @ params.means
    X = X - reference
    means = params.means - reference
    if params.covariance_type == "diag":
        precision = 1.0 / params.covariances                       # (K, D)
        maha = ((X * X) @ precision.T - 2.0 * X @ (means * precision).T
                + np.sum(means ** 2 * precision, axis=1))
        np.maximum(maha, 0.0, out=maha)
        log_det = np.sum(np.log(params.covariances), axis=1)
    else:
        W = _whitening(params)
        W_all = W.transpose(2, 0, 1).reshape(D, K * D)             # columns: rows of each W_k
        shift = np.einsum("kij,kj->ki", W, means).reshape(K * D)
        maha = np.empty((N, K))
        step = max(1, 2 ** 17 // (K * D))                          # ~1 MB blocks stay in cache
        for start in range(0, N, step):
            z = X[start:start + step] @ W_all
            z -= shift
            z *= z
            maha[start:start + step] = z.reshape(-1, K, D).sum(axis=2)
        log_det = -2.0 * np.sum(np.log(np.diagonal(W, axis1=1, axis2=2)), axis=1)
    return np.log(params.weights) - 0.5 * (D * LOG_2PI + log_det + maha)


def _log_prior(params: GMMParams, prior: CovariancePrior | None, data_var) -> float:
    """sum_k log p(Sigma_k) = -tau/2 sum_k [log|Sigma_k| + tr(Psi Sigma_k^{-1})] (+ const).

    0 without a prior. ``data_var`` (D,) is the data variance, the default Psi.
    """
    if prior is None:
        return 0.0
    psi = prior.psi(params.covariance_type, np.asarray(data_var, dtype=float))
    if params.covariance_type == "diag":
        var = params.covariances
        return float(-0.5 * prior.strength * np.sum(np.log(var) + psi / var))
    W = _whitening(params)
    log_det = -2.0 * np.sum(np.log(np.diagonal(W, axis1=1, axis2=2)), axis=1)
    trace = np.einsum("kij,jl,kil->k", W, psi, W)                  # tr(W Psi W^T)
    return float(-0.5 * prior.strength * np.sum(log_det + trace))
