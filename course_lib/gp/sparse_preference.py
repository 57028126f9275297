"""Sparse pairwise probit GP: the utility carried by a few pseudo-inputs.

(J. B. Nielsen, PhD thesis, DTU 2014/2015, eqs. 2.53-2.58 with the sign of 2.58 corrected;
Nielsen, Jensen & Larsen 2011 and 2012. The thesis writes pairs the other way round: its v is our
first item, its u our second, see :mod:`course_lib.gp.comparisons`.)

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
probit Phi(z~), so the Laplace approximation is exactly :func:`~course_lib.gp.laplace.laplace_mode`
with prior K_bar and map M~ (its Newton iteration, factorisations and evidence unchanged):

    q(f_bar) = N(f_hat, (K_bar^-1 + W)^-1),  W = M~^T diag(w) M~,
    log q(y) = sum_k log Phi(y_k-signed z~_k) - 1/2 f_hat^T K_bar^-1 f_hat
               - 1/2 log det(I + K_bar W)                              (Nielsen et al. 2012, eq. 9).

With the pseudo-inputs at the items (X_bar = X) a_k is row k of M, c_k = 0 and sigma*_k =
sqrt(2) sigma: the model IS the full :class:`~course_lib.gp.preference.PreferenceGP`.

Prediction at new settings averages p(f* | f_bar) over q(f_bar): the two equations of
:mod:`course_lib.gp.prediction` with the pseudo-inputs in the role of the training inputs,
mean k_bar(x)^T K_bar^-1 f_hat and variance k(x, x) - k_bar(x)^T (K_bar + W^-1)^-1 k_bar(x)
(Nielsen et al. 2012 print it without the factor W). So ``X_train`` of a fitted model is
X_bar, and ``predict``, ``predict_difference``, ``preference_probability`` and the acquisition
functions work unchanged. (:func:`~course_lib.gp.acquisition.incumbent` then picks the
pseudo-input with the largest mean, not an assessed setting.)

Gradient of the evidence
------------------------
Both K_bar and M~ depend on the kernel's hyper-parameters (M~ through K_bar^-1 d_k and c_k) and
M~ on sigma (and on X_bar); the chain rule through the two matrices is in
:mod:`course_lib.gp.sparse_preference_gradient`.

Jitter: K_bar gets ``jitter * mean(diag K_bar)`` on its diagonal (default
:data:`~course_lib.gp.sparse.DEFAULT_JITTER`, fixed rather than escalating so that the evidence
stays smooth in the hyper-parameters, as in :mod:`course_lib.gp.sparse`); the gradient includes
the jitter's dependence on the parameters. Choose pseudo-inputs with
:func:`~course_lib.gp.inducing_inputs.select_inducing_inputs` (``method="kmeans"``, as the thesis
does).

Cost: O(m n_bar^2) per Newton step and per gradient (m comparisons), O(n n_bar) for the items'
kernel columns, no n x n or m x m matrix; the pairs' own kernel values in chunks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky
from scipy.optimize import minimize

from ..linalg import NotPositiveDefiniteError
from ..validation import _as_bool, _as_positive_float, _as_positive_int
from .comparisons import Comparisons
from .inputs import _as_inputs
from .kernel_algebra import Kernel
from .laplace import laplace_mode
from .laplace_result import LaplaceResult
from .pairwise_likelihoods import PairwiseProbit
from .pair_prediction import _paired_kernel
from .preference import PreferenceGP
from .preference_hyperparameters import LaplaceEvidence, _warn_of_scale_ridge
from .priors import Prior
from .sparse import _DEFAULT_JITTER
from .sparse_preference_gradient import _evidence_gradients

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


class SparsePreferenceGP(PreferenceGP):
    """Pairwise probit GP whose utility is carried by pseudo-inputs (module docstring).

    Parameters
    ----------
    kernel : Kernel over the settings.
    likelihood : a :class:`~course_lib.gp.pairwise_likelihoods.PairwiseProbit` (binary answers; the
        closed-form integral over a pair's conditional exists for the probit only).
    pseudo_inputs : (n_bar, d) the pseudo-inputs X_bar (e.g. from
        :func:`~course_lib.gp.inducing_inputs.select_inducing_inputs`); fixed unless
        :meth:`optimise_pseudo_inputs` moves them.
    priors : mapping name -> Prior over ``param_names`` (MAP-II), as for PreferenceGP.
    conditional_variance : keep c_k in sigma*_k (the thesis's model; default) or drop it
        (subset of regressors).
    jitter : relative jitter on K_bar (module docstring); 0 for none.
    newton_max_iter, newton_tol : the inner Newton iteration's ``max_iter`` and ``tol``.

    After ``fit(comparisons)``: ``laplace`` (over f_bar), ``posterior``, ``projection``
    (:class:`_SparseProjection`), ``X_train`` = the pseudo-inputs, ``comparisons``. MAP-II over
    the kernel's and the likelihood's log-parameters with the inherited
    :meth:`~course_lib.gp.preference.PreferenceGP.optimise_hyperparameters`.
    """

    def __init__(self, kernel: Kernel, likelihood: PairwiseProbit, pseudo_inputs,
                 priors: Mapping[str, Prior] | None = None, *,
                 conditional_variance: bool = True, jitter: float = _DEFAULT_JITTER,
                 newton_max_iter: int = 100, newton_tol: float = 1e-10):
        if not isinstance(likelihood, PairwiseProbit):
            raise TypeError(f"likelihood: the sparse pairwise GP integrates the probit over a "
                            f"pair's conditional in closed form and needs a PairwiseProbit, got "
                            f"{type(likelihood).__name__}")
        super().__init__(kernel, likelihood, priors, newton_max_iter=newton_max_iter,
                         newton_tol=newton_tol)
        pseudo_inputs = _as_inputs(pseudo_inputs, "pseudo_inputs")
        if np.unique(pseudo_inputs, axis=0).shape[0] != pseudo_inputs.shape[0]:
            raise ValueError("pseudo_inputs: two rows coincide, so K_bar is singular; remove "
                             "the duplicates")
        self.pseudo_inputs = pseudo_inputs.copy()
        self.conditional_variance = _as_bool(conditional_variance, "conditional_variance")
        self.jitter = _as_positive_float(jitter, "jitter", allow_zero=True)
        self.projection: _SparseProjection | None = None

    # ----- the sparse likelihood's map ----------------------------------------------------
    def _project(self, kernel: Kernel, likelihood: PairwiseProbit, comparisons: Comparisons,
                 pseudo_inputs: np.ndarray) -> _SparseProjection:
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
        return _SparseProjection(K_bar, L, jitter_added, K_items, D, A, conditional, scale,
                                A / scale[:, None])

    # ----- data ---------------------------------------------------------------------------
    def fit(self, comparisons: Comparisons) -> "SparsePreferenceGP":
        """Laplace posterior of the pseudo-inputs' values f_bar given binary ``comparisons``
        at the current hyper-parameters (warm-started from the previous fit). Returns self."""
        if not isinstance(comparisons, Comparisons):
            raise TypeError(f"comparisons: expected a course_lib.gp.comparisons.Comparisons, "
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
    def marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                            warn: bool = True) -> LaplaceEvidence:
        """Laplace log evidence log q(y | theta) of the sparse model (``theta`` defaults to the
        current one) and, with ``eval_gradient``, its gradient in the order of ``param_names``
        (:mod:`course_lib.gp.sparse_preference_gradient`). Warm-started from the latest
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
            _as_inputs(pseudo_inputs, "pseudo_inputs", self.pseudo_inputs.shape[1])
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
        max_iter = _as_positive_int(max_iter, "max_iter")
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

    def __repr__(self):
        return (f"SparsePreferenceGP(kernel={self.kernel!r}, likelihood={self.likelihood!r}, "
                f"n_pseudo_inputs={self.pseudo_inputs.shape[0]})")
