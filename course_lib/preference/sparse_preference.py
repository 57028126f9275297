"""Sparse pairwise probit GP: the utility carried by a few pseudo-inputs.

(J. B. Nielsen, PhD thesis, DTU 2015, eqs. 2.53-2.58 with the sign of 2.58 corrected;
Nielsen, Jensen & Larsen 2011 and 2012. The thesis writes pairs the other way round: its v is our
first item, its u our second, see :mod:`course_lib.preference.comparisons`.)

Model
-----
n_bar pseudo-inputs X_bar (n_bar << n items) carry the values f_bar = f(X_bar) ~ N(0, K_bar),
K_bar = k(X_bar, X_bar). Given f_bar, the two utilities of comparison k are jointly Gaussian
(the GP's conditional), so their difference z_k = f(first_k) - f(second_k) is

    z_k | f_bar ~ N(a_k^T f_bar, c_k),
    a_k = K_bar^-1 (k_bar(first_k) - k_bar(second_k)),
    c_k = k(first, first) + k(second, second) - 2 k(first, second) - d_k^T K_bar^-1 d_k,

with k_bar(x) = k(X_bar, x) and d_k = k_bar(first_k) - k_bar(second_k). The two items of a pair
stay correlated given f_bar (their conditional covariance enters c_k); comparisons are taken as
independent given f_bar, which is where the approximation lies (as FITC does for single
outputs). The probit integrates against that Gaussian in closed form (thesis 2.55, 2.58):

    p(y_k = 1 | f_bar) = Phi(a_k^T f_bar / sigma*_k),   sigma*_k^2 = 2 sigma^2 + c_k.

``conditional_variance=False`` drops c_k (sigma*_k^2 = 2 sigma^2): the subset-of-regressors
(DTC-style) likelihood, in which f is the deterministic k_bar(x)^T K_bar^-1 f_bar.

This is a probit on the linear map z~ = M~ f_bar with rows M~_k = a_k^T / sigma*_k and the unit
probit Phi(z~), so the Laplace approximation is exactly
:func:`~course_lib.preference.laplace.laplace_mode` with prior K_bar and map M~ (its Newton
iteration, factorisations and evidence unchanged):

    q(f_bar) = N(f_hat, (K_bar^-1 + W)^-1),  W = M~^T diag(w) M~,
    log q(y) = sum_k log Phi(y_k-signed z~_k) - 1/2 f_hat^T K_bar^-1 f_hat
               - 1/2 log det(I + K_bar W)                              (Nielsen et al. 2012, eq. 9).

With the pseudo-inputs at the items (X_bar = X) a_k is row k of M, c_k = 0 and sigma*_k =
sqrt(2) sigma: the model then gives the numbers of the full
:class:`~course_lib.preference.preference_gp.PreferenceGP`. It is not one (no EP, no ratings, its
own comparison matrix and pseudo-inputs); what both are, a GP of a utility fitted to comparisons
with MAP-II and predictions of pairs, is their shared base
:class:`~course_lib.preference.preference_gp.ComparisonGP`.

Prediction at new settings averages p(f* | f_bar) over q(f_bar): the two equations of
:mod:`course_lib.gp.prediction` with the pseudo-inputs in the role of the training inputs,
mean k_bar(x)^T K_bar^-1 f_hat and variance k(x, x) - k_bar(x)^T (K_bar + W^-1)^-1 k_bar(x)
(Nielsen et al. 2012 print it without the factor W). So ``X_train`` of a fitted model is
X_bar, and ``predict``, ``predict_difference``, ``preference_probability`` and the acquisition
functions work unchanged. (:func:`~course_lib.preference.acquisition.incumbent` then picks the
pseudo-input with the largest mean, not an assessed setting.)

Jitter: K_bar gets ``jitter * mean(diag K_bar)`` on its diagonal (default
:data:`~course_lib.gp.sparse.DEFAULT_JITTER`, fixed rather than escalating so that the evidence
stays smooth in the hyper-parameters, as in :mod:`course_lib.gp.sparse`); the gradient includes
the jitter's dependence on the parameters. Choose pseudo-inputs with
:func:`~course_lib.gp.sparse.select_inducing_inputs` (``method="kmeans"``, as the thesis
does).

Cost: O(m n_bar^2) per Newton step and per gradient (m comparisons), O(n n_bar) for the items'
kernel columns, no n x n or m x m matrix; the pairs' own kernel values in chunks.

Gradient of the evidence
------------------------
Both K_bar and M~ depend on the kernel's hyper-parameters (M~ through K_bar^-1 d_k and c_k) and
M~ on sigma (and on X_bar). The evidence is computed as a function of the two matrices, and the
chain rule does the rest:

* through K_bar at fixed M~:
  :meth:`~course_lib.preference.laplace.LaplaceResult.evidence_gradient` (its implicit term
  included);
* through M~ at fixed K_bar, with g, w, t the first, minus second and third derivatives of
  log Phi at the mode, Sigma = (K_bar^-1 + W)^-1, s_k = (M~ Sigma M~^T)_kk and
  v = 1/2 M~^T (t * s) (d log q / d f_hat, as in :mod:`~course_lib.preference.laplace`):

      d log q / d M~ = (g + s t / 2 - w * (M~ Sigma v)) f_hat^T - diag(w) M~ Sigma + g (Sigma v)^T,

  the first two terms from the likelihood and log det at fixed f_hat, the rest the implicit
  term: differentiating the mode condition K_bar^-1 f_hat = M~^T g(M~ f_hat) gives
  d f_hat = Sigma (dM~^T g - M~^T (w * dM~ f_hat));
* then back through M~ = diag(1/sigma*) D K_bar^-1 (D: the rows d_k), sigma*^2 = 2 sigma^2 + c and
  c = diag(K_pairs) - rowsum(D K_bar^-1 * D), to K_bar, D = K(first, X_bar) - K(second, X_bar),
  the pairs' own kernel values and log sigma, and through ``kernel.gradient`` (and
  ``kernel.gradient_inputs`` for the pseudo-inputs) to the log hyper-parameters.

Every piece is checked by finite differences in
tests/preference/test_sparse_preference_gradient.py.
"""

