"""The word decoder's verdicts on a sentence as a few plain numbers, which the panel reads.

:class:`~course_lib.pronunciation.word_choice.ReadingDecoder` gives each word of the text a
verdict and a margin. The panel (:mod:`course_lib.pronunciation.panel`) reads a sentence's
summary of them beside its GOP features, because speaker-disjoint cross-validation on the
corpus's training speakers found it helps (``experiments/panel_decoder_inputs.py``);
``tools/decode_speechocean762.py`` writes the same numbers for every corpus sentence
(``data/speechocean762/decoder_verdicts.csv``). One function makes them for both, so a new
recording is put on the footing of the sentences the panel learned from.
"""

from __future__ import annotations

import numpy as np

# The sentence numbers the pronunciation panel reads, and decoder_verdicts.csv stores per sentence.
_READING_NUMBER_NAMES = ("as_written_share", "n_said_other", "n_left_out", "n_unclear",
                        "margin_mean", "margin_min")
_COUNTED = {"n_said_other": "said other", "n_left_out": "left out", "n_unclear": "unclear"}
# A word's margin is clipped to +-this (nats per frame) before a sentence's mean and least are
# taken: beyond 10 a verdict is decisive either way (finite margins reach 80 on the corpus's
# training sentences), a few extreme words should not move a sentence's mean, and an infinite
# margin must become a number to be a feature.
_MARGIN_CLIP = 10.0


def reading_numbers(choices) -> dict[str, float] | None:
    """A sentence's word verdicts (:meth:`ReadingDecoder.decode`) as the plain numbers
    :data:`_READING_NUMBER_NAMES`: the share of words heard as written, the words said other,
    left out and unclear, and the mean and least word margin, each margin clipped to
    +-:data:`_MARGIN_CLIP`. None when the recording was not decoded (NaN margins)."""
    verdicts = [choice.verdict for choice in choices]
    margins = np.array([choice.margin for choice in choices], dtype=float)
    if not verdicts or np.isnan(margins).any():
        return None
    clipped = np.clip(margins, -_MARGIN_CLIP, _MARGIN_CLIP)
    return {"as_written_share": verdicts.count("as written") / len(verdicts),
            **{name: verdicts.count(verdict) for name, verdict in _COUNTED.items()},
            "margin_mean": float(clipped.mean()), "margin_min": float(clipped.min())}


def _stand_in_numbers(decoded, n_words: int) -> dict[str, float]:
    """What stands in for :func:`reading_numbers` of a sentence of ``n_words`` words that was
    not decoded: the medians of ``decoded`` (rows of :data:`_READING_NUMBER_NAMES`, the decoded
    training sentences), the counts rounded and within the sentence's words, the share heard as
    written the rest; as the corpus's GOP features do for a sentence that did not align."""
    medians = dict(zip(_READING_NUMBER_NAMES, np.median(np.asarray(decoded, float), axis=0)))
    counts = {name: min(round(medians[name]), n_words) for name in _COUNTED}
    return {**{name: float(value) for name, value in medians.items()}, **counts,
            "as_written_share": 1 - min(sum(counts.values()), n_words) / n_words}
