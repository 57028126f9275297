"""The sparse variational GP with fixed inducing points: its bound, its fit and the model that
optimises it (Hensman, Matthews & Ghahramani 2015; the model of Wu et al. 2025, section 2 and
App. A).

The latent f is carried by its values u = f(Z) at p fixed inducing points Z (Wu et al. 2025: 100
scrambled Sobol points of the domain plus one at every constraint location, see
:func:`~course_lib.mixed.inducing.inducing_points`). The approximation is
q(f, u) = p(f | u) q(u), whitened:

    K_ZZ = L L^T,   u = L v,   q(v) = N(m, S S^T),   S lower triangular, diag(S) > 0,

so the prior of v is N(0, I) and the KL term needs no kernel matrix at all:

    KL(q(v) || N(0, I)) = 1/2 [ ||S||_F^2 + m^T m - p - 2 sum_i log S_ii ].

The data are the rows z = M f of a :class:`~course_lib.mixed.variational_model.MixedLikelihood`
(identity rows for yes/no answers and constraints, +1/-1 rows for pairs). With
A = L^-1 K_ZX (p x n) and B = A M^T (p x rows), each row is Gaussian under q with

    mean_k = b_k^T m,   var_k = c_k - ||b_k||^2 + ||S^T b_k||^2,   c = diag(M K_XX M^T),

where b_k is column k of B (c needs only the kernel's diagonal when every row of M observes one
item; the n x n K_XX is formed only for rows that mix items). The bound is

    ELBO = sum_k E_q log p(y_k | z_k) - KL        (every row once, one KL: Wu et al. 2025 eq. 1),

with the expectations of :meth:`MixedLikelihood.expected_log_likelihood` (closed form or the
likelihoods' deterministic panel rule, never Monte Carlo). Its gradients, with d_mean, d_var the
derivatives of the expectations in each row's mean and variance:

    dELBO/dm = B d_mean - m,    dELBO/dS = tril(2 B diag(d_var) B^T S - S) + diag(1 / S_ii).

Optimisation. Setting these to zero gives the optimum's fixed point

    S S^T = (I + B diag(lambda) B^T)^-1,   lambda = -2 d_var,   m = B d_mean,

i.e. Gaussian "sites" on the rows, as in the full-rank model of
:mod:`course_lib.mixed.variational`. :func:`fit_sparse_variational` first takes damped
natural-gradient steps: the natural parameters of q(v) (precision P = (S S^T)^-1 and P m) move a
fraction rho of the way to those of the fixed point computed at the current q (targets
P* = I + B diag(lambda*) B^T, P* m* = B (d_mean + lambda* mean)), rho halved whenever the ELBO
would fall (a Gaussian likelihood is solved in one full step). L-BFGS on (m, S) with the
analytic gradient, S's diagonal as logs, then polishes (and handles likelihoods that are not
log-concave, where lambda* would be negative and is floored). A previous q(v) is a warm start
even when trials were added, since v lives on the fixed inducing points.

Hyper-parameters (MAP-II). The gradient in the kernel's log-parameters is taken at the optimal
(m, S) held fixed (the envelope theorem); the KL does not depend on the kernel in the whitened
form, and B moves through both K_ZX and the Cholesky factor L of K_ZZ:

    dB = L^-1 dK_ZX M^T - Phi(L^-1 dK_ZZ L^-T) B,   Phi(Y) = lower triangle of Y, half diagonal,
    dELBO = sum_k d_var_k dc_k + <G, dB>,  G = m d_mean^T - 2 (I - S S^T) B diag(d_var).

Jitter: K_ZZ gets the :func:`~course_lib.linalg.cholesky_with_jitter` ladder (inducing values
observed with a tiny noise, so the bound stays a bound); the gradient includes its dependence on
the kernel (jitter = j * mean diag K_ZZ).

A teaching device (the bookkeeping trap of AEPsych 0.8.0's mixed ELBO, beta = (n + m) / n, as
in :mod:`course_lib.mixed.variational`): ``kl_weight`` = beta maximises E - beta KL instead of the
ELBO; its optimum is the fixed point above with lambda = -2 d_var / beta and m = B d_mean / beta
(every datum counts 1 / beta times). For beta >= 1 the objective is still a lower bound on the
log evidence, a looser one; its maximiser is not the ELBO's. Only beta = 1 (the default) is the
ELBO.

What it returns and what it accepts. :class:`SparseVariationalEvidence` is the bound (an
evidence bound, CONVENTIONS 3.4) and its ledger at a whitened q(v) = N(m, S S^T) over the
values at the inducing points (the expected
log-likelihood of every row once, minus one KL). The ``_check_*`` functions are the argument
checks of the fit, of the bound at a given q(v) and of the model
:class:`SparseVariationalGP` (below; those of a given (m, S) and the packing of q(v) for L-BFGS
are the engine :mod:`course_lib.mixed._triangular_gaussian`): each runs once per call, at the
border, with a message that names the argument, so the bound and its optimisation work on
arrays already checked. The
likelihood's two forms (one Likelihood with its y and M, or a MixedLikelihood carrying its
data) are checked against the n rows of X, not against an n x n kernel matrix as
:func:`~course_lib.mixed.variational._as_mixed` does for the full-rank fit: the sparse
bound forms K_XX only when a row mixes items.

The model. :class:`SparseVariationalGP` fits this q(v) for a kernel over the inputs and shares
with the full-rank :class:`~course_lib.mixed.variational.VariationalGP` what both variational
models are (:class:`~course_lib.mixed.variational_model.VariationalModel`: the hyper-parameter
vector, kernel then the learned likelihood parameters, the evidence and MAP-II). The kernel's
gradient is the bound's at the optimal (m, S); the likelihoods' own parameters (e.g. Likert cut
points), when learned, enter only the expected log-likelihood, so their gradient is
:meth:`MixedLikelihood.expected_parameter_gradient` at the rows' moments. A refit starts from the
previous q(v) even when trials were added, since v lives on the fixed inducing points.

After ``fit`` the model exposes ``kernel``, ``X_train`` (= Z) and ``posterior`` (the
:class:`~course_lib.gp.prediction.LatentGaussian` over u = f(Z), whitened form), so prediction
and the level-set acquisitions of :mod:`course_lib.mixed.levelset` treat it like any other course
GP: at test inputs, with a = L^-1 k(Z, x*), mean = a^T m and var = k(x*, x*) - |a|^2 + |S^T a|^2.
With Z = X the model is the full variational GP of :mod:`course_lib.mixed.variational` (and with
a Gaussian likelihood, exact regression).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize

from ..gp.kernel_base import Kernel, as_inputs
from ..gp.prediction import LatentGaussian
from ..gp.priors import Prior
from ..linalg import NotPositiveDefiniteError, cholesky_with_jitter
from ..preference.quadrature import LatentOverflowError
from ..preference.likelihoods import Likelihood
from ..validation import as_bool, as_float_array, as_positive_float, as_positive_int
from ._triangular_gaussian import _TriangularPacking, _check_mean, _check_root
from .variational import _SITE_PRECISION_FLOOR
from .variational_model import MixedLikelihood, VariationalModel


__all__ = ["fit_sparse_variational", "sparse_variational_evidence", "SparseVariationalEvidence",
           "SparseVariationalGP"]

# The natural-gradient phase: at most _FIXED_POINT_MAX_ITER steps, stopping when the ELBO gains
# less than _FIXED_POINT_TOL (relative); damping halved down to _MIN_DAMPING. Site precisions
# are floored at the full-rank fit's _SITE_PRECISION_FLOOR (a likelihood that is not log-concave
# can ask for a negative one, which would leave q without a covariance; L-BFGS then finishes).
_FIXED_POINT_MAX_ITER = 200
_FIXED_POINT_TOL = 1e-9
_MIN_DAMPING = 1e-3


class _SparseBound:
    """The ELBO and its gradients at one kernel: caches L = chol(K_ZZ), B = L^-1 K_ZX M^T and
    the rows' residual prior variances c - colsum(B^2) (and the kernel derivatives if asked)."""

    def __init__(self, kernel: Kernel, X, Z, mixed: MixedLikelihood, with_gradient: bool,
                 warn: bool = True, kl_weight: float = 1.0):
        self.mixed, M, self.kl_weight = mixed, np.asarray(mixed.M), kl_weight
        if with_gradient:
            K_ZZ, self.dK_ZZ = kernel.gradient(Z)
            K_ZX, self.dK_ZX = kernel.gradient(Z, X)
        else:
            K_ZZ, K_ZX = kernel(Z), kernel(Z, X)
        self.L, self.jitter = cholesky_with_jitter(K_ZZ, "K_ZZ (the kernel at the inducing "
                                                   "points)", warn)
        self.relative_jitter = self.jitter / float(np.mean(np.diag(K_ZZ))) if self.jitter else 0.0
        self.M = M
        self.single = bool(np.all(np.count_nonzero(M, axis=1) == 1))
        if self.single:  # c_k = M_kj^2 k(x_j, x_j): the diagonal is enough
            if with_gradient:
                k_diag, self.dk_diag = kernel.gradient_diag(X)
            else:
                k_diag = kernel.diag(X)
            c = (M ** 2) @ k_diag
        else:
            if with_gradient:
                K_XX, self.dK_XX = kernel.gradient(X)
            else:
                K_XX = kernel(X)
            c = np.einsum("ki,ij,kj->k", M, K_XX, M)
        self.B = solve_triangular(self.L, K_ZX @ M.T, lower=True, check_finite=False)
        self.residual = c - np.einsum("ij,ij->j", self.B, self.B)
        self.p = self.L.shape[0]

    def moments(self, m, R):
        """Rows' means and variances under q(v) = N(m, R R^T) (any square root R)."""
        W = R.T @ self.B
        return self.B.T @ m, np.maximum(self.residual + np.einsum("ij,ij->j", W, W), 0.0), W

    def evaluate(self, m, R):
        """(objective, expected, kl, d/dm, pieces) at q(v) = N(m, R R^T), R triangular.
        Lecture 07, section 4 (Constraints as pseudo-observations), "The sparse model's bound"."""
        z_mean, z_var, W = self.moments(m, R)
        expected, d_mean, d_var = self.mixed._expected_log_likelihood(z_mean, z_var)
        diagonal = np.abs(np.diag(R))
        kl = 0.5 * (np.sum(R ** 2) + m @ m - self.p) - np.sum(np.log(diagonal))
        w = self.kl_weight
        return (expected - w * kl, expected, kl, self.B @ d_mean - w * m,
                (z_mean, z_var, W, d_mean, d_var))

    def root_gradient(self, S, pieces) -> np.ndarray:
        """d objective/dS for a lower-triangular S (module docstring), lower triangle only."""
        W, d_var = pieces[2], pieces[4]
        grad = np.tril(2.0 * (self.B * d_var) @ W.T - self.kl_weight * S)
        grad[np.diag_indices(self.p)] += self.kl_weight / np.diag(S)
        return grad

    def kernel_gradient(self, m, S, pieces) -> np.ndarray:
        """d objective/dtheta_p at fixed (m, S) (module docstring; the KL does not depend on
        the kernel, so kl_weight does not enter); needs ``with_gradient``."""
        d_mean, d_var = pieces[3], pieces[4]
        Sigma = S @ S.T
        DB = self.B * d_var
        G = np.outer(m, d_mean) - 2.0 * (DB - Sigma @ DB)
        # <G, L^-1 dK_ZX M^T> = <L^-T G M, dK_ZX>
        weight_ZX = solve_triangular(self.L, G @ self.M, lower=True, trans="T",
                                     check_finite=False)
        # <G, Phi(Y) B> = <Phi(G B^T), L^-1 dK_ZZ L^-T> = <L^-T Phi(G B^T) L^-1, dK_ZZ>
        F = np.tril(G @ self.B.T)
        F[np.diag_indices(self.p)] *= 0.5
        inner = solve_triangular(self.L, F, lower=True, trans="T", check_finite=False)
        weight_ZZ = solve_triangular(self.L, inner.T, lower=True, trans="T",
                                     check_finite=False).T
        weight_ZZ = 0.5 * (weight_ZZ + weight_ZZ.T)
        P = self.dK_ZZ.shape[0]
        grad = (self.dK_ZX.reshape(P, -1) @ weight_ZX.ravel()
                - self.dK_ZZ.reshape(P, -1) @ weight_ZZ.ravel())
        if self.relative_jitter:  # jitter = j * mean(diag K_ZZ) moves with the kernel
            mean_diag = np.einsum("pii->p", self.dK_ZZ) / self.p
            grad -= self.relative_jitter * mean_diag * np.trace(weight_ZZ)
        if self.single:
            grad += self.dk_diag @ ((self.M ** 2).T @ d_var)
        else:
            grad += self.dK_XX.reshape(P, -1) @ (self.M.T @ (d_var[:, None] * self.M)).ravel()
        return grad


