"""Variational Gaussian approximations on z = M f, and likelihoods that mix several kinds of data.

:class:`MixedLikelihood` joins several parts, each a likelihood with its own rows of the map M
and its own observations: single-item answers (identity rows) and pairwise answers (+1/-1 rows,
:meth:`course_lib.gp.comparisons.Comparisons.matrix`) about the SAME n items share one latent f.
Row k of the stacked map gives z_k = (M f)_k, which only its own part's likelihood sees.

Under q(f) = N(mu, S) each z_k is Gaussian with mean (M mu)_k and variance (M S M^T)_kk, so the
expected log-likelihood of the data is a sum over rows of one-dimensional expectations, which
every :class:`~course_lib.gp.likelihoods.Likelihood` provides with its derivatives
(``expected_log_likelihood(y, mean, var) -> (value, d/dmean, d/dvar)``).

:class:`VariationalGP` fits the full-rank Gaussian q(f) that maximises the evidence lower bound

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
(:meth:`MixedLikelihood.expected_parameter_gradient`).

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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.optimize import minimize

from ..linalg import NotPositiveDefiniteError, cholesky_with_jitter, log_det_from_cholesky
from ..validation import RngLike, as_float_array, as_positive_float, as_positive_int
from .kernels import Kernel, as_inputs, check_exact_size
from .laplace import check_latent_problem
from .likelihoods import Likelihood
from .optimise import (HyperparameterFit, check_priors, log_hyper_prior, negative_log_posterior,
                       optimise_hyperparameters)
from .parameters import LogParameters
from .prediction import LatentGaussian
from .quadrature import LatentOverflowError
from .priors import Prior
from .regression import checked_theta, predict_latent

__all__ = ["MixedLikelihood", "VariationalGP", "VariationalResult", "VariationalEvidence",
           "variational_elbo", "fit_variational"]


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


def _check_part(part, index: int) -> tuple[Likelihood, np.ndarray, np.ndarray]:
    name = f"parts[{index}]"
    if not isinstance(part, (tuple, list)) or len(part) != 3:
        raise TypeError(f"{name}: expected a (likelihood, M, y) triple, got "
                        f"{type(part).__name__}")
    likelihood, M, y = part
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"{name}: its likelihood must be a course_lib.gp.likelihoods Likelihood, "
                        f"got {type(likelihood).__name__}")
    M = as_float_array(M, f"{name} M", ndim=2)
    if M.shape[0] == 0:
        raise ValueError(f"{name}: its M has no rows (a part needs at least one observation)")
    empty = ~np.any(M != 0, axis=1)
    if np.any(empty):
        raise ValueError(f"{name}: row {int(np.argmax(empty))} of its M is all zeros (it would "
                         "observe nothing about f)")
    y = likelihood.check_observations(y, f"{name} y")
    if y.shape != (M.shape[0],):
        raise ValueError(f"{name}: its y has {y.size} observations but its M has {M.shape[0]} "
                         "rows (one per observation)")
    return likelihood, M, y


class MixedLikelihood(LogParameters):
    """Several likelihoods on one latent f: ``parts`` = [(likelihood, M_part, y_part), ...].

    ``M_part`` (m_part x n) maps the n items' latents to the part's rows z = M_part f (identity
    rows for single items, +1/-1 rows for pairs); every part has the same n columns. The
    stacked ``M`` and ``y`` hold the parts' rows in order; ``slices[p]`` picks part p's rows.

    ``expected_log_likelihood(mean, var)`` takes the mean and variance of every stacked row of
    z and returns the SUM over all parts (each row counted once) with its derivatives per row;
    ``part_expected_log_likelihoods(mean, var)`` gives each part's own sum (the ELBO's ledger).

    Parameters: ``theta`` is every part's log-parameters, part 0's first, named
    ``"part<p>.<name>"`` after the part's index p in ``parts`` and the likelihood's own
    ``param_names`` (e.g. ``"part1.gap_2"``: the second cut-point gap of parts[1]'s Likert
    likelihood), so two parts of one type never clash; ``bounds`` likewise (a parameter that
    its likelihood fixes has equal bounds). ``with_theta(theta)`` is a new MixedLikelihood on
    the same maps and observations; ``expected_parameter_gradient(mean, var)`` the gradient of
    the summed expected log-likelihood in ``theta``.
    """

    def __init__(self, parts: Sequence):
        if isinstance(parts, (str, bytes)) or not isinstance(parts, Sequence) or not parts:
            raise TypeError("parts: expected a non-empty list of (likelihood, M, y) triples, got "
                            f"{type(parts).__name__}" + (" (empty)" if not parts else ""))
        checked = [_check_part(part, index) for index, part in enumerate(parts)]
        n = checked[0][1].shape[1]
        for index, (_, M, _) in enumerate(checked):
            if M.shape[1] != n:
                raise ValueError(f"parts[{index}]: its M has {M.shape[1]} columns, but parts[0]'s "
                                 f"has {n}; every part must address the same n items")
        self.likelihoods = tuple(part[0] for part in checked)
        self.M = np.vstack([part[1] for part in checked])
        self.y = np.concatenate([part[2] for part in checked])
        edges = np.cumsum([0] + [part[1].shape[0] for part in checked])
        self.slices = tuple(slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]))
        for array in (self.M, self.y):
            array.setflags(write=False)

    @property
    def n_items(self) -> int:
        return int(self.M.shape[1])

    @property
    def n_rows(self) -> int:
        return int(self.M.shape[0])

    @property
    def n_parts(self) -> int:
        return len(self.likelihoods)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(f"part{index}.{name}" for index, likelihood in enumerate(self.likelihoods)
                     for name in likelihood.param_names)

    @property
    def theta(self) -> np.ndarray:
        """Log-parameters of every part, in the order of ``param_names``."""
        return np.concatenate([likelihood.theta for likelihood in self.likelihoods])

    @property
    def bounds(self) -> np.ndarray:
        """Log-bounds, shape (n_params, 2)."""
        return np.vstack([likelihood.bounds.reshape(-1, 2) for likelihood in self.likelihoods])

    def _set_theta(self, theta: np.ndarray) -> None:
        # with_theta's copy shares the maps and observations (they are read-only)
        edges = np.cumsum([0] + [likelihood.n_params for likelihood in self.likelihoods])
        self.likelihoods = tuple(likelihood.with_theta(theta[a:b]) for likelihood, a, b
                                 in zip(self.likelihoods, edges[:-1], edges[1:]))

    def expected_parameter_gradient(self, mean, var) -> np.ndarray:
        """d/dtheta of ``expected_log_likelihood(mean, var)[0]``, shape (n_params,): each
        part's :meth:`~course_lib.gp.likelihoods.Likelihood.expected_parameter_gradient`
        summed over its rows."""
        mean, var = self._rows(mean, var)
        pieces = [likelihood.expected_parameter_gradient(self.y[rows], mean[rows], var[rows])
                  for likelihood, rows in zip(self.likelihoods, self.slices)]
        return np.concatenate([np.sum(piece, axis=1) for piece in pieces])

    def _rows(self, mean, var):
        mean = as_float_array(mean, "mean", ndim=1)
        var = as_float_array(var, "var", ndim=1)
        for values, name in ((mean, "mean"), (var, "var")):
            if values.size != self.n_rows:
                raise ValueError(f"{name}: expected {self.n_rows} values (one per row of the "
                                 f"stacked M), got {values.size}")
        return mean, var

    def _per_part(self, mean, var):
        mean, var = self._rows(mean, var)
        return [likelihood.expected_log_likelihood(self.y[rows], mean[rows], var[rows])
                for likelihood, rows in zip(self.likelihoods, self.slices)]

    def expected_log_likelihood(self, mean, var) -> tuple[float, np.ndarray, np.ndarray]:
        """``(sum_k E log p(y_k | z_k), d/dmean (m,), d/dvar (m,))`` for z_k ~ N(mean_k, var_k)
        over the stacked rows; each row is counted once, by its own part's likelihood."""
        pieces = self._per_part(mean, var)
        return (float(sum(np.sum(value) for value, _, _ in pieces)),
                np.concatenate([d_mean for _, d_mean, _ in pieces]),
                np.concatenate([d_var for _, _, d_var in pieces]))

    def part_expected_log_likelihoods(self, mean, var) -> np.ndarray:
        """Each part's summed expected log-likelihood, shape (n_parts,)."""
        return np.array([float(np.sum(value)) for value, _, _ in self._per_part(mean, var)])

    def __repr__(self) -> str:
        inside = ", ".join(f"{type(lik).__name__} x {rows.stop - rows.start}"
                           for lik, rows in zip(self.likelihoods, self.slices))
        return f"MixedLikelihood({inside}; {self.n_items} items)"


