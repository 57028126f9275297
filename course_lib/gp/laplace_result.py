"""The Laplace approximation's result types and the error raised where none exists.

Apart from :mod:`course_lib.gp.laplace` because none of it is Newton's method: the result holds
what the iteration and the evidence at the mode give (Rasmussen & Williams 2006, eq. 3.32;
J. B. Nielsen 2015, eqs. 2.25-2.27), and :class:`NewtonStep` one point of the path that
:func:`~course_lib.gp.laplace.newton_path` records for plotting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..linalg import NotPositiveDefiniteError
from ..validation import _as_float_array
from .likelihoods import LikelihoodTerms
from .newton_system import FactorisedSystem
from .prediction import LatentGaussian

__all__ = ["LaplaceResult", "NewtonStep", "InvalidLaplaceError"]


class InvalidLaplaceError(NotPositiveDefiniteError):
    """K^-1 + W is not positive definite at the stationary point Newton's method reached: the
    posterior is not locally a peak there, so no Gaussian (Laplace) approximation exists."""


@dataclass(frozen=True)
class LaplaceResult:
    """The Laplace approximation q(f) = N(f_hat, (K^-1 + W)^-1) and its log evidence.

    Attributes
    ----------
    f_hat : (n,) the mode of the log posterior.
    alpha : (n,) a = K^-1 f_hat (equals M^T g at the mode; the predictive mean is K*^T a).
    terms : :class:`~course_lib.gp.likelihoods.LikelihoodTerms` at z_hat = M f_hat.
    posterior : :class:`~course_lib.gp.prediction.LatentGaussian` of the training latents.
    log_evidence : log q(y | theta) (:mod:`course_lib.gp.laplace`).
    log_det : log det(I + K W) at the mode.
    n_iter : Newton steps taken; ``converged``: whether the stopping rule was met within
        ``max_iter``; ``n_clipped``: how many of the steps used the clipped weights max(w, 0)
        (K^-1 + W indefinite there).
    form : ``"m x m"``, ``"n x n"`` or ``"L_K"``, the factorisation used at the mode.
    jitter : absolute jitter added to K's diagonal for its Cholesky factor (L_K form only).
    """

    f_hat: np.ndarray
    alpha: np.ndarray
    terms: LikelihoodTerms
    posterior: LatentGaussian
    log_evidence: float
    log_det: float
    n_iter: int
    converged: bool
    n_clipped: int
    form: str
    jitter: float
    _problem: object = field(repr=False, compare=False)   # course_lib.gp.laplace's problem
    _system: FactorisedSystem = field(repr=False, compare=False)
    # course_lib.gp.laplace._evidence_gradient at this mode's problem and system
    _gradient: Callable = field(repr=False, compare=False)

    @property
    def z_hat(self) -> np.ndarray:
        """M f_hat, the latent argument of every observation at the mode."""
        return self._problem.M @ self.f_hat

    def covariance(self) -> np.ndarray:
        """Sigma = (K^-1 + W)^-1, the (n, n) posterior covariance (for checks and plots)."""
        return self._system.covariance()

    def evidence_gradient(self, dK, *, implicit: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Gradient of :attr:`log_evidence`: ``(d / d kernel theta (P,), d / d likelihood
        theta (Q,))``, for ``dK`` of shape (P, n, n) (``kernel.gradient(X)[1]``) and the
        likelihood's log-parameters in the order of ``likelihood.param_names``.

        ``implicit=False`` leaves out the term through f_hat(theta)
        (:func:`course_lib.gp.laplace._evidence_gradient`), which is wrong: it is there to show
        what that term is worth.
        """
        n = self.f_hat.shape[0]
        dK = _as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != (n, n):
            raise ValueError(f"dK: expected shape (P, {n}, {n}) (one kernel derivative per "
                             f"hyper-parameter), got {dK.shape}")
        grad_kernel, grad_likelihood = self._gradient(self.alpha, self.z_hat, dK, implicit)
        if not (np.all(np.isfinite(grad_kernel)) and np.all(np.isfinite(grad_likelihood))):
            raise ValueError("dK: the gradient of the Laplace evidence is not finite; check "
                             "that dK holds finite kernel derivatives")
        return grad_kernel, grad_likelihood


@dataclass(frozen=True)
class NewtonStep:
    """One point of the Newton path (:func:`~course_lib.gp.laplace.newton_path`): the latents
    ``f`` and the log posterior ``psi`` (up to its constant) after the step; ``step_size`` the
    line-search factor taken (1 = the full Newton step; 0 for the start); ``clipped`` whether
    the step used the clipped weights max(w, 0); ``predicted_gain`` the increase of psi the
    full step predicted (its stopping rule compares it with ``tol``)."""

    f: np.ndarray
    psi: float
    step_size: float
    clipped: bool
    predicted_gain: float


def _not_peak_message(problem, w: np.ndarray) -> str:
    """The message of :class:`InvalidLaplaceError` for the curvature ``w`` at the point reached."""
    smallest = problem.system.smallest_eigenvalue(w)
    negative = np.flatnonzero(w < 0)
    return (f"likelihood: K^-1 + W is not positive definite at the stationary point reached "
            f"(smallest eigenvalue of I + L^T W L: {smallest:.3g}; negative curvature w < 0 in "
            f"{negative.size} of {w.size} observations, e.g. row {int(negative[0])}): the "
            "posterior is not a peak there (a saddle of a likelihood that is not log-concave), "
            "so no Laplace approximation exists. Start Newton elsewhere (f0), or revise the "
            "likelihood's parameters; jitter would only hide this")