def _natural_gradient(bound: _SparseBound, m, S, tol: float):
    """Damped natural-gradient steps towards the fixed point (module docstring), starting at
    q(v) = N(m, S S^T). With a kl_weight beta the targets are those of E / beta - KL. Returns
    (m, S lower, steps taken).
    Lecture 07, section 4 (Constraints as pseudo-observations), where the sparse model is fitted."""
    eye = np.eye(bound.p)
    S_inv = solve_triangular(S, eye, lower=True, check_finite=False)
    precision = S_inv.T @ S_inv
    h = precision @ m
    R = S
    objective, _, _, _, pieces = bound.evaluate(m, R)
    rho, steps = 1.0, _FIXED_POINT_MAX_ITER
    for step in range(_FIXED_POINT_MAX_ITER):
        z_mean, d_mean, d_var = pieces[0], pieces[3], pieces[4]
        lam = np.maximum(-2.0 * d_var / bound.kl_weight, _SITE_PRECISION_FLOOR)
        precision_target = eye + (bound.B * lam) @ bound.B.T
        h_target = bound.B @ (d_mean / bound.kl_weight + lam * z_mean)
        while rho >= _MIN_DAMPING:
            precision_new = (1.0 - rho) * precision + rho * precision_target
            h_new = (1.0 - rho) * h + rho * h_target
            L_P = cholesky(precision_new, lower=True, check_finite=False)
            m_new = cho_solve((L_P, True), h_new, check_finite=False)
            # S S^T = P^-1 = L_P^-T L_P^-1: R = L_P^-T is an (upper) triangular root
            R_new = solve_triangular(L_P, eye, lower=True, check_finite=False).T
            objective_new, _, _, _, pieces_new = bound.evaluate(m_new, R_new)
            if objective_new >= objective:
                break
            rho *= 0.5
        else:
            steps = step
            break
        change = objective_new - objective
        precision, h, m, R = precision_new, h_new, m_new, R_new
        objective, pieces = objective_new, pieces_new
        rho = min(1.0, 2.0 * rho)
        if change <= tol * max(1.0, abs(objective)):
            steps = step + 1
            break
    S = R if R is S else cholesky(R @ R.T, lower=True, check_finite=False)
    return m, S, steps