from __future__ import annotations

import numpy as np
from collections.abc import Mapping
from dataclasses import dataclass
from scipy.linalg import cho_solve, cholesky, LinAlgError
from scipy.optimize import minimize

from ..gp.kernel_base import Kernel, as_inputs
from ..gp.priors import Prior
from ..gp.sparse import DEFAULT_JITTER
from ..linalg import NotPositiveDefiniteError
from ..validation import as_bool, as_positive_float, as_positive_int
from .comparisons import Comparisons
from .hyperparameters import _warn_of_scale_ridge
from .laplace import LaplaceEvidence, LaplaceResult, laplace_mode
from .likelihoods import PairwiseProbit
from .preference_gp import ComparisonGP, _paired_kernel


__all__ = ["SparsePreferenceGP", "PseudoInputFit"]

# Phi(z) itself: PairwiseProbit's link is Phi(z / (sqrt 2 sigma)), so sigma = 1 / sqrt 2.
_UNIT_PROBIT = PairwiseProbit(1.0 / np.sqrt(2.0), noise_sd_bounds="fixed")


@dataclass(frozen=True)
class _SparseProjection:
    """The sparse likelihood's linear map and what its gradient reuses (module docstring).

    K_bar : (n_bar, n_bar) k(X_bar, X_bar) with the jitter on its diagonal; L its Cholesky
        factor; jitter_added the absolute amount.
    K_items : (n, n_bar) k(X, X_bar) of the items.
    D : (m, n_bar) rows d_k = k_bar(first_k) - k_bar(second_k); A = D K_bar^-1 (rows a_k^T).
    conditional : (m,) c_k >= 0 (zero without ``conditional_variance``).
    scale : (m,) sigma*_k; M : (m, n_bar) the map M~ = A / sigma* (rows).
    """

    K_bar: np.ndarray
    L: np.ndarray
    jitter_added: float
    K_items: np.ndarray
    D: np.ndarray
    A: np.ndarray
    conditional: np.ndarray
    scale: np.ndarray
    M: np.ndarray


