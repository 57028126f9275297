"""The recorder, the sixth-rater panel and explorers by keyboard alone, and axe on the lab page.

One notebook shows the four widgets; one Chromium with a fake microphone (as in
``test_recorder_in_lab.py``: Chromium plays a WAV file, here a test speaker's "seven", into
``getUserMedia``) opens it. No mouse: the test only presses
Tab, Shift+Tab, Enter, Space, Escape, arrows and End, as a student who cannot use a pointer
would.

- The recorder: Tab reaches Record (with a focus ring of 2 px or more), Space records a take that
  stops by itself, the status line (a live region) says what was kept and the prompt (a live
  region too) moves on;
  Back (Enter) returns to the first word and, now disabled, hands the focus to Record instead of
  dropping it.
- The panel: Tab reaches the score "7", Space scores the clip (the status line, a live region,
  says so, and "7" alone is aria-pressed), Tab reaches "next clip" and Enter moves on (the clip
  heading, a live region, announces clip 2, which also names the player), Shift+Tab goes back
  to the scores; the file field (with a focus ring of 2 px or more) takes a typed name and
  "save" (Enter) writes the score there. Its "Not refitted" note is a live region too.
- An explorer (the kernel explorer): its dropdown shows a focus ring and ArrowDown changes its
  value, not JupyterLab's active cell; its sliders' readouts, Tab stops, have names; its log
  slider's handle reports the value and the range's ends (not their exponents), also after End.
- A linear slider with a fine step (lecture 06's answer y, 0.95 in steps of 0.01): its handle
  reports 0.95 and the ends 0.01 and 0.99, not noUiSlider's one decimal (0.9, 0.0 and 1.0),
  also after ArrowLeft (0.94).
- axe (WCAG 2.0-2.2 A/AA, :mod:`axe`) finds nothing inside either widget, before and after it
  was used; on the whole page it finds only JupyterLab's own violations (:data:`LAB_OWN`, named
  by rule and element, so a new one fails).

Screenshots: ``ROOT/.test-artifacts/browser/keyboard/``.
"""

from __future__ import annotations

import json

import axe
import numpy as np
import pytest
from chromium import CHROMIUM_FLAGS
from lab_driver import Findings, NotebookPage
from time_limits import new_context

from course_lib.data.digits import load_digits
from course_lib.recording import resample
from course_lib.stimuli import wav_bytes

LAUNCH_TIMEOUT_S = 60
# Opening the notebook and running it (the panel loads speechocean762's clips).
RUN_TIMEOUT_S = 240
# A take of at most MAX_SECONDS, decoded and sent to the kernel, resampled and trimmed.
MAX_SECONDS = 1.5
ANSWER_TIMEOUT_S = 90
STEP_TIMEOUT_S = 60         # one keypress's effect (a kernel round trip)
MOST_TABS = 60              # Tab presses allowed to reach a control
SCORES_FILE = "keyboard_scores.json"
FAKE_RATE = 48000           # Hz, the browser's own rate (Chromium resamples any other)

CELLS = [
    """from course_lib.widgets.recorder import Recorder
recorder = Recorder(max_seconds=%s, prompts=["seven", "seven"])
recorder""" % MAX_SECONDS,
    """from course_lib.widgets.listener_panel import rate_yourself
panel = rate_yourself("first_try.json")
panel""",
    """from course_lib.widgets.gp import kernel_explorer
explorer = kernel_explorer().widget
explorer.add_class("course-kernel-explorer")  # for the test to find it
explorer""",
    """from course_lib.widgets.preference import likelihood_explorer
answers = likelihood_explorer().widget
answers.add_class("course-answer-explorer")
answers""",
]
RECORDER, PANEL = ".course-recorder", ".course-rate-yourself"
# "7" and only "7" of the panel's score buttons is pressed
PRESSED_JS = """(panel) => {
    const buttons = [...document.querySelectorAll(panel + " .widget-toggle-buttons button")];
    const pressed = buttons.filter(b => b.getAttribute("aria-pressed") === "true");
    return buttons.length === 12 && pressed.length === 1 && pressed[0].title === "fluency 7 of 10"
        && buttons.every(b => b.hasAttribute("aria-pressed"));
}"""
# the kernel explorer: a dropdown and sliders with editable readouts
EXPLORER = ".course-kernel-explorer"
# which cell JupyterLab has active, and the explorer's kernel family as the dropdown shows it
CELL_AND_VALUE_JS = """(selector) => [window.jupyterapp.shell.currentWidget.content.activeCellIndex,
    document.querySelector(selector + " select").value]"""