def _result(bound: _SparseBound, m, S, with_gradient: bool, n_iter: int, converged: bool
            ) -> SparseVariationalEvidence:
    value, expected, kl, grad_m, pieces = bound.evaluate(m, S)
    z_mean, z_var = pieces[0], pieces[1]
    posterior = LatentGaussian.from_whitened(bound.L, m, S, bound.jitter)
    parts = bound.mixed.part_expected_log_likelihoods(z_mean, z_var)
    gradient = bound.kernel_gradient(m, S, pieces) if with_gradient else None
    return SparseVariationalEvidence(float(value), gradient, float(expected), parts, float(kl),
                                     m, S, z_mean, z_var, posterior, grad_m,
                                     bound.root_gradient(S, pieces), gradient, n_iter, converged,
                                     bound.kl_weight)


def sparse_variational_evidence(kernel: Kernel, X, inducing, likelihood, mean_whitened,
                                root_whitened, y=None, M=None, *, eval_gradient: bool = False,
                                kl_weight: float = 1.0) -> SparseVariationalEvidence:
    """The ELBO and its ledger at GIVEN q(v) = N(mean_whitened, S S^T), ``root_whitened`` = S
    (lower triangular, positive diagonal), no optimisation. ``likelihood`` is a
    :class:`~course_lib.mixed.variational_model.MixedLikelihood` over the rows of ``X`` (then ``y`` and
    ``M`` stay None) or one Likelihood with its observations ``y`` and map ``M`` (None: the
    identity). ``eval_gradient`` adds the gradient in the kernel's log-parameters; with
    ``kl_weight`` the gradients are those of ``result.value``, E - kl_weight KL."""
    X, Z, mixed = _check_problem(kernel, X, inducing, likelihood, y, M)
    p = Z.shape[0]
    m = _check_mean(mean_whitened, "mean_whitened", p)
    S = _check_root(root_whitened, "root_whitened", p)
    bound = _SparseBound(kernel, X, Z, mixed, as_bool(eval_gradient, "eval_gradient"),
                         kl_weight=as_positive_float(kl_weight, "kl_weight"))
    return _result(bound, m, S, eval_gradient, 0, False)


