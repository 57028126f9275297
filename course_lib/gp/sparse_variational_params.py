"""What the sparse variational fit of :mod:`course_lib.gp.sparse_variational` returns, and what
its entry points accept.

:class:`SparseVariationalResult` is the ledger of the bound at a whitened q(v) = N(m, S S^T)
over the values at the inducing points (Hensman, Matthews & Ghahramani 2015; the expected
log-likelihood of every row once, minus one KL: Wu et al. 2025, eq. 1). The ``check_*``
functions are the argument checks of the fit, of the bound at a given q(v) and of
:class:`~course_lib.gp.sparse_variational_gp.SparseVariationalGP`: each runs once per call, at
the border, with a message that names the argument, so the bound and its optimisation work on
arrays already checked. The likelihood's two forms (one Likelihood with its y and M, or a
MixedLikelihood carrying its data) are checked against the n rows of X, not against an n x n
kernel matrix as :func:`~course_lib.gp.mixed_likelihood.as_mixed` does for the full-rank fit:
the sparse bound forms K_XX only when a row mixes items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import _as_float_array
from .inputs import _as_inputs
from .kernel_algebra import Kernel
from .likelihoods import Likelihood
from .mixed_likelihood import MixedLikelihood
from .prediction import LatentGaussian

__all__ = ["SparseVariationalResult"]


@dataclass(frozen=True)
class SparseVariationalResult:
    """The ELBO of the whitened q(v) = N(mean_whitened, S S^T) and its ledger.

    ``elbo = expected_log_likelihood - kl``; ``part_expected_log_likelihoods`` splits the first
    term by the MixedLikelihood's parts (the ELBO ledger, also under the name
    ``expected_log_likelihoods``); ``root_whitened`` is S (lower triangular); ``z_mean`` and
    ``z_var`` are the rows' moments under q; ``kl_weight`` is the teaching device's beta
    (:mod:`course_lib.gp.sparse_variational`) and ``objective`` = expected_log_likelihood -
    kl_weight * kl (the ELBO when kl_weight = 1); ``gradient_mean`` and ``gradient_root`` are
    d objective/dm and d objective/dS (lower triangle; both 0 at the optimum);
    ``gradient_kernel`` (when asked for) is d objective/dtheta_p of the kernel's log-parameters
    at fixed (m, S); ``n_iter`` (natural-gradient steps plus L-BFGS iterations) and
    ``converged`` describe the run (0 / False for a plain evaluation); ``posterior`` is the
    :class:`~course_lib.gp.prediction.LatentGaussian` over u = f(Z).
    """

    elbo: float
    expected_log_likelihood: float
    part_expected_log_likelihoods: np.ndarray
    kl: float
    mean_whitened: np.ndarray
    root_whitened: np.ndarray
    z_mean: np.ndarray
    z_var: np.ndarray
    posterior: LatentGaussian
    gradient_mean: np.ndarray
    gradient_root: np.ndarray
    gradient_kernel: np.ndarray | None = None
    n_iter: int = 0
    converged: bool = False
    kl_weight: float = 1.0

    @property
    def objective(self) -> float:
        """What the optimiser maximised: expected_log_likelihood - kl_weight * kl."""
        return self.expected_log_likelihood - self.kl_weight * self.kl

    @property
    def expected_log_likelihoods(self) -> np.ndarray:
        """Each part's summed expected log-likelihood (``part_expected_log_likelihoods``)."""
        return self.part_expected_log_likelihoods


def _check_root(S, name: str, p: int) -> np.ndarray:
    S = _as_float_array(S, name, ndim=2)
    if S.shape != (p, p):
        raise ValueError(f"{name}: expected shape ({p}, {p}) (one row and column per inducing "
                         f"point), got {S.shape}")
    if np.any(np.triu(S, 1)) or np.any(np.diag(S) <= 0):
        raise ValueError(f"{name}: expected a lower-triangular square root S with a positive "
                         "diagonal (q(v) = N(m, S S^T))")
    return S


def _check_mean(m, name: str, p: int) -> np.ndarray:
    m = _as_float_array(m, name, ndim=1)
    if m.shape != (p,):
        raise ValueError(f"{name}: expected shape ({p},) (one value per inducing point), got "
                         f"{m.shape}")
    return m


def _mixed_for(likelihood, y, M, n: int) -> MixedLikelihood:
    """The MixedLikelihood for n items from either form of the arguments (errors name them)."""
    if isinstance(likelihood, MixedLikelihood):
        if y is not None or M is not None:
            raise ValueError("y: a MixedLikelihood carries its own observations and maps; pass "
                             "y=None and M=None")
        if likelihood.n_items != n:
            raise ValueError(f"X: expected {likelihood.n_items} rows (one per item of the "
                             f"likelihood's maps), got {n}")
        return likelihood
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.gp.likelihoods Likelihood or a "
                        f"MixedLikelihood, got {type(likelihood).__name__}")
    if y is None:
        raise ValueError("y: a single likelihood needs its observations y")
    y = likelihood.check_observations(y, "y")
    if M is None:
        if y.size != n:
            raise ValueError(f"y: expected {n} observations (one per row of X, as M is None), "
                             f"got {y.size}")
        M = np.eye(n)
    M = _as_float_array(M, "M", ndim=2)
    if M.shape != (y.size, n):
        raise ValueError(f"M: expected shape ({y.size}, {n}) (one row per observation, one "
                         f"column per row of X), got {M.shape}")
    return MixedLikelihood([(likelihood, M, y)])


def _check_inducing(kernel, Z) -> np.ndarray:
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
    Z = _as_inputs(Z, "inducing")
    dim = kernel._input_dim()
    if dim is not None and Z.shape[1] != dim:
        raise ValueError(f"inducing: expected {dim} column(s), as the kernel has one "
                         f"lengthscale per input dimension, got shape {Z.shape}")
    return Z


def _check_problem(kernel, X, Z, likelihood, y, M):
    Z = _check_inducing(kernel, Z)
    X, mixed = _check_items(X, Z, likelihood, y, M)
    return X, Z, mixed


def _check_items(X, Z, likelihood, y, M):
    """The rows ``X`` and the likelihood's data, for checked inducing points ``Z``."""
    X = _as_inputs(X, "X")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X: expected {Z.shape[1]} column(s), as many as the inducing points "
                         f"(one per input dimension), got shape {X.shape}")
    return X, _mixed_for(likelihood, y, M, X.shape[0])
