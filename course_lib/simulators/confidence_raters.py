"""Simulated subjects who choose between two items and say how confident they are (Wu, Sanders,
Letham & Guan 2025, §5).

The human data of Wu et al.'s two studies are private: the haptic roughness preferences come
from Driller's PhD thesis (TU Delft, 2024, ch. 5), obtained by Wu et al. on request, and
the robot-gait judgements are 472 answers of one of the authors. Neither is published. The
subjects here are SUBSTITUTES built from what Wu et al. print: the numbers of subjects, pairs
and trials, the rating scales and their mapping to three levels, the over-confident subject's
rating marginals and the gait study's confidence counts. Their latent functions and calibration
noise are this course's choices (stated below), so only the direction of Wu et al.'s results can
be compared, never a number.

Every subject answers on a latent f over stimuli in the unit box:

* the choice y = 1 (the first item preferred) with probability Phi(f(a) - f(b)), Wu et al.'s
  preference likelihood;
* a confidence rating from the strength |f(a) - f(b)|, how well depends on the subject:

  - **calibrated** (:func:`_calibrated_ratings`): 1 + 8 tanh(|df| / _RATING_SCALE) plus
    N(0, noise_sd^2) (the subject's calibration noise), rounded and clipped to 1 .. 9;
  - **over-confident** (:func:`_overconfident_ratings`): ratings that ignore |df| and follow the
    paper's printed marginals for subject #2 (48 % nines, 84 % at least 7, none below 3);
  - **forced shares** (:func:`ranked_levels`): |df| plus noise ranked, the weakest n_0 trials
    at the lowest level and so on, so the level counts are exactly the given ones (the gait
    study's 218 / 176 / 78).

Ratings 1 .. 9 become levels 0 .. 2 as in Wu et al. (1-3 -> 0, 4-6 -> 1, 7-9 -> 2;
:func:`_rating_levels`). A :class:`ConfidenceTrials` holds one subject's trials; its ``items()``
gives the (X, first, second) a model fits.

Studies: :func:`haptic_like_subjects` (5 subjects on a 2-D latent, 50 pairs each, subject #2
over-confident), :func:`gait_like_subject` (one subject, 472 trials on a 3-D latent, levels
1 .. 3 forced to 218 / 176 / 78) and :func:`likert_synthetic_trials` (Wu et al. 2025, §5.2:
f(x) = x, levels set deterministically by |df|).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ..mixed.confidence import ConfidencePreferenceGP
from ..mixed.feedback_likelihoods import LikertConfidence
from ..gp.kernel_base import Kernel
from ..metrics import brier_preference, f1_preference
from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          as_selection, check_width)

__all__ = ["ConfidenceTrials", "haptic_like_subjects", "gait_like_subject",
           "likert_synthetic_trials", "HAPTIC_NOISE_SD", "OVERCONFIDENT_SUBJECT",
           "GAIT_LEVEL_COUNTS", "SYNTHETIC_CUTS", "preference_scores", "ranked_levels",
           "RATER_TOL"]

# 1 + 8 tanh(|df| / _RATING_SCALE): |df| = 0.25, 0.5, 1 give 2.96, 4.70, 7.09 (levels 0, 1, 2)
_RATING_SCALE = 1.0
# calibration noise sd (rating units) of the haptic-like subjects #1 .. #5; #2's is unused
HAPTIC_NOISE_SD = (0.75, 0.0, 0.5, 1.0, 1.5)
OVERCONFIDENT_SUBJECT = 2
# subject #2's ratings (Wu et al. 2025, App. C): 48 % nines, 84 % >= 7, none < 3. The split of
# the other 16 % over 3 .. 8 is ours (Wu et al. print only those three marginals).
_OVERCONFIDENT_SHARES = {9: 0.48, 8: 0.20, 7: 0.16, 6: 0.06, 5: 0.04, 4: 0.04, 3: 0.02}
GAIT_LEVEL_COUNTS = (218, 176, 78)
_GAIT_NOISE_SD = 0.3          # calibration noise of the gait-like subject, in units of |df|
SYNTHETIC_CUTS = (0.5, 1.0)  # Wu et al. §5.2: level 0 for |df| in [0, .5], 1 in [.5, 1], 2 above


@dataclass(frozen=True)
class ConfidenceTrials:
    """One subject's trials: stimuli ``X_first``, ``X_second`` (m, d), ``choices`` (1 = the
    first preferred), raw ``ratings`` (1 .. 9, 1 .. 3, or None where levels were set directly),
    confidence ``levels`` 0 .. l - 1, the true ``latent_difference`` f(a) - f(b), and the
    subject's ``name``."""

    name: str
    X_first: np.ndarray
    X_second: np.ndarray
    choices: np.ndarray
    ratings: np.ndarray | None
    levels: np.ndarray
    latent_difference: np.ndarray

    @property
    def n_trials(self) -> int:
        return int(self.choices.size)

    def items(self, trials=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(X, first, second) for the given trials (default all): indices 0 .. n_trials - 1
        or a boolean mask with one entry per trial (fractions, out-of-range indices and masks
        of another length are refused by name). Every chosen trial's two stimuli are items
        (first stimuli, then second); first / second are the pair's row indices into X."""
        index = np.arange(self.n_trials) if trials is None else \
            as_selection(trials, "trials", self.n_trials, noun="trial")
        X = np.vstack([self.X_first[index], self.X_second[index]])
        first = np.arange(index.size)
        return X, first, first + index.size


def _rating_levels(ratings, *, scale: int = 9, n_levels: int = 3) -> np.ndarray:
    """Ratings 1 .. ``scale`` to levels 0 .. ``n_levels`` - 1 in equal blocks (Wu et al.'s
    1-3 -> 0, 4-6 -> 1, 7-9 -> 2)."""
    scale = as_positive_int(scale, "scale")
    n_levels = as_positive_int(n_levels, "n_levels", minimum=2)
    if scale % n_levels:
        raise ValueError(f"n_levels: {n_levels} levels do not split the scale 1 .. {scale} into "
                         "equal blocks")
    ratings = as_float_array(ratings, "ratings", ndim=1)
    bad = (ratings != np.round(ratings)) | (ratings < 1) | (ratings > scale)
    if np.any(bad):
        raise ValueError(f"ratings: expected whole ratings 1 .. {scale}, row "
                         f"{int(np.argmax(bad))} has {ratings[bad][0]:g}")
    return ((ratings.astype(np.int64) - 1) // (scale // n_levels)).astype(float)


def _calibrated_ratings(strength, noise_sd: float, *, rng: RngLike = None) -> np.ndarray:
    """Ratings 1 .. 9 of a subject whose confidence follows the strength |df|:
    round(1 + 8 tanh(strength / _RATING_SCALE) + N(0, noise_sd^2)), clipped to 1 .. 9."""
    strength = as_float_array(strength, "strength", ndim=1)
    if np.any(strength < 0):
        raise ValueError(f"strength: expected |f(a) - f(b)| >= 0, row "
                         f"{int(np.argmax(strength < 0))} is negative")
    noise_sd = as_positive_float(noise_sd, "noise_sd", allow_zero=True)
    rng = as_rng(rng)
    raw = 1.0 + 8.0 * np.tanh(strength / _RATING_SCALE) + noise_sd * rng.standard_normal(
        strength.size)
    return np.clip(np.round(raw), 1, 9)


def _apportion(shares: dict, total: int) -> dict:
    """Whole counts per key in proportion to ``shares`` summing to ``total`` (largest
    remainder)."""
    keys = sorted(shares)
    exact = np.array([shares[k] for k in keys]) * total / sum(shares.values())
    counts = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - counts), kind="stable")[:total - counts.sum()]:
        counts[i] += 1
    return dict(zip(keys, counts.tolist()))


