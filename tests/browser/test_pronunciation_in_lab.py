"""A sentence read into the microphone, scored as speechocean762's five experts would, in JupyterLab.

Chromium's fake capture device plays a WAV file into the microphone (as in
test_recorder_in_lab.py): here two of the corpus's example sentences at 16 kHz, resampled to
48 kHz, the one whose five experts gave the highest mean accuracy and the one with the lowest.
A small notebook shows :class:`course_lib.widgets.pronunciation.PronunciationExplorer` with that
sentence chosen; the test presses Record, the take ends by itself, and the panel must show its
figure, the words that pulled the score down, and a panel mean inside the five experts' range
of scores for that sentence; the better read sentence must get the higher mean. The recording
went browser -> MediaRecorder (a lossy codec) -> Web Audio decode -> kernel -> 16 kHz -> GOP ->
GPR-MA, so its GOP differs from the shipped one; the checks are on what survives that.

Screenshots: ``ROOT/.test-artifacts/browser/pronunciation/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import fake_microphone
from chromium import CHROMIUM_FLAGS
from fake_microphone import write_wav
from lab_driver import Findings
from time_limits import new_context

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.recording import resample

LAUNCH_TIMEOUT_S = 60
# Opening the notebook and running its cell (loading the panel takes a few seconds).
RUN_TIMEOUT_S = 240
FAKE_RATE = 48000
LEAD_S, TAIL_S = 0.3, 4.0
# The take stops itself this long after the sentence ends; then decoding, the message to the
# kernel, GOP (about 0.13 s of CPU per second of audio) and the figure, on a loaded machine.
MARGIN_S = 0.8
SCORED_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def extremes():
    """The example sentences whose experts gave the lowest and the highest mean accuracy."""
    panel = load_speechocean762("accuracy", "gop")
    clips = sorted(panel.example_audio_16k(), key=lambda clip: clip.truth)
    matrix = panel.ratings.matrix()
    return {name: (clip, matrix[clip.item]) for name, clip in (("lowest", clips[0]),
                                                               ("highest", clips[-1]))}


def notebook_for(lab_server, name: str, text: str, max_seconds: float) -> str:
    source = f"""from course_lib.data.speechocean762 import load_speechocean762
from course_lib.pronunciation.panel import ExpertPanel
from course_lib.widgets.pronunciation import PronunciationExplorer

sentences = load_speechocean762("accuracy", "gop").example_audio_16k()
reader = PronunciationExplorer(ExpertPanel(), sentences, max_seconds={max_seconds:.2f})
reader.sentence.value = {text.lower()!r}
reader"""
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "id": "pron0",
                           "metadata": {}, "outputs": [], "source": source}],
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                            "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    path = f"pronunciation_{name}.ipynb"
    (lab_server.root_dir / path).write_text(json.dumps(notebook), encoding="utf-8")
    return path


def read_aloud(lab_server, artifacts, session_browser, chromium: Path, name: str, clip,
               tmp_path: Path) -> tuple[str, str, int, Findings]:
    """Play ``clip`` into the fake microphone, press Record; return (status line, text
    summary, number of figure images, findings)."""
    shots = artifacts / "pronunciation" / name
    shots.mkdir(parents=True, exist_ok=True)
    audio = resample(clip.samples, clip.sample_rate, FAKE_RATE)
    wav = write_wav(tmp_path / f"{name}.wav", np.concatenate(
        [np.zeros(round(LEAD_S * FAKE_RATE)), audio, np.zeros(round(TAIL_S * FAKE_RATE))]),
        FAKE_RATE)
    seconds = LEAD_S + clip.samples.size / clip.sample_rate + MARGIN_S
    path = notebook_for(lab_server, name, clip.text, seconds)
    findings = Findings(notebook=name)
    lab_server.shut_down_kernels()
    browser = session_browser.browser_type.launch(
        headless=True, timeout=LAUNCH_TIMEOUT_S * 1000, executable_path=str(chromium),
        args=CHROMIUM_FLAGS + ["--use-fake-ui-for-media-stream", *fake_microphone.flags(wav)])
    try:
        page = new_context(browser).new_page()
        notebook, record = fake_microphone.open_with_recorder(
            page, lab_server, path, shots, findings, RUN_TIMEOUT_S)
        limits = notebook.limits
        notebook.screenshot("01-before-record")
        record.click()
        with limits.wait("the panel's status after the take", SCORED_TIMEOUT_S) as limit_ms:
            page.wait_for_function(
                """() => {
                    // each widget's update arrives on its own: the status line may show
                    // before the summary beneath it
                    const s = document.querySelector('.course-pronunciation-status');
                    const w = document.querySelector('.course-pronunciation-summary');
                    const t = s ? s.textContent : '';
                    const shown = w ? w.textContent.includes('Panel mean') : false;
                    return (t.startsWith('Scored') && shown) || t.startsWith('Not scored');
                }""", timeout=limit_ms, polling=250)
        notebook.screenshot("02-scored")
        status = page.locator(".course-pronunciation-status").inner_text()
        summary = page.locator(".course-pronunciation-summary").inner_text()
        images = page.locator(".course-pronunciation-figure img").count()
        return status, summary, images, findings
    finally:
        browser.close()


def test_the_panel_orders_the_best_and_the_worst_read_sentence(
        lab_server, artifacts, browser, chromium_executable, extremes, tmp_path):
    means = {}
    for name, (clip, expert_scores) in extremes.items():
        status, summary, images, findings = read_aloud(
            lab_server, artifacts, browser, chromium_executable, name, clip, tmp_path)
        assert status.startswith("Scored"), status
        assert images == 1, f"{name}: the figure is missing"
        assert "Words that pulled it down" in summary, summary
        mean = float(re.search(r"Panel mean ([0-9.]+)", summary).group(1))
        # the posterior of the experts' mean, against what the five actually gave
        assert expert_scores.min() <= mean <= expert_scores.max(), (name, mean, expert_scores)
        assert not findings.problems, [str(p) for p in findings.problems]
        means[name] = mean
    assert means["highest"] > means["lowest"], means
