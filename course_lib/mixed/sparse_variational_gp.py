"""The sparse variational GP as a model: inducing points, fit, MAP-II, prediction.

:class:`SparseVariationalGP` wraps the bound and its fit of :mod:`course_lib.mixed.sparse_variational`
(the whitened q(v) = N(m, S S^T) over the values u = f(Z) = L v at p fixed inducing points Z) for
a kernel over the items' inputs, as :class:`~course_lib.mixed.variational_gp.VariationalGP` wraps the
full-rank fit; it shares that model's hyper-parameter vector (kernel, then the learned likelihood
parameters) and its bookkeeping. The kernel's gradient is the bound's at the optimal (m, S); the
likelihoods' own parameters (e.g. Likert cut points), when learned, enter only the expected
log-likelihood, so their gradient is :meth:`MixedLikelihood.expected_parameter_gradient` at the
rows' moments. A refit starts from the previous q(v) even when trials were added, since v lives
on the fixed inducing points. :func:`inducing_points` places Z as Wu et al. 2025 do (section 2
and App. A): scrambled Sobol points of the domain plus one at every constraint location.

After ``fit`` the model exposes ``kernel``, ``X_train`` (= Z) and ``posterior`` (the
:class:`~course_lib.gp.prediction.LatentGaussian` over u = f(Z), whitened form), so prediction
and the level-set acquisitions of :mod:`course_lib.mixed.levelset` treat it like any other course
GP: at test inputs, with a = L^-1 k(Z, x*), mean = a^T m and var = k(x*, x*) - |a|^2 + |S^T a|^2.
With Z = X the model is the full variational GP of :mod:`course_lib.mixed.variational_gp` (and with a
Gaussian likelihood, exact regression).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from scipy.stats import qmc

from ..linalg import NotPositiveDefiniteError
from ..validation import (RngLike, _check_array_size, _as_bool, _as_float_array, _as_positive_int,
                          _as_rng, _check_width)
from ..gp.inputs import _as_inputs
from ..gp.kernel_base import Kernel
from ..preference.likelihoods import Likelihood
from .mixed_likelihood import MixedLikelihood
from ..gp.priors import Prior
from .sparse_variational import _fit_sparse_variational_trusted
from .sparse_variational import SparseVariationalResult, _check_inducing, _check_items
from .variational_gp import VariationalEvidence, VariationalGP

__all__ = ["SparseVariationalGP", "inducing_points"]


def inducing_points(bounds, n: int, *, include=None, rng: RngLike = None) -> np.ndarray:
    """``n`` scrambled Sobol points in the box ``bounds`` (d x 2, rows (low, high)), followed by
    the rows of ``include`` (k x d; Wu et al. 2025 put an inducing point at every constraint
    location, without which its mixed model is "inflexible"). Returns an (n + k, d) array.
    ``n`` may be 0 when ``include`` is given; ``rng`` scrambles the Sobol sequence. Sobol points
    are best balanced when n is a power of two, but Wu et al.'s 100 are accepted."""
    bounds = _as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape[1] != 2 or np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError(f"bounds: expected a (d, 2) array of (low, high) rows with low < high, "
                         f"got {bounds.tolist()}")
    _check_width(bounds[:, 0], bounds[:, 1], "bounds")
    d = bounds.shape[0]
    extra = np.empty((0, d)) if include is None else _as_inputs(include, "include", d)
    n = _as_positive_int(n, "n", minimum=0 if extra.shape[0] else 1)
    _check_array_size((n + extra.shape[0], d), "n", "the inducing points",
                     "a sparse model needs tens to a few thousand inducing points (the "
                     "level-set sessions use 100)")
    sobol = qmc.Sobol(d, rng=_as_rng(rng))
    with warnings.catch_warnings():  # Wu et al.'s n = 100 is not a power of two
        warnings.filterwarnings("ignore", message="The balance properties of Sobol")
        points = qmc.scale(sobol.random(n), bounds[:, 0], bounds[:, 1]) if n else np.empty((0, d))
    return np.vstack([points, extra])