def _overconfident_ratings(n_trials: int, *, rng: RngLike = None) -> np.ndarray:
    """Ratings 1 .. 9 of Wu et al.'s over-confident subject #2, whatever the pairs: the counts of
    :data:`_OVERCONFIDENT_SHARES` for ``n_trials`` (largest remainder; at 50 trials exactly 24
    nines, 42 ratings >= 7 and none below 3, as printed), in random order."""
    n_trials = as_positive_int(n_trials, "n_trials")
    counts = _apportion(_OVERCONFIDENT_SHARES, n_trials)
    ratings = np.repeat(list(counts), list(counts.values())).astype(float)
    return as_rng(rng).permutation(ratings)


def ranked_levels(strength, counts, noise_sd: float, *, rng: RngLike = None) -> np.ndarray:
    """Levels 0 .. len(counts) - 1 with exactly ``counts[k]`` trials at level k: the trials
    ranked by strength + N(0, noise_sd^2), the weakest ``counts[0]`` at level 0 and so on."""
    strength = as_float_array(strength, "strength", ndim=1)
    counts = as_float_array(counts, "counts", ndim=1)
    if np.any(counts < 0) or np.any(counts != np.round(counts)) or counts.sum() != strength.size:
        raise ValueError(f"counts: expected whole counts >= 0 summing to the {strength.size} "
                         f"trials, got {counts.tolist()}")
    noise_sd = as_positive_float(noise_sd, "noise_sd", allow_zero=True)
    noisy = strength + noise_sd * as_rng(rng).standard_normal(strength.size)
    levels = np.empty(strength.size)
    levels[np.argsort(noisy, kind="stable")] = np.repeat(np.arange(counts.size),
                                                         counts.astype(int))
    return levels


