"""What the sparse GP's functions return: the bound with its gradient, and the fitted model.

:class:`BoundGradient` is the value of Titsias's (2009) collapsed bound with its derivatives;
:class:`SparseGP` holds the optimal q(u) (Titsias 2009, §3) as a
:class:`~course_lib.gp.prediction.LatentGaussian` over the inducing values and predicts through
it, the same step as every GP model of the course. Result types only: the bound, q(u) and the
fit are computed in :mod:`course_lib.gp.sparse`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .inputs import _as_inputs
from .kernel_algebra import Kernel
from .prediction import LatentGaussian, _add_noise

__all__ = ["BoundGradient", "SparseGP"]


@dataclass(frozen=True)
class BoundGradient:
    """The collapsed bound and its gradient.

    bound : F (a lower bound on log p(y | X)).
    d_theta : (P,) dF / d kernel.theta (log kernel parameters, order ``kernel.param_names``).
    d_log_noise_variance : dF / d log s2.
    d_Z : (M, D) dF / dZ.
    """

    bound: float
    d_theta: np.ndarray
    d_log_noise_variance: float
    d_Z: np.ndarray


@dataclass(frozen=True)
class SparseGP:
    """A fitted sparse GP: kernel, inducing inputs, noise and the optimal q(u).

    kernel, Z (M, D), noise_variance s2, jitter (relative, as used), bound F, and ``posterior``:
    q(u) as a :class:`~course_lib.gp.prediction.LatentGaussian` over the inducing values (the
    same prediction step as every other GP model of the course).
    n_iter / converged / message describe the optimiser run (0 / True / "" when not fitted).
    Use :meth:`predict` for the predictive distribution and :meth:`q_u` for N(m, S).
    """

    kernel: Kernel
    Z: np.ndarray
    noise_variance: float
    jitter: float
    bound: float
    posterior: LatentGaussian
    n_iter: int = 0
    converged: bool = True
    message: str = ""

    @property
    def n_inducing(self) -> int:
        return self.Z.shape[0]

    def q_u(self) -> tuple[np.ndarray, np.ndarray]:
        """Optimal q(u) = N(m, S): ``m = L L_B^-T c`` (M,), ``S = L B^-1 L^T`` (M, M).

        L is the Cholesky factor of the jittered K_uu, so m and S are for the (very slightly
        noisy) inducing variables that the bound used.
        """
        return self.posterior.mean, self.posterior.covariance()

    def predict(self, X_test, full_cov: bool = False, include_noise: bool = False):
        """Predictive mean and variance (or covariance) of f* (or y* with ``include_noise``).

        ``mean = K_*u K_uu^-1 m`` and ``cov = K_** - K_*u K_uu^-1 K_u* + K_*u Sigma^-1 K_u*``
        (``Sigma = K_uu + K_uf K_fu / s2``): :meth:`LatentGaussian.predict` of q(u), in
        O(N* M^2). ``include_noise`` adds s2 to the variance. X_test : (N*, D). Returns
        ``(mean (N*,), var (N*,))`` or, with ``full_cov``, ``(mean, cov (N*, N*))``.
        """
        X_test = _as_inputs(X_test, "X_test", self.Z.shape[1])
        K_test = self.kernel(X_test) if full_cov else self.kernel.diag(X_test)
        mean, var = self.posterior.predict(self.kernel(self.Z, X_test), K_test)
        return mean, (_add_noise(var, self.noise_variance) if include_noise else var)
