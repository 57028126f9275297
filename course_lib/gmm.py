"""Gaussian mixture models trained by EM, with regularisation, restarts and model selection.

Rows of ``X`` are frames x_n (N, D). A mixture of K components has

    p(x) = sum_k pi_k N(x | mu_k, Sigma_k),    pi_k > 0,  sum_k pi_k = 1,

with full (K, D, D) covariances or diagonal ones stored as (K, D) variances.

EM alternates
  E-step  gamma_nk = pi_k N(x_n | mu_k, Sigma_k) / sum_l pi_l N(x_n | mu_l, Sigma_l)
          computed in log space with log-sum-exp, and the log-likelihood
          l = sum_n log sum_k pi_k N(x_n | mu_k, Sigma_k);
  M-step  N_k = sum_n gamma_nk,  pi_k = N_k / N,  mu_k = 1/N_k sum_n gamma_nk x_n,
          S_k = 1/N_k sum_n gamma_nk (x_n - mu_k)(x_n - mu_k)^T,
          followed by the regularisers below (Sigma_k = S_k without them).

Regularisers of the covariance, applied in this order in every M-step:
  * ``prior`` (MAP): a conjugate inverse-Wishart prior with scale tau*Psi and tau - D - 1
    degrees of freedom on each Sigma_k (an inverse-gamma prior per variance for "diag"), so the
    M-step maximises  Q + sum_k log p(Sigma_k)  with
        log p(Sigma_k) = -tau/2 [ log|Sigma_k| + tr(Psi Sigma_k^{-1}) ] + const,
    whose maximiser is the shrinkage  Sigma_k = (N_k S_k + tau Psi) / (N_k + tau):
    tau acts as a number of pseudo-frames with covariance Psi.
  * ``ridge`` r: Sigma_k += r I. This is scikit-learn's ``reg_covar`` (kept so the two can be
    compared exactly); it does not maximise a fixed objective.
  * ``variance_floor`` f (a scalar or one value per dimension, F = diag(f)): the constrained
    M-step  max Q  subject to  Sigma_k >= F  (in the positive semi-definite order). For "diag"
    this is sigma2_kd = max(sigma2_kd, f_d); for "full" it clips the eigenvalues of
    F^{-1/2} Sigma_k F^{-1/2} from below at 1. Every variance, in every direction, is then at
    least the floor, the likelihood is bounded, and EM still never lowers its objective.

The objective EM increases is the log-likelihood, plus sum_k log p(Sigma_k) with a prior;
:class:`GMMResult` records both traces.

One steppable loop: :func:`em_steps` yields the state after every iteration (E-step of the
start, then M-step + E-step); :func:`fit_gmm` and the lecture's EM explorer both drive it.

Choosing K: on held-out data (:func:`select_n_components`, :func:`grow_by_splitting`) or by the
complexity penalty of the Bayesian information criterion, BIC = -2 l(theta) + p ln N with p free
parameters (:func:`n_parameters`, :func:`bic`).

Numerics: the E-step evaluates every Mahalanobis term after shifting the frames and the means
by a common reference point (the mixture mean), so data far from the origin (a common offset of
1e8) loses no precision to cancellation.

A collapsing component (its covariance numerically singular, or N_k ~ 0) is never left to
produce NaN: a singular covariance is floored at ``COLLAPSE_FLOOR`` times the data variance and
a component with no frames is re-seeded on the worst-explained frame; either way a
:class:`ComponentCollapseWarning` is issued, and the log-likelihood may drop at that step.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cholesky, eigh
from scipy.linalg.lapack import dtrtri

from .gaussian import COVARIANCE_TYPES, LOG_2PI, as_covariance
from .kmeans import check_spread, count_distinct_rows, kmeans
from .validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                         check_choice)

__all__ = [
    "ComponentCollapseWarning", "CovariancePrior", "GMMParams", "GMMResult", "EMState",
    "e_step", "m_step", "initialise_gmm", "em_steps", "fit_gmm", "score_samples",
    "average_log_likelihood", "predict_proba", "predict", "sample_gmm", "log_prior",
    "demo_mixture", "n_parameters", "bic",
    "ModelSelection", "select_n_components", "split_components", "SplitStep",
    "SplitHistory", "grow_by_splitting",
]

#: A component whose smallest conditional variance falls below this fraction of the data
#: variance (or whose covariance is not positive definite) counts as collapsed ...
COLLAPSE_RATIO = 1e-10
#: ... and is then floored at this fraction of the data variance.
COLLAPSE_FLOOR = 1e-6
#: A component with fewer than this many (soft) frames has no data and is re-seeded.
MIN_FRAMES = 1e-8


class ComponentCollapseWarning(UserWarning):
    """A mixture component collapsed (singular covariance or no frames) and was repaired."""


@dataclass(frozen=True)
class CovariancePrior:
    """Conjugate prior on each component covariance for the MAP M-step.

    strength : tau > 0, the prior's weight in pseudo-frames.
    scale : Psi, the prior guess of a component covariance: a scalar (Psi = s I), a (D,)
        vector of variances, or a (D, D) matrix (full covariances only). ``None`` uses the
        diagonal of the data variance, diag(var(X)).

    M-step: Sigma_k = (N_k S_k + tau Psi) / (N_k + tau)  (see the module docstring).
    """

    strength: float
    scale: float | np.ndarray | None = None

    def __post_init__(self):
        as_positive_float(self.strength, "prior.strength")


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
        check_choice(self.covariance_type, "covariance_type", COVARIANCE_TYPES)
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
    def _unchecked(cls, weights, means, covariances, covariance_type) -> "GMMParams":
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


@dataclass(frozen=True, eq=False)
class GMMResult:
    """The outcome of :func:`fit_gmm` (the best restart).

    params : the fitted :class:`GMMParams`.
    responsibilities : (N, K) gamma_nk under ``params``.
    log_likelihood_trace : (n_iter + 1,) l(theta_0), ..., l(theta_T), the total training
        log-likelihood of the initial parameters and after every M-step.
    objective_trace : same with sum_k log p(Sigma_k) added (equal without a prior); EM never
        lowers it, except at a step that repaired a collapsed component.
    n_iter : number of EM iterations (M-steps) run.
    converged : whether the objective gained less than ``tol`` per frame before ``max_iter``.
    restart_objectives : final objective of each restart (the best one is kept).
    """

    params: GMMParams
    responsibilities: np.ndarray
    log_likelihood_trace: np.ndarray
    objective_trace: np.ndarray
    n_iter: int
    converged: bool
    restart_objectives: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def log_likelihood(self) -> float:
        """Total training log-likelihood of ``params``."""
        return float(self.log_likelihood_trace[-1])


# ----------------------------------------------------------------------------- E-step

def _whitening(params: GMMParams) -> np.ndarray:
    """W_k = L_k^{-1} with Sigma_k = L_k L_k^T, from triangular solves; (K, D, D)."""
    K, D = params.means.shape
    W = np.empty((K, D, D))
    for k in range(K):
        L = cholesky(params.covariances[k], lower=True, check_finite=False)
        # LAPACK's triangular inverse: far cheaper than solving against I for small D
        W[k], _ = dtrtri(L, lower=1)
    return W


def _log_joint(X: np.ndarray, params: GMMParams) -> np.ndarray:
    """log pi_k + log N(x_n | mu_k, Sigma_k), shape (N, K).

    Frames and means are first shifted by the mixture mean m = sum_k pi_k mu_k (Mahalanobis
    terms do not change), so the expansions below do not cancel for data far from the origin.
    Diag: sum_d (x_d - mu_d)^2 / s_d expanded into one matrix product.
    Full: z = W_k (x - mu_k) with W_k = L_k^{-1}, so (x - mu)^T Sigma^{-1} (x - mu) = ||z||^2 and
    log|Sigma_k| = -2 sum_d log W_k,dd. All components are whitened with one matrix product.
    """
    with np.errstate(over="ignore", invalid="ignore"):   # absurd inputs: caught by _posteriors
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


def _posteriors(log_joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gamma (N, K) and log p(x_n) (N,) from log joint, by log-sum-exp over components."""
    peak = log_joint.max(axis=1, keepdims=True)
    if not np.all(np.isfinite(peak)):
        n = int(np.flatnonzero(~np.isfinite(peak[:, 0]))[0])
        raise ValueError(f"X: frame {n} is so far from every component that its log-density "
                         f"is not representable (-inf); rescale the data or the model")
    gamma = np.exp(log_joint - peak)
    total = gamma.sum(axis=1, keepdims=True)
    gamma /= total
    return gamma, (peak + np.log(total))[:, 0]


