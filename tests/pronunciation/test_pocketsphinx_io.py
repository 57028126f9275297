"""What word choice takes from pocketsphinx (``pronunciation._pocketsphinx_io``): the CMU
dictionary the en-us model ships, its language model's unigrams, a decoder's pronunciations of
a word and the words added to it, and which words are fillers. (The searches and their lattices
are tested through word choice, in test_word_choice.py.)"""

import math

import pocketsphinx
import pytest

from course_lib.pronunciation._pocketsphinx_io import (_add_words, _cmu_lines,
                                                       _decoder_pronunciations, _is_filler,
                                                       _word_log_frequency)


@pytest.fixture(scope="module")
def decoder():
    return pocketsphinx.Decoder(loglevel="FATAL", lm=None)


def test_the_shipped_dictionary_has_every_pronunciation_without_stress_marks():
    lines = _cmu_lines()
    assert "hello HH AH L OW" in lines
    assert "read R EH D" in lines and "read(2) R IY D" in lines
    assert not any(character.isdigit() for line in lines[:2000]
                   for character in line.split(" ", 1)[1])


def test_unigram_log_frequencies_order_common_rare_and_unknown_words():
    the, ladder = _word_log_frequency("the"), _word_log_frequency("ladder")
    assert 0 > the > ladder > -math.inf   # log probabilities in nats
    assert _word_log_frequency("The") == the
    assert _word_log_frequency("zzqxv") == -math.inf


def test_a_decoder_gives_every_pronunciation_and_takes_only_the_words_it_lacks(decoder):
    assert _decoder_pronunciations(decoder, "READ") == ["R EH D", "R IY D"]
    assert _decoder_pronunciations(decoder, "laddr") == []
    _add_words(decoder, {"laddr": "L AE D ER", "ladder": "L AA D ER"})
    assert _decoder_pronunciations(decoder, "laddr") == ["L AE D ER"]
    assert _decoder_pronunciations(decoder, "ladder") == ["L AE D ER"]  # kept as shipped


def test_fillers_are_silence_noise_and_the_sentences_ends():
    assert all(map(_is_filler, ["<sil>", "<s>", "</s>", "[NOISE]"]))
    assert not any(map(_is_filler, ["hello", "sil"]))