# --------------------------------------------------------------------------------------------
# The bound at given (alpha, lambda)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VariationalResult:
    """The ELBO of q(f) = N(K alpha, (K^-1 + M^T diag(site_precision) M)^-1) and its ledger.

    ``elbo = expected_log_likelihood - kl``; ``part_expected_log_likelihoods`` splits the first
    term by the MixedLikelihood's parts; ``z_mean``, ``z_var`` are the rows' moments under q;
    ``kl_weight`` is the teaching device's beta (module docstring) and ``objective`` =
    expected_log_likelihood - kl_weight * kl the quantity the optimiser maximised (the ELBO
    when kl_weight = 1); ``gradient_alpha`` and ``gradient_site_precision`` are
    d objective / d alpha and d objective / d lambda (both 0 at the optimum);
    ``gradient_kernel`` (when asked for) is d objective / d theta_p of the kernel's
    log-parameters at fixed (alpha, site_precision);
    ``n_iter`` (fixed-point steps plus L-BFGS iterations) and ``converged`` describe the
    optimiser run (0 / False for a plain evaluation); ``posterior`` is the
    :class:`~course_lib.gp.prediction.LatentGaussian` ("precision" form).
    """

    elbo: float
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
    def objective(self) -> float:
        return self.expected_log_likelihood - self.kl_weight * self.kl


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
        """z means and variances under q, and the pieces the gradients reuse."""
        root = np.sqrt(lam)
        B = np.eye(lam.size) + root[:, None] * self.C * root[None, :]
        L_B, _ = cholesky_with_jitter(B, "B = I + R^T K R")
        W = solve_triangular(L_B, root[:, None] * self.C, lower=True, check_finite=False)
        z_var = np.maximum(np.diag(self.C) - np.einsum("ij,ij->j", W, W), 0.0)
        return self.A @ alpha, z_var, L_B, W

    def evaluate(self, alpha, lam):
        """(objective, expected log-likelihood, kl, d/dalpha, d/dlambda, pieces)."""
        z_mean, z_var, L_B, W = self.moments(alpha, lam)
        expected, d_mean, d_var = self.mixed.expected_log_likelihood(z_mean, z_var)
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
        KL through alpha^T dK alpha and B)."""
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
    taken)."""
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
                    kl_weight: float = 1.0) -> VariationalResult:
    """Maximise the ELBO over (alpha, log site_precision): damped fixed-point steps towards
    alpha = M^T dE/dmean, lambda = -2 dE/dvar, then L-BFGS with the analytic gradient.

    ``likelihood`` is a :class:`MixedLikelihood` (then ``y`` and ``M`` stay None: its parts
    carry them) or one Likelihood with its observations ``y`` and map ``M`` (m x n; None means
    the identity, one observation per item). ``alpha0`` / ``site_precision0`` warm-start the
    run (default: alpha = 0 and lambda = -2 dE/dvar at the prior, floored at 1e-6). ``tol``
    stops the run when the ELBO changes by less than ``tol`` (relative, scipy's ftol);
    ``max_iter`` caps L-BFGS iterations. ``dK`` (P, n, n) adds the kernel gradient;
    ``warn=False`` silences the jitter warning of K's Cholesky factor. ``kl_weight`` (a
    teaching device, module docstring) maximises E - kl_weight * KL instead of the ELBO.
    """
    K, mixed = _as_mixed(likelihood, y, M, K)
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol")
    bound = _Bound(K, mixed, warn, as_positive_float(kl_weight, "kl_weight"))
    n, m = bound.K.shape[0], mixed.n_rows
    alpha = np.zeros(n) if alpha0 is None else as_float_array(alpha0, "alpha0", ndim=1)
    if alpha.size != n:
        raise ValueError(f"alpha0: expected {n} weights (one per item), got {alpha.size}")
    if site_precision0 is None:
        z_mean, z_var, _, _ = bound.moments(alpha, np.zeros(m))
        lam = np.maximum(-2.0 * mixed.expected_log_likelihood(z_mean, z_var)[2]
                         / bound.kl_weight, _SITE_PRECISION_FLOOR)
    else:
        lam = as_float_array(site_precision0, "site_precision0", ndim=1)
        if lam.size != m or np.any(lam <= 0):
            raise ValueError(f"site_precision0: expected {m} positive precisions (one per row "
                             f"of M), got {lam.size} values, smallest {lam.min():g}")

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


