"""Expectation propagation (EP) for a GP whose observations each depend on ONE item's latent.

Model: f ~ N(0, K) over the n items; m observations y_k, observation k depending on
z_k = f(item_k) only: the rows of M are identity rows (single-item ratings, Unit 6's bounded
regression; binary labels with ``PairwiseProbit`` are probit classification). Several rows may
rate the same item: each row keeps its own site. Pairwise rows (+1 and -1) are refused: a
two-item term would need a factorised pair of sites (thesis footnote 4), which the thesis did
not implement either; use the Laplace approximation for comparisons.

Sites and posterior (thesis eqs. 2.28-2.29 corrected, Jensen et al. 2013 sec. 4.2; Rasmussen &
Williams 2006, sec. 3.6). Each likelihood term is replaced by an unnormalised 1-D Gaussian site in
natural parameters, t_k(f) = C_k exp(nu_k f - tau_k f^2 / 2), with site precision tau_k >= 0
and shift nu_k. With S = diag(s), s_i = sum of tau_k over the rows of item i, and
b_i = sum of nu_k over those rows,

    q(f) = N(mu, Sigma),   Sigma = (K^-1 + S)^-1,   mu = Sigma b,

computed in R&W's stable form with B = I + S^1/2 K S^1/2 = L L^T (B >= I, never K^-1):

    alpha = K^-1 mu = b - S^1/2 B^-1 S^1/2 K b,   mu = K alpha,
    diag Sigma = diag K - colsum(V^2),            V = L^-1 S^1/2 K.

Cavity of row k (item i): the marginal N(mu_i, Sigma_ii) without site k,

    tau_c = 1/Sigma_ii - tau_k,   nu_c = mu_i/Sigma_ii - nu_k,   m = nu_c/tau_c,   v = 1/tau_c.

Numerics: where an item's sites are strong (s_i K_ii >> 1) diag K - colsum(V^2) and
1/Sigma_ii - tau_k cancel (a truncated Gaussian with noise_sd 1e-5, where L-BFGS-B's first step
can land, had site precisions near 4e8 against cavity precisions near 1). Since
Sigma = S^-1/2 (I - B^-1) S^-1/2, with d_i = (B^-1)_ii in (0, 1] they are also

    Sigma_ii = (1 - d_i) / s_i,     tau_c = (s_i - tau_k + tau_k d_i) / (1 - d_i),

sums of non-negative terms, which cancel only where d_i is near 1 (weak sites); each form is
used where it is accurate (d_i < 1/2: the second).

Moment matching: the tilted distribution p(y_k | f) N(f; m, v) / Z_k has mean m + delta and
variance v_hat (with g1, g2 the first two derivatives of log Z_k in m: delta = v g1 and
v_hat = v + v^2 g2), and the site that reproduces them is (R&W 3.59 in natural parameters)

    tau_new = 1/v_hat - 1/v,     nu_new = m tau_new + delta / v_hat,

computed from delta and v_hat directly: R&W's form -g2 / (1 + v g2) forms v_hat / v as
1 + v g2, which loses as many digits as v_hat / v is small (eight for a truncated Gaussian with
noise_sd 1e-5, where v_hat / v is near 1e-8).

The tilted moments come in closed form where the likelihood allows, else by quadrature
(:mod:`course_lib.preference.tilted_distributions`).

Negative site precisions. For a likelihood that is not log-concave (Beta, truncated Gaussian)
v_hat can exceed v: the tilted distribution is wider than the cavity and tau_new < 0. Such a
site is set to tau = 0 with nu = delta / v = g1, which still matches the tilted MEAN and
leaves the variance at the cavity's; every cavity then stays proper. (GPML's EP, the toolbox
Jensen et al. 2013 used, also clips tau at 0, but keeps nu from the unclipped formula, so its site
matches neither moment.) ``EPResult.n_clipped`` counts the sites clipped in the last sweep, and a
:class:`ClippedSiteWarning` says when some are: there the posterior is narrower than EP's
fixed point would be, and the evidence gradient is only approximate.

Updates: all sites at once from the same posterior (parallel EP, so the result does not depend
on the order of the rows), damped, new = damping * old + (1 - damping) * proposed, in natural
parameters (a convex combination keeps tau >= 0). Undamped parallel EP converges fastest when
it converges, but for sharp likelihoods the sites can swing back and forth (probit labels with
noise_sd = 0.1 on 50 close inputs still moved by 1e-3 after 300 undamped sweeps; with the
adaptive damping they settle in 64, tests/preference/test_ep.py), so the damping starts at
``damping`` and moves halfway to 1 whenever a sweep moves the sites more than the sweep
before. The iteration stops when no site moved by more than ``tol`` in the units of its
item's posterior, |d tau_k| Sigma_ii and |d nu_k| sqrt(Sigma_ii); it raises
:class:`EPConvergenceError` after ``max_iter`` sweeps, or sooner when that largest change has
not reached a new low for ``_STALL_SWEEPS`` sweeps (the sites cycle, or the quadrature's
round-off keeps them moving by more than ``tol``, as for a likelihood far sharper than its
quadrature resolves: a truncated Gaussian with noise_sd 1e-5 stalled near 1e-3).

Log evidence (R&W 3.65, here in natural parameters so that tau = 0 is allowed), with the
cavities of the final posterior and C_k fixed by Z_k = int q_-k(f) t_k(f) df:

    log Z_EP = sum_k [log Z_k + 1/2 log(1 + tau_k / tau_c,k)
                      + 1/2 (tau_c,k m_k^2 - mu_i^2 / Sigma_ii)]  - 1/2 log det B + 1/2 b^T mu.

Its gradient at a fixed point (:meth:`EPResult.evidence_gradient`): log Z_EP is
stationary in the sites there, so only the explicit dependence counts (Rasmussen & Williams
2006, eq. 5.27, in EP's natural parameters; S = diag of the per-item site precisions,
B = I + S^1/2 K S^1/2, alpha = K^-1 mu):

    kernel theta_j:     1/2 alpha^T dK_j alpha - 1/2 tr(S^1/2 B^-1 S^1/2 dK_j)
    likelihood theta_p: sum_k E_tilted,k[d log p(y_k | f) / d theta_p]     (quadrature).

What it returns: :class:`EPResult` holds what the loop returns (the posterior, the sites, the
log evidence) and reads the gradient off the converged sites; :class:`EPEvidence` is the
evidence with that gradient (:func:`ep_evidence`, what a model's MAP-II maximises);
:class:`EPConvergenceError` and :class:`ClippedSiteWarning` are the error and the warning
described above.
"""

