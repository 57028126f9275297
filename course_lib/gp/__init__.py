"""Gaussian processes, one module per model; this package's names are listed below by unit.

Unit 4 (GP regression): ``kernels`` (covariance functions with log-parameters and gradients),
``prediction`` (from any Gaussian N(mu, Sigma) over the training latents to the predictive
distribution; the jitter policy), ``regression`` (exact GP regression), ``optimise`` (ML-II /
MAP-II as one function, L-BFGS-B with restarts, that every model of Units 4-7 calls with
itself as the problem: theta, bounds, priors, objective with gradient; no model subclasses
``GPRegression``), ``priors`` (hyper-priors for MAP-II), ``sparse`` (Titsias 2009's collapsed
bound on inducing inputs).

Unit 5 (many raters): ``multi_rater`` (several raters' scores per item with one noise for
every rater: the mean, joint and repeated-input models) and ``annotator_noise`` (noise that
differs by rater and by region of the input space; Gil-Gonzalez, Alvarez & Orozco 2018).

Unit 6 (comparisons and preferences): ``comparisons`` (pairs and the comparison matrix M),
``likelihoods`` (likelihoods of z = M f), ``laplace`` (the Laplace approximation; its linear
algebra in ``newton_system``), ``ep`` (expectation propagation), ``preference`` (the preference
GP), ``sparse_preference`` (on pseudo-inputs), ``acquisition`` (expected improvement, query
rules, convergence and the forced-choice test).

Unit 7 (mixed feedback; Wu, Sanders, Letham & Guan 2025): ``variational`` (the
mixed-likelihood variational GP), ``sparse_variational`` (its inducing-point form),
``constraints`` (prior knowledge as pseudo-observations), ``confidence`` (preferences with
confidence ratings), ``levelset`` (level-set acquisitions).

Engine rooms a reader of the algorithms need not open: ``parameters`` (the log-parameter
bookkeeping of kernels and likelihoods), ``quadrature`` (expectations under a Gaussian),
``newton_system`` (the factorisations behind Laplace's Newton step). Simulated
raters, listeners and observers, and the sessions that run them, sit above the models in
:mod:`course_lib.simulators`.
"""

from .acquisition import (AcquisitionMaximum, ForcedChoiceTest, average_ei_path,
                          bivariate_ei, bivariate_ei_gradient, expected_improvement,
                          forced_choice_test, forced_choice_threshold, improvement_moments,
                          incumbent, maximise_acquisition, multinomial_sample, pairwise_bald,
                          settled_at,
                          settling_threshold, thompson_sample, univariate_ei)
from .annotator_noise import (AnnotatorLikelihood, AnnotatorNoiseGP, Regions,
                              annotator_log_likelihood, assign_regions)
from .comparisons import Comparisons, DisconnectedComparisonsWarning
from .confidence import (ConfidencePreferenceGP, preference_confidence_likelihood,
                         unscaled_pairwise_probit)
from .constraints import (constraint_sigma, constraints_from_probability, detection_likelihood,
                          pseudo_data)
from .ep import (ClippedSiteWarning, EPConvergenceError, EPResult, expectation_propagation,
                 tilted_moments)
from .kernels import (Constant, Kernel, Linear, Matern, Matern12, Matern32, Matern52, Periodic,
                      Product, RationalQuadratic, SquaredExponential, Sum, White)
from .laplace import InvalidLaplaceError, LaplaceResult, NewtonStep, laplace_mode, newton_path
from .levelset import (ACQUISITIONS, LevelSetLookahead, Proposal, bald_bernoulli, bvn_cdf, eavc,
                       global_mi, lookahead_levelset, propose, straddle)
from .feedback_likelihoods import BernoulliProbit, GaussianConstraint, LikertConfidence
from .likelihoods import Likelihood, LikelihoodTerms
from .pairwise_likelihoods import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from .rating_likelihoods import (BetaRating, TruncatedGaussianRating, WarpedProbitRating,
                                 OrdinalProbit)
