"""Unit 7, mixed feedback (Wu, Sanders, Letham & Guan 2025): the face of ``course_lib.mixed``.

What the unit teaches, in the order of lecture 07 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``feedback_likelihoods``: answers of several kinds on one latent:
  :class:`BernoulliProbit` (yes/no), :class:`GaussianConstraint` (a constraint as a Gaussian
  pseudo-observation), :class:`LikertConfidence` and :class:`OrdinalProbit` (ordered ratings),
  joined with the pairwise likelihoods of :mod:`course_lib.preference` in one
  :class:`MixedLikelihood` (in ``variational_model``, the first thing both variational models
  build from the data).
- ``variational``: variational inference, each model with its bound: the ELBO
  (:func:`variational_evidence`: the expected log-likelihood of every row, once, minus one KL; its
  result, an evidence bound, :class:`VariationalEvidence`), its fit and the model that
  optimises it, :class:`VariationalGP` (MAP-II, warm-started refits, prediction);
  ``sparse_variational``: the same on fixed inducing points, bound
  (:class:`SparseVariationalEvidence`), fit and :class:`SparseVariationalGP` (Wu et al. 2025,
  section 2 and App. A), with ``inducing`` placing the inducing points
  (:func:`inducing_points`); ``variational_model``: the data both models fit
  (:class:`MixedLikelihood`) and what both models are (:class:`VariationalModel`: the
  hyper-parameter vector with the learned likelihood parameters, the evidence and its gradient,
  MAP-II, prediction).
- ``constraints``: prior knowledge as constraints (section 4.3):
  :func:`constraints_from_probability`, :func:`constraint_sigma`, :func:`pseudo_data`,
  :func:`detection_likelihood`.
- ``levelset`` and ``levelset_propose``: level-set estimation (section 4.2): where f is below a
  threshold, and which query to ask next (:func:`lookahead_levelset`, :func:`global_mi`,
  :func:`eavc`, :func:`straddle`, :func:`propose`), with the bivariate normal CDF of the
  look-ahead in ``bivariate_normal``; ``levelset_metrics``: how good an estimated level set is
  (:func:`f1_levelset`, :func:`brier_levelset`, on quasi-random points of a box).
- ``confidence``: preferences with confidence ratings (section 5):
  :class:`ConfidencePreferenceGP` (a :class:`VariationalGP` on choices and ratings of pairs, as
  lecture 07 introduces it).
- ``feedback_fits``: the fits the lecture compares (the ELBO's ledger on chosen data types,
  constraints of one sd).

An engine a reader of an algorithm need not open: ``_triangular_gaussian`` (the checks of the
sparse model's q(v) = N(m, S S^T) and its packing for L-BFGS).
"""

from .bivariate_normal import bvn_cdf
from .confidence import (ConfidencePreferenceGP, preference_confidence_likelihood,
                         unscaled_pairwise_probit)
from .constraints import (Z_95, constraint_sigma, constraints_from_probability,
                          detection_likelihood, pseudo_data)
from .feedback_fits import constraint_fit, ledger_fit
from .feedback_likelihoods import (BernoulliProbit, GaussianConstraint, LikertConfidence,
                                   OrdinalProbit)
from .levelset import LevelSetLookahead, eavc, global_mi, lookahead_levelset
from .levelset_metrics import brier_levelset, f1_levelset
from .levelset_propose import ACQUISITIONS, Proposal, bald_bernoulli, propose, straddle
from .inducing import inducing_points
from .sparse_variational import (SparseVariationalEvidence, SparseVariationalGP,
                                 fit_sparse_variational, sparse_variational_evidence)
from .variational import (VariationalEvidence, VariationalGP, fit_variational, variational_elbo,
                          variational_evidence)
from .variational_model import MixedLikelihood, VariationalModel

__all__ = [
    "BernoulliProbit", "GaussianConstraint", "LikertConfidence", "OrdinalProbit",
    "MixedLikelihood", "VariationalModel", "VariationalGP", "VariationalEvidence",
    "fit_variational", "variational_evidence", "variational_elbo",
    "SparseVariationalGP", "SparseVariationalEvidence", "fit_sparse_variational",
    "inducing_points",
    "sparse_variational_evidence",
    "constraints_from_probability", "constraint_sigma", "pseudo_data", "detection_likelihood",
    "Z_95", "ledger_fit", "constraint_fit",
    "ConfidencePreferenceGP", "preference_confidence_likelihood", "unscaled_pairwise_probit",
    "lookahead_levelset", "LevelSetLookahead", "global_mi", "eavc", "bald_bernoulli", "straddle",
    "bvn_cdf", "propose", "Proposal", "ACQUISITIONS", "f1_levelset", "brier_levelset",
]
