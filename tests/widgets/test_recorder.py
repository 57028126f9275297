"""The microphone recorder's Python half (course_lib.widgets.recorder): resampling, trimming,
takes and prompts, the browser's message, saving, and the lines a student sees when there is
nothing to keep. The browser half is tested in tests/browser/test_recorder_in_lab.py."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.data.digits import load_digits
from course_lib.widgets.recorder import (_NO_KERNEL_LINE, _TRIM_MARGIN_S, EmptyRecording, Recorder,
                                         read_wav, _recorded_or_shipped, resample, trim_silence)

BROWSER_RATE = 48000
FRAME = 80   # samples in one 10 ms frame at 8000 Hz


def as_browser_take(waveform, lead_s=0.25, tail_s=0.6, noise=1e-3, seed=0):
    """A shipped 8 kHz digit as the browser would send it: 48 kHz float32, with silence (a
    little noise, -60 dB re full scale) before and after."""
    rng = np.random.default_rng(seed)
    word = resample(waveform, 8000, BROWSER_RATE)
    x = np.concatenate([np.zeros(round(lead_s * BROWSER_RATE)), word,
                        np.zeros(round(tail_s * BROWSER_RATE))])
    return (x + noise * rng.standard_normal(len(x))).astype(np.float32)


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


def test_a_take_goes_through_resampled_trimmed_and_labelled():
    digits = load_digits("test")
    recorder = Recorder(prompts=["seven", "three"])
    heard = []
    recorder.on_recording(heard.append)
    k = int(np.flatnonzero(digits.labels == 7)[0])
    take = recorder.receive(as_browser_take(digits.waveforms[k]), BROWSER_RATE)
    assert take is not None and take.prompt == "seven" and take.sample_rate == 8000
    assert recorder.samples is take.samples and heard[0] is take.samples
    assert recorder.prompt_index == 1 and recorder.slots[0] is take and recorder.slots[1] is None
    # the word (its length at 8 kHz) and the two margins survive, the silence does not
    word_s = len(digits.waveforms[k]) / 8000
    assert take.duration == pytest.approx(word_s + 2 * _TRIM_MARGIN_S, abs=2 * FRAME / 8000)
    assert "Kept" in recorder.status and '"seven"' in recorder.status


def test_an_empty_take_loses_nothing_kept_before():
    digits = load_digits("test")
    recorder = Recorder(prompts=["zero", "one"])
    first = recorder.receive(as_browser_take(digits.waveforms[0]), BROWSER_RATE)
    assert recorder.receive(np.zeros(BROWSER_RATE, dtype=np.float32), BROWSER_RATE) is None
    assert recorder.status.startswith("The recording is silent")
    assert recorder.samples is first.samples and len(recorder.takes) == 1
    assert recorder.prompt_index == 1          # still waiting for "one"


def test_the_browser_message_and_back():
    digits = load_digits("test")
    recorder = Recorder(prompts=["zero", "one"])
    data = as_browser_take(digits.waveforms[0])
    recorder._handle_message(recorder, {"kind": "recording", "sample_rate": BROWSER_RATE},
                             [memoryview(data.tobytes())])
    assert recorder.prompt_index == 1 and recorder.slots[0] is not None
    recorder._handle_message(recorder, {"kind": "back"}, [])
    assert recorder.prompt_index == 0
    recorder._handle_message(recorder, {"kind": "recording", "sample_rate": BROWSER_RATE}, [])
    assert "no samples" in recorder.status and len(recorder.takes) == 1
    recorder._handle_message(recorder, {"kind": "recording", "sample_rate": 0},
                             [memoryview(data.tobytes())])
    assert "source_rate" in recorder.status and len(recorder.takes) == 1
    # anywidget's own commands share the channel: other kinds are left alone
    recorder._handle_message(recorder, {"kind": "anywidget-command"}, [])
    assert len(recorder.takes) == 1


def test_save_and_read_back(tmp_path):
    digits = load_digits("test")
    recorder = Recorder(prompts=["zero", "one"])
    with pytest.raises(ValueError, match="nothing to save"):
        recorder.save(tmp_path / "x.wav")
    for k in (0, 1):
        recorder.receive(as_browser_take(digits.waveforms[k], seed=k), BROWSER_RATE)
    path = recorder.save(tmp_path / "mine.wav")
    back, rate = read_wav(path)
    assert rate == 8000
    # 16-bit PCM: every sample within half a quantisation step (1 / 32767 of full scale)
    np.testing.assert_allclose(back * 32768 / 32767, recorder.samples, atol=0.5 / 32767 + 1e-12)
    with pytest.raises(ValueError, match="exists already"):
        recorder.save(path)
    with pytest.raises(ValueError, match=r"\.wav"):
        recorder.save(tmp_path / "mine.mp3")
    with pytest.raises(ValueError, match="does not exist"):
        recorder.save(tmp_path / "nowhere" / "a.wav")
    names = [p.name for p in recorder.save_all(tmp_path)]
    assert names == ["00_zero.wav", "01_one.wav"]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="max_seconds"):
        Recorder(max_seconds=0)
    with pytest.raises(ValueError, match="max_seconds"):
        Recorder(max_seconds=600)
    with pytest.raises(TypeError, match="prompts"):
        Recorder(prompts="one")
    with pytest.raises(TypeError, match="callback"):
        Recorder().on_recording(3)
    with pytest.raises(ValueError, match="samples"):
        resample(np.zeros((2, 3)), 48000)


def test_without_a_kernel_the_page_shows_one_line_and_cells_fall_back():
    recorder = Recorder()
    data, _ = recorder._repr_mimebundle_()
    assert data["text/plain"] == _NO_KERNEL_LINE
    assert "application/vnd.jupyter.widget-view+json" in data
    shipped = np.ones(5)
    samples, whose = _recorded_or_shipped(recorder, shipped)
    assert whose == "a shipped clip" and np.array_equal(samples, shipped)
    assert recorder.samples_or(shipped)[1] is False
    assert _recorded_or_shipped(None, shipped)[1] == "a shipped clip"


def test_front_end_handles_every_failure_it_promises():
    esm = Recorder._esm if isinstance(Recorder._esm, str) else str(Recorder._esm)
    for needle in ("getUserMedia", "MediaRecorder", "NotAllowedError", "NotFoundError",
                   "secure", "decodeAudioData", "export default"):
        assert needle in esm
