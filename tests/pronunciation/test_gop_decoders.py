"""PronunciationScorer makes the decoder of each pass on its first use (pronunciation.gop).

The wider passes cost a model load each (about 0.16 s, most of it the CMU dictionary) and run
only for a sentence the first pass cannot align, so a sentence that aligns at once makes one
decoder. A decoder made late must be the decoder made up front: the same phone loop, the same
words (one added with ``add_word``, ReadingDecoder's pseudo-words) and so the same scores. The
reference is a scorer whose three decoders are all made before those words are added, as the
scorer made them before it made them lazily. Two committed clips of ``tests/data/misread``:
one aligns at the first attempt, one only at the third.
"""

from __future__ import annotations

import json
from pathlib import Path

from scipy.io import wavfile

from course_lib.pronunciation._pocketsphinx_io import _decoder_pronunciations
from course_lib.pronunciation.gop import PronunciationScorer
from course_lib.pronunciation.word_choice import _LEFT_OUT_WORD, _UNCLEAR_WORD, ReadingDecoder

CLIPS = Path(__file__).resolve().parents[1] / "data" / "misread"
ALIGNS_AT_ONCE, ALIGNS_AT_THE_THIRD = ("s4982_as_written_en-us_140.wav",
                                       "s4982_misread_en-gb-x-rp_190.wav")
ADDED = ("LIYA", "L IY Y AH")


def _clip(name: str):
    texts = {clip["file"]: clip["text"] for clip in
             json.loads((CLIPS / "manifest.json").read_text(encoding="utf-8"))["clips"]}
    rate, samples = wavfile.read(CLIPS / name)
    return samples, rate, texts[name]


def _set_up(scorer: PronunciationScorer) -> PronunciationScorer:
    scorer.add_word(*ADDED)
    ReadingDecoder(scorer)          # adds its pseudo-words to the scorer's decoders
    return scorer


def test_a_sentence_that_aligns_at_once_makes_one_decoder():
    scorer = _set_up(PronunciationScorer())
    scored = scorer.score(*_clip(ALIGNS_AT_ONCE))
    assert scored.aligned and scored.notes == ()
    assert scorer._decoders._made[0] is not None
    assert scorer._decoders._made[1:] == [None, None]


def test_a_decoder_made_late_is_the_one_made_up_front():
    eager = PronunciationScorer()
    assert len(list(eager._decoders)) == 3          # every pass's decoder made before the words
    eager = _set_up(eager)
    lazy = _set_up(PronunciationScorer())
    assert lazy._decoders._made == [None, None, None]
    samples, rate, text = _clip(ALIGNS_AT_THE_THIRD)
    scored = lazy.score(samples, rate, text)
    assert [note for note in scored.notes if "did not align" in note] != [] and scored.aligned
    assert None not in lazy._decoders._made
    assert scored == eager.score(samples, rate, text)
    for number in range(3):
        for word in (ADDED[0], _UNCLEAR_WORD, _LEFT_OUT_WORD):
            found = _decoder_pronunciations(lazy._decoders[number], word)
            assert found == _decoder_pronunciations(eager._decoders[number], word) != [], \
                (number, word)
