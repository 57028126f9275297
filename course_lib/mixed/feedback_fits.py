"""The variational fits lecture 07 compares (Wu et al. 2025's models on chosen data).

* :func:`ledger_fit` -- the full-rank variational GP on the data types a list of flags switches
  on, with the KL counted ``kl_weight`` times: the ELBO's ledger, and its bookkeeping trap.
* :func:`constraint_fit` -- the sparse variational GP of yes/no answers and constraints whose
  noise sd is one number instead of Wu et al.'s heuristic: how firm a constraint may be.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import as_positive_float
from .constraints import detection_likelihood
from .feedback_likelihoods import GaussianConstraint
from ..gp.kernel_base import Kernel, as_inputs
from .variational_model import MixedLikelihood
from .sparse_variational import SparseVariationalGP
from .variational import VariationalEvidence, fit_variational

__all__ = ["ledger_fit", "constraint_fit"]


def ledger_fit(X, parts: Sequence, kernel: Kernel, use: Sequence[bool], *,
               kl_weight: float = 1.0) -> VariationalEvidence:
    """The full-rank variational fit of the items ``X`` on the parts ``use`` selects.

    ``parts`` is a list of (likelihood, M, y) triples as :class:`MixedLikelihood` takes them
    (every M with one column per row of ``X``); ``use`` one bool per part. At least one part
    must be used (ValueError otherwise, naming ``use``). ``kl_weight``
    beta != 1 maximises E - beta KL instead of the ELBO
    (:func:`~course_lib.mixed.variational.fit_variational`'s teaching device)."""
    if len(use) != len(parts):
        raise ValueError(f"use: expected {len(parts)} flags (one per part), got {len(use)}")
    chosen = [part for part, on in zip(parts, use) if on]
    if not chosen:
        raise ValueError("use: switch on at least one data type (with none there is no "
                         "likelihood, only the prior)")
    X = as_inputs(X, "X")
    # a slider's long lengthscales make K near-singular; its tiny jitter is no news on every
    # redraw, so it is not warned about
    return fit_variational(kernel(X), MixedLikelihood(chosen), kl_weight=kl_weight, warn=False)


def constraint_fit(X, answers, constraint_X, constraint_y, kernel: Kernel, inducing,
                   constraint_sd: float) -> SparseVariationalGP:
    """The sparse variational GP (inducing points ``inducing``) of yes/no ``answers`` at ``X``
    and constraints (``constraint_X``, ``constraint_y``) whose noise sd is ``constraint_sd``
    for every constraint instead of Wu et al.'s heuristic (the explorer's slider). The data are
    assembled by :func:`~course_lib.mixed.constraints.detection_likelihood` (arm "mixed")."""
    constraint_sd = as_positive_float(constraint_sd, "constraint_sd")
    data = detection_likelihood(X, answers, constraint_X=constraint_X,
                                constraint_y=constraint_y, arm="mixed")
    mixed = data.likelihood
    parts = [(likelihood, mixed.M[rows], mixed.y[rows])
             for likelihood, rows in zip(mixed.likelihoods, mixed.slices)]
    constraint_rows = parts[-1][1]
    parts[-1] = (GaussianConstraint(np.full(constraint_rows.shape[0], constraint_sd)),
                 constraint_rows, parts[-1][2])
    return SparseVariationalGP(kernel, MixedLikelihood(parts), inducing).fit(data.items)
