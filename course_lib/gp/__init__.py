"""Gaussian processes: kernels, exact regression, the shared prediction step, hyper-priors.

``kernels`` holds the covariance functions (log-parameters, gradients, composition);
``prediction`` the step from any Gaussian approximation N(mu, Sigma) of the training latents to
the predictive distribution, plus the jitter policy (shared by exact regression and the
Laplace / variational models of later units); ``regression`` exact GP regression; ``optimise``
ML-II / MAP-II as one function (L-BFGS-B with restarts) that every model of Units 4-7 calls
with itself as the problem (theta, bounds, priors, objective with gradient); each model holds
its own fit, evidence and prediction and none subclasses ``GPRegression``; ``parameters``
the log-parameter bookkeeping of kernels and likelihoods; ``priors`` hyper-priors for MAP-II;
``sparse`` the inducing-point (Titsias collapsed variational bound) approximation for large N;
``raters`` several raters' scores per item (Unit 5: the mean, joint and repeated-input models); ``annotators`` raters whose
noise differs by rater and by region of the input space (Unit 5, seed 001); ``comparisons``
(pairs and the comparison matrix M), ``likelihoods`` (pairwise and bounded-rating likelihoods
on z = M f), ``laplace`` (the Laplace approximation on z = M f), ``ep`` (expectation
propagation for single-item ratings) and ``preference`` (the preference GP) and
``acquisition`` (expected improvement, query rules, convergence and the forced-choice test)
and ``listeners`` (simulated listeners, their pathologies and the personalisation loop) for
Unit 6.
"""

from .kernels import (Constant, Kernel, Linear, Matern, Matern12, Matern32, Matern52, Periodic,
                      Product, RationalQuadratic, SquaredExponential, Sum, White)
from .prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                         cholesky_with_jitter, predict_from_gaussian, sample_gaussian)
from .priors import Gamma, HalfStudentT, LogNormal, Prior
from .optimise import HyperparameterFit
from .regression import (GPRegression, LMLSurface, MarginalLikelihood,
                         gaussian_log_marginal_likelihood, log_marginal_likelihood_surface)
from .raters import (MultiRaterGP, MultiRaterLikelihood, RaterData, WeightedMeans,
                     joint_log_likelihood, simulate_integer_scores)
from .annotators import (AnnotatorLikelihood, AnnotatorNoiseGP, Regions, annotator_log_likelihood,
                         assign_regions, simulate_homogeneous, simulate_regions)
from .sparse import (SparseGP, collapsed_bound, collapsed_bound_and_gradient, fit_sparse_gp,
                     select_inducing_inputs, sparse_posterior)
from .comparisons import Comparisons, DisconnectedComparisonsWarning
from .likelihoods import (BetaRating, Likelihood, LikelihoodTerms, PairwiseBeta, PairwiseGaussian,
                          PairwiseProbit, TruncatedGaussianRating, WarpedProbitRating,
                          BernoulliProbit, GaussianConstraint, LikertConfidence,
                          OrdinalProbit)
from .laplace import InvalidLaplaceError, LaplaceResult, NewtonStep, laplace_mode, newton_path
from .ep import (ClippedSiteWarning, EPConvergenceError, EPResult, expectation_propagation,
                 tilted_moments)
from .variational import (MixedLikelihood, VariationalEvidence, VariationalGP, VariationalResult,
                          fit_variational, variational_elbo)
from .levelset import (ACQUISITIONS, LevelSetLookahead, Proposal, bald_bernoulli, bvn_cdf, eavc,
                       global_mi, levelset_probability, lookahead_levelset, propose, straddle)
from .sparse_variational import (SparseVariationalGP, SparseVariationalResult,
                                 fit_sparse_variational, inducing_points,
                                 sparse_variational_elbo)
from .constraints import (constraint_sigma, constraints_from_probability, detection_likelihood,
                          pseudo_data)
from .levelset_session import LevelSetSession, LevelSetTrace, run_levelset_session
from .confidence import (ConfidencePreferenceGP, preference_confidence_likelihood,
                         seed_preference_likelihood)
from .preference import EPEvidence, LaplaceEvidence, OnSquare, PreferenceGP
from .sparse_preference import PseudoInputFit, SparsePreferenceGP
from .acquisition import (AcquisitionMaximum, ForcedChoiceTest, average_ei_path,
                          bivariate_ei, bivariate_ei_gradient, expected_improvement,
                          forced_choice_test, forced_choice_threshold, improvement_moments,
                          incumbent, maximise_acquisition, multinomial_sample, pairwise_bald,
                          settled_at,
                          settling_threshold, thompson_sample, univariate_ei)
from .listeners import (CannotHear, Fatigue, GPDrawResponse, MattersAboveThreshold, Pathology,
                        SessionResult, SimulatedListener, SwitchesPreference, gp_draw_2d,
                        gp_draw_4d, negated_griewank, next_candidate, paper_h_model, run_session,
                        settings_grid)

__all__ = [
    "Kernel", "SquaredExponential", "Matern", "Matern12", "Matern32", "Matern52",
    "RationalQuadratic", "Periodic", "Linear", "Constant", "White", "Sum", "Product",
    "JitterWarning", "NotPositiveDefiniteError", "cholesky_with_jitter", "LatentGaussian",
    "predict_from_gaussian", "sample_gaussian",
    "Prior", "LogNormal", "Gamma", "HalfStudentT",
    "GPRegression", "MarginalLikelihood", "HyperparameterFit", "LMLSurface",
    "gaussian_log_marginal_likelihood", "log_marginal_likelihood_surface",
    "RaterData", "WeightedMeans", "MultiRaterLikelihood", "joint_log_likelihood", "MultiRaterGP",
    "simulate_integer_scores",
    "AnnotatorLikelihood", "annotator_log_likelihood", "AnnotatorNoiseGP", "Regions",
    "assign_regions", "simulate_homogeneous", "simulate_regions",
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
    "negated_griewank", "settings_grid", "GPDrawResponse", "gp_draw_2d", "gp_draw_4d",
    "Pathology", "CannotHear", "SwitchesPreference", "Fatigue", "MattersAboveThreshold",
    "SimulatedListener", "SessionResult", "paper_h_model", "next_candidate", "run_session",
    "bvn_cdf", "levelset_probability", "LevelSetLookahead", "lookahead_levelset", "global_mi",
    "eavc", "bald_bernoulli", "straddle", "propose", "Proposal", "ACQUISITIONS",
    "constraints_from_probability", "constraint_sigma", "pseudo_data", "detection_likelihood",
    "LevelSetSession", "LevelSetTrace", "run_levelset_session",
    "SparseVariationalGP", "SparseVariationalResult", "fit_sparse_variational", "inducing_points",
    "sparse_variational_elbo",
    "ConfidencePreferenceGP", "preference_confidence_likelihood", "seed_preference_likelihood",
]
