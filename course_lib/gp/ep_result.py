"""EP's result type, its convergence error and clipped-site warning, and the evidence gradient.

Apart from :mod:`course_lib.gp.ep` because none of it is the site update loop: the result holds
what the loop returns, and the gradient is read off the converged sites.

The gradient of log Z_EP at a fixed point (:meth:`EPResult.evidence_gradient`): log Z_EP is
stationary in the sites there, so only the explicit dependence counts (Rasmussen & Williams
2006, eq. 5.27, in EP's natural parameters; S = diag of the per-item site precisions,
B = I + S^1/2 K S^1/2, alpha = K^-1 mu):

    kernel theta_j:     1/2 alpha^T dK_j alpha - 1/2 tr(S^1/2 B^-1 S^1/2 dK_j)
    likelihood theta_p: sum_k E_tilted,k[d log p(y_k | f) / d theta_p]     (quadrature).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import solve_triangular

from ..validation import _as_float_array
from .prediction import LatentGaussian

__all__ = ["EPResult", "EPConvergenceError", "ClippedSiteWarning"]


class EPConvergenceError(RuntimeError):
    """The EP sites were still moving after ``max_iter`` sweeps, or (``stalled``) stopped
    settling; ``change`` is the smallest largest-site-change reached (in posterior units) and
    ``tol`` the tolerance it missed."""

    def __init__(self, message: str, change: float, tol: float, stalled: bool):
        super().__init__(message)
        self.change, self.tol, self.stalled = change, tol, stalled


class ClippedSiteWarning(UserWarning):
    """Moment matching asked for a negative site precision; the site was set to precision 0."""


@dataclass(frozen=True)
class EPResult:
    """The EP approximation q(f) = N(mean, Sigma) and its log evidence (:mod:`course_lib.gp.ep`).

    Attributes
    ----------
    mean : (n,) posterior mean mu of the items' latents; ``alpha`` = K^-1 mu.
    variance : (n,) posterior variances diag Sigma.
    tau, nu : (m,) site precisions and shifts, one per row (observation).
    posterior : :class:`~course_lib.gp.prediction.LatentGaussian` ("precision" form, R = S^1/2).
    log_evidence : log Z_EP.  log_det : log det B = log det(I + K S).
    n_iter : sweeps taken; ``n_clipped``: sites whose precision was clipped to 0 in the last
        sweep; ``damping``: the damping in force at the end (above the one asked for when the
        sites oscillated).
    """

    mean: np.ndarray
    alpha: np.ndarray
    variance: np.ndarray
    tau: np.ndarray
    nu: np.ndarray
    posterior: LatentGaussian
    log_evidence: float
    log_det: float
    n_iter: int
    n_clipped: int
    damping: float
    # the fit's problem and posterior state (course_lib.gp.ep), for the gradient
    _problem: object = field(repr=False, compare=False)
    _state: object = field(repr=False, compare=False)

    def covariance(self) -> np.ndarray:
        """Sigma = (K^-1 + S)^-1, the (n, n) posterior covariance (for checks and plots)."""
        return self.posterior.covariance(self._problem.K)

    def evidence_gradient(self, dK) -> tuple[np.ndarray, np.ndarray]:
        """Gradient of :attr:`log_evidence`: ``(d / d kernel theta (P,), d / d likelihood
        theta (Q,))`` for ``dK`` of shape (P, n, n) (``kernel.gradient(X)[1]``), exact at an
        EP fixed point (module docstring)."""
        problem, state = self._problem, self._state
        n = self.mean.shape[0]
        dK = _as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != (n, n):
            raise ValueError(f"dK: expected shape (P, {n}, {n}) (one kernel derivative per "
                             f"hyper-parameter), got {dK.shape}")
        U = solve_triangular(state.L, np.diag(state.root), lower=True, check_finite=False)
        C = U.T @ U                                       # S^1/2 B^-1 S^1/2
        grad_kernel = 0.5 * (dK @ self.alpha) @ self.alpha - 0.5 * np.einsum("ij,pij->p", C, dK)
        mean_c, var_c = state.cavity(problem.item, self.tau, self.nu)
        grad_likelihood = problem.tilted(mean_c, var_c, parameters=True)[3].sum(axis=1)
        if not (np.all(np.isfinite(grad_kernel)) and np.all(np.isfinite(grad_likelihood))):
            raise ValueError("dK: the gradient of the EP evidence is not finite; check that dK "
                             "holds finite kernel derivatives")
        return grad_kernel, grad_likelihood