def variational_elbo(K, likelihood, alpha, site_precision, y=None, M=None, dK=None, *,
                     kl_weight: float = 1.0) -> VariationalResult:
    """The ELBO and its ledger at GIVEN (alpha, site_precision) (no optimisation); arguments
    as :func:`fit_variational` (with ``kl_weight``, the gradients are those of
    ``result.objective``)."""
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


def _result(bound, alpha, lam, dK, n_iter, converged) -> VariationalResult:
    _, expected, kl, grad_alpha, grad_lam, pieces = bound.evaluate(alpha, lam)
    z_mean, z_var = pieces[0], pieces[1]
    gradient = None if dK is None else bound.kernel_gradient(alpha, lam, pieces, dK)
    R = bound.M.T * np.sqrt(lam)[None, :]
    posterior = LatentGaussian.from_precision(bound.K, bound.K @ alpha, R, alpha=alpha)
    parts = bound.mixed.part_expected_log_likelihoods(z_mean, z_var)
    return VariationalResult(float(expected - kl), float(expected), parts, float(kl), alpha, lam,
                             z_mean, z_var, posterior, grad_alpha, grad_lam, gradient, n_iter,
                             converged, bound.kl_weight)


def _as_mixed(likelihood, y, M, K) -> tuple[np.ndarray, MixedLikelihood]:
    """(K, MixedLikelihood) from either form of the arguments, each part checked against K."""
    if isinstance(likelihood, MixedLikelihood):
        if y is not None or M is not None:
            raise ValueError("y: a MixedLikelihood carries its own observations and maps; "
                             "pass y=None and M=None")
        for part, rows in zip(likelihood.likelihoods, likelihood.slices):
            K, _, _ = check_latent_problem(K, likelihood.M[rows], part, likelihood.y[rows])
        return K, likelihood
    if y is None:
        raise ValueError("y: a single likelihood needs its observations y")
    if M is None:  # one observation per item
        M = np.eye(np.shape(K)[0]) if np.ndim(K) == 2 else np.empty((0, 0))
    K, M, y = check_latent_problem(K, M, likelihood, y)
    return K, MixedLikelihood([(likelihood, M, y)])


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VariationalEvidence:
    """The ELBO at some kernel hyper-parameters (``value``), its gradient in the kernel's
    log-parameters (or None) and the :class:`VariationalResult` behind it."""

    value: float
    gradient: np.ndarray | None
    result: VariationalResult