from __future__ import annotations

import warnings
import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from dataclasses import dataclass, field

from ..gp.prediction import LatentGaussian, check_latent_problem
from ..linalg import NotPositiveDefiniteError, log_det_from_cholesky
from ..validation import as_float_array, as_positive_float, as_positive_int
from .tilted_distributions import _likelihood_bump, tilted_moments_trusted


__all__ = ["expectation_propagation", "ep_evidence", "EPResult", "EPEvidence",
           "EPConvergenceError", "ClippedSiteWarning"]

# The damping never rises above this (at 1 the sites would stop moving).
_MAX_DAMPING = 0.9
# EP gives up when the largest site change has not reached a new low for this many sweeps.
_STALL_SWEEPS = 50


# --------------------------------------------------------------------------------------------
# The posterior for given sites
# --------------------------------------------------------------------------------------------

class _Posterior:
    """q(f) for sites (tau, nu): s = per-item precision, b = per-item shift, B = L L^T."""

    def __init__(self, problem: "_Problem", tau: np.ndarray, nu: np.ndarray):
        K, n = problem.K, problem.K.shape[0]
        self.s = np.bincount(problem.item, tau, minlength=n)
        self.b = np.bincount(problem.item, nu, minlength=n)
        self.root = np.sqrt(self.s)
        RK = self.root[:, None] * K
        # Line 10 (R&W 2006, Alg. 3.5): L = cholesky(I + S^1/2 K S^1/2)
        self.L = cholesky(np.eye(n) + RK * self.root[None, :], lower=True, check_finite=False)
        # Lines 3-4 (R&W 2006, Alg. 3.6): alpha = nu - z, z = S^1/2 L^T \ (L \ S^1/2 K nu)
        self.alpha = self.b - self.root * cho_solve((self.L, True), RK @ self.b,
                                                    check_finite=False)
        self.mean = K @ self.alpha        # Line 11 (R&W 2006, Alg. 3.5): mu = Sigma nu = K alpha
        # Line 10 (R&W 2006, Alg. 3.5): V = L^-1 S^1/2 K, so that Sigma = K - V^T V
        V = solve_triangular(self.L, RK, lower=True, check_finite=False)
        L_inv = solve_triangular(self.L, np.eye(n), lower=True, check_finite=False)
        self.d = np.einsum("ij,ij->j", L_inv, L_inv)     # diag B^-1, in (0, 1]
        # Sigma_ii = K_ii - colsum(V^2) cancels where the sites are strong, (1 - d)/s where
        # they are weak: each where it does not (module docstring, "Numerics")
        self.strong = self.d < 0.5
        with np.errstate(divide="ignore", invalid="ignore"):
            # Line 11 (R&W 2006, Alg. 3.5): diag Sigma = diag(K - V^T V), or (1 - d) / s
            self.variance = np.where(self.strong, (1.0 - self.d) / self.s,
                                     np.diag(K) - np.einsum("ij,ij->j", V, V))

    def cavity(self, item, tau, nu):
        """Cavity mean and variance of every row (module docstring).
        Lecture 06, section 5 (Bounded ratings), "EP step by step", step 1."""
        precision = 1.0 / self.variance[item]
        d, others = self.d[item], self.s[item] - tau
        with np.errstate(divide="ignore", invalid="ignore"):
            # Line 5 (R&W 2006, Alg. 3.5; eq. 3.56): tau_-i = 1/Sigma_ii - tau_i, or its form
            # for strong sites (module docstring, "Numerics")
            tau_c = np.where(self.strong[item], (others + tau * d) / (1.0 - d),
                             precision - tau)
        if np.any(tau_c <= 0):
            k = int(np.argmax(tau_c <= 0))
            raise NotPositiveDefiniteError(
                f"K: the cavity of row {k} lost its precision to round-off (site precision "
                f"{tau[k]:.3g} against a posterior precision {precision[k]:.3g}); K is too "
                "ill-conditioned for EP here")
        # Line 5 (eq. 3.56): nu_-i = mu_i/Sigma_ii - nu_i; returned as nu_-i/tau_-i, 1/tau_-i
        return (self.mean[item] * precision - nu) / tau_c, 1.0 / tau_c


