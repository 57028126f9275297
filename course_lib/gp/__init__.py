"""Unit 4, Gaussian-process regression: the face of ``course_lib.gp``.

What the unit teaches, in the order of lecture 04 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``kernels``: covariance functions with log-parameters and their gradients
  (:class:`Matern`, :class:`Periodic`, ...; :func:`make_kernel` by a family's name); the
  interface they share, with sums and products, is ``kernel_base``, which also holds the kernel
  every model starts from, :class:`SquaredExponential`, beside the stationary machinery it fills
  in (``kernels`` re-exports it).
- ``regression``: exact GP regression (Rasmussen & Williams 2006, Alg. 2.1) and its evidence,
  the log marginal likelihood (R&W eq. 2.30), with the gradient of eq. 5.9
  (:func:`gaussian_evidence`, :class:`GPRegression`); ``evidence_surface`` draws that evidence
  over two hyper-parameters.
- ``prediction``: from any Gaussian N(mu, Sigma) over the training latents to the predictive
  distribution (:class:`LatentGaussian`); the jitter policy of the Cholesky factor it uses is the
  shared :func:`course_lib.linalg.cholesky_with_jitter`.
- ``optimise`` and ``priors``: ML-II / MAP-II with L-BFGS-B and restarts, one function that every
  model of Units 4-7 calls with itself as the problem (:class:`HyperparameterFit`); hyper-priors.
- ``sparse``: Titsias's (2009) collapsed bound on inducing inputs (:func:`collapsed_evidence`),
  its result types (:class:`CollapsedEvidence`, :class:`SparseGP`) and the choice of inducing
  inputs from the data, which Unit 6's sparse preference GP uses too (Unit 7's sparse
  variational GP spreads its own over a box by Sobol).
- ``toy_data``: the small synthetic regression sets the lecture and the explorers use.

Shared by Units 4-7 and not needed to follow an algorithm: ``kernel_base`` (besides the
interface, the distance and chain rule every stationary kernel shares, and the inputs: rows are
points, the size limit of an exact GP) and ``parameters`` (log-parameter bookkeeping). The
later units build on this package and have their own: :mod:`course_lib.raters` (Unit 5),
:mod:`course_lib.preference` (Unit 6) and :mod:`course_lib.mixed` (Unit 7).
"""

from .kernel_base import Kernel, Product, SquaredExponential, Sum
from .kernels import (Constant, Linear, Matern, Matern12, Matern32, Matern52, Periodic,
                      RationalQuadratic, White, make_kernel)
from .evidence_surface import (EvidenceSurface, log_evidence_surface,
                               log_marginal_likelihood_surface)
from .optimise import HyperparameterFit
from .prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                         cholesky_with_jitter, predict_from_gaussian)
from .priors import Gamma, HalfStudentT, LogNormal, Prior
from .regression import (GPRegression, RegressionEvidence, gaussian_evidence,
                         gaussian_log_marginal_likelihood)
from .toy_data import ambiguous_regression_data, toy_regression_data
from .sparse import (CollapsedEvidence, SparseGP, collapsed_evidence, fit_sparse_gp,
                     select_inducing_inputs, sparse_posterior)

__all__ = [
    "Kernel", "SquaredExponential", "Matern", "Matern12", "Matern32", "Matern52",
    "RationalQuadratic", "Periodic", "Linear", "Constant", "White", "Sum", "Product",
    "make_kernel",
    "GPRegression", "RegressionEvidence", "EvidenceSurface",
    "gaussian_evidence", "log_evidence_surface",
    # deprecated, removed in the next release (CONVENTIONS 3.4)
    "gaussian_log_marginal_likelihood", "log_marginal_likelihood_surface",
    "LatentGaussian", "predict_from_gaussian", "cholesky_with_jitter",
    "JitterWarning", "NotPositiveDefiniteError",
    "HyperparameterFit", "Prior", "LogNormal", "Gamma", "HalfStudentT",
    "SparseGP", "CollapsedEvidence", "collapsed_evidence", "fit_sparse_gp",
    "select_inducing_inputs", "sparse_posterior",
    "toy_regression_data", "ambiguous_regression_data",
]
