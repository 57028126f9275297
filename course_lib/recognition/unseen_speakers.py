"""Measuring a recogniser on speakers it never heard (Units 1-3 on real voices).

A recogniser meant for anyone is measured on people who gave it nothing: no recording in
training and no say in any setting. With a handful of speakers (the Free Spoken Digit Dataset
has six) the whole set is used by leaving one speaker out at a time:

* :func:`speaker_folds`: for each speaker, the indices to train on (every other speaker) and to
  test on (that speaker's recordings);
* :func:`choose_by_speaker_folds`: a setting chosen by leave-one-speaker-out *within* the
  training speakers (nested), so that the speaker being tested never chooses anything;
* :class:`Accuracy`: a count of correct answers with its exact (Clopper and Pearson 1934) 95%
  interval, :func:`per_speaker_accuracy` one per speaker, :func:`most_confused_pairs` the digit
  pairs mixed up most often in either direction.

The interval treats the recordings as independent trials. Takes of one speaker are not
independent of each other (a speaker the models find hard makes many errors), so the spread
between speakers, which :func:`per_speaker_accuracy` shows, is the better guide to how a new
speaker will fare.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..metrics import clopper_pearson_interval
from .metrics import RecognitionReport, _label_array

__all__ = ["Accuracy", "speaker_folds", "per_speaker_accuracy", "most_confused_pairs",
           "choose_by_speaker_folds", "SpeakerFoldChoice"]


@dataclass(frozen=True)
class Accuracy:
    """``correct`` of ``total`` recognised, with the exact 95% interval of the rate."""

    correct: int
    total: int

    def __post_init__(self):
        # clopper_pearson_interval checks both counts and names them
        clopper_pearson_interval(self.correct, self.total)

    @property
    def rate(self) -> float:
        return self.correct / self.total

    @property
    def interval(self) -> tuple[float, float]:
        """The exact 95% interval (:func:`course_lib.metrics.clopper_pearson_interval`)."""
        return clopper_pearson_interval(self.correct, self.total)

    def __str__(self) -> str:
        low, high = self.interval
        return f"{self.rate:.2f} ({self.correct}/{self.total}; 95% {low:.2f}-{high:.2f})"

    @classmethod
    def of(cls, labels, predictions) -> "Accuracy":
        """The accuracy of ``predictions`` against the true ``labels``."""
        labels = _label_array(labels, "labels")
        predictions = _label_array(predictions, "predictions")
        if labels.shape != predictions.shape:
            raise ValueError(f"predictions: expected one per label ({labels.shape[0]}), got "
                             f"{predictions.shape[0]}")
        return cls(int(np.sum(labels == predictions)), int(labels.shape[0]))


def speaker_folds(speakers) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Leave-one-speaker-out: ``(speaker, train_index, test_index)`` for each distinct speaker,
    in sorted order; the train indices are every item of the other speakers."""
    speakers = _label_array(speakers, "speakers")
    distinct = np.unique(speakers)
    if len(distinct) < 2:
        raise ValueError(f"speakers: need at least two distinct speakers to leave one out, got "
                         f"{distinct.tolist()}")
    return [(str(s), np.flatnonzero(speakers != s), np.flatnonzero(speakers == s))
            for s in distinct]


def per_speaker_accuracy(report: RecognitionReport, speakers) -> dict[str, Accuracy]:
    """{speaker: :class:`Accuracy`} of a report's predictions, one entry per distinct speaker
    (``speakers[i]`` is the speaker of the report's item i)."""
    speakers = _label_array(speakers, "speakers")
    if speakers.shape != report.labels.shape:
        raise ValueError(f"speakers: expected one per item of the report ({report.n_items}), "
                         f"got {speakers.shape[0]}")
    return {str(s): Accuracy.of(report.labels[speakers == s], report.predictions[speakers == s])
            for s in np.unique(speakers)}


def most_confused_pairs(report: RecognitionReport, n: int = 3) -> list[tuple[tuple, int]]:
    """The ``n`` unordered pairs of classes mixed up most often, either way round:
    ``[((a, b), C[a, b] + C[b, a]), ...]`` with a < b in class order, most first (ties in class
    order); pairs never confused are left out."""
    confusion = report.confusion
    both = confusion + confusion.T
    pairs = [((report.classes[a].item(), report.classes[b].item()), int(both[a, b]))
             for a in range(len(both)) for b in range(a + 1, len(both)) if both[a, b] > 0]
    pairs.sort(key=lambda pair: -pair[1])        # stable: ties stay in class order
    return pairs[:n]


@dataclass(frozen=True)
class SpeakerFoldChoice:
    """The nested choice of a setting: ``settings[best_index]`` had the highest mean accuracy
    over the inner folds (each training speaker left out in turn); ``inner_accuracy[s, f]`` is
    setting s on inner fold f (speakers ``inner_speakers[f]``)."""

    settings: tuple
    inner_speakers: tuple[str, ...]
    inner_accuracy: np.ndarray
    best_index: int

    @property
    def best(self):
        return self.settings[self.best_index]

    @property
    def mean_accuracy(self) -> np.ndarray:
        return self.inner_accuracy.mean(axis=1)


def choose_by_speaker_folds(fit: Callable, settings: Sequence, items, labels,
                            speakers) -> SpeakerFoldChoice:
    """Choose among ``settings`` by leave-one-speaker-out within the given (training) speakers.

    ``fit(setting, train_items, train_labels)`` returns a recogniser (any
    :class:`~course_lib.recognition.Recogniser`). Each setting is trained on all but one of the
    speakers and tested on that one, for each speaker in turn; the setting with the highest mean
    accuracy wins, ties going to the first listed (list the smaller models first). Pass only the
    training speakers' items: the speaker to be tested must choose nothing.
    """
    settings = tuple(settings)
    if not settings:
        raise ValueError("settings: expected at least one setting to choose from")
    labels = _label_array(labels, "labels")
    speakers = _label_array(speakers, "speakers")
    items = list(items)
    if not len(items) == len(labels) == len(speakers):
        raise ValueError(f"labels, speakers: expected one per item ({len(items)}), got "
                         f"{len(labels)} and {len(speakers)}")
    folds = speaker_folds(speakers)
    accuracy = np.zeros((len(settings), len(folds)))
    for f, (_, train, test) in enumerate(folds):
        for s, setting in enumerate(settings):
            recogniser = fit(setting, [items[i] for i in train], labels[train])
            accuracy[s, f] = recogniser.evaluate([items[i] for i in test], labels[test]).accuracy
    return SpeakerFoldChoice(settings, tuple(name for name, _, _ in folds), accuracy,
                             int(np.argmax(accuracy.mean(axis=1))))
