"""A sentence's numbers from the word decoder's verdicts (course_lib.pronunciation.decoder_numbers):
counts and clipped margins by hand, None for a recording not decoded, the columns the corpus
file stores, and the medians that stand in for a sentence not decoded."""

from __future__ import annotations

import math

import numpy as np
import pytest

from course_lib.pronunciation import decoder_numbers
from course_lib.pronunciation.word_choice import WordChoice


def _choice(verdict: str, margin: float) -> WordChoice:
    return WordChoice(0, "CAT", verdict, "CAT", margin, 0.0, 0.3)


def test_reading_numbers_count_the_verdicts_and_clip_the_margins():
    choices = [_choice("as written", math.inf), _choice("said other", -0.5),
               _choice("left out", -math.inf), _choice("as written", 2.5)]
    numbers = decoder_numbers.reading_numbers(choices)
    assert list(numbers) == list(decoder_numbers._READING_NUMBER_NAMES)
    # +-inf become +-10 nats per frame: (10 - 0.5 - 10 + 2.5) / 4 and -10
    assert numbers == {"as_written_share": 0.5, "n_said_other": 1, "n_left_out": 1,
                       "n_unclear": 0, "margin_mean": pytest.approx(0.5, abs=1e-15),
                       "margin_min": -decoder_numbers._MARGIN_CLIP}
    # a recording the grammar could not explain (NaN margins) has no numbers
    assert decoder_numbers.reading_numbers([_choice("unclear", math.nan)] * 3) is None


def test_the_numbers_are_the_columns_the_corpus_file_stores():
    from course_lib.data.speechocean762 import load_decoder_verdicts

    assert load_decoder_verdicts().feature_names == decoder_numbers._READING_NUMBER_NAMES


def test_stand_in_numbers_are_medians_with_whole_counts_within_the_sentence():
    decoded = np.array([[1.0, 0, 0, 0, 4.0, 1.0], [0.75, 1, 0, 0, 2.0, -3.0],
                        [0.5, 2, 0, 0, 1.0, -5.0]])
    numbers = decoder_numbers._stand_in_numbers(decoded, n_words=4)
    # medians 0.75 / 1 / 0 / 0 / 2.0 / -3.0; the share is the rest of one said other in four
    assert numbers == {"as_written_share": 0.75, "n_said_other": 1, "n_left_out": 0,
                       "n_unclear": 0, "margin_mean": 2.0, "margin_min": -3.0}
    # a one-word sentence cannot hold more counted words than it has
    one = decoder_numbers._stand_in_numbers(np.array([[0.0, 3, 0, 0, 0.0, 0.0]]), n_words=1)
    assert one["n_said_other"] == 1 and one["as_written_share"] == 0.0
