"""What the recognisers of Units 1-3 are worth on real people: the measured accuracies of
``experiments/fsdd_real_voices.py`` (the Free Spoken Digit Dataset's six speakers, each tested
as a speaker the recogniser never heard), read from its committed result, and the frame-GMM
settings that experiment chooses among (:class:`GMMSetting`).

Wherever the course recognises a student's own recording it states, beside the verdict, how
often that recogniser is right on a real speaker it never heard (:func:`trust_line`), so that a
verdict never reads as more certain than it is. Each recogniser has a short name and the
description its row carries in the result (:data:`RECOGNISERS`); the experiment writes its
rows under these descriptions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..data.digits import digit_features
from ..results import load_result
from .recognisers import GMMRecogniser, fit_gmm_recogniser
from .unseen_speakers import Accuracy

__all__ = ["RECOGNISERS", "GMMSetting", "measured_row", "measured_accuracy", "trust_line"]

_RESULT = "fsdd_real_voices"
# short name -> (part of the result, the row's description): trained on the synthetic speakers
# (the lectures' own recognisers), on five real speakers with the sixth tested, and on the
# speaker's own takes
RECOGNISERS = {
    "synthetic DTW": ("synthetic_to_real", "DTW, 3 synthetic template speakers (Unit 1)"),
    "synthetic GMM": ("synthetic_to_real", "frame GMM, K = 16 (Unit 2)"),
    "synthetic HMM": ("synthetic_to_real", "discrete HMM, 64 symbols, 3 states (Unit 3)"),
    "real DTW": ("leave_one_speaker_out",
                 "DTW, 3 takes per digit of each of the 5 other speakers"),
    "real GMM": ("leave_one_speaker_out", "frame GMM, Unit 2's setting (K = 16)"),
    "real HMM": ("leave_one_speaker_out",
                 "discrete HMM, Unit 3's setting (64 symbols, 3 states)"),
    "real GMM, chosen": ("leave_one_speaker_out",
                         "frame GMM, setting chosen on the 5 training speakers (nested)"),
    "own-voice DTW": ("speaker_dependent", "DTW, 3 of the speaker's own takes per digit"),
}


class GMMSetting(NamedTuple):
    """One frame-GMM recogniser setting of the real-voice comparison: the number of components
    per digit, the covariance type, per-utterance variance normalisation (CMVN), and whether
    the 40 synthetic speakers of ``data/digits`` join the training data."""
    components: int
    covariance: str
    normalise_variance: bool
    synthetic_added: bool

    def fit(self, items, labels, *, rng, **options) -> GMMRecogniser:
        """:func:`fit_gmm_recogniser` with this setting on ``items`` (lists of (T, D) feature
        arrays) and their ``labels``, plus the synthetic speakers if the setting adds them;
        ``options`` (the variance floor, ``max_iter``) pass through."""
        if self.synthetic_added:
            synthetic_items, synthetic_labels, _ = digit_features("all")
            items = list(items) + list(synthetic_items)
            labels = np.concatenate([np.asarray(labels), synthetic_labels])
        return fit_gmm_recogniser(items, labels, self.components, rng=rng,
                                  covariance_type=self.covariance,
                                  normalise_variance=self.normalise_variance, **options)

    def describe(self) -> str:
        """A short label, e.g. ``K=16 diag, CMVN, + synthetic``."""
        return (f"K={self.components} {self.covariance}"
                + (", CMVN" if self.normalise_variance else "")
                + (", + synthetic" if self.synthetic_added else ""))


def measured_row(name: str) -> dict:
    """The committed row of recogniser ``name`` (one of :data:`RECOGNISERS`): its description,
    predictions, per-speaker and pooled counts, confusion matrix and most confused pairs."""
    if name not in RECOGNISERS:
        raise ValueError(f"name: expected one of {list(RECOGNISERS)}, got {name!r}")
    part, description = RECOGNISERS[name]
    found = load_result(_RESULT)["result"][part]
    rows = [found] if isinstance(found, dict) else found
    for row in rows:
        if row["recogniser"] == description:
            return row
    raise LookupError(f"name: the committed result {_RESULT} has no row {description!r} in "
                      f"{part}; re-run python -m experiments.{_RESULT} from a clean tree")


def measured_accuracy(name: str) -> Accuracy:
    """Recogniser ``name``'s pooled accuracy on the real speakers it never heard."""
    pooled = measured_row(name)["pooled"]
    return Accuracy(pooled["correct"], pooled["total"])


def trust_line(name: str) -> str:
    """One sentence for beside a verdict: how often this recogniser was right on real speakers
    it never heard, with the exact 95% interval and the range over the six speakers."""
    row = measured_row(name)
    rates = [entry["rate"] for entry in row["per_speaker"].values()]
    return (f"How far to trust it: {row['recogniser']} was right on {measured_accuracy(name)} "
            f"of the recordings of {len(rates)} real speakers it never heard (FSDD); "
            f"{np.min(rates):.2f} for the hardest speaker, {np.max(rates):.2f} for the easiest.")
