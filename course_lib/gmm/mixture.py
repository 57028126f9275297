"""What a Gaussian mixture is (Unit 2): its parameters, its log densities, sampling from it.

The parameters (:class:`GMMParams`), the covariance prior of the MAP M-step
(:class:`CovariancePrior`), the warning issued when EM repairs a collapsed component
(:class:`ComponentCollapseWarning`), ancestral sampling from a mixture (:func:`sample_gmm`) and
the demo mixture of the explorers (:func:`demo_mixture`). :func:`_check_params` is the argument
check of every entry point that takes a mixture (it runs once per call, at the border, with a
message that names the argument), so the EM core of :mod:`course_lib.gmm.em` works on arrays
already checked.

Log densities behind EM: of the frames under every component, and of the covariances under the
prior (:func:`_log_prior`). :func:`log_joint` gives log pi_k + log N(x_n | mu_k, Sigma_k) for
every frame and component, the input of the E-step's log-sum-exp. Numerics: every Mahalanobis
term is evaluated after shifting the frames and the means by a common reference point (the
mixture mean), so data far from the origin (a common offset of 1e8) loses no precision to
cancellation; full covariances are whitened through triangular inverses of their Cholesky
factors, all components in one matrix product, in blocks of frames that stay in cache.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass
from scipy.linalg import cholesky
from scipy.linalg.lapack import dtrtri

from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_choice)
from .gaussian import LOG_2PI, _COVARIANCE_TYPES, as_covariance


__all__ = ["ComponentCollapseWarning", "CovariancePrior", "GMMParams", "sample_gmm", "demo_mixture"]


class ComponentCollapseWarning(UserWarning):
    """A mixture component collapsed (singular covariance or no frames) and was repaired."""


@dataclass(frozen=True)
class CovariancePrior:
    """Conjugate prior on each component covariance for the MAP M-step.

    strength : tau > 0, the prior's weight in pseudo-frames.
    scale : Psi, the prior guess of a component covariance: a scalar (Psi = s I), a (D,)
        vector of variances, or a (D, D) matrix (full covariances only). ``None`` uses the
        diagonal of the data variance, diag(var(X)).

    M-step: Sigma_k = (N_k S_k + tau Psi) / (N_k + tau)  (see :mod:`course_lib.gmm.em`).
    """

    strength: float
    scale: float | np.ndarray | None = None

    def __post_init__(self):
        as_positive_float(self.strength, "prior.strength")

    def psi(self, covariance_type: str, data_var: np.ndarray) -> np.ndarray:
        """Psi as (D, D) for full or (D,) for diag covariances (``data_var``: var(X), (D,))."""
        D = data_var.shape[0]
        scale = data_var if self.scale is None else self.scale
        if np.ndim(scale) == 0:
            scale = np.full(D, as_positive_float(scale, "prior.scale"))
        scale = np.asarray(scale, dtype=float)
        if scale.ndim == 2:
            if covariance_type == "diag":
                raise ValueError("prior.scale: a (D, D) scale needs covariance_type='full'; "
                                 "give D variances for 'diag'")
            return as_covariance(scale, D, "full", name="prior.scale")
        scale = as_covariance(scale, D, "diag", name="prior.scale")
        return np.diag(scale) if covariance_type == "full" else scale


@dataclass(frozen=True, eq=False)
class GMMParams:
    """Parameters of a Gaussian mixture.

    weights : (K,) mixing weights pi_k, positive, summing to one.
    means : (K, D) component means mu_k.
    covariances : (K, D, D) full covariances Sigma_k, or (K, D) variances for "diag".
    covariance_type : "full" or "diag".

    Checked on construction: shapes agree, weights are a distribution, every covariance is
    positive definite (a ``ValueError`` names the offending component otherwise).
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    covariance_type: str = "full"

    def __post_init__(self):
        check_choice(self.covariance_type, "covariance_type", _COVARIANCE_TYPES)
        weights = as_float_array(self.weights, "weights", ndim=1)
        means = as_float_array(self.means, "means", ndim=2)
        K, D = means.shape
        if weights.shape != (K,):
            raise ValueError(f"weights: expected {K} weights (one per row of means), "
                             f"got shape {weights.shape}")
        if np.any(weights <= 0) or abs(weights.sum() - 1.0) > 1e-8:
            raise ValueError(f"weights: must be positive and sum to 1, got sum "
                             f"{weights.sum():.6g}, min {weights.min():.3g}")
        want = (K, D, D) if self.covariance_type == "full" else (K, D)
        covariances = as_float_array(self.covariances, "covariances", ndim=len(want))
        if covariances.shape != want:
            raise ValueError(f"covariances: expected shape {want} for K={K}, D={D}, "
                             f"{self.covariance_type!r}, got {covariances.shape}")
        for k in range(K):
            as_covariance(covariances[k], D, self.covariance_type, name=f"covariances[{k}]")
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "means", means)
        object.__setattr__(self, "covariances", covariances)

    @classmethod
    def _trusted(cls, weights, means, covariances, covariance_type) -> "GMMParams":
        """Build without the checks, for the M-step, whose floors guarantee them (the checks
        cost more than the EM step itself for small models)."""
        params = object.__new__(cls)
        for name, value in (("weights", weights), ("means", means),
                            ("covariances", covariances), ("covariance_type", covariance_type)):
            object.__setattr__(params, name, value)
        return params

    @property
    def n_components(self) -> int:
        return self.means.shape[0]

    @property
    def n_features(self) -> int:
        return self.means.shape[1]

    def full_covariances(self) -> np.ndarray:
        """(K, D, D) covariances (diagonal ones expanded to matrices)."""
        if self.covariance_type == "full":
            return self.covariances
        return np.stack([np.diag(v) for v in self.covariances])


