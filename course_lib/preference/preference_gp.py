"""A GP over settings learned from comparisons (or bounded ratings): the preference GP.

A listener's internal response (utility) f(x) over settings x has a GP prior f ~ GP(0, k). The
data are :class:`~course_lib.preference.comparisons.Comparisons`: answers y about ordered pairs of
items (first, second), each depending on z = f(first) - f(second) through a likelihood from
:mod:`course_lib.preference.likelihoods` (``PairwiseProbit`` for "which do you prefer",
``PairwiseGaussian`` for observed differences; ``PairwiseBeta`` for "and how much", in
:mod:`course_lib.preference.probit_beta` with its Beta algebra; identity
rows of M for the single-item ratings of :mod:`course_lib.preference.rating_likelihoods`). The
posterior of the items' utilities is the Laplace approximation of
:func:`~course_lib.preference.laplace.laplace_mode` (``inference="laplace"``, the default) or, for
single-item ratings only, expectation propagation
(:func:`~course_lib.preference.ep.expectation_propagation`, ``inference="ep"``: Jensen et al.
2013 fit their bounded-rating models both ways; EP for pairs would need factorised two-item
sites, which the thesis did not implement either). Predictions at new settings go through the
shared :class:`~course_lib.gp.prediction.LatentGaussian` either way (thesis of J. B. Nielsen,
DTU 2015, eqs. 2.14-2.16; Nielsen, Nielsen & Larsen 2015, eqs. 18-19), and MAP-II maximises
whichever log evidence the inference gives.

Hyper-parameters (``theta``, ``param_names``): the kernel's log-parameters, then the
likelihood's (e.g. ``noise_sd``), by MAP-II; the scale ridge of probit and Beta answers and
the thesis's set-up are in :mod:`course_lib.preference.hyperparameters`. A refit starts Newton
from the previous weights of the items seen before (:func:`_carried_over_weights`).
:meth:`PreferenceGP.evidence` returns a :class:`~course_lib.preference.laplace.LaplaceEvidence`
or, with EP, an :class:`~course_lib.preference.ep.EPEvidence`, each from its algorithm's
module (:func:`~course_lib.preference.laplace.laplace_evidence`,
:func:`~course_lib.preference.ep.ep_evidence`).

The border (CONVENTIONS 3.1), apart from the model of Chu & Ghahramani (2005): the kernel and
likelihood a model is built with, the inference it uses and the comparisons it is fitted to are
checked once, each refused with a message that starts with the user's argument; and EP's
convergence errors, which name ``max_iter`` and ``tol`` of
:func:`~course_lib.preference.ep.expectation_propagation`, are restated as the model's
``ep_max_iter`` and ``ep_tol``.

What every model of comparisons is: :class:`ComparisonGP`, the shared base of
:class:`PreferenceGP` and the sparse model on pseudo-inputs
(:class:`~course_lib.preference.sparse_preference.SparsePreferenceGP`). Neither model is the other
(lecture 06, section 8.5, runs "section 4's Laplace machinery unchanged" on the sparse model's own
comparison matrix; with the pseudo-inputs at the items the sparse model gives the full one's
numbers), but both are a GP of a utility fitted to comparisons: a kernel and a likelihood whose
log-parameters are ``theta``, MAP-II on their evidence, and predictions of the utility and of
pairs.

Predictions about pairs of settings: the difference f(a) - f(b) (:func:`latent_difference`).
Every model of comparisons (the preference GP, its sparse form, the confidence-rating GP of
:mod:`course_lib.mixed.confidence`) predicts a difference the same way: it is a linear
functional of f, so one prediction with the kernel differences gives its mean and variance
(J. B. Nielsen 2015, eqs. 2.14-2.16), and the pairs' own kernel values k(a_i, b_i) come in
chunks, never as a full matrix.
"""

from __future__ import annotations

import warnings

import numpy as np
from collections.abc import Mapping
from scipy.special import ndtr

