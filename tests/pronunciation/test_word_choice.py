"""The neighbour-grammar decoder of course_lib.pronunciation.word_choice.

- ``neighbours`` against a brute-force edit distance over every word of a small dictionary
  (the closed form: distance exactly 1 from some pronunciation, 0 from none), stress ignored,
  homophones out; and on the CMU dictionary the issue's own pairs (played/prayed, glass/class,
  cold/gold), and no letter name ("v", "c") or letter's plural ("i's") among them.
- The JSGF that ``ReadingDecoder.grammar`` shows is accepted by pocketsphinx, and its graph
  accepts and refuses the same word sequences as the graph the decoder runs.
- Three committed clips of ``tests/data/misread`` (espeak-ng): a reading as written passes
  every word; a left-out word and a replaced word are reported at their own index. The margin
  and penalties here are development values, not the tuned ones (those come from
  ``experiments/misread_readings.py`` on the tuning half of a larger set); the clips assert
  only what any sensible setting must give, on words whose verdict was the same with
  neighbour penalties of 0, 10 and 25 nats (margin 0, unclear 30, omission 40).
- Bad input: errors that name the argument.
"""

from __future__ import annotations

import json
import math
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from scipy.io import wavfile

from course_lib.pronunciation import word_choice
from course_lib.pronunciation.gop import PronunciationScorer
from course_lib.pronunciation.word_choice import (_LEFT_OUT_WORD, _UNCLEAR_WORD, _VERDICTS,
                                                  PronouncingDictionary, ReadingDecoder,
                                                  WordChoice, _nearest_neighbours, neighbours)

CLIPS = Path(__file__).resolve().parents[1] / "data" / "misread"
# development values (nats per frame, nats, nats): see the module docstring
TRIAL = {"margin": 0.0, "unclear_penalty": 30.0, "omission_penalty": 40.0,
         "neighbour_penalty": 10.0}

SMALL = {"PLAYED": "P L EY1 D", "PRAYED": "P R EY1 D", "PREYED": "P R EY1 D",
         "PLAY": "P L EY1", "PLATE": "P L EY1 T", "LAID": "L EY1 D", "PLEAD": "P L IY1 D",
         "SPLAYED": "S P L EY1 D", "PAID": "P EY1 D", "PLAYS": "P L EY1 Z",
         "READ": ["R IY1 D", "R EH1 D"], "REED": "R IY0 D", "RED": "R EH1 D", "RID": "R IH1 D",
         "ROD": "R AA1 D", "RIDE": "R AY1 D", "GREED": "G R IY1 D", "BREAD": "B R EH1 D"}


def _distance(a: tuple, b: tuple) -> int:
    """Levenshtein distance between two phone sequences, the textbook table."""
    table = np.arange(len(b) + 1)
    for i, x in enumerate(a, start=1):
        previous, table[0] = table.copy(), i
        for j, y in enumerate(b, start=1):
            table[j] = min(previous[j] + 1, table[j - 1] + 1, previous[j - 1] + (x != y))
    return int(table[-1])


def _phones(entry) -> list[tuple]:
    return [tuple(p.translate(str.maketrans("", "", "012")).split())
            for p in ([entry] if isinstance(entry, str) else entry)]


@pytest.fixture(scope="module")
def decoder():
    # one model for the whole file: loading one takes about a second
    return ReadingDecoder(PronunciationScorer())


def test_neighbours_are_one_edit_away_by_brute_force():
    for word in ("PLAYED", "READ", "PLAY", "RED"):
        expected = sorted(
            other.lower() for other, entry in SMALL.items() if other != word
            and min(_distance(a, b) for a, b in product(_phones(SMALL[word]), _phones(entry))) == 1
            and not set(_phones(SMALL[word])) & set(_phones(entry)))
        assert list(neighbours(word, SMALL)) == expected, word
    # stress ignored: REED (R IY0 D) is READ (R IY1 D), a homophone, not a neighbour; so is RED
    assert "reed" not in neighbours("READ", SMALL) and "red" not in neighbours("READ", SMALL)
    # homophones: PREYED is PRAYED, so neither is a neighbour of the other
    assert "preyed" not in neighbours("PRAYED", SMALL) and "prayed" in neighbours("PLAYED", SMALL)


def test_nearest_neighbours_rank_same_class_changes_first():
    frequency = {"prayed": -9.0, "plate": -8.0, "plays": -7.0, "splayed": -12.0}
    nearest = _nearest_neighbours("PLAYED", SMALL, 3,
                                 log_frequency=lambda w: frequency.get(w, -math.inf))
    # D -> T (stops) and L -> R (liquids) first, the more common first; then an insertion
    # (S); D -> Z (stop to fricative) last; the words it does not know (-inf) never
    assert nearest == ("plate", "prayed", "splayed")
    assert _nearest_neighbours("PLAYED", SMALL, 9, log_frequency=lambda w: frequency.get(
        w, -math.inf)) == ("plate", "prayed", "splayed", "plays")


def test_cmu_neighbours_hold_the_issues_pairs(decoder):
    cmu = None      # the CMU dictionary
    slots = dict(decoder.alternatives("played glass cold"))
    for word, other in (("played", "prayed"), ("glass", "class"), ("cold", "gold")):
        assert other in neighbours(word, cmu)
        # and among the nearest the grammar holds
        assert other.upper() in slots[word.upper()]
    assert "played" not in neighbours("played", cmu)


