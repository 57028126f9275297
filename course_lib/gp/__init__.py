"""Gaussian processes: kernels, exact regression, the shared prediction step, hyper-priors.

``kernels`` holds the covariance functions (log-parameters, gradients, composition);
``prediction`` the step from any Gaussian approximation N(mu, Sigma) of the training latents to
the predictive distribution, plus the jitter policy (shared by exact regression and the
Laplace / variational models of later units); ``regression`` exact GP regression with ML-II /
MAP-II fitting; ``priors`` hyper-priors for MAP-II; ``sparse`` the inducing-point
(Titsias collapsed variational bound) approximation for large N; ``multi_rater`` several
raters' scores per item with one noise for every rater (Unit 5: the mean, joint and
repeated-input models); ``annotator_noise`` raters whose noise differs by rater and by region
of the input space (Unit 5, seed 001); ``comparisons``
(pairs and the comparison matrix M), ``likelihoods`` (pairwise and bounded-rating likelihoods
on z = M f), ``laplace`` (the Laplace approximation on z = M f), ``ep`` (expectation
propagation for single-item ratings) and ``preference`` (the preference GP) and
``acquisition`` (expected improvement, query rules, convergence and the forced-choice test)
for Unit 6. Simulated raters, listeners and observers, and the sessions that run them, sit
above the models in :mod:`course_lib.simulators`.
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
                         seed_preference_likelihood)
from .constraints import (constraint_sigma, constraints_from_probability, detection_likelihood,
                          pseudo_data)
from .ep import (ClippedSiteWarning, EPConvergenceError, EPResult, expectation_propagation,
                 tilted_moments)
from .kernels import (Constant, Kernel, Linear, Matern, Matern12, Matern32, Matern52, Periodic,
                      Product, RationalQuadratic, SquaredExponential, Sum, White)
from .laplace import InvalidLaplaceError, LaplaceResult, NewtonStep, laplace_mode, newton_path
from .levelset import (ACQUISITIONS, LevelSetLookahead, Proposal, bald_bernoulli, bvn_cdf, eavc,
                       global_mi, lookahead_levelset, propose, straddle)
from .likelihoods import (BetaRating, Likelihood, LikelihoodTerms, PairwiseBeta, PairwiseGaussian,
                          PairwiseProbit, TruncatedGaussianRating, WarpedProbitRating,
                          BernoulliProbit, GaussianConstraint, LikertConfidence,
                          OrdinalProbit)
from .multi_rater import (MultiRaterGP, MultiRaterLikelihood, RaterData, WeightedMeans,
                          joint_log_likelihood)
from .prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                         cholesky_with_jitter, predict_from_gaussian, sample_gaussian)
from .preference import EPEvidence, LaplaceEvidence, OnSquare, PreferenceGP
from .priors import Gamma, HalfStudentT, LogNormal, Prior
from .regression import (GPRegression, HyperparameterFit, LMLSurface, MarginalLikelihood,
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
    "ConfidencePreferenceGP", "preference_confidence_likelihood", "seed_preference_likelihood",
]
