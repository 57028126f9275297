"""A student's recording as course data (course_lib.recording): resampling keeps the band and
removes what would alias, trimming finds the word inside silence and refuses a take without one."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.data.digits import load_digits
from course_lib.recording import _TRIM_MARGIN_S, EmptyRecording, resample, trim_silence

BROWSER_RATE = 48000
FRAME = 80   # samples in one 10 ms frame at 8000 Hz


def test_resample_keeps_the_band_and_removes_what_would_alias():
    t = np.arange(BROWSER_RATE) / BROWSER_RATE          # 1 s
    low = np.sin(2 * np.pi * 440 * t)
    out = resample(low, BROWSER_RATE, 8000)
    assert len(out) == 8000
    spectrum = np.abs(np.fft.rfft(out))
    assert np.argmax(spectrum) == 440                   # 1 Hz bins over 1 s
    # RMS of a unit sine is 1/sqrt(2); the polyphase filter's passband ripple is far below 1%
    assert np.sqrt(np.mean(out[800:-800] ** 2)) == pytest.approx(1 / np.sqrt(2), rel=0.01)
    # 6 kHz lies above the new Nyquist frequency (4 kHz): it must be filtered out, not folded to
    # 2 kHz. The default Kaiser window attenuates the stopband by far more than 40 dB (1%).
    high = resample(np.sin(2 * np.pi * 6000 * t), BROWSER_RATE, 8000)
    assert np.sqrt(np.mean(high[800:-800] ** 2)) < 0.01 / np.sqrt(2)



def test_trim_finds_the_word_inside_silence():
    word = load_digits("test").waveforms[0]
    lead, tail = 2000, 4000
    padded = np.concatenate([np.zeros(lead), word, np.zeros(tail)])
    kept, start, end = trim_silence(padded, 8000)
    margin = round(_TRIM_MARGIN_S * 8000)
    # the shipped digits have speech from their first to their last 10 ms frame, so the kept
    # span is the word plus the margin, rounded out to whole frames
    assert start == pytest.approx((lead - margin) / 8000, abs=FRAME / 8000)
    assert end == pytest.approx((lead + len(word) + margin) / 8000, abs=FRAME / 8000)
    assert len(kept) == round((end - start) * 8000)



def test_silent_and_click_takes_are_refused_with_a_reason():
    with pytest.raises(EmptyRecording, match="silent"):
        trim_silence(np.zeros(8000), 8000)
    with pytest.raises(EmptyRecording, match="silent"):
        trim_silence(1e-6 * np.ones(8000), 8000)
    click = np.zeros(8000)
    click[4000] = 0.5
    with pytest.raises(EmptyRecording, match="no word"):
        trim_silence(click, 8000)



def test_bad_samples_are_named():
    with pytest.raises(ValueError, match="^samples:"):
        resample(np.zeros((2, 3)), 48000)
    with pytest.raises(ValueError, match="^samples:"):
        resample([0.0, np.nan], 48000)
    with pytest.raises(ValueError, match="^margin_s:"):
        trim_silence(np.ones(800), 8000, margin_s=-1.0)