from ..gp.kernel_base import Kernel, as_inputs, check_exact_size
from ..gp.optimise import HyperparameterFit, check_priors, optimise_hyperparameters
from ..gp.parameters import ModelParameters
from ..gp.prediction import LatentGaussian
from ..gp.priors import Prior
from ..linalg import NotPositiveDefiniteError, sample_gaussian
from ..validation import RngLike, as_positive_float, as_positive_int, as_rng, check_choice
from .comparisons import Comparisons
from .ep import (ClippedSiteWarning, EPConvergenceError, EPEvidence, EPResult, ep_evidence,
                 expectation_propagation)
from .hyperparameters import _failed_objective, _warn_of_scale_ridge
from .laplace import LaplaceEvidence, LaplaceResult, laplace_evidence, laplace_mode
from .likelihoods import Likelihood


__all__ = ["ComparisonGP", "PreferenceGP", "latent_difference"]


class ComparisonGP(ModelParameters):
    """What every GP of a utility fitted to comparisons is (module docstring): the shared base of
    :class:`PreferenceGP` and
    :class:`~course_lib.preference.sparse_preference.SparsePreferenceGP`.

    It holds the kernel and the likelihood (``theta``: the kernel's log-parameters, then the
    likelihood's), the priors, the inner Newton iteration's ``newton_max_iter`` and
    ``newton_tol`` (:func:`~course_lib.preference.laplace.laplace_mode`), MAP-II on the log
    evidence, and the predictions of the utility f and of differences f(a) - f(b). A model
    provides ``fit``, ``_fit_checked`` (fit checked comparisons) and ``evidence``.
    """

    # the approximation behind the evidence: Laplace, unless a model chooses otherwise
    inference: str = "laplace"

    def __init__(self, kernel: Kernel, likelihood: Likelihood,
                 priors: Mapping[str, Prior] | None = None, *, newton_max_iter: int = 100,
                 newton_tol: float = 1e-10):
        _check_kernel_and_likelihood(kernel, likelihood)
        self.kernel, self.likelihood = kernel, likelihood
        self.priors = check_priors(priors, self.param_names)
        self.newton_max_iter = as_positive_int(newton_max_iter, "newton_max_iter")
        self.newton_tol = as_positive_float(newton_tol, "newton_tol")
        self.comparisons: Comparisons | None = None
        self.X_train: np.ndarray | None = None
        self.laplace: LaplaceResult | None = None
        self.posterior = None
        self._warm_alpha: np.ndarray | None = None
        self._last_objective: float | None = None

    # ----- hyper-parameter vector -------------------------------------------------------
    def _parts(self):
        """The parts of ``theta`` (``gp.parameters.ModelParameters``): the kernel's
        log-parameters, then the likelihood's."""
        return self.kernel, self.likelihood

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and fit the comparisons again."""
        self.kernel, self.likelihood = self._split(theta)
        self._fit_checked(self.comparisons)

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(comparisons) before predicting or optimising")

    # ----- evidence ---------------------------------------------------------------------
    def _fitted_approximation(self):
        """The approximation of the current fit, which holds its ``log_evidence``."""
        return self.laplace

    def log_evidence(self, theta=None) -> float:
        """log q(y | theta), a float; at the current theta the fit's own, else
        ``evidence(theta).value``."""
        if theta is None:
            self._require_fit()
            return self._fitted_approximation().log_evidence
        return self.evidence(theta).value

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log evidence + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        try:
            with warnings.catch_warnings():   # clipped EP sites are reported by the refit
                warnings.simplefilter("ignore", ClippedSiteWarning)
                result = self.evidence(theta, eval_gradient=True)
        except (NotPositiveDefiniteError, EPConvergenceError):
            # includes InvalidLaplaceError: the search backs off
            return self._failed_objective(theta)
        if isinstance(result, LaplaceEvidence) and not result.laplace.converged:
            return np.inf, np.zeros_like(theta)
        lp, dlp = self.log_hyper_prior(theta)
        self._last_objective = -(result.value + lp)
        return self._last_objective, -(result.gradient + dlp)

    def _failed_objective(self, theta):
        """The objective where no approximation exists
        (:func:`~course_lib.preference.hyperparameters._failed_objective`)."""
        return _failed_objective(self.inference, self._last_objective, theta)

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """MAP-II (ML-II without priors): maximise log q(y | theta) + log p(theta) over the log
        hyper-parameters with the L-BFGS-B restarts of
        :func:`~course_lib.gp.optimise.optimise_hyperparameters` (first run from the current theta,
        ``n_restarts - 1`` from the priors or uniform in the log-bounds; the best is kept and
        refitted). Warns when the kernel's variance and ``noise_sd`` are both free without a
        prior (the evidence is flat along their ratio:
        :mod:`course_lib.preference.hyperparameters`)."""
        self._require_fit()
        n_restarts = as_positive_int(n_restarts, "n_restarts")   # before the warning below
        rng = as_rng(rng)
        _warn_of_scale_ridge(self, "fix one (bounds='fixed') or give it a prior, else the "
                                  "optimiser wanders along a flat ridge")
        return optimise_hyperparameters(
            self, n_restarts=n_restarts, rng=rng, max_iter=max_iter,
            failure="theta: every optimisation run failed (no Laplace mode with K^-1 + W "
                    "positive definite, or Newton / EP did not converge) at its start; narrow "
                    "the hyper-parameter bounds or add priors")

    # ----- prediction -------------------------------------------------------------------
    def predict(self, X_test, full_cov: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance (``full_cov``: covariance) of the utility f at the rows
        of ``X_test`` (Laplace or EP posterior; no observation noise)."""
        self._require_fit()
        return self.posterior.predict_at(self.kernel, self.X_train, X_test, full_cov)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None
                         ) -> np.ndarray:
        """Draws of the utility f(X_test) from the posterior, (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    def predict_difference(self, Xa, Xb) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance of d_i = f(Xa_i) - f(Xb_i) for paired rows, from the
        joint Gaussian of the pair (:func:`~course_lib.preference.preference_gp.latent_difference`)."""
        self._require_fit()
        return latent_difference(self.kernel, self.X_train, self.posterior, Xa, Xb)