# ----------------------------------------------------------------------------- sampling

def sample_gmm(params: GMMParams, n_samples: int, *,
               rng: RngLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Ancestral sampling: z_n ~ Categorical(pi), x_n ~ N(mu_{z_n}, Sigma_{z_n}).

    Returns the samples (n, D) and their component labels z (n,).
    """
    params = _check_params(params)
    n_samples = as_positive_int(n_samples, "n_samples")
    rng = as_rng(rng)
    z = rng.choice(params.n_components, size=n_samples, p=params.weights)
    e = rng.standard_normal((n_samples, params.n_features))
    if params.covariance_type == "diag":
        x = params.means[z] + e * np.sqrt(params.covariances[z])
    else:
        L = np.stack([cholesky(S, lower=True) for S in params.covariances])
        x = params.means[z] + np.einsum("nij,nj->ni", L[z], e)
    return x, z


def demo_mixture() -> GMMParams:
    """The 2-D three-component mixture behind Unit 2's explorers and toy figures.

    Three overlapping clouds (one tilted up, one stretched vertically, one flat and tilted
    down), so that EM and k-means have something to untangle:
    ``sample_gmm(demo_mixture(), 300, rng=0)`` gives the points and their hidden labels.
    """
    return GMMParams(np.array([0.4, 0.35, 0.25]),
                     np.array([[0.0, 0.0], [3.5, 1.0], [1.0, 3.5]]),
                     np.array([[[1.0, 0.6], [0.6, 1.0]], [[0.4, 0.0], [0.0, 1.2]],
                               [[0.9, -0.3], [-0.3, 0.3]]]), "full")


# ----------------------------------------------------------------------------- argument checks

def _check_params(params) -> GMMParams:
    if not isinstance(params, GMMParams):
        raise TypeError(f"params: expected GMMParams, got {type(params).__name__}")
    return params


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
    Lecture 02, section 6 (The credit-assignment problem: responsibilities).
    """
    with np.errstate(over="ignore", invalid="ignore"):   # absurd inputs: refused by course_lib.gmm.em._posteriors
        return _log_joint_trusted(X, params)


def _log_joint_trusted(X, params):
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
