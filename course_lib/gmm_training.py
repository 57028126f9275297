"""Training a Gaussian mixture around the EM core of :mod:`course_lib.gmm` (Unit 2).

Where EM starts and when it stops are choices beside the algorithm, so they sit apart from the
E-step, M-step and EM loop (Bishop 2006, section 9.2.2) that :mod:`course_lib.gmm` keeps:

* starting points theta_0 (:func:`initialise_gmm`): k-means++ seeding (Arthur & Vassilvitskii
  2007) then k-means and one M-step from its hard assignments, or K distinct random frames as
  means with the data covariance;
* the stopping rule (the objective gains less than ``tol`` per frame, or ``max_iter``) and
  restarts, keeping the run with the highest final objective (:func:`fit_gmm`).

Both drive the very M-step and EM loop of :mod:`course_lib.gmm`, so a fit equals stepping
:func:`course_lib.gmm.em_steps` by hand from the same start.
"""

from __future__ import annotations

import numpy as np

from .gaussian import _COVARIANCE_TYPES
from .gmm import (_COLLAPSE_FLOOR, em_steps_trusted, _floor_covariance, m_step_trusted,
                  _warn_repaired)
from .gmm_params import (CovariancePrior, GMMParams, GMMResult, _check_distinct,
                         _check_regularisers, _check_training_data)
from .kmeans import _kmeans_trusted
from .validation import RngLike, _as_positive_float, _as_positive_int, _as_rng, _check_choice

__all__ = ["initialise_gmm", "fit_gmm"]


def _initial_params(X, K, covariance_type, init, rng, floor, prior, ridge, data_var):
    if init == "kmeans":
        labels = _kmeans_trusted(X, K, rng).labels
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
    K = _as_positive_int(n_components, "n_components")
    _check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    _check_choice(init, "init", {"kmeans", "random"})
    X, data_var = _check_training_data(X)
    floor, ridge = _check_regularisers(X.shape[1], variance_floor, prior, ridge)
    _check_distinct(X, K)
    params, repaired = _initial_params(X, K, covariance_type, init, _as_rng(rng), floor, prior,
                                       ridge, data_var)
    _warn_repaired(repaired)
    return params


def _run_em(X, params, max_iter, tol, floor, prior, ridge, data_var, repaired):
    """Drive :func:`course_lib.gmm.em_steps_trusted` until the objective gains < tol per frame
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
    K = _as_positive_int(n_components, "n_components")
    _check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    n_restarts = _as_positive_int(n_restarts, "n_restarts")
    max_iter = _as_positive_int(max_iter, "max_iter", minimum=0)
    tol = _as_positive_float(tol, "tol", allow_zero=True)
    X, data_var = _check_training_data(X)
    D = X.shape[1]
    floor, ridge = _check_regularisers(D, variance_floor, prior, ridge)
    rng = _as_rng(rng)
    if isinstance(init, GMMParams):
        if init.n_components != K or init.n_features != D or \
                init.covariance_type != covariance_type:
            raise ValueError(f"init: expected GMMParams with K={K}, D={D}, "
                             f"{covariance_type!r}; got K={init.n_components}, "
                             f"D={init.n_features}, {init.covariance_type!r}")
        return _run_em(X, init, max_iter, tol, floor, prior, ridge, data_var, 0)
    _check_choice(init, "init", {"kmeans", "random"})
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