# the kernel explorer's lengthscale slider, a log slider from 0.1 to 10 (widgets/gp.py)
LENGTHSCALE_RANGE = [0.1, 10.0]
# the likelihood explorer's answer slider, 0.95 from 0.01 to 0.99 (widgets/preference.py)
ANSWERS, ANSWER = ".course-answer-explorer", ".noUi-handle[aria-label='answer y (> 0.5: first)']"
ANSWER_RANGE = [0.01, 0.99]
# a slider's handle: aria-valuenow is the readout's value, -min and -max the range's ends
HANDLE_JS = """([handle, range]) => {
    const el = document.querySelector(handle);
    const readout = el && el.closest(".widget-slider").querySelector(".widget-readout");
    const close = (attribute, value) =>
        Math.abs(Number(el.getAttribute(attribute)) - value) <= 1e-9 * Math.abs(value);
    return !!readout && close("aria-valuenow", Number(readout.textContent))
        && close("aria-valuemin", range[0]) && close("aria-valuemax", range[1]);
}"""
# JupyterLab's own violations (upstream, outside the course's widgets), by rule and by where
# they are: the cell editors' text boxes have no name, the notebook's windowed cell list lacks
# the children its role asks for, and toolbar buttons carry ARIA attributes their role forbids.
LAB_OWN = {"aria-input-field-name": (".cm-content",),
           "aria-required-children": (".jp-WindowedPanel-viewport",),
           "aria-allowed-attr": ("jp-button", ".jp-DebuggerBugButton")}

ACTIVE_JS = """([selector, name]) => {
    const el = document.activeElement;
    const style = el ? getComputedStyle(el) : null;
    const text = el ? (el.innerText || el.value || "").trim() : "";
    return {matches: !!el && el.matches(selector) && (name === null || text === name),
            tag: el ? el.tagName : "", text: text.slice(0, 40),
            outline: style && style.outlineStyle !== "none" ? parseFloat(style.outlineWidth) : 0};
}"""


def tab_to(page, limits, selector: str, name: str | None = None, *,
           backwards: bool = False) -> dict:
    """Press Tab (Shift+Tab) until the focused element matches ``selector`` (and its text is
    ``name``, when given); return what :data:`ACTIVE_JS` says of it."""
    key = "Shift+Tab" if backwards else "Tab"
    passed = []
    for _ in range(MOST_TABS):
        page.keyboard.press(key)
        active = limits.evaluate("the focused element (ACTIVE_JS)", ACTIVE_JS,
                                 [selector, name])
        if active["matches"]:
            return active
        passed.append(f"{active['tag']}:{active['text']}")
    raise AssertionError(f"{key} x{MOST_TABS} never reached {selector} {name or ''}; "
                         f"passed {passed[-8:]}")


def wait_text(page, limits, selector: str, what: str, test_js: str, seconds: float) -> str:
    """The text of ``selector`` once ``test_js`` (a function of that text) holds."""
    with limits.wait(what, seconds) as ms:
        page.wait_for_function(
            """([selector, test]) => { const el = document.querySelector(selector);
                return el && new Function("t", "return " + test)(el.textContent); }""",
            arg=[selector, test_js], timeout=ms, polling=200)
    return page.locator(selector).inner_text()


