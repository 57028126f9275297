"""Unit 6, comparisons and preferences: the face of ``course_lib.preference``.

What the unit teaches, in the order of lecture 06 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``comparisons``: the data (:class:`Comparisons`: items, ordered pairs and answers; single-item
  ratings as identity rows) and the comparison matrix M that maps the latent f to z = M f.
- Likelihoods of z, with one interface (:class:`Likelihood`, in ``likelihoods``, with log Phi
  and its derivatives, stable in both tails, that every probit uses, and the pairwise
  likelihoods a preference GP's walk runs: :class:`PairwiseProbit`, Chu & Ghahramani 2005;
  :class:`PairwiseGaussian`); ``probit_beta`` the Beta algebra two families share with the
  degree of preference :class:`PairwiseBeta`; ``rating_likelihoods`` (the bounded ratings
  :class:`BetaRating`, :class:`TruncatedGaussianRating`, :class:`WarpedProbitRating`); and
  ``quadrature`` (expectations under a Gaussian).
- ``laplace``: the Laplace approximation (:func:`laplace_mode`, :func:`newton_path`; Rasmussen &
  Williams 2006, Alg. 3.1), its result and its evidence with the gradient
  (:func:`laplace_evidence`, :class:`LaplaceEvidence`), and in its last section the
  factorisations behind Newton's one solve / log-det pair; ``exact_posterior``: the brute-force
  posterior on a grid it is judged against (:func:`grid_posterior`).
- ``ep`` and ``tilted_distributions``: expectation propagation for single-item ratings
  (:func:`expectation_propagation`, :func:`tilted_moments`; R&W Alg. 3.5), its result and its
  evidence with the gradient (:func:`ep_evidence`, :class:`EPEvidence`).
- ``preference_gp``: the model (:class:`PreferenceGP`: Laplace or EP, predictions of pairs) and
  what every model of comparisons is (:class:`ComparisonGP`: hyper-parameters, MAP-II,
  predictions of the utility and of pairs), with the MAP-II glue in ``hyperparameters``
  (:class:`OnSquare`, the scale ridge).
- ``acquisition``: choosing the next comparison (Nielsen 2015, ch. 3): expected improvement
  (:func:`expected_improvement`, :func:`univariate_ei`, :func:`bivariate_ei`), pairwise BALD, the
  sampling rules and maximising bEI; ``ei_convergence``: when to stop
  (:func:`settling_threshold`); ``forced_choice``: the forced-choice test of the result.
- ``sparse_preference``: the model on pseudo-inputs (:class:`SparsePreferenceGP`, a
  :class:`ComparisonGP` too) with its evidence and its gradient.
"""

from .tilted_distributions import tilted_moments
from .acquisition import (AcquisitionMaximum, bivariate_ei, bivariate_ei_gradient,
                          expected_improvement, improvement_moments, incumbent,
                          maximise_acquisition, multinomial_sample, pairwise_bald,
                          thompson_sample, univariate_ei)
from .comparisons import Comparisons, DisconnectedComparisonsWarning
from .ei_convergence import average_ei_path, settled_at, settling_threshold
from .ep import (ClippedSiteWarning, EPConvergenceError, EPEvidence, EPResult, ep_evidence,
                 expectation_propagation)
from .forced_choice import ForcedChoiceTest, forced_choice_test, forced_choice_threshold
from .exact_posterior import grid_posterior, two_item_prior
from .hyperparameters import OnSquare
from .laplace import (InvalidLaplaceError, LaplaceEvidence, LaplaceResult, NewtonStep,
                      laplace_evidence, laplace_mode, newton_path)
from .likelihoods import Likelihood, LikelihoodTerms
from .likelihoods import inverse_mills_ratio, log_ndtr_derivatives
from .likelihoods import PairwiseGaussian, PairwiseProbit
from .probit_beta import PairwiseBeta
from .preference_gp import ComparisonGP, PreferenceGP, latent_difference
from .rating_likelihoods import BetaRating, TruncatedGaussianRating, WarpedProbitRating
from .sparse_preference import PseudoInputFit, SparsePreferenceGP

__all__ = [
    "Comparisons", "DisconnectedComparisonsWarning",
    "Likelihood", "LikelihoodTerms", "PairwiseProbit", "PairwiseGaussian", "PairwiseBeta",
    "BetaRating", "TruncatedGaussianRating", "WarpedProbitRating",
    "inverse_mills_ratio", "log_ndtr_derivatives",
    "laplace_mode", "laplace_evidence", "newton_path", "LaplaceResult", "NewtonStep",
    "InvalidLaplaceError",
    "expectation_propagation", "ep_evidence", "tilted_moments", "EPResult", "EPConvergenceError",
    "ClippedSiteWarning", "grid_posterior", "two_item_prior",
    "ComparisonGP", "PreferenceGP", "LaplaceEvidence", "EPEvidence", "OnSquare",
    "latent_difference",
    "SparsePreferenceGP", "PseudoInputFit",
    "expected_improvement", "incumbent", "improvement_moments", "univariate_ei", "bivariate_ei",
    "bivariate_ei_gradient", "AcquisitionMaximum", "maximise_acquisition", "multinomial_sample",
    "thompson_sample", "pairwise_bald", "average_ei_path", "settling_threshold", "settled_at",
    "ForcedChoiceTest", "forced_choice_test", "forced_choice_threshold",
]
