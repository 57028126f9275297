"""What the recognisers of Units 1-3 are worth on real people: the measured accuracies of
``experiments/fsdd_real_voices.py`` (the Free Spoken Digit Dataset's six speakers, each tested
as a speaker the recogniser never heard), read from its committed result, and the frame-GMM
settings that experiment chooses among (:class:`GMMSetting`).

Wherever the course recognises a student's own recording it states, beside the verdict, how
often that recogniser is right on a real speaker it never heard (:func:`trust_line`): the mean
over the six speakers with its interval over speakers, whose coverage
``experiments/fsdd_speaker_intervals.py`` measured by simulation, so that a verdict never reads
as more certain than it is. Before it says anything, :func:`trust_line` checks that the take
under the verdict is not one the recogniser was trained on (:func:`_check_unheard`); on the
synthetic stand-in voice, :func:`stand_in_line` gives the rate on the other synthetic test
speakers beside it. Each recogniser has a short name and the
description its row carries in the result (:data:`RECOGNISERS`); the experiment writes its
rows under these descriptions.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import numpy as np

from ..data.digits import digit_features
from ..stated_rates import stated_rate
from .recognisers import GMMRecogniser, fit_gmm_recogniser
from .over_speakers import SpeakerAccuracy
from .unseen_speakers import Accuracy

__all__ = ["RECOGNISERS", "GMMSetting", "measured_row", "measured_accuracy",
           "measured_over_speakers", "trust_line", "stand_in_line"]

_RESULT = "fsdd_real_voices"
_METHOD = "t over speakers"
# stated where the FSDD numbers are: who the six are, and the chosen GMM's history
_WHO = "six adult men (FSDD)"
_HISTORY = {"real GMM, chosen": " Its grid of eight settings was fixed after an earlier look at "
                                "all six speakers had shown which changes help "
                                "(experiments/fsdd_real_voices.md, E1.1)."}
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

    def training_data(self, items, labels, *, leave_out=()) -> tuple[list, np.ndarray]:
        """What :meth:`fit` trains on: ``items`` and ``labels``, plus the synthetic speakers if
        the setting adds them, except those named in ``leave_out`` (e.g. a stand-in's)."""
        items, labels = list(items), np.asarray(labels)
        if self.synthetic_added:
            synthetic_items, synthetic_labels, speakers = digit_features("all")
            keep = np.flatnonzero(~np.isin(speakers, list(leave_out)))
            items += [synthetic_items[i] for i in keep]
            labels = np.concatenate([labels, synthetic_labels[keep]])
        return items, labels

    def fit(self, items, labels, *, rng, leave_out=(), **options) -> GMMRecogniser:
        """:func:`fit_gmm_recogniser` with this setting on :meth:`training_data` (``items``,
        lists of (T, D) feature arrays, and their ``labels``); ``options`` (the variance floor,
        ``max_iter``) pass through."""
        items, labels = self.training_data(items, labels, leave_out=leave_out)
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
    found = stated_rate("recognition.real_voices").value[part]
    rows = [found] if isinstance(found, dict) else found
    for row in rows:
        if row["recogniser"] == description:
            return row
    raise LookupError(f"name: the committed result {_RESULT} has no row {description!r} in "
                      f"{part}; re-run python3 course.py experiments --run {_RESULT}")


def measured_accuracy(name: str) -> Accuracy:
    """Recogniser ``name``'s pooled accuracy on the real speakers it never heard."""
    pooled = measured_row(name)["pooled"]
    return Accuracy(pooled["correct"], pooled["total"])


def measured_over_speakers(name: str) -> SpeakerAccuracy:
    """Recogniser ``name``'s accuracy on the six real speakers it never heard, by the speaker."""
    return SpeakerAccuracy.from_counts(measured_row(name)["per_speaker"])


def _coverage(name: str) -> dict:
    """How often the interval over six speakers held the truth in the simulation of an
    FSDD-like population for this row (experiments/fsdd_speaker_intervals.py)."""
    return stated_rate("recognition.speaker_interval_coverage").value[name]["coverage"][_METHOD]


def _check_unheard(trained_on, tested) -> None:
    """Raise ValueError if a take in ``tested`` (feature arrays) is, byte for byte, one the
    recogniser was trained on (``trained_on``): a verdict on it would measure memory."""
    seen = {_fingerprint(x) for x in trained_on}
    heard = [k for k, x in enumerate(tested) if _fingerprint(x) in seen]
    if heard:
        raise ValueError(f"tested: take(s) {heard[:5]} are in the recogniser's training data; "
                         "a verdict on a take it heard says nothing about a new voice")


def _fingerprint(features) -> tuple:
    array = np.ascontiguousarray(features, dtype=float)
    return array.shape, hashlib.blake2b(array.tobytes(), digest_size=16).digest()


def trust_line(name: str, *, trained_on, tested) -> str:
    """One sentence for beside a verdict on ``tested`` (feature arrays) by recogniser ``name``
    (trained on ``trained_on``): how often it was right on real speakers it never heard, as the
    mean over the six speakers with its 95% interval over speakers (and how often such an
    interval held the truth in simulation), the hardest and easiest speaker, and the exact
    interval over these speakers' takes. Raises ValueError if a tested take was trained on."""
    _check_unheard(trained_on, tested)
    row, accuracy = measured_row(name), measured_over_speakers(name)
    low, high = accuracy.interval
    coverage = _coverage(name)
    return (f"How far to trust it: {row['recogniser']} was right on {accuracy.rate:.2f} of the "
            f"words of {_WHO} it never heard (mean over the speakers); for speakers like them, "
            f"95% {low:.2f}-{high:.2f} (Student's t over six speakers: such intervals held the "
            f"truth in {coverage['held']:,} of {coverage['draws']:,} simulated draws); "
            f"{accuracy.hardest[1]:.2f} for the hardest speaker, {accuracy.easiest[1]:.2f} for "
            f"the easiest. Over these six men's own {accuracy.takes.total:,} takes: "
            f"{accuracy.takes}.{_HISTORY.get(name, '')}")


def stand_in_line(recogniser: str, accuracy: SpeakerAccuracy) -> str:
    """One sentence for beside a verdict on the synthetic stand-in voice: the voice is
    synthetic, and ``recogniser`` was right on ``accuracy`` of the other synthetic test
    speakers, none of them in its training data."""
    if not isinstance(accuracy, SpeakerAccuracy):
        raise TypeError(f"accuracy: expected a SpeakerAccuracy, got {type(accuracy).__name__}")
    low, high = accuracy.interval
    return (f"This voice is synthetic (an espeak-ng stand-in): on {accuracy.n_speakers} other "
            f"synthetic test speakers, none in its training data, {recogniser} was right on "
            f"{accuracy.rate:.2f} (95% over speakers {low:.2f}-{high:.2f}; {accuracy.takes.correct}"
            f"/{accuracy.takes.total} takes). For a real voice, read the line measured on real "
            "speakers.")