class PreferenceGP(ComparisonGP):
    """Preference GP: Laplace posterior of a utility f from comparisons (module docstring).

    Parameters
    ----------
    kernel : Kernel over the settings (fix or give a prior to its variance:
        :mod:`course_lib.preference.hyperparameters`).
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood` whose ``observation_kind``
        matches the comparisons to be fitted.
    priors : mapping name -> Prior over any of ``param_names`` (MAP-II); flat otherwise.
    newton_max_iter, newton_tol : ``max_iter`` and ``tol`` of the inner Newton iteration
        (:func:`~course_lib.preference.laplace.laplace_mode`); the tight default keeps the evidence
        and its gradient consistent for L-BFGS-B.
    inference : ``"laplace"`` (default) or ``"ep"`` (expectation propagation; single-item
        ratings only, so the likelihood must model ``"bounded"`` answers).
    ep_max_iter, ep_tol : ``max_iter`` and ``tol`` of the EP sweeps
        (:func:`~course_lib.preference.ep.expectation_propagation`).

    Usage: ``gp = PreferenceGP(k, PairwiseProbit(1.0)).fit(comparisons)``;
    ``gp.predict(X_test)`` (utility mean and variance); ``gp.preference_probability(Xa, Xb)``;
    ``gp.optimise_hyperparameters(5, rng=rng)``. After ``fit``: ``preference.laplace`` (the
    :class:`~course_lib.preference.laplace.LaplaceResult`, or None under EP), ``preference.ep`` (the
    :class:`~course_lib.preference.ep.EPResult`, or None under Laplace), ``gp.posterior``,
    ``gp.X_train`` (the items). The hyper-parameters, MAP-II and the predictions of f and of
    differences are those of every model of comparisons (:class:`ComparisonGP`).
    """

    def __init__(self, kernel: Kernel, likelihood: Likelihood,
                 priors: Mapping[str, Prior] | None = None, *, newton_max_iter: int = 100,
                 newton_tol: float = 1e-10, inference: str = "laplace",
                 ep_max_iter: int = 500, ep_tol: float = 1e-6):
        super().__init__(kernel, likelihood, priors, newton_max_iter=newton_max_iter,
                         newton_tol=newton_tol)
        self.inference = _check_inference(inference, likelihood)
        self.ep_max_iter = as_positive_int(ep_max_iter, "ep_max_iter")
        self.ep_tol = as_positive_float(ep_tol, "ep_tol")
        self.ep: EPResult | None = None
        self._M: np.ndarray | None = None
        self._warm_sites: tuple[np.ndarray, np.ndarray] | None = None

    # ----- data -------------------------------------------------------------------------
    def fit(self, comparisons: Comparisons) -> "PreferenceGP":
        """Posterior of the items' utilities given ``comparisons`` at the current
        hyper-parameters, by Laplace (warm-started from the previous fit where items
        coincide) or EP (warm-started from the previous sites when refitting the same
        comparisons). Returns self."""
        _check_comparisons(comparisons, self.inference, self.likelihood)
        return self._fit_checked(comparisons)

    def _fit_checked(self, comparisons: Comparisons) -> "PreferenceGP":
        """:meth:`fit` of checked comparisons."""
        M, X = comparisons.matrix(), comparisons.X
        if self.inference == "ep":
            sites0 = self._warm_sites if comparisons is self.comparisons else None
            ep = self._expectation_propagation(self.kernel(X), M, self.likelihood,
                                               comparisons.y, sites0)
            self.comparisons, self.X_train, self._M = comparisons, X, M
            self.ep, self.posterior = ep, ep.posterior
            self._warm_sites = (ep.tau, ep.nu)
            return self
        warm = _carried_over_weights(self.X_train, self._warm_alpha, X)
        try:
            laplace = laplace_mode(self.kernel(X), M, self.likelihood, comparisons.y,
                                   alpha0=warm, max_iter=self.newton_max_iter,
                                   tol=self.newton_tol)
        except NotPositiveDefiniteError as err:
            raise type(err)(f"comparisons: no Laplace posterior at the current hyper-parameters "
                            f"({err})") from None
        self.comparisons, self.X_train, self._M = comparisons, X, M
        self.laplace, self.posterior = laplace, laplace.posterior
        self._warm_alpha = laplace.alpha
        return self

    def _expectation_propagation(self, K, M, likelihood, y, sites0) -> EPResult:
        try:
            return expectation_propagation(K, M, likelihood, y, sites0=sites0,
                                           max_iter=self.ep_max_iter, tol=self.ep_tol)
        except EPConvergenceError as err:
            raise _restated_ep_error(err, self.ep_max_iter) from None

    # ----- evidence ---------------------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True
                 ) -> LaplaceEvidence | EPEvidence:
        """Log evidence (Laplace: log q(y | theta); EP: log Z_EP) at ``theta`` (default: the
        current one) and, with ``eval_gradient``, its gradient in the order of
        ``param_names`` (Laplace: implicit term included; EP: at the converged sites).
        Warm-started from the latest Laplace weights or EP sites."""
        self._require_fit()
        kernel, likelihood = (self.kernel, self.likelihood) if theta is None else \
            self._split(theta)
        X = self.X_train
        K, dK = kernel.gradient(X) if eval_gradient else (kernel(X), None)
        if self.inference == "ep":
            try:
                evidence = ep_evidence(K, self._M, likelihood, self.comparisons.y, dK,
                                       sites0=self._warm_sites, max_iter=self.ep_max_iter,
                                       tol=self.ep_tol)
            except EPConvergenceError as err:
                raise _restated_ep_error(err, self.ep_max_iter) from None
            self._warm_sites = (evidence.ep.tau, evidence.ep.nu)
            return evidence
        evidence = laplace_evidence(K, self._M, likelihood, self.comparisons.y, dK,
                                    alpha0=self._warm_alpha, max_iter=self.newton_max_iter,
                                    tol=self.newton_tol)
        self._warm_alpha = evidence.laplace.alpha
        return evidence

    def _fitted_approximation(self):
        """The Laplace or EP result of the current fit, which holds its ``log_evidence``."""
        return self.ep if self.inference == "ep" else self.laplace

    # ----- predictions about pairs and ratings ---------------------------------------------
    def preference_probability(self, Xa, Xb) -> np.ndarray:
        """Probability that setting Xa_i is preferred to Xb_i, for paired rows (n*,).
        Lecture 06, section 4 (Laplace, step by step): "Which of two new settings will she prefer?"

        With d ~ N(m, v) the predictive of f(Xa_i) - f(Xb_i) (:meth:`predict_difference`):
        binary and degree answers use the likelihood's predictive mean of an answer about the
        pair (a first), which includes its noise: for PairwiseProbit the closed form
        Phi(m / sqrt(2 sigma^2 + v)) (thesis eq. 2.52); for PairwiseBeta the expected
        slider position, which has the same form. Observed differences (PairwiseGaussian):
        P(y > 0) = Phi(m / sqrt(sigma^2 + v)). Single-item ratings: P(f(a) > f(b)) =
        Phi(m / sqrt(v)).
        """
        mean, var = self.predict_difference(Xa, Xb)
        kind = self.likelihood.observation_kind
        if kind in ("pair-binary", "pair-degree"):
            return self.likelihood.predictive_mean(mean, var)
        extra = self.likelihood.params["noise_sd"] ** 2 if kind == "pair-difference" else 0.0
        total = var + extra
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, ndtr(mean / np.sqrt(total)), 0.5 * (1 + np.sign(mean)))

    def _require_ratings(self, method: str):
        self._require_fit()
        if self.likelihood.observation_kind != "bounded":
            raise ValueError(f"self: {method} predicts single-item ratings, but this model's "
                             f"likelihood takes {self.likelihood.observation_kind!r} answers "
                             "about pairs; use preference_probability")

    def predict_rating(self, X_test) -> np.ndarray:
        """Expected rating E[y] at the rows of ``X_test`` (bounded-rating likelihoods only):
        the likelihood's mean of y given f, averaged over the posterior of f (closed form or
        the likelihood's quadrature)."""
        self._require_ratings("predict_rating")
        mean, var = self.predict(X_test)
        return self.likelihood.predictive_mean(mean, var)

    def rating_log_density(self, X_test, y) -> np.ndarray:
        """log p(y_i | data) of a rating ``y_i`` at row i of ``X_test``: the likelihood
        integrated over the posterior of f there (its negative mean is the NLPD)."""
        self._require_ratings("rating_log_density")
        mean, var = self.predict(X_test)
        return self.likelihood.predictive_log_density(y, mean, var)

    def __repr__(self):
        inference = f", inference={self.inference!r}" if self.inference != "laplace" else ""
        return f"PreferenceGP(kernel={self.kernel!r}, likelihood={self.likelihood!r}{inference})"