class VariationalGP:
    """Full-rank variational GP on z = M f (module docstring), with MAP-II on the kernel and,
    if asked, on the likelihood's parameters.

    Parameters
    ----------
    kernel : Kernel over the items' inputs.
    likelihood : a :class:`~course_lib.gp.likelihoods.Likelihood` (then ``fit(X, y, M)``) or a
        :class:`MixedLikelihood` whose parts carry their own maps and observations (then
        ``fit(X)``). Its parameters are named as :attr:`MixedLikelihood.param_names`
        (``"part<p>.<name>"``; a single likelihood is part 0).
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
    :class:`VariationalResult`: ELBO, its ledger, alpha, site precisions), ``gp.posterior``,
    ``gp.X_train``, ``gp.mixed`` (the MixedLikelihood with its data). ``log_marginal_likelihood``
    is the ELBO (a lower bound on the log evidence; with ``kl_weight`` != 1 the objective
    E - kl_weight KL), which ``optimise_hyperparameters`` maximises by the restart loop of
    :func:`~course_lib.gp.optimise.optimise_hyperparameters`, each evaluation warm-started from
    the previous (alpha, lambda).
    """

    def __init__(self, kernel: Kernel, likelihood: Likelihood | MixedLikelihood,
                 priors: Mapping[str, Prior] | None = None, *, learn_likelihood=None,
                 kl_weight: float = 1.0, max_iter: int = 2000, tol: float = 1e-13):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
        if not isinstance(likelihood, (Likelihood, MixedLikelihood)):
            raise TypeError(f"likelihood: expected a course_lib.gp.likelihoods Likelihood or a "
                            f"MixedLikelihood, got {type(likelihood).__name__}")
        self.kernel, self.likelihood = kernel, likelihood
        self._learned = self._check_learned(learn_likelihood)
        self.priors = self._check_priors(priors)
        self.kl_weight = as_positive_float(kl_weight, "kl_weight")
        self.max_iter = as_positive_int(max_iter, "max_iter")
        self.tol = as_positive_float(tol, "tol")
        self.X_train: np.ndarray | None = None
        self.mixed: MixedLikelihood | None = None
        self.result: VariationalResult | None = None
        self.posterior: LatentGaussian | None = None
        self._warm: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def likelihood_param_names(self) -> tuple[str, ...]:
        """Every likelihood parameter's name, learned or not (``"part<p>.<name>"``)."""
        if isinstance(self.likelihood, MixedLikelihood):
            return self.likelihood.param_names
        return tuple(f"part0.{name}" for name in self.likelihood.param_names)

    def _check_learned(self, learn) -> np.ndarray:
        """Indices (into the likelihood's theta) of the parameters MAP-II learns."""
        names = self.likelihood_param_names
        free = self.likelihood.bounds.reshape(-1, 2)
        free = free[:, 0] < free[:, 1]
        if learn is None:
            return np.zeros(0, dtype=int)
        if isinstance(learn, str):
            if learn != "all":
                raise ValueError(f"learn_likelihood: expected None, 'all' or a list of names "
                                 f"from {names}, got {learn!r}")
            return np.flatnonzero(free)
        if not isinstance(learn, (Sequence, set, frozenset)):
            raise TypeError(f"learn_likelihood: expected None, 'all' or a list of names, got "
                            f"{type(learn).__name__}")
        for name in learn:
            if name not in names:
                raise ValueError(f"learn_likelihood: unknown likelihood parameter {name!r}; "
                                 f"known: {names}")
            if not free[names.index(name)]:
                raise ValueError(f"learn_likelihood: {name!r} has equal bounds (its likelihood "
                                 "fixes it), so it cannot be learned")
        return np.array(sorted({names.index(name) for name in learn}), dtype=int)

    def _check_priors(self, priors):
        learned = {self.likelihood_param_names[i] for i in self._learned}
        for name in priors or {}:
            if name in self.likelihood_param_names and name not in learned:
                raise ValueError(f"priors: {name!r} is a likelihood parameter that is not "
                                 "learned; name it in learn_likelihood")
        return check_priors(priors, self.param_names)

    @property
    def param_names(self) -> tuple[str, ...]:
        names = self.likelihood_param_names
        return self.kernel.param_names + tuple(names[i] for i in self._learned)

    @property
    def theta(self) -> np.ndarray:
        return np.concatenate([self.kernel.theta, self.likelihood.theta[self._learned]])

    @property
    def bounds(self) -> np.ndarray:
        return np.vstack([self.kernel.bounds,
                          self.likelihood.bounds.reshape(-1, 2)[self._learned]])

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    def _split(self, theta) -> tuple[Kernel, Likelihood | MixedLikelihood]:
        theta = checked_theta(theta, self.param_names)
        P = self.kernel.n_params
        if self._learned.size == 0:
            return self.kernel.with_theta(theta), self.likelihood
        likelihood_theta = self.likelihood.theta
        likelihood_theta[self._learned] = theta[P:]
        return self.kernel.with_theta(theta[:P]), self.likelihood.with_theta(likelihood_theta)

    def _set_theta(self, theta):
        self.kernel, self.likelihood = self._split(theta)
        if self.mixed is not None:
            self.mixed = self.mixed.with_theta(self.likelihood.theta)

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

    def _run(self, K, mixed, warm, dK, warn) -> VariationalResult:
        try:
            return fit_variational(K, mixed, alpha0=warm[0], site_precision0=warm[1], dK=dK,
                                   max_iter=self.max_iter, tol=self.tol, warn=warn,
                                   kl_weight=self.kl_weight)
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(f"kernel: no variational posterior at the current "
                                           f"hyper-parameters ({err})") from None

    def _refit(self):
        self._fit(self.X_train, self.kernel(self.X_train), self.mixed)

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and fit q(f) again."""
        self._set_theta(theta)
        self._refit()

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, ...) before predicting or optimising")

    # ----- evidence lower bound ----------------------------------------------------------
    def marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                            warn: bool = True) -> VariationalEvidence:
        """The optimised ELBO at ``theta`` (default: the current hyper-parameters) and, with
        ``eval_gradient``, its gradient in ``theta`` (kernel, then learned likelihood
        parameters; both at the optimal (alpha, lambda), module docstring); warm-started
        from the latest (alpha, lambda). The fitted posterior is left as it is."""
        self._require_fit()
        kernel, likelihood = (self.kernel, self.likelihood) if theta is None \
            else self._split(theta)
        mixed = self.mixed.with_theta(likelihood.theta) if self._learned.size else self.mixed
        K, dK = kernel.gradient(self.X_train) if eval_gradient else (kernel(self.X_train), None)
        result = self._run(K, mixed, self._warm, dK, warn)
        self._warm = (result.alpha, result.site_precision)
        gradient = None
        if eval_gradient:
            likelihood_gradient = mixed.expected_parameter_gradient(result.z_mean, result.z_var)
            gradient = np.concatenate([result.gradient_kernel,
                                       likelihood_gradient[self._learned]])
        return VariationalEvidence(result.objective, gradient, result)

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False):
        """The ELBO (float; with ``kl_weight`` != 1 the objective maximised), or
        ``(value, gradient)`` in the order of ``param_names``."""
        if theta is None and not eval_gradient:
            self._require_fit()
            return self.result.objective
        evidence = self.marginal_likelihood(theta, eval_gradient)
        return (evidence.value, evidence.gradient) if eval_gradient else evidence.value

    def log_hyper_prior(self, theta=None) -> tuple[float, np.ndarray]:
        """Sum of the log hyper-prior densities of u = log theta, and its gradient (0 if none)."""
        return log_hyper_prior(self.theta if theta is None else theta, self.param_names,
                               self.priors)

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(ELBO + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        return negative_log_posterior(self, theta, lambda evidence: evidence.gradient)

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """MAP-II on ``theta`` (the kernel's log-parameters, then the learned likelihood
        parameters): maximise ELBO + log p(theta) with the L-BFGS-B restart loop of
        :func:`~course_lib.gp.optimise.optimise_hyperparameters` (first run from the current
        theta, the others from the priors or uniform in the log-bounds; the best is kept and
        refitted)."""
        self._require_fit()
        return optimise_hyperparameters(self, n_restarts=n_restarts, rng=rng, max_iter=max_iter)

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance (``full_cov``: covariance) of the latent f at the rows of
        ``X_test`` under q (no observation noise)."""
        self._require_fit()
        return predict_latent(self.kernel, self.X_train, self.posterior, X_test, full_cov)

    def __repr__(self):
        return f"VariationalGP(kernel={self.kernel!r}, likelihood={self.likelihood!r})"
