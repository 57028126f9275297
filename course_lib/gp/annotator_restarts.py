"""The planned starts of ML-II / MAP-II for the annotator model, the EM fixed point among them.

The evidence of the annotator model (Gil-Gonzalez, Alvarez & Orozco 2018; ``gp.annotator_noise``)
is multimodal in its many noise variances, so ``AnnotatorNoiseGP.optimise_hyperparameters``
starts L-BFGS-B from the current values, from the EM fixed point computed here and from equal
variances before any random start, and keeps the best run. EM steps (``AnnotatorNoiseGP.
_em_update``, the closed-form zero of the Fisher-identity gradient) shrink near an optimum, so a
few dozen of them make a good start and L-BFGS-B finishes the job. Apart from the model because
it is restart glue: the EM update itself is the core.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["em_fixed_point"]

#: EM iterations and relative tolerance for the EM fixed point used as an optimiser start.
_EM_START_MAX_ITER = 50
_EM_START_TOL = 1e-3


def em_fixed_point(update: Callable[[np.ndarray, np.ndarray], np.ndarray], log_noise: np.ndarray,
                   K: np.ndarray) -> np.ndarray:
    """log s of the EM iterations ``log_noise <- update(log_noise, K)`` (kernel matrix K fixed)
    until the largest change of a log variance is below ``_EM_START_TOL`` or after
    ``_EM_START_MAX_ITER`` (a start for L-BFGS-B, which finishes the job: near an optimum EM
    steps shrink)."""
    for _ in range(_EM_START_MAX_ITER):
        updated = update(log_noise, K)
        converged = np.max(np.abs(updated - log_noise)) < _EM_START_TOL
        log_noise = updated
        if converged:
            break
    return log_noise


def _planned_starts(model, n_restarts: int) -> list[np.ndarray]:
    """The first (at most three) starts of ``model.optimise_hyperparameters`` (an
    ``AnnotatorNoiseGP``), each computed only when that many runs are asked for: the current
    hyper-parameters, the EM fixed point of the noise variances at the current kernel, and equal
    variances (the pooled EM value)."""
    kernel_theta = model.kernel.theta
    planned = [lambda: model.theta,
               lambda: np.concatenate([kernel_theta, em_fixed_point(
                   model._em_update, model._log_noise, model.kernel(model.X_train))]),
               lambda: np.concatenate([kernel_theta, model._em_update(
                   model._log_noise, model.kernel(model.X_train), pooled=True)])]
    return [start() for start in planned[:n_restarts]]
