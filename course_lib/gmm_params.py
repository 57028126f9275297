"""What a Gaussian mixture is, and what the entry points of :mod:`course_lib.gmm` accept.

The parameters (:class:`GMMParams`), the covariance prior of the MAP M-step
(:class:`CovariancePrior`), the results of EM (:class:`EMState`, :class:`GMMResult`), ancestral
sampling from a mixture and the demo mixture of the explorers. The ``check_*`` functions are
the argument checks of the public entry points (each runs once per call, at the border, with a
message that names the argument), so the EM core works on arrays already checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cholesky

from .gaussian import _COVARIANCE_TYPES, _as_covariance
from .kmeans import _check_spread, _count_distinct_rows
from .validation import (RngLike, _as_float_array, _as_positive_float, _as_positive_int, _as_rng,
                         _check_choice)

__all__ = ["ComponentCollapseWarning", "CovariancePrior", "GMMParams", "GMMResult", "EMState",
           "sample_gmm", "demo_mixture"]


class ComponentCollapseWarning(UserWarning):
    """A mixture component collapsed (singular covariance or no frames) and was repaired."""


@dataclass(frozen=True)
class CovariancePrior:
    """Conjugate prior on each component covariance for the MAP M-step.

    strength : tau > 0, the prior's weight in pseudo-frames.
    scale : Psi, the prior guess of a component covariance: a scalar (Psi = s I), a (D,)
        vector of variances, or a (D, D) matrix (full covariances only). ``None`` uses the
        diagonal of the data variance, diag(var(X)).

    M-step: Sigma_k = (N_k S_k + tau Psi) / (N_k + tau)  (see :mod:`course_lib.gmm`).
    """

    strength: float
    scale: float | np.ndarray | None = None

    def __post_init__(self):
        _as_positive_float(self.strength, "prior.strength")

    def psi(self, covariance_type: str, data_var: np.ndarray) -> np.ndarray:
        """Psi as (D, D) for full or (D,) for diag covariances (``data_var``: var(X), (D,))."""
        D = data_var.shape[0]
        scale = data_var if self.scale is None else self.scale
        if np.ndim(scale) == 0:
            scale = np.full(D, _as_positive_float(scale, "prior.scale"))
        scale = np.asarray(scale, dtype=float)
        if scale.ndim == 2:
            if covariance_type == "diag":
                raise ValueError("prior.scale: a (D, D) scale needs covariance_type='full'; "
                                 "give D variances for 'diag'")
            return _as_covariance(scale, D, "full", name="prior.scale")
        scale = _as_covariance(scale, D, "diag", name="prior.scale")
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
        _check_choice(self.covariance_type, "covariance_type", _COVARIANCE_TYPES)
        weights = _as_float_array(self.weights, "weights", ndim=1)
        means = _as_float_array(self.means, "means", ndim=2)
        K, D = means.shape
        if weights.shape != (K,):
            raise ValueError(f"weights: expected {K} weights (one per row of means), "
                             f"got shape {weights.shape}")
        if np.any(weights <= 0) or abs(weights.sum() - 1.0) > 1e-8:
            raise ValueError(f"weights: must be positive and sum to 1, got sum "
                             f"{weights.sum():.6g}, min {weights.min():.3g}")
        want = (K, D, D) if self.covariance_type == "full" else (K, D)
        covariances = _as_float_array(self.covariances, "covariances", ndim=len(want))
        if covariances.shape != want:
            raise ValueError(f"covariances: expected shape {want} for K={K}, D={D}, "
                             f"{self.covariance_type!r}, got {covariances.shape}")
        for k in range(K):
            _as_covariance(covariances[k], D, self.covariance_type, name=f"covariances[{k}]")
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
    """The outcome of :func:`course_lib.gmm_training.fit_gmm` (the best restart).

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


@dataclass(frozen=True, eq=False)
class EMState:
    """One state of EM, as :func:`course_lib.gmm.em_steps` yields it.

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


# ----------------------------------------------------------------------------- sampling

def sample_gmm(params: GMMParams, n_samples: int, *,
               rng: RngLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Ancestral sampling: z_n ~ Categorical(pi), x_n ~ N(mu_{z_n}, Sigma_{z_n}).

    Returns the samples (n, D) and their component labels z (n,).
    """
    params = _check_params(params)
    n_samples = _as_positive_int(n_samples, "n_samples")
    rng = _as_rng(rng)
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


def _check_frames(X, params: GMMParams) -> np.ndarray:
    X = _as_float_array(X, "X", ndim=2)
    if X.shape[1] != params.n_features:
        raise ValueError(f"X: expected {params.n_features} columns (the model's dimension), "
                         f"got shape {X.shape}")
    return X


def _as_floor(variance_floor, D: int) -> np.ndarray:
    if np.ndim(variance_floor) == 0:
        floor = _as_positive_float(variance_floor, "variance_floor", allow_zero=True)
        return np.full(D, floor)
    floor = _as_float_array(variance_floor, "variance_floor", ndim=1)
    if floor.shape != (D,) or np.any(floor < 0):
        raise ValueError(f"variance_floor: expected a scalar or {D} values >= 0, "
                         f"got shape {floor.shape}")
    return floor


def _check_regularisers(D, variance_floor, prior, ridge):
    floor = _as_floor(variance_floor, D)
    if prior is not None and not isinstance(prior, CovariancePrior):
        raise TypeError(f"prior: expected a CovariancePrior or None, got {type(prior).__name__}")
    ridge = _as_positive_float(ridge, "ridge", allow_zero=True)
    return floor, ridge


def _check_training_data(X):
    """Checks shared by fit_gmm and initialise_gmm; returns X and its per-dimension variance."""
    X = _as_float_array(X, "X", ndim=2)
    N, D = X.shape
    if N <= D:
        raise ValueError(f"X: need more frames than dimensions to fit covariances "
                         f"(N = {N} <= D = {D})")
    _check_spread(X)
    data_var = X.var(axis=0)
    if np.any(data_var <= 0):
        raise ValueError(f"X: dimension(s) {np.flatnonzero(data_var <= 0).tolist()} are "
                         f"constant; drop them or add noise")
    return X, data_var


def _check_distinct(X, K):
    distinct = _count_distinct_rows(X)
    if K > distinct:
        raise ValueError(f"n_components: {K} components but X has only {distinct} distinct "
                         f"frames")
