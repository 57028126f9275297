"""From a Gaussian over the training latents to predictions: the thesis' "two equations".

(J. B. Nielsen, *Systems for Personalization of Hearing Instruments: A Machine Learning
Approach*, PhD thesis, DTU Compute, 2015, eqs. 2.14-2.16.)

Every GP model of the course ends in the same place. Some inference step (exact for a Gaussian
likelihood; Laplace, EP or variational for the others) produces a Gaussian

    q(f) = N(mu, Sigma)        over the latent values f = f(X) at the n training inputs.

Combined with the GP conditional p(f* | f) = N(K*^T K^-1 f, K** - K*^T K^-1 K*), the predictive
distribution of the latents f* at test inputs is Gaussian with

    mean        m*  = K*^T K^-1 mu
    covariance  S*  = K** - K*^T (K^-1 - K^-1 Sigma K^-1) K*

(``K = k(X, X)``, ``K* = k(X, X*)`` of shape (n, n*), ``K** = k(X*, X*)``). Written this way the
two equations need K^-1 and cancel badly, so :class:`LatentGaussian` stores q(f) in whichever
form its producer has, and evaluates ``alpha = K^-1 mu`` and ``C = K^-1 - K^-1 Sigma K^-1``
through Cholesky factors:

``"noise"`` (exact regression, heteroscedastic noise N = diag(noise) allowed)
    Sigma = (K^-1 + N^-1)^-1, so C = (K + N)^-1 = L^-T L^-1 with L = chol(K + N).
``"precision"`` (Laplace / EP / variational: Sigma = (K^-1 + W)^-1 with W = R R^T)
    C = (K + W^-1)^-1 = R B^-1 R^T with B = I + R^T K R, which needs no inverse of W (W may
    be singular, as for pairwise likelihoods, where R = M^T diag(sqrt(w))).
``"covariance"`` (any Sigma, the two equations literally; the sparse GP's q(u))
    C = K^-1 - K^-1 Sigma K^-1 = L_K^-T (I - T T^T) L_K^-1, with L_K = chol(K) and T a square
    root of the whitened covariance L_K^-1 Sigma L_K^-T (``T = L_K^-1 chol(Sigma)`` for a
    given Sigma; the sparse GP has ``T = L_B^-T`` directly, see
    :meth:`LatentGaussian.from_whitened`).

Jitter policy: :func:`course_lib.linalg.cholesky_with_jitter` (re-exported here with the
rest of the GP API).

The checks every latent-Gaussian approximation shares. Laplace and EP (Unit 6,
:mod:`course_lib.preference.laplace`, :mod:`course_lib.preference.ep`) and the variational fits
(Unit 7, :mod:`course_lib.mixed.variational`) all approximate p(f | y) for f ~ N(0, K) and
z = M f, and all take the same four arguments (K, M, likelihood, y). Their checks
(:func:`check_latent_problem`, :func:`check_prior_covariance`, :func:`check_map_columns`) are
written once, here, beside the Gaussian those approximations produce, so that every core works
on trusted arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from ..linalg import (JitterWarning, NotPositiveDefiniteError, as_square_matrix, check_symmetric,
                      cholesky_with_jitter, log_det_from_cholesky, sample_gaussian)
from ..validation import as_float_array, check_length
from .kernel_base import as_inputs, check_exact_size

__all__ = ["JitterWarning", "NotPositiveDefiniteError", "cholesky_with_jitter", "LatentGaussian",
           "predict_from_gaussian", "sample_gaussian", "check_latent_problem",
           "check_prior_covariance", "check_map_columns", "add_noise"]


def add_noise(var: np.ndarray, noise: float) -> np.ndarray:
    """Predictive variance of y* = f* + noise: ``var`` (n*,) plus ``noise``, or a covariance
    (n*, n*) with ``noise`` on its diagonal (independent noise per test point); what every
    regression model's ``predict(include_noise=True)`` adds to the latent's."""
    if var.ndim == 2:
        return var + noise * np.eye(var.shape[0])
    return var + noise


@dataclass(frozen=True)
class LatentGaussian:
    """A Gaussian q(f) = N(mean, Sigma) over the n training latents, stored for prediction.

    Build it with :meth:`from_noise`, :meth:`from_precision`, :meth:`from_mean_cov` or
    :meth:`from_whitened`; then :meth:`predict` applies the two equations of the module
    docstring.

    Attributes
    ----------
    mean : (n,) posterior mean mu of the training latents.
    alpha : (n,) ``K^-1 mu`` (the weights of the predictive mean ``m* = K*^T alpha``).
    form : "noise", "precision" or "covariance".
    factors : the Cholesky factors of the form (see module docstring).
    jitter : absolute jitter that the factorisation added (0.0 when none was needed).
    """

    mean: np.ndarray
    alpha: np.ndarray
    form: str
    factors: tuple
    jitter: float = 0.0

    # ----- constructors -----------------------------------------------------------------
    @classmethod
    def from_noise(cls, K, y, noise) -> "LatentGaussian":
        """Exact posterior for y = f + eps, eps ~ N(0, diag(noise)).

        ``alpha = (K + N)^-1 y``, ``mu = K alpha = y - N alpha``,
        ``Sigma = (K^-1 + N^-1)^-1``. ``noise`` is a scalar or an ``(n,)`` vector (>= 0; zero
        noise interpolates, with jitter if K is singular).
        """
        K = as_square_matrix(K, "K")
        check_symmetric(K, "K")
        n = K.shape[0]
        y = _vector(y, "y", n)
        noise = _noise_vector(noise, n)
        A = K.copy()
        A[np.diag_indices(n)] += noise
        # Line 2 (R&W 2006, Alg. 2.1): L = cholesky(K + sigma^2 I), here with N = diag(noise)
        L, jitter = cholesky_with_jitter(A, "K + noise")
        # Line 3 (R&W 2006, Alg. 2.1): alpha = L^T \ (L \ y)
        alpha = cho_solve((L, True), y, check_finite=False)
        return cls(y - (noise + jitter) * alpha, alpha, "noise", (L,), jitter)

    @classmethod
    def from_precision(cls, K, mean, R, alpha=None) -> "LatentGaussian":
        """Posterior written as ``Sigma = (K^-1 + R R^T)^-1`` (Laplace, EP, variational).

        ``R`` is ``(n,)`` (diagonal W = diag(R^2), e.g. ``sqrt(W)`` of a factorising
        likelihood) or ``(n, m)`` (e.g. ``M^T diag(sqrt(w))`` for m pairwise comparisons).
        ``alpha = K^-1 mean`` may be passed when known (at a Laplace mode it equals the
        gradient of the log-likelihood); otherwise it is solved with Cholesky of K.
        """
        K = as_square_matrix(K, "K")
        check_symmetric(K, "K")
        n = K.shape[0]
        mean = _vector(mean, "mean", n)
        R = as_float_array(R, "R", ndim=(1, 2))
        if R.shape[0] != n:
            raise ValueError(f"R: expected {n} rows (one per training latent), got shape {R.shape}")
        if R.ndim == 1:
            B = np.eye(n) + R[:, None] * K * R[None, :]
        else:
            B = np.eye(R.shape[1]) + R.T @ K @ R
        L_B, jitter_B = cholesky_with_jitter(B, "B = I + R^T K R")
        jitter = jitter_B
        if alpha is None:
            L_K, jitter = cholesky_with_jitter(K, "K")
            alpha = cho_solve((L_K, True), mean, check_finite=False)
        else:
            alpha = _vector(alpha, "alpha", n)
        return cls(mean, alpha, "precision", (R, L_B), jitter)

    @classmethod
    def from_mean_cov(cls, K, mean, Sigma) -> "LatentGaussian":
        """Any Gaussian N(mean, Sigma): the two equations with Cholesky factors of K and Sigma."""
        K = as_square_matrix(K, "K")
        check_symmetric(K, "K")
        n = K.shape[0]
        mean = _vector(mean, "mean", n)
        Sigma = as_square_matrix(Sigma, "Sigma", n)
        check_symmetric(Sigma, "Sigma")
        L_K, jitter = cholesky_with_jitter(K, "K")
        L_S, _ = cholesky_with_jitter(Sigma, "Sigma")
        alpha = cho_solve((L_K, True), mean, check_finite=False)
        T = solve_triangular(L_K, L_S, lower=True, check_finite=False)
        return cls(mean, alpha, "covariance", (L_K, T), jitter)

    @classmethod
    def from_whitened(cls, L_K, mean_whitened, T, jitter: float = 0.0) -> "LatentGaussian":
        """q(f) for ``f = L_K v`` with ``q(v) = N(mean_whitened, T T^T)`` ("whitened" form).

        ``L_K`` is the lower Cholesky factor of K (already computed by the producer, with its
        ``jitter`` if any), so ``mean = L_K mean_whitened``, ``Sigma = L_K T T^T L_K^T`` and
        ``alpha = K^-1 mean = L_K^-T mean_whitened``. The sparse GP's optimal q(u) has
        ``mean_whitened = L_B^-T c`` and ``T = L_B^-T`` (:mod:`course_lib.gp.sparse`).
        """
        L_K = as_square_matrix(L_K, "L_K")
        n = L_K.shape[0]
        if np.any(np.triu(L_K, 1)) or np.any(np.diag(L_K) <= 0):
            raise ValueError("L_K: expected a lower-triangular Cholesky factor with a positive "
                             "diagonal")
        mean_whitened = _vector(mean_whitened, "mean_whitened", n)
        T = as_square_matrix(T, "T", n)
        alpha = solve_triangular(L_K, mean_whitened, lower=True, trans="T", check_finite=False)
        return cls(L_K @ mean_whitened, alpha, "covariance", (L_K, T), float(jitter))

    # ----- prediction -------------------------------------------------------------------
    def reduction_factors(self, K_cross: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(V, U) with K*^T C K* = V^T V - U^T U, the reduction of the prior covariance of
        f* (U is None except for the covariance form). Columns of V and U belong to columns of
        ``K_cross``, so covariances between two sets of test points are products of their
        columns, without the joint covariance (level-set look-ahead)."""
        if self.form == "noise":
            (L,) = self.factors
            # Line 5 (R&W 2006, Alg. 2.1): v = L \ k*
            return solve_triangular(L, K_cross, lower=True, check_finite=False), None
        if self.form == "precision":
            R, L_B = self.factors
            RtK = R[:, None] * K_cross if R.ndim == 1 else R.T @ K_cross
            # Line 5 of R&W 2006, Alg. 3.2 (Laplace) / 3.6 (EP): v = L \ (W^1/2 k*), R for W^1/2
            return solve_triangular(L_B, RtK, lower=True, check_finite=False), None
        L_K, T = self.factors
        V = solve_triangular(L_K, K_cross, lower=True, check_finite=False)
        return V, T.T @ V

    def predict_at(self, kernel, X_train, X_test, full_cov: bool = False
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance (``full_cov``: covariance) of the latent f at the rows of
        ``X_test``, this being the Gaussian of f at ``X_train`` under ``kernel`` (R&W 2006,
        Alg. 2.1 lines 4-6; Algs. 3.2 and 3.6 for Laplace and EP): the one prediction every GP
        model of the course ends in."""
        X_test = as_inputs(X_test, "X_test", X_train.shape[1])
        if full_cov:
            check_exact_size(X_test.shape[0], "X_test", what="the predictive covariance",
                             advice="ask for variances only (full_cov=False) or predict at "
                                    "fewer points")
        K_test = kernel(X_test) if full_cov else kernel.diag(X_test)
        return self.predict(kernel(X_train, X_test), K_test)

    def predict(self, K_cross, K_test) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance (or covariance) of the latents f*.
        Lecture 04, section 4 (One prediction step for every Gaussian posterior).

        ``K_cross = k(X, X*)`` has shape (n, n*). Pass ``K_test = kernel.diag(X*)`` (shape
        (n*,)) to get variances, or ``K_test = kernel(X*)`` (shape (n*, n*)) for the full
        covariance. Returns ``(m*, v*)`` with ``m* = K*^T alpha`` and
        ``v* = K** - K*^T C K*`` (module docstring); tiny negative variances from round-off
        are clipped to 0.
        """
        n = self.alpha.shape[0]
        K_cross = as_float_array(K_cross, "K_cross", ndim=2)
        if K_cross.shape[0] != n:
            raise ValueError(f"K_cross: expected {n} rows (training points), got {K_cross.shape}")
        m = K_cross.shape[1]
        K_test = as_float_array(K_test, "K_test", ndim=(1, 2))
        if K_test.shape not in ((m,), (m, m)):
            raise ValueError(f"K_test: expected shape ({m},) or ({m}, {m}), got {K_test.shape}")
        # Lines 4-6 as in R&W 2006, Alg. 2.1, or Algs. 3.2 / 3.6 with their alpha and factors
        mean = K_cross.T @ self.alpha           # Line 4 (R&W 2006, Alg. 2.1): mean k*^T alpha
        V, U = self.reduction_factors(K_cross)  # Line 5 (R&W 2006, Alg. 2.1): v = L \ k*
        if K_test.ndim == 1:
            var = K_test - np.einsum("ij,ij->j", V, V)  # Line 6 (R&W 2006, Alg. 2.1): k** - v^T v
            if U is not None:
                var += np.einsum("ij,ij->j", U, U)  # covariance form (thesis eq. 2.16): + U^T U
            return mean, np.maximum(var, 0.0)
        cov = K_test - V.T @ V                  # Line 6 (R&W 2006, Alg. 2.1), as a covariance
        if U is not None:
            cov += U.T @ U                      # covariance form (thesis eq. 2.16): + U^T U
        return mean, cov

    def covariance(self, K=None) -> np.ndarray:
        """Sigma itself, shape (n, n) (for plots and checks; prediction never forms it).

        ``K`` (the prior covariance of the training latents) is needed by the "noise" and
        "precision" forms, which store Sigma only implicitly.
        """
        if self.form == "covariance":
            L_K, T = self.factors
            root = L_K @ T
            return root @ root.T
        if K is None:
            raise ValueError(f"K: the {self.form!r} form needs the prior covariance K to form "
                             "Sigma")
        K = as_square_matrix(K, "K", self.alpha.shape[0])
        return self.predict(K, K)[1]

    def log_det(self) -> float:
        """``log det`` of the factorised matrix: K + N ("noise"), B ("precision"; equal to
        log det(I + K W), the Laplace evidence term) or K ("covariance")."""
        factor = self.factors[1] if self.form == "precision" else self.factors[0]
        return log_det_from_cholesky(factor)


def predict_from_gaussian(K, K_cross, K_test, mean, Sigma) -> tuple[np.ndarray, np.ndarray]:
    """The two equations for any N(mean, Sigma) of the training latents (thesis 2.14 / 2.15).

    ``m* = K*^T K^-1 mean``; ``S* = K** - K*^T (K^-1 - K^-1 Sigma K^-1) K*``. ``K_test`` is the
    (n*,) diagonal for variances or the (n*, n*) matrix for a covariance.
    """
    return LatentGaussian.from_mean_cov(K, mean, Sigma).predict(K_cross, K_test)


# ----- the checks every latent-Gaussian approximation shares ---------------------------------
def check_latent_problem(K, M, likelihood, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the inputs of a latent-Gaussian approximation (Laplace, EP or variational): the
    items' prior covariance ``K`` (n x n, symmetric), the map ``M`` (m x n), a ``likelihood``
    (a :class:`course_lib.preference.likelihoods.Likelihood`, which checks its own
    observations) and its m observations ``y``; returns K, M and y as checked arrays, errors
    name the argument."""
    K = check_prior_covariance(K)
    M = as_float_array(M, "M", ndim=2)
    check_map_columns(M, K.shape[0])
    _check_map_rows(M)
    # Unit 4 knows a likelihood by the interface the later units give it (it checks its own
    # observations), not by its class, which lives in Unit 6
    check = getattr(likelihood, "check_observations", None)
    if isinstance(likelihood, type) or not callable(check):
        raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    y = likelihood.check_observations(y, "y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"y: expected {M.shape[0]} observations (one per row of M), got shape "
                         f"{y.shape}")
    return K, M, y


def check_prior_covariance(K) -> np.ndarray:
    """``K`` checked as the items' prior covariance (n x n, symmetric)."""
    K = as_square_matrix(K, "K")
    check_symmetric(K, "K")
    return K


def _check_map_rows(M: np.ndarray) -> None:
    """Refuse a row of ``M`` that is all zeros: its z is 0 whatever f is, so it observes
    nothing, and a hand-built comparison of an item with itself (+1 and -1 in one column)
    is exactly such a row."""
    empty = ~np.any(M != 0, axis=1)
    if empty.any():
        k = int(np.argmax(empty))
        raise ValueError(f"M: row {k} is all zeros, so z = (M f)_{k} is 0 whatever f is and "
                         "its observation says nothing about f; a comparison of an item with "
                         "itself (+1 and -1 in the same column) gives such a row. A comparison "
                         "needs two different items (Comparisons refuses the pair by name)")


def check_map_columns(M: np.ndarray, n: int) -> None:
    """Refuse a map ``M`` without one column per item (n of them)."""
    if M.shape[1] != n:
        raise ValueError(f"M: expected {n} columns (one per item, as K is {n} x {n}), got shape "
                         f"{M.shape}")


# ----- checks of the prediction -----------------------------------------------------------
def _vector(v, name: str, n: int) -> np.ndarray:
    return check_length(as_float_array(v, name, ndim=1), name, n, "training point")


def _noise_vector(noise, n: int) -> np.ndarray:
    noise = as_float_array(noise, "noise", ndim=(0, 1))
    if noise.ndim == 0:
        noise = np.full(n, float(noise))
    if noise.shape != (n,):
        raise ValueError(f"noise: expected a scalar or shape ({n},), got {noise.shape}")
    if np.any(noise < 0):
        raise ValueError("noise: variances must be >= 0")
    return noise
