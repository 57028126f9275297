"""Gaussian mixture models trained by EM, with regularisation (Unit 2).

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

One steppable loop: :func:`em_steps` yields the state after every iteration (:class:`EMState`;
the E-step of the start, then M-step + E-step); :func:`fit_gmm` and the lecture's EM explorer
both drive it.

Where EM starts and when it stops are choices beside the algorithm (Bishop 2006, section 9.2.2):

* starting points theta_0 (:func:`initialise_gmm`): k-means++ seeding (Arthur & Vassilvitskii
  2007) then k-means and one M-step from its hard assignments, or K distinct random frames as
  means with the data covariance;
* the stopping rule (the objective gains less than ``tol`` per frame, or ``max_iter``) and
  restarts, keeping the run with the highest final objective (:func:`fit_gmm`).

Both drive the very M-step and EM loop above, so a fit equals stepping :func:`em_steps` by hand
from the same start.

A collapsing component (its covariance numerically singular, or N_k ~ 0) is never left to
produce NaN: a singular covariance is floored at ``_COLLAPSE_FLOOR`` times the data variance and
a component with no frames is re-seeded on the worst-explained frame; either way a
:class:`ComponentCollapseWarning` is issued, and the log-likelihood may drop at that step.

Beside this module: :mod:`course_lib.gmm.mixture` (the parameter types, sampling, the check of a
mixture, and the log densities, computed so that data far from the origin lose no precision)
and :mod:`course_lib.gmm.selection` (choosing K on held-out data or by BIC, growing a mixture by
splitting).
"""

from __future__ import annotations

import warnings
import numpy as np
from collections.abc import Iterator
from dataclasses import dataclass, field
from scipy.linalg import cholesky, eigh

from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_choice)
from .gaussian import _COVARIANCE_TYPES
from .clustering import check_spread, _count_distinct_rows, kmeans_trusted
from .mixture import ComponentCollapseWarning, CovariancePrior, GMMParams, _check_params, _log_prior, log_joint


__all__ = ["GMMResult", "EMState", "e_step", "m_step", "em_steps", "score_samples",
           "average_log_likelihood", "predict_proba", "predict", "initialise_gmm", "fit_gmm"]

#: A component whose smallest conditional variance falls below this fraction of the data
#: variance (or whose covariance is not positive definite) counts as collapsed ...
_COLLAPSE_RATIO = 1e-10
#: ... and is then floored at this fraction of the data variance.
_COLLAPSE_FLOOR = 1e-6
#: A component with fewer than this many (soft) frames has no data and is re-seeded.
_MIN_FRAMES = 1e-8


# ----------------------------------------------------------------------------- E-step

@dataclass(frozen=True, eq=False)
class GMMResult:
    """The outcome of :func:`course_lib.gmm.em.fit_gmm` (the best restart).

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
    """One state of EM, as :func:`course_lib.gmm.em.em_steps` yields it.

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


def _check_frames(X, params: GMMParams) -> np.ndarray:
    X = as_float_array(X, "X", ndim=2)
    if X.shape[1] != params.n_features:
        raise ValueError(f"X: expected {params.n_features} columns (the model's dimension), "
                         f"got shape {X.shape}")
    return X


def _as_floor(variance_floor, D: int) -> np.ndarray:
    if np.ndim(variance_floor) == 0:
        floor = as_positive_float(variance_floor, "variance_floor", allow_zero=True)
        return np.full(D, floor)
    floor = as_float_array(variance_floor, "variance_floor", ndim=1)
    if floor.shape != (D,) or np.any(floor < 0):
        raise ValueError(f"variance_floor: expected a scalar or {D} values >= 0, "
                         f"got shape {floor.shape}")
    return floor


def _check_regularisers(D, variance_floor, prior, ridge):
    floor = _as_floor(variance_floor, D)
    if prior is not None and not isinstance(prior, CovariancePrior):
        raise TypeError(f"prior: expected a CovariancePrior or None, got {type(prior).__name__}")
    ridge = as_positive_float(ridge, "ridge", allow_zero=True)
    return floor, ridge


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
    distinct = _count_distinct_rows(X)
    if K > distinct:
        raise ValueError(f"n_components: {K} components but X has only {distinct} distinct "
                         f"frames")


