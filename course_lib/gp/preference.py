"""A GP over settings learned from comparisons (or bounded ratings): the preference GP.

A listener's internal response (utility) f(x) over settings x has a GP prior f ~ GP(0, k). The
data are :class:`~course_lib.gp.comparisons.Comparisons`: answers y about ordered pairs of
items (first, second), each depending on z = f(first) - f(second) through a likelihood from
:mod:`course_lib.gp.pairwise_likelihoods` (``PairwiseProbit`` for "which do you prefer",
``PairwiseBeta`` for "and how much", ``PairwiseGaussian`` for observed differences; identity
rows of M for the single-item ratings of :mod:`course_lib.gp.rating_likelihoods`). The
posterior of the items' utilities is the Laplace approximation of
:func:`~course_lib.gp.laplace.laplace_mode` (``inference="laplace"``, the default) or, for
single-item ratings only, expectation propagation
(:func:`~course_lib.gp.ep.expectation_propagation`, ``inference="ep"``: Jensen et al. 2013 fit
their bounded-rating models both ways; EP for pairs would need factorised two-item sites, which
the thesis did not implement either). Predictions at new settings go through the shared
:class:`~course_lib.gp.prediction.LatentGaussian` either way (thesis of J. B. Nielsen, DTU
2014/2015, eqs. 2.14-2.16 and H(18)-(19)), and MAP-II maximises whichever log evidence the
inference gives.

Hyper-parameters (``theta``, ``param_names``): the kernel's log-parameters, then the
likelihood's (e.g. ``noise_sd``), by MAP-II; its warm starts, the scale ridge of probit and Beta
answers and the thesis's set-up are in :mod:`course_lib.gp.preference_hyperparameters`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from scipy.special import ndtr

from ..linalg import NotPositiveDefiniteError, sample_gaussian
from ..validation import RngLike, _as_positive_float, _as_positive_int, _as_rng
from .comparisons import Comparisons
from .ep import expectation_propagation
from .ep_result import ClippedSiteWarning, EPConvergenceError, EPResult
from .kernel_algebra import Kernel
from .laplace import laplace_mode
from .laplace_result import LaplaceResult
from .likelihoods import Likelihood
from .optimise import HyperparameterFit, _check_priors, log_hyper_prior, optimise_hyperparameters
from .pair_prediction import latent_difference
from .preference_checks import (_check_comparisons, _check_inference,
                                _check_kernel_and_likelihood, _restated_ep_error)
from .preference_hyperparameters import (EPEvidence, LaplaceEvidence, _carried_over_weights,
                                         _failed_objective, _warn_of_scale_ridge)
from .priors import Prior
from .regression import _checked_theta, _predict_latent

__all__ = ["PreferenceGP"]


class PreferenceGP:
    """Preference GP: Laplace posterior of a utility f from comparisons (module docstring).

    Parameters
    ----------
    kernel : Kernel over the settings (fix or give a prior to its variance:
        :mod:`course_lib.gp.preference_hyperparameters`).
    likelihood : a :class:`~course_lib.gp.likelihoods.Likelihood` whose ``observation_kind``
        matches the comparisons to be fitted.
    priors : mapping name -> Prior over any of ``param_names`` (MAP-II); flat otherwise.
    newton_max_iter, newton_tol : ``max_iter`` and ``tol`` of the inner Newton iteration
        (:func:`~course_lib.gp.laplace.laplace_mode`); the tight default keeps the evidence
        and its gradient consistent for L-BFGS-B.
    inference : ``"laplace"`` (default) or ``"ep"`` (expectation propagation; single-item
        ratings only, so the likelihood must model ``"bounded"`` answers).
    ep_max_iter, ep_tol : ``max_iter`` and ``tol`` of the EP sweeps
        (:func:`~course_lib.gp.ep.expectation_propagation`).

    Usage: ``gp = PreferenceGP(k, PairwiseProbit(1.0)).fit(comparisons)``;
    ``gp.predict(X_test)`` (utility mean and variance); ``gp.preference_probability(Xa, Xb)``;
    ``gp.optimise_hyperparameters(5, rng=rng)``. After ``fit``: ``gp.laplace`` (the
    :class:`~course_lib.gp.laplace_result.LaplaceResult`, or None under EP), ``gp.ep`` (the
    :class:`~course_lib.gp.ep_result.EPResult`, or None under Laplace), ``gp.posterior``,
    ``gp.X_train`` (the items).
    """

    def __init__(self, kernel: Kernel, likelihood: Likelihood,
                 priors: Mapping[str, Prior] | None = None, *, newton_max_iter: int = 100,
                 newton_tol: float = 1e-10, inference: str = "laplace",
                 ep_max_iter: int = 500, ep_tol: float = 1e-6):
        _check_kernel_and_likelihood(kernel, likelihood)
        self.kernel, self.likelihood = kernel, likelihood
        self.kernel, self.likelihood = kernel, likelihood
        self.priors = _check_priors(priors, self.param_names)
        self.newton_max_iter = _as_positive_int(newton_max_iter, "newton_max_iter")
        self.newton_tol = _as_positive_float(newton_tol, "newton_tol")
        self.inference = _check_inference(inference, likelihood)
        self.ep_max_iter = _as_positive_int(ep_max_iter, "ep_max_iter")
        self.ep_tol = _as_positive_float(ep_tol, "ep_tol")
        self.comparisons: Comparisons | None = None
        self.X_train: np.ndarray | None = None
        self.laplace: LaplaceResult | None = None
        self.ep: EPResult | None = None
        self.posterior = None
        self._M: np.ndarray | None = None
        self._warm_alpha: np.ndarray | None = None
        self._warm_sites: tuple[np.ndarray, np.ndarray] | None = None
        self._last_objective: float | None = None

    # ----- hyper-parameter vector -------------------------------------------------------
    @property
    def param_names(self) -> tuple[str, ...]:
        return self.kernel.param_names + self.likelihood.param_names

    @property
    def theta(self) -> np.ndarray:
        """Log hyper-parameters: the kernel's, then the likelihood's."""
        return np.concatenate([self.kernel.theta, self.likelihood.theta])

    @property
    def bounds(self) -> np.ndarray:
        return np.vstack([self.kernel.bounds, self.likelihood.bounds])

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.param_names, np.exp(self.theta).tolist()))

    def _split(self, theta) -> tuple[Kernel, Likelihood]:
        theta = _checked_theta(theta, self.param_names)
        P = self.kernel.n_params
        return self.kernel.with_theta(theta[:P]), self.likelihood.with_theta(theta[P:])

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and fit the comparisons again."""
        self.kernel, self.likelihood = self._split(theta)
        self._fit_checked(self.comparisons)

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

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(comparisons) before predicting or optimising")

    # ----- evidence ---------------------------------------------------------------------
    def marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                            warn: bool = True) -> LaplaceEvidence | EPEvidence:
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
            ep = self._expectation_propagation(K, self._M, likelihood, self.comparisons.y,
                                               self._warm_sites)
            self._warm_sites = (ep.tau, ep.nu)
            gradient = np.concatenate(ep.evidence_gradient(dK)) if eval_gradient else None
            return EPEvidence(ep.log_evidence, gradient, ep)
        laplace = laplace_mode(K, self._M, likelihood, self.comparisons.y,
                               alpha0=self._warm_alpha, max_iter=self.newton_max_iter,
                               tol=self.newton_tol)
        self._warm_alpha = laplace.alpha
        gradient = None
        if eval_gradient:
            gradient = np.concatenate(laplace.evidence_gradient(dK))
        return LaplaceEvidence(laplace.log_evidence, gradient, laplace)

    def log_marginal_likelihood(self, theta=None, eval_gradient: bool = False):
        """log q(y | theta) (float), or ``(value, gradient)`` with the gradient w.r.t. the log
        hyper-parameters in the order of ``param_names``."""
        if theta is None and not eval_gradient:
            self._require_fit()
            return (self.ep if self.inference == "ep" else self.laplace).log_evidence
        result = self.marginal_likelihood(theta, eval_gradient)
        return (result.value, result.gradient) if eval_gradient else result.value

    def log_hyper_prior(self, theta=None) -> tuple[float, np.ndarray]:
        """Sum of the log hyper-prior densities of u = log theta, and its gradient (0 if none)."""
        return log_hyper_prior(self.theta if theta is None else theta, self.param_names,
                               self.priors)

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(log evidence + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        try:
            with warnings.catch_warnings():   # clipped EP sites are reported by the refit
                warnings.simplefilter("ignore", ClippedSiteWarning)
                result = self.marginal_likelihood(theta, eval_gradient=True)
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
        (:func:`~course_lib.gp.preference_hyperparameters.failed_objective`)."""
        return _failed_objective(self.inference, self._last_objective, theta)

    def optimise_hyperparameters(self, n_restarts: int = 5, *, rng: RngLike = None,
                                 max_iter: int = 200) -> HyperparameterFit:
        """MAP-II (ML-II without priors): maximise log q(y | theta) + log p(theta) over the log
        hyper-parameters with the L-BFGS-B restarts of
        :func:`~course_lib.gp.optimise.optimise_hyperparameters` (first run from the current theta,
        ``n_restarts - 1`` from the priors or uniform in the log-bounds; the best is kept and
        refitted). Warns when the kernel's variance and ``noise_sd`` are both free without a
        prior (the evidence is flat along their ratio:
        :mod:`course_lib.gp.preference_hyperparameters`)."""
        self._require_fit()
        n_restarts = _as_positive_int(n_restarts, "n_restarts")   # before the warning below
        rng = _as_rng(rng)
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
        return _predict_latent(self.kernel, self.X_train, self.posterior, X_test, full_cov)

    def sample_posterior(self, X_test, n_samples: int = 1, *, rng: RngLike = None
                         ) -> np.ndarray:
        """Draws of the utility f(X_test) from the posterior, (n_samples, n*)."""
        mean, cov = self.predict(X_test, full_cov=True)
        return sample_gaussian(mean, cov, n_samples, rng=rng)

    def predict_difference(self, Xa, Xb) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance of d_i = f(Xa_i) - f(Xb_i) for paired rows, from the
        joint Gaussian of the pair (:func:`~course_lib.gp.pair_prediction.latent_difference`)."""
        self._require_fit()
        return latent_difference(self.kernel, self.X_train, self.posterior, Xa, Xb)

    def preference_probability(self, Xa, Xb) -> np.ndarray:
        """Probability that setting Xa_i is preferred to Xb_i, for paired rows (n*,).

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