def _check_X(X, params: GMMParams) -> np.ndarray:
    X = as_float_array(X, "X", ndim=2)
    if X.shape[1] != params.n_features:
        raise ValueError(f"X: expected {params.n_features} columns (the model's dimension), "
                         f"got shape {X.shape}")
    return X


def _check_params(params) -> GMMParams:
    if not isinstance(params, GMMParams):
        raise TypeError(f"params: expected GMMParams, got {type(params).__name__}")
    return params


def e_step(X, params: GMMParams) -> tuple[np.ndarray, float]:
    """E-step: responsibilities gamma_nk (N, K) and the total log-likelihood l.

        log gamma_nk = log pi_k + log N(x_n | mu_k, Sigma_k) - log p(x_n),
        log p(x_n) = logsumexp_k [log pi_k + log N(x_n | mu_k, Sigma_k)],   l = sum_n log p(x_n).

    Working in log space keeps gamma exact when every density underflows (13-dim MFCCs).
    """
    params = _check_params(params)
    gamma, log_px = _posteriors(_log_joint(_check_X(X, params), params))
    return gamma, float(log_px.sum())


# ----------------------------------------------------------------------------- M-step

def _as_floor(variance_floor, D: int) -> np.ndarray:
    if np.ndim(variance_floor) == 0:
        floor = as_positive_float(variance_floor, "variance_floor", allow_zero=True)
        return np.full(D, floor)
    floor = as_float_array(variance_floor, "variance_floor", ndim=1)
    if floor.shape != (D,) or np.any(floor < 0):
        raise ValueError(f"variance_floor: expected a scalar or {D} values >= 0, "
                         f"got shape {floor.shape}")
    return floor