def fit_sparse_variational(kernel: Kernel, X, inducing, likelihood, y=None, M=None, *,
                           mean0=None, root0=None, eval_gradient: bool = False,
                           max_iter: int = 2000, tol: float = 1e-10, warn: bool = True,
                           kl_weight: float = 1.0) -> SparseVariationalEvidence:
    """Maximise the ELBO over the whitened q(v) = N(m, S S^T): natural-gradient steps towards
    the fixed point, then L-BFGS on (m, S) with S's diagonal as logs (module docstring).

    Arguments as :func:`sparse_variational_evidence`; ``mean0`` / ``root0`` warm-start the run
    (default: the prior, m = 0 and S = I). ``tol`` stops L-BFGS when the ELBO changes by less
    than ``tol`` (relative, scipy's ftol); ``max_iter`` caps its iterations. ``warn=False``
    silences the jitter warning of K_ZZ's Cholesky factor. ``kl_weight`` (a teaching device,
    module docstring) maximises E - kl_weight * KL instead of the ELBO.
    """
    X, Z, mixed = _check_problem(kernel, X, inducing, likelihood, y, M)
    p = Z.shape[0]
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol")
    eval_gradient = as_bool(eval_gradient, "eval_gradient")
    m = None if mean0 is None else _check_mean(mean0, "mean0", p)
    S = None if root0 is None else _check_root(root0, "root0", p)
    return _fit_sparse_variational_trusted(kernel, X, Z, mixed, m, S, eval_gradient, max_iter,
                                          tol, warn, as_positive_float(kl_weight, "kl_weight"))


