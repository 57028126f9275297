"""Every lecture in JupyterLab in headless Chromium, as a student meets it.

For each unit of ``tests/course_units.py`` the notebook ``lectures/<unit>.ipynb`` is opened in
the session's JupyterLab (a fresh kernel; one lab page for all the lectures, as a student opens
one after another, unless a lecture's run broke the page), run top to bottom and saved (in the
server's temporary copy), and then every explorer is operated; then the notebook is closed and
its kernel ended. Two tests per lecture share that one notebook:

- ``test_runs_clean``: no error output (unless its cell is tagged as expected), no stderr text,
  no code cell that never ran, every nbval-checked cell printing what the repository stores
  (this is the lectures' nbval run on the machine's own kernels, tests/checked_outputs.py), no notification covering the notebook, every audio player loads
  (duration > 0) and plays, every progress bar is one line high, no error in the browser console
  or as an uncaught page error, no error line in the server/kernel log.
- ``test_explorers_respond``: each control of each explorer moved (sliders to both ends and
  back, a dropdown's or toggle buttons' first and last other option and back, checkboxes on and
  off, text boxes half-typed and back, every button pressed; tests/widget_harness.py takes every
  option in Python); no error text in the explorer, the figure changes whenever the value
  did (see :class:`lab_driver.ExplorerDriver` for the exceptions), audio players filled by the
  explorers load and play, and again no console, page or log error; and axe (WCAG 2.x A/AA,
  :mod:`axe`) finds no violation inside the explorers, before and after they were operated (a
  slider handle without a name is ``aria-input-field-name``). One axe run covers all the
  explorers of a lecture (about a second); only when it finds something does one run per
  explorer name the explorer.

Screenshots and ``report.json`` (problems, notes, every action with its figure hash and two
clocks: ``seconds`` as the test sees it, from operating the control to the figure painted, and
``page_seconds`` by the page's clock, from the input event that asked the kernel to the figure
painted, without the test's own calls into the page; seconds and CPU seconds) are in
``ROOT/.test-artifacts/browser/<unit>/``; the screens of a whole lecture only when its run found
a problem or ``COURSE_SCREENSHOTS=1`` (:mod:`screenshots`).
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass

import axe
import pytest
import screenshots
from course_units import UNITS
from lab_driver import ExplorerDriver, Findings, NotebookPage, one_line
from playwright.sync_api import Error as PlaywrightError

# Time allowed for Run All Cells of one lecture (they take 17-60 s on a quiet 2-core machine).
RUN_TIMEOUT = 600
# Controls whose move may leave an explorer's figure as it was, each with its reason:
# (explorer title, control label) -> why. Anything else must redraw when its value changes
# (a move whose answer is new sound in the explorer's players passes on that).
FIGURE_MAY_STAY: dict[tuple[str, str], str] = {
    ("Be the sixth rater: how fluent is each sentence, 0-10?", "fluency"):
        "a score is recorded on the sheet (the status line says so); the figure shows the panel "
        "fit of the last 'compare', redrawn only when asked",
    ("Be the sixth rater: how fluent is each sentence, 0-10?", "file"):
        "the file name is read when 'save' or 'load' is pressed",
    ("EM for a Gaussian mixture, one step at a time", "var floor"):
        "the floor acts in EM's M-steps; moving it restarts at t = 0, whose initial "
        "covariances lie above every floor the slider offers, so the t = 0 figure is the same",
    ("Baum-Welch, one step at a time", "floor"):
        "the emission floor acts in the re-estimation; moving it restarts from the same random "
        "model, so the figure before the first Step is the same",
    ("Personalise it yourself: which version do you prefer?", "how much"):
        "the strength of the next answer: it changes what the answer buttons record, not the "
        "posterior drawn so far",
    ("Read a sentence aloud: how would the five experts score its accuracy?", "sentence"):
        "the sentence to read next; the panel draws when a recording of it is scored",
    ("Read a sentence aloud: how would the five experts score its accuracy?", "your text"):
        "the typed sentence is read when a recording of it is scored",
    ("Did you hear the tone?", "arm"):
        "each arm has its own session; before any answer the 'mixed' constraint and the "
        "'pseudo' answer at level 0 carry the same knowledge (simulators.psychophysics), "
        "so those two arms draw the same figure until answers arrive",
}


@dataclass
class LectureRun:
    notebook: NotebookPage
    findings: Findings
    failure: str = ""  # the run itself did not finish (timeout, dead page)


def report_problems(run: LectureRun, phase: str) -> None:
    problems = run.findings.problems_of(phase)
    if problems:
        pytest.fail(f"{run.findings.notebook}: {len(problems)} problem(s) "
                    f"({'running all cells' if phase == 'run' else 'operating explorers'}):\n"
                    + "\n".join(f"- {p}" for p in problems), pytrace=False)


@pytest.fixture(scope="module")
def lab_tab(browser_context):
    """The page the lectures open in, one after another: {"page": the page, or None after a run
    that broke it, when the next lecture gets a new one}."""
    tab = {"page": None}
    yield tab
    if tab["page"] is not None:
        tab["page"].close()


@pytest.fixture(scope="module", params=UNITS)
def lecture(request, browser_context, lab_server, artifacts, cpu_seconds, lab_tab):
    """One lecture opened in a fresh kernel, all cells run and saved, the run checked."""
    unit = request.param
    relative = f"lectures/{unit}.ipynb"
    copy = lab_server.root_dir / relative
    assert copy.is_file(), f"{relative}: listed in tests/course_units.py but missing"
    shots = artifacts / unit
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    findings = Findings(relative)
    started, cpu_start, log_start = time.monotonic(), cpu_seconds(), lab_server.log_size()
    if lab_tab["page"] is None:
        lab_tab["page"] = browser_context.new_page()  # with the context's default time limits
    notebook = NotebookPage(lab_tab["page"], lab_server, relative, shots, findings)
    run = LectureRun(notebook, findings)
    try:
        notebook.open()
        notebook.run_all(RUN_TIMEOUT)
        notebook.check_outputs(notebook.save(copy))
        notebook.check_printed_outputs(copy)
        notebook.check_progress_bars()
        notebook.check_audio()
        # every screen of the notebook, for the record: on request, or when the run found a
        # problem (screenshots.py; 400-odd pictures for the seven lectures)
        if screenshots.requested() or findings.problems_of("run"):
            notebook.screenshot_pages()
        else:
            notebook.wait_painted()
    except PlaywrightError as err:
        shot = notebook.screenshot("run-failed")
        run.failure = f"the run did not finish: {one_line(str(err))} [screenshot: {shot}]"
        findings.problem("run", "lecture", run.failure)
    notebook.check_server_log(log_start)
    findings.seconds["open_run_check"] = round(time.monotonic() - started, 1)
    try:
        yield run
    finally:
        findings.seconds["total"] = round(time.monotonic() - started, 1)
        findings.seconds["cpu"] = round(cpu_seconds() - cpu_start, 1)
        findings.write(shots / "report.json")
        try:
            if run.failure:
                raise PlaywrightError(run.failure)
            notebook.close()
        except PlaywrightError:  # the page may be stuck: the next lecture gets a new one
            lab_tab["page"].close()
            lab_tab["page"] = None
        lab_server.shut_down_kernels()


def check_axe(run: LectureRun, when: str) -> None:
    """axe inside the lecture's explorers: each violation a problem of the explorers phase,
    named by explorer, rule and elements. Its seconds add up in ``report.json`` ("axe")."""
    started, notebook = time.monotonic(), run.notebook
    explorers = notebook.explorers()
    if explorers and axe.violations(notebook.limits, include="[data-course-explorer]"):
        for n, info in enumerate(explorers):
            selector = f'[data-course-explorer="{n}"]'
            found = axe.violations(notebook.limits, include=selector)
            if found:
                notebook.page.locator(selector).scroll_into_view_if_needed()
                shot = notebook.screenshot(f"axe-e{n + 1:02d}-{when.split()[0]}")
                run.findings.problem("explorers", ExplorerDriver(notebook, n, info, {}).name,
                                     f"axe {when}: {axe.summary(found)}", shot)
    seconds = run.findings.seconds
    seconds["axe"] = round(seconds.get("axe", 0) + time.monotonic() - started, 1)


def test_runs_clean(lecture):
    report_problems(lecture, "run")


def test_explorers_respond(lecture, lab_server):
    if lecture.failure:
        pytest.fail(f"{lecture.findings.notebook}: explorers not operated, {lecture.failure}",
                    pytrace=False)
    started, log_start = time.monotonic(), lab_server.log_size()
    notebook = lecture.notebook
    check_axe(lecture, "before the controls were moved")
    notebook.operate_all(FIGURE_MAY_STAY)
    check_axe(lecture, "after the controls were moved")
    notebook.check_audio()
    notebook.check_server_log(log_start)
    lecture.findings.seconds["explorers"] = round(time.monotonic() - started, 1)
    assert lecture.findings.actions, f"{lecture.findings.notebook}: no explorer control found"
    report_problems(lecture, "explorers")
