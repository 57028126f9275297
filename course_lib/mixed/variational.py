"""The full-rank variational GP on z = M f: the ELBO, its fit and the model that optimises it.

The data are the rows of a :class:`~course_lib.mixed.variational_model.MixedLikelihood`: several
parts, each a likelihood with its own rows of the map M (identity rows for single items, +1/-1
rows for pairs), about the same n items. Under q(f) = N(mu, S) each z_k = (M f)_k is Gaussian
with mean (M mu)_k and variance (M S M^T)_kk, and every likelihood gives the one-dimensional
expectation E_q log p(y_k | z_k) with its derivatives in that mean and variance.

:func:`fit_variational` fits the full-rank Gaussian q(f) that maximises the evidence lower bound

    ELBO = sum_k E_q log p(y_k | z_k) - KL(q(f) || N(0, K)),

in the parameterisation of Opper and Archambeau (2009), which holds the optimum exactly:

    q(f) = N(mu, S),  mu = K alpha,  S = (K^-1 + M^T diag(lambda) M)^-1,  lambda > 0,

one weight alpha_i per item and one precision lambda_k per row. With R = M^T diag(sqrt lambda),
B = I + R^T K R (m x m, eigenvalues >= 1) and C = M K M^T, everything comes from Cholesky
factors of K and B, never an inverse of K:

    z means   M mu = M K alpha
    z vars    diag(M S M^T) = diag(C) - ||L_B^-1 diag(sqrt lambda) C||^2  (columns)
    KL        = 1/2 [alpha^T K alpha + log det B + tr(B^-1) - m]
              (tr(K^-1 S) = n - m + tr(B^-1) and log det K - log det S = log det B).

At the optimum alpha = M^T dE/dmean and lambda = -2 dE/dvar (the fixed point; lambda > 0 needs
dE/dvar < 0, true for every log-concave likelihood). The mean is optimised in the whitened
coordinates v = L_K^T alpha (mu = L_K v, alpha^T K alpha = |v|^2), which keeps L-BFGS well
conditioned; lambda as log lambda. The gradient in lambda_k is
-sum_j P_jk^2 (dE/dvar_j + lambda_j / 2) with P = M S M^T, zero exactly at the fixed point.
For a Gaussian likelihood the bound is tight: q is the exact posterior and the ELBO is the log
marginal likelihood. The ELBO's gradient in the kernel's log-parameters is taken with
(alpha, lambda) held at their optimum (the envelope theorem), and so is its gradient in the
likelihood's log-parameters (cut points, lapse), which q and the KL do not depend on:
d ELBO / d theta_lik = sum_k E_q d log p(y_k | z_k) / d theta_lik
(:meth:`~course_lib.mixed.variational_model.MixedLikelihood.expected_parameter_gradient`).

A teaching device (the lecture's bookkeeping trap): ``kl_weight`` = beta maximises
E - beta KL instead of the ELBO, as a library does by mistake when it normalises the
expected log-likelihood per datum of one data type but not the other (beta = (n + m) / n
with n trials and m constraints in AEPsych 0.8.0, aepsych/models/gp_classification.py, whose
MixedVariationalELBO gets num_data = n while GPyTorch 1.15.2's _approximate_mll.py divides the
expected log-likelihood by the n + m rows). Its optimum is the fixed point of E / beta - KL
(alpha = M^T dE/dmean / beta, lambda = -2 dE/dvar / beta): every datum counts 1 / beta times,
so the posterior moves back toward the prior. For beta >= 1, E - beta KL is still a lower
bound on the log evidence (a looser one, as KL >= 0); what is lost is that its maximiser is
not the ELBO's, and hyper-parameters chosen by it are biased. Only beta = 1 (the default) is
the ELBO.

The model. :class:`VariationalGP` fits this q(f) for a kernel over the items' inputs. Its
hyper-parameters are the kernel's log-parameters followed by the likelihood parameters it is
asked to learn; the ELBO's gradient in both is taken at the optimal (alpha, lambda) (the
envelope theorem), and MAP-II is the restart loop of :mod:`course_lib.gp.optimise`; that
bookkeeping, which the sparse model shares, is
:class:`~course_lib.mixed.variational_model.VariationalModel`. A refit on data that extend the
previous fit's starts from the previous (alpha, lambda).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.optimize import minimize

from ..linalg import NotPositiveDefiniteError, cholesky_with_jitter, log_det_from_cholesky
from ..validation import (as_float_array, as_positive_float, as_positive_int,
                          warn_deprecated)
from ..gp.kernel_base import as_inputs, check_exact_size
from ..gp.prediction import LatentGaussian
from ..gp.prediction import (check_latent_problem as _check_latent_problem,
                             check_map_columns as _check_map_columns,
                             check_prior_covariance as _check_prior_covariance)
from ..preference.quadrature import LatentOverflowError
from .variational_model import MixedLikelihood, VariationalModel

__all__ = ["VariationalEvidence", "variational_evidence", "fit_variational", "VariationalGP",
           "variational_elbo"]


# The fixed-point phase of fit_variational: at most _FIXED_POINT_MAX_ITER steps, stopping when
# the ELBO gains less than fit_variational's tol (relative; for a log-concave likelihood it
# converges there in a few more steps than to 1e-9, and beats the L-BFGS polish, whose
# iteration count is set by the tolerance rather than by how good the start is: 2-D,
# 100 Bernoulli rows + 20 constraints, measured once: 13 warm / 15 cold steps to 1e-14); damping
# halved down to _MIN_DAMPING. Site precisions are floored at _SITE_PRECISION_FLOOR (a
# likelihood that is not log-concave can ask for lambda < 0, which this parameterisation
# cannot hold).
_FIXED_POINT_MAX_ITER = 200
_MIN_DAMPING = 1e-3
_SITE_PRECISION_FLOOR = 1e-8


# --------------------------------------------------------------------------------------------
# The bound at given (alpha, lambda)
# --------------------------------------------------------------------------------------------

def _as_mixed(likelihood, y, M, K) -> tuple[np.ndarray, MixedLikelihood]:
    """(K, MixedLikelihood) from either form of the arguments (one Likelihood with its ``y`` and
    ``M``, or a MixedLikelihood carrying its data), each part checked against K."""
    if isinstance(likelihood, MixedLikelihood):
        if y is not None or M is not None:
            raise ValueError("y: a MixedLikelihood carries its own observations and maps; "
                             "pass y=None and M=None")
        # its constructor checked every part's M and y; all parts have the same columns
        K = _check_prior_covariance(K)
        _check_map_columns(likelihood.M[likelihood.slices[0]], K.shape[0])
        return K, likelihood
    if y is None:
        raise ValueError("y: a single likelihood needs its observations y")
    if M is None:  # one observation per item
        M = np.eye(np.shape(K)[0]) if np.ndim(K) == 2 else np.empty((0, 0))
    K, M, y = _check_latent_problem(K, M, likelihood, y)
    return K, MixedLikelihood([(likelihood, M, y)])


def _check_variational_starts(alpha0, site_precision0, n: int, m: int):
    """The warm starts of a variational fit, each None or checked: ``alpha0`` (n,) weights and
    ``site_precision0`` (m,) positive precisions."""
    if alpha0 is not None:
        alpha0 = as_float_array(alpha0, "alpha0", ndim=1)
        if alpha0.size != n:
            raise ValueError(f"alpha0: expected {n} weights (one per item), got {alpha0.size}")
    if site_precision0 is not None:
        lam = site_precision0 = as_float_array(site_precision0, "site_precision0", ndim=1)
        if lam.size != m or np.any(lam <= 0):
            raise ValueError(f"site_precision0: expected {m} positive precisions (one per row "
                             f"of M), got {lam.size} values, smallest {lam.min():g}")
    return alpha0, site_precision0


@dataclass(frozen=True)
class VariationalEvidence:
    """The ELBO of q(f) = N(K alpha, (K^-1 + M^T diag(site_precision) M)^-1), an evidence bound,
    with its ledger.

    ``value`` = expected_log_likelihood - kl_weight * kl, the quantity the optimiser maximises
    (the ELBO when kl_weight = 1; ``kl_weight`` is the teaching device's beta, module
    docstring); ``gradient`` is d value / d theta when asked for (None otherwise): in the
    kernel's log-parameters (``gradient_kernel``) from :func:`variational_evidence` and
    :func:`fit_variational`, followed by the learned likelihood parameters from a model's
    ``evidence`` (:class:`~course_lib.mixed.variational_model.VariationalModel`). The bound
    has one name, ``value``: at another ``kl_weight`` the ELBO itself is
    ``expected_log_likelihood - kl``. ``part_expected_log_likelihoods`` splits the first
    term by the MixedLikelihood's parts; ``z_mean``, ``z_var`` are the rows' moments under q;
    ``gradient_alpha`` and ``gradient_site_precision`` are d value / d alpha and d value /
    d lambda (both 0 at the optimum); ``gradient_kernel`` (when asked for) is d value /
    d theta_p of the kernel's log-parameters at fixed (alpha, site_precision);
    ``n_iter`` (fixed-point steps plus L-BFGS iterations) and ``converged`` describe the
    optimiser run (0 / False for a plain evaluation); ``posterior`` is the
    :class:`~course_lib.gp.prediction.LatentGaussian` ("precision" form).
    """

    value: float
    gradient: np.ndarray | None
    expected_log_likelihood: float
    part_expected_log_likelihoods: np.ndarray
    kl: float
    alpha: np.ndarray
    site_precision: np.ndarray
    z_mean: np.ndarray
    z_var: np.ndarray
    posterior: LatentGaussian
    gradient_alpha: np.ndarray
    gradient_site_precision: np.ndarray
    gradient_kernel: np.ndarray | None = None
    n_iter: int = 0
    converged: bool = False
    kl_weight: float = 1.0

    @property
    def elbo(self) -> float:
        """Deprecated, removed in the next release: ``value`` (the same number at kl_weight 1;
        at another weight the ELBO is ``expected_log_likelihood - kl``, which this returns).
        The exercises of lecture 07 as released before issue 60 read this name."""
        warn_deprecated("VariationalEvidence.elbo", "value")
        return self.expected_log_likelihood - self.kl


class _Bound:
    """The objective E - kl_weight KL (the ELBO when kl_weight = 1) and its gradients at fixed
    K; one instance per kernel matrix (caches C, L_K)."""

    def __init__(self, K: np.ndarray, mixed: MixedLikelihood, warn: bool = True,
                 kl_weight: float = 1.0):
        self.kl_weight = kl_weight
        self.L_K, jitter = cholesky_with_jitter(K, "K", warn)
        self.K = K + jitter * np.eye(K.shape[0]) if jitter else K
        self.mixed, self.M = mixed, np.asarray(mixed.M)
        self.A = self.M @ self.K                       # (m, n): z means are A alpha
        self.C = self.A @ self.M.T                     # (m, m): prior covariance of z
        self.C = 0.5 * (self.C + self.C.T)

    def moments(self, alpha, lam):
        """z means and variances under q, and the pieces the gradients reuse.
        Lecture 07, section 2 (The variational objective, built from its parts)."""
        root = np.sqrt(lam)
        B = np.eye(lam.size) + root[:, None] * self.C * root[None, :]
        L_B, _ = cholesky_with_jitter(B, "B = I + R^T K R")
        W = solve_triangular(L_B, root[:, None] * self.C, lower=True, check_finite=False)
        z_var = np.maximum(np.diag(self.C) - np.einsum("ij,ij->j", W, W), 0.0)
        return self.A @ alpha, z_var, L_B, W

    def evaluate(self, alpha, lam):
        """(objective, expected log-likelihood, kl, d/dalpha, d/dlambda, pieces).
        Lecture 07, section 2 (The variational objective, built from its parts)."""
        z_mean, z_var, L_B, W = self.moments(alpha, lam)
        expected, d_mean, d_var = self.mixed._expected_log_likelihood(z_mean, z_var)
        K_alpha = self.K @ alpha
        L_B_inv = solve_triangular(L_B, np.eye(lam.size), lower=True, check_finite=False)
        kl = 0.5 * (alpha @ K_alpha + log_det_from_cholesky(L_B)
                    + np.sum(L_B_inv ** 2) - lam.size)
        grad_alpha = self.A.T @ d_mean - self.kl_weight * K_alpha
        P = self.C - W.T @ W                           # M S M^T
        grad_lam = -(P ** 2) @ (d_var + 0.5 * self.kl_weight * lam)
        pieces = (z_mean, z_var, L_B, d_mean, d_var)
        return expected - self.kl_weight * kl, expected, kl, grad_alpha, grad_lam, pieces

    def kernel_gradient(self, alpha, lam, pieces, dK) -> np.ndarray:
        """d objective / d theta_p at fixed (alpha, lambda), for each slice dK[p] (module docstring
        of the terms: z means M dK alpha; z variances through S K^-1 = I - K R B^-1 R^T;
        KL through alpha^T dK alpha and B).
        Lecture 07 uses it for MAP-II in section 8.1 (Fig. 2: constraints remove uncertainty)."""
        _, _, L_B, d_mean, d_var = pieces
        root = np.sqrt(lam)
        # Q = M S K^-1 = M - C diag(root) B^-1 diag(root) M: d var_j = Q_j dK Q_j^T
        Q = self.M - self.C @ (root[:, None] * cho_solve((L_B, True), root[:, None] * self.M,
                                                         check_finite=False))
        B_inv = cho_solve((L_B, True), np.eye(lam.size), check_finite=False)
        G = root[:, None] * (B_inv - B_inv @ B_inv) * root[None, :]
        kl_term = (np.outer(alpha, alpha) + self.M.T @ G @ self.M) / 2
        weight = (np.outer(alpha, self.M.T @ d_mean) + Q.T @ (d_var[:, None] * Q)
                  - self.kl_weight * kl_term)
        return dK.reshape(dK.shape[0], weight.size) @ weight.ravel()

    def alpha_from_sites(self, lam, eta):
        """alpha of q with Gaussian sites N(z_k; eta_k / lam_k, 1 / lam_k) on the rows:
        the exact GP posterior for those pseudo-observations,
        alpha = M^T diag(sqrt lam) B^-1 (eta / sqrt lam)."""
        root = np.sqrt(lam)
        B = np.eye(lam.size) + root[:, None] * self.C * root[None, :]
        L_B, _ = cholesky_with_jitter(B, "B = I + R^T K R")
        return self.M.T @ (root * cho_solve((L_B, True), eta / root, check_finite=False))


def _fixed_point(bound: _Bound, alpha, lam, tol: float):
    """Damped fixed-point (natural-gradient) steps towards lambda = -2 dE/dvar and the
    matching mean: the sites' natural parameters (lam, eta = lam * pseudo-observation) move a
    fraction rho of the way to their targets (lam* = -2 dE/dvar, eta* = dE/dmean + lam* mean_z),
    rho halved whenever the objective would fall (the first step's eta is its target, so a warm
    start from the optimum of a nearby kernel begins with consistent sites). A Gaussian
    likelihood is solved in one full step; the L-BFGS run that follows polishes the rest.
    With a kl_weight beta the targets are those of E / beta - KL. Returns (alpha, lam, steps
    taken). Lecture 07, section 2 (The variational objective, built from its parts)."""
    start = np.zeros_like(alpha)
    at = bound.evaluate(start, lam)
    if np.any(alpha != 0):
        # weights warm-started from another kernel (K alpha with a near-singular old K) can
        # land far out: keep them only if they beat the prior mean under the same sites
        try:
            warm = bound.evaluate(alpha, lam)
        except LatentOverflowError:
            warm = None
        if warm is not None and warm[0] >= at[0]:
            start, at = alpha, warm
    alpha = start
    elbo, pieces = at[0], at[5]
    eta, rho = None, 1.0
    for step in range(_FIXED_POINT_MAX_ITER):
        z_mean, _, _, d_mean, d_var = pieces  # the rows' gradients at the current q
        lam_target = np.maximum(-2.0 * d_var / bound.kl_weight, _SITE_PRECISION_FLOOR)
        eta_target = d_mean / bound.kl_weight + lam_target * z_mean
        if eta is None:  # the start's sites: those its own gradients ask for
            eta = eta_target
        while rho >= _MIN_DAMPING:
            lam_new = (1.0 - rho) * lam + rho * lam_target
            eta_new = (1.0 - rho) * eta + rho * eta_target
            alpha_new = bound.alpha_from_sites(lam_new, eta_new)
            try:
                at = bound.evaluate(alpha_new, lam_new)
            except LatentOverflowError:  # a step far beyond the data: as if the bound fell
                rho *= 0.5
                continue
            elbo_new = at[0]
            if elbo_new >= elbo:
                break
            rho *= 0.5
        else:
            return alpha, lam, step
        change = elbo_new - elbo
        alpha, lam, eta, elbo, pieces = alpha_new, lam_new, eta_new, elbo_new, at[5]
        rho = min(1.0, 2.0 * rho)
        if change <= tol * max(1.0, abs(elbo)):
            return alpha, lam, step + 1
    return alpha, lam, _FIXED_POINT_MAX_ITER


def _pack(alpha, lam, L_K):
    return np.concatenate([L_K.T @ alpha, np.log(lam)])


def fit_variational(K, likelihood, y=None, M=None, *, alpha0=None, site_precision0=None,
                    dK=None, max_iter: int = 2000, tol: float = 1e-13, warn: bool = True,
                    kl_weight: float = 1.0) -> VariationalEvidence:
    """Maximise the ELBO over (alpha, log site_precision): damped fixed-point steps towards
    alpha = M^T dE/dmean, lambda = -2 dE/dvar, then L-BFGS with the analytic gradient.

    ``likelihood`` is a :class:`MixedLikelihood` (then ``y`` and ``M`` stay None: its parts
    carry them) or one Likelihood with its observations ``y`` and map ``M`` (m x n; None means
    the identity, one observation per item). ``alpha0`` / ``site_precision0`` warm-start the
    run (default: alpha = 0 and lambda = -2 dE/dvar at the prior, floored at 1e-8). ``tol``
    stops the run when the ELBO changes by less than ``tol`` (relative, scipy's ftol);
    ``max_iter`` caps L-BFGS iterations. ``dK`` (P, n, n) adds the kernel gradient;
    ``warn=False`` silences the jitter warning of K's Cholesky factor. ``kl_weight`` (a
    teaching device, module docstring) maximises E - kl_weight * KL instead of the ELBO.
    """
    K, mixed = _as_mixed(likelihood, y, M, K)
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol")
    kl_weight = as_positive_float(kl_weight, "kl_weight")
    alpha0, site_precision0 = _check_variational_starts(alpha0, site_precision0, K.shape[0],
                                                       mixed.n_rows)
    return _fit_variational_trusted(K, mixed, alpha0, site_precision0, dK, max_iter, tol, warn,
                                   kl_weight)


def _fit_variational_trusted(K, mixed, alpha0, site_precision0, dK, max_iter, tol, warn,
                            kl_weight) -> VariationalEvidence:
    """:func:`fit_variational` of checked arguments (``K`` and ``mixed`` from ``_as_mixed``)."""
    bound = _Bound(K, mixed, warn, kl_weight)
    n, m, lam = K.shape[0], mixed.n_rows, site_precision0
    alpha = np.zeros(n) if alpha0 is None else alpha0
    if lam is None:
        z_mean, z_var, _, _ = bound.moments(alpha, np.zeros(m))
        lam = np.maximum(-2.0 * mixed._expected_log_likelihood(z_mean, z_var)[2]
                         / bound.kl_weight, _SITE_PRECISION_FLOOR)
    alpha, lam, n_fixed = _fixed_point(bound, alpha, lam, tol)

    def negative(x):
        v, log_lam = x[:n], x[n:]
        a = solve_triangular(bound.L_K, v, lower=True, trans="T", check_finite=False)
        lam_x = np.exp(log_lam)
        try:
            elbo, _, _, grad_alpha, grad_lam, _ = bound.evaluate(a, lam_x)
        except LatentOverflowError:  # a trial step far out: the line search backs off
            return np.inf, np.zeros_like(x)
        # d/dv = L_K^-1 d/dalpha (alpha = L_K^-T v); d/dlog lambda = lambda d/dlambda
        grad_v = solve_triangular(bound.L_K, grad_alpha, lower=True, check_finite=False)
        return -elbo, -np.concatenate([grad_v, lam_x * grad_lam])

    run = minimize(negative, _pack(alpha, lam, bound.L_K), jac=True, method="L-BFGS-B",
                   bounds=[(None, None)] * n + [(-40.0, 40.0)] * m,
                   options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-10})
    alpha = solve_triangular(bound.L_K, run.x[:n], lower=True, trans="T", check_finite=False)
    lam = np.exp(run.x[n:])
    return _result(bound, alpha, lam, dK, n_fixed + int(run.nit), bool(run.success))


def variational_evidence(K, likelihood, alpha, site_precision, y=None, M=None, dK=None, *,
                         kl_weight: float = 1.0) -> VariationalEvidence:
    """The ELBO and its ledger at GIVEN (alpha, site_precision) (no optimisation); arguments
    as :func:`fit_variational` (with ``kl_weight``, the gradients are those of
    ``result.value``, E - kl_weight KL)."""
    K, mixed = _as_mixed(likelihood, y, M, K)
    bound = _Bound(K, mixed, kl_weight=as_positive_float(kl_weight, "kl_weight"))
    alpha = as_float_array(alpha, "alpha", ndim=1)
    if alpha.size != bound.K.shape[0]:
        raise ValueError(f"alpha: expected {bound.K.shape[0]} weights (one per item), got "
                         f"{alpha.size}")
    lam = as_float_array(site_precision, "site_precision", ndim=1)
    if lam.size != mixed.n_rows or np.any(lam <= 0):
        raise ValueError(f"site_precision: expected {mixed.n_rows} positive precisions (one per "
                         f"row of M), got {lam.size} values, smallest {lam.min():g}")
    return _result(bound, alpha, lam, dK, 0, False)


def variational_elbo(K, likelihood, alpha, site_precision, y=None, M=None, dK=None, *,
                     kl_weight: float = 1.0) -> VariationalEvidence:
    """Deprecated, removed in the next release: ``variational_evidence`` (the same result;
    the exercises of lecture 07 as released before issue 60 called this name)."""
    warn_deprecated("variational_elbo", "variational_evidence")
    return variational_evidence(K, likelihood, alpha, site_precision, y, M, dK,
                                kl_weight=kl_weight)


def _result(bound, alpha, lam, dK, n_iter, converged) -> VariationalEvidence:
    value, expected, kl, grad_alpha, grad_lam, pieces = bound.evaluate(alpha, lam)
    z_mean, z_var = pieces[0], pieces[1]
    gradient = None if dK is None else bound.kernel_gradient(alpha, lam, pieces, dK)
    R = bound.M.T * np.sqrt(lam)[None, :]
    posterior = LatentGaussian.from_precision(bound.K, bound.K @ alpha, R, alpha=alpha)
    parts = bound.mixed.part_expected_log_likelihoods(z_mean, z_var)
    return VariationalEvidence(float(value), gradient, float(expected),
                               parts, float(kl), alpha, lam, z_mean, z_var, posterior,
                               grad_alpha, grad_lam, gradient, n_iter, converged,
                               bound.kl_weight)


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

class VariationalGP(VariationalModel):
    """Full-rank variational GP on z = M f (module docstring), with MAP-II on the kernel and,
    if asked, on the likelihood's parameters.

    Parameters
    ----------
    kernel : Kernel over the items' inputs.
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood` (then ``fit(X, y, M)``) or a
        :class:`~course_lib.mixed.variational_model.MixedLikelihood` whose parts carry their own
        maps and observations (then ``fit(X)``). Its parameters are named as
        :attr:`MixedLikelihood.param_names` (``"part<p>.<name>"``; a single likelihood is part 0).
    priors : mapping name -> Prior over ``param_names`` (kernel or learned likelihood
        parameters; MAP-II); flat otherwise.
    learn_likelihood : which likelihood parameters MAP-II learns: None (the default: none, the
        hyper-parameters are the kernel's), ``"all"`` (every parameter whose bounds leave it
        free), or a sequence of names such as ``["part1.gap_1", "part1.gap_2"]``. Learning is
        opt-in and by name because not every likelihood parameter can be learned with the
        kernel: a pairwise or Bernoulli probit's noise scale only rescales f, which the
        kernel's amplitude already does (Wu et al. fix it and learn the Likert cut points),
        and a lapse rate needs many ratings to pin down. A named parameter must have free
        bounds (a likelihood fixes one by ``<name>_bounds="fixed"``).
    kl_weight : the teaching device of the module docstring (default 1: the ELBO).
    max_iter, tol : ``max_iter`` and ``tol`` of the inner L-BFGS run over (alpha, log lambda)
        (:func:`fit_variational`).

    ``theta`` / ``param_names`` / ``bounds``: the kernel's log-parameters, then the learned
    likelihood log-parameters in the likelihood's order. After ``fit``: ``gp.result`` (the
    :class:`VariationalEvidence`: ELBO, its ledger, alpha, site precisions), ``gp.posterior``,
    ``gp.X_train``, ``gp.mixed`` (the MixedLikelihood with its data). ``log_evidence`` is the
    ELBO (a lower bound on the log evidence; with ``kl_weight`` != 1 the objective
    E - kl_weight KL), which ``optimise_hyperparameters`` maximises by the restart loop of
    :func:`~course_lib.gp.optimise.optimise_hyperparameters`, each evaluation warm-started from
    the previous (alpha, lambda); ``evidence`` returns it with its gradient in ``theta`` as a
    :class:`VariationalEvidence` (all from
    :class:`~course_lib.mixed.variational_model.VariationalModel`).
    """

    def fit(self, X, y=None, M=None) -> "VariationalGP":
        """q(f) for the items in the rows of ``X`` at the current kernel; ``y`` and ``M`` as in
        :func:`fit_variational` (None with a MixedLikelihood). Returns self.

        Warm-started from the latest (alpha, lambda) when the data extend the previous fit's:
        the previous items are the first rows of ``X`` and each part's previous rows (map
        and answers) come first in that part (as when an active-learning loop appends one
        trial). New items start with alpha = 0 and new rows with a vanishing site precision;
        the first fixed-point step then gives them the sites their gradients ask for. (A
        MixedLikelihood carries its data: to add some, assign the new one, with the same
        parts and parameters, to ``gp.likelihood`` and fit again.)"""
        X = as_inputs(X, "X")
        check_exact_size(X.shape[0], "X", advice="use SparseVariationalGP (a few hundred "
                         "inducing points) or fit a subset of the items")
        K = self.kernel(X)
        return self._fit(X, *_as_mixed(self.likelihood, y, M, K))

    def _warm_start(self, X, mixed) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(alpha0, site_precision0) carried over from the previous fit, or (None, None) when
        the data do not extend it (``fit``)."""
        if self._warm is None:
            return None, None
        old_X, old = self.X_train, self.mixed
        n_old = old_X.shape[0]
        if (X.shape[1] != old_X.shape[1] or X.shape[0] < n_old
                or not np.array_equal(X[:n_old], old_X) or mixed.n_parts != old.n_parts):
            return None, None
        alpha, old_lam = self._warm
        lam = np.full(mixed.n_rows, _SITE_PRECISION_FLOOR)
        for rows, old_rows in zip(mixed.slices, old.slices):
            count = old_rows.stop - old_rows.start
            kept = slice(rows.start, rows.start + count)
            if (rows.stop - rows.start < count
                    or not np.array_equal(mixed.M[kept, :n_old], old.M[old_rows])
                    or np.any(mixed.M[kept, n_old:])
                    or not np.array_equal(mixed.y[kept], old.y[old_rows])):
                return None, None
            lam[kept] = old_lam[old_rows]
        return np.concatenate([alpha, np.zeros(X.shape[0] - n_old)]), lam

    def _fit(self, X, K, mixed) -> "VariationalGP":
        result = self._run(K, mixed, self._warm_start(X, mixed), None, True)
        self.X_train, self.mixed, self.result, self.posterior = X, mixed, result, result.posterior
        self._warm = (result.alpha, result.site_precision)
        return self

    def _run(self, K, mixed, warm, dK, warn) -> VariationalEvidence:
        try:
            return _fit_variational_trusted(K, mixed, warm[0], warm[1], dK, self.max_iter,
                                           self.tol, warn, self.kl_weight)
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(f"kernel: no variational posterior at the current "
                                           f"hyper-parameters ({err})") from None

    def _refit(self):
        self._fit(self.X_train, _check_prior_covariance(self.kernel(self.X_train)), self.mixed)

    def _optimised_bound(self, kernel, mixed, eval_gradient, warn) -> VariationalEvidence:
        """The ELBO maximised over (alpha, lambda) at ``kernel`` and ``mixed``, warm-started
        from the latest (alpha, lambda), with its kernel gradient when ``eval_gradient``
        (:meth:`VariationalModel.evidence`)."""
        K, dK = kernel.gradient(self.X_train) if eval_gradient else (kernel(self.X_train), None)
        result = self._run(_check_prior_covariance(K), mixed, self._warm, dK, warn)
        self._warm = (result.alpha, result.site_precision)
        return result

    def __repr__(self):
        return f"VariationalGP(kernel={self.kernel!r}, likelihood={self.likelihood!r})"