def _fit_sparse_variational_trusted(kernel, X, Z, mixed, m, S, eval_gradient, max_iter, tol,
                                   warn, kl_weight) -> SparseVariationalEvidence:
    """:func:`fit_sparse_variational` of checked arguments (``m``, ``S`` None: the prior)."""
    p = Z.shape[0]
    m = np.zeros(p) if m is None else m
    S = np.eye(p) if S is None else S
    bound = _SparseBound(kernel, X, Z, mixed, eval_gradient, warn, kl_weight)
    m, S, n_steps = _natural_gradient(bound, m, S, _FIXED_POINT_TOL)

    packing = _TriangularPacking(p)

    def negative(x):
        mean, root = packing.unpack(x)
        try:
            elbo, _, _, grad_m, pieces = bound.evaluate(mean, root)
        except LatentOverflowError:  # a trial step far out: the line search backs off
            return np.inf, np.zeros_like(x)
        return -elbo, -packing.gradient(grad_m, bound.root_gradient(root, pieces), root)

    run = minimize(negative, packing.pack(m, S), jac=True, method="L-BFGS-B",
                   bounds=packing.bounds(),
                   options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-9})
    m, S = packing.unpack(run.x)
    return _result(bound, m, S, eval_gradient, n_steps + int(run.nit), bool(run.success))


@dataclass(frozen=True)
class SparseVariationalEvidence:
    """The ELBO of the whitened q(v) = N(mean_whitened, S S^T), an evidence bound, with its
    ledger.

    ``value`` = expected_log_likelihood - kl_weight * kl, what the optimiser maximises (the
    ELBO when kl_weight = 1; ``kl_weight`` is the teaching device's beta,
    :mod:`course_lib.mixed.sparse_variational`); ``gradient`` is d value / d theta when asked
    for (None otherwise): in the kernel's log-parameters (``gradient_kernel``) from
    :func:`sparse_variational_evidence` and :func:`fit_sparse_variational`, followed by the learned
    likelihood parameters from the model's ``evidence``.
    The bound has one name, ``value``: at another ``kl_weight`` the ELBO itself is
    ``expected_log_likelihood - kl``. ``part_expected_log_likelihoods`` splits the first
    term by the MixedLikelihood's parts (the ELBO ledger, also under the name
    ``expected_log_likelihoods``); ``root_whitened`` is S (lower triangular); ``z_mean`` and
    ``z_var`` are the rows' moments under q; ``gradient_mean`` and ``gradient_root`` are
    d value/dm and d value/dS (lower triangle; both 0 at the optimum);
    ``gradient_kernel`` (when asked for) is d value/dtheta_p of the kernel's log-parameters
    at fixed (m, S); ``n_iter`` (natural-gradient steps plus L-BFGS iterations) and
    ``converged`` describe the run (0 / False for a plain evaluation); ``posterior`` is the
    :class:`~course_lib.gp.prediction.LatentGaussian` over u = f(Z).
    """

    value: float
    gradient: np.ndarray | None
    expected_log_likelihood: float
    part_expected_log_likelihoods: np.ndarray
    kl: float
    mean_whitened: np.ndarray
    root_whitened: np.ndarray
    z_mean: np.ndarray
    z_var: np.ndarray
    posterior: LatentGaussian
    gradient_mean: np.ndarray
    gradient_root: np.ndarray
    gradient_kernel: np.ndarray | None = None
    n_iter: int = 0
    converged: bool = False
    kl_weight: float = 1.0

    @property
    def expected_log_likelihoods(self) -> np.ndarray:
        """Each part's summed expected log-likelihood (``part_expected_log_likelihoods``)."""
        return self.part_expected_log_likelihoods


