"""The word verdict of course_lib.pronunciation: heard as written, or not.

Its check is ``tests/data/misread``: five corpus sentences synthesised by espeak-ng, each read
as written and misread (``tools/make_misread_clips.py``; the changed words are in the
manifest). Scored with the corpus's scorer and the committed threshold, the verdict must catch
the changed and omitted words and pass the words read as written. The tolerance was fixed
before the verdict was first computed on the clips, and the clips are not regenerated to
suit it:

* every clip read as written aligns, and every misread clip is caught as a sentence: it does
  not align (the scorer then says first that the recording does not match the text; a word
  left out did this to three of the five misread clips, see below) or some word is flagged;
* at most a quarter of the substituted words pass: each replacement differs in at least half
  its phones, but a replacement that shares a stressed vowel and a consonant with the written
  word can explain the written phones nearly as well;
* of the n words read as written, at most the 98th percentile of Binomial(n, 3%) are flagged:
  the threshold flags 3% of the training words every expert scored accurate; synthetic voices
  and the neighbours of a squeezed word get no further allowance.

Not met, and so not asserted here (issue 46 stays open on it; a skipped or expected-to-fail
test would fail the test command): every omitted word flagged. The omitted IN of the misread
item-2541 clip scores -8.19 over six frames, above the training threshold, and passes. The three
misread clips that do not align would align with a third pass whose phone beam is opened
(pocketsphinx's pbeam); that pass changes which corpus sentences align, so it waits for the
recipe and Table 1 to be run again with it.

The unit tests run the verdict on hand-made Pronunciation objects.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.io import wavfile
from scipy.stats import binom

from course_lib.data.speechocean762 import load_pronunciation_scorer
from course_lib.pronunciation.gop import (_MATCH_MEASURE, PhoneScore, Pronunciation,
                                          WordReading, _committed_threshold, completeness,
                                          word_readings)
from course_lib.results import load_result
from experiments.heard_as_written import TARGET_FALSE_FLAGS

CLIPS = Path(__file__).resolve().parents[1] / "data" / "misread"
TOOLS = Path(__file__).resolve().parents[2] / "tools"
# the share of the training words every expert scored accurate that the threshold flags
FLAGGED_ACCURATE_SHARE = TARGET_FALSE_FLAGS


def _manifest() -> dict:
    sums = dict(line.split()[::-1] for line in
                (CLIPS / "SHA256SUMS").read_text(encoding="utf-8").splitlines() if line.strip())
    for name, digest in sums.items():
        content = (CLIPS / name).read_bytes()
        if name.endswith(".json"):      # a checkout with CRLF endings is the same manifest
            content = content.replace(b"\r\n", b"\n")
        assert hashlib.sha256(content).hexdigest() == digest, f"{name} is not the shipped file"
    manifest = json.loads((CLIPS / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(clip["file"] for clip in manifest["clips"]) == sorted(
        name for name in sums if name.endswith(".wav"))
    return manifest


@pytest.fixture(scope="module")
def scored_clips():
    """[(clip, Pronunciation, readings at the committed threshold)] in manifest order."""
    scorer = load_pronunciation_scorer()
    out = []
    for clip in _manifest()["clips"]:
        rate, samples = wavfile.read(CLIPS / clip["file"])
        scored = scorer.score(samples, rate, clip["text"])
        out.append((clip, scored, word_readings(scored)))
    return out


def _truth(clip: dict) -> list[str]:
    kinds = ["as written"] * len(clip["text"].split())
    for change in clip["substituted"]:
        kinds[change["index"]] = "substituted"
    for index in clip["omitted"]:
        kinds[index] = "omitted"
    return kinds


def _verdicts(scored_clips) -> dict[str, list[str]]:
    """{truth: ["FILE: WORD flagged|passed (match)", ...]} over every word of every clip."""
    out = {"as written": [], "substituted": [], "omitted": []}
    for clip, _, readings in scored_clips:
        for kind, reading in zip(_truth(clip), readings):
            out[kind].append(f"{clip['file']}: {reading.word} "
                             f"{'passed' if reading.as_written else 'flagged'} "
                             f"(match {reading.match:.2f})")
    return out


def _table(verdicts) -> str:
    return "\n".join(f"{kind}: flagged {sum('flagged' in v for v in rows)}, passed "
                     f"{sum('passed' in v for v in rows)}" for kind, rows in verdicts.items())


def test_the_clips_are_the_shipped_fixtures_and_small():
    manifest = _manifest()
    assert manifest["tools"]["espeak-ng"]["version"].startswith("eSpeak NG")
    total = 0
    for clip in manifest["clips"]:
        rate, samples = wavfile.read(CLIPS / clip["file"])
        assert rate == 16000 and samples.dtype == np.int16 and samples.ndim == 1
        assert len(samples) / rate == pytest.approx(clip["seconds"], abs=1e-3)
        assert clip["seconds"] < 3.5
        words = clip["text"].split()
        said = {c["index"]: c["said"] for c in clip["substituted"]}
        assert clip["said"].split() == [said.get(i, w) for i, w in enumerate(words)
                                        if i not in clip["omitted"]]
        total += (CLIPS / clip["file"]).stat().st_size
    assert total < 800_000
    kinds = {(clip["kind"], clip["voice"], clip["rate_wpm"]) for clip in manifest["clips"]}
    assert {v for _, v, _ in kinds} == {"en-us", "en-gb-x-rp+f3"}
    assert {r for _, _, r in kinds} == {140, 190}


def _aligned(scored_clips) -> list:
    return [entry for entry in scored_clips if entry[1].aligned]


def test_every_clip_read_as_written_aligns_and_every_misread_one_is_caught(scored_clips):
    assert len(scored_clips) == 10
    for clip, scored, readings in scored_clips:
        if clip["kind"] == "as_written" or scored.aligned:
            assert scored.aligned, f"{clip['file']} did not align: {scored.notes}"
            assert [r.word for r in readings] == clip["text"].split()
        if clip["kind"] == "misread":
            # caught as a sentence: the scorer says it does not match the text, or a word is
            # flagged
            assert not scored.aligned or completeness(readings) < 1.0, clip["file"]
        if not scored.aligned:
            assert any("does not match the text" in note for note in scored.notes), scored.notes
            assert math.isnan(completeness(readings))


def test_substituted_words_are_flagged(scored_clips):
    verdicts = _verdicts(_aligned(scored_clips))
    missed = [v for v in verdicts["substituted"] if "passed" in v]
    assert verdicts["substituted"], "no aligned clip changes a word"
    assert len(missed) <= len(verdicts["substituted"]) // 4, (
        f"substituted words heard as written: {missed}\n{_table(verdicts)}")


def test_words_read_as_written_pass(scored_clips):
    verdicts = _verdicts(_aligned(scored_clips))
    flagged = [v for v in verdicts["as written"] if "flagged" in v]
    n = len(verdicts["as written"])
    assert n >= 31, "the five clips read as written hold 31 words"
    allowed = int(binom.ppf(0.98, n, FLAGGED_ACCURATE_SHARE))
    assert len(flagged) <= allowed, (
        f"words read as written but flagged: {flagged} (at most {allowed} of {n})\n"
        f"{_table(verdicts)}")


def test_a_flagged_word_says_what_was_said_instead(scored_clips):
    for clip, _, readings in scored_clips:
        for kind, reading in zip(_truth(clip), readings):
            if reading.as_written:
                assert reading.said_instead == ""
            else:
                assert reading.said_instead, (clip["file"], reading)
                assert set(reading.said_instead.split()) <= set(reading.heard) - {"SIL"} or \
                    reading.said_instead == "nothing"


def test_the_aligned_misread_sentences_score_less_complete_than_the_read_ones(scored_clips):
    by_kind = {"as_written": [], "misread": []}
    for clip, _, readings in _aligned(scored_clips):
        by_kind[clip["kind"]].append(completeness(readings))
    assert by_kind["misread"], "no misread clip aligns"
    assert np.mean(by_kind["misread"]) < np.mean(by_kind["as_written"]), by_kind


def test_the_clip_tool_refuses_to_run_without_espeak(monkeypatch):
    sys.path.insert(0, str(TOOLS))
    try:
        import make_misread_clips
    finally:
        sys.path.remove(str(TOOLS))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(SystemExit, match=r"espeak-ng and sox not found.*apt-get install"):
        make_misread_clips.require_tools()


# ----- the verdict on hand-made sentences ---------------------------------------------------

def _sentence(words, heard=(), aligned=True) -> Pronunciation:
    """words: [(word, [(phone, frames, gop)])], one after another from 0.1 s."""
    phones, t = [], 0.1
    for index, (word, own) in enumerate(words):
        for phone, frames, gop in own:
            phones.append(PhoneScore(index, word, phone, round(t, 2),
                                     round(t + frames / 100, 2), gop))
            t += frames / 100
    return Pronunciation(" ".join(w for w, _ in words), tuple(phones) if aligned else (),
                         aligned, -5.0, -4.0, (), tuple(heard))


CAT = ("CAT", [("K", 5, -1.0), ("AE", 10, -0.5), ("T", 5, -2.0)])      # 0.10-0.30 s
SAT = ("SAT", [("S", 10, -9.0), ("AE", 10, -6.0), ("T", 10, -3.0)])    # 0.30-0.60 s


def test_match_is_the_worst_phones_gop_and_the_threshold_decides():
    scored = _sentence([CAT, SAT])
    cat, sat = word_readings(scored, -3.0)
    assert (cat.match, sat.match) == (-2.0, -9.0)
    assert (cat.as_written, sat.as_written) == (True, False)
    assert (cat.index, cat.word, cat.written) == (0, "CAT", ("K", "AE", "T"))
    assert (sat.start, sat.end) == (0.3, 0.6)
    # the threshold itself counts as heard as written
    assert word_readings(scored, sat.match)[1].as_written
    assert completeness(word_readings(scored, -3.0)) == 0.5
    assert completeness(word_readings(scored, -9.0)) == 1.0
    assert completeness(word_readings(scored, 0.0)) == 0.0


def test_heard_is_the_loops_phones_over_the_word_and_said_instead_reads_them():
    # the loop: K AE T over CAT; over SAT a grazing T (1 frame inside), then F, F, SIL, AA
    heard = [("SIL", 0.0, 0.1), ("K", 0.1, 0.15), ("AE", 0.15, 0.25), ("T", 0.25, 0.31),
             ("F", 0.31, 0.4), ("F", 0.4, 0.45), ("SIL", 0.45, 0.5), ("AA", 0.5, 0.6),
             ("SIL", 0.6, 0.7)]
    cat, sat = word_readings(_sentence([CAT, SAT], heard), -3.0)
    assert cat.heard == ("K", "AE", "T") and cat.said_instead == ""
    assert sat.heard == ("F", "SIL", "AA")
    assert sat.said_instead == "F AA"
    # a long segment that covers most of the word counts though most of it lies outside
    _, sat = word_readings(_sentence([CAT, SAT], [("SIL", 0.0, 0.3), ("M", 0.3, 1.0)]), -3.0)
    assert sat.heard == ("M",)


def test_a_word_heard_as_silence_was_said_as_nothing():
    _, sat = word_readings(_sentence([CAT, SAT], [("SIL", 0.0, 1.0)]), -3.0)
    assert sat.heard == ("SIL",) and sat.said_instead == "nothing"


def test_a_sentence_that_did_not_align_has_no_readings():
    readings = word_readings(_sentence([CAT, SAT], aligned=False), -3.0)
    assert readings == [] and math.isnan(completeness(readings))


def test_the_default_threshold_is_the_committed_calibration():
    rule = load_result("heard_as_written")["result"]["rule"]
    assert rule["measure"] == _MATCH_MEASURE and _committed_threshold() == rule["threshold"]
    scored = _sentence([CAT, SAT])
    assert word_readings(scored) == word_readings(scored, rule["threshold"])
    assert all(isinstance(r, WordReading) for r in word_readings(scored))


def test_a_calibration_of_another_measure_is_refused(monkeypatch):
    import course_lib.pronunciation.gop as pronunciation

    monkeypatch.setattr(pronunciation, "load_result", lambda name: {
        "result": {"rule": {"measure": "frame_share", "threshold": 0.5}}})
    with pytest.raises(RuntimeError, match="calibrates 'frame_share'.*re-run"):
        word_readings(_sentence([CAT]))
