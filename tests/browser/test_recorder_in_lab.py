"""The microphone recorder (course_lib.widgets.recorder) in JupyterLab, in headless Chromium.

Chromium's fake capture device stands in for the microphone: launched with
``--use-fake-device-for-media-stream --use-file-for-fake-audio-capture=<wav>`` it plays a WAV
file into every ``getUserMedia`` stream, and ``--use-fake-ui-for-media-stream`` accepts the
permission prompt. The file is a shipped test-speaker digit (8 kHz) resampled to 48 kHz 16-bit,
with silence before and after, made in a temporary folder by the test.

- ``test_recorded_digit_is_recognised``: a small notebook shows a Recorder whose callback runs
  the course's DTW template recogniser (3 train speakers' templates per digit, the unit's MFCC
  front end); the test presses Record, and the label must name the digit in the file. The take
  went browser -> MediaRecorder -> Web Audio decode -> kernel -> resample -> trim -> DTW.
- ``test_denied_permission_says_so``: the same with the prompt denied
  (``--deny-permission-prompts``): one line in the widget, the cell after it still ran on the
  shipped clip, nothing in the kernel.
- ``test_insecure_page_says_so``: a page where the browser offers no ``getUserMedia`` (as on a
  remote hub served over plain HTTP, which is not a secure context; simulated by removing
  ``navigator.mediaDevices`` before JupyterLab loads): the widget says so in one line as soon
  as it is shown, its Record button is disabled, and the cell after it falls back.
- ``test_silent_microphone_keeps_nothing``: a fake device playing silence: the widget says the
  take is silent and keeps nothing; the fallback cell's answer is untouched.

Screenshots: ``ROOT/.test-artifacts/browser/recorder/``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import fake_microphone
from chromium import CHROMIUM_FLAGS
from fake_microphone import write_wav
from lab_driver import Findings
from time_limits import new_context

from course_lib.data.digits import WORDS, load_digits
from course_lib.recording import resample

LAUNCH_TIMEOUT_S = 60
# Opening the notebook and running its two cells (the recogniser loads 30 templates).
RUN_TIMEOUT_S = 240
# One take lasts at most MAX_SECONDS; decoding, the message to the kernel, resampling, MFCC and
# 30 DTW alignments take a few seconds more on a loaded 2-core machine.
MAX_SECONDS = 1.5
ANSWER_TIMEOUT_S = 90
SPEAKER, DIGIT = "s33", 7
FAKE_RATE = 48000
LEAD_S, TAIL_S = 0.2, 4.0

NOTEBOOK_CELLS = [
    # 1: the recorder, and a label its callback fills with the recognised word
    f"""import ipywidgets as W
import numpy as np
from IPython.display import display
from course_lib.data.digits import WORDS, digit_features, load_digits
from course_lib.features import mfcc_features
from course_lib.recognition import TemplateRecogniser
from course_lib.widgets.recorder import Recorder, _recorded_or_shipped

X, y, spk = digit_features("train")
keep = np.flatnonzero(np.isin(spk, ["s00", "s01", "s02"]))
recogniser = TemplateRecogniser([X[k] for k in keep], y[keep])

def recognise(samples):
    return WORDS[int(recogniser.predict([mfcc_features(samples, 8000)])[0])]

answer = W.Label("recognised: (nothing yet)")
answer.add_class("recorder-answer")
recorder = Recorder(max_seconds={MAX_SECONDS})
recorder.on_recording(lambda samples: setattr(answer, "value", "recognised: " + recognise(samples)))
display(recorder, answer)""",
    # 2: a cell after the recorder: it must run with or without a microphone
    """shipped = load_digits("test")
