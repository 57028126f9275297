"""The scorer of the shipped features (course_lib.pronunciation.corpus_scorer), and the plain
records of the data layer held to the scorer's own types: course_lib.data knows no model, so its
copies of the GOP feature names, the phone set and the phone and threshold fields must stay the
scorer's (issue 60)."""

import dataclasses

import numpy as np
import pytest

from course_lib.data import DataError
from course_lib.data.speechocean762 import (RecipePhone, RecipeThresholds, load_recipe_thresholds,
                                            load_speechocean762)
from course_lib.data.speechocean762 import _GOP_FEATURE_NAMES as DATA_GOP_FEATURE_NAMES
from course_lib.data.speechocean762_markup import _CMU_PHONES, _CMU_VOWELS
from course_lib.pronunciation import GopThresholds, PhoneScore, Pronunciation, gop_features
from course_lib.pronunciation.corpus_scorer import _words_to_add
from course_lib.pronunciation.gop import _GOP_FEATURE_NAMES, _VOWELS, PHONES


def _fields(record_type) -> list[tuple[str, object]]:
    return [(field.name, field.default) for field in dataclasses.fields(record_type)]


def test_the_data_layers_copies_are_the_scorers_own():
    assert DATA_GOP_FEATURE_NAMES == _GOP_FEATURE_NAMES
    assert load_speechocean762("accuracy", "gop").feature_names == _GOP_FEATURE_NAMES
    assert _CMU_PHONES == PHONES and _CMU_VOWELS == _VOWELS
    # the scorer's types are the shipped records, adding no field of their own
    assert issubclass(PhoneScore, RecipePhone) and issubclass(GopThresholds, RecipeThresholds)
    # NaN defaults compare by their repr: NaN != NaN
    assert repr(_fields(RecipePhone)) == repr(_fields(PhoneScore))
    assert _fields(RecipeThresholds) == _fields(GopThresholds)


def test_a_shipped_phone_reads_as_a_scored_one():
    phones = load_speechocean762().example_phones()[2521]
    as_scored = [PhoneScore(**dataclasses.asdict(phone)) for phone in phones]
    shipped = Pronunciation("", tuple(phones), True, 0.0, 0.0, ()).words()
    assert shipped == Pronunciation("", tuple(as_scored), True, 0.0, 0.0, ()).words()


def test_the_shipped_thresholds_score_as_the_scorers_own():
    shipped = load_recipe_thresholds()
    own = GopThresholds(*dataclasses.astuple(shipped))
    sentence = Pronunciation("", tuple(load_speechocean762().example_phones()[2521]), True,
                             -5.0, -4.0, ())
    np.testing.assert_array_equal(gop_features(sentence, shipped), gop_features(sentence, own))
    unaligned = Pronunciation("", (), False, np.nan, np.nan, ())
    np.testing.assert_array_equal(gop_features(unaligned, shipped), own.medians)


class Dictionary:
    def __init__(self, words):
        self.words = words

    def pronunciation(self, word):
        return self.words.get(word)


def test_only_the_words_the_dictionary_lacks_come_from_the_lexicon():
    scorer = Dictionary({"WE": "W IY"})
    lexicon = {"WE": "W EH", "LIYA": "L IY AH", "UNUSED": "AH"}
    assert _words_to_add(scorer, ["WE LIYA", "LIYA"], lexicon) == {"LIYA": "L IY AH"}
    with pytest.raises(DataError, match=r"no pronunciation for \['JUMPPED'\]"):
        _words_to_add(scorer, ["WE JUMPPED"], lexicon)
