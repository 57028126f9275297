"""What both variational models of the unit are: a GP whose q(f) maximises an ELBO on the rows
of a :class:`~course_lib.mixed.mixed_likelihood.MixedLikelihood`, with MAP-II on its
hyper-parameters.

:class:`VariationalModel` is the shared base of the full-rank
:class:`~course_lib.mixed.variational.VariationalGP` and the sparse
:class:`~course_lib.mixed.sparse_variational.SparseVariationalGP`. Neither model is the other
(lecture 07, section 4: the full-rank model is the sparse one with an inducing point on every
stimulus, Z = X), but both are a variational model in the same sense, and this module holds
that sense, no bound: each model's bound, its fit and its ``q`` live with the model.

What they share:

* the hyper-parameter vector ``theta``: the kernel's log-parameters, then the likelihood
  parameters MAP-II is asked to learn (``learn_likelihood``, by name ``"part<p>.<name>"``), given
  back as the likelihood with those replaced;
* the evidence (``log_evidence`` and ``evidence``): the optimised ELBO at some ``theta`` as the
  model's own bound's result (a :class:`~course_lib.mixed.variational.VariationalEvidence` or
  a :class:`~course_lib.mixed.sparse_variational.SparseVariationalEvidence`) with its gradient
  in ``theta``. The gradient is taken at the optimal q (the envelope theorem): in the kernel's
  log-parameters it is the bound's own (``result.gradient_kernel``); in the learned likelihood
  parameters, which neither q nor the KL depend on, it is
  :meth:`MixedLikelihood.expected_parameter_gradient` at the rows' moments under q;
* MAP-II by the restart loop of :func:`~course_lib.gp.optimise.optimise_hyperparameters`, and
  prediction of the latent f through the fitted
  :class:`~course_lib.gp.prediction.LatentGaussian`.

A model provides ``fit``, ``_refit`` (fit the current data again) and ``_optimised_bound(kernel,
mixed, eval_gradient, warn)``: its bound maximised over q at that kernel and likelihood, warm-
started from and updating ``self._warm``, with the kernel gradient when asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from ..validation import RngLike, as_positive_float, as_positive_int
from ..gp.kernel_base import Kernel
from ..gp.optimise import (HyperparameterFit, check_priors, negative_log_posterior,
                           optimise_hyperparameters)
from ..gp.parameters import Held, ModelParameters
from ..gp.prediction import LatentGaussian
from ..gp.priors import Prior
from ..preference.likelihoods import Likelihood
from .mixed_likelihood import MixedLikelihood

__all__ = ["VariationalModel"]


class VariationalModel(ModelParameters):
    """The shared base of the unit's variational GPs (module docstring): kernel, likelihood,
    learned likelihood parameters, priors, evidence, MAP-II and prediction.

    The parameters ``kernel``, ``likelihood``, ``priors``, ``learn_likelihood``,
    ``kl_weight``, ``max_iter`` and ``tol`` are documented on
    :class:`~course_lib.mixed.variational.VariationalGP`.
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
        self.kl_weight = as_positive_float(kl_weight, "kl_weight")
        self.max_iter = as_positive_int(max_iter, "max_iter")
        self.tol = as_positive_float(tol, "tol")
        self.X_train: np.ndarray | None = None
        self.mixed: MixedLikelihood | None = None
        self.result = None
        self.posterior: LatentGaussian | None = None
        self._warm: tuple[np.ndarray, np.ndarray] | None = None

    # ----- the hyper-parameter vector: kernel, then the learned likelihood parameters -------
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

    def _parts(self):
        """The parts of ``theta`` (``gp.parameters.ModelParameters``): the kernel's
        log-parameters, then the learned likelihood parameters, given back as the likelihood
        with them replaced."""
        names, learned = self.likelihood_param_names, self._learned
        return self.kernel, Held([names[i] for i in learned], self.likelihood.theta[learned],
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

    def _carried_over(self, likelihood):
        """A new ``likelihood`` (with the data grown) for this model: its learned parameters
        are the model's current ones, so it must have the same."""
        if not isinstance(likelihood, (Likelihood, MixedLikelihood)):
            raise TypeError(f"likelihood: expected a course_lib.preference.likelihoods Likelihood or a "
                            f"MixedLikelihood, got {type(likelihood).__name__}")
        if self._learned.size == 0:
            return likelihood
        if (type(likelihood) is not type(self.likelihood)
                or likelihood.param_names != self.likelihood.param_names):
            raise ValueError(f"likelihood: the model learns likelihood parameters, so a new "
                             f"likelihood needs the same ones {self.likelihood_param_names}")
        theta = likelihood.theta
        theta[self._learned] = self.likelihood.theta[self._learned]
        return likelihood.with_theta(theta)

    def refit_at(self, theta):
        """Set the hyper-parameters to ``theta`` and fit q again."""
        self._set_theta(theta)
        self._refit()

    def _require_fit(self):
        if self.posterior is None:
            raise ValueError("self: call fit(X, ...) before predicting or optimising")

    # ----- evidence lower bound ----------------------------------------------------------
    def evidence(self, theta=None, eval_gradient: bool = False, *, warn: bool = True):
        """The optimised ELBO at ``theta`` (default: the current hyper-parameters), the model's
        bound's result (:class:`~course_lib.mixed.variational.VariationalEvidence` or
        :class:`~course_lib.mixed.sparse_variational.SparseVariationalEvidence`) and, with
        ``eval_gradient``, its ``gradient`` in ``theta`` (kernel, then learned likelihood
        parameters, both at the optimal q: the likelihood's part is
        :meth:`MixedLikelihood.expected_parameter_gradient`, as neither q nor the KL depend on
        it); warm-started from the latest q. The fitted posterior is left as it is."""
        self._require_fit()
        kernel, likelihood = ((self.kernel, self.likelihood) if theta is None
                              else self._split(theta))
        mixed = self.mixed.with_theta(likelihood.theta) if self._learned.size else self.mixed
        result = self._optimised_bound(kernel, mixed, eval_gradient, warn)
        if not eval_gradient:
            return result
        likelihood_gradient = mixed._expected_parameter_gradient(result.z_mean, result.z_var)
        return replace(result, gradient=np.concatenate([result.gradient_kernel,
                                                        likelihood_gradient[self._learned]]))

    def log_evidence(self, theta=None) -> float:
        """The ELBO, a float (with ``kl_weight`` != 1 the objective maximised); at the current
        theta the fit's own, else ``evidence(theta).value``."""
        if theta is None:
            self._require_fit()
            return self.result.value
        return self.evidence(theta).value

    def negative_objective(self, theta) -> tuple[float, np.ndarray]:
        """-(ELBO + log p(theta)) and its gradient: what L-BFGS-B minimises."""
        return negative_log_posterior(self, theta)

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