_INFERENCES = ("laplace", "ep")


def _check_kernel_and_likelihood(kernel, likelihood) -> None:
    """A course_lib Kernel and Likelihood whose parameter names do not clash."""
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel: expected a course_lib.gp Kernel, got {type(kernel).__name__}")
    if not isinstance(likelihood, Likelihood):
        raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood, got "
                        f"{type(likelihood).__name__}")
    shared = set(kernel.param_names) & set(likelihood.param_names)
    if shared:
        raise ValueError(f"likelihood: its parameter names {sorted(shared)} clash with the "
                         "kernel's; hyper-parameters are addressed by name")


def _check_inference(inference, likelihood: Likelihood) -> str:
    """``"laplace"`` or ``"ep"``; EP only for a likelihood of single-item (bounded) ratings."""
    inference = check_choice(inference, "inference", _INFERENCES)
    if inference == "ep" and likelihood.observation_kind != "bounded":
        raise ValueError(f"inference: 'ep' fits ratings of single items (a likelihood for "
                         f"'bounded' answers); {type(likelihood).__name__} models "
                         f"{likelihood.observation_kind!r} answers about pairs, whose terms "
                         "would need factorised two-item sites (thesis footnote 4), not "
                         "implemented. Use inference='laplace'")
    return inference