class _Problem:
    """K, the item of every row, the likelihood and y of one EP fit."""

    def __init__(self, K, item, likelihood, y):
        self.K, self.item, self.likelihood, self.y = K, item, likelihood, y
        self._bump: tuple | None = None

    def bump(self):
        """The likelihood's window, found at the first call (it depends on y only)."""
        if self._bump is None:
            self._bump = (_likelihood_bump(self.likelihood, self.y),)
        return self._bump[0]

    def tilted(self, mean, var, parameters=False):
        return tilted_moments_trusted(self.likelihood, self.y, mean, var, self.bump, parameters)


def _check_problem(K, M, likelihood, y) -> _Problem:
    K, M, y = check_latent_problem(K, M, likelihood, y)
    identity = (np.count_nonzero(M, axis=1) == 1) & np.isclose(M.sum(axis=1), 1.0)
    if not np.all(identity):
        k = int(np.argmax(~identity))
        raise ValueError(f"M: row {k} is not an identity row (a single 1): EP here keeps one "
                         "1-D Gaussian site per observation on ONE item's latent; a pairwise "
                         "row (+1, -1) would need a factorised pair of sites (thesis footnote "
                         "4), which is not implemented. Use the Laplace approximation "
                         "(laplace_mode) for comparisons")
    return _Problem(K, np.argmax(M, axis=1), likelihood, y)


def _check_sites(sites0, m):
    if sites0 is None:
        return np.zeros(m), np.zeros(m)     # Line 2 (R&W 2006, Alg. 3.5): tau~ = nu~ = 0
    if not isinstance(sites0, tuple) or len(sites0) != 2:
        raise TypeError("sites0: expected a pair (tau, nu) of site parameters, e.g. "
                        "(result.tau, result.nu) of an earlier fit")
    tau = as_float_array(sites0[0], "sites0", ndim=1)
    nu = as_float_array(sites0[1], "sites0", ndim=1)
    if tau.shape != (m,) or nu.shape != (m,):
        raise ValueError(f"sites0: expected two arrays of shape ({m},) (one site per row), got "
                         f"{tau.shape} and {nu.shape}")
    if np.any(tau < 0):
        raise ValueError("sites0: site precisions (the first array) must be >= 0")
    return tau.copy(), nu.copy()