def test_letter_names_and_their_plurals_are_not_neighbours(decoder):
    # THE (DH IY) is one phone from the letter names "v" (V IY) and "c" (S IY), IS (IH Z) from
    # the CMU entries "a's", "i's", "o's" (letters' plurals): no reader says those for them
    slots = dict(decoder.alternatives("is the"))
    for word in ("is", "the"):
        found = neighbours(word)
        letters = [w for w in found if (len(w) == 1 and w not in ("a", "i"))
                   or (len(w) == 3 and w.endswith("'s"))]
        assert letters == [], (word, letters)
        assert not set(slots[word.upper()]) & {"A'S", "I'S", "O'S", "V", "C"}, word
    # real words stay: IS keeps AS and HIS; the word "a" is no letter name (THE is DH AH)
    assert {"as", "his"} <= set(neighbours("is")) and "a" in neighbours("the")
    # and so do apostrophe words that are not a letter's plural
    assert "children's" in neighbours("children")


def test_grammar_parses_and_matches_the_decoding_graph(decoder):
    text = "the cold glass"
    slots = decoder.alternatives(text)
    ps = decoder._scorer._decoders[0]
    shown = ps.parse_jsgf(decoder.grammar(text))        # raises if pocketsphinx refuses it
    ps.add_jsgf_string("word_choice_test", decoder.grammar(text))   # and knows its words
    ps.remove_search("word_choice_test")
    run = word_choice._slot_graph(ps, slots, 30.0, 40.0, 10.0)
    other = slots[1][1][0].lower()
    for sentence, accepted in (("the cold glass", True), (f"the {other} glass", True),
                               (f"{_LEFT_OUT_WORD} cold {_UNCLEAR_WORD}", True),
                               ("cold the glass", False), ("the cold", False)):
        assert shown.accept(sentence) is accepted and run.accept(sentence) is accepted, sentence


@pytest.fixture(scope="module")
def verdicts(decoder):
    manifest = json.loads((CLIPS / "manifest.json").read_text(encoding="utf-8"))
    found = {}
    for clip in manifest["clips"]:
        if clip["file"] in ("s2555_as_written_en-gb-x-rp_140.wav",
                            "s2961_misread_en-gb-x-rp_140.wav",
                            "s4982_misread_en-gb-x-rp_190.wav"):
            rate, samples = wavfile.read(CLIPS / clip["file"])
            found[clip["file"]] = (clip, decoder.decode(samples, rate, clip["text"], **TRIAL))
    return found


def test_a_reading_as_written_passes(verdicts):
    clip, choices = verdicts["s2555_as_written_en-gb-x-rp_140.wav"]
    assert [c.word for c in choices] == clip["text"].split()
    assert all(c.verdict == "as written" and c.heard == c.word and c.margin >= 0
               and c.start < c.end for c in choices)


def test_a_left_out_and_a_replaced_word_are_reported_where_they_are(verdicts):
    clip, choices = verdicts["s2961_misread_en-gb-x-rp_140.wav"]
    assert clip["omitted"] == [0]
    left_out = choices[0]
    assert left_out.verdict == "left out" and left_out.heard is None
    assert math.isnan(left_out.start) and left_out.margin < TRIAL["margin"]
    clip, choices = verdicts["s4982_misread_en-gb-x-rp_190.wav"]
    assert {"index": 5, "written": "FLAG", "said": "ALARM"} in clip["substituted"]
    replaced = choices[5]
    # ALARM is no neighbour of FLAG: the grammar's nearest explanation is reported
    assert replaced.verdict == "said other" and replaced.heard not in ("FLAG", "", None)
    assert all(c.verdict in _VERDICTS and isinstance(c, WordChoice) for c in choices)


def test_bad_input_names_the_argument(decoder, monkeypatch):
    scorer = decoder._scorer
    samples = np.zeros(16000)
    samples[100:200] = 0.5
    for kwargs, name in (({**TRIAL, "margin": "high"}, "margin"),
                         ({**TRIAL, "margin": math.nan}, "margin"),
                         ({**TRIAL, "unclear_penalty": -1.0}, "unclear_penalty"),
                         ({**TRIAL, "omission_penalty": math.inf}, "omission_penalty"),
                         ({**TRIAL, "neighbour_penalty": "none"}, "neighbour_penalty")):
        with pytest.raises(ValueError, match=f"^{name}:"):
            decoder.decode(samples, 16000, "the cold glass", **kwargs)
    with pytest.raises(ValueError, match="^text:"):
        decoder.decode(samples, 16000, "the xqzzv glass", **TRIAL)
    with pytest.raises(ValueError, match="^samples:"):
        decoder.decode(samples[:100], 16000, "the cold glass", **TRIAL)
    with pytest.raises(ValueError, match="^sample_rate:"):
        decoder.decode(samples, 16000.5, "the cold glass", **TRIAL)
    # no tuned values yet: a clear error, never a silent default
    monkeypatch.setattr(word_choice, "is_committed", lambda key: False)
    with pytest.raises(RuntimeError, match="^margin: no tuned value yet"):
        decoder.decode(samples, 16000, "the cold glass")
    with pytest.raises(TypeError, match="^scorer:"):
        ReadingDecoder("scorer")
    with pytest.raises(ValueError, match="^max_neighbours:"):
        ReadingDecoder(scorer, max_neighbours=-1)
    with pytest.raises(ValueError, match="^word:"):
        neighbours("two words", SMALL)
    with pytest.raises(ValueError, match="^word:"):
        neighbours("XQZZV", SMALL)
    with pytest.raises(TypeError, match="^dictionary:"):
        neighbours("READ", ["READ"])
    with pytest.raises(ValueError, match="^pronunciations:"):
        PronouncingDictionary({"READ": "R IY9 Q"})
    with pytest.raises(TypeError, match="^log_frequency:"):
        _nearest_neighbours("READ", SMALL, log_frequency={"red": -1.0})

