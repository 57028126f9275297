"""The pronunciation panel's Python half (course_lib.widgets.pronunciation): a take or the
shipped clip scored and shown, a typed sentence, and errors that leave the last view in place.
The browser half (the fake microphone) is tested in tests/browser/test_pronunciation_in_lab.py."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.panel_prediction import ExpertPanel
from course_lib.recording import resample
from course_lib.widgets.pronunciation import _OWN, PronunciationPanel
from course_lib.widgets.status import _StatusLine

BROWSER_RATE = 48000


@pytest.fixture(scope="module")
def expert_panel():
    return ExpertPanel()


@pytest.fixture(scope="module")
def sentences():
    return load_speechocean762("accuracy", "gop").example_audio_16k()


@pytest.fixture
def reader(expert_panel, sentences):
    return PronunciationPanel(expert_panel, sentences)


def test_the_shipped_recording_is_scored_shown_and_said(reader, sentences):
    reader.sentence.value = sentences[-1].text.lower()
    prediction = reader.score_shipped()
    assert prediction is reader.prediction and reader.last_error is None
    assert reader.image is not None and reader.image.data.startswith(b"\x89PNG")
    assert "Words that pulled it down" in reader.text_view.value
    # the figure's alt text reads out the eleven probabilities the histogram draws
    described = reader.image.description
    assert f"panel mean {prediction.mean:.1f} of 10" in described
    assert ", ".join(f"{100 * p:.0f} %" for p in prediction.distribution) in described
    assert isinstance(reader.status, _StatusLine) and "Scored in" in reader.status.value
    assert f"panel mean {prediction.mean:.1f}" in reader.status.value


def test_a_take_from_the_recorder_is_scored_at_16_khz(reader, sentences):
    clip = sentences[0]
    reader.sentence.value = clip.text.lower()
    browser_take = np.concatenate([np.zeros(BROWSER_RATE // 4),
                                   resample(clip.samples, clip.sample_rate, BROWSER_RATE),
                                   np.zeros(BROWSER_RATE // 2)]).astype(np.float32)
    take = reader.recorder.receive(browser_take, BROWSER_RATE)
    assert take is not None and take.sample_rate == 16000
    assert reader.prediction is not None and reader.prediction.aligned
    assert reader.prediction.pronunciation.text == clip.text
    assert reader.seconds is not None and reader.seconds > 0


def test_an_unknown_word_says_so_and_keeps_the_last_view(reader, sentences):
    reader.sentence.value = sentences[-1].text.lower()
    first = reader.score_shipped()
    picture = reader.image
    reader.sentence.value = _OWN
    assert not reader.own_text.disabled and reader.shipped.disabled
    reader.own_text.value = "we have climbed one zqxjw"
    assert reader.score(sentences[-1].samples, 16000) is None
    assert "ZQXJW" in str(reader.last_error) and "Not scored" in reader.status.value
    assert reader.prediction is first and reader.image is picture
    assert reader.score_shipped() is None and "record it" in reader.status.value


def test_a_typed_sentence_is_scored(reader, sentences):
    reader.sentence.value = _OWN
    reader.own_text.value = sentences[-1].text.lower()
    prediction = reader.score(sentences[-1].samples, 16000)
    assert prediction is not None and prediction.aligned


def test_a_silent_take_is_refused_by_the_recorder_and_nothing_changes(reader):
    before = reader.status.value
    assert reader.recorder.receive(np.zeros(BROWSER_RATE, np.float32), BROWSER_RATE) is None
    assert reader.prediction is None and reader.status.value == before


def test_a_panel_that_is_not_one_is_named(sentences):
    with pytest.raises(TypeError, match="panel: expected an ExpertPanel"):
        PronunciationPanel("not a panel", sentences)


def test_no_sentences_is_refused(expert_panel):
    with pytest.raises(ValueError, match="sentences"):
        PronunciationPanel(expert_panel, [])
