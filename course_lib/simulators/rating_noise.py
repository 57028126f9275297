"""How much a subject's confidence ratings help when they follow the strength of the pair less
and less (Unit 7, the over-confident rater; Wu, Sanders, Letham & Guan 2025, §5.1).

A :class:`RatingNoiseStudy` keeps one subject's pairs, true strengths |f(a) - f(b)| and choices,
and deals the confidence levels out again for any histogram and rating noise sd
(:func:`~course_lib.simulators.confidence_raters.ranked_levels`, with fixed noise draws). It
scores the preference model with the ratings against the model with the choices alone on fixed
splits (Brier, Wu et al.'s eq. 3, and F1; :func:`~course_lib.simulators.confidence_raters.
preference_scores`).

A split's fit with the ratings depends only on the levels of its training pairs, and one takes
about half a second, so each is computed once and kept. :meth:`RatingNoiseStudy.table` writes
the kept fits down; a study built with such a table (``fitted``) reads a fit from it instead of
computing it. The table carries a fingerprint of everything a fit depends on (the trials, the
kernel, the rating likelihood, the splits and the tolerance) and is used only by a study whose
fingerprint is the same. ``experiments/overconfident_rater_fits.py`` fits lecture 07's subject
on every value of its explorer's noise slider ahead, so that moving the slider draws at once.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping

import numpy as np

from ..gp.kernel_base import Kernel
from ..mixed.feedback_likelihoods import LikertConfidence
from ..validation import RngLike, as_positive_float, as_rng
from .confidence_raters import (RATER_TOL, ConfidenceTrials, preference_scores, ranked_levels,
                                _rating_splits)

__all__ = ["RatingNoiseStudy"]


def _digits(values) -> str:
    """Numbers written to 12 significant digits: the last bits of a value computed through
    exp or log differ between BLAS and CPU targets, and must not change a fingerprint."""
    return ",".join(f"{value:.12g}" for value in np.ravel(values))


class RatingNoiseStudy:
    """One subject's pairs and choices, with confidence levels dealt out again at will.

    Parameters
    ----------
    trials : the subject's :class:`~course_lib.simulators.confidence_raters.ConfidenceTrials`.
    kernel : the preference model's kernel (fixed).
    n_train, n_splits : each of ``n_splits`` fixed random splits trains on ``n_train`` pairs
        and tests on the rest (:func:`~course_lib.simulators.confidence_raters._rating_splits`).
    likert : the rating likelihood (default ``LikertConfidence(3)``, Wu et al.'s three levels).
    tol : the fits' tolerance (``RATER_TOL``).
    rng : draws the splits, then the seed of the rating noise (the same at every setting, so a
        new noise sd changes the levels, never the luck).
    fitted : a :meth:`table` of this study's fits made ahead, or None. A table made for other
        trials, kernel, splits or tolerance is not used (with a warning): every fit is computed.

    ``levels(counts, noise_sd)`` deals the levels; ``with_ratings(levels)`` and the attribute
    ``choices_only`` are the (Brier, F1) rows of the two models on the splits.
    """

    def __init__(self, trials: ConfidenceTrials, kernel: Kernel, *, n_train: int = 20,
                 n_splits: int = 4, likert: LikertConfidence | None = None,
                 tol: float = RATER_TOL, rng: RngLike = 0, fitted: Mapping | None = None):
        if not isinstance(trials, ConfidenceTrials):
            raise TypeError(f"trials: expected a course_lib.simulators.confidence_raters."
                            f"ConfidenceTrials, got {type(trials).__name__}")
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel: expected a course_lib.gp Kernel, got "
                            f"{type(kernel).__name__}")
        self.likert = LikertConfidence(3) if likert is None else likert
        if not isinstance(self.likert, LikertConfidence) or self.likert.n_levels != 3:
            raise ValueError("likert: expected a LikertConfidence with 3 levels (Wu et al.'s "
                             "ratings 1-3, 4-6, 7-9)")
        self.trials, self.kernel = trials, kernel
        self.tol = as_positive_float(tol, "tol")
        generator = as_rng(rng)
        self.splits = _rating_splits(trials.n_trials, n_train, n_splits, rng=generator)
        self._noise_seed = int(generator.integers(2 ** 32))
        self.strength = np.abs(trials.latent_difference)
        self.fingerprint = self._fingerprint()
        self._fits: dict[tuple[int, bytes], np.ndarray] = {}   # (split, training levels) -> row
        self.choices_only = self._read_table(fitted)
        if self.choices_only is None:
            self.choices_only = preference_scores(trials, trials.levels, kernel, self.splits,
                                                  use_ratings=False, likert=self.likert,
                                                  tol=self.tol)

    def _fingerprint(self) -> str:
        trials = self.trials
        parts = [type(self.kernel).__name__, _digits(self.kernel.theta),
                 _digits(self.likert.theta), _digits(self.tol), _digits(trials.X_first),
                 _digits(trials.X_second), _digits(trials.choices),
                 *(_digits(np.concatenate(split)) for split in self.splits)]
        return hashlib.sha256(";".join(parts).encode()).hexdigest()

    def _key(self, split: int, levels: np.ndarray) -> tuple[int, bytes]:
        return split, levels[self.splits[split][0]].astype(np.int8).tobytes()

    def _read_table(self, fitted) -> np.ndarray | None:
        """Keep the fits of a matching table; its choices-only rows, or None."""
        if fitted is None:
            return None
        if not isinstance(fitted, Mapping) or not {"fingerprint", "choices_only", "fits"} \
                <= set(fitted):
            raise ValueError("fitted: expected a table from RatingNoiseStudy.table() (keys "
                             "fingerprint, choices_only, fits), or None")
        if fitted["fingerprint"] != self.fingerprint:
            warnings.warn("fitted: the table was made for other trials, kernel, splits or "
                          "tolerance; every fit is computed instead", stacklevel=3)
            return None
        for fit in fitted["fits"]:
            key = fit["split"], np.asarray(fit["training_levels"], dtype=np.int8).tobytes()
            self._fits[key] = np.asarray(fit["scores"], dtype=float)
        return np.asarray(fitted["choices_only"], dtype=float)

    def levels(self, counts, noise_sd: float) -> np.ndarray:
        """The levels of all trials: ``counts[k]`` at level k, ranked by strength plus
        N(0, ``noise_sd``^2) (the same draws at every setting)."""
        return ranked_levels(self.strength, counts, noise_sd,
                             rng=np.random.default_rng(self._noise_seed))

    def with_ratings(self, levels) -> np.ndarray:
        """(Brier, F1) of the model with the ratings ``levels`` on each split (one row each)."""
        levels = np.asarray(levels)
        rows = []
        for k, split in enumerate(self.splits):
            key = self._key(k, levels)
            if key not in self._fits:
                self._fits[key] = preference_scores(self.trials, levels, self.kernel, [split],
                                                    use_ratings=True, likert=self.likert,
                                                    tol=self.tol)[0]
            rows.append(self._fits[key])
        return np.array(rows)

    def table(self) -> dict:
        """Every fit made so far, with the fingerprint: the ``fitted`` of a later study."""
        return {"fingerprint": self.fingerprint, "choices_only": self.choices_only.tolist(),
                "fits": [{"split": split, "training_levels": np.frombuffer(levels,
                                                                         np.int8).tolist(),
                          "scores": scores.tolist()}
                         for (split, levels), scores in sorted(self._fits.items())]}
