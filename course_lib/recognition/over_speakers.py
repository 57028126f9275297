"""Counting by the speaker: how well a recogniser will do for a new person, and whether one
recogniser beats another on the same takes.

The question a student asks of a recogniser ("will it hear me?") is about a new *person*. Takes
of one speaker are not independent (a voice the models find hard makes many errors), so an
interval over takes, :class:`~course_lib.recognition.Accuracy`, answers a narrower question:
how sure we are of these speakers' own recordings. Two tools count at the speaker instead:

* :class:`SpeakerAccuracy`: each speaker's accuracy is one observation of the population of
  speakers, and the 95% interval for the population's mean accuracy is Student's t over them,
  ``mean +- t(0.975, k - 1) s / sqrt(k)`` with ``s`` the standard deviation of the ``k``
  speakers' accuracies (Student 1908). With six speakers ``t`` is 2.57, not 1.96, and the
  interval is several times wider than the one over takes. It is clipped to [0, 1] and never
  narrower than the exact interval over the pooled takes, which matters only when speakers
  agree more closely than chance allows (all of them perfect, say); how often it holds the
  truth is measured by simulation in ``experiments/fsdd_speaker_intervals.py``.
* :func:`compare_over_speakers`: two recognisers on the same takes, speaker by speaker (an exact
  McNemar test on each speaker's takes) and across speakers (a paired t test on the per-speaker
  differences, and a sign test on how many speakers each wins).

Six speakers support a statement about a population of speakers like them (here: adult men
reading digits into a close microphone) only roughly, and say nothing about voices unlike all
six (women, children, other accents, other microphones).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom, t as student_t

from .metrics import PairedComparison, _label_array, compare_on_same_items
from .unseen_speakers import Accuracy

__all__ = ["SpeakerAccuracy", "SpeakerComparison", "compare_over_speakers"]

_LEVEL = 0.95


def _t_interval(values: np.ndarray) -> tuple[float, float]:
    """Student's t 95% interval for the mean of ``values`` (at least two)."""
    k = len(values)
    half = student_t.ppf(0.5 + _LEVEL / 2, k - 1) * np.std(values, ddof=1) / np.sqrt(k)
    return float(np.mean(values) - half), float(np.mean(values) + half)


def _by_speaker(speakers, n: int, name: str = "speakers") -> np.ndarray:
    speakers = _label_array(speakers, name)
    if speakers.shape[0] != n:
        raise ValueError(f"{name}: expected one speaker per take ({n}), got {speakers.shape[0]}")
    if len(np.unique(speakers)) < 2:
        raise ValueError(f"{name}: an interval over speakers needs at least two speakers, got "
                         f"{np.unique(speakers).tolist()}")
    return speakers


