"""The Laplace approximation for a GP with a non-Gaussian likelihood on linear maps z = M f.

Model: f ~ N(0, K) over the n items; m observations y_k, each depending on one entry of
z = M f (rows of M: +1 / -1 for a pairwise comparison, an identity row for a single-item
rating; see :mod:`course_lib.gp.comparisons`), through a likelihood from
:mod:`course_lib.gp.likelihoods` that returns, per row, log p(y_k | z_k), its gradient g_k and
its curvature w_k = -d^2 log p / dz^2. The log posterior (up to a constant) is

    psi(f) = sum_k log p(y_k | z_k) - 1/2 f^T K^-1 f,
    grad psi = M^T g - K^-1 f,         -Hessian = K^-1 + W,   W = M^T diag(w) M.

W is SINGULAR for pairwise data (every row of M sums to zero, so M 1 = 0): it is never inverted
here. The mode f_hat is found by Newton's method on the weights a = K^-1 f (f = K a), so K^-1
is never formed either, with one of three factorisations of the same matrix:

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

In all three, log det B = log det(I + K W). One Newton step is

    b = W f + M^T g = M^T (w * z + g),     f_new = (K^-1 + W)^-1 b,

(for the R forms ``a_new = b - R B^-1 R^T K b``; for the L_K form
``a_new = L^-T B^-1 L^T b``), taken along a backtracking line search on psi. Where some w < 0
and K^-1 + W is not positive definite (far from the mode of a Beta likelihood) the exact step
is no ascent direction: the step then uses the clipped weights max(w, 0), a positive-definite
stand-in that keeps every step uphill, and exact Newton resumes as soon as it is defined. At the
mode K^-1 + W must be positive definite, else the Gaussian approximation does not exist (a
saddle or a flat direction of the posterior): that raises :class:`InvalidLaplaceError` rather
than being hidden by jitter.

The result (thesis, J. B. Nielsen 2015, eqs. 2.25-2.27; Rasmussen & Williams 2006, sec. 3.4):

    q(f) = N(f_hat, (K^-1 + W)^-1),
    log q(y | theta) = sum_k log p(y_k | z_hat_k) - 1/2 f_hat^T a - 1/2 log det B,

with W at the mode and a = K^-1 f_hat (at the mode a = M^T g). The posterior is the course's
:class:`~course_lib.gp.prediction.LatentGaussian`: the "precision" form with R for the two R
factorisations; for the L_K one the whitened "covariance" form with L_K = L and T = L_B^-T
(Sigma = L B^-1 L^T), which needs no square root of W and so holds when some w < 0.

Gradient of the log evidence (:meth:`LaplaceResult.evidence_gradient`). f_hat depends on the
hyper-parameters, but the first two terms of log q are stationary in f at the mode, so f_hat
acts only through log det B. With Sigma = (K^-1 + W)^-1, s_k = (M Sigma M^T)_kk the posterior
variance of z_k, t_k = d^3 log p / dz^3, C = (K + W^-1)^-1 = W - W Sigma W (written without
W^-1) and v = 1/2 M^T (t * s) (= d log q / d f_hat):

    kernel theta_j:      1/2 a^T dK_j a - 1/2 tr(C dK_j)   +   v^T (I + K W)^-1 dK_j a
    likelihood theta_p:  sum_k dlogp_k/dtheta_p - 1/2 sum_k s_k dw_k/dtheta_p
                                                          +   v^T Sigma M^T dg/dtheta_p

The last term of each line is the implicit term d log q / d f_hat . d f_hat / d theta, from
differentiating the mode condition f_hat = K M^T g(M f_hat) (appendix of Nielsen, Jensen & Larsen
2012); leaving it out (``implicit=False``) gives a gradient that fails a finite-difference check
(tests/test_gp_laplace.py shows both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular

from ..linalg import (NotPositiveDefiniteError, as_square_matrix, check_symmetric,
                      cholesky_with_jitter, log_det_from_cholesky)
from ..validation import as_float_array, as_positive_float, as_positive_int, check_choice
from .likelihoods import Likelihood, LikelihoodTerms
from .prediction import LatentGaussian

__all__ = ["laplace_mode", "newton_path", "LaplaceResult", "NewtonStep",
           "InvalidLaplaceError"]

# Armijo constant of the backtracking line search, and how often it halves the step.
ARMIJO = 1e-4
MAX_HALVINGS = 40
FORMS = ("auto", "m x m", "n x n", "L_K")


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
    log_evidence : log q(y | theta) (module docstring).
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
    _problem: "_Problem" = field(repr=False, compare=False)
    _factor: "_Factor" = field(repr=False, compare=False)

    @property
    def z_hat(self) -> np.ndarray:
        """M f_hat, the latent argument of every observation at the mode."""
        return self._problem.M @ self.f_hat

    def covariance(self) -> np.ndarray:
        """Sigma = (K^-1 + W)^-1, the (n, n) posterior covariance (for checks and plots)."""
        return self._factor.covariance()

    def evidence_gradient(self, dK, *, implicit: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Gradient of :attr:`log_evidence`: ``(d / d kernel theta (P,), d / d likelihood
        theta (Q,))``, for ``dK`` of shape (P, n, n) (``kernel.gradient(X)[1]``) and the
        likelihood's log-parameters in the order of ``likelihood.param_names``.

        ``implicit=False`` leaves out the term through f_hat(theta) (module docstring), which
        is wrong: it is there to show what that term is worth.
        """
        problem, factor = self._problem, self._factor
        n = self.f_hat.shape[0]
        dK = as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != (n, n):
            raise ValueError(f"dK: expected shape (P, {n}, {n}) (one kernel derivative per "
                             f"hyper-parameter), got {dK.shape}")
        M, a, z = problem.M, self.alpha, self.z_hat
        likelihood, y = problem.likelihood, problem.y
        third = likelihood.terms(z, y, order=3).third
        Sigma = factor.covariance()
        s = np.einsum("kj,kj->k", M @ Sigma, M)           # posterior variances of z
        C = factor.inverse_k_plus_w_inverse()
        dK_a = dK @ a                                    # (P, n)
        grad_kernel = 0.5 * dK_a @ a - 0.5 * np.einsum("ij,pij->p", C, dK)
        parameter_terms = likelihood.parameter_terms(z, y)   # (Q, 3, m)
        grad_likelihood = (parameter_terms[:, 0].sum(axis=1)
                           - 0.5 * parameter_terms[:, 2] @ s)
        if implicit:
            v = 0.5 * M.T @ (third * s)                   # d log q / d f_hat
            # v^T (I + K W)^-1 = ((I - W Sigma) v)^T, since (I + K W)^-1 = I - Sigma W
            r = v - factor.W @ (Sigma @ v)
            grad_kernel = grad_kernel + dK_a @ r
            grad_likelihood = grad_likelihood + (M @ (Sigma @ v)) @ parameter_terms[:, 1].T
        if not (np.all(np.isfinite(grad_kernel)) and np.all(np.isfinite(grad_likelihood))):
            raise ValueError("dK: the gradient of the Laplace evidence is not finite; check "
                             "that dK holds finite kernel derivatives")
        return grad_kernel, grad_likelihood