def _haptic_latent(X) -> np.ndarray:
    """The haptic-like latent on [0, 1]^2 (x_1 roughness, x_2 elasticity; ours):
    f(x) = 3 (x_1 - 1/2) + 0.8 x_1 sin(2 pi x_2), range about [-1.5, 2.3]."""
    X = as_float_array(X, "X", ndim=2)
    if X.shape[1] != 2:
        raise ValueError(f"X: expected 2 columns (roughness, elasticity), got {X.shape[1]}")
    return 3.0 * (X[:, 0] - 0.5) + 0.8 * X[:, 0] * np.sin(2.0 * np.pi * X[:, 1])


def _gait_latent(X) -> np.ndarray:
    """The gait-like latent on [0, 1]^3 (ours): a bump of height 3 at (0.6, 0.4, 0.5) with
    width 0.35, minus 1: f(x) = 3 exp(-|x - c|^2 / (2 0.35^2)) - 1."""
    X = as_float_array(X, "X", ndim=2)
    if X.shape[1] != 3:
        raise ValueError(f"X: expected 3 columns (gait parameters), got {X.shape[1]}")
    centre = np.array([0.6, 0.4, 0.5])
    return 3.0 * np.exp(-np.sum((X - centre) ** 2, axis=1) / (2.0 * 0.35 ** 2)) - 1.0


def _pairs_and_choices(latent, n_trials, dim, rng):
    """Uniform stimulus pairs in [0, 1]^dim and choices ~ Bernoulli(Phi(df))."""
    A, B = rng.uniform(size=(n_trials, dim)), rng.uniform(size=(n_trials, dim))
    difference = latent(A) - latent(B)
    choices = (rng.uniform(size=n_trials) < ndtr(difference)).astype(float)
    return A, B, difference, choices


def _generators(rng, n: int) -> list[np.random.Generator]:
    """``n`` independent generators from ``rng`` (each subject its own stream)."""
    return as_rng(rng).spawn(n)


def haptic_like_subjects(*, n_pairs: int = 50, rng: RngLike = None) -> list[ConfidenceTrials]:
    """Five subjects on :func:`_haptic_latent`, ``n_pairs`` uniform pairs each, ratings 1 .. 9 to
    levels 0 .. 2. Subjects #1, #3, #4, #5 are calibrated with noise sds
    :data:`HAPTIC_NOISE_SD` (0.75, 0.5, 1.0, 1.5 rating units); #2
    (:data:`OVERCONFIDENT_SUBJECT`) rates by Wu et al.'s printed marginals whatever the pair.
    Substitutes for Driller's (2024) private data (module docstring)."""
    n_pairs = as_positive_int(n_pairs, "n_pairs")
    subjects = []
    for number, generator in enumerate(_generators(rng, len(HAPTIC_NOISE_SD)), start=1):
        A, B, difference, choices = _pairs_and_choices(_haptic_latent, n_pairs, 2, generator)
        if number == OVERCONFIDENT_SUBJECT:
            ratings = _overconfident_ratings(n_pairs, rng=generator)
        else:
            ratings = _calibrated_ratings(np.abs(difference), HAPTIC_NOISE_SD[number - 1],
                                         rng=generator)
        subjects.append(ConfidenceTrials(f"#{number}", A, B, choices, ratings,
                                         _rating_levels(ratings), difference))
    return subjects


def gait_like_subject(*, n_trials: int = 472, counts=GAIT_LEVEL_COUNTS,
                      rng: RngLike = None) -> ConfidenceTrials:
    """One subject, ``n_trials`` uniform pairs on :func:`_gait_latent`, confidence 1 .. 3 with
    exactly ``counts`` trials per level (Wu et al.'s 218 / 176 / 78 at 472 trials), ranked by
    |df| plus N(0, 0.3^2) (:func:`ranked_levels`). A substitute for the author's private
    robot-gait answers (module docstring)."""
    n_trials = as_positive_int(n_trials, "n_trials")
    generator = as_rng(rng)
    A, B, difference, choices = _pairs_and_choices(_gait_latent, n_trials, 3, generator)
    levels = ranked_levels(np.abs(difference), counts, _GAIT_NOISE_SD, rng=generator)
    return ConfidenceTrials("gait", A, B, choices, levels + 1.0, levels, difference)