def _check_comparisons(comparisons, inference: str, likelihood: Likelihood) -> None:
    """Comparisons of the kind the ``likelihood`` models (single-item ratings under EP), few
    enough items for the exact model."""
    if not isinstance(comparisons, Comparisons):
        raise TypeError(f"comparisons: expected a course_lib.preference.comparisons.Comparisons, "
                        f"got {type(comparisons).__name__}")
    if inference == "ep" and comparisons.is_pairwise:
        raise ValueError(f"comparisons: inference='ep' fits single-item ratings only (kind "
                         f"'bounded'), got kind {comparisons.kind!r}: a pairwise term would "
                         "need factorised two-item sites (thesis footnote 4), not "
                         "implemented. Use inference='laplace'")
    if comparisons.kind != likelihood.observation_kind:
        raise ValueError(f"comparisons: kind {comparisons.kind!r} does not match the "
                         f"likelihood {type(likelihood).__name__}, which models "
                         f"{likelihood.observation_kind!r} answers")
    check_exact_size(comparisons.n_items, "comparisons",
                     advice="use SparsePreferenceGP (course_lib.preference.sparse_preference) or "
                            "fit a subset of the comparisons")


def _carried_over_weights(X_train: np.ndarray | None, warm_alpha: np.ndarray | None,
                         X: np.ndarray) -> np.ndarray | None:
    """Warm-start weights for items X from the weights ``warm_alpha`` of a fit at ``X_train``:
    the previous weight of every item seen before (same input), 0 for new items, so the start
    is f_hat at old items and the predictive mean at new ones."""
    if warm_alpha is None or X_train is None:
        return None
    previous = {row.tobytes(): i for i, row in enumerate(X_train)}
    alpha = np.zeros(X.shape[0])
    for j, row in enumerate(X):
        i = previous.get(row.tobytes())
        if i is not None:
            alpha[j] = warm_alpha[i]
    return alpha