@dataclass(frozen=True)
class SpeakerAccuracy:
    """A recogniser's accuracy counted by the speaker: ``per_speaker`` maps each speaker to
    their :class:`Accuracy` (correct of total takes)."""

    per_speaker: dict

    def __post_init__(self):
        if not isinstance(self.per_speaker, dict) or len(self.per_speaker) < 2:
            raise ValueError("per_speaker: an interval over speakers needs a dict of at least "
                             f"two speakers' Accuracy, got {self.per_speaker!r:.80}")
        for speaker, accuracy in self.per_speaker.items():
            if not isinstance(accuracy, Accuracy):
                raise TypeError(f"per_speaker: {speaker!r} maps to "
                                f"{type(accuracy).__name__}, expected an Accuracy")

    @classmethod
    def of(cls, labels, predictions, speakers) -> SpeakerAccuracy:
        """The accuracy of ``predictions`` against ``labels``, take ``i`` by ``speakers[i]``."""
        labels = _label_array(labels, "labels")
        speakers = _by_speaker(speakers, labels.shape[0])
        predictions = _label_array(predictions, "predictions")
        if predictions.shape != labels.shape:
            raise ValueError(f"predictions: expected one per label ({labels.shape[0]}), got "
                             f"{predictions.shape[0]}")
        return cls({str(s): Accuracy.of(labels[speakers == s], predictions[speakers == s])
                    for s in np.unique(speakers)})

    @classmethod
    def from_counts(cls, counts: dict) -> SpeakerAccuracy:
        """From ``{speaker: {"correct": c, "total": n, ...}}``, as committed results store them."""
        return cls({str(s): Accuracy(int(c["correct"]), int(c["total"]))
                    for s, c in counts.items()})

    @property
    def n_speakers(self) -> int:
        return len(self.per_speaker)

    @property
    def rates(self) -> np.ndarray:
        """Each speaker's accuracy, in the order of ``per_speaker``."""
        return np.array([a.rate for a in self.per_speaker.values()])

    @property
    def rate(self) -> float:
        """The mean of the speakers' accuracies: every speaker counts once."""
        return float(np.mean(self.rates))

    @property
    def takes(self) -> Accuracy:
        """All takes pooled, with the exact interval over takes (about these recordings)."""
        return Accuracy(sum(a.correct for a in self.per_speaker.values()),
                        sum(a.total for a in self.per_speaker.values()))

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval for the mean accuracy of speakers like these: Student's t over the
        speakers' accuracies, clipped to [0, 1], widened where needed to hold the exact
        interval over the pooled takes."""
        low, high = _t_interval(self.rates)
        takes_low, takes_high = self.takes.interval
        return max(0.0, min(low, takes_low)), min(1.0, max(high, takes_high))

    @property
    def hardest(self) -> tuple[str, float]:
        speaker = min(self.per_speaker, key=lambda s: self.per_speaker[s].rate)
        return speaker, self.per_speaker[speaker].rate

    @property
    def easiest(self) -> tuple[str, float]:
        speaker = max(self.per_speaker, key=lambda s: self.per_speaker[s].rate)
        return speaker, self.per_speaker[speaker].rate

    def __str__(self) -> str:
        low, high = self.interval
        return (f"{self.rate:.2f} over {self.n_speakers} speakers (95% {low:.2f}-{high:.2f}; "
                f"per speaker {self.hardest[1]:.2f}-{self.easiest[1]:.2f})")


@dataclass(frozen=True)
class SpeakerComparison:
    """Two recognisers on the same takes of the same speakers: ``per_speaker`` maps each
    speaker to its exact McNemar comparison; ``differences`` are the per-speaker accuracy
    differences (first minus second); ``t_p_value`` the paired t test's two-sided p over
    speakers, ``interval`` the t 95% interval of the mean difference, and ``sign_p_value``
    the exact two-sided sign test's (speakers with no difference left out)."""

    per_speaker: dict
    differences: np.ndarray
    t_p_value: float
    interval: tuple[float, float]
    sign_p_value: float

    @property
    def first_wins(self) -> int:
        return int(np.sum(self.differences > 0))

    @property
    def second_wins(self) -> int:
        return int(np.sum(self.differences < 0))

    def significant_for(self, first: bool, level: float = 0.05) -> list[str]:
        """Speakers on whose takes McNemar's test favours the first (or second) at ``level``."""
        return [s for s, c in self.per_speaker.items() if c.p_value < level
                and (c.first_only > c.second_only) == first]

    def __str__(self) -> str:
        low, high = self.interval
        k = len(self.differences)
        return (f"first better on {self.first_wins} of {k} speakers (McNemar p < 0.05 on "
                f"{len(self.significant_for(True))}), second on {self.second_wins} (on "
                f"{len(self.significant_for(False))}); mean difference "
                f"{np.mean(self.differences):+.3f} (95% {low:+.3f} to {high:+.3f}; paired t "
                f"over speakers p = {self.t_p_value:.2g}, sign test p = {self.sign_p_value:.2g})")


def compare_over_speakers(labels, first, second, speakers) -> SpeakerComparison:
    """Is ``first`` better than ``second`` (both predictions of ``labels``) for speakers like
    these? McNemar's exact test on each speaker's takes (:func:`compare_on_same_items`), then
    across speakers a paired t test on the per-speaker accuracy differences (``k - 1`` degrees
    of freedom) and an exact sign test on how many speakers each recogniser wins."""
    labels = _label_array(labels, "labels")
    speakers = _by_speaker(speakers, labels.shape[0])
    first, second = _label_array(first, "first"), _label_array(second, "second")
    for name, values in (("first", first), ("second", second)):
        if values.shape != labels.shape:
            raise ValueError(f"{name}: expected one prediction per label ({labels.shape[0]}), "
                             f"got {values.shape[0]}")
    per_speaker: dict[str, PairedComparison] = {}
    differences = []
    for s in np.unique(speakers):
        mine = speakers == s
        per_speaker[str(s)] = compare_on_same_items(labels[mine], first[mine], second[mine])
        differences.append(np.mean(first[mine] == labels[mine])
                           - np.mean(second[mine] == labels[mine]))
    differences = np.asarray(differences)
    spread = np.std(differences, ddof=1)
    k = len(differences)
    if spread == 0:         # every speaker moved by the same amount: no spread to test against
        t_p = 1.0 if np.all(differences == 0) else 0.0
    else:
        t_p = float(2 * student_t.sf(abs(np.mean(differences)) / (spread / np.sqrt(k)), k - 1))
    wins, losses = int(np.sum(differences > 0)), int(np.sum(differences < 0))
    sign_p = 1.0 if wins + losses == 0 else \
        min(1.0, 2.0 * float(binom.cdf(min(wins, losses), wins + losses, 0.5)))
    return SpeakerComparison(per_speaker, differences, t_p, _t_interval(differences), sign_p)
