"""Be the sixth rater (course_lib.widgets.listener_panel) in JupyterLab, in headless Chromium.

Simulated clicks stand in for the listener: a small notebook shows the panel; the test presses
"compare" before scoring (a one-line message, nothing lost), then scores three clips by clicking
a score and "next", saves the scores to a file, and compares: the figure with the listener as
the sixth rater appears, and the saved file holds the three clicked scores. A clip rescored
after that is marked above the figure as not refitted.
Screenshots: ``ROOT/.test-artifacts/browser/rate-yourself/``.
"""

from __future__ import annotations

import json

from lab_driver import Findings, NotebookPage

RUN_TIMEOUT_S = 240
# GPR-MA and two joint models on 283 sentences, with restarts, on a loaded 2-core machine
COMPARE_TIMEOUT_S = 180
CLICK_TIMEOUT_S = 60
CLICKED = ("7", "4", "9")
SCORES_FILE = "sixth_rater_scores.json"

CELL = f"""from course_lib.widgets.listener_panel import rate_yourself
panel = rate_yourself({SCORES_FILE!r})
panel"""


def status_after(page, limits, what: str, before: str, seconds: float) -> str:
    """The status line once it differs from ``before`` and the kernel is idle again."""
    with limits.wait(what, seconds) as ms:
        page.wait_for_function(
            """(before) => { const s = document.querySelector('.course-rate-status');
                             return s && s.textContent !== before &&
                                    window.courseKernel.status === 'idle'; }""",
            arg=before, timeout=ms, polling=200)
    return page.locator(".course-rate-status").inner_text()


def test_a_listener_scores_saves_and_compares(lab_server, artifacts, browser_context):
    shots = artifacts / "rate-yourself"
    shots.mkdir(parents=True, exist_ok=True)
    notebook_json = {"cells": [{"cell_type": "code", "execution_count": None, "id": "rate0",
                                "metadata": {}, "outputs": [], "source": CELL}],
                     "metadata": {"kernelspec": {"display_name": "Python 3",
                                                 "language": "python", "name": "python3"}},
                     "nbformat": 4, "nbformat_minor": 5}
    (lab_server.root_dir / "rate_check.ipynb").write_text(json.dumps(notebook_json),
                                                          encoding="utf-8")
    findings = Findings(notebook="rate_check.ipynb")
    page = browser_context.new_page()
    try:
        notebook = NotebookPage(page, lab_server, "rate_check.ipynb", shots, findings)
        notebook.open(timeout=RUN_TIMEOUT_S)
        notebook.run_all(timeout=RUN_TIMEOUT_S)
        limits = notebook.limits
        compare = page.get_by_role("button", name="compare me with the panel")
        with limits.wait("the sixth-rater panel", CLICK_TIMEOUT_S) as ms:
            compare.wait_for(state="visible", timeout=ms)
        notebook.screenshot("01-shown")
        status = ""
        compare.click()
        status = status_after(page, limits, "the message of compare with no scores",
                              status, CLICK_TIMEOUT_S)
        assert "score at least 3 clips first" in status, status
        heading = page.locator(".course-rate-heading")
        for number, score in enumerate(CLICKED):
            page.locator(".widget-toggle-buttons button", has_text=score).first.click()
            status = status_after(page, limits, f"clip {number + 1} scored", status,
                                  CLICK_TIMEOUT_S)
            assert status == f"clip {number + 1}: {score}", status
            page.get_by_role("button", name="next clip").click()
            with limits.wait(f"clip {number + 2} shown", CLICK_TIMEOUT_S) as ms:
                page.wait_for_function(
                    """(n) => document.querySelector('.course-rate-heading')
                                  .textContent.startsWith(`Clip ${n} of 20`)""",
                    arg=number + 2, timeout=ms, polling=200)
        assert f"({len(CLICKED)} of 20 scored)" in heading.inner_text()
        page.get_by_role("button", name="save", exact=True).click()
        status = status_after(page, limits, "the scores saved", status, CLICK_TIMEOUT_S)
        assert status.startswith(f"saved {len(CLICKED)} scores"), status
        saved = json.loads((lab_server.root_dir / SCORES_FILE).read_text(encoding="utf-8"))
        assert saved["scores"][:4] == [int(s) for s in CLICKED] + [None]
        page.get_by_role("button", name="previous clip", exact=True).click()     # back to a scored clip
        compare.click()
        status = status_after(page, limits, "the fit with the listener", status,
                              COMPARE_TIMEOUT_S)
        assert status == f"fitted with your {len(CLICKED)} scores as rater 6", status
        figure = page.locator(".course-rate-output img")
        with limits.wait("the comparison figure", CLICK_TIMEOUT_S) as ms:
            figure.wait_for(state="visible", timeout=ms)
        notebook.screenshot("02-compared")
        # clip 3 rescored after compare: the fit is not redone, and the panel says so in place
        page.locator(".widget-toggle-buttons button", has_text="2").first.click()
        status = status_after(page, limits, "clip 3 rescored", status, CLICK_TIMEOUT_S)
        assert status.startswith("clip 3: 2") and "compare again" in status, status
        note = page.locator(".course-rate-note").inner_text()
        assert "Not refitted" in note and f"clip 3: {CLICKED[2]} → 2" in note, note
        notebook.screenshot("03-rescored")
        assert not [p for p in findings.problems], [str(p) for p in findings.problems]
    finally:
        page.close()
        lab_server.shut_down_kernels()