def _mixed_for(likelihood, y, M, n: int) -> MixedLikelihood:
    """The MixedLikelihood for n items from either form of the arguments (errors name them)."""
    if isinstance(likelihood, MixedLikelihood):
        if y is not None or M is not None:
            raise ValueError("y: a MixedLikelihood carries its own observations and maps; pass "
                             "y=None and M=None")
        if likelihood.n_items != n:
            raise ValueError(f"X: expected {likelihood.n_items} rows (one per item of the "
                             f"likelihood's maps), got {n}")
        return likelihood
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood or a "
                        f"MixedLikelihood, got {type(likelihood).__name__}")
    if y is None:
        raise ValueError("y: a single likelihood needs its observations y")
    y = likelihood.check_observations(y, "y")
    if M is None:
        if y.size != n:
            raise ValueError(f"y: expected {n} observations (one per row of X, as M is None), "
                             f"got {y.size}")
        M = np.eye(n)
    M = as_float_array(M, "M", ndim=2)
    if M.shape != (y.size, n):
        raise ValueError(f"M: expected shape ({y.size}, {n}) (one row per observation, one "
                         f"column per row of X), got {M.shape}")
    return MixedLikelihood([(likelihood, M, y)])


def _check_inducing(kernel, Z) -> np.ndarray:
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
    Z = as_inputs(Z, "inducing")
    dim = kernel._input_dim()
    if dim is not None and Z.shape[1] != dim:
        raise ValueError(f"inducing: expected {dim} column(s), as the kernel has one "
                         f"lengthscale per input dimension, got shape {Z.shape}")
    return Z


def _check_problem(kernel, X, Z, likelihood, y, M):
    Z = _check_inducing(kernel, Z)
    X, mixed = _check_items(X, Z, likelihood, y, M)
    return X, Z, mixed


def _check_items(X, Z, likelihood, y, M):
    """The rows ``X`` and the likelihood's data, for checked inducing points ``Z``."""
    X = as_inputs(X, "X")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X: expected {Z.shape[1]} column(s), as many as the inducing points "
                         f"(one per input dimension), got shape {X.shape}")
    return X, _mixed_for(likelihood, y, M, X.shape[0])


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