# --------------------------------------------------------------------------------------------
# The iteration
# --------------------------------------------------------------------------------------------

def expectation_propagation(K, M, likelihood, y, *, sites0=None, damping: float = 0.0,
                            max_iter: int = 500, tol: float = 1e-6) -> EPResult:
    """EP approximation of p(f | y) for f ~ N(0, K) and one observation per identity row of M.

    Parameters
    ----------
    K : (n, n) prior covariance of the items' latents.
    M : (m, n) identity rows (``Comparisons.from_ratings(...).matrix()``); pairwise rows are
        refused (module docstring).
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood`; ``y`` its m observations.
    sites0 : optional warm start ``(tau, nu)`` (e.g. ``(result.tau, result.nu)`` of a fit at
        nearby hyper-parameters); default all sites 0 (q = the prior).
    damping : in [0, 1): weight of the old site in each update at the start (0 = undamped
        parallel EP); it moves halfway to 1 (at most ``_MAX_DAMPING``) whenever a sweep moves
        the sites more than the sweep before (module docstring).
    max_iter : cap on the sweeps; :class:`EPConvergenceError` (naming ``max_iter``) when the
        sites still move by more than ``tol`` after it, or (naming ``tol``) as soon as the
        largest site change has not reached a new low for ``_STALL_SWEEPS`` sweeps.
    tol : largest site change allowed at convergence, in units of the item's posterior
        (module docstring). log Z_EP is stationary in the sites, so its error is of order
        ``tol^2`` while the posterior and the evidence gradient are accurate to order ``tol``;
        much below 1e-9 the quadrature's round-off can keep the sites from settling (a Beta
        likelihood with concentration 1e5 stalled at changes of 4e-9).

    Returns an :class:`EPResult`; warns :class:`ClippedSiteWarning` when sites of the final
    sweep had their negative precisions set to 0.
    """
    problem = _check_problem(K, M, likelihood, y)
    damping = as_positive_float(damping, "damping", allow_zero=True)
    if damping >= 1.0:
        raise ValueError(f"damping: expected a weight in [0, 1) for the old site (1 would never "
                         f"move), got {damping:g}")
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol")
    tau, nu = _check_sites(sites0, problem.y.size)
    state, tau, nu, n_iter, clipped, damping = _sweeps(problem, tau, nu, damping, max_iter, tol)
    n_clipped = int(np.count_nonzero(clipped))
    if n_clipped:
        warnings.warn(f"likelihood: moment matching asked for a negative site precision in "
                      f"{n_clipped} of {clipped.size} rows (e.g. row {int(np.argmax(clipped))});"
                      " those sites have precision 0 and match only the tilted mean, so the "
                      "posterior there is narrower than EP's and the evidence gradient is "
                      "approximate", ClippedSiteWarning, stacklevel=2)
    log_evidence = _log_evidence(problem, state, tau, nu)
    posterior = LatentGaussian(state.mean, state.alpha, "precision", (state.root, state.L), 0.0)
    return EPResult(state.mean, state.alpha, state.variance, tau, nu, posterior, log_evidence,
                    log_det_from_cholesky(state.L), n_iter, n_clipped, damping, problem, state)


def ep_evidence(K, M, likelihood, y, dK=None, *, sites0=None, damping: float = 0.0,
                max_iter: int = 500, tol: float = 1e-6) -> EPEvidence:
    """The EP log evidence log Z_EP at the fixed point :func:`expectation_propagation` reaches
    (arguments as there) and, when ``dK`` (shape (P, n, n), ``kernel.gradient(X)[1]``) is
    given, its gradient at the converged sites: d / d (the kernel's log-parameters of ``dK``,
    then the likelihood's in the order of ``likelihood.param_names``), a model's ``theta``.
    Lecture 06, section 5 (Bounded ratings) runs EP; the gradient is
    :meth:`EPResult.evidence_gradient`'s."""
    ep = expectation_propagation(K, M, likelihood, y, sites0=sites0, damping=damping,
                                 max_iter=max_iter, tol=tol)
    gradient = None if dK is None else np.concatenate(ep.evidence_gradient(dK))
    return EPEvidence(ep.log_evidence, gradient, ep)


