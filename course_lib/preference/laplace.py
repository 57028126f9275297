"""The Laplace approximation for a GP with a non-Gaussian likelihood on linear maps z = M f.

Model: f ~ N(0, K) over the n items; m observations y_k, each depending on one entry of
z = M f (rows of M: +1 / -1 for a pairwise comparison, an identity row for a single-item
rating; see :mod:`course_lib.preference.comparisons`), through a likelihood from
:mod:`course_lib.preference.likelihoods` that returns, per row, log p(y_k | z_k), its gradient
g_k and its curvature w_k = -d^2 log p / dz^2. The log posterior, up to a constant, is (Rasmussen &
Williams 2006, eqs. 3.12-3.14, with M)

    psi(f) = sum_k log p(y_k | z_k) - 1/2 f^T K^-1 f,
    grad psi = M^T g - K^-1 f,         -Hessian = K^-1 + W,   W = M^T diag(w) M.

Newton's method (R&W Alg. 3.1) finds the mode f_hat, on the weights a = K^-1 f (f = K a, so
K^-1 is never formed): f_new = (K^-1 + W)^-1 (W f + M^T g) (R&W eq. 3.18), under a backtracking
line search on psi, until the gain the next step predicts falls below ``tol``. W is SINGULAR
for pairwise data (M 1 = 0) and is never inverted: the solve and log det(I + K W) go through
the factorisations of the last section, which factorise B = I + R^T K R (R R^T = W) in the
form that suits, and clip the weights to max(w, 0) where some w < 0 (a likelihood that is not
log-concave) makes K^-1 + W indefinite, so that every step still goes uphill. At the mode
K^-1 + W must be positive definite, else no Gaussian approximation exists (a saddle or a flat
direction of the posterior): that raises :class:`InvalidLaplaceError`, not hidden by jitter.

The result (thesis, J. B. Nielsen 2015, eqs. 2.25-2.27; R&W eq. 3.32), with W at the mode and
a = K^-1 f_hat (= M^T g there):

    q(f) = N(f_hat, (K^-1 + W)^-1),
    log q(y | theta) = sum_k log p(y_k | z_hat_k) - 1/2 f_hat^T a - 1/2 log det(I + K W),

and the gradient of log q in the hyper-parameters, with its implicit term through f_hat
(R&W eqs. 5.21-5.24; :func:`_evidence_gradient`, which :meth:`LaplaceResult.evidence_gradient`
calls).

The factorisations (the last section). Newton's method needs, for the
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

What it returns: :class:`LaplaceResult` holds what the iteration and the evidence at the mode
give, :class:`LaplaceEvidence` the evidence with its gradient (:func:`laplace_evidence`, what the
models' MAP-II maximises), :class:`NewtonStep` one point of the path that :func:`newton_path`
records for plotting; :class:`InvalidLaplaceError` is raised where no Gaussian approximation
exists.

Every approximation of p(f | y) for f ~ N(0, K) and z = M f takes the same four arguments (K, M,
likelihood, y): Laplace here, EP (:mod:`course_lib.preference.ep`) and the variational fits of
Unit 7. Their checks are written once, at the border, beside the Gaussian they all produce:
:func:`course_lib.gp.prediction.check_latent_problem`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular

from ..gp.prediction import LatentGaussian, check_latent_problem
from ..linalg import NotPositiveDefiniteError, cholesky_with_jitter, log_det_from_cholesky
from ..validation import (as_float_array, as_positive_float, as_positive_int, check_choice,
                          check_length)
from .likelihoods import Likelihood, LikelihoodTerms


__all__ = ["laplace_mode", "laplace_evidence", "newton_path", "LaplaceResult", "LaplaceEvidence",
           "NewtonStep", "InvalidLaplaceError"]

# Armijo constant of the backtracking line search, and how often it halves the step.
_ARMIJO = 1e-4
_MAX_HALVINGS = 40


def laplace_mode(K, M, likelihood, y, f0=None, *, alpha0=None, max_iter: int = 100,
                 tol: float = 1e-9, form: str = "auto") -> LaplaceResult:
    """Mode, Gaussian approximation and log evidence of p(f | y) for f ~ N(0, K), z = M f.
    Lecture 06, section 4 (Laplace, step by step).

    Parameters
    ----------
    K : (n, n) prior covariance of the latents (kernel matrix of the items).
    M : (m, n) the comparison matrix (``Comparisons.matrix()``; identity rows for ratings);
        a row of zeros observes nothing and is refused.
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood`; ``y`` its m observations.
    f0 : optional (n,) start of the latents, always taken (a = K^-1 f0 by Cholesky of K).
    alpha0 : optional (n,) warm start of the weights a = K^-1 f (no solve; what
        :class:`~course_lib.preference.preference_gp.PreferenceGP` passes between refits), taken only if
        its log posterior beats the cold start f = 0. Neither given: f = 0.
    max_iter : cap on the Newton steps.
    tol : Newton stops when the increase of the log posterior that the next step predicts
        (half of grad psi^T (K^-1 + W)^-1 grad psi) falls below ``tol``, after taking that
        step; the mode is then accurate to about ``tol`` in psi, i.e. f_hat to order
        ``tol`` (quadratic convergence). Tight values (1e-10) suit evidence gradients.
    form : ``"auto"`` (the smaller B: ``"m x m"`` when m <= n, else ``"n x n"``), or one of
        ``"m x m"``, ``"n x n"``, ``"L_K"`` (module docstring, "The factorisations"); the same
        numbers either way up to round-off (and the jitter L_K may need). Where some w < 0 the
        L_K form is used regardless (the R forms need sqrt(w)).

    Returns a :class:`LaplaceResult`. Raises :class:`InvalidLaplaceError` (naming
    ``likelihood``) when K^-1 + W is not positive definite at the point reached.
    """
    problem, state, max_iter, tol = _prepare(K, M, likelihood, y, f0, alpha0, max_iter, tol,
                                             form)
    converged, n_iter, n_clipped = False, 0, 0
    while n_iter < max_iter:      # Lines 3-9 (R&W 2006, Alg. 3.1): repeat ... until convergence
        state, step = _newton_step(problem, state, tol)
        n_iter += 1
        n_clipped += step.clipped
        if step.stop:
            converged = step.converged
            break
    return _at_the_mode(problem, state, n_iter, converged, n_clipped)


def laplace_evidence(K, M, likelihood, y, dK=None, *, alpha0=None, max_iter: int = 100,
                     tol: float = 1e-10) -> LaplaceEvidence:
    """The Laplace log evidence log q(y | theta) at the mode Newton finds (:func:`laplace_mode`,
    warm-started from ``alpha0``) and, when ``dK`` (shape (P, n, n), ``kernel.gradient(X)[1]``)
    is given, its gradient with the implicit term: d / d (the kernel's log-parameters of ``dK``,
    then the likelihood's in the order of ``likelihood.param_names``), a model's ``theta``.
    Lecture 06, section 4 (Laplace, step by step), "Learning the kernel: MAP-II"."""
    laplace = laplace_mode(K, M, likelihood, y, alpha0=alpha0, max_iter=max_iter, tol=tol)
    gradient = None if dK is None else np.concatenate(laplace.evidence_gradient(dK))
    return LaplaceEvidence(laplace.log_evidence, gradient, laplace)


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


# --------------------------------------------------------------------------------------------
# The core: Newton's method on psi, the evidence and its gradient
# --------------------------------------------------------------------------------------------
@dataclass
class _State:
    """One point of the iteration: weights a, latents f = K a, z = M f, the likelihood's terms
    at z, psi, and the jitter of K it was computed with."""

    a: np.ndarray
    f: np.ndarray
    z: np.ndarray
    terms: LikelihoodTerms
    psi: float
    jitter: float


class _Problem:
    """The likelihood and its observations y, with K and M inside the Newton system."""

    def __init__(self, system: _NewtonSystem, likelihood: Likelihood, y: np.ndarray):
        self.system, self.likelihood, self.y = system, likelihood, y
        self.M = system.M

    def evaluate(self, a: np.ndarray) -> _State:
        """The point with weights a: f = K a, z = M f and psi = sum_k log p(y_k | z_k) - 1/2 a^T f
        (R&W eq. 3.12 without its constants); -inf where psi is not finite."""
        f = self.system.K @ a                      # Line 8 (R&W 2006, Alg. 3.1): f = K a
        z = self.M @ f
        # Line 4 (R&W 2006, Alg. 3.1), per row: log p, g and w, so that W = M^T diag(w) M
        terms = self.likelihood.terms(z, self.y)
        with np.errstate(invalid="ignore", over="ignore"):
            # the objective of line 9 (R&W 2006, Alg. 3.1): psi = log p(y | f) - 1/2 a^T f
            psi = float(np.sum(terms.log_likelihood) - 0.5 * a @ f)
        return _State(a, f, z, terms, psi if np.isfinite(psi) else -np.inf, self.system.jitter)

    def restate(self, state: _State) -> _State:
        """``state`` again if K gained jitter since it was computed (f = K a moves)."""
        return state if state.jitter == self.system.jitter else self.evaluate(state.a)


def _newton_step(problem: _Problem, state: _State, tol: float) -> tuple[_State, _Step]:
    """One step of Newton's method on psi: the direction, then the stopping rule (the gain
    the full step predicts, half the slope, below ``tol``: take it and stop) or the line
    search; no uphill step at all means the gradient is as small as round-off lets it be.
    Lecture 06, section 4 (Laplace, step by step)."""
    direction, system, state = _newton_direction(problem, state)
    slope = _slope(problem, state, direction)
    if 0.5 * slope < tol:   # Line 9 (R&W 2006, Alg. 3.1): until the predicted gain is below tol
        state, size = _last_step(problem, state, direction)
        return state, _Step(size, system.clipped, 0.5 * slope, True, True)
    new_state, size = _line_search(problem, state, direction, slope)
    stop = size == 0.0
    converged = stop and slope <= 1e-8 * (1.0 + abs(state.psi))
    return new_state, _Step(size, system.clipped, 0.5 * slope, stop, converged)


def _newton_direction(problem: _Problem, state: _State
                      ) -> tuple[np.ndarray, _FactorisedSystem, _State]:
    """Newton's direction in the weights from ``state`` (R&W Alg. 3.1 lines 4-7, eq. 3.18):
    with the weights w of the factorised system, b = W f + M^T g = M^T (w * z + g) and
    a_new = (I + W K)^-1 b, so that f_new = K a_new = (K^-1 + W)^-1 b; returns a_new - a. Where
    K^-1 + W is indefinite the system holds the clipped weights max(w, 0) (``clipped``).
    Lecture 06, section 4 (Laplace, step by step)."""
    # Lines 4-5 (R&W 2006, Alg. 3.1), factorised: W = M^T diag(w) M, L = cholesky(B) for the
    # B = I + R^T K R (R R^T = W) of _NewtonSystem in place of I + W^1/2 K W^1/2
    system = problem.system.factorise(state.terms.curvature, damped=True)
    state = problem.restate(state)
    # Line 6 (R&W 2006, Alg. 3.1): b = W f + grad log p(y | f) = M^T (w * z + g)
    b = problem.M.T @ (system.w * state.z + state.terms.gradient)
    # Line 7 (R&W 2006, Alg. 3.1): a = (I + W K)^-1 b, returned as the step from the current a
    return system.solve(b) - state.a, system, state


def _slope(problem: _Problem, state: _State, direction: np.ndarray) -> float:
    """d psi / d t of psi(a + t direction) at t = 0: grad psi^T K direction, with
    grad psi = M^T g - a (R&W eq. 3.13). For the exact Newton direction it equals
    grad psi^T (K^-1 + W)^-1 grad psi, twice the gain the full step predicts (the squared
    Newton decrement of Boyd & Vandenberghe 2004, sec. 9.5.1)."""
    gradient = problem.M.T @ state.terms.gradient - state.a
    return float(gradient @ (problem.system.K @ direction))


def _line_search(problem: _Problem, state: _State, direction: np.ndarray, slope: float
                 ) -> tuple[_State, float]:
    """Backtracking from the full step (Nocedal & Wright 2006, Alg. 3.1): the first of the
    sizes t = 1, 1/2, 1/4, ... whose psi meets Armijo's condition
    psi(a + t direction) >= psi(a) + _ARMIJO t slope (their eq. 3.4). Returns the new state and
    t, or ``state`` and 0 when none of ``_MAX_HALVINGS`` sizes does.
    Lecture 06, section 4 (Laplace, step by step)."""
    size = 1.0
    for _ in range(_MAX_HALVINGS):
        # Lines 7-8 (R&W 2006, Alg. 3.1), damped: a + t (a_new - a), then f = K a
        candidate = problem.evaluate(state.a + size * direction)
        if candidate.psi >= state.psi + _ARMIJO * size * slope:  # Nocedal & Wright, eq. 3.4
            return candidate, size
        size *= 0.5
    return state, 0.0


def _last_step(problem: _Problem, state: _State, direction: np.ndarray
               ) -> tuple[_State, float]:
    """The full step taken once the stopping rule holds (the gain it predicts is below tol),
    unless psi falls by more than round-off there: then ``state`` stays (size 0)."""
    candidate = problem.evaluate(state.a + direction)  # Lines 7-8 (R&W 2006, Alg. 3.1): a_new, K a
    if candidate.psi >= state.psi - 1e-12 * (1.0 + abs(state.psi)):
        return candidate, 1.0
    return state, 0.0


def _log_evidence(state: _State, log_det: float) -> float:
    """log q(y | theta) = sum_k log p(y_k | z_hat_k) - 1/2 a^T f_hat - 1/2 log det B
    (R&W Alg. 3.1 line 10, eq. 3.32). Lecture 06, section 4 (Laplace, step by step)."""
    with np.errstate(invalid="ignore"):
        # Line 10 (R&W 2006, Alg. 3.1): log p(y | f) - 1/2 a^T f - sum_i log L_ii
        return float(np.sum(state.terms.log_likelihood) - 0.5 * state.a @ state.f
                     - 0.5 * log_det)


def _evidence_gradient(problem: _Problem, system: _FactorisedSystem, a: np.ndarray,
                       z: np.ndarray, dK: np.ndarray, implicit: bool
                       ) -> tuple[np.ndarray, np.ndarray]:
    """d log q / d theta for kernel derivatives dK (P, n, n) and the likelihood's parameters
    (R&W Alg. 5.1 with M). f_hat(theta) acts only through log det B, as the other two terms
    of log q are stationary at the mode. With Sigma = (K^-1 + W)^-1, s_k = (M Sigma M^T)_kk
    the posterior variance of z_k, t_k = d^3 log p / dz^3, C = (K + W^-1)^-1 = W - W Sigma W
    and v = 1/2 M^T (t * s) = d log q / d f_hat (eq. 5.23):

        kernel theta_j:      1/2 a^T dK_j a - 1/2 tr(C dK_j)   +   v^T (I + K W)^-1 dK_j a
        likelihood theta_p:  sum_k dlogp_k/dtheta_p - 1/2 sum_k s_k dw_k/dtheta_p
                                                              +   v^T Sigma M^T dg/dtheta_p

    the explicit terms (eq. 5.22), then, if ``implicit``, v^T d f_hat / d theta from
    differentiating the mode condition f_hat = K M^T g(M f_hat) (eq. 5.24).
    Lecture 06, section 4 (Laplace, step by step), "Learning the kernel: MAP-II".
    """
    M, likelihood, y = problem.M, problem.likelihood, problem.y
    third = likelihood.terms(z, y, order=3).third      # for line 8 (R&W 2006, Alg. 5.1)
    Sigma = system.covariance()                        # (K^-1 + W)^-1 (Alg. 5.1 lines 7-8)
    # Line 8 (R&W 2006, Alg. 5.1), through M: the diagonal of M Sigma M^T
    s = np.einsum("kj,kj->k", M @ Sigma, M)             # posterior variances of z
    C = system.inverse_k_plus_w_inverse()  # Line 6 (R&W 2006, Alg. 5.1): R = (K + W^-1)^-1
    dK_a = dK @ a                          # (P, n); line 12 (R&W 2006, Alg. 5.1): b = dK_j a
    # Line 11 (R&W 2006, Alg. 5.1; eq. 5.22): s1 = 1/2 a^T dK_j a - 1/2 tr(R dK_j)
    grad_kernel = 0.5 * dK_a @ a - 0.5 * np.einsum("ij,pij->p", C, dK)
    parameter_terms = likelihood.parameter_terms(z, y)   # (Q, 3, m)
    # eq. 5.22's explicit terms for the likelihood's own parameters (not in Alg. 5.1)
    grad_likelihood = (parameter_terms[:, 0].sum(axis=1)
                       - 0.5 * parameter_terms[:, 2] @ s)
    if implicit:
        # Line 8 (R&W 2006, Alg. 5.1; eq. 5.23): s2 = d log q / d f_hat
        v = 0.5 * M.T @ (third * s)                     # d log q / d f_hat
        # v^T (I + K W)^-1 = ((I - W Sigma) v)^T, since (I + K W)^-1 = I - Sigma W
        # Line 13 (R&W 2006, Alg. 5.1; eq. 5.24) from the left: s2^T s3 = r^T dK_j a
        r = v - system.W @ (Sigma @ v)
        # Line 14 (R&W 2006, Alg. 5.1; eq. 5.21): s1 + s2^T s3
        grad_kernel = grad_kernel + dK_a @ r
        # eq. 5.21's implicit term for the likelihood's parameters, through f_hat = K M^T g
        grad_likelihood = grad_likelihood + (M @ (Sigma @ v)) @ parameter_terms[:, 1].T
    return grad_kernel, grad_likelihood


def _at_the_mode(problem: _Problem, state: _State, n_iter: int, converged: bool,
                 n_clipped: int) -> LaplaceResult:
    """The Gaussian at the point reached, with the exact weights there, and its evidence."""
    try:
        # at the mode: W and L as R&W 2006, Alg. 3.2 lines 2-3 (prediction) need them
        system = problem.system.factorise(state.terms.curvature)
        if state.jitter != problem.system.jitter:   # K gained jitter just now: restate
            state = problem.restate(state)
            system = problem.system.factorise(state.terms.curvature)
    except LinAlgError:
        raise InvalidLaplaceError(_not_peak_message(problem, state.terms.curvature)) from None
    log_det = system.log_det()   # for line 10 (R&W 2006, Alg. 3.1): 2 sum_i log L_ii
    return LaplaceResult(state.f, state.a, state.terms, system.posterior(state.f, state.a),
                         _log_evidence(state, log_det), log_det, n_iter, converged, n_clipped,
                         system.form, problem.system.jitter, problem, system,
                         partial(_evidence_gradient, problem, system))


@dataclass(frozen=True)
class _Step:
    size: float
    clipped: bool
    predicted_gain: float
    stop: bool
    converged: bool


# --------------------------------------------------------------------------------------------
# Checks at the entry points
# --------------------------------------------------------------------------------------------
def _prepare(K, M, likelihood, y, f0, alpha0, max_iter, tol, form):
    check_choice(form, "form", _FORMS)
    K, M, y = check_latent_problem(K, M, likelihood, y)
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol")
    problem = _Problem(_NewtonSystem(K, M, form), likelihood, y)
    return problem, _start(problem, f0, alpha0), max_iter, tol


def _start(problem: _Problem, f0, alpha0) -> _State:
    """Where Newton starts (R&W Alg. 3.1 line 2 has f = 0): f0 if given; else the better
    (higher psi) of the cold start f = 0 and the warm start alpha0, if any."""
    n = problem.M.shape[1]
    if f0 is not None and alpha0 is not None:
        raise ValueError("alpha0: give a warm start as f0 or as alpha0, not both")
    if f0 is not None:
        f0 = check_length(as_float_array(f0, "f0", ndim=1), "f0", n, "item (its latent)")
        L = problem.system.cholesky()
        return problem.evaluate(cho_solve((L, True), f0, check_finite=False))
    cold = problem.evaluate(np.zeros(n))           # Line 2 (R&W 2006, Alg. 3.1): f = 0
    if alpha0 is None:
        return cold
    a = check_length(as_float_array(alpha0, "alpha0", ndim=1), "alpha0", n, "item (its weight)")
    warm = problem.evaluate(a)
    return warm if warm.psi > cold.psi else cold


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
    terms : :class:`~course_lib.preference.likelihoods.LikelihoodTerms` at z_hat = M f_hat.
    posterior : :class:`~course_lib.gp.prediction.LatentGaussian` of the training latents.
    log_evidence : log q(y | theta) (:mod:`course_lib.preference.laplace`).
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
    _problem: object = field(repr=False, compare=False)   # course_lib.preference.laplace's problem
    _system: _FactorisedSystem = field(repr=False, compare=False)
    # course_lib.preference.laplace._evidence_gradient at this mode's problem and system
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
        (:func:`course_lib.preference.laplace._evidence_gradient`), which is wrong: it is there to show
        what that term is worth.
        """
        n = self.f_hat.shape[0]
        dK = as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != (n, n):
            raise ValueError(f"dK: expected shape (P, {n}, {n}) (one kernel derivative per "
                             f"hyper-parameter), got {dK.shape}")
        grad_kernel, grad_likelihood = self._gradient(self.alpha, self.z_hat, dK, implicit)
        if not (np.all(np.isfinite(grad_kernel)) and np.all(np.isfinite(grad_likelihood))):
            raise ValueError("dK: the gradient of the Laplace evidence is not finite; check "
                             "that dK holds finite kernel derivatives")
        return grad_kernel, grad_likelihood


@dataclass(frozen=True)
class LaplaceEvidence:
    """The Laplace log evidence log q(y | theta) at some theta (``value``), its gradient with
    respect to the log hyper-parameters (kernel, then likelihood: a model's ``param_names``;
    None unless asked for) and the :class:`LaplaceResult` it came from."""

    value: float
    gradient: np.ndarray | None
    laplace: LaplaceResult


@dataclass(frozen=True)
class NewtonStep:
    """One point of the Newton path (:func:`~course_lib.preference.laplace.newton_path`): the latents
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


# --------------------------------------------------------------------------------------------
# The linear algebra of a Newton step: K^-1 + W factorised without inverting W or K (module
# docstring, "The factorisations"). A reader of the algorithm above may stop here: the core
# asks for one solve and one log det, and what follows only computes them stably.
# --------------------------------------------------------------------------------------------
_FORMS = ("auto", "m x m", "n x n", "L_K")


class _NewtonSystem:
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

    def factorise(self, w: np.ndarray, *, damped: bool = False) -> "_FactorisedSystem":
        """K^-1 + W for the weights w: in this system's form if every w >= 0, else in the L_K
        form. Raises LinAlgError when K^-1 + W is not positive definite, unless ``damped``:
        then the clipped weights max(w, 0) are factorised instead (``clipped`` is True)."""
        try:
            return self._factorised(w, self.form if np.all(w >= 0) else "L_K", False)
        except LinAlgError:
            if not damped:
                raise
            return self._factorised(np.maximum(w, 0.0), self.form, True)

    def _factorised(self, w, form, clipped) -> "_FactorisedSystem":
        if form == "L_K":
            return _CholeskySystem(self, w, clipped)
        return _RootSystem(self, w, clipped, form)

    def smallest_eigenvalue(self, w: np.ndarray) -> float:
        """Smallest eigenvalue of B = I + L^T W L (negative when K^-1 + W is indefinite)."""
        L = self.cholesky()
        B = np.eye(L.shape[0]) + L.T @ (self.M.T * w) @ self.M @ L
        return float(np.linalg.eigvalsh(B)[0])


class _FactorisedSystem(ABC):
    """K^-1 + W factorised for the weights ``w`` (the clipped ones if ``clipped``) in the form
    ``form``, through the lower Cholesky factor ``L_B`` of its B: the solve and log-det of a
    Newton step, the posterior covariance Sigma = (K^-1 + W)^-1 and what the evidence gradient
    needs."""

    def __init__(self, system: _NewtonSystem, w: np.ndarray, clipped: bool, form: str):
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


class _RootSystem(_FactorisedSystem):
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


class _CholeskySystem(_FactorisedSystem):
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