def _restated_ep_error(err: EPConvergenceError, ep_max_iter: int) -> EPConvergenceError:
    """``err`` of :func:`~course_lib.preference.ep.expectation_propagation` in the model's names."""
    if err.stalled:
        message = (f"ep_tol: EP stalled at the current hyper-parameters (the sites kept "
                   f"moving by more than {err.change:.3g} > ep_tol = {err.tol:g}); the "
                   "likelihood may be too sharp there for its quadrature")
    else:
        message = (f"ep_max_iter: EP did not converge in {ep_max_iter} sweep(s) at "
                   f"the current hyper-parameters (the sites still moved by more than "
                   f"{err.change:.3g} > ep_tol = {err.tol:g}); raise ep_max_iter")
    return EPConvergenceError(message, err.change, err.tol, err.stalled)


# rows of test pairs handled per kernel call in _paired_kernel (memory stays O(chunk n))
_PAIR_CHUNK = 1024


def _paired_kernel(kernel: Kernel, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """k(a_i, b_i) for every row i, in chunks (never the full len(A) x len(B) matrix)."""
    out = np.empty(A.shape[0])
    for start in range(0, A.shape[0], _PAIR_CHUNK):
        stop = start + _PAIR_CHUNK
        out[start:stop] = np.diag(kernel(A[start:stop], B[start:stop]))
    return out


def latent_difference(kernel: Kernel, X_train: np.ndarray, posterior: LatentGaussian, Xa, Xb
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and variance of d_i = f(Xa_i) - f(Xb_i) for paired rows, under a
    ``posterior`` of f at ``X_train``. The difference is a linear functional of f, so
    ``K* = k(X, Xa) - k(X, Xb)`` and ``k** = k_aa + k_bb - 2 k_ab`` give it in one prediction,
    without any len(Xa) x len(Xa) covariance."""
    d = X_train.shape[1]
    Xa, Xb = as_inputs(Xa, "Xa", d), as_inputs(Xb, "Xb", d)
    if Xa.shape[0] != Xb.shape[0]:
        raise ValueError(f"Xb: expected {Xa.shape[0]} rows (one per row of Xa), got "
                         f"{Xb.shape[0]}")
    K_cross = kernel(X_train, Xa) - kernel(X_train, Xb)
    k_test = kernel.diag(Xa) + kernel.diag(Xb) - 2.0 * _paired_kernel(kernel, Xa, Xb)
    return posterior.predict(K_cross, np.maximum(k_test, 0.0))