def _sweeps(problem, tau, nu, damping, max_iter, tol):
    """Parallel EP sweeps from the sites (tau, nu): every site moved to its moment-matched
    proposal at once, damped (module docstring), until the largest change is at most ``tol``.
    Returns (posterior, tau, nu, sweeps, clipped rows of the last sweep, final damping).
    Lecture 06, section 5 (Bounded ratings), "EP step by step", step 4 (in parallel)."""
    # Line 2 (R&W 2006, Alg. 3.5): q of the starting sites (Sigma = K, mu = 0 when they are 0)
    state = _Posterior(problem, tau, nu)
    previous_change = best_change = np.inf
    best_at = 0
    for n_iter in range(1, max_iter + 1):   # Lines 3-12 (R&W 2006, Alg. 3.5), all rows at once
        tau_new, nu_new, clipped = _proposal(problem, state, tau, nu)  # lines 5-7, every row
        # line 7's site update, damped (R&W 2006, Alg. 3.5 does not damp)
        tau_next = damping * tau + (1.0 - damping) * tau_new
        nu_next = damping * nu + (1.0 - damping) * nu_new
        sd = np.sqrt(state.variance[problem.item])
        change = max(np.max(np.abs(tau_next - tau) * sd * sd, initial=0.0),
                     np.max(np.abs(nu_next - nu) * sd, initial=0.0))
        tau, nu = tau_next, nu_next
        # Lines 10-11 (R&W 2006, Alg. 3.5): Sigma and mu afresh from all sites (no line 8)
        state = _Posterior(problem, tau, nu)
        if change <= tol:                   # Line 12 (R&W 2006, Alg. 3.5): until convergence
            break
        if change > previous_change:      # the sites swing back and forth: damp more
            damping = min(0.5 * (1.0 + damping), _MAX_DAMPING)
        previous_change = change
        if change < best_change:
            best_change, best_at = change, n_iter
        elif n_iter - best_at >= _STALL_SWEEPS:
            raise EPConvergenceError(
                f"tol: EP stalled: the sites have moved by more than {best_change:.3g} > tol = "
                f"{tol:g} (posterior units) in every one of the last {_STALL_SWEEPS} sweeps; the "
                "likelihood may be too sharp for its quadrature at these parameters, or the "
                "sites cycle", best_change, tol, True)
    else:
        raise EPConvergenceError(
            f"max_iter: EP did not converge in {max_iter} sweep(s) (the sites still moved by "
            f"{change:.3g} > tol = {tol:g} in posterior units); raise max_iter, or start with "
            "more damping if the sites oscillate", best_change, tol, False)
    return state, tau, nu, n_iter, clipped, damping


def _proposal(problem, state, tau, nu):
    """Moment-matched sites for every row from the current posterior (module docstring);
    negative precisions set to 0 with nu = delta / v (the tilted mean matched).
    Lecture 06, section 5 (Bounded ratings), "EP step by step", step 3."""
    mean_c, var_c = state.cavity(problem.item, tau, nu)   # Line 5 (R&W 2006, Alg. 3.5): cavity
    _, delta, var_hat = _moments(problem, mean_c, var_c)  # Line 6 (eq. 3.58): delta, sigma_hat^2
    # Line 7 (R&W 2006, Alg. 3.5; eq. 3.59): tau~ = 1/sigma_hat^2 - tau_-i
    tau_new = 1.0 / var_hat - 1.0 / var_c
    # Line 7 (eq. 3.59): nu~ = mu_hat/sigma_hat^2 - nu_-i, written with delta = mu_hat - m
    nu_new = mean_c * tau_new + delta / var_hat
    clipped = tau_new < 0
    return (np.where(clipped, 0.0, tau_new), np.where(clipped, delta / var_c, nu_new),
            clipped)


