"""The microphone recorder's Python half (course_lib.widgets.recorder): takes and prompts, the browser's message, saving, and the lines a student sees when there is
nothing to keep, including lecture 01's lines about the stand-in speaker. The browser half is
tested in tests/browser/test_recorder_in_lab.py."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest

from course_lib.data.digits import load_digits
from course_lib.recording import _TRIM_MARGIN_S, read_wav, resample
from course_lib.widgets.recorder import _NO_KERNEL_LINE, Recorder, _recorded_or_shipped

ROOT = Path(__file__).resolve().parents[2]
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


def test_lecture_01_names_the_stand_in_when_nothing_was_recorded():
    """Lecture 01, section 8, run without takes (as nbval runs it: its stored output is what a
    fresh run prints) uses the stand-in speaker's templates; the table and the lines say so and
    never call them "your templates" or "your 20 takes"."""
    notebook = nbformat.read(ROOT / "lectures" / "01_dtw.ipynb", as_version=4)
    table = next(cell for cell in notebook.cells if cell.get("id") == "rec0co04")
    assert "nbval-check-output" in table.metadata.get("tags", [])
    text = "".join(output.get("text", "") for output in table.outputs)
    header, *rows = text.splitlines()
    assert "stand-in" in header and "your" not in text, text
    assert any(row.startswith("recognised:") and "(stand-in)" in row for row in rows), text
    assert any(row.startswith("accuracy on the stand-in's 20 takes") for row in rows), text