def _posteriors(log_joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gamma (N, K) and log p(x_n) (N,) from log joint, by log-sum-exp over components.
    Lecture 02, section 6 (The credit-assignment problem: responsibilities)."""
    peak = log_joint.max(axis=1, keepdims=True)
    if not np.all(np.isfinite(peak)):
        n = int(np.flatnonzero(~np.isfinite(peak[:, 0]))[0])
        raise ValueError(f"X: frame {n} is so far from every component that its log-density "
                         f"is not representable (-inf); rescale the data or the model")
    gamma = np.exp(log_joint - peak)
    total = gamma.sum(axis=1, keepdims=True)
    gamma /= total
    return gamma, (peak + np.log(total))[:, 0]


def e_step(X, params: GMMParams) -> tuple[np.ndarray, float]:
    """E-step: responsibilities gamma_nk (N, K) and the total log-likelihood l.

        log gamma_nk = log pi_k + log N(x_n | mu_k, Sigma_k) - log p(x_n),
        log p(x_n) = logsumexp_k [log pi_k + log N(x_n | mu_k, Sigma_k)],   l = sum_n log p(x_n).

    Working in log space keeps gamma exact when every density underflows (13-dim MFCCs).
    """
    params = _check_params(params)
    gamma, log_px = _posteriors(log_joint(_check_frames(X, params), params))
    return gamma, float(log_px.sum())


# ----------------------------------------------------------------------------- M-step

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
        return bool(np.any(Sigma < _COLLAPSE_RATIO * data_var))
    try:
        L = cholesky(Sigma, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return True
    return bool(np.any(np.diag(L) ** 2 < _COLLAPSE_RATIO * data_var))


def m_step_trusted(X, gamma, covariance_type, floor, prior, ridge, data_var):
    """The M-step on checked arrays, as the module docstring lists it: the maximum-likelihood
    step, the regularisers in their order, then the collapse repair. Returns params and the
    number of repaired components.
    Lecture 02, sections 5 (If we knew the labels, learning would be easy) and 10."""
    Nk, means, covariances, empty = _maximum_likelihood(X, gamma, covariance_type, data_var)
    weights = Nk / Nk.sum()  # Bishop (2006) eq. 9.26
    if prior is not None:
        covariances = _shrink_to_prior(covariances, Nk, prior,
                                       prior.psi(covariance_type, data_var))
    if ridge:
        eye = np.eye(X.shape[1]) if covariance_type == "full" else 1.0
        covariances = covariances + ridge * eye
    if np.any(floor > 0):
        covariances = np.array([_floor_covariance(S, floor, covariance_type)
                                for S in covariances])
    repaired = int(empty.sum()) + _repair_collapsed(covariances, floor, data_var,
                                                    covariance_type)
    return GMMParams._trusted(weights, means, covariances, covariance_type), repaired


def _maximum_likelihood(X, gamma, covariance_type, data_var):
    """The maximum-likelihood step, Bishop (2006) eqs. 9.24-9.27: N_k, mu_k and S_k (the
    caller takes pi_k = N_k / N, eq. 9.26).

    A component with no frames (N_k below ``_MIN_FRAMES``) has no estimate (0 / 0): it is
    re-seeded on the frame worst explained by its most responsible component, with N_k = 1 and
    the data's covariance. Returns N_k, the means, the covariances and the re-seeded mask.
    """
    K = gamma.shape[1]
    Nk = gamma.sum(axis=0)
    empty = Nk < _MIN_FRAMES
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
    """Floor every collapsed covariance (in place) at ``_COLLAPSE_FLOOR`` times the data
    variance (or the variance floor, if higher); returns how many there were."""
    collapse_floor = np.maximum(floor, _COLLAPSE_FLOOR * data_var)
    repaired = 0
    for k in range(covariances.shape[0]):
        if _is_collapsed(covariances[k], data_var, covariance_type):
            covariances[k] = _floor_covariance(covariances[k], collapse_floor, covariance_type)
            repaired += 1
    return repaired


def _floor_covariance(S, floor, covariance_type):
    """The variance floor Sigma >= diag(floor) on one covariance (module docstring)."""
    if covariance_type == "diag":
        return np.maximum(S, floor)
    if np.any(floor == 0) and np.any(floor > 0):
        # Sigma >= F is solved in the F^{-1/2}-whitened space, which needs every entry > 0
        raise ValueError(f"variance_floor: with full covariances every entry must be > 0 (or "
                         f"all 0 for no floor); dimension(s) {np.flatnonzero(floor == 0).tolist()}"
                         f" are 0")
    return _apply_floor_full(S, floor)


def _warn_repaired(repaired: int) -> None:
    """One :class:`ComponentCollapseWarning` for the ``repaired`` components, if any."""
    if repaired:
        warnings.warn(f"{repaired} mixture component(s) collapsed (singular covariance or no "
                      f"frames) and were floored or re-seeded; consider a variance_floor, a "
                      f"prior or fewer components", ComponentCollapseWarning, stacklevel=3)


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
    check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    X = as_float_array(X, "X", ndim=2)
    gamma = as_float_array(responsibilities, "responsibilities", ndim=2)
    if gamma.shape[0] != X.shape[0]:
        raise ValueError(f"responsibilities: expected {X.shape[0]} rows like X, "
                         f"got shape {gamma.shape}")
    if np.any(gamma < 0) or not np.allclose(gamma.sum(axis=1), 1.0, atol=1e-8):
        raise ValueError("responsibilities: each row must be non-negative and sum to 1")
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    params, repaired = m_step_trusted(X, gamma, covariance_type, floor, prior, ridge,
                               X.var(axis=0))
    _warn_repaired(repaired)
    return params


# ----------------------------------------------------------------------------- EM loop

def em_steps_trusted(X, params, floor, prior, ridge, data_var) -> Iterator[EMState]:
    """The EM iterations of Bishop (2006) section 9.2.2 on checked arrays: the E-step of
    ``params``, then M-step and E-step, the log-likelihood (eq. 9.28) and objective of each.
    Lecture 02, section 7 (Expectation-maximisation (EM))."""
    gamma, log_px = _posteriors(log_joint(X, params))
    ll = float(log_px.sum())
    state = EMState(params, gamma, ll, ll + _log_prior(params, prior, data_var))
    yield state
    while True:
        params, repaired = m_step_trusted(X, state.responsibilities, params.covariance_type,
                                          floor, prior, ridge, data_var)
        gamma, log_px = _posteriors(log_joint(X, params))
        ll = float(log_px.sum())
        state = EMState(params, gamma, ll, ll + _log_prior(params, prior, data_var), repaired)
        yield state


def em_steps(X, params: GMMParams, *, variance_floor=0.0, prior: CovariancePrior | None = None,
             ridge: float = 0.0) -> Iterator[EMState]:
    """EM one iteration at a time, from ``params`` (theta_0), without end.

    The first :class:`EMState` is the E-step of theta_0; each next one runs the M-step (with the
    regularisers of :func:`m_step`) from the current responsibilities and the E-step of the new
    parameters. The objective never decreases from one state to the next, except at a step
    that repaired a collapsed component (``n_repaired > 0``; no warning is issued here).
    Take as many states as you need (``itertools.islice``);
    :func:`course_lib.gmm.em.fit_gmm` adds the stopping rule and restarts.
    """
    params = _check_params(params)
    X, data_var = _check_training_data(X)
    if X.shape[1] != params.n_features:
        raise ValueError(f"X: expected {params.n_features} columns (the model's dimension), "
                         f"got shape {X.shape}")
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    return em_steps_trusted(X, params, floor, prior, ridge, data_var)


# ----------------------------------------------------------------------------- using a model

def score_samples(X, params: GMMParams) -> np.ndarray:
    """log p(x_n) = logsumexp_k [log pi_k + log N(x_n | mu_k, Sigma_k)] for each row; (N,)."""
    params = _check_params(params)
    return _posteriors(log_joint(_check_frames(X, params), params))[1]


def average_log_likelihood(X, params: GMMParams) -> float:
    """Mean per-frame log-likelihood 1/N sum_n log p(x_n) (comparable across set sizes)."""
    return float(np.mean(score_samples(X, params)))


def predict_proba(X, params: GMMParams) -> np.ndarray:
    """Component posteriors gamma_nk = p(z_n = k | x_n), shape (N, K)."""
    return e_step(X, params)[0]


def predict(X, params: GMMParams) -> np.ndarray:
    """Most probable component argmax_k gamma_nk for each row; (N,)."""
    return np.argmax(predict_proba(X, params), axis=1)


def _initial_params(X, K, covariance_type, init, rng, floor, prior, ridge, data_var):
    if init == "kmeans":
        labels = kmeans_trusted(X, K, rng).labels
        return m_step_trusted(X, np.eye(K)[labels], covariance_type, floor, prior, ridge,
                              data_var)
    # "random": K distinct frames as means, the data covariance for every component
    distinct = np.unique(X, axis=0)
    means = distinct[rng.choice(distinct.shape[0], K, replace=False)]
    centred = X - X.mean(axis=0)
    S = centred.T @ centred / X.shape[0] if covariance_type == "full" else data_var.copy()
    S = _floor_covariance(S, np.maximum(floor, _COLLAPSE_FLOOR * data_var), covariance_type)
    return GMMParams(np.full(K, 1.0 / K), means, np.stack([S] * K), covariance_type), 0


def initialise_gmm(X, n_components: int, *, covariance_type: str = "full", init="kmeans",
                   variance_floor=0.0, prior: CovariancePrior | None = None,
                   ridge: float = 0.0, rng: RngLike = None) -> GMMParams:
    """Starting parameters theta_0 for EM, as :func:`fit_gmm` makes them.

    init="kmeans": k-means++ / k-means, then one M-step from its hard assignments;
    init="random": K distinct random frames as means, the data covariance for every
    component, equal weights (a deliberately rough start, good for watching EM work).
    """
    K = as_positive_int(n_components, "n_components")
    check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    check_choice(init, "init", {"kmeans", "random"})
    X, data_var = _check_training_data(X)
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    _check_distinct(X, K)
    params, repaired = _initial_params(X, K, covariance_type, init, as_rng(rng), floor, prior,
                                       ridge, data_var)
    _warn_repaired(repaired)
    return params


def _run_em(X, params, max_iter, tol, floor, prior, ridge, data_var, repaired):
    """Drive :func:`course_lib.gmm.em.em_steps_trusted` until the objective gains < tol per frame
    or max_iter."""
    N = X.shape[0]
    steps = em_steps_trusted(X, params, floor, prior, ridge, data_var)
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
    check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
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