@pytest.fixture(scope="module")
def microphone_flags(tmp_path_factory) -> list[str]:
    """Chromium's flags for a fake microphone saying "seven" after 0.2 s, then 4 s of silence."""
    digits = load_digits("test")
    k = int(np.flatnonzero((digits.speakers == "s33") & (digits.labels == 7))[0])
    word = resample(digits.waveforms[k], digits.sample_rate, FAKE_RATE)
    take = np.concatenate([np.zeros(FAKE_RATE // 5), word, np.zeros(4 * FAKE_RATE)])
    wav = tmp_path_factory.mktemp("fake-microphone") / "seven.wav"
    wav.write_bytes(wav_bytes(take, FAKE_RATE))
    return ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={wav}"]


def widget_violations(limits, selector: str) -> dict:
    found = axe.violations(limits, include=selector)
    assert not found, f"axe inside {selector}: {axe.summary(found)}"
    return found


def test_recorder_and_panel_by_keyboard_alone(lab_server, artifacts, microphone_flags, browser,
                                              chromium_executable):
    shots = artifacts / "keyboard"
    shots.mkdir(parents=True, exist_ok=True)
    cells = [{"cell_type": "code", "execution_count": None, "id": f"key{k}", "metadata": {},
              "outputs": [], "source": source} for k, source in enumerate(CELLS)]
    (lab_server.root_dir / "keyboard_check.ipynb").write_text(json.dumps(
        {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3",
                                                     "language": "python", "name": "python3"}},
         "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    lab_server.shut_down_kernels()
    findings = Findings(notebook="keyboard_check.ipynb")
    # a Chromium of its own for the fake microphone (the flags are per process)
    chromium = browser.browser_type.launch(
        headless=True, timeout=LAUNCH_TIMEOUT_S * 1000, executable_path=str(chromium_executable),
        args=CHROMIUM_FLAGS + microphone_flags)
    try:
        page = new_context(chromium).new_page()
        notebook = NotebookPage(page, lab_server, "keyboard_check.ipynb", shots, findings)
        notebook.open(timeout=RUN_TIMEOUT_S)
        notebook.run_all(timeout=RUN_TIMEOUT_S)
        limits = notebook.limits
        with limits.wait("the four widgets shown", STEP_TIMEOUT_S) as ms:
            page.locator(f"{PANEL} .course-rate-heading").wait_for(timeout=ms)
            page.locator(f"{RECORDER} .course-recorder-record").wait_for(timeout=ms)
            page.locator(f"{EXPLORER} select").wait_for(timeout=ms)
            page.locator(f"{ANSWERS} {ANSWER}").wait_for(timeout=ms)
        page.keyboard.press("Escape")       # command mode: keys go to the page, not an editor
        whole = axe.violations(limits)
        others = {rule: [target for target in targets
                         if not any(mark in target for mark in LAB_OWN.get(rule, ()))]
                  for rule, targets in whole.items()}
        assert not any(others.values()), f"axe on the lab page: {axe.summary(others)}"
        widget_violations(limits, RECORDER)
        widget_violations(limits, PANEL)
        widget_violations(limits, EXPLORER)

        # --- the recorder
        status = f"{RECORDER} [role=status][aria-live=polite]"
        record = tab_to(page, limits, ".course-recorder-record")
        assert record["text"] == "Record" and record["outline"] >= 2, record
        page.keyboard.press("Space")
        kept = wait_text(page, limits, status, "the take kept (Space on Record)",
                         "t.startsWith('Kept')", ANSWER_TIMEOUT_S)
        assert kept.startswith('Kept "seven"'), kept
        prompt = page.locator(f"{RECORDER} .course-recorder-prompt")
        assert "word 2 of 2" in prompt.inner_text()
        tab_to(page, limits, ".course-recorder-back")
        page.keyboard.press("Enter")
        # the prompt is a live region: the word it returns to is read out
        wait_text(page, limits, f"{RECORDER} .course-recorder-prompt[aria-live=polite]",
                  "word 1 again (Back)", "t.includes('word 1 of 2')", STEP_TIMEOUT_S)
        active = limits.evaluate("the focus after Back", ACTIVE_JS,
                                 [".course-recorder-record", None])
        assert active["matches"], f"Back disabled itself and the focus went to {active}"
        notebook.screenshot("01-recorder")
        widget_violations(limits, RECORDER)

        # --- the panel
        status = f"{PANEL} .course-rate-status[role=status][aria-live=polite]"
        # the "Not refitted" note, empty until a score changes after compare, is a live region
        with limits.wait("the panel's note a live region", STEP_TIMEOUT_S) as ms:
            page.locator(f"{PANEL} .course-rate-note[role=status][aria-live=polite]").wait_for(
                state="attached", timeout=ms)
        seven = tab_to(page, limits, f"{PANEL} .widget-toggle-buttons button[title='fluency 7 "
                                     "of 10']")
        assert seven["outline"] >= 2, seven
        page.keyboard.press("Space")
        wait_text(page, limits, status, "clip 1 scored (Space on 7)", "t === 'clip 1: 7'",
                  STEP_TIMEOUT_S)
        # the chosen score is pressed for a screen reader, the others not
        with limits.wait("the score 7 pressed (aria-pressed)", STEP_TIMEOUT_S) as ms:
            page.wait_for_function(PRESSED_JS, arg=PANEL, timeout=ms, polling=200)
        tab_to(page, limits, f"{PANEL} button", "next clip")
        page.keyboard.press("Enter")
        wait_text(page, limits, f"{PANEL} .course-rate-heading[role=status][aria-live=polite]",
                  "clip 2 shown and announced (Enter on next)", "t.startsWith('Clip 2 of 20')",
                  STEP_TIMEOUT_S)
        # the player is named by the heading before it, the clip it plays
        with limits.wait("the player named after clip 2", STEP_TIMEOUT_S) as ms:
            page.wait_for_function(
                "(panel) => (document.querySelector(panel + ' audio').getAttribute('aria-label')"
                " || '').startsWith('Clip 2 of 20')", arg=PANEL, timeout=ms, polling=200)
        tab_to(page, limits, f"{PANEL} .widget-toggle-buttons button", backwards=True)
        field = tab_to(page, limits, f"{PANEL} input[type=text]")
        # ipywidgets removes a text field's outline with "!important" (tools/contrast.css)
        assert field["outline"] >= 2, f"the file field shows no focus ring: {field}"
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type(SCORES_FILE)
        tab_to(page, limits, f"{PANEL} button", "save")
        page.keyboard.press("Enter")
        saved = wait_text(page, limits, status, "the scores saved (Enter on save)",
                          "t.startsWith('saved')", STEP_TIMEOUT_S)
        assert saved.startswith(f"saved 1 score to {SCORES_FILE}"), saved
        scores = json.loads((lab_server.root_dir / SCORES_FILE).read_text(encoding="utf-8"))
        assert scores["scores"][:2] == [7, None], scores["scores"][:2]
        notebook.screenshot("02-panel")
        widget_violations(limits, PANEL)

        # --- an explorer: the arrow keys change a dropdown's value, not the active cell
        page.keyboard.press("Escape")
        dropdown = tab_to(page, limits, f"{EXPLORER} select")
        assert dropdown["outline"] >= 2, f"the dropdown shows no focus ring: {dropdown}"
        cell, family = limits.evaluate("the active cell and the kernel family",
                                       CELL_AND_VALUE_JS, EXPLORER)
        page.keyboard.press("ArrowDown")
        after = limits.evaluate("the active cell and the kernel family after ArrowDown",
                                CELL_AND_VALUE_JS, EXPLORER)
        assert after == [cell, after[1]] and after[1] != family, \
            f"ArrowDown on the dropdown: (active cell, value) {[cell, family]} -> {after}"
        readout = tab_to(page, limits, f"{EXPLORER} .widget-readout")
        name = limits.evaluate("the readout's name", """() =>
            document.activeElement.getAttribute("aria-label")""")
        assert name, f"a slider's readout is a Tab stop with no name: {readout}"
        # a log slider's handle reports the value and the range's ends, not their exponents,
        # and still does after End moved it by keyboard
        handle = f"{EXPLORER} .noUi-handle[aria-label=lengthscale]"

        def handle_reports_values(handle: str, ends: list[float], moment: str) -> None:
            with limits.wait(f"the handle {handle} reporting values ({moment})",
                             STEP_TIMEOUT_S) as ms:
                page.wait_for_function(HANDLE_JS, arg=[handle, ends], timeout=ms, polling=200)

        tab_to(page, limits, handle)
        handle_reports_values(handle, LENGTHSCALE_RANGE, "as drawn")
        page.keyboard.press("End")
        wait_text(page, limits, f"{EXPLORER} .widget-slider:has(.noUi-handle"
                  "[aria-label=lengthscale]) .widget-readout",
                  "the lengthscale readout at the top end (End)",
                  f"Number(t) === {LENGTHSCALE_RANGE[1]}", STEP_TIMEOUT_S)
        handle_reports_values(handle, LENGTHSCALE_RANGE, "after End")
        notebook.screenshot("03-explorer")
        # a linear slider's handle reports its value and ends, not noUiSlider's one decimal
        answer = f"{ANSWERS} {ANSWER}"
        answer_readout = f"{ANSWERS} .widget-slider:has({ANSWER}) .widget-readout"
        tab_to(page, limits, answer)
        assert page.locator(answer_readout).inner_text() == "0.95"
        handle_reports_values(answer, ANSWER_RANGE, "as drawn")
        assert page.locator(answer).get_attribute("aria-valuenow") == "0.95"
        page.keyboard.press("ArrowLeft")
        wait_text(page, limits, answer_readout, "the answer readout one step down (ArrowLeft)",
                  "t === '0.94'", STEP_TIMEOUT_S)
        handle_reports_values(answer, ANSWER_RANGE, "after ArrowLeft")
        assert page.locator(answer).get_attribute("aria-valuenow") == "0.94"
        assert not findings.problems, [str(p) for p in findings.problems]
    finally:
        chromium.close()
        lab_server.shut_down_kernels()