class SparseVariationalGP(VariationalGP):
    """Sparse variational GP with fixed inducing points (module docstring; its bound:
    :mod:`course_lib.mixed.sparse_variational`), MAP-II on the kernel and, if asked, on the
    likelihood's parameters.

    Parameters
    ----------
    kernel : Kernel over the inputs.
    likelihood : a :class:`~course_lib.preference.likelihoods.Likelihood` (then ``fit(X, y, M)``) or a
        :class:`~course_lib.mixed.mixed_likelihood.MixedLikelihood` whose parts carry their own
        maps and observations (then ``fit(X)``).
    inducing : (p, d) inducing points Z, fixed (e.g. :func:`inducing_points`).
    priors, learn_likelihood, kl_weight : as :class:`~course_lib.mixed.variational_gp.VariationalGP`
        (the same hyper-parameter vector: the kernel's log-parameters, then the learned
        likelihood parameters named ``"part<p>.<name>"``; by default none is learned).
    max_iter, tol : of the L-BFGS run over q(v) (:func:`fit_sparse_variational`).
    warm_start : start every fit from the previous q(v) (the active-learning loop refits after
        each trial; v lives on Z, so the previous optimum is a good start even with new rows).

    After ``fit``: ``result`` (:class:`SparseVariationalResult`: ELBO, ledger, KL, m, S),
    ``posterior`` (LatentGaussian over u = f(Z)), ``X_train`` (= Z, which is what prediction and
    the level-set acquisitions condition on), ``X_items`` (the rows of X the likelihood
    addresses), ``mixed`` (the MixedLikelihood with its data). ``log_marginal_likelihood`` is
    the optimised ELBO, which ``optimise_hyperparameters`` maximises by the restart loop of
    :func:`~course_lib.gp.optimise.optimise_hyperparameters`, each evaluation warm-started from
    the latest q(v).
    """

    def __init__(self, kernel: Kernel, likelihood: Likelihood | MixedLikelihood, inducing,
                 priors: Mapping[str, Prior] | None = None, *, learn_likelihood=None,
                 kl_weight: float = 1.0, max_iter: int = 2000, tol: float = 1e-10,
                 warm_start: bool = True):
        self.inducing = _check_inducing(kernel, inducing)
        super().__init__(kernel, likelihood, priors, learn_likelihood=learn_likelihood,
                         kl_weight=kl_weight, max_iter=max_iter, tol=tol)
        self.warm_start = _as_bool(warm_start, "warm_start")
        self.X_items: np.ndarray | None = None
        self.result: SparseVariationalResult | None = None

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

    def _carried_over(self, likelihood):
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

    def _fit(self, X, mixed) -> "SparseVariationalGP":
        warm = self._warm if self.warm_start else None
        result = self._run(self.kernel, X, mixed, warm, False, True)
        self.X_items, self.mixed, self.result = X, mixed, result
        self.X_train, self.posterior = self.inducing, result.posterior
        self._warm = (result.mean_whitened, result.root_whitened)
        return self

    def _run(self, kernel, X, mixed, warm, eval_gradient, warn) -> SparseVariationalResult:
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

    def q_u(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of u = f(Z) under q: (L m, L S S^T L^T)."""
        self._require_fit()
        return self.posterior.mean.copy(), self.posterior.covariance()

    # ----- evidence lower bound ----------------------------------------------------------
    def marginal_likelihood(self, theta=None, eval_gradient: bool = False,
                            warn: bool = True) -> VariationalEvidence:
        """The optimised ELBO at ``theta`` (default: the current hyper-parameters) and, with
        ``eval_gradient``, its gradient in ``theta`` (kernel, then learned likelihood
        parameters, both at the optimal q(v): the likelihood's part is
        :meth:`MixedLikelihood.expected_parameter_gradient`, as neither q nor the KL depend on
        it); warm-started from the latest q(v). The fitted posterior is left as it is."""
        self._require_fit()
        kernel, likelihood = ((self.kernel, self.likelihood) if theta is None
                              else self._split(theta))
        mixed = self.mixed.with_theta(likelihood.theta) if self._learned.size else self.mixed
        eval_gradient = _as_bool(eval_gradient, "eval_gradient")
        result = self._run(kernel, self.X_items, mixed, self._warm, eval_gradient, warn)
        self._warm = (result.mean_whitened, result.root_whitened)
        gradient = None
        if eval_gradient:
            likelihood_gradient = mixed._expected_parameter_gradient(result.z_mean, result.z_var)
            gradient = np.concatenate([result.gradient_kernel,
                                       likelihood_gradient[self._learned]])
        return VariationalEvidence(result.objective, gradient, result)

    def __repr__(self):
        return (f"SparseVariationalGP(kernel={self.kernel!r}, likelihood={self.likelihood!r}, "
                f"{self.n_inducing} inducing points)")
