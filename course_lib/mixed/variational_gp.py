"""The full-rank variational GP as a model: fit, MAP-II on its hyper-parameters, prediction.

:class:`VariationalGP` wraps the bound and its fit of :mod:`course_lib.mixed.variational` (q(f) =
N(K alpha, (K^-1 + M^T diag(lambda) M)^-1) on the rows of a
:class:`~course_lib.mixed.mixed_likelihood.MixedLikelihood`) for a kernel over the items' inputs.
Its hyper-parameters are the kernel's log-parameters followed by the likelihood parameters it is
asked to learn; the ELBO's gradient in both is taken at the optimal (alpha, lambda) (the
envelope theorem), and MAP-II is the restart loop of :mod:`course_lib.gp.optimise`. A refit on
data that extend the previous fit's starts from the previous (alpha, lambda).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..linalg import NotPositiveDefiniteError
from ..validation import RngLike, _as_positive_float, _as_positive_int
from ..gp.inputs import _as_inputs, _check_exact_size
from ..gp.kernel_base import Kernel
from ..preference.laplace import _check_prior_covariance
from ..preference.likelihoods import Likelihood
from .mixed_likelihood import MixedLikelihood, _as_mixed
from ..gp.optimise import (HyperparameterFit, _check_priors, _negative_log_posterior,
                           optimise_hyperparameters)
from ..gp.parameters import ModelParameters, _Held
from ..gp.prediction import LatentGaussian
from ..gp.priors import Prior
from .variational import _SITE_PRECISION_FLOOR, VariationalResult, _fit_variational_trusted

__all__ = ["VariationalGP", "VariationalEvidence"]


@dataclass(frozen=True)
class VariationalEvidence:
    """The ELBO at some kernel hyper-parameters (``value``), its gradient in the kernel's
    log-parameters (or None) and the :class:`VariationalResult` behind it."""

    value: float
    gradient: np.ndarray | None
    result: VariationalResult


class VariationalGP(ModelParameters):
    """Full-rank variational GP on z = M f (:mod:`course_lib.mixed.variational`), with MAP-II on the
    kernel and, if asked, on the likelihood's parameters.

    Parameters
    ----------
    kernel : Kernel over the items' inputs.
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood` (then ``fit(X, y, M)``) or a
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
    kl_weight : the teaching device of :mod:`course_lib.mixed.variational` (default 1: the
        ELBO).
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
            raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood or a "
                            f"MixedLikelihood, got {type(likelihood).__name__}")
        self.kernel, self.likelihood = kernel, likelihood
        self._learned = self._check_learned(learn_likelihood)
        self.priors = self._check_priors(priors)
        self.kl_weight = _as_positive_float(kl_weight, "kl_weight")
        self.max_iter = _as_positive_int(max_iter, "max_iter")
        self.tol = _as_positive_float(tol, "tol")
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
        return _check_priors(priors, self.param_names)

    def _parts(self):
        """The parts of ``theta`` (``gp.parameters.ModelParameters``): the kernel's
        log-parameters, then the learned likelihood parameters, given back as the likelihood
        with them replaced."""
        names, learned = self.likelihood_param_names, self._learned
        return self.kernel, _Held([names[i] for i in learned], self.likelihood.theta[learned],
                                  self.likelihood.bounds.reshape(-1, 2)[learned],
                                  self._with_learned)

    def _with_learned(self, theta) -> Likelihood | MixedLikelihood:
        """The likelihood with its learned parameters at the log-values ``theta``."""
        if self._learned.size == 0:
            return self.likelihood
        likelihood_theta = self.likelihood.theta
        likelihood_theta[self._learned] = theta
        return self.likelihood.with_theta(likelihood_theta)

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
        X = _as_inputs(X, "X")
        _check_exact_size(X.shape[0], "X", advice="use SparseVariationalGP (a few hundred "
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
            return _fit_variational_trusted(K, mixed, warm[0], warm[1], dK, self.max_iter,
                                           self.tol, warn, self.kl_weight)
        except NotPositiveDefiniteError as err:
            raise NotPositiveDefiniteError(f"kernel: no variational posterior at the current "
                                           f"hyper-parameters ({err})") from None

    def _refit(self):
        self._fit(self.X_train, _check_prior_covariance(self.kernel(self.X_train)), self.mixed)

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
        result = self._run(_check_prior_covariance(K), mixed, self._warm, dK, warn)
        self._warm = (result.alpha, result.site_precision)
        gradient = None
        if eval_gradient:
            likelihood_gradient = mixed._expected_parameter_gradient(result.z_mean, result.z_var)
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

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(ELBO + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        return _negative_log_posterior(self, theta, lambda evidence: evidence.gradient)

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
        return self.posterior.predict_at(self.kernel, self.X_train, X_test, full_cov)

    def __repr__(self):
        return f"VariationalGP(kernel={self.kernel!r}, likelihood={self.likelihood!r})"
