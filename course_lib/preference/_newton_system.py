"""The linear algebra of a Laplace Newton step: K^-1 + W, factorised without inverting W or K.

Newton's method for the Laplace approximation (:mod:`course_lib.preference.laplace`) needs, for the
curvature weights w of the m observations and W = M^T diag(w) M, one solve and one log
determinant:

    solve(b) = (I + W K)^-1 b       (so that f = K solve(b) = (K^-1 + W)^-1 b),
    log_det  = log det(I + K W).

W is singular for pairwise data (every row of M sums to zero) and K is singular for duplicated
items, so neither is inverted. Each form below factorises a positive-definite matrix B with
det B = det(I + K W), as Rasmussen & Williams (2006, sec. 3.4.3, eq. 3.26) do with
B = I + W^1/2 K W^1/2; here a square root R of W (R R^T = W) takes the place of W^1/2:

``"m x m"`` (every w >= 0; chosen when m <= n)
    R = M^T diag(sqrt(w)) (n x m), B = I_m + R^T K R;  (K^-1 + W)^-1 = K - K R B^-1 R^T K.
``"n x n"`` (every w >= 0; chosen when m > n)
    the same with an n x n square root of W instead: the QR factorisation
    diag(sqrt(w)) M = Q U gives W = U^T U, so R = U^T and B = I_n + U K U^T.
``"L_K"`` (any w; used wherever some w < 0)
    K = L L^T, B = I_n + L^T W L = L^T (K^-1 + W) L;  (K^-1 + W)^-1 = L B^-1 L^T.
    B is positive definite exactly when K^-1 + W is, so this form also serves likelihoods
    that are not log-concave (PairwiseBeta), whose w can be negative. It needs a Cholesky
    factor of K, which is singular for duplicated items and nearly so for long lengthscales
    (jitter ladder); the two R forms never factorise K, and their B >= I is always well
    conditioned.

Damping: where some w < 0 and K^-1 + W is not positive definite (far from the mode of a Beta
likelihood), the exact Newton step is no ascent direction. ``factorise(w, damped=True)`` then
factorises the clipped weights max(w, 0) instead, a positive-definite stand-in that keeps every
step uphill.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import cached_property

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular

from ..linalg import cholesky_with_jitter, log_det_from_cholesky
from ..gp.prediction import LatentGaussian

__all__ = ["NewtonSystem", "FactorisedSystem"]

_FORMS = ("auto", "m x m", "n x n", "L_K")


class NewtonSystem:
    """What stays fixed while Newton runs: the prior covariance K of the n items (and its
    Cholesky factor once a form needs it), the map M (m x n) and the form; :meth:`factorise`
    gives K^-1 + W for the weights of one step.

    ``form`` is one of :data:`_FORMS`; ``"auto"`` takes the smaller B (``"m x m"`` when m <= n,
    else ``"n x n"``).
    """

    def __init__(self, K: np.ndarray, M: np.ndarray, form: str):
        self.K, self.M, self.jitter, self._L = K, M, 0.0, None
        if form == "auto":
            form = "m x m" if M.shape[0] <= M.shape[1] else "n x n"
        self.form = form
        if form == "L_K":
            self.cholesky()    # settle K's jitter (if any) before the first latents f = K a

    def cholesky(self) -> np.ndarray:
        """Lower Cholesky factor of K (jitter ladder). If jitter was needed, K itself becomes
        K + jitter I from then on, so that every form works with the same prior."""
        if self._L is None:
            self._L, self.jitter = cholesky_with_jitter(self.K, "K")
            if self.jitter > 0:
                self.K = self.K + self.jitter * np.eye(self.K.shape[0])
        return self._L

    def factorise(self, w: np.ndarray, *, damped: bool = False) -> "FactorisedSystem":
        """K^-1 + W for the weights w: in this system's form if every w >= 0, else in the L_K
        form. Raises LinAlgError when K^-1 + W is not positive definite, unless ``damped``:
        then the clipped weights max(w, 0) are factorised instead (``clipped`` is True)."""
        try:
            return self._factorised(w, self.form if np.all(w >= 0) else "L_K", False)
        except LinAlgError:
            if not damped:
                raise
            return self._factorised(np.maximum(w, 0.0), self.form, True)

    def _factorised(self, w, form, clipped) -> "FactorisedSystem":
        if form == "L_K":
            return _CholeskySystem(self, w, clipped)
        return _RootSystem(self, w, clipped, form)

    def smallest_eigenvalue(self, w: np.ndarray) -> float:
        """Smallest eigenvalue of B = I + L^T W L (negative when K^-1 + W is indefinite)."""
        L = self.cholesky()
        B = np.eye(L.shape[0]) + L.T @ (self.M.T * w) @ self.M @ L
        return float(np.linalg.eigvalsh(B)[0])


class FactorisedSystem(ABC):
    """K^-1 + W factorised for the weights ``w`` (the clipped ones if ``clipped``) in the form
    ``form``, through the lower Cholesky factor ``L_B`` of its B: the solve and log-det of a
    Newton step, the posterior covariance Sigma = (K^-1 + W)^-1 and what the evidence gradient
    needs."""

    def __init__(self, system: NewtonSystem, w: np.ndarray, clipped: bool, form: str):
        self.system, self.w, self.clipped, self.form = system, w, clipped, form

    @cached_property
    def W(self) -> np.ndarray:
        """W = M^T diag(w) M (n x n, singular for pairwise data)."""
        return (self.system.M.T * self.w) @ self.system.M

    def log_det(self) -> float:
        """log det B = log det(I + K W)."""
        return log_det_from_cholesky(self.L_B)

    @abstractmethod
    def solve(self, b: np.ndarray) -> np.ndarray:
        """a = (I + W K)^-1 b: the weights whose latents K a solve (K^-1 + W) f = b."""

    @abstractmethod
    def covariance(self) -> np.ndarray:
        """Sigma = (K^-1 + W)^-1."""

    @abstractmethod
    def inverse_k_plus_w_inverse(self) -> np.ndarray:
        """C = (K + W^-1)^-1 = W - W Sigma W, written without W^-1."""

    @abstractmethod
    def posterior(self, f: np.ndarray, a: np.ndarray) -> LatentGaussian:
        """N(f, Sigma) as a :class:`~course_lib.gp.prediction.LatentGaussian` (a = K^-1 f)."""


class _RootSystem(FactorisedSystem):
    """The ``"m x m"`` and ``"n x n"`` forms: B = I + R^T K R with R R^T = W (every w >= 0)."""

    def __init__(self, system, w, clipped, form):
        super().__init__(system, w, clipped, form)
        root = system.M * np.sqrt(w)[:, None]                    # diag(sqrt w) M, m x n
        # R R^T = W: R = M^T diag(sqrt w) (n x m), or U^T from root = Q U (n x n)
        self.R = root.T if form == "m x m" else np.linalg.qr(root, mode="r").T
        # Line 5 (R&W 2006, Alg. 3.1): L = cholesky(B), B = I + W^1/2 K W^1/2 with R for W^1/2
        B = np.eye(self.R.shape[1]) + self.R.T @ system.K @ self.R
        self.L_B = cholesky(B, lower=True, check_finite=False)  # B >= I

    def solve(self, b):
        # Line 7 (R&W 2006, Alg. 3.1): a = b - W^1/2 L^T \ (L \ (W^1/2 K b)), R for W^1/2
        return b - self.R @ cho_solve((self.L_B, True), self.R.T @ (self.system.K @ b),
                                      check_finite=False)

    def covariance(self):
        K = self.system.K
        # Line 7 (R&W 2006, Alg. 5.1): C = L \ (W^1/2 K); line 8 takes diag(K - C^T C)
        V = solve_triangular(self.L_B, self.R.T @ K, lower=True, check_finite=False)
        return K - V.T @ V

    def inverse_k_plus_w_inverse(self):
        # Line 6 (R&W 2006, Alg. 5.1): R = W^1/2 L^T \ (L \ W^1/2), R&W's R, not this R
        U = solve_triangular(self.L_B, self.R.T, lower=True, check_finite=False)
        return U.T @ U

    def posterior(self, f, a):
        return LatentGaussian(f, a, "precision", (self.R, self.L_B), 0.0)


class _CholeskySystem(FactorisedSystem):
    """The ``"L_K"`` form: B = I + L^T W L with K = L L^T (any w)."""

    def __init__(self, system, w, clipped):
        super().__init__(system, w, clipped, "L_K")
        self.L = system.cholesky()
        # Line 5 (R&W 2006, Alg. 3.1) in the L_K form: B = I + L_K^T W L_K, any w
        B = np.eye(self.L.shape[0]) + self.L.T @ self.W @ self.L
        # raises LinAlgError when K^-1 + W is not positive definite
        self.L_B = cholesky(B, lower=True, check_finite=False)

    def solve(self, b):
        # Line 7 (R&W 2006, Alg. 3.1) in the L_K form: a = (I + W K)^-1 b = L_K^-T B^-1 L_K^T b
        inner = cho_solve((self.L_B, True), self.L.T @ b, check_finite=False)
        return solve_triangular(self.L, inner, lower=True, trans="T", check_finite=False)

    def covariance(self):
        V = solve_triangular(self.L_B, self.L.T, lower=True, check_finite=False)
        return V.T @ V

    def inverse_k_plus_w_inverse(self):
        return self.W - self.W @ self.covariance() @ self.W

    def posterior(self, f, a):
        T = solve_triangular(self.L_B, np.eye(f.shape[0]), lower=True, check_finite=False).T
        return LatentGaussian(f, a, "covariance", (self.L, T), self.system.jitter)

