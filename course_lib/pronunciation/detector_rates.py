"""What the word and phone checks can and cannot hear, as measured: the rates every verdict of
``course.py pronounce`` states, flagged or not (lecture 08, sections 3 and 5).

A word is *named* in the panel's feedback when it is listed among the words that pulled the
score down (GOP below the training split's low-word threshold, at most three, lowest first) or
said not to be heard as written (:func:`named_words`, the one rule the panel's output and the
experiment that measures it share). The rates come from the committed result of
``experiments/shown_word_check.py``: the rule scored once on the held-out half of the
synthesised readings (sentences and voices that chose nothing) and on speechocean762's test
speakers, every share with its exact 95% interval (Clopper and Pearson 1934).

The same result carries the neighbour decoder's margins for every word of both halves of the
readings (:func:`decoder_margins`), from which the lecture draws the decoder's trade-off and
the homework chooses its margin.
"""

from __future__ import annotations

import functools

import numpy as np

from ..stated_rates import fitted_state, stated_rate
from ..validation import as_bool, as_float_array, as_positive_int, check_choice

__all__ = ["named_words", "lowest_below", "decoder_margins", "tuned_decoder_margin",
           "word_check_rates"]

# the feedback lists at most this many low-GOP words, so a sentence read badly throughout is
# not answered with a list of every word
_MAX_NAMED_LOW_WORDS = 3
_HALVES = ("tuning", "held_out")
# the words of the readings by what was done to them: read as written in a correct reading,
# replaced by a one-phone neighbour, left out
_ROLES = ("correct", "replaced", "left_out")


def lowest_below(gops, threshold: float, k: int = _MAX_NAMED_LOW_WORDS) -> list[int]:
    """The indices of at most ``k`` values of ``gops`` below ``threshold``, lowest first (a
    stable sort: equal values keep the text's order)."""
    values = as_float_array(gops, "gops", ndim=1, allow_empty=True)
    threshold = float(as_float_array(threshold, "threshold", ndim=0))
    k = as_positive_int(k, "k", minimum=0)
    below = [int(i) for i in np.argsort(values, kind="stable") if values[i] < threshold]
    return below[:k]


def named_words(gops, heard_as_written, low_word: float,
                k: int = _MAX_NAMED_LOW_WORDS) -> list[bool]:
    """For each word of a sentence, whether the feedback names it: one of the ``k`` lowest
    words whose GOP (``gops``, nats per frame) lies below ``low_word``, or a word not heard as
    written (``heard_as_written``, one bool per word)."""
    low = set(lowest_below(gops, low_word, k))
    heard = [as_bool(value, "heard_as_written") for value in heard_as_written]
    if len(heard) != len(gops):
        raise ValueError(f"heard_as_written: one verdict per word expected, got {len(heard)} "
                         f"for {len(gops)} words")
    return [i in low or not as_written for i, as_written in enumerate(heard)]


def _margin(value) -> float:
    """A committed margin: a number, or "+inf" / "-inf" (JSON has no infinities)."""
    return float(value.replace("+", "")) if isinstance(value, str) else float(value)


@functools.cache
def _margins() -> dict:
    return fitted_state("pronunciation.decoder_margins")


@functools.cache
def _rates() -> dict:
    return stated_rate("pronunciation.word_check").value


def decoder_margins(half: str) -> dict[str, np.ndarray]:
    """The neighbour decoder's margin (nats per frame: how far the written word beat its best
    competitor) for every word of one ``half`` of the readings ("tuning" or "held_out"), at
    its tuned penalties, by role: "correct" (words of the correct readings), "replaced",
    "left_out", and "changed" (replaced and left out together). -inf: the word lost outright
    (or was not decoded), so every margin flags it; +inf: nothing competed with it. A word is
    flagged when its margin is below the margin chosen."""
    by_role = _margins()["decoder_margins"][check_choice(half, "half", _HALVES)]
    out = {role: np.array([_margin(v) for v in by_role[role]]) for role in _ROLES}
    out["changed"] = np.concatenate([out["replaced"], out["left_out"]])
    for values in out.values():
        values.setflags(write=False)
    return out


def tuned_decoder_margin() -> float:
    """The margin the tuning half chose (``experiments/misread_readings.py``'s rule), and with
    it the held-out rates the lecture states."""
    return float(_margins()["decoder"]["tuned"]["margin"])


def word_check_rates() -> dict:
    """The word check as shown (:func:`named_words`), measured once: ``held_out_readings``
    ({"replaced", "left_out", "correct"}: the share of such words named, each {k, n, share,
    interval}) with ``what`` it was measured on, and ``corpus_test`` ({"misread": words the
    median expert scored 3 or less, "accurate": words every expert scored 8 or more})."""
    rates = _rates()["word_check"]
    return {"held_out_readings": rates["held_out_readings"], "corpus_test": rates["corpus_test"]}


def _phone_check_rates() -> dict:
    """The "mispronounced" phone flag on the held-out readings: ``replaced_words`` (replaced
    words with at least one phone flagged), ``correct_phones`` (phones of correct readings
    flagged), each {k, n, share, interval}, with ``what`` they were measured on."""
    return _rates()["phone_check"]["held_out_readings"]
