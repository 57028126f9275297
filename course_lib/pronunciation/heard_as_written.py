"""Was each word heard as written? The word verdict on a scored sentence (lecture 08, section 5).

:func:`word_readings` says of every word of a :class:`~.gop.Pronunciation` whether it was heard
as written (a :class:`WordReading` each, with what the free phone loop heard instead), so a
learner who misread a sentence learns which words; :func:`completeness` is the share heard as
written. The measure (the GOP of the word's worst phone) and its threshold were chosen on the
corpus's training split (``experiments/heard_as_written.py``) and are read from that committed
result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from course_lib.stated_rates import fitted_state

from .gop import _FRAMES_PER_SECOND, PhoneScore, Pronunciation

# the committed calibration on speechocean762's training split (experiments/heard_as_written.py)
_READING_RESULT = "heard_as_written"
_MATCH_MEASURE = "min_phone_gop"
# the en-us model's phones have three states and no skip: no phone is shorter than 30 ms
SHORTEST_PHONE_FRAMES = 3


@dataclass(frozen=True)
class WordReading:
    """Was the ``index``-th word of the text heard as written?

    ``written``: the dictionary's phones the alignment put on the word's frames (``start`` to
    ``end``, in s); ``heard``: what the free phone loop heard over those frames, in order,
    repeats collapsed, "SIL" for silence or noise; ``match``: the GOP of the word's worst phone
    (nats per frame), how much worse its written phone explains its frames than the phones the
    loop found there (0: as well as the loop; in a word replaced by another, or left out and
    squeezed into a few frames of its neighbours' sound, some phone lies far below);
    ``squeezed``: every phone got the aligner's shortest time (:data:`SHORTEST_PHONE_FRAMES`
    frames), so the word had no sound of its own (left out?); ``as_written``: ``match`` at or
    above the threshold, and not squeezed.
    """

    index: int
    word: str
    start: float
    end: float
    written: tuple[str, ...]
    heard: tuple[str, ...]
    match: float
    squeezed: bool
    as_written: bool

    @property
    def said_instead(self) -> str:
        """What you said instead: the loop's phones over the word ("" for a word heard as
        written; "nothing" where the loop heard only silence or the word was squeezed)."""
        if self.as_written:
            return ""
        phones = [] if self.squeezed else [phone for phone in self.heard if phone != "SIL"]
        return " ".join(phones) if phones else "nothing"


def word_readings(scored: Pronunciation, threshold: float | None = None) -> list[WordReading]:
    """Every word of a scored sentence, in order, with the verdict ``match >= threshold`` and
    not squeezed.

    ``threshold`` in nats per frame; None takes the one chosen on speechocean762's training
    split (``experiments/heard_as_written.py``, read from its committed result). The loop's
    phone labels alone do not tell a misread word from a read one (it heard none of the written
    phones in a fifth of the training words every expert scored accurate), so the verdict reads
    the scores instead: the GOP of the word's worst phone, which the training split preferred to
    the word's mean GOP. A word left out gets squeezed between its neighbours, every phone at
    the aligner's shortest, and its worst phone may still score above the threshold (its few
    frames are the edges of its neighbours' sound): a squeezed word is never heard as written.
    A sentence that did not align has no words to read (its ``notes`` say why)."""
    if not isinstance(scored, Pronunciation):
        raise TypeError(f"scored: expected a Pronunciation (what PronunciationScorer.score "
                        f"returns), got {type(scored).__name__}")
    threshold = _committed_threshold() if threshold is None else _check_threshold(threshold)
    if not scored.aligned:
        return []
    readings = []
    for index, phones in _phones_by_word(scored.phones):
        start, end, match = phones[0].start, phones[-1].end, _word_match(phones)
        squeezed = _squeezed(phones)
        readings.append(WordReading(index, phones[0].word, start, end,
                                    tuple(p.phone for p in phones),
                                    _heard_over(scored.heard, start, end), match, squeezed,
                                    match >= threshold and not squeezed))
    return readings


def completeness(readings: list[WordReading]) -> float:
    """The share of a sentence's words heard as written (NaN when there are none: the sentence
    did not align)."""
    if not isinstance(readings, (list, tuple)) or not all(
            isinstance(reading, WordReading) for reading in readings):
        raise TypeError("readings: expected the list word_readings returns")
    return float(np.mean([r.as_written for r in readings])) if readings else math.nan


def _phones_by_word(phones) -> list[tuple[int, list[PhoneScore]]]:
    """(word index, its phones) in the order of :meth:`Pronunciation.words`."""
    return [(index, [p for p in phones if p.word_index == index])
            for index in sorted({p.word_index for p in phones})]


def _word_match(phones: list[PhoneScore]) -> float:
    """The measure :data:`_MATCH_MEASURE` of one word: the least GOP of its phones."""
    return float(min(p.gop for p in phones))


def _squeezed(phones: list[PhoneScore]) -> bool:
    """Every phone at the aligner's shortest: one frame per HMM state."""
    return all(round(_FRAMES_PER_SECOND * (p.end - p.start)) <= SHORTEST_PHONE_FRAMES
               for p in phones)


def _heard_over(segments, start: float, end: float) -> tuple[str, ...]:
    """The loop's phones over [start, end) s: a segment counts when at least half of it lies
    inside or it covers at least half of the span (a neighbour's phone that only grazes the
    word does not); repeats collapsed."""
    heard: list[str] = []
    for phone, first, last in segments:
        inside = min(last, end) - max(first, start)
        if inside > 0 and (2 * inside >= last - first or 2 * inside >= end - start) \
                and heard[-1:] != [phone]:
            heard.append(phone)
    return tuple(heard)


def _check_threshold(threshold) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer,
                                                                 np.floating)) \
            or not math.isfinite(threshold):
        raise ValueError(f"threshold: expected a finite number of nats per frame (a phone "
                         f"GOP), got {threshold!r}")
    return float(threshold)


def _committed_threshold() -> float:
    """The threshold of the committed calibration, refused if it was chosen for another
    measure than this module's."""
    rule = fitted_state("pronunciation.heard_as_written_rule")
    if rule.get("measure") != _MATCH_MEASURE or rule.get("squeezed") != "never heard as written":
        raise RuntimeError(f"experiments/results/{_READING_RESULT}.json calibrates "
                           f"{rule.get('measure')!r}, but word_readings measures "
                           f"{_MATCH_MEASURE!r} and flags squeezed words: re-run "
                           f"python3 course.py experiments --run {_READING_RESULT}")
    return _check_threshold(rule["threshold"])
