"""Session fixtures of the browser tests; every test file in tests/browser/ may use them.

- ``chromium_executable``: the Chromium binary (:func:`chromium.chromium_path`). No Chromium is
  a failure, never a skip: ``course.py test`` leaves this folder out itself when there is none.
- ``browser``: one headless Chromium for the whole session, launched by Playwright with
  :data:`chromium.CHROMIUM_FLAGS` (Playwright's own browser download is never used). Open pages
  in a fresh context made by :func:`time_limits.new_context` (the laptop viewport and the default
  time limits of every wait), and close the context when done::

      context = new_context(browser)
      page = context.new_page()

  Run scripts in a page with :meth:`time_limits.TimeLimits.evaluate`, never ``page.evaluate``
  (which has no time limit), and name other waits with :meth:`time_limits.TimeLimits.wait`.
- ``browser_context``: one such context for the session (JupyterLab's scripts are fetched once
  and cached); open a page per notebook and close it when done.

- ``artifacts``: ``ROOT/.test-artifacts/browser/`` (gitignored); give each page or notebook its
  own subfolder for screenshots and a ``report.json``.
- ``lab_server``: one JupyterLab for the session, started by :class:`lab_driver.LabServer`
  with ``course.py``'s command line, serving a temporary copy of ``lectures/`` (autosave never
  touches the repository; ``lab_server.root_dir`` is the served folder); its log is
  ``artifacts/jupyterlab.log``.
- ``cpu_seconds``: a function giving the CPU seconds used so far by this process and every live
  process under it (the server, its kernels, Playwright's driver and Chromium).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import psutil
import pytest
from chromium import CHROMIUM_FLAGS, HOW_TO_ENABLE, chromium_path
from lab_driver import ROOT, LabServer
from playwright.sync_api import sync_playwright
from time_limits import new_context

ARTIFACTS = ROOT / ".test-artifacts" / "browser"
# Chromium starts in seconds; a loaded machine gets a minute before the session fails.
LAUNCH_TIMEOUT_S = 60


@pytest.fixture(scope="session")
def chromium_executable() -> Path:
    path = chromium_path()
    if path is None:
        pytest.fail(f"no Chromium for the browser tests: {HOW_TO_ENABLE}")
    return path


@pytest.fixture(scope="session")
def browser(chromium_executable):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_executable),
                                             headless=True, args=CHROMIUM_FLAGS,
                                             timeout=LAUNCH_TIMEOUT_S * 1000)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def browser_context(browser):
    """One context (one HTTP cache: JupyterLab's scripts load once) with the laptop viewport."""
    context = new_context(browser)
    yield context
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def lab_server(artifacts):
    with tempfile.TemporaryDirectory(prefix="course-lab-") as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(ROOT / "lectures", root / "lectures",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        server = LabServer(root, Path(tmp), artifacts / "jupyterlab.log")
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="session")
def cpu_seconds():
    me = psutil.Process()

    def used() -> float:
        total = sum(me.cpu_times()[:2])
        for child in me.children(recursive=True):
            try:
                total += sum(child.cpu_times()[:2])
            except psutil.Error:  # ended meanwhile
                pass
        return total

    return used
