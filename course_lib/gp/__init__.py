"""Unit 4, Gaussian-process regression: the face of ``course_lib.gp``.

What the unit teaches, in the order of lecture 04:

- ``kernels``: covariance functions with log-parameters and their gradients
  (:class:`SquaredExponential`, :class:`Matern`, :class:`Periodic`, ...; :func:`make_kernel`
  by a family's name); the interface they share, with sums and products, is ``kernel_algebra``.
- ``regression``: exact GP regression (Rasmussen & Williams 2006, Alg. 2.1) and its log marginal
  likelihood (R&W eq. 2.30) with the gradient of eq. 5.9 (:class:`GPRegression`); ``lml_surface``
  draws that evidence over two hyper-parameters.
- ``prediction``: from any Gaussian N(mu, Sigma) over the training latents to the predictive
  distribution, and the jitter policy of the Cholesky factor (:class:`LatentGaussian`).
- ``optimise`` and ``priors``: ML-II / MAP-II with L-BFGS-B and restarts, one function that every
  model of Units 4-7 calls with itself as the problem (:class:`HyperparameterFit`); hyper-priors.
- ``sparse``: Titsias's (2009) collapsed bound on inducing inputs, with its result types in
  ``sparse_results`` (:class:`SparseGP`) and the choice of inducing inputs in ``inducing_inputs``.

The later units build on these modules and have their own faces: :mod:`course_lib.raters`
(Unit 5, many raters), :mod:`course_lib.preference` (Unit 6, comparisons and preferences) and
:mod:`course_lib.mixed` (Unit 7, mixed feedback). Their models live in this package too, one module
per model (``multi_rater``, ``laplace``, ``ep``, ``variational`` with the model class in
``variational_gp``, ...), with the engine rooms a reader of an algorithm need not open:
``inputs`` (rows are points, the size limit of an exact GP), ``stationary`` (the distance and
chain-rule machinery of stationary kernels), ``parameters`` (log-parameter bookkeeping),
``quadrature`` (expectations under a Gaussian), ``newton_system`` (the factorisations behind
Laplace's Newton step), ``tilted_moments`` (EP's moment matching), ``bivariate_normal`` (the CDF
behind the level-set look-ahead), the result types ``laplace_result`` and ``ep_result``,
``latent_checks``, ``pair_prediction``, ``preference_checks``, ``preference_hyperparameters`` and
``sparse_preference_gradient``. The likelihoods share one interface in ``likelihoods``, with a
module per family: ``pairwise_likelihoods`` (comparisons), ``rating_likelihoods`` (bounded and
ordinal ratings) and ``feedback_likelihoods`` (yes/no answers, constraints, confidence ratings);
``mixed_likelihood`` joins several of them on one latent, each with its own rows of M.
"""

from .inducing_inputs import select_inducing_inputs
from .kernel_algebra import Kernel, Product, Sum
from .kernels import (Constant, Linear, Matern, Matern12, Matern32, Matern52, Periodic,
                      RationalQuadratic, SquaredExponential, White, make_kernel)
from .lml_surface import LMLSurface, log_marginal_likelihood_surface
from .optimise import HyperparameterFit
from .prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                         cholesky_with_jitter, predict_from_gaussian, sample_gaussian)
from .priors import Gamma, HalfStudentT, LogNormal, Prior
from .regression import GPRegression, MarginalLikelihood, gaussian_log_marginal_likelihood
from .sparse import (collapsed_bound, collapsed_bound_and_gradient, fit_sparse_gp,
                     sparse_posterior)
from .sparse_results import SparseGP

__all__ = [
    "Kernel", "SquaredExponential", "Matern", "Matern12", "Matern32", "Matern52",
    "RationalQuadratic", "Periodic", "Linear", "Constant", "White", "Sum", "Product",
    "make_kernel",
    "GPRegression", "MarginalLikelihood", "LMLSurface",
    "gaussian_log_marginal_likelihood", "log_marginal_likelihood_surface",
    "LatentGaussian", "predict_from_gaussian", "sample_gaussian", "cholesky_with_jitter",
    "JitterWarning", "NotPositiveDefiniteError",
    "HyperparameterFit", "Prior", "LogNormal", "Gamma", "HalfStudentT",
    "SparseGP", "collapsed_bound", "collapsed_bound_and_gradient", "fit_sparse_gp",
    "select_inducing_inputs", "sparse_posterior",
]
