"""The experts' judgements of each word (course_lib.data.speechocean762_markup), on small
hand-made records: one expert's markup of a word read as scores of its phones, the alignment of
two phone sequences, and a sentence's word records judged against the corpus's lexicon. The
whole corpus's judgements are checked against the data README in test_speechocean762.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

from course_lib.data import DataError
from course_lib.data.speechocean762 import _corpus_pronunciations
from course_lib.data.speechocean762_markup import (align_phones, _expert_phones,
                                                   _word_judgements)


@pytest.mark.parametrize("text, phones, inserted", [
    ("K AO L", [("K", 2), ("AO", 2), ("L", 2)], 0),
    ("K {AO} L", [("K", 2), ("AO", 1), ("L", 2)], 0),
    ("B EH [L] R", [("B", 2), ("EH", 2), ("R", 2)], 1),
    ("P R (IH0 T IY1) S", [("P", 2), ("R", 2), ("IH", 0), ("T", 0), ("IY", 0), ("S", 2)], 0),
    # the experts' own symbols become CMU phones that share the symbol's score
    ("Z {IR0} OW", [("Z", 2), ("IH", 1), ("R", 1), ("OW", 2)], 0),
    ("K EH {TS}", [("K", 2), ("EH", 2), ("T", 1), ("S", 1)], 0),
    ("(AX) G1 EE", [("AH", 0), ("G", 2), ("ER", 2)], 0),
    # an empty () or {} marks a phone without naming it; an empty [] inserts nothing
    ("P AA [K] ()", [("P", 2), ("AA", 2), ("", 0)], 1),
    ("S IH T IY []", [("S", 2), ("IH", 2), ("T", 2), ("IY", 2)], 0),
    # nested: inserted beats missed beats accented
    ("(P IY1 (R) S)", [("P", 0), ("IY", 0), ("R", 0), ("S", 0)], 0),
    ("AY0 D [ {V} S ]", [("AY", 2), ("D", 2)], 2),
    ("{T (Z)}", [("T", 1), ("Z", 0)], 0),
])
def test_expert_markup_reads_as_scores_of_the_words_own_phones(text, phones, inserted):
    assert _expert_phones(text, "here") == (phones, inserted)


@pytest.mark.parametrize("text", ["N OW0)", "[ IH0 ] IH0 T {", "(K AE]", "P L AA0 N TS ]"])
def test_markup_whose_brackets_do_not_pair_is_unreadable(text):
    assert _expert_phones(text, "here") is None


def test_a_symbol_outside_the_experts_set_is_named():
    with pytest.raises(DataError, match=r"utt 1, word 2, expert 3: 'QX' in 'K QX' is not a phone"):
        _expert_phones("K QX", "utt 1, word 2, expert 3")
    with pytest.raises(DataError, match="expected the phones as a string"):
        _expert_phones(["K"], "here")


def test_alignment_pairs_equal_phones_and_prefers_like_substitutions():
    assert align_phones(("K", "AE", "N"), ("K", "AE", "N")) == (0.0, ((0, 0), (1, 1), (2, 2)))
    # HH dropped: one gap
    assert align_phones(("HH", "IH", "M"), ("IH", "M")) == (1.0, ((0, None), (1, 0), (2, 1)))
    # a vowel for a vowel costs 1, and an unnamed phone matches anything
    assert align_phones(("K", "AE", "N"), ("K", "AH", "N"))[0] == 1.0
    assert align_phones(("P", "AA", "R"), ("P", "AA", ""))[0] == 0.0
    # a vowel against a consonant costs 1.5, still less than deleting one and inserting one
    assert align_phones(("T",), ("IY",)) == (1.5, ((0, 0),))
    assert align_phones((), ("T",)) == (1.0, ((None, 0),))


def word_record(text, accuracy, phones, total=(10.0, 8.4, 10, 9.2, 7)):
    return {"text": text, "accuracy": list(accuracy), "phones": list(phones),
            "total": list(total)}


def judged(words, text="WE BEAR"):
    row = {"utt": "000010001", "split": "train", "text": text, "words": words}
    lexicon = _corpus_pronunciations("WE\tW IY1\nBEAR\tB AE1 R\nBEAR\tB EH1 R\n")
    return _word_judgements([row], lexicon)


def test_word_judgements_score_the_canonical_phones_each_expert_heard():
    we = word_record("we", [10, 10, 10, 10, 9.0], ["W IY"] * 4 + ["W {IY}"])
    bear = word_record("bear", [3, 7, 10, 2, 6],
                       ["B (EH) R", "B EH {R}", "B AR", "(B AR0)", "EH [L] R"])
    first, second = judged([we, bear])
    assert (first.item, first.word_index, first.word, first.phones) == (0, 0, "WE", ("W", "IY"))
    np.testing.assert_array_equal(first.phone_scores, [[2, 2, 2, 2, 2], [2, 2, 2, 2, 1]])
    np.testing.assert_array_equal(first.accuracy, [10, 10, 10, 10, 9])
    # the lexicon's second pronunciation is nearer to what the experts wrote (AR is EH R)
    assert second.phones == ("B", "EH", "R") and second.word_index == 1
    np.testing.assert_array_equal(second.phone_scores, [[2, 2, 2, 0, np.nan],
                                                        [0, 2, 2, 0, 2],
                                                        [2, 1, 2, 0, 2]])
    np.testing.assert_array_equal(second.inserted, [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(second.total, [10.0, 8.4, 10.0, 9.2, 7.0])   # not all whole
    assert not second.phone_scores.flags.writeable and not second.total.flags.writeable


def test_an_unreadable_transcription_leaves_that_experts_column_empty():
    bear = word_record("bear", [3, 7, 10, 2, 6], ["B EH R", "B EH R)", "B EH R", "B EH R",
                                                  "B EH R"])
    we = word_record("we", [10] * 5, ["W IY"] * 5)
    judgement = judged([we, bear])[1]
    assert np.isnan(judgement.phone_scores[:, 1]).all() and np.isnan(judgement.inserted[1])
    assert not np.isnan(np.delete(judgement.phone_scores, 1, axis=1)).any()


@pytest.mark.parametrize("bear, message", [
    (word_record("bear", [3, 7, 10, 2], ["B EH R"] * 5), "expected 5 experts' whole scores"),
    (word_record("bear", [3, 7, 10, 2, 11], ["B EH R"] * 5), "whole scores 0-10"),
    (word_record("bear", [3, 7, 10, 2, 6.5], ["B EH R"] * 5), "whole scores 0-10"),
    (word_record("bear", [3, 7, 10, 2, 6], ["B EH R"] * 4), "expected 5 experts' phones"),
    (word_record("bear", [3, 7, 10, 2, 6], ["B EH R"] * 5, total=[9, 9, 9, 9]),
     "expected 5 experts' scores 0-10, got [9, 9, 9, 9]"),
    (word_record("bear", [3, 7, 10, 2, 6], ["B EH R"] * 5, total=[9, 9, 9, 9, 10.5]),
     "expected 5 experts' scores 0-10"),
    (word_record("pear", [3, 7, 10, 2, 6], ["B EH R"] * 5), "expected the word record of 'BEAR'"),
    (word_record("bear", [3, 7, 10, 2, 6], ["B EH R"] * 4 + ["B QQ R"]),
     "expert 5: 'QQ' in 'B QQ R' is not a phone"),
])
def test_malformed_word_records_are_named(bear, message):
    we = word_record("we", [10] * 5, ["W IY"] * 5)
    with pytest.raises(DataError, match=re.escape(f"utterance 000010001, word 2") + ".*"
                       + re.escape(message)):
        judged([we, bear])


def test_words_must_match_the_text_and_the_lexicon():
    we = word_record("we", [10] * 5, ["W IY"] * 5)
    with pytest.raises(DataError, match="expected a word record for each of the 2 words"):
        judged([we])
    with pytest.raises(DataError, match="word 1: 'YOU' is not in the corpus's lexicon"):
        judged([word_record("you", [10] * 5, ["Y UW"] * 5)], text="YOU")


def test_the_corpus_apostrophe_of_the_word_records_is_the_texts():
    lexicon = _corpus_pronunciations("IT'S\tIH1 T S\n")
    row = {"utt": "u", "split": "test", "text": "IT'S",
           "words": [word_record("it\u02c8s", [10] * 5, ["IH T S"] * 5)]}
    assert _word_judgements([row], lexicon)[0].phones == ("IH", "T", "S")