fallback = shipped.waveforms[0]
samples, whose = _recorded_or_shipped(recorder, fallback)
print(f"FALLBACK-CELL {recognise(samples)} from {whose}")""",
]


# The duration of the widget's player, once the kept take's WAV is loaded (0 without one).
PLAYER_JS = """() => new Promise((resolve) => {
    const a = document.querySelector('.course-recorder-player');
    if (!a || !a.getAttribute('src')) return resolve(0);
    if (a.readyState >= 1) return resolve(a.duration);
    a.addEventListener('loadedmetadata', () => resolve(a.duration));
    a.addEventListener('error', () => resolve(-1));
    a.load();
})"""


@pytest.fixture(scope="module")
def fake_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("fake-microphone")
    digits = load_digits("test")
    k = int(np.flatnonzero((digits.speakers == SPEAKER) & (digits.labels == DIGIT))[0])
    word = resample(digits.waveforms[k], digits.sample_rate, FAKE_RATE)
    padded = np.concatenate([np.zeros(round(LEAD_S * FAKE_RATE)), word,
                             np.zeros(round(TAIL_S * FAKE_RATE))])
    return {"digit": write_wav(folder / "digit.wav", padded, FAKE_RATE),
            "silence": write_wav(folder / "silence.wav", np.zeros(5 * FAKE_RATE), FAKE_RATE)}


@pytest.fixture(scope="module")
def notebook_path(lab_server) -> str:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"rec{k}", "metadata": {},
              "outputs": [], "source": source} for k, source in enumerate(NOTEBOOK_CELLS)]
    notebook = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3",
                                                            "language": "python",
                                                            "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    (lab_server.root_dir / "recorder_check.ipynb").write_text(json.dumps(notebook),
                                                               encoding="utf-8")
    return "recorder_check.ipynb"


def run_with_microphone(lab_server, artifacts, notebook_path, session_browser, chromium: Path,
                        name: str, flags: list[str], init_script: str = ""):
    """Open the notebook in a Chromium launched with ``flags``, run it, press Record; return
    (the widget's status line, the answer label, the fallback cell's text, findings, the
    player's duration in s)."""
    shots = artifacts / "recorder" / name
    shots.mkdir(parents=True, exist_ok=True)
    findings = Findings(notebook=name)
    lab_server.shut_down_kernels()
    # a Chromium of its own (the flags are per process), launched through the session's
    # Playwright: a second sync_playwright() in the same thread is refused
    browser = session_browser.browser_type.launch(headless=True, args=CHROMIUM_FLAGS + flags,
                                                  timeout=LAUNCH_TIMEOUT_S * 1000,
                                                  executable_path=str(chromium))
    try:
        context = new_context(browser)
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        notebook, record = fake_microphone.open_with_recorder(
            page, lab_server, notebook_path, shots, findings, RUN_TIMEOUT_S)
        limits = notebook.limits
        fallback = page.locator(".jp-OutputArea-output", has_text="FALLBACK-CELL")
        with limits.wait("the fallback cell's output", 60) as limit_ms:
            fallback.wait_for(timeout=limit_ms)
        fallback_text = fallback.inner_text()
        notebook.screenshot("01-before-record")
        status = page.locator(".course-recorder-status")
        before = status.inner_text()
        if record.is_disabled():    # no microphone at all: nothing to press
            findings.notes.append("Record disabled")
        else:
            record.click()
            # the take ends by itself after MAX_SECONDS; then the kernel answers
            with limits.wait("the recorder's status after Record", ANSWER_TIMEOUT_S) as ms:
                page.wait_for_function(
                    """(before) => {
                        const s = document.querySelector('.course-recorder-status');
                        const t = s ? s.textContent : '';
                        return t !== before && !t.startsWith('Recording') &&
                               !t.includes('trimming it in Python');
                    }""", arg=before, timeout=ms, polling=200)
        with limits.wait("the kernel idle after the take", ANSWER_TIMEOUT_S) as ms:
            page.wait_for_function("() => window.courseKernel.status === 'idle'",
                                   timeout=ms)
        notebook.screenshot("02-after-record")
        answer = page.locator(".recorder-answer").inner_text()
        player_s = limits.evaluate("the player's duration (loadedmetadata)", PLAYER_JS)
        return status.inner_text(), answer, fallback_text, findings, player_s
    finally:
        browser.close()


def test_recorded_digit_is_recognised(lab_server, artifacts, notebook_path, fake_files,
                                      browser, chromium_executable):
    status, answer, fallback, findings, player_s = run_with_microphone(
        lab_server, artifacts, notebook_path, browser, chromium_executable, "digit",
        ["--use-fake-ui-for-media-stream", *fake_microphone.flags(fake_files["digit"])])
    assert "from a shipped clip" in fallback          # before any take, the cell fell back
    assert status.startswith("Kept"), status
    assert "Record disabled" not in findings.notes
    # the player plays what Python kept: "Kept 0.86 s of speech ..." (8 kHz WAV; the status
    # rounds to 10 ms)
    kept_s = float(status.split()[1])
    assert player_s == pytest.approx(kept_s, abs=0.006), (player_s, status)
    assert answer == f"recognised: {WORDS[DIGIT]}", (answer, status)
    assert not findings.problems, [str(p) for p in findings.problems]


def test_denied_permission_says_so(lab_server, artifacts, notebook_path, fake_files,
                                   browser, chromium_executable):
    status, answer, fallback, findings, player_s = run_with_microphone(
        lab_server, artifacts, notebook_path, browser, chromium_executable, "denied",
        ["--deny-permission-prompts", *fake_microphone.flags(fake_files["digit"])])
    assert "permission was denied" in status, status
    assert "shipped recordings" in status
    assert answer == "recognised: (nothing yet)" and player_s == 0
    assert "from a shipped clip" in fallback
    unexpected = [p for p in findings.problems if "Permission" not in p.what]
    assert not unexpected, [str(p) for p in unexpected]


def test_silent_microphone_keeps_nothing(lab_server, artifacts, notebook_path, fake_files,
                                         browser, chromium_executable):
    status, answer, fallback, findings, player_s = run_with_microphone(
        lab_server, artifacts, notebook_path, browser, chromium_executable, "silent",
        ["--use-fake-ui-for-media-stream", *fake_microphone.flags(fake_files["silence"])])
    assert status.startswith("The recording is silent"), status
    assert "nothing was kept" in status
    assert answer == "recognised: (nothing yet)" and player_s == 0
    assert "from a shipped clip" in fallback
    assert not findings.problems, [str(p) for p in findings.problems]


# What a page that is not a secure context offers: no navigator.mediaDevices at all.
NOT_SECURE_JS = "Object.defineProperty(Navigator.prototype, 'mediaDevices', {get: () => undefined});"


def test_insecure_page_says_so(lab_server, artifacts, notebook_path, fake_files,
                               browser, chromium_executable):
    status, answer, fallback, findings, player_s = run_with_microphone(
        lab_server, artifacts, notebook_path, browser, chromium_executable, "insecure",
        ["--use-fake-ui-for-media-stream", *fake_microphone.flags(fake_files["digit"])],
        init_script=NOT_SECURE_JS)
    assert status.startswith("No microphone here: the browser allows one only on a secure page"), \
        status
    assert answer == "recognised: (nothing yet)" and player_s == 0
    assert "from a shipped clip" in fallback
    assert "Record disabled" in findings.notes
    assert not findings.problems, [str(p) for p in findings.problems]
