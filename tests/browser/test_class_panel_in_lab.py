"""The lecturer's class notebook (class/class_panel.ipynb) in JupyterLab, in headless Chromium.

The notebook runs as a lecturer runs it before class, on its dry run (30 simulated students):
every cell runs without an error or stderr text, the five class figures show with their
descriptions as alt text, and what the projector shows is counts and pseudonyms (the collection
printed as counts by reason, no folder). axe (WCAG 2.x A/AA) checks the outputs. Screenshots,
one screen at a time: ``ROOT/.test-artifacts/browser/class-panel/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import axe
from lab_driver import Findings, NotebookPage

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = 300     # the class's models and five figures on a loaded 2-core machine
NOTEBOOK = "class_panel.ipynb"


def test_the_class_notebook_runs_and_shows_counts_and_figures(lab_server, artifacts,
                                                              browser_context):
    shots = artifacts / "class-panel"
    shots.mkdir(parents=True, exist_ok=True)
    copy = lab_server.root_dir / NOTEBOOK
    shutil.copy(ROOT / "class" / NOTEBOOK, copy)
    findings = Findings(notebook=NOTEBOOK)
    page = browser_context.new_page()
    try:
        notebook = NotebookPage(page, lab_server, NOTEBOOK, shots, findings)
        notebook.open(timeout=RUN_TIMEOUT_S)
        notebook.run_all(timeout=RUN_TIMEOUT_S)
        saved = notebook.save(copy)
        notebook.check_outputs(saved)
        alts = page.locator(".jp-OutputArea img[alt]")
        assert alts.count() == 5, f"{alts.count()} described figures, expected 5"
        shown = page.locator(".jp-OutputArea").all_inner_texts()
        assert any("60 file(s) read: 60 counted, 0 superseded, 0 left out" in text
                   for text in shown), shown[:2]
        assert not any("/tmp" in text or ".json" in text for text in shown)
        notebook.screenshot_pages()
        found = axe.violations(notebook.limits, include=".jp-Notebook .jp-OutputArea")
        assert not found, axe.summary(found)
        assert not findings.problems, [str(p) for p in findings.problems]
    finally:
        page.close()
        lab_server.shut_down_kernels()
