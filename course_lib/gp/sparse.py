"""Sparse GP regression with inducing inputs: the collapsed variational bound of Titsias (2009).

Model and notation
------------------
``y_n = f(x_n) + eps_n``, ``f ~ GP(0, k)``, ``eps_n ~ N(0, s2)``; N training inputs ``X`` (rows
are points), M << N inducing inputs ``Z`` with inducing values ``u = f(Z)``. Kernel matrices:
``K_uu = k(Z, Z)`` (M x M), ``K_uf = k(Z, X)`` (M x N), ``K_ff = k(X, X)`` (N x N, only its
diagonal is ever computed) and the Nystrom matrix ``Q_ff = K_fu K_uu^-1 K_uf``.

Choosing q(u) optimally in ``log p(y) >= E_q[log p(y | f)] - KL(q(u) || p(u))`` (with
``p(f | u)`` kept exact) gives the collapsed bound

    F = log N(y | 0, Q_ff + s2 I) - tr(K_ff - Q_ff) / (2 s2)  <=  log p(y | X).

The first term is the evidence of a degenerate GP whose covariance is the Nystrom approximation;
the second penalises the variance of f that the inducing values cannot explain, so moving ``Z``
to increase F makes the approximation better (this is what separates it from the FITC/SPGP
"sparse likelihood" of J. B. Nielsen's PhD thesis on personalising hearing instruments, DTU
2015, section 2.1.4, whose objective is not a bound). With
``Z = X`` the two terms become the exact log marginal likelihood.

Computation in O(N M^2), never forming an N x N matrix (``L`` and ``L_B`` are lower Cholesky
factors, ``s = sqrt(s2)``):

    K_uu = L L^T,   A = L^-1 K_uf / s  (M x N),   B = I + A A^T = L_B L_B^T,
    c = L_B^-1 A y / s

    F = -N/2 log(2 pi s2) - sum log diag(L_B) - y^T y / (2 s2) + c^T c / 2
        - tr(K_ff) / (2 s2) + tr(A A^T) / 2

Optimal q(u) = N(m, S) with ``Sigma = K_uu + K_uf K_fu / s2 = L B L^T``:
``m = K_uu Sigma^-1 K_uf y / s2 = L L_B^-T c`` and ``S = K_uu Sigma^-1 K_uu = L B^-1 L^T``.
In whitened form, ``u = L v`` with ``q(v) = N(L_B^-T c, L_B^-T L_B^-1)``. Predictions at test
inputs ``X*`` follow from ``p(f* | u)`` averaged over q(u): the "two equations" of every GP
model of the course (the thesis' eqs. 2.14-2.16; :mod:`course_lib.gp.prediction`) with
the inducing values in the role of the training latents. q(u) is therefore stored as a
:class:`~course_lib.gp.prediction.LatentGaussian` (:meth:`~course_lib.gp.prediction.
LatentGaussian.from_whitened`), and its ``predict`` gives, with ``a = L^-1 K_u*``,

    mean = a^T L_B^-T c,    var = k(x*, x*) - sum(a^2) + sum((L_B^-1 a)^2).

Jitter policy: ``K_uu`` gets ``jitter * mean(diag K_uu)`` added to its diagonal (default
``jitter = 1e-10``). This is the same as taking slightly noisy observations ``u = f(Z) + e`` as
the inducing variables, so F stays a true lower bound for every value of the jitter, and the
gradients below include the jitter's dependence on the parameters. At ``Z = X`` it costs
roughly ``N * jitter * mean(diag K_uu) / (2 s2)`` nats or less. Measured at N = 2000,
M = 200 random data points and an SE lengthscale of a tenth of the input range, the whole gap
to the exact evidence was 3e-5 nats with jitter 1e-8 and 4e-7 with 1e-10 (the jitter, not
the approximation, was the limit there). Pass ``jitter=0`` for the exact limit when K_uu is
well conditioned. A K_uu that is still not positive definite raises
:class:`~course_lib.gp.prediction.NotPositiveDefiniteError` (a ValueError) that says what to
try. The jitter is fixed rather than the escalating ladder of
:func:`~course_lib.gp.prediction.cholesky_with_jitter`, because a jitter that jumps with the
parameters would make F discontinuous under the optimiser.

What it returns and where Z comes from
--------------------------------------
:class:`CollapsedEvidence` is the value of the bound with its derivatives (an evidence bound,
CONVENTIONS 3.4); :class:`SparseGP` holds
the optimal q(u) (Titsias 2009, §3) as a :class:`~course_lib.gp.prediction.LatentGaussian` over
the inducing values and predicts through it, the same step as every GP model of the course.

Every sparse model of the course (this one, :mod:`course_lib.preference.sparse_preference`,
:mod:`course_lib.mixed.sparse_variational`) takes its inducing inputs Z as given;
:func:`select_inducing_inputs` picks a starting Z from the rows of X, at random or as k-means
centroids (Arthur & Vassilvitskii 2007 seeding), which the bounds then use or move. M may
exceed N (the bound stays valid and is exact once the inducing inputs contain X) but it then
costs O(M^3) for nothing, so :func:`select_inducing_inputs` refuses M larger than the number of
distinct rows of X.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass
from scipy.linalg import cho_solve, cholesky, LinAlgError, solve_triangular

from ..gmm.clustering import check_spread, kmeans_trusted
from ..linalg import LOG_2PI, NotPositiveDefiniteError
from ..validation import (RngLike, as_bool, as_float_array, as_positive_float, as_positive_int,
                          as_rng, check_choice)
from .kernel_base import Kernel, as_inputs
from .parameters import DEFAULT_BOUNDS, check_parameter, log_bounds
from .prediction import LatentGaussian, add_noise


__all__ = ["collapsed_evidence", "sparse_posterior", "fit_sparse_gp", "CollapsedEvidence",
           "SparseGP", "select_inducing_inputs", "DEFAULT_JITTER"]

#: The fixed jitter of K_uu, relative to mean(diag K_uu), of every sparse GP unless given.
DEFAULT_JITTER = 1e-10


# ---------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------
def _check_problem(X, y, Z, kernel, noise_variance, jitter):
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel: expected a course_lib.gp.kernel_base.Kernel, got "
                        f"{type(kernel).__name__}")
    X = as_inputs(X, "X")
    y = as_float_array(y, "y", ndim=1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y: expected {X.shape[0]} values (one per row of X), got {y.shape[0]}")
    Z = as_inputs(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z: inducing inputs need {X.shape[1]} column(s) like X, "
                         f"got shape {Z.shape}")
    noise_variance = check_parameter(noise_variance, "noise_variance")
    jitter = as_positive_float(jitter, "jitter", allow_zero=True)
    return X, y, Z, noise_variance, jitter


# ---------------------------------------------------------------------------------------
# The shared factorisation
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Factors:
    """Everything the bound, its gradient and the predictions share (see module docstring)."""

    L: np.ndarray        # chol(K_uu + jitter * mean(diag K_uu) I), M x M
    A: np.ndarray        # L^-1 K_uf / s, M x N
    AAT: np.ndarray      # A A^T, M x M
    L_B: np.ndarray      # chol(I + A A^T), M x M
    c: np.ndarray        # L_B^-1 A y / s, (M,)
    jitter_added: float  # jitter * mean(diag K_uu), the absolute amount on the diagonal


def _factorise(X, y, Z, kernel, noise_variance, jitter) -> _Factors:
    K_uu = kernel(Z)
    jitter_added = jitter * float(np.mean(np.diag(K_uu)))
    K_uu[np.diag_indices_from(K_uu)] += jitter_added
    try:
        L = cholesky(K_uu, lower=True)
    except LinAlgError as err:
        raise NotPositiveDefiniteError(
            "Z: the inducing-point kernel matrix K_uu is not positive definite even with "
            f"jitter {jitter:g} x mean(diag K_uu); remove duplicated or nearly coincident "
            "inducing inputs, use fewer of them, or raise `jitter`") from err
    s = np.sqrt(noise_variance)
    # k(X, Z).T is a Fortran-ordered (M, N) view, so the solve can overwrite it in place
    A = solve_triangular(L, kernel(X, Z).T, lower=True, overwrite_b=True, check_finite=False)
    A /= s
    AAT = A @ A.T
    B = AAT.copy()
    B[np.diag_indices_from(B)] += 1.0
    L_B = cholesky(B, lower=True, check_finite=False)  # B >= I: always positive definite
    c = solve_triangular(L_B, A @ y, lower=True, check_finite=False) / s
    return _Factors(L, A, AAT, L_B, c, jitter_added)


def _bound_from(factors: _Factors, y, trace_K_ff, noise_variance) -> float:
    N = y.shape[0]
    return float(-0.5 * N * (LOG_2PI + np.log(noise_variance))
                 - np.sum(np.log(np.diag(factors.L_B)))
                 - 0.5 * (y @ y) / noise_variance + 0.5 * (factors.c @ factors.c)
                 - 0.5 * trace_K_ff / noise_variance + 0.5 * np.trace(factors.AAT))


# ---------------------------------------------------------------------------------------
# Bound and gradient
# ---------------------------------------------------------------------------------------
def collapsed_evidence(X, y, Z, kernel: Kernel, noise_variance: float, *,
                       eval_gradient: bool = False, jitter: float = DEFAULT_JITTER
                       ) -> CollapsedEvidence:
    """Titsias' collapsed bound F = log N(y | 0, Q_ff + s2 I) - tr(K_ff - Q_ff) / (2 s2) and,
    with ``eval_gradient``, its analytic gradient (:class:`CollapsedEvidence`).

    X : (N, D) training inputs (rows are points; 1-D means D = 1). y : (N,) targets.
    Z : (M, D) inducing inputs. kernel : a :class:`~course_lib.gp.kernel_base.Kernel`.
    noise_variance : s2 > 0 (a variance, not a standard deviation).
    jitter : relative jitter on K_uu (module docstring). Cost O(N M^2), memory O(N M), with
    the gradient too.

    With ``Sigma = K_uu + K_uf K_fu / s2``, ``v = Sigma^-1 K_uf y / s2`` (so that the fitted
    mean at the training inputs is ``K_fu v``) and the residual ``r = y - K_fu v``, the
    derivatives of F with respect to the kernel matrices are

        dF/dK_uu = (K_uu^-1 - Sigma^-1 - K_uu^-1 K_uf K_fu K_uu^-1 / s2 - v v^T) / 2
        dF/dK_uf = ((K_uu^-1 - Sigma^-1) K_uf + v r^T) / s2
        dF/d diag(K_ff) = -1 / (2 s2)   (every entry)
        dF/d log s2 = -N/2 + (r^T r + tr K_ff) / (2 s2) - tr((I - B^-1) A A^T) / 2

    and the chain rule through ``kernel.gradient`` (log-parameters) and
    ``kernel.gradient_inputs`` (inducing inputs) gives the ``gradient`` in (kernel.theta,
    log s2) and the ``gradient_inducing`` in Z. The kernel's derivatives are taken over blocks
    of data rows, so memory stays O(N M).
    """
    X, y, Z, noise_variance, jitter = _check_problem(X, y, Z, kernel, noise_variance, jitter)
    if not as_bool(eval_gradient, "eval_gradient"):
        factors = _factorise(X, y, Z, kernel, noise_variance, jitter)
        return CollapsedEvidence(_bound_from(factors, y, float(np.sum(kernel.diag(X))),
                                             noise_variance), None)
    return _collapsed_evidence(X, y, Z, kernel, noise_variance, jitter, with_Z=True)


# Data rows per block of the gradient loop: memory stays O(P * _CHUNK_ROWS * M).
_CHUNK_ROWS = 2048


def _collapsed_evidence(X, y, Z, kernel, noise_variance, jitter, with_Z) -> CollapsedEvidence:
    """The work of :func:`collapsed_evidence` with its gradient, on checked arguments;
    ``gradient_inducing`` is left at zero unless ``with_Z`` (a fit with fixed inducing inputs
    does not need it). Lecture 04, section 10 (The O(N^3) wall and inducing points)."""
    f = _factorise(X, y, Z, kernel, noise_variance, jitter)
    N, M = X.shape[0], Z.shape[0]
    s = np.sqrt(noise_variance)
    diag_K_ff = kernel.diag(X)
    bound = _bound_from(f, y, float(np.sum(diag_K_ff)), noise_variance)

    eye = np.eye(M)
    B_inv = cho_solve((f.L_B, True), eye, check_finite=False)
    w = solve_triangular(f.L_B, f.c, lower=True, trans="T", check_finite=False)  # L^T v
    v = solve_triangular(f.L, w, lower=True, trans="T", check_finite=False)
    residual = y - s * (f.A.T @ w)

    # dF/dK_uu = L^-T [(I - B^-1 - A A^T) / 2] L^-1 - v v^T / 2 (symmetric)
    inner = 0.5 * (eye - B_inv - f.AAT)
    G_uu = solve_triangular(f.L, solve_triangular(f.L, inner, lower=True, trans="T").T,
                            lower=True, trans="T")
    G_uu = 0.5 * (G_uu + G_uu.T) - 0.5 * np.outer(v, v)
    # dF/dK_uf = L^-T (I - B^-1) A / s + v r^T / s2, formed block by block below
    C = solve_triangular(f.L, eye - B_inv, lower=True, trans="T") / s

    d_log_noise = (-0.5 * N + 0.5 * (residual @ residual + np.sum(diag_K_ff)) / noise_variance
                   - 0.5 * (np.trace(f.AAT) - np.sum(B_inv * f.AAT)))

    # K_uu carries jitter * mean(diag K_uu), which moves with the parameters
    trace_G_uu = np.trace(G_uu)
    _, dK_uu = kernel.gradient(Z)
    d_theta = (np.einsum("ij,pij->p", G_uu, dK_uu)
               + jitter * trace_G_uu * np.mean(np.diagonal(dK_uu, axis1=1, axis2=2), axis=1))
    d_Z = np.zeros_like(Z)
    if with_Z:
        grad_in_uu = kernel.gradient_inputs(Z, Z)
        d_Z += 2.0 * np.einsum("ij,ijk->jk", G_uu, grad_in_uu)
        d_Z += (2.0 * jitter * trace_G_uu / M) * np.einsum("jjk->jk", grad_in_uu)

    d_theta -= np.sum(kernel.gradient_diag(X)[1], axis=1) / (2.0 * noise_variance)
    for start in range(0, N, _CHUNK_ROWS):
        X_c = X[start:start + _CHUNK_ROWS]
        n_c = X_c.shape[0]
        G_fu_c = f.A[:, start:start + n_c].T @ C.T                 # (n_c, M) block of dF/dK_fu
        G_fu_c += np.outer(residual[start:start + n_c], v / noise_variance)
        _, dK_fu = kernel.gradient(X_c, Z)
        d_theta += np.einsum("nj,pnj->p", G_fu_c, dK_fu)
        if with_Z:
            d_Z += np.einsum("nj,njk->jk", G_fu_c, kernel.gradient_inputs(X_c, Z))
    return CollapsedEvidence(bound, np.append(d_theta, d_log_noise), d_Z)


# ---------------------------------------------------------------------------------------
# Posterior q(u)
# ---------------------------------------------------------------------------------------
def sparse_posterior(X, y, Z, kernel: Kernel, noise_variance: float, *,
                     jitter: float = DEFAULT_JITTER) -> SparseGP:
    """The optimal q(u) and the bound at fixed kernel, noise variance and inducing inputs.

    Shapes as in :func:`collapsed_evidence`; O(N M^2) time, no N x N matrix.
    """
    X, y, Z, noise_variance, jitter = _check_problem(X, y, Z, kernel, noise_variance, jitter)
    return _posterior(X, y, Z, kernel, noise_variance, jitter)


def _posterior(X, y, Z, kernel, noise_variance, jitter, **run) -> SparseGP:
    """:func:`sparse_posterior` on checked arguments; ``run`` = optimiser fields of SparseGP.
    Lecture 04, section 10 (The O(N^3) wall and inducing points)."""
    f = _factorise(X, y, Z, kernel, noise_variance, jitter)
    bound = _bound_from(f, y, float(np.sum(kernel.diag(X))), noise_variance)
    # whitened q(v) for u = L v: mean L_B^-T c, covariance square root T = L_B^-T
    T = solve_triangular(f.L_B, np.eye(f.L_B.shape[0]), lower=True, trans="T",
                         check_finite=False)
    posterior = LatentGaussian.from_whitened(f.L, T @ f.c, T, f.jitter_added)
    return SparseGP(kernel, Z.copy(), noise_variance, jitter, bound, posterior, **run)


# ---------------------------------------------------------------------------------------
# Fitting: L-BFGS-B on (log kernel parameters, log s2, Z)
# ---------------------------------------------------------------------------------------
def fit_sparse_gp(X, y, Z, kernel: Kernel, noise_variance: float, *,
                  optimise_inducing: bool = False,
                  noise_bounds=DEFAULT_BOUNDS,
                  jitter: float = DEFAULT_JITTER, max_iter: int = 200) -> SparseGP:
    """Maximise the collapsed bound F over the hyper-parameters (and optionally Z).

    The search runs L-BFGS-B with the analytic gradient of
    :func:`collapsed_evidence` on ``[kernel.theta, log s2, Z.ravel()]``, starting from
    the given kernel, ``noise_variance`` and ``Z``; kernel parameters stay within
    ``kernel.bounds`` (equal bounds fix a parameter), s2 within ``noise_bounds`` ((low, high)
    in natural units, or "fixed"; as in :class:`~course_lib.gp.regression.GPRegression`), and
    Z is free. With ``optimise_inducing=False`` Z stays where it is (e.g.
    from :func:`~course_lib.gp.sparse.select_inducing_inputs`). Each step costs O(N M^2).

    Returns the :class:`~course_lib.gp.sparse.SparseGP` at the optimum, with the
    optimiser's ``n_iter``, ``converged`` and ``message``.
    """
    X, y, Z, noise_variance, jitter = _check_problem(X, y, Z, kernel, noise_variance, jitter)
    optimise_inducing = as_bool(optimise_inducing, "optimise_inducing")
    max_iter = as_positive_int(max_iter, "max_iter")
    noise_log_bounds = log_bounds(noise_bounds, np.array([noise_variance]), "noise_variance")
    P, shape_Z = kernel.n_params, Z.shape

    def unpack(params):
        Z_now = params[P + 1:].reshape(shape_Z) if optimise_inducing else Z
        return kernel.with_theta(params[:P]), float(np.exp(params[P])), Z_now

    def objective(params):
        k, s2, Z_now = unpack(params)
        try:
            result = _collapsed_evidence(X, y, Z_now, k, s2, jitter, optimise_inducing)
        except NotPositiveDefiniteError:  # K_uu lost positive definiteness: make the line
            # search back off (coincident inducing inputs while Z moves)
            return np.inf, np.zeros_like(params)
        grad = [result.gradient]
        if optimise_inducing:
            grad.append(result.gradient_inducing.ravel())
        return -result.value, -np.concatenate(grad)

    start = [kernel.theta, [np.log(noise_variance)]]
    bounds = [tuple(b) for b in np.vstack([kernel.bounds, noise_log_bounds])]
    if optimise_inducing:
        start.append(Z.ravel())
        bounds += [(None, None)] * Z.size
    from scipy.optimize import minimize  # imported here: predicting needs no optimiser

    run = minimize(objective, np.concatenate(start), jac=True, method="L-BFGS-B",
                   bounds=bounds, options={"maxiter": max_iter})
    k, s2, Z_best = unpack(run.x)
    return _posterior(X, y, Z_best, k, s2, jitter, n_iter=int(run.nit),
                      converged=bool(run.success), message=str(run.message))


@dataclass(frozen=True)
class CollapsedEvidence:
    """The collapsed bound, an evidence bound, and its gradient when asked for.

    value : F (a lower bound on log p(y | X)).
    gradient : (P + 1,) dF / d (kernel.theta, log s2): the log kernel parameters in the order of
        ``kernel.param_names``, then the log noise variance; None unless asked for.
    gradient_inducing : (M, D) dF / dZ; None unless asked for.
    """

    value: float
    gradient: np.ndarray | None = None
    gradient_inducing: np.ndarray | None = None


@dataclass(frozen=True)
class SparseGP:
    """A fitted sparse GP: kernel, inducing inputs, noise and the optimal q(u).

    kernel, Z (M, D), noise_variance s2, jitter (relative, as used), ``log_evidence`` (the
    collapsed bound F, which the fit maximises as its evidence), and ``posterior``:
    q(u) as a :class:`~course_lib.gp.prediction.LatentGaussian` over the inducing values (the
    same prediction step as every other GP model of the course).
    n_iter / converged / message describe the optimiser run (0 / True / "" when not fitted).
    Use :meth:`predict` for the predictive distribution and :meth:`q_u` for N(m, S).
    """

    kernel: Kernel
    Z: np.ndarray
    noise_variance: float
    jitter: float
    log_evidence: float
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
        X_test = as_inputs(X_test, "X_test", self.Z.shape[1])
        K_test = self.kernel(X_test) if full_cov else self.kernel.diag(X_test)
        mean, var = self.posterior.predict(self.kernel(self.Z, X_test), K_test)
        return mean, (add_noise(var, self.noise_variance) if include_noise else var)


def select_inducing_inputs(X, n_inducing: int, *, method: str = "random",
                           rng: RngLike = None) -> np.ndarray:
    """Pick M inducing inputs from the data.

    method "random": M distinct rows of X drawn uniformly without replacement.
    method "kmeans": the M centroids of :func:`course_lib.gmm.clustering.kmeans` (k-means++ seeding),
    which spreads them over the data in proportion to its density.
    X : (N, D). Returns Z : (M, D), sorted by its first column for readable plots.
    M must not exceed the number of distinct rows of X.
    """
    X = as_inputs(X, "X")
    n_inducing = as_positive_int(n_inducing, "n_inducing")
    check_choice(method, "method", {"random", "kmeans"})
    rng = as_rng(rng)
    distinct = np.unique(X, axis=0)
    if n_inducing > distinct.shape[0]:
        raise ValueError(f"n_inducing: {n_inducing} inducing inputs chosen from the data need "
                         f"as many distinct rows, X has {distinct.shape[0]}")
    if method == "random":
        Z = distinct[rng.choice(distinct.shape[0], n_inducing, replace=False)]
    else:
        check_spread(X)   # what kmeans alone checks, in its words
        Z = kmeans_trusted(X, n_inducing, rng).centroids
    return Z[np.argsort(Z[:, 0], kind="stable")]