def _prior_scale(prior: CovariancePrior, covariance_type: str, data_var: np.ndarray):
    """Psi as (D, D) for full or (D,) for diag covariances."""
    D = data_var.shape[0]
    scale = data_var if prior.scale is None else prior.scale
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


def _apply_floor_full(Sigma: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """argmax of Q over Sigma >= F: clip eigenvalues of F^{-1/2} Sigma F^{-1/2} at 1."""
    try:
        cholesky(Sigma - np.diag(floor), lower=True, check_finite=False)
        return Sigma                                              # already above the floor
    except np.linalg.LinAlgError:
        pass
    root = np.sqrt(floor)
    lam, U = eigh(Sigma / np.outer(root, root), check_finite=False)
    clipped = (U * np.maximum(lam, 1.0)) @ U.T
    clipped = 0.5 * (clipped + clipped.T)
    return clipped * np.outer(root, root)


def _is_collapsed(Sigma: np.ndarray, data_var: np.ndarray, covariance_type: str) -> bool:
    if covariance_type == "diag":
        return bool(np.any(Sigma < COLLAPSE_RATIO * data_var))
    try:
        L = cholesky(Sigma, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return True
    return bool(np.any(np.diag(L) ** 2 < COLLAPSE_RATIO * data_var))


def _m_step(X, gamma, covariance_type, floor, prior, ridge, data_var):
    """The M-step as the module docstring lists it: the maximum-likelihood step, the
    regularisers in their order, then the collapse repair. Returns params and the number of
    repaired components."""
    Nk, means, covariances, empty = _maximum_likelihood(X, gamma, covariance_type, data_var)
    weights = Nk / Nk.sum()  # Bishop (2006) eq. 9.26
    if prior is not None:
        covariances = _shrink_to_prior(covariances, Nk, prior,
                                       _prior_scale(prior, covariance_type, data_var))
    if ridge:
        eye = np.eye(X.shape[1]) if covariance_type == "full" else 1.0
        covariances = covariances + ridge * eye
    if np.any(floor > 0):
        covariances = np.array([_floor(S, floor, covariance_type) for S in covariances])
    repaired = int(empty.sum()) + _repair_collapsed(covariances, floor, data_var,
                                                    covariance_type)
    return GMMParams._unchecked(weights, means, covariances, covariance_type), repaired


def _maximum_likelihood(X, gamma, covariance_type, data_var):
    """The maximum-likelihood step, Bishop (2006) eqs. 9.24-9.27: N_k, mu_k and S_k (the
    caller takes pi_k = N_k / N, eq. 9.26).

    A component with no frames (N_k below ``MIN_FRAMES``) has no estimate (0 / 0): it is
    re-seeded on the frame worst explained by its most responsible component, with N_k = 1 and
    the data's covariance. Returns N_k, the means, the covariances and the re-seeded mask.
    """
    K = gamma.shape[1]
    Nk = gamma.sum(axis=0)
    empty = Nk < MIN_FRAMES
    Nk = np.where(empty, 1.0, Nk)
    # sums over frames centred at their mean: exact also for data far from the origin
    centre = X.mean(axis=0)
    centred = X - centre
    means = centre + (gamma.T @ centred) / Nk[:, None]
    if empty.any():
        distance = np.sum((X - means[np.argmax(gamma, axis=1)]) ** 2, axis=1)
        means[empty] = X[np.argsort(distance)[::-1][:int(empty.sum())]]
    if covariance_type == "diag":
        # all K at once: E_gamma[(x - m)^2] - (mu_k - m)^2 on the centred frames
        covariances = (gamma.T @ (centred * centred)) / Nk[:, None] - (means - centre) ** 2
        np.maximum(covariances, 0.0, out=covariances)
        covariances[empty] = data_var
        return Nk, means, covariances, empty
    covariances = np.empty((K, X.shape[1], X.shape[1]))
    for k in range(K):
        if empty[k]:
            covariances[k] = np.diag(data_var)
        else:
            # (x - mu)^T diag(gamma) (x - mu) as d^T d with d = sqrt(gamma) (x - mu): a SYRK
            d = (X - means[k]) * np.sqrt(gamma[:, k])[:, None]
            covariances[k] = (d.T @ d) / Nk[k]
    return Nk, means, covariances, empty


def _shrink_to_prior(covariances, Nk, prior, psi):
    """MAP: Sigma_k = (N_k S_k + tau Psi) / (N_k + tau) for every k (module docstring)."""
    n = Nk.reshape((-1,) + (1,) * (covariances.ndim - 1))
    return (n * covariances + prior.strength * psi) / (n + prior.strength)


def _repair_collapsed(covariances, floor, data_var, covariance_type) -> int:
    """Floor every collapsed covariance (in place) at ``COLLAPSE_FLOOR`` times the data
    variance (or the variance floor, if higher); returns how many there were."""
    collapse_floor = np.maximum(floor, COLLAPSE_FLOOR * data_var)
    repaired = 0
    for k in range(covariances.shape[0]):
        if _is_collapsed(covariances[k], data_var, covariance_type):
            covariances[k] = _floor(covariances[k], collapse_floor, covariance_type)
            repaired += 1
    return repaired


def _floor(S, floor, covariance_type):
    if covariance_type == "diag":
        return np.maximum(S, floor)
    if np.any(floor == 0) and np.any(floor > 0):
        # Sigma >= F is solved in the F^{-1/2}-whitened space, which needs every entry > 0
        raise ValueError(f"variance_floor: with full covariances every entry must be > 0 (or "
                         f"all 0 for no floor); dimension(s) {np.flatnonzero(floor == 0).tolist()}"
                         f" are 0")
    return _apply_floor_full(S, floor)


def _warn_repaired(repaired: int) -> None:
    if repaired:
        warnings.warn(f"{repaired} mixture component(s) collapsed (singular covariance or no "
                      f"frames) and were floored or re-seeded; consider a variance_floor, a "
                      f"prior or fewer components", ComponentCollapseWarning, stacklevel=3)


def _check_regularisers(D, variance_floor, prior, ridge):
    floor = _as_floor(variance_floor, D)
    if prior is not None and not isinstance(prior, CovariancePrior):
        raise TypeError(f"prior: expected a CovariancePrior or None, got {type(prior).__name__}")
    ridge = as_positive_float(ridge, "ridge", allow_zero=True)
    return floor, ridge


def m_step(X, responsibilities, covariance_type: str = "full", *, variance_floor=0.0,
           prior: CovariancePrior | None = None, ridge: float = 0.0) -> GMMParams:
    """M-step: new parameters from responsibilities gamma (N, K).

        N_k = sum_n gamma_nk,  pi_k = N_k / N,  mu_k = sum_n gamma_nk x_n / N_k,
        S_k = sum_n gamma_nk (x_n - mu_k)(x_n - mu_k)^T / N_k   (diagonal only for "diag"),

    then, in order, the MAP shrinkage Sigma_k = (N_k S_k + tau Psi)/(N_k + tau) if ``prior``,
    Sigma_k += ridge I (scikit-learn's reg_covar), and the variance floor Sigma_k >= diag(f)
    (see the module docstring). A collapsed component is repaired with a
    :class:`ComponentCollapseWarning`.
    """
    check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    X = as_float_array(X, "X", ndim=2)
    gamma = as_float_array(responsibilities, "responsibilities", ndim=2)
    if gamma.shape[0] != X.shape[0]:
        raise ValueError(f"responsibilities: expected {X.shape[0]} rows like X, "
                         f"got shape {gamma.shape}")
    if np.any(gamma < 0) or not np.allclose(gamma.sum(axis=1), 1.0, atol=1e-8):
        raise ValueError("responsibilities: each row must be non-negative and sum to 1")
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    params, repaired = _m_step(X, gamma, covariance_type, floor, prior, ridge,
                               X.var(axis=0))
    _warn_repaired(repaired)
    return params


def log_prior(params: GMMParams, prior: CovariancePrior | None, data_var) -> float:
    """sum_k log p(Sigma_k) = -tau/2 sum_k [log|Sigma_k| + tr(Psi Sigma_k^{-1})] (+ const).

    0 without a prior. ``data_var`` (D,) is the data variance, the default Psi.
    """
    if prior is None:
        return 0.0
    psi = _prior_scale(prior, params.covariance_type, np.asarray(data_var, dtype=float))
    if params.covariance_type == "diag":
        var = params.covariances
        return float(-0.5 * prior.strength * np.sum(np.log(var) + psi / var))
    W = _whitening(params)
    log_det = -2.0 * np.sum(np.log(np.diagonal(W, axis1=1, axis2=2)), axis=1)
    trace = np.einsum("kij,jl,kil->k", W, psi, W)                  # tr(W Psi W^T)
    return float(-0.5 * prior.strength * np.sum(log_det + trace))


# ----------------------------------------------------------------------------- EM loop

def _initial_params(X, K, covariance_type, init, rng, floor, prior, ridge, data_var):
    if init == "kmeans":
        labels = kmeans(X, K, init="k-means++", rng=rng).labels
        return _m_step(X, np.eye(K)[labels], covariance_type, floor, prior, ridge, data_var)
    # "random": K distinct frames as means, the data covariance for every component
    distinct = np.unique(X, axis=0)
    means = distinct[rng.choice(distinct.shape[0], K, replace=False)]
    centred = X - X.mean(axis=0)
    S = centred.T @ centred / X.shape[0] if covariance_type == "full" else data_var.copy()
    S = _floor(S, np.maximum(floor, COLLAPSE_FLOOR * data_var), covariance_type)
    return GMMParams(np.full(K, 1.0 / K), means, np.stack([S] * K), covariance_type), 0


def _check_training_data(X):
    """Checks shared by fit_gmm and initialise_gmm; returns X and its per-dimension variance."""
    X = as_float_array(X, "X", ndim=2)
    N, D = X.shape
    if N <= D:
        raise ValueError(f"X: need more frames than dimensions to fit covariances "
                         f"(N = {N} <= D = {D})")
    check_spread(X)
    data_var = X.var(axis=0)
    if np.any(data_var <= 0):
        raise ValueError(f"X: dimension(s) {np.flatnonzero(data_var <= 0).tolist()} are "
                         f"constant; drop them or add noise")
    return X, data_var


def _check_distinct(X, K):
    distinct = count_distinct_rows(X)
    if K > distinct:
        raise ValueError(f"n_components: {K} components but X has only {distinct} distinct "
                         f"frames")


def initialise_gmm(X, n_components: int, *, covariance_type: str = "full", init="kmeans",
                   variance_floor=0.0, prior: CovariancePrior | None = None,
                   ridge: float = 0.0, rng: RngLike = None) -> GMMParams:
    """Starting parameters theta_0 for EM, as :func:`fit_gmm` makes them.

    init="kmeans": k-means++ / k-means, then one M-step from its hard assignments;
    init="random": K distinct random frames as means, the data covariance for every
    component, equal weights (a deliberately rough start, good for watching EM work).
    """
    K = as_positive_int(n_components, "n_components")
    check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    check_choice(init, "init", {"kmeans", "random"})
    X, data_var = _check_training_data(X)
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    _check_distinct(X, K)
    params, repaired = _initial_params(X, K, covariance_type, init, as_rng(rng), floor, prior,
                                       ridge, data_var)
    _warn_repaired(repaired)
    return params


@dataclass(frozen=True, eq=False)
class EMState:
    """One state of EM, as :func:`em_steps` yields it.

    params : theta_t.
    responsibilities : (N, K) gamma_nk under theta_t (the E-step of theta_t).
    log_likelihood : l(theta_t), the total log-likelihood of the frames.
    objective : l(theta_t) + sum_k log p(Sigma_k) (equal to it without a prior).
    n_repaired : components repaired (collapsed or empty) by the M-step that made theta_t.
    """

    params: GMMParams
    responsibilities: np.ndarray
    log_likelihood: float
    objective: float
    n_repaired: int = 0


def _em_steps(X, params, floor, prior, ridge, data_var) -> Iterator[EMState]:
    gamma, log_px = _posteriors(_log_joint(X, params))
    ll = float(log_px.sum())
    state = EMState(params, gamma, ll, ll + log_prior(params, prior, data_var))
    yield state
    while True:
        params, repaired = _m_step(X, state.responsibilities, params.covariance_type, floor,
                                   prior, ridge, data_var)
        gamma, log_px = _posteriors(_log_joint(X, params))
        ll = float(log_px.sum())
        state = EMState(params, gamma, ll, ll + log_prior(params, prior, data_var), repaired)
        yield state


def em_steps(X, params: GMMParams, *, variance_floor=0.0, prior: CovariancePrior | None = None,
             ridge: float = 0.0) -> Iterator[EMState]:
    """EM one iteration at a time, from ``params`` (theta_0), without end.

    The first :class:`EMState` is the E-step of theta_0; each next one runs the M-step (with the
    regularisers of :func:`m_step`) from the current responsibilities and the E-step of the new
    parameters. The objective never decreases from one state to the next, except at a step
    that repaired a collapsed component (``n_repaired > 0``; no warning is issued here).
    Take as many states as you need (``itertools.islice``); :func:`fit_gmm` adds the stopping
    rule and restarts.
    """
    params = _check_params(params)
    X, data_var = _check_training_data(X)
    if X.shape[1] != params.n_features:
        raise ValueError(f"X: expected {params.n_features} columns (the model's dimension), "
                         f"got shape {X.shape}")
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    return _em_steps(X, params, floor, prior, ridge, data_var)


def _run_em(X, params, max_iter, tol, floor, prior, ridge, data_var, repaired):
    """Drive :func:`_em_steps` until the objective gains < tol per frame or max_iter."""
    N = X.shape[0]
    steps = _em_steps(X, params, floor, prior, ridge, data_var)
    state = next(steps)
    lls, objectives = [state.log_likelihood], [state.objective]
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        state = next(steps)
        repaired += state.n_repaired
        lls.append(state.log_likelihood)
        objectives.append(state.objective)
        if abs(objectives[-1] - objectives[-2]) < tol * N:
            converged = True
            break
    _warn_repaired(repaired)
    return GMMResult(state.params, state.responsibilities, np.array(lls), np.array(objectives),
                     n_iter, converged)


def fit_gmm(X, n_components: int, *, covariance_type: str = "full", init="kmeans",
            n_restarts: int = 1, max_iter: int = 100, tol: float = 1e-4, variance_floor=0.0,
            prior: CovariancePrior | None = None, ridge: float = 0.0,
            rng: RngLike = None) -> GMMResult:
    """Fit a K-component Gaussian mixture to the rows of ``X`` by EM.

    Parameters
    ----------
    X : (N, D) frames; needs N > D and at least K distinct rows.
    n_components : K.
    covariance_type : "full" or "diag".
    init : "kmeans" (k-means++ then k-means; parameters from its hard assignments),
        "random" (K distinct random frames as means, the data covariance for every component,
        equal weights) or a :class:`GMMParams` to start from (then only one run is done).
    n_restarts : total number of runs from different starts; the one with the highest final
        objective is kept.
    max_iter : maximum number of EM iterations per run.
    tol : stop when the objective changes by less than ``tol`` per frame in one iteration
        (``tol=0`` runs all ``max_iter`` iterations).
    variance_floor : f, a scalar or (D,) minimum variance (Sigma_k >= diag(f)).
    prior : a :class:`CovariancePrior` for the MAP M-step, or None (maximum likelihood).
    ridge : added to every covariance's diagonal after each M-step (scikit-learn's reg_covar).
    rng : Generator, int seed or None (initialisation only; EM itself is deterministic).

    Returns
    -------
    :class:`GMMResult` with the parameters, responsibilities, log-likelihood trace,
    objective trace, iteration count and converged flag of the best restart.
    """
    K = as_positive_int(n_components, "n_components")
    check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter", minimum=0)
    tol = as_positive_float(tol, "tol", allow_zero=True)
    X, data_var = _check_training_data(X)
    D = X.shape[1]
    floor, ridge = _check_regularisers(D, variance_floor, prior, ridge)
    rng = as_rng(rng)
    if isinstance(init, GMMParams):
        if init.n_components != K or init.n_features != D or \
                init.covariance_type != covariance_type:
            raise ValueError(f"init: expected GMMParams with K={K}, D={D}, "
                             f"{covariance_type!r}; got K={init.n_components}, "
                             f"D={init.n_features}, {init.covariance_type!r}")
        return _run_em(X, init, max_iter, tol, floor, prior, ridge, data_var, 0)
    check_choice(init, "init", {"kmeans", "random"})
    _check_distinct(X, K)
    best, finals = None, []
    for _ in range(n_restarts):
        start, repaired = _initial_params(X, K, covariance_type, init, rng, floor, prior,
                                          ridge, data_var)
        run = _run_em(X, start, max_iter, tol, floor, prior, ridge, data_var, repaired)
        finals.append(run.objective_trace[-1])
        if best is None or run.objective_trace[-1] > best.objective_trace[-1]:
            best = run
    return GMMResult(best.params, best.responsibilities, best.log_likelihood_trace,
                     best.objective_trace, best.n_iter, best.converged, np.array(finals))


# ----------------------------------------------------------------------------- using a model

def score_samples(X, params: GMMParams) -> np.ndarray:
    """log p(x_n) = logsumexp_k [log pi_k + log N(x_n | mu_k, Sigma_k)] for each row; (N,)."""
    params = _check_params(params)
    return _posteriors(_log_joint(_check_X(X, params), params))[1]


def average_log_likelihood(X, params: GMMParams) -> float:
    """Mean per-frame log-likelihood 1/N sum_n log p(x_n) (comparable across set sizes)."""
    return float(np.mean(score_samples(X, params)))


def predict_proba(X, params: GMMParams) -> np.ndarray:
    """Component posteriors gamma_nk = p(z_n = k | x_n), shape (N, K)."""
    return e_step(X, params)[0]


def predict(X, params: GMMParams) -> np.ndarray:
    """Most probable component argmax_k gamma_nk for each row; (N,)."""
    return np.argmax(predict_proba(X, params), axis=1)


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


# ----------------------------------------------------------------------------- choosing K

def n_parameters(n_components: int, n_features: int, covariance_type: str = "full") -> int:
    """Number of free parameters p of a K-component mixture in D dimensions.

        p = (K - 1) weights + K D means + K D (D + 1) / 2 covariances   ("full")
        p = (K - 1) weights + K D means + K D variances                 ("diag")

    (the weights lose one because they sum to one; a symmetric D x D matrix has D (D + 1) / 2
    free entries).
    """
    K = as_positive_int(n_components, "n_components")
    D = as_positive_int(n_features, "n_features")
    check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    per_covariance = D * (D + 1) // 2 if covariance_type == "full" else D
    return (K - 1) + K * D + K * per_covariance


def bic(X, params: GMMParams) -> float:
    """Bayesian information criterion of a fitted mixture on the frames ``X`` (N, D):

        BIC = -2 l(theta) + p ln N,   l(theta) = sum_n log p(x_n | theta),

    with p = :func:`n_parameters`. Lower is better: the first term rewards fit, the second
    charges ln N per free parameter (a large-N approximation of -2 log p(X | K) that needs no
    held-out data). Same convention as scikit-learn's ``GaussianMixture.bic``.
    """
    params = _check_params(params)
    X = _check_X(X, params)
    log_likelihood = float(_posteriors(_log_joint(X, params))[1].sum())
    p = n_parameters(params.n_components, params.n_features, params.covariance_type)
    return -2.0 * log_likelihood + p * np.log(X.shape[0])


@dataclass(frozen=True, eq=False)
class ModelSelection:
    """Selection of K for each candidate: held-out scores and the BIC of the same fits.

    n_components : (C,) candidates; train_scores, dev_scores : (C,) mean log p(x) per frame;
    models : the fitted parameters; best_index : argmax of dev_scores;
    bic : (C,) :func:`bic` of each model on the training frames (lower is better).
    """

    n_components: np.ndarray
    train_scores: np.ndarray
    dev_scores: np.ndarray
    models: tuple
    best_index: int
    bic: np.ndarray

    @property
    def best(self) -> GMMParams:
        return self.models[self.best_index]

    @property
    def bic_best_index(self) -> int:
        """Index of the candidate with the lowest BIC (no held-out data needed)."""
        return int(np.argmin(self.bic))


def _check_dev(X_dev, D):
    X_dev = as_float_array(X_dev, "X_dev", ndim=2)
    if X_dev.shape[1] != D:
        raise ValueError(f"X_dev: expected {D} columns like X_train, got shape {X_dev.shape}")
    return X_dev


def select_n_components(X_train, X_dev, candidates: Sequence[int], *,
                        rng: RngLike = None, **fit_kwargs) -> ModelSelection:
    """Fit a mixture for each K in ``candidates`` on X_train and score it on X_dev.

    The training score keeps rising with K (in the limit every frame gets its own tiny
    Gaussian), the dev score peaks: choose K = argmax of the dev score. The BIC of each fit on
    the training frames is recorded too, for the complexity-penalty choice argmin BIC.
    ``fit_kwargs`` go to :func:`fit_gmm`; the fits share one ``rng`` stream.
    """
    X_train = as_float_array(X_train, "X_train", ndim=2)
    X_dev = _check_dev(X_dev, X_train.shape[1])
    candidates = np.array([as_positive_int(k, "candidates") for k in candidates], dtype=int)
    if candidates.size == 0:
        raise ValueError("candidates: give at least one number of components")
    rng = as_rng(rng)
    models, train, dev, criterion = [], [], [], []
    for K in candidates:
        params = fit_gmm(X_train, int(K), rng=rng, **fit_kwargs).params
        models.append(params)
        train.append(average_log_likelihood(X_train, params))
        dev.append(average_log_likelihood(X_dev, params))
        criterion.append(bic(X_train, params))
    dev = np.array(dev)
    return ModelSelection(candidates, np.array(train), dev, tuple(models), int(np.argmax(dev)),
                          np.array(criterion))


def split_components(params: GMMParams, perturbation: float = 0.2, *,
                     rng: RngLike = None) -> GMMParams:
    """Split every component into two: mu_k +/- delta_k, halved weights, same covariance.

    delta_k = perturbation * sqrt(diag Sigma_k) * u_k with u_k ~ N(0, I): a small random step
    measured in the component's own standard deviations. Component k becomes 2k and 2k + 1.
    """
    params = _check_params(params)
    perturbation = as_positive_float(perturbation, "perturbation")
    rng = as_rng(rng)
    K, D = params.means.shape
    std = np.sqrt(params.covariances if params.covariance_type == "diag"
                  else np.diagonal(params.covariances, axis1=1, axis2=2))
    delta = perturbation * std * rng.standard_normal((K, D))
    means = np.stack([params.means + delta, params.means - delta], axis=1).reshape(2 * K, D)
    return GMMParams(np.repeat(params.weights / 2, 2), means,
                     np.repeat(params.covariances, 2, axis=0), params.covariance_type)


@dataclass(frozen=True, eq=False)
class SplitStep:
    """One round of :func:`grow_by_splitting`: K, per-frame train/dev scores, the model."""

    n_components: int
    train_score: float
    dev_score: float
    params: GMMParams


@dataclass(frozen=True, eq=False)
class SplitHistory:
    """All rounds of splitting (the last one may be the dev-set drop that stopped it)."""

    steps: tuple
    best_index: int

    @property
    def best(self) -> GMMParams:
        return self.steps[self.best_index].params

    @property
    def n_components(self) -> np.ndarray:
        return np.array([s.n_components for s in self.steps])

    @property
    def dev_scores(self) -> np.ndarray:
        return np.array([s.dev_score for s in self.steps])

    @property
    def train_scores(self) -> np.ndarray:
        return np.array([s.train_score for s in self.steps])


SPLIT_TOL = 1e-6  # per-frame convergence tolerance for EM after a split


def grow_by_splitting(X_train, X_dev, *, max_components: int = 64, perturbation: float = 0.2,
                      rng: RngLike = None, **fit_kwargs) -> SplitHistory:
    """Grow a mixture by splitting, keeping it while the dev set improves.

    Start with one Gaussian and run EM; repeat: split every component in two
    (:func:`split_components`), run EM from there, score the dev set; stop when the dev
    per-frame log-likelihood no longer improves or K would exceed ``max_components`` (or the
    number of distinct training frames). ``fit_kwargs`` (covariance_type, variance_floor,
    prior, ridge, max_iter, tol) go to :func:`fit_gmm`; ``tol`` defaults to ``SPLIT_TOL``.
    """
    X_train = as_float_array(X_train, "X_train", ndim=2)
    X_dev = _check_dev(X_dev, X_train.shape[1])
    max_components = as_positive_int(max_components, "max_components")
    rng = as_rng(rng)
    distinct = count_distinct_rows(X_train)
    # Just after a split the two halves barely differ, so the log-likelihood moves little at
    # first: fit_gmm's default tol would stop EM after one step and splitting would stall.
    fit_kwargs.setdefault("tol", SPLIT_TOL)
    params = fit_gmm(X_train, 1, rng=rng, **fit_kwargs).params
    steps = [SplitStep(1, average_log_likelihood(X_train, params),
                       average_log_likelihood(X_dev, params), params)]
    best = 0
    while 2 * params.n_components <= min(max_components, distinct):
        start = split_components(params, perturbation, rng=rng)
        params = fit_gmm(X_train, start.n_components, init=start, **fit_kwargs).params
        steps.append(SplitStep(params.n_components, average_log_likelihood(X_train, params),
                               average_log_likelihood(X_dev, params), params))
        if steps[-1].dev_score <= steps[best].dev_score:
            break
        best = len(steps) - 1
    return SplitHistory(tuple(steps), best)