def likert_synthetic_trials(n_pairs: int = 30, *, low: float = -2.0, high: float = 2.0,
                            rng: RngLike = None) -> ConfidenceTrials:
    """Wu et al. 2025, §5.2: f(x) = x on [low, high], ``n_pairs`` uniform pairs, choices ~
    Bernoulli(Phi(x_1 - x_2)), levels set deterministically by |x_1 - x_2| in [0, .5], (.5, 1],
    (1, inf) (:data:`SYNTHETIC_CUTS`; ratings None)."""
    n_pairs = as_positive_int(n_pairs, "n_pairs")
    low, high = float(low), float(high)
    if not np.isfinite(low):
        raise ValueError(f"low: expected a finite number, got {low:g}")
    if not high > low:
        raise ValueError(f"high: expected high > low = {low:g}, got {high:g}")
    check_width(low, high, "high")  # numpy's uniform(low, high) needs a finite width
    generator = as_rng(rng)
    A = generator.uniform(low, high, size=(n_pairs, 1))
    B = generator.uniform(low, high, size=(n_pairs, 1))
    difference = (A - B)[:, 0]
    choices = (generator.uniform(size=n_pairs) < ndtr(difference)).astype(float)
    levels = np.searchsorted(np.array(SYNTHETIC_CUTS), np.abs(difference),
                             side="left").astype(float)
    return ConfidenceTrials("synthetic", A, B, choices, None, levels, difference)


# The inner tolerance of the rater explorer's fits. The Likert part is not log-concave, so
# after a short fixed-point phase L-BFGS runs to ``tol``: at 1e-7 one fit of 20 pairs takes
# about 0.3 s on one laptop core (1e-13, VariationalGP's default, several seconds) and its Brier
# scores differ from those at 1e-13 by about 1e-4, far below the differences the explorer shows.
RATER_TOL = 1e-7


def _rating_splits(n_trials: int, n_train: int, n_splits: int, *,
                  rng: RngLike = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` random (train, test) index pairs of ``n_trials`` trials: each a random order
    of the trials, the first ``n_train`` to train and the rest to test."""
    n_trials = as_positive_int(n_trials, "n_trials", minimum=2)
    n_train = as_positive_int(n_train, "n_train", maximum=n_trials - 1)
    n_splits = as_positive_int(n_splits, "n_splits")
    generator = as_rng(rng)
    orders = [generator.permutation(n_trials) for _ in range(n_splits)]
    return [(order[:n_train], order[n_train:]) for order in orders]


def preference_scores(trials: ConfidenceTrials, levels, kernel: Kernel, splits, *,
                      use_ratings: bool, likert: LikertConfidence | None = None,
                      tol: float = RATER_TOL) -> np.ndarray:
    """Brier (Wu et al.'s eq. 3) and F1 of a :class:`~course_lib.mixed.confidence.
    ConfidencePreferenceGP` on each split's test pairs, one row per split: the model (kernel
    fixed, ``likert`` the rating likelihood, default ``LikertConfidence(3)``) fitted to the
    split's training pairs of ``trials``, their choices and, with ``use_ratings``, their
    confidence ``levels`` (one per trial; the subject's own are ``trials.levels``)."""
    if not isinstance(trials, ConfidenceTrials):
        raise TypeError(f"trials: expected a course_lib.simulators.confidence_raters."
                        f"ConfidenceTrials, got {type(trials).__name__}")
    levels = as_float_array(levels, "levels", ndim=1)
    if levels.size != trials.n_trials:
        raise ValueError(f"levels: expected one level per trial ({trials.n_trials}), got "
                         f"{levels.size}")
    scores = []
    for k, (train, test) in enumerate(splits):
        train = as_selection(train, f"splits[{k}][0]", trials.n_trials, noun="trial")
        test = as_selection(test, f"splits[{k}][1]", trials.n_trials, noun="trial")
        X, first, second = trials.items(train)
        model = ConfidencePreferenceGP(kernel, likert=likert, use_ratings=use_ratings,
                                       tol=tol).fit(X, first, second, trials.choices[train],
                                                    levels[train])
        mean, var = model.predict_difference(trials.X_first[test], trials.X_second[test])
        labels = trials.choices[test]
        scores.append([brier_preference(mean, var, labels), f1_preference(mean, var, labels)])
    return np.array(scores)