# --------------------------------------------------------------------------------------------
# The Newton iteration
# --------------------------------------------------------------------------------------------
@dataclass
class _State:
    """One point of the iteration: weights a, latents f = K a, z = M f, terms, psi."""

    a: np.ndarray
    f: np.ndarray
    z: np.ndarray
    terms: LikelihoodTerms
    psi: float


class _Factor:
    """A factorisation of B for given weights w (module docstring), with the operations the
    Newton step, the posterior and the evidence gradient need."""

    def __init__(self, problem: "_Problem", w: np.ndarray, form: str):
        self.problem, self.w, self.form = problem, w, form
        M, K = problem.M, problem.K
        self.W = (M.T * w) @ M
        if form != "L_K":
            root = M * np.sqrt(w)[:, None]                   # diag(sqrt w) M, m x n
            # R R^T = W: R = M^T diag(sqrt w) (n x m), or U^T from root = Q U (n x n)
            self.R = root.T if form == "m x m" else np.linalg.qr(root, mode="r").T
            B = np.eye(self.R.shape[1]) + self.R.T @ K @ self.R
            self.L_B = cholesky(B, lower=True, check_finite=False)  # B >= I
        else:
            L = problem.chol_K()
            B = np.eye(K.shape[0]) + L.T @ self.W @ L
            # raises LinAlgError when K^-1 + W is not positive definite
            self.L_B = cholesky(B, lower=True, check_finite=False)

    def newton_weights(self, state: _State) -> np.ndarray:
        """a_new of the Newton step from ``state`` with these weights."""
        problem = self.problem
        b = problem.M.T @ (self.w * state.z + state.terms.gradient)
        if self.form != "L_K":
            return b - self.R @ cho_solve((self.L_B, True), self.R.T @ (problem.K @ b),
                                          check_finite=False)
        L = problem.chol_K()
        inner = cho_solve((self.L_B, True), L.T @ b, check_finite=False)
        return solve_triangular(L, inner, lower=True, trans="T", check_finite=False)

    def log_det(self) -> float:
        return log_det_from_cholesky(self.L_B)

    def covariance(self) -> np.ndarray:
        """Sigma = (K^-1 + W)^-1."""
        K = self.problem.K
        if self.form != "L_K":
            V = solve_triangular(self.L_B, self.R.T @ K, lower=True, check_finite=False)
            return K - V.T @ V
        V = solve_triangular(self.L_B, self.problem.chol_K().T, lower=True, check_finite=False)
        return V.T @ V

    def inverse_k_plus_w_inverse(self) -> np.ndarray:
        """C = (K + W^-1)^-1 = W - W Sigma W, written without W^-1."""
        if self.form != "L_K":
            U = solve_triangular(self.L_B, self.R.T, lower=True, check_finite=False)
            return U.T @ U
        return self.W - self.W @ self.covariance() @ self.W

    def latent_gaussian(self, state: _State) -> LatentGaussian:
        if self.form != "L_K":
            return LatentGaussian(state.f, state.a, "precision", (self.R, self.L_B), 0.0)
        n = state.f.shape[0]
        T = solve_triangular(self.L_B, np.eye(n), lower=True, check_finite=False).T
        return LatentGaussian(state.f, state.a, "covariance", (self.problem.chol_K(), T),
                              self.problem.jitter)