@dataclass(frozen=True)
class PseudoInputFit:
    """Result of :meth:`SparsePreferenceGP.optimise_pseudo_inputs`: the pseudo-inputs and log
    hyper-parameters at the end, the objective (log evidence + log hyper-prior) at the start and
    at the end, and the L-BFGS-B run's ``n_iter`` and ``converged``."""

    pseudo_inputs: np.ndarray
    theta: np.ndarray
    start_value: float
    value: float
    n_iter: int
    converged: bool


class SparsePreferenceGP(ComparisonGP):
    """Pairwise probit GP whose utility is carried by pseudo-inputs (module docstring).

    Parameters
    ----------
    kernel : Kernel over the settings.
    likelihood : a :class:`~course_lib.preference.likelihoods.PairwiseProbit` (binary answers; the
        closed-form integral over a pair's conditional exists for the probit only).
    pseudo_inputs : (n_bar, d) the pseudo-inputs X_bar (e.g. from
        :func:`~course_lib.gp.sparse.select_inducing_inputs`); fixed unless
        :meth:`optimise_pseudo_inputs` moves them.
    priors : mapping name -> Prior over ``param_names`` (MAP-II), as for
        :class:`~course_lib.preference.preference_gp.PreferenceGP`.
    conditional_variance : keep c_k in sigma*_k (the thesis's model; default) or drop it
        (subset of regressors).
    jitter : relative jitter on K_bar (module docstring); 0 for none.
    newton_max_iter, newton_tol : the inner Newton iteration's ``max_iter`` and ``tol``.

    After ``fit(comparisons)``: ``laplace`` (over f_bar), ``posterior``, ``projection``
    (:class:`_SparseProjection`), ``X_train`` = the pseudo-inputs, ``comparisons``. MAP-II over
    the kernel's and the likelihood's log-parameters, ``predict``, ``sample_posterior`` and
    ``predict_difference`` are those of every model of comparisons
    (:class:`~course_lib.preference.preference_gp.ComparisonGP`).
    """

    def __init__(self, kernel: Kernel, likelihood: PairwiseProbit, pseudo_inputs,
                 priors: Mapping[str, Prior] | None = None, *,
                 conditional_variance: bool = True, jitter: float = DEFAULT_JITTER,
                 newton_max_iter: int = 100, newton_tol: float = 1e-10):
        if not isinstance(likelihood, PairwiseProbit):
            raise TypeError(f"likelihood: the sparse pairwise GP integrates the probit over a "
                            f"pair's conditional in closed form and needs a PairwiseProbit, got "
                            f"{type(likelihood).__name__}")
        super().__init__(kernel, likelihood, priors, newton_max_iter=newton_max_iter,
                         newton_tol=newton_tol)
        pseudo_inputs = as_inputs(pseudo_inputs, "pseudo_inputs")
        if np.unique(pseudo_inputs, axis=0).shape[0] != pseudo_inputs.shape[0]:
            raise ValueError("pseudo_inputs: two rows coincide, so K_bar is singular; remove "
                             "the duplicates")
        self.pseudo_inputs = pseudo_inputs.copy()
        self.conditional_variance = as_bool(conditional_variance, "conditional_variance")
        self.jitter = as_positive_float(jitter, "jitter", allow_zero=True)
        self.projection: _SparseProjection | None = None

    # ----- the sparse likelihood's map ----------------------------------------------------
    def _project(self, kernel: Kernel, likelihood: PairwiseProbit, comparisons: Comparisons,
                 pseudo_inputs: np.ndarray) -> _SparseProjection:
        """Lecture 06, section 8.5 (Nielsen et al. (2011): a sparse pairwise GP)."""
        K_bar = kernel(pseudo_inputs)
        jitter_added = self.jitter * float(np.mean(np.diag(K_bar)))
        K_bar[np.diag_indices_from(K_bar)] += jitter_added
        try:
            L = cholesky(K_bar, lower=True)
        except LinAlgError:
            raise NotPositiveDefiniteError(
                "pseudo_inputs: K_bar = k(X_bar, X_bar) is not positive definite with jitter "
                f"{self.jitter:g} x mean(diag); move nearly coincident pseudo-inputs apart, use "
                "fewer of them or raise `jitter`") from None
        X, first, second = comparisons.X, comparisons.first, comparisons.second
        K_items = kernel(X, pseudo_inputs)
        D = K_items[first] - K_items[second]
        A = cho_solve((L, True), D.T, check_finite=False).T
        if self.conditional_variance:
            diag = kernel.diag(X)
            pairs = diag[first] + diag[second] - 2.0 * _paired_kernel(kernel, X[first],
                                                                     X[second])
            conditional = np.maximum(pairs - np.einsum("kj,kj->k", A, D), 0.0)
        else:
            conditional = np.zeros(first.shape[0])
        scale = np.sqrt(2.0 * likelihood.params["noise_sd"] ** 2 + conditional)
        # a pair the kernel cannot link to any pseudo-input projects to a zero row: its answer
        # would say nothing about f_bar (the likelihood would refuse it under its own name, M)
        unseen = np.flatnonzero(~np.any(A, axis=1))
        if unseen.size:
            k = int(unseen[0])
            raise ValueError(
                f"pseudo_inputs: comparison {k} (items {first[k]} and {second[k]}) is out of "
                f"the kernel's reach of every pseudo-input (k(x, X_bar) is 0 for both items), "
                f"as are {unseen.size - 1} other(s); place pseudo-inputs among the items, e.g. "
                "a subset of them")
        return _SparseProjection(K_bar, L, jitter_added, K_items, D, A, conditional, scale,
                                A / scale[:, None])

    # ----- data ---------------------------------------------------------------------------
    def fit(self, comparisons: Comparisons) -> "SparsePreferenceGP":
        """Laplace posterior of the pseudo-inputs' values f_bar given binary ``comparisons``
        at the current hyper-parameters (warm-started from the previous fit). Returns self."""
        if not isinstance(comparisons, Comparisons):
            raise TypeError(f"comparisons: expected a course_lib.preference.comparisons.Comparisons, "
                            f"got {type(comparisons).__name__}")
        if comparisons.kind != "pair-binary":
            raise ValueError(f"comparisons: the sparse probit GP models binary answers "
                             f"('pair-binary'), got kind {comparisons.kind!r}")
        if comparisons.X.shape[1] != self.pseudo_inputs.shape[1]:
            raise ValueError(f"comparisons: items have {comparisons.X.shape[1]} coordinates, "
                             f"the pseudo-inputs {self.pseudo_inputs.shape[1]}")
        return self._fit_checked(comparisons)

    def _fit_checked(self, comparisons: Comparisons) -> "SparsePreferenceGP":
        """:meth:`fit` of checked comparisons."""
        projection, laplace = self._laplace(self.kernel, self.likelihood, comparisons,
                                            self.pseudo_inputs, self._warm_alpha)
        self.comparisons, self.X_train = comparisons, self.pseudo_inputs
        self.projection, self.laplace, self.posterior = projection, laplace, laplace.posterior
        self._warm_alpha = laplace.alpha
        return self

    def _laplace(self, kernel, likelihood, comparisons, pseudo_inputs, warm
                 ) -> tuple[_SparseProjection, LaplaceResult]:
        projection = self._project(kernel, likelihood, comparisons, pseudo_inputs)
        try:
            laplace = laplace_mode(projection.K_bar, projection.M, _UNIT_PROBIT, comparisons.y,
                                   alpha0=warm, max_iter=self.newton_max_iter,
                                   tol=self.newton_tol)
        except NotPositiveDefiniteError as err:
            raise type(err)(f"comparisons: no Laplace posterior at the current "
                            f"hyper-parameters ({err})") from None
        return projection, laplace

    # ----- evidence and its gradient ------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True
                 ) -> LaplaceEvidence:
        """Laplace log evidence log q(y | theta) of the sparse model (``theta`` defaults to the
        current one) and, with ``eval_gradient``, its gradient in the order of ``param_names``
        (:mod:`course_lib.preference.sparse_preference`). Warm-started from the latest
        weights."""
        self._require_fit()
        kernel, likelihood = (self.kernel, self.likelihood) if theta is None else \
            self._split(theta)
        projection, laplace = self._laplace(kernel, likelihood, self.comparisons,
                                            self.pseudo_inputs, self._warm_alpha)
        self._warm_alpha = laplace.alpha
        gradient = None
        if eval_gradient:
            gradient, _ = _evidence_gradients(self, kernel, likelihood, projection, laplace,
                                             self.pseudo_inputs, _UNIT_PROBIT,
                                             with_pseudo_inputs=False)
        return LaplaceEvidence(laplace.log_evidence, gradient, laplace)

    def evidence_pseudo_input_gradient(self, pseudo_inputs=None) -> tuple[float, np.ndarray]:
        """``(log q, d log q / d X_bar)`` at the current hyper-parameters with the
        pseudo-inputs at ``pseudo_inputs`` (default: where they are), gradient of shape
        (n_bar, d)."""
        self._require_fit()
        pseudo_inputs = self.pseudo_inputs if pseudo_inputs is None else \
            as_inputs(pseudo_inputs, "pseudo_inputs", self.pseudo_inputs.shape[1])
        warm = self._warm_alpha if pseudo_inputs.shape == self.pseudo_inputs.shape else None
        projection, laplace = self._laplace(self.kernel, self.likelihood, self.comparisons,
                                            pseudo_inputs, warm)
        _, d_pseudo = _evidence_gradients(self, self.kernel, self.likelihood, projection, laplace,
                                         pseudo_inputs, _UNIT_PROBIT, with_pseudo_inputs=True)
        return laplace.log_evidence, d_pseudo

    # ----- moving the pseudo-inputs ---------------------------------------------------------
    def optimise_pseudo_inputs(self, *, max_iter: int = 200) -> PseudoInputFit:
        """Maximise the log evidence (+ log hyper-prior) jointly over the pseudo-inputs and the
        free log hyper-parameters with one L-BFGS-B run from the current values ("Opt" of
        Nielsen et al. 2012; the evidence has many local maxima in X_bar, so start from k-means
        centres). The model is refitted at the end."""
        self._require_fit()
        max_iter = as_positive_int(max_iter, "max_iter")
        _warn_of_scale_ridge(self, "fix one or give it a prior")
        shape, P = self.pseudo_inputs.shape, len(self.param_names)
        start_theta, start_pseudo = self.theta, self.pseudo_inputs.copy()

        def negative(params):
            theta, pseudo = params[:P], params[P:].reshape(shape)
            kernel, likelihood = self._split(theta)
            try:
                projection, laplace = self._laplace(kernel, likelihood, self.comparisons,
                                                    pseudo, self._warm_alpha)
            except NotPositiveDefiniteError:   # pseudo-inputs ran together: back off
                return np.inf, np.zeros_like(params)
            if not laplace.converged:
                return np.inf, np.zeros_like(params)
            self._warm_alpha = laplace.alpha
            grad_theta, grad_pseudo = _evidence_gradients(self, kernel, likelihood, projection,
                                                         laplace, pseudo, _UNIT_PROBIT,
                                                         with_pseudo_inputs=True)
            lp, dlp = self.log_hyper_prior(theta)
            return (-(laplace.log_evidence + lp),
                    -np.concatenate([grad_theta + dlp, grad_pseudo.ravel()]))

        start = np.concatenate([start_theta, start_pseudo.ravel()])
        start_value = -negative(start)[0]
        bounds = [tuple(b) for b in self.bounds] + [(None, None)] * start_pseudo.size
        run = minimize(negative, start, jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": max_iter})
        if not np.isfinite(run.fun):
            raise NotPositiveDefiniteError("pseudo_inputs: the optimisation failed (no Laplace "
                                           "posterior at the points it reached)")
        self.kernel, self.likelihood = self._split(run.x[:P])
        self.pseudo_inputs = run.x[P:].reshape(shape).copy()
        self._fit_checked(self.comparisons)
        return PseudoInputFit(self.pseudo_inputs.copy(), self.theta, float(start_value),
                              float(-run.fun), int(run.nit), bool(run.success))

    def preference_probability(self, Xa, Xb) -> np.ndarray:
        """Probability that setting Xa_i is preferred to Xb_i, for paired rows (n*,): the
        probit's closed form Phi(m / sqrt(2 sigma^2 + v)) with d ~ N(m, v) the predictive of
        f(Xa_i) - f(Xb_i) (thesis eq. 2.52, as
        :meth:`~course_lib.preference.preference_gp.PreferenceGP.preference_probability`)."""
        return self.likelihood.predictive_mean(*self.predict_difference(Xa, Xb))

    def __repr__(self):
        return (f"SparsePreferenceGP(kernel={self.kernel!r}, likelihood={self.likelihood!r}, "
                f"n_pseudo_inputs={self.pseudo_inputs.shape[0]})")


# pairs per kernel call for the pairs' own kernel derivatives (memory O(P chunk^2))
_PAIR_GRADIENT_CHUNK = 256


def _paired_kernel_gradient(kernel: Kernel, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """d k(a_i, b_i) / d theta_p for every row i, (P, len(A)), in chunks of rows."""
    out = np.empty((kernel.n_params, A.shape[0]))
    for start in range(0, A.shape[0], _PAIR_GRADIENT_CHUNK):
        stop = start + _PAIR_GRADIENT_CHUNK
        _, dK = kernel.gradient(A[start:stop], B[start:stop])
        out[:, start:stop] = np.diagonal(dK, axis1=1, axis2=2)
    return out


def _rows_to_items(G_rows: np.ndarray, first: np.ndarray, second: np.ndarray,
                   n_items: int) -> np.ndarray:
    """M^T G for the comparison matrix M (+1 at first, -1 at second) without forming M."""
    out = np.zeros((n_items,) + G_rows.shape[1:])
    np.add.at(out, first, G_rows)
    np.subtract.at(out, second, G_rows)
    return out


def _map_gradient(projection, laplace: LaplaceResult, probit, y) -> np.ndarray:
    """d log q / d M~ at fixed K_bar, implicit term included (module docstring), (m, n_bar),
    for the unit ``probit`` of the answers ``y``."""
    Mt, f_hat = projection.M, laplace.f_hat
    z = Mt @ f_hat
    terms = probit.terms(z, y, order=3)
    g, w, t = terms.gradient, terms.curvature, terms.third
    Sigma = laplace.covariance()
    Mt_Sigma = Mt @ Sigma
    s = np.einsum("kj,kj->k", Mt_Sigma, Mt)
    Sigma_v = Sigma @ (0.5 * Mt.T @ (t * s))
    return (np.outer(g + 0.5 * s * t - w * (Mt @ Sigma_v), f_hat)
            - w[:, None] * Mt_Sigma + np.outer(g, Sigma_v))


def _evidence_gradients(model, kernel, likelihood, projection, laplace: LaplaceResult,
                       pseudo_inputs: np.ndarray, probit, with_pseudo_inputs: bool
                       ) -> tuple[np.ndarray, np.ndarray | None]:
    """(d log q / d theta in ``param_names`` order, d log q / d X_bar or None) of the fitted
    ``model`` (a :class:`~course_lib.preference.sparse_preference.SparsePreferenceGP`) at ``kernel``,
    ``likelihood`` and ``pseudo_inputs``, whose map is ``projection``, Laplace fit ``laplace``
    and unit probit ``probit``."""
    p = projection
    comparisons = model.comparisons
    X, first, second = comparisons.X, comparisons.first, comparisons.second
    n_bar = pseudo_inputs.shape[0]
    G_M = _map_gradient(p, laplace, probit, comparisons.y)
    # back through M~ = A / sigma*: A, then sigma*^2 = 2 sigma^2 + c
    G_A = G_M / p.scale[:, None]
    g_scale2 = -np.einsum("kj,kj->k", G_M, p.A) / (2.0 * p.scale ** 3)
    # A = D K_bar^-1: dA = (dD - A dK_bar) K_bar^-1
    G_A_Kinv = cho_solve((p.L, True), G_A.T, check_finite=False).T
    G_D = G_A_Kinv
    G_K_extra = -p.A.T @ G_A_Kinv
    if model.conditional_variance:
        # c = pairs - rowsum(D K_bar^-1 * D): dc = dpairs - 2 rowsum(dD * A) + a^T dK_bar a
        G_D = G_D - 2.0 * g_scale2[:, None] * p.A
        G_K_extra = G_K_extra + p.A.T @ (g_scale2[:, None] * p.A)
    G_K_extra = 0.5 * (G_K_extra + G_K_extra.T)
    G_items = _rows_to_items(G_D, first, second, X.shape[0])       # d log q / d K_items

    _, dK_bar = kernel.gradient(pseudo_inputs)
    # the jitter jitter * mean(diag K_bar) moves with the parameters
    dK_bar = dK_bar + (model.jitter * np.mean(np.diagonal(dK_bar, axis1=1, axis2=2),
                                             axis=1))[:, None, None] * np.eye(n_bar)
    through_prior, _ = laplace.evidence_gradient(dK_bar)        # at fixed M~
    _, dK_items = kernel.gradient(X, pseudo_inputs)
    grad_kernel = (through_prior + np.einsum("ij,pij->p", G_K_extra, dK_bar)
                   + np.einsum("ij,pij->p", G_items, dK_items))
    if model.conditional_variance:
        _, d_diag = kernel.gradient_diag(X)
        d_pairs = (d_diag[:, first] + d_diag[:, second]
                   - 2.0 * _paired_kernel_gradient(kernel, X[first], X[second]))
        grad_kernel = grad_kernel + d_pairs @ g_scale2
    # sigma*^2 = 2 sigma^2 + c: d sigma*^2 / d log sigma = 4 sigma^2
    grad_noise = 4.0 * likelihood.params["noise_sd"] ** 2 * np.sum(g_scale2)
    gradient = np.concatenate([grad_kernel, [grad_noise]])

    d_pseudo = None
    if with_pseudo_inputs:
        d_pseudo = _pseudo_input_gradient(model, kernel, laplace, pseudo_inputs, G_K_extra,
                                          G_items)
    return gradient, d_pseudo


def _pseudo_input_gradient(model, kernel, laplace, pseudo_inputs, G_K_extra, G_items
                           ) -> np.ndarray:
    """d log q / d X_bar: K_bar and K_items move with X_bar (the pairs' own values do not)."""
    n_bar, d = pseudo_inputs.shape
    X = model.comparisons.X
    G_in = kernel.gradient_inputs(pseudo_inputs, pseudo_inputs)    # d k(xb_i, xb_j)/d xb_j
    # dK_bar / d X_bar[j, e]: row and column j (symmetric kernel), plus the jitter's share
    # of the diagonal, as a stack of (n_bar d) matrices for the Laplace part
    stack = np.zeros((n_bar, d, n_bar, n_bar))
    for j in range(n_bar):
        stack[j, :, :, j] += G_in[:, j, :].T
        stack[j, :, j, :] += G_in[:, j, :].T
    diag_share = 2.0 * np.einsum("jje->je", G_in) * model.jitter / n_bar
    stack += diag_share[:, :, None, None] * np.eye(n_bar)
    stack = stack.reshape(n_bar * d, n_bar, n_bar)
    through_prior, _ = laplace.evidence_gradient(stack)
    through_extra = np.einsum("ij,qij->q", G_K_extra, stack)
    through_items = np.einsum("ij,ije->je", G_items, kernel.gradient_inputs(X,
                                                                            pseudo_inputs))
    return (through_prior + through_extra).reshape(n_bar, d) + through_items
