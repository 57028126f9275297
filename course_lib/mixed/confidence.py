"""Preferences with confidence ratings: one latent f, two kinds of answer (Wu, Sanders,
Letham & Guan 2025, section 5).

Each trial shows two items a (``first``) and b (``second``) and gets

* a choice y in {0, 1}, 1 = the first item was preferred, with Wu et al.'s likelihood
  P(y = 1 | f) = Phi(f(a) - f(b)) (no sqrt 2). In the course's
  :class:`~course_lib.preference.likelihoods.PairwiseProbit`, Phi(z / (sqrt(2) noise_sd)),
  that is ``noise_sd = 1 / sqrt(2)`` held fixed (:func:`unscaled_pairwise_probit`);
* optionally a confidence level c in 0 .. l - 1 (0 = weakest), with Wu et al.'s Likert likelihood
  (eq. 2) on |f(a) - f(b)|, :class:`~course_lib.mixed.feedback_likelihoods.LikertConfidence` (cut
  points with gaps of at most 2, lapse 0.1).

As in Wu et al. (section 5.1), :class:`ConfidencePreferenceGP` learns the Likert cut points with
the kernel by MAP-II (its gaps ``part1.gap_1`` .. ``part1.gap_{l-1}``, after the kernel's
parameters in ``theta``); the lapse stays at the likert's value (Wu et al.'s 0.1, fixed
throughout their experiments) and the choices' probit scale stays fixed (it is not identifiable
against the kernel's amplitude). Few ratings pin a cut point only weakly (a level nobody used
says little about where it starts), so each gap gets a weak prior from the model's own scale,
:func:`gap_prior`: Wu et al. bound a gap by max_gap = 2 because Phi(2) = 0.98 is about the
largest change of preference probability one level can span; the prior's median is half that
bound (a gap across which Phi moves from 1/2 to Phi(1) = 0.84) with a log-sd of 1, so the data
move it freely within a factor e either side and the bound caps it above.

Both parts see the same row z = f(a) - f(b) of the comparison matrix M
(:meth:`course_lib.preference.comparisons.Comparisons.matrix`), so the mixed likelihood
(:func:`preference_confidence_likelihood`) is a
:class:`~course_lib.mixed.variational_model.MixedLikelihood` whose two parts share M: the ELBO sums
both parts' expected log-likelihoods once and subtracts one KL. :class:`ConfidencePreferenceGP` is
the full-rank variational GP on it, with a ``use_ratings`` switch (an over-confident rater's
ratings can hurt: keep the choices, drop the ratings), and predicts

    Pr(a preferred to b) = E[Phi(f(a) - f(b))] = Phi(mu / sqrt(1 + v))

with mu, v the posterior mean and variance of the latent difference (Wu et al.'s eq. 3, p_i).

Wu et al. put a GP on the pair space with the kernel k(a,c) + k(b,d) - k(a,d) - k(b,c); here f
lives on the items and M takes differences, which is the same model when the items are the
pairs' own inputs (units-5-7-design trap 9; the test compares the two).

This module is the one place that builds this model: the lecture, the widgets and the
experiments call it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from ..validation import as_bool, renamed_error
from ..preference.comparisons import Comparisons, DisconnectedComparisonsWarning
from ..gp.kernel_base import Kernel, as_inputs
from .feedback_likelihoods import LikertConfidence
from .variational_model import MixedLikelihood
from ..preference.likelihoods import PairwiseProbit
from ..preference.preference_gp import latent_difference
from ..gp.priors import LogNormal, Prior
from .variational import VariationalGP

__all__ = ["GAP_PRIOR_LOG_SD", "unscaled_pairwise_probit", "preference_confidence_likelihood",
           "gap_prior", "ConfidencePreferenceGP"]

# PairwiseProbit's Phi(z / (sqrt(2) sigma)) is Wu et al.'s Phi(z) at sigma = 1 / sqrt(2)
_UNSCALED_PROBIT_NOISE_SD = float(1.0 / np.sqrt(2.0))
# spread (in log units) of gap_prior: a factor e either side of its median is one sd
GAP_PRIOR_LOG_SD = 1.0


def unscaled_pairwise_probit() -> PairwiseProbit:
    """P(first preferred | z) = Phi(z): PairwiseProbit with noise_sd fixed at 1/sqrt(2) (the
    latent's scale is the kernel's; a free noise_sd would not be identified)."""
    return PairwiseProbit(_UNSCALED_PROBIT_NOISE_SD, noise_sd_bounds="fixed")


def _check_likert(likert) -> LikertConfidence:
    if likert is None:
        return LikertConfidence(3)
    if not isinstance(likert, LikertConfidence):
        raise TypeError("likert: expected a course_lib.mixed.feedback_likelihoods.LikertConfidence, "
                        f"got {type(likert).__name__}")
    return likert


def gap_prior(likert: LikertConfidence | None = None) -> LogNormal:
    """The weak prior on each learned Likert gap (module docstring): log gap ~
    N(log(max_gap / 2), GAP_PRIOR_LOG_SD^2), from the likelihood's own bound ``max_gap``
    (Wu et al.'s 2), never from data."""
    return LogNormal(float(np.log(0.5 * _check_likert(likert).max_gap)), GAP_PRIOR_LOG_SD)


def preference_confidence_likelihood(comparisons: Comparisons, confidence=None, *,
                                     likert: LikertConfidence | None = None,
                                     use_ratings: bool = True) -> MixedLikelihood:
    """The mixed likelihood of choices (and confidence levels) about the same pairs.

    ``comparisons`` holds the pairs and the binary choices (kind ``"pair-binary"``, 1 = the
    first item preferred); ``confidence`` one level 0 .. l - 1 per comparison, or None;
    ``likert`` the rating likelihood (default ``LikertConfidence(3)``: gaps 1, lapse 0.1).
    Part 0 is :func:`unscaled_pairwise_probit` on M; part 1 (only when ratings are given and
    ``use_ratings``) is ``likert`` on the same M.
    """
    if not isinstance(comparisons, Comparisons):
        raise TypeError(f"comparisons: expected a course_lib.preference.Comparisons, got "
                        f"{type(comparisons).__name__}")
    if comparisons.kind != "pair-binary":
        raise ValueError(f"comparisons: choices must be binary (kind 'pair-binary', 1 = the "
                         f"first item preferred), got kind {comparisons.kind!r}")
    likert = _check_likert(likert)
    use_ratings = as_bool(use_ratings, "use_ratings")
    M = comparisons.matrix()
    parts = [(unscaled_pairwise_probit(), M, comparisons.y)]
    if confidence is not None:
        levels = likert.check_observations(confidence, "confidence")
        if levels.size != comparisons.n_comparisons:
            raise ValueError(f"confidence: expected {comparisons.n_comparisons} levels (one per "
                             f"comparison), got {levels.size}")
        if use_ratings:
            parts.append((likert, M, levels))
    return MixedLikelihood(parts)


class ConfidencePreferenceGP(VariationalGP):
    """Full-rank variational GP on choices and confidence ratings of pairs (module docstring).

    Parameters
    ----------
    kernel : Kernel over the items' inputs.
    likert : the rating likelihood (default ``LikertConfidence(3)``); its levels are the
        ``confidence`` values ``fit`` accepts, its gaps the starting cut points and its lapse
        the (fixed) lapse rate.
    use_ratings : False fits the choices alone even when ratings are passed (the preference-only
        model of Wu et al.'s comparisons; the switch for a rater whose confidence is not
        informative).
    learn_cut_points : True (the default, as Wu et al.) learns the Likert gaps with the kernel
        by MAP-II whenever ratings are fitted; False keeps ``likert``'s cut points.
    priors : mapping name -> Prior over the kernel's parameters and the learned gaps
        (``"part1.gap_1"`` ..); a gap without one gets :func:`gap_prior`.
    max_iter, tol : the inner fit's (:class:`~course_lib.mixed.variational.VariationalGP`). The
        default ``tol`` 1e-8 (relative ELBO change) is looser than VariationalGP's 1e-13: the
        Likert likelihood is not log-concave, and its L-BFGS polish crawls to 1e-13 while the
        predictions have settled to about 1e-5.

    ``fit(X, first, second, choices, confidence=None)``: ``X`` the items' inputs (rows),
    ``first`` / ``second`` row indices of each pair, ``choices`` 1 where the first item was
    preferred. Then ``predict_difference(Xa, Xb)``, ``preference_probability(Xa, Xb)``,
    ``predict(X_test)`` (the latent f), ``optimise_hyperparameters(n_restarts, rng=...)``;
    ``comparisons`` and ``mixed`` hold the data the model was fitted to, ``result`` the ELBO
    with its ledger (part 0 the choices, part 1 the ratings), ``likert`` the rating likelihood
    at its current (after MAP-II: learned) cut points, which the next ``fit`` starts from, and
    ``param_names`` the kernel's parameters followed, when ratings are fitted and
    ``learn_cut_points``, by ``"part1.gap_1"`` ...
    """

    def __init__(self, kernel: Kernel, *, likert: LikertConfidence | None = None,
                 use_ratings: bool = True, learn_cut_points: bool = True,
                 priors: Mapping[str, Prior] | None = None, max_iter: int = 2000,
                 tol: float = 1e-8):
        super().__init__(kernel, unscaled_pairwise_probit(), max_iter=max_iter, tol=tol)
        self.likert = _check_likert(likert)
        self.use_ratings = as_bool(use_ratings, "use_ratings")
        self.learn_cut_points = as_bool(learn_cut_points, "learn_cut_points")
        gap_names = tuple(f"part1.{name}" for name in self.likert.param_names
                          if name.startswith("gap_"))
        if self.learn_cut_points and not np.all(np.diff(self.likert.bounds[:-1], axis=1) > 0):
            raise ValueError("likert: its gap bounds fix the cut points; pass "
                             "learn_cut_points=False or a LikertConfidence with free gaps")
        self._gap_names = gap_names if self.learn_cut_points else ()
        known = self.kernel.param_names + self._gap_names
        for name, prior in (priors or {}).items():
            if name not in known:
                raise ValueError(f"priors: unknown hyper-parameter {name!r}; known: {known}")
            if not isinstance(prior, Prior):
                raise TypeError(f"priors: {name!r} needs a course_lib.gp.priors.Prior, got "
                                f"{type(prior).__name__}")
        self.priors = {name: gap_prior(self.likert) for name in self._gap_names} \
            | dict(priors or {})
        self.comparisons: Comparisons | None = None

    def fit(self, X, first, second, choices, confidence=None) -> "ConfidencePreferenceGP":
        """q(f) for the items in the rows of ``X`` given the pairs' choices (and ratings), at
        the current kernel and cut points. Pairs of items at distinct inputs form a comparison
        graph of many components; the kernel links them, so that report of
        :class:`Comparisons` is not shown here."""
        X = as_inputs(X, "X")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
            try:
                comparisons = Comparisons(X, first, second, choices, kind="pair-binary")
            except (TypeError, ValueError) as err:   # Comparisons calls the answers y
                renamed = renamed_error(err, "y", "choices")
                if renamed is None:
                    raise
                raise renamed from None
        mixed = preference_confidence_likelihood(comparisons, confidence, likert=self.likert,
                                                 use_ratings=self.use_ratings)
        self.likelihood, self.comparisons = mixed, comparisons
        # the gaps are hyper-parameters only when a Likert part is fitted
        self._learned = self._check_learned(self._gap_names if mixed.n_parts == 2 else None)
        return super().fit(X)

    def _set_theta(self, theta):
        super()._set_theta(theta)
        if isinstance(self.likelihood, MixedLikelihood) and self.likelihood.n_parts == 2:
            self.likert = self.likelihood.likelihoods[1]

    def predict_difference(self, Xa, Xb) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance of f(Xa_i) - f(Xb_i) for paired rows: the difference is a
        linear functional of f, so K* = k(X, Xa) - k(X, Xb) and k** = k_aa + k_bb - 2 k_ab
        give it in one prediction (no joint covariance of the test points)."""
        self._require_fit()
        return latent_difference(self.kernel, self.X_train, self.posterior, Xa, Xb)

    def preference_probability(self, Xa, Xb) -> np.ndarray:
        """Pr(Xa_i preferred to Xb_i) = Phi(mu / sqrt(1 + v)) on the latent difference."""
        mean, var = self.predict_difference(Xa, Xb)
        return unscaled_pairwise_probit().predictive_mean(mean, var)

    def __repr__(self):
        return (f"ConfidencePreferenceGP(kernel={self.kernel!r}, likert={self.likert!r}, "
                f"use_ratings={self.use_ratings}, learn_cut_points={self.learn_cut_points})")