from .multi_rater import (MultiRaterGP, MultiRaterLikelihood, RaterData, WeightedMeans,
                          joint_log_likelihood)
from .prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                         cholesky_with_jitter, predict_from_gaussian, sample_gaussian)
from .preference import EPEvidence, LaplaceEvidence, OnSquare, PreferenceGP
from .priors import Gamma, HalfStudentT, LogNormal, Prior
from .optimise import HyperparameterFit
from .regression import (GPRegression, LMLSurface, MarginalLikelihood,
                         gaussian_log_marginal_likelihood, log_marginal_likelihood_surface)
from .sparse import (SparseGP, collapsed_bound, collapsed_bound_and_gradient, fit_sparse_gp,
                     select_inducing_inputs, sparse_posterior)
from .sparse_preference import PseudoInputFit, SparsePreferenceGP
from .sparse_variational import (SparseVariationalGP, SparseVariationalResult,
                                 fit_sparse_variational, inducing_points,
                                 sparse_variational_elbo)
from .variational import (MixedLikelihood, VariationalEvidence, VariationalGP, VariationalResult,
                          fit_variational, variational_elbo)

__all__ = [
    "Kernel", "SquaredExponential", "Matern", "Matern12", "Matern32", "Matern52",
    "RationalQuadratic", "Periodic", "Linear", "Constant", "White", "Sum", "Product",
    "JitterWarning", "NotPositiveDefiniteError", "cholesky_with_jitter", "LatentGaussian",
    "predict_from_gaussian", "sample_gaussian",
    "Prior", "LogNormal", "Gamma", "HalfStudentT",
    "GPRegression", "MarginalLikelihood", "HyperparameterFit", "LMLSurface",
    "gaussian_log_marginal_likelihood", "log_marginal_likelihood_surface",
    "RaterData", "WeightedMeans", "MultiRaterLikelihood", "joint_log_likelihood", "MultiRaterGP",
    "AnnotatorLikelihood", "annotator_log_likelihood", "AnnotatorNoiseGP", "Regions",
    "assign_regions",
    "SparseGP", "collapsed_bound", "collapsed_bound_and_gradient", "fit_sparse_gp",
    "select_inducing_inputs", "sparse_posterior",
    "laplace_mode", "newton_path", "LaplaceResult", "NewtonStep", "InvalidLaplaceError",
    "expectation_propagation", "EPResult", "EPConvergenceError", "ClippedSiteWarning",
    "tilted_moments", "EPEvidence",
    "MixedLikelihood", "VariationalGP", "VariationalResult", "VariationalEvidence",
    "fit_variational", "variational_elbo",
    "PreferenceGP", "LaplaceEvidence", "OnSquare", "SparsePreferenceGP", "PseudoInputFit",
    "Comparisons", "DisconnectedComparisonsWarning",
    "Likelihood", "LikelihoodTerms", "PairwiseGaussian", "PairwiseProbit", "PairwiseBeta",
    "TruncatedGaussianRating", "BetaRating", "WarpedProbitRating",
    "BernoulliProbit", "GaussianConstraint", "LikertConfidence", "OrdinalProbit",
    "expected_improvement", "incumbent", "improvement_moments", "univariate_ei", "bivariate_ei",
    "bivariate_ei_gradient", "multinomial_sample", "pairwise_bald", "AcquisitionMaximum",
    "maximise_acquisition",
    "thompson_sample", "average_ei_path", "settling_threshold", "settled_at", "ForcedChoiceTest", "forced_choice_test",
    "forced_choice_threshold",
    "bvn_cdf", "LevelSetLookahead", "lookahead_levelset", "global_mi",
    "eavc", "bald_bernoulli", "straddle", "propose", "Proposal", "ACQUISITIONS",
    "constraints_from_probability", "constraint_sigma", "pseudo_data", "detection_likelihood",
    "SparseVariationalGP", "SparseVariationalResult", "fit_sparse_variational", "inducing_points",
    "sparse_variational_elbo",
    "ConfidencePreferenceGP", "preference_confidence_likelihood", "unscaled_pairwise_probit",
]