class _Problem:
    """K, M, y and the likelihood of one Laplace fit; K's Cholesky factor when needed."""

    def __init__(self, K, M, likelihood, y, form: str):
        self.K, self.M, self.likelihood, self.y = K, M, likelihood, y
        self.form = form
        self._L = None
        self.jitter = 0.0

    def chol_K(self) -> np.ndarray:
        """Lower Cholesky factor of K (jitter ladder). If jitter was needed, K itself becomes
        K + jitter I from then on, so that every form works with the same prior."""
        if self._L is None:
            self._L, self.jitter = cholesky_with_jitter(self.K, "K")
            if self.jitter > 0:
                self.K = self.K + self.jitter * np.eye(self.K.shape[0])
        return self._L

    def evaluate(self, a: np.ndarray) -> _State:
        f = self.K @ a
        z = self.M @ f
        terms = self.likelihood.terms(z, self.y)
        with np.errstate(invalid="ignore", over="ignore"):
            psi = float(np.sum(terms.log_likelihood) - 0.5 * a @ f)
        return _State(a, f, z, terms, psi if np.isfinite(psi) else -np.inf)

    def size_form(self) -> str:
        """The form for weights w >= 0: as asked, or by size (the smaller B)."""
        if self.form != "auto":
            return self.form
        return "m x m" if self.M.shape[0] <= self.M.shape[1] else "n x n"

    def factor(self, w: np.ndarray) -> _Factor:
        """The exact factorisation for weights w; raises LinAlgError when some w < 0 and
        K^-1 + W is not positive definite."""
        return _Factor(self, w, self.size_form() if np.all(w >= 0) else "L_K")