class SparseVariationalGP(VariationalModel):
    """Sparse variational GP with fixed inducing points (module docstring), MAP-II on the kernel
    and, if asked, on the likelihood's parameters.

    Parameters
    ----------
    kernel : Kernel over the inputs.
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood` (then ``fit(X, y, M)``) or a
        :class:`~course_lib.mixed.variational_model.MixedLikelihood` whose parts carry their own
        maps and observations (then ``fit(X)``).
    inducing : (p, d) inducing points Z, fixed (e.g.
        :func:`~course_lib.mixed.inducing.inducing_points`).
    priors, learn_likelihood, kl_weight : as :class:`~course_lib.mixed.variational.VariationalGP`
        (the same hyper-parameter vector: the kernel's log-parameters, then the learned
        likelihood parameters named ``"part<p>.<name>"``; by default none is learned).
    max_iter, tol : of the L-BFGS run over q(v) (:func:`fit_sparse_variational`).
    warm_start : start every fit from the previous q(v) (the active-learning loop refits after
        each trial; v lives on Z, so the previous optimum is a good start even with new rows).

    After ``fit``: ``result`` (:class:`SparseVariationalEvidence`: ELBO, ledger, KL, m, S),
    ``posterior`` (LatentGaussian over u = f(Z)), ``X_train`` (= Z, which is what prediction and
    the level-set acquisitions condition on), ``X_items`` (the rows of X the likelihood
    addresses), ``mixed`` (the MixedLikelihood with its data). ``log_evidence`` is
    the optimised ELBO (``evidence`` gives it with its gradient), which
    ``optimise_hyperparameters`` maximises by the restart loop of
    :func:`~course_lib.gp.optimise.optimise_hyperparameters`, each evaluation warm-started from
    the latest q(v) (all from :class:`~course_lib.mixed.variational_model.VariationalModel`).
    """

    def __init__(self, kernel: Kernel, likelihood: Likelihood | MixedLikelihood, inducing,
                 priors: Mapping[str, Prior] | None = None, *, learn_likelihood=None,
                 kl_weight: float = 1.0, max_iter: int = 2000, tol: float = 1e-10,
                 warm_start: bool = True):
        self.inducing = _check_inducing(kernel, inducing)
        super().__init__(kernel, likelihood, priors, learn_likelihood=learn_likelihood,
                         kl_weight=kl_weight, max_iter=max_iter, tol=tol)
        self.warm_start = as_bool(warm_start, "warm_start")
        self.X_items: np.ndarray | None = None
        self.result: SparseVariationalEvidence | None = None

    @property
    def n_inducing(self) -> int:
        return int(self.inducing.shape[0])

    def fit(self, X, y=None, M=None, *, likelihood=None) -> "SparseVariationalGP":
        """q(v) for the items in the rows of ``X`` at the current hyper-parameters; ``y`` and
        ``M`` as in :func:`fit_sparse_variational` (None with a MixedLikelihood).
        ``likelihood`` (optional) replaces the model's likelihood first: a MixedLikelihood
        carries its data, so the active-learning loop passes the grown one after each trial
        (learned likelihood parameters carry over to it, so it must have the same ones).
        Warm-started from the previous q(v) when ``warm_start``. Returns self."""
        if likelihood is not None:
            self.likelihood = self._carried_over(likelihood)
        X, mixed = _check_items(X, self.inducing, self.likelihood, y, M)
        return self._fit(X, mixed)

    def _fit(self, X, mixed) -> "SparseVariationalGP":
        warm = self._warm if self.warm_start else None
        result = self._run(self.kernel, X, mixed, warm, False, True)
        self.X_items, self.mixed, self.result = X, mixed, result
        self.X_train, self.posterior = self.inducing, result.posterior
        self._warm = (result.mean_whitened, result.root_whitened)
        return self

    def _run(self, kernel, X, mixed, warm, eval_gradient, warn) -> SparseVariationalEvidence:
        warm = warm or (None, None)
        try:
            return _fit_sparse_variational_trusted(kernel, X, self.inducing, mixed, warm[0],
                                                  warm[1], eval_gradient, self.max_iter,
                                                  self.tol, warn, self.kl_weight)
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(f"inducing: no variational posterior at the current "
                                           f"hyper-parameters ({err})") from None

    def _refit(self):
        self._fit(self.X_items, self.mixed)

    def _optimised_bound(self, kernel, mixed, eval_gradient, warn
                         ) -> SparseVariationalEvidence:
        """The ELBO maximised over q(v) at ``kernel`` and ``mixed``, warm-started from the
        latest q(v), with its kernel gradient when ``eval_gradient``
        (:meth:`VariationalModel.evidence`)."""
        eval_gradient = as_bool(eval_gradient, "eval_gradient")
        result = self._run(kernel, self.X_items, mixed, self._warm, eval_gradient, warn)
        self._warm = (result.mean_whitened, result.root_whitened)
        return result

    def q_u(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of u = f(Z) under q: (L m, L S S^T L^T)."""
        self._require_fit()
        return self.posterior.mean.copy(), self.posterior.covariance()

    def __repr__(self):
        return (f"SparseVariationalGP(kernel={self.kernel!r}, likelihood={self.likelihood!r}, "
                f"{self.n_inducing} inducing points)")
