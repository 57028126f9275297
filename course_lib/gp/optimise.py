"""ML-II / MAP-II: L-BFGS-B with restarts over a model's log hyper-parameters, as a function.

Every GP model of the course (exact regression, the rater models, the preference GP, the
variational models) hands :func:`optimise_hyperparameters` a *problem*: an object with

    param_names                 names of the hyper-parameters, in the order of theta
    theta                       the current log hyper-parameters (the first run starts there)
    bounds                      their log-bounds, shape (n_params, 2)
    priors                      mapping name -> Prior (MAP-II); a name without one is flat
    negative_objective(theta)   -(log evidence + log hyper-prior) and its gradient in theta;
                                +inf where the model has no evidence (the line search backs off)
    refit_at(theta)             set the hyper-parameters to theta and condition again
    log_evidence()              the log evidence at the current hyper-parameters

The model keeps its own evidence, fit and prediction; only the restart loop is shared. Random
starts are drawn from the hyper-prior where one is set, else uniformly between the log-bounds
(Rasmussen & Williams 2006, sec. 5.4.1, on local optima of the marginal likelihood).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..linalg import NotPositiveDefiniteError
from ..validation import RngLike, as_float_array, as_positive_int, as_rng, warn_deprecated
from .priors import Prior

__all__ = ["HyperparameterFit", "HyperparameterProblem", "optimise_hyperparameters",
           "log_hyper_prior", "negative_log_posterior", "check_priors"]


# the message when every run failed, unless the model gives its own
_FAILED_FACTORISATION = ("theta: every optimisation run failed to factorise K + noise; try a "
                        "larger noise_variance lower bound or narrower kernel bounds")


@dataclass(frozen=True)
class HyperparameterFit:
    """Result of :func:`optimise_hyperparameters` (and of every model's
    ``optimise_hyperparameters``).

    ``theta`` / ``params``: best log / natural hyper-parameters; ``objective``: the maximised
    log evidence + log hyper-prior; ``log_evidence``: the model's log evidence at the best
    theta (equal to ``objective`` for ML-II); per run (rows, the run from the initial theta
    first): ``starts`` and ``ends`` (log-parameters), ``objectives`` (-inf when a run failed),
    ``converged`` and ``n_iter`` (L-BFGS-B iterations run); ``best`` indexes the winning run.
    """

    theta: np.ndarray
    param_names: tuple[str, ...]
    objective: float
    log_evidence: float
    starts: np.ndarray
    ends: np.ndarray
    objectives: np.ndarray
    converged: np.ndarray
    n_iter: np.ndarray
    best: int

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    @property
    def log_marginal_likelihood(self) -> float:
        """Deprecated, removed in the next release: ``log_evidence`` (the exercises of lecture
        04 as released before issue 48 read this name)."""
        warn_deprecated("HyperparameterFit.log_marginal_likelihood", "log_evidence")
        return self.log_evidence


class HyperparameterProblem(Protocol):
    """What :func:`optimise_hyperparameters` needs of a model (module docstring)."""

    param_names: tuple[str, ...]
    theta: np.ndarray
    bounds: np.ndarray
    priors: Mapping[str, Prior]

    def negative_objective(self, theta) -> tuple[float, np.ndarray]: ...

    def refit_at(self, theta) -> None: ...

    def log_evidence(self) -> float: ...


def negative_log_posterior(model, theta) -> tuple[float, np.ndarray]:
    """-(log evidence + log p(theta)) and its gradient, what L-BFGS-B minimises (the
    ``negative_objective`` a model hands :func:`optimise_hyperparameters`), for a model
    whose ``evidence(theta, eval_gradient=True, warn=False)`` returns the evidence with its
    ``gradient`` in theta. Where K is not positive definite the value is +inf, so the line
    search backs off."""
    try:
        evidence = model.evidence(theta, eval_gradient=True, warn=False)
    except NotPositiveDefiniteError:
        return np.inf, np.zeros_like(theta)
    lp, dlp = model.log_hyper_prior(theta)
    return -(evidence.value + lp), -(evidence.gradient + dlp)


def check_priors(priors, param_names: Sequence[str]) -> dict[str, Prior]:
    """``priors`` (None or a mapping) checked and returned as a dict, every key one of
    ``param_names`` and every value a Prior: the ``priors`` argument of every model that
    optimises its hyper-parameters."""
    priors = dict(priors or {})
    for name, prior in priors.items():
        if name not in param_names:
            raise ValueError(f"priors: unknown hyper-parameter {name!r}; "
                             f"known: {param_names}")
        if not isinstance(prior, Prior):
            raise TypeError(f"priors: {name!r} needs a course_lib.gp.priors.Prior, "
                            f"got {type(prior).__name__}")
    return priors


def log_hyper_prior(theta, param_names: Sequence[str], priors: Mapping[str, Prior]
                    ) -> tuple[float, np.ndarray]:
    """Sum of the log hyper-prior densities of u = log theta, and its gradient (0 if none)."""
    theta = as_float_array(theta, "theta", ndim=1)
    value, grad = 0.0, np.zeros(len(param_names))
    for index, name in enumerate(param_names):
        if name in priors:
            lp, dlp = priors[name].log_pdf_log(theta[index])
            value += float(lp)
            grad[index] = float(dlp)
    return value, grad


def _random_start(problem: HyperparameterProblem, rng: np.random.Generator) -> np.ndarray:
    bounds = problem.bounds
    start = rng.uniform(bounds[:, 0], bounds[:, 1])
    for index, name in enumerate(problem.param_names):
        if name in problem.priors:
            start[index] = problem.priors[name].sample_log(rng=rng)
    return np.clip(start, bounds[:, 0], bounds[:, 1])


def optimise_hyperparameters(problem: HyperparameterProblem, *, n_restarts: int = 5,
                             rng: RngLike = None, max_iter: int = 200,
                             planned: Callable[[int], list[np.ndarray]] | None = None,
                             failure: str = _FAILED_FACTORISATION) -> HyperparameterFit:
    """Maximise log evidence + log hyper-prior over the log hyper-parameters of ``problem``.
    Lecture 04, section 5 (The marginal likelihood: fit versus complexity); also sections 6-7.

    ``n_restarts`` L-BFGS-B runs in total (bounds in log space, analytic gradient), each
    capped at ``max_iter`` iterations: first from the starts ``planned(n_restarts)`` gives (at
    most ``n_restarts``; by default the current theta alone), then from random starts drawn
    with ``rng``. The best run is kept, the model refitted at it, and every run returned (local
    optima are part of the lesson). Raises ``NotPositiveDefiniteError`` with the message
    ``failure`` when every run failed.
    """
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter")
    rng = as_rng(rng)
    starts = planned(n_restarts) if planned is not None else [problem.theta]
    starts += [_random_start(problem, rng) for _ in range(n_restarts - len(starts))]
    bounds = problem.bounds
    ends, values, converged, n_iter = [], [], [], []
    # imported here: a GP conditioned at given hyper-parameters needs no optimiser
    from scipy.optimize import minimize

    for start in starts:
        run = minimize(problem.negative_objective, start, jac=True, method="L-BFGS-B",
                       bounds=bounds, options={"maxiter": max_iter})
        ends.append(run.x)
        values.append(-run.fun if np.isfinite(run.fun) else -np.inf)
        converged.append(bool(run.success))
        n_iter.append(int(run.nit))
    values = np.array(values)
    if not np.any(np.isfinite(values)):
        raise NotPositiveDefiniteError(failure)
    best = int(np.argmax(values))
    problem.refit_at(ends[best])
    return HyperparameterFit(ends[best].copy(), tuple(problem.param_names), float(values[best]),
                             float(problem.log_evidence()), np.array(starts),
                             np.array(ends), values, np.array(converged), np.array(n_iter), best)