def _moments(problem, mean_c, var_c):
    log_Z, delta, var_hat = problem.tilted(mean_c, var_c)  # Line 6 (R&W 2006, Alg. 3.5; 3.58)
    bad = ~(np.isfinite(log_Z) & np.isfinite(delta) & (var_hat > 0) & np.isfinite(var_hat))
    if np.any(bad):
        k = int(np.argmax(bad))
        raise ValueError(f"likelihood: the tilted distribution of row {k} (y = "
                         f"{problem.y[k]:g}, cavity mean {mean_c[k]:.3g}, variance "
                         f"{var_c[k]:.3g}) has no finite moments; check y and the "
                         "likelihood's parameters")
    return log_Z, delta, var_hat


def _log_evidence(problem, state, tau, nu) -> float:
    """log Z_EP (module docstring) from the cavities of the final posterior.
    Lecture 06, section 5 (Bounded ratings) runs EP; it does not derive log Z_EP."""
    mean_c, var_c = state.cavity(problem.item, tau, nu)
    log_Z = _moments(problem, mean_c, var_c)[0]
    tau_c = 1.0 / var_c
    marginal = state.mean[problem.item] ** 2 / state.variance[problem.item]
    # Line 13 (R&W 2006, Alg. 3.5): log Z_EP by eq. 3.65 in natural parameters, the sites' terms
    per_row = (log_Z + 0.5 * np.log1p(tau * var_c)
               + 0.5 * (tau_c * mean_c ** 2 - marginal))
    # ... and the whole posterior's: -1/2 log det B = -sum_i log L_ii (line 10's L), + 1/2 nu~^T mu
    return float(np.sum(per_row) - log_det_from_cholesky(state.L) * 0.5
                 + 0.5 * state.b @ state.mean)


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
    """The EP approximation q(f) = N(mean, Sigma) and its log evidence (:mod:`course_lib.preference.ep`).

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
    # the fit's problem and posterior state (course_lib.preference.ep), for the gradient
    _problem: object = field(repr=False, compare=False)
    _state: object = field(repr=False, compare=False)

    def covariance(self) -> np.ndarray:
        """Sigma = (K^-1 + S)^-1, the (n, n) posterior covariance (for checks and plots)."""
        return self.posterior.covariance(self._problem.K)

    def evidence_gradient(self, dK) -> tuple[np.ndarray, np.ndarray]:
        """Gradient of :attr:`log_evidence`: ``(d / d kernel theta (P,), d / d likelihood
        theta (Q,))`` for ``dK`` of shape (P, n, n) (``kernel.gradient(X)[1]``), exact at an
        EP fixed point (module docstring). Lecture 06, section 5 (Bounded ratings) runs EP; the
        lecture derives the evidence gradient for Laplace (section 4), of which this is EP's
        counterpart."""
        problem, state = self._problem, self._state
        n = self.mean.shape[0]
        dK = as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != (n, n):
            raise ValueError(f"dK: expected shape (P, {n}, {n}) (one kernel derivative per "
                             f"hyper-parameter), got {dK.shape}")
        # Eq. 5.27 (R&W 2006; Alg. 5.2): S^1/2 B^-1 S^1/2 = S^1/2 L^T \ (L \ S^1/2)
        U = solve_triangular(state.L, np.diag(state.root), lower=True, check_finite=False)
        C = U.T @ U                                       # S^1/2 B^-1 S^1/2
        # Eq. 5.27 (R&W 2006): 1/2 tr((b b^T - S^1/2 B^-1 S^1/2) dK_j), R&W's b = alpha here
        grad_kernel = 0.5 * (dK @ self.alpha) @ self.alpha - 0.5 * np.einsum("ij,pij->p", C, dK)
        mean_c, var_c = state.cavity(problem.item, self.tau, self.nu)
        # not in eq. 5.27: E_tilted[d log p / d theta_p] of every site, summed (explicit term)
        grad_likelihood = problem.tilted(mean_c, var_c, parameters=True)[3].sum(axis=1)
        if not (np.all(np.isfinite(grad_kernel)) and np.all(np.isfinite(grad_likelihood))):
            raise ValueError("dK: the gradient of the EP evidence is not finite; check that dK "
                             "holds finite kernel derivatives")
        return grad_kernel, grad_likelihood


@dataclass(frozen=True)
class EPEvidence:
    """The EP log evidence log Z_EP at some theta (``value``), its gradient with respect to the
    log hyper-parameters (kernel, then likelihood: a model's ``param_names``; None unless asked
    for) and the :class:`EPResult` it came from."""

    value: float
    gradient: np.ndarray | None
    ep: EPResult