def check_latent_problem(K, M, likelihood, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the inputs of a latent-Gaussian approximation (Laplace or EP): the items' prior
    covariance ``K`` (n x n, symmetric), the map ``M`` (m x n), a ``likelihood`` and its m
    observations ``y``; returns K, M and y as checked arrays, errors name the argument."""
    K = as_square_matrix(K, "K")
    check_symmetric(K, "K")
    n = K.shape[0]
    M = as_float_array(M, "M", ndim=2)
    if M.shape[1] != n:
        raise ValueError(f"M: expected {n} columns (one per item, as K is {n} x {n}), got shape "
                         f"{M.shape}")
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.gp.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    y = likelihood.check_observations(y, "y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"y: expected {M.shape[0]} observations (one per row of M), got shape "
                         f"{y.shape}")
    return K, M, y


def _check_problem(K, M, likelihood, y, form):
    check_choice(form, "form", FORMS)
    K, M, y = check_latent_problem(K, M, likelihood, y)
    return _Problem(K, M, likelihood, y, form)


def _start(problem: _Problem, f0, alpha0) -> _State:
    """Where Newton starts: f0 if given; else the better (higher psi) of the cold start f = 0
    and the warm start alpha0, if any."""
    n = problem.K.shape[0]
    if f0 is not None and alpha0 is not None:
        raise ValueError("alpha0: give a warm start as f0 or as alpha0, not both")
    if f0 is not None:
        f0 = as_float_array(f0, "f0", ndim=1)
        if f0.shape != (n,):
            raise ValueError(f"f0: expected shape ({n},) (one latent value per item), got "
                             f"{f0.shape}")
        return problem.evaluate(cho_solve((problem.chol_K(), True), f0, check_finite=False))
    cold = problem.evaluate(np.zeros(n))
    if alpha0 is None:
        return cold
    a = as_float_array(alpha0, "alpha0", ndim=1)
    if a.shape != (n,):
        raise ValueError(f"alpha0: expected shape ({n},) (one weight per item), got {a.shape}")
    warm = problem.evaluate(a)
    return warm if warm.psi > cold.psi else cold


def laplace_mode(K, M, likelihood, y, f0=None, *, alpha0=None, max_iter: int = 100,
                 tol: float = 1e-9, form: str = "auto") -> LaplaceResult:
    """Mode, Gaussian approximation and log evidence of p(f | y) for f ~ N(0, K), z = M f.

    Parameters
    ----------
    K : (n, n) prior covariance of the latents (kernel matrix of the items).
    M : (m, n) the comparison matrix (``Comparisons.matrix()``; identity rows for ratings).
    likelihood : a :class:`~course_lib.gp.likelihoods.Likelihood`; ``y`` its m observations.
    f0 : optional (n,) start of the latents, always taken (a = K^-1 f0 by Cholesky of K).
    alpha0 : optional (n,) warm start of the weights a = K^-1 f (no solve; what
        :class:`~course_lib.gp.preference.PreferenceGP` passes between refits), taken only if
        its log posterior beats the cold start f = 0. Neither given: f = 0.
    max_iter : cap on the Newton steps.
    tol : Newton stops when the increase of the log posterior that the next step predicts
        (half of grad psi^T (K^-1 + W)^-1 grad psi) falls below ``tol``, after taking that
        step; the mode is then accurate to about ``tol`` in psi, i.e. f_hat to order
        ``tol`` (quadratic convergence). Tight values (1e-10) suit evidence gradients.
    form : ``"auto"`` (the smaller B: ``"m x m"`` when m <= n, else ``"n x n"``), or one of
        ``"m x m"``, ``"n x n"``, ``"L_K"`` (module docstring); the same numbers either way up
        to round-off (and the jitter L_K may need). Where some w < 0 the L_K form is used
        regardless (the R forms need sqrt(w)).

    Returns a :class:`LaplaceResult`. Raises :class:`InvalidLaplaceError` (naming
    ``likelihood``) when K^-1 + W is not positive definite at the point reached.
    """
    problem, state, max_iter, tol = _prepare(K, M, likelihood, y, f0, alpha0, max_iter, tol,
                                             form)
    converged, n_iter, n_clipped = False, 0, 0
    while n_iter < max_iter:
        state, step = _newton_step(problem, state, tol)
        n_iter += 1
        n_clipped += step.clipped
        if step.stop:
            converged = step.converged
            break
    return _finish(problem, state, n_iter, converged, n_clipped)


@dataclass(frozen=True)
class NewtonStep:
    """One point of the Newton path (:func:`newton_path`): the latents ``f`` and the log
    posterior ``psi`` (up to its constant) after the step; ``step_size`` the line-search
    factor taken (1 = the full Newton step; 0 for the start); ``clipped`` whether the step used
    the clipped weights max(w, 0); ``predicted_gain`` the increase of psi the full step
    predicted (its stopping rule compares it with ``tol``)."""

    f: np.ndarray
    psi: float
    step_size: float
    clipped: bool
    predicted_gain: float


@dataclass(frozen=True)
class _Step:
    size: float
    clipped: bool
    predicted_gain: float
    stop: bool
    converged: bool


def newton_path(K, M, likelihood, y, f0=None, *, alpha0=None, max_iter: int = 100,
                tol: float = 1e-9, form: str = "auto") -> list[NewtonStep]:
    """The iterates of :func:`laplace_mode`'s Newton iteration, the start first: the same step
    function, for plotting Newton's path on the log posterior (arguments as there)."""
    problem, state, max_iter, tol = _prepare(K, M, likelihood, y, f0, alpha0, max_iter, tol,
                                             form)
    path = [NewtonStep(state.f, state.psi, 0.0, False, np.nan)]
    for _ in range(max_iter):
        state, step = _newton_step(problem, state, tol)
        path.append(NewtonStep(state.f, state.psi, step.size, step.clipped,
                               step.predicted_gain))
        if step.stop:
            break
    return path


def _prepare(K, M, likelihood, y, f0, alpha0, max_iter, tol, form):
    problem = _check_problem(K, M, likelihood, y, form)
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol")
    if problem.size_form() == "L_K":
        problem.chol_K()      # settle K's jitter (if any) before the first evaluation
    return problem, _start(problem, f0, alpha0), max_iter, tol


def _newton_step(problem: _Problem, state: _State, tol: float) -> tuple[_State, _Step]:
    """One damped Newton step from ``state`` (module docstring) and what happened."""
    w = state.terms.curvature
    jitter_before, clipped = problem.jitter, False
    try:
        factor = problem.factor(w)
    except LinAlgError:       # some w < 0 and K^-1 + W indefinite here: clipped weights
        factor = _Factor(problem, np.maximum(w, 0.0), problem.size_form())
        clipped = True
    if problem.jitter != jitter_before:   # K gained jitter: restate the current point
        state = problem.evaluate(state.a)
    direction = factor.newton_weights(state) - state.a
    gradient = problem.M.T @ state.terms.gradient - state.a
    slope = float(gradient @ (problem.K @ direction))   # d psi / d step at step 0
    if 0.5 * slope < tol:                 # predicted gain below tol: last (full) step
        candidate = problem.evaluate(state.a + direction)
        if candidate.psi >= state.psi - 1e-12 * (1.0 + abs(state.psi)):
            return candidate, _Step(1.0, clipped, 0.5 * slope, True, True)
        return state, _Step(0.0, clipped, 0.5 * slope, True, True)
    size = 1.0
    for _ in range(MAX_HALVINGS):
        candidate = problem.evaluate(state.a + size * direction)
        if candidate.psi >= state.psi + ARMIJO * size * slope:
            return candidate, _Step(size, clipped, 0.5 * slope, False, False)
        size *= 0.5
    # no uphill step at round-off level: the gradient is as small as it gets
    converged = slope <= 1e-8 * (1.0 + abs(state.psi))
    return state, _Step(0.0, clipped, 0.5 * slope, True, converged)


def _finish(problem: _Problem, state: _State, n_iter: int, converged: bool,
            n_clipped: int) -> LaplaceResult:
    jitter_before = problem.jitter
    factor = _factor_at_mode(problem, state)
    if problem.jitter != jitter_before:   # K gained jitter just now: restate and refactor
        state = problem.evaluate(state.a)
        factor = _factor_at_mode(problem, state)
    log_det = factor.log_det()
    with np.errstate(invalid="ignore"):
        log_evidence = float(np.sum(state.terms.log_likelihood) - 0.5 * state.a @ state.f
                             - 0.5 * log_det)
    return LaplaceResult(state.f, state.a, state.terms, factor.latent_gaussian(state),
                         log_evidence, log_det, n_iter, converged, n_clipped, factor.form,
                         problem.jitter, problem, factor)


def _factor_at_mode(problem: _Problem, state: _State) -> _Factor:
    w = state.terms.curvature
    try:
        return problem.factor(w)
    except LinAlgError:
        raise InvalidLaplaceError(_not_peak_message(problem, w)) from None


def _not_peak_message(problem: _Problem, w: np.ndarray) -> str:
    L = problem.chol_K()
    B = np.eye(L.shape[0]) + L.T @ (problem.M.T * w) @ problem.M @ L
    smallest = float(np.linalg.eigvalsh(B)[0])
    negative = np.flatnonzero(w < 0)
    return (f"likelihood: K^-1 + W is not positive definite at the stationary point reached "
            f"(smallest eigenvalue of I + L^T W L: {smallest:.3g}; negative curvature w < 0 in "
            f"{negative.size} of {w.size} observations, e.g. row {int(negative[0])}): the "
            "posterior is not a peak there (a saddle of a likelihood that is not log-concave), "
            "so no Laplace approximation exists. Start Newton elsewhere (f0), or revise the "
            "likelihood's parameters; jitter would only hide this")
