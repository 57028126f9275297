"""JupyterLab as a student meets it, driven from headless Chromium: the server and one notebook.

:class:`LabServer` starts JupyterLab with ``course.py``'s own command line and environment on a
temporary copy of the lectures. :class:`NotebookPage` opens one notebook in a Playwright page,
runs all cells, checks what a student would see (error outputs, cells that never ran, audio
players, progress bars), screenshots the whole notebook and operates every explorer.

Findings go into a :class:`Findings` object: ``problems`` fail the tests, ``notes`` are kept in
``report.json`` for a reader. Synchronisation is on conditions, not sleeps: the browser's own
kernel status (busy, then idle) after every action, then the figures decoded and two frames
painted. Every wait has a time limit (:mod:`time_limits`): every script in the page runs through
:meth:`time_limits.TimeLimits.evaluate`, the server's HTTP calls and process waits have timeouts.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import lab_actions
import nbformat
import screenshots
from checked_outputs import differences
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from time_limits import DEFAULT_TIMEOUT_S, TimeLimits, slug

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# the repository's course.py: the lab's command line, environment and settings overrides
import course

STDERR_MIME = "application/vnd.jupyter.stderr"
# Cells whose error output is part of the lesson carry one of these tags (nbval honours them).
EXPECTED_ERROR_TAGS = {"raises-exception", "nbval-raises-exception"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# A progress bar taller than this many single lines has wrapped.
MAX_PROGRESS_LINES = 1.5
# Settings for the test server only, merged over course.py's overrides: render every cell at
# once (no windowing), so the scrolled screenshots reach the end of a long notebook and every
# explorer is in the page while it is operated. Students get JupyterLab's default.
TEST_SETTING_OVERRIDES = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
# Variables the test command sets that would change what a student sees in the lab: progress
# bars must render (TQDM_DISABLE unset) and matplotlib must pick the notebook's backend.
TEST_ONLY_VARIABLES = ("TQDM_DISABLE", "MPLBACKEND")
# Playwright's default CSS engine also looks inside shadow roots, and to find them it walks
# every element of the page at each lookup: 4.7 of the renderer's 20 busy seconds while lecture
# 02's explorers were operated. The explorers and their controls are in no shadow root (a
# control not found fails its action), so their locators take the light engine, which is the
# browser's own querySelectorAll.
LIGHT_DOM = "css:light="


def one_line(text: str, limit: int = 300) -> str:
    """The first line of ``text`` and, for longer text, its last non-empty line."""
    lines = [line.rstrip() for line in ANSI.sub("", text).strip().splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"
    return line if len(line) <= limit else line[:limit] + "..."


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# Findings


@dataclass
class Problem:
    """One thing a student would meet: where (cell, explorer, control), what, a screenshot."""

    phase: str  # "run" (all cells, audio, progress bars, page) or "explorers"
    where: str
    what: str
    screenshot: str = ""

    def __str__(self) -> str:
        shot = f" [screenshot: {self.screenshot}]" if self.screenshot else ""
        return f"{self.where}: {self.what}{shot}"


@dataclass
class Findings:
    notebook: str
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    actions: list[dict] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def problem(self, phase: str, where: str, what: str, screenshot: str | Path = "") -> None:
        self.problems.append(Problem(phase, where, what, str(screenshot)))

    def problems_of(self, phase: str) -> list[Problem]:
        return [p for p in self.problems if p.phase == phase]

    def controls_operated(self) -> int:
        return len({(a["explorer"], a["control"]) for a in self.actions})

    def write(self, path: Path) -> None:
        report = asdict(self)
        report["controls_operated"] = self.controls_operated()
        path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# The server


class LabServer:
    """JupyterLab started as ``python3 course.py lab`` starts it, serving ``root_dir``.

    Added for the tests: a known token, a free port, ``--no-browser``, the app exposed to the
    page (``window.jupyterapp``: the tests read the kernel status and run commands through it),
    fresh user settings and workspaces (a first start), and :data:`TEST_SETTING_OVERRIDES`.
    """

    def __init__(self, root_dir: Path, state_dir: Path, log_path: Path):
        self.root_dir = root_dir
        self.port = free_port()
        self.token = secrets.token_hex(24)
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        settings_dir = self._write_overrides(state_dir / "prefix")
        env = course.lab_environment()
        for name in TEST_ONLY_VARIABLES:
            env.pop(name, None)
        env["JUPYTERLAB_SETTINGS_DIR"] = str(state_dir / "user-settings")
        env["JUPYTERLAB_WORKSPACES_DIR"] = str(state_dir / "workspaces")
        command = course.lab_command(Path(sys.executable), root_dir, [
            "--no-browser", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", "--LabApp.expose_app_in_browser=True",
            f"--LabApp.app_settings_dir={settings_dir}"])
        self._log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 (open until stop())
        self.process = subprocess.Popen(command, cwd=root_dir, env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_until_up(timeout=120)

    @staticmethod
    def _write_overrides(prefix: Path) -> Path:
        """course.py's settings overrides (as ``course.py lab`` writes them into the venv),
        plus this server's own; returns the settings directory."""
        venv_overrides = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / \
            "overrides.json"
        path = course.write_lab_overrides(prefix)
        # the contrast CSS, where `course.py lab` puts it: in the environment the server runs in
        course.write_lab_css(Path(sys.prefix))
        settings = json.loads(venv_overrides.read_text(encoding="utf-8")) \
            if venv_overrides.exists() else {}
        for plugin, values in json.loads(path.read_text(encoding="utf-8")).items():
            settings[plugin] = {**settings.get(plugin, {}), **values}
        for plugin, values in TEST_SETTING_OVERRIDES.items():
            settings[plugin] = {**settings.get(plugin, {}), **values}
        path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        return path.parent

    def api(self, method: str, path: str, timeout: float = 10):
        request = urllib.request.Request(self.base + path, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def _wait_until_up(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with status {self.process.returncode}; "
                                   f"see {self.log_path}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                self.api("GET", "/api/status", timeout=2)
                return
            time.sleep(0.25)  # polling a port: there is no event to wait for
        raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s; see {self.log_path}")

    def url(self, relative_path: str) -> str:
        return f"{self.base}/lab/tree/{relative_path}?reset&token={self.token}"

    def shut_down_kernels(self) -> None:
        """End every session and its kernel, so the next notebook starts a fresh one."""
        with contextlib.suppress(OSError, urllib.error.URLError):
            for session in self.api("GET", "/api/sessions"):
                self.api("DELETE", f"/api/sessions/{session['id']}")

    def log_size(self) -> int:
        self._log.flush()
        return self.log_path.stat().st_size

    def log_errors(self, since: int) -> list[str]:
        """Error lines of the server's log from byte ``since`` on (kernel stderr included)."""
        self._log.flush()
        with open(self.log_path, "rb") as log:
            log.seek(since)
            text = ANSI.sub("", log.read().decode("utf-8", errors="replace"))
        return [line.strip()[:300] for line in text.splitlines()
                if line.startswith(("[E ", "[C ", "Traceback"))]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.shut_down_kernels()
            with contextlib.suppress(OSError, urllib.error.URLError):
                self.api("POST", "/api/shutdown", timeout=5)
            # asked to shut down; if it has not ended 15 s later, SIGTERM, then SIGKILL
            for stop_signal in (None, signal.SIGTERM, signal.SIGKILL):
                if stop_signal is not None:
                    os.killpg(self.process.pid, stop_signal)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=15)
                    break
        self._log.close()


# ---------------------------------------------------------------------------------------------
# In-page JavaScript

# Follows the kernel status the page itself sees (the toolbar's indicator), counting busy
# periods (for Run All), and every request the page sends the kernel (a widget's comm message is
# one) until the kernel reports idle for that very request: a busy period alone may belong to an
# earlier message, which answered a typed entry before the kernel had even read it.
TRACK_KERNEL_JS = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.ready;
  const track = {busy: 0, status: panel.sessionContext.kernelDisplayStatus, recent: [],
                 sent: 0, pending: new Set(), marks: {}};
  // the page's clock for an action (ACTION_START_JS resets it): the last input event before
  // its first request to the kernel, that request, and the figure painted (PAINTED_JS)
  for (const type of ['keydown', 'pointerdown', 'input', 'change'])
    document.addEventListener(type, () => {
      if (track.marks.request === undefined) track.marks.input = performance.now();
    }, true);
  panel.sessionContext.statusChanged.connect((_, status) => {
    track.status = status;
    if (status === 'busy') track.busy += 1;
    track.recent = [...track.recent.slice(-9), `${performance.now().toFixed(0)} ${status}`];
  });
  panel.sessionContext.session.kernel.anyMessage.connect((_, {msg, direction}) => {
    if (direction === 'send' && msg.channel === 'shell') {
      track.sent += 1;
      track.pending.add(msg.header.msg_id);
      track.marks.request ??= performance.now();
    } else if (direction === 'recv' && msg.channel === 'iopub' &&
               msg.header.msg_type === 'status' && msg.content.execution_state === 'idle') {
      track.pending.delete(msg.parent_header.msg_id);
    }
  });
  window.courseKernel = track;
}"""

KERNEL_BUSY_JS = "() => window.courseKernel.busy"
REQUESTS_SENT_JS = "() => window.courseKernel.sent"
# before an action: its clock reset; the requests sent so far
ACTION_START_JS = "() => { window.courseKernel.marks = {}; return window.courseKernel.sent; }"

# The kernel has answered an action: the page sent it a request after the action, and the kernel
# has gone idle after every request the page sent.
ANSWERED_JS = """(sentBefore) => window.courseKernel.sent > sentBefore &&
  window.courseKernel.pending.size === 0 && window.courseKernel.status === 'idle'"""

# Run All has started (the kernel went busy, or a cell has its execution count), the kernel is
# idle and no cell is still waiting ("[*]").
NOTEBOOK_FINISHED_JS = r"""(busyBefore) => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-InputPrompt')]
      .map(p => p.textContent);
  return (window.courseKernel.busy > busyBefore || prompts.some(t => /\[\d+\]/.test(t))) &&
      window.courseKernel.status === 'idle' && !prompts.some(t => t.includes('[*]'));
}"""

# Figures in `root` decoded and two frames painted since.
PAINTED_JS = """async (selector) => {
  const root = document.querySelector(selector) || document;
  await Promise.all([...root.querySelectorAll('img')].map(img => img.decode().catch(() => {})));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  if (window.courseKernel) window.courseKernel.marks.painted = performance.now();
}"""

SCROLLER_JS = """() => {
  const notebook = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  return [notebook.querySelector('.jp-WindowedPanel-outer'), notebook]
      .find(e => e && e.scrollHeight > e.clientHeight) || notebook;
}"""

# Every top-level displayed widget (an output holding a widget view, not one nested in another
# widget's output), marked data-course-explorer=N; returns their titles.
MARK_EXPLORERS_JS = """() => {
  const all = [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]
      .filter(el => el.querySelector(':scope > .jupyter-widgets'));
  const top = all.filter(el => !all.some(other => other !== el && other.contains(el)));
  return top.map((el, i) => {
    el.setAttribute('data-course-explorer', String(i));
    const cell = el.closest('.jp-Cell');
    const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
    const title = el.querySelector('.widget-html b');
    return {cell: cells.indexOf(cell) + 1, title: title ? title.textContent.trim() : ''};
  });
}"""

# The controls of explorer N (not those inside its own output widgets), in page order, marked
# data-course-control="N-K"; returns their kinds and labels.
MARK_CONTROLS_JS = """(n) => {
  const root = document.querySelector(`[data-course-explorer="${n}"]`);
  const insideOutput = el => { const out = el.closest('.widget-output');
                               return out && root.contains(out); };
  const kinds = [
    ['slider', '.widget-slider'], ['dropdown', '.widget-dropdown'],
    ['toggle-buttons', '.widget-toggle-buttons'], ['checkbox', '.widget-checkbox'],
    ['text', '.widget-text, .widget-textarea'],
    ['button', 'button.widget-button:not(.widget-toggle-button)'],
  ];
  const found = [];
  for (const [kind, selector] of kinds)
    for (const el of root.querySelectorAll(selector)) {
      if (insideOutput(el)) continue;
      // a checkbox's description is in its own label; empty labels hold a zero-width space
      const label = [...el.querySelectorAll(':scope > .widget-label, .widget-label-basic')]
          .map(l => l.textContent.replace(/\u200b/g, '').trim()).find(Boolean);
      const number = kind === 'text' && el.querySelector('input[type=number]');
      found.push({el, kind: number ? 'number' : kind,
                  label: label || (el.textContent || '').trim() || kind});
    }
  found.sort((a, b) => a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING
                       ? -1 : 1);
  return found.map((f, k) => {
    f.el.setAttribute('data-course-control', `${n}-${k}`);
    return {kind: f.kind, label: f.label};
  });
}"""

# What an explorer shows: its figures (image data), error text (stderr, the explorer's red
# "Not drawn" line), all its text, its size.
# Figures and players by the SHA-1 of their source (hex), not the source itself: a figure's
# data URL is some hundred kB, and sending it from the page twice per action cost more than
# the action.
EXPLORER_STATE_JS = """async ([selector, mime]) => {
  const root = document.querySelector(selector);
  const box = root.getBoundingClientRect();
  const sha1 = async text => [...new Uint8Array(await crypto.subtle.digest(
      'SHA-1', new TextEncoder().encode(text)))].map(b => b.toString(16).padStart(2, '0'))
      .join('');
  return {
    images: await Promise.all([...root.querySelectorAll('img')].map(img => sha1(img.src))),
    stderr: [...root.querySelectorAll(`[data-mime-type="${mime}"]`)].map(e => e.textContent),
    not_drawn: [...root.querySelectorAll('.widget-output span')]
        .map(e => e.textContent).filter(t => t.startsWith('Not drawn')),
    audio: await Promise.all([...root.querySelectorAll('audio')].map(a => sha1(a.src))),
    text: root.innerText,
    height: box.height,
  };
}"""

# Each <audio> element: wait for its metadata (or its error), then play and pause it.
AUDIO_JS = """async (timeoutMs) => {
  const within = (promise) => Promise.race([promise, new Promise(r =>
      setTimeout(() => r('no answer within ' + timeoutMs + ' ms'), timeoutMs))]);
  const players = [...document.querySelectorAll('.jp-Notebook audio')];
  const results = [];
  for (const [index, audio] of players.entries()) {
    const cell = [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
        .indexOf(audio.closest('.jp-Cell')) + 1;
    const src = audio.currentSrc || audio.src ||
        (audio.querySelector('source') || {}).src || '';
    let bytes = null;
    if (src.startsWith('blob:')) bytes = (await (await fetch(src)).blob()).size;
    const result = {index, cell, bytes, widget: audio.classList.contains('jupyter-widgets')};
    if (bytes === 0) { result.empty = true; results.push(result); continue; }
    if (audio.readyState < 1 && !audio.error) {
      result.loaded = await within(new Promise(resolve => {
        audio.addEventListener('loadedmetadata', () => resolve('ok'), {once: true});
        audio.addEventListener('error', () => resolve('error'), {once: true});
        if (audio.networkState === HTMLMediaElement.NETWORK_EMPTY) audio.load();
      }));
    }
    result.duration = audio.duration;
    result.error = audio.error ? `media error ${audio.error.code} ${audio.error.message}` : '';
    if (!result.error && audio.duration > 0) {
      result.play = await within(audio.play().then(() => 'ok', e => String(e)));
      audio.pause();
      audio.currentTime = 0;
    }
    results.push(result);
  }
  return results;
}"""

# Each progress bar (ipywidgets' horizontal progress, as tqdm.auto shows it in the lab): the
# height of its row (bar with its text) against one line of widget height.
PROGRESS_JS = """() => {
  const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  return [...document.querySelectorAll('.jp-Notebook .widget-hprogress')].map(bar => {
    const row = bar.closest('.widget-hbox') || bar;
    const line = parseFloat(getComputedStyle(bar)
        .getPropertyValue('--jp-widgets-inline-height')) || bar.getBoundingClientRect().height;
    return {cell: cells.indexOf(bar.closest('.jp-Cell')) + 1, text: row.innerText.trim(),
            height: row.getBoundingClientRect().height, line};
  });
}"""


# ---------------------------------------------------------------------------------------------
# One notebook in one page


class NotebookPage:
    """One notebook open in JupyterLab in ``page``; findings and screenshots of it."""

    def __init__(self, page: Page, server: LabServer, relative_path: str, shots: Path,
                 findings: Findings, *, settle_timeout: float = 60.0):
        self.page, self.server, self.path = page, server, relative_path
        self.shots, self.findings = shots, findings
        self.limits = TimeLimits(page, shots, name=relative_path)
        self.settle_timeout_ms = settle_timeout * 1000
        self.phase = "run"
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.findings.problem(self.phase, "browser console", one_line(message.text))

    def _on_page_error(self, error) -> None:
        self.findings.problem(self.phase, "browser",
                              f"uncaught page error: {one_line(str(error))}")

    def screenshot(self, name: str, jpeg: bool = False) -> str:
        path = self.shots / f"{name}.{'jpg' if jpeg else 'png'}"
        # The caret does not matter in these pictures; hiding it (Playwright's default) restyles
        # the page around every shot.
        self.page.screenshot(path=str(path), caret="initial",
                             **({"type": "jpeg", "quality": 85} if jpeg else {}))
        self.findings.screenshots.append(str(path))
        return str(path)

    # --- opening and running -----------------------------------------------------------------

    def busy_periods(self) -> int:
        return self.limits.evaluate("the kernel's busy count (KERNEL_BUSY_JS)", KERNEL_BUSY_JS)

    def requests_sent(self) -> int:
        return self.limits.evaluate("the requests sent to the kernel (REQUESTS_SENT_JS)",
                                    REQUESTS_SENT_JS)

    def open(self, timeout: float = 120.0) -> None:
        """Open the notebook: in the JupyterLab this page already shows, as a student opens the
        next lecture (JupyterLab's scripts start once), or else by loading the lab at it."""
        page, limits = self.page, self.limits
        if page.url.startswith(self.server.base) and limits.evaluate(
                "JupyterLab already in the page", "() => Boolean(window.jupyterapp)"):
            limits.evaluate("the notebook opened (docmanager:open)", """(path) =>
                window.jupyterapp.commands.execute('docmanager:open', {path}).then(() => true)""",
                            self.path, seconds=timeout)
        else:
            with limits.wait("JupyterLab's page (goto)", timeout) as limit_ms:
                page.goto(self.server.url(self.path), wait_until="domcontentloaded",
                          timeout=limit_ms)
        with limits.wait("the notebook panel and its session", timeout) as limit_ms:
            page.wait_for_function("""(path) => { const shell = window.jupyterapp &&
                window.jupyterapp.shell; const panel = shell && shell.currentWidget;
                return panel && panel.context && panel.context.path === path &&
                    panel.sessionContext; }""", arg=self.path, timeout=limit_ms)
        limits.evaluate("the kernel session ready (TRACK_KERNEL_JS)", TRACK_KERNEL_JS,
                        seconds=timeout)
        with limits.wait("the kernel idle after its start", timeout) as limit_ms:
            page.wait_for_function("() => window.courseKernel.status === 'idle'",
                                   timeout=limit_ms)
        limits.evaluate("JupyterLab's layout restored (jupyterapp.restored)",
                        "() => window.jupyterapp.restored", seconds=timeout)
        covering = page.locator(".Toastify__toast, .jp-Dialog").all_inner_texts()
        shot = self.screenshot("00-start") if covering or screenshots.requested() else ""
        for text in covering:
            self.findings.problem("run", "page at start", f"a notification or dialog covers "
                                  f"the notebook: {one_line(text)}", shot)

    def close(self) -> None:
        """Close the notebook without a save dialog (its kernel is the server's to end), and
        stop taking the page's console and errors as this notebook's."""
        self.limits.evaluate("the notebook closed", """(path) => {
            const panel = window.jupyterapp.shell.currentWidget;
            if (panel && panel.context && panel.context.path === path) panel.dispose();
            return true; }""", self.path)
        self.page.remove_listener("console", self._on_console)
        self.page.remove_listener("pageerror", self._on_page_error)

    def run_all(self, timeout: float) -> float:
        """Run > Run All Cells; wait until the kernel is idle and no cell is pending."""
        started = time.monotonic()
        busy = self.busy_periods()
        # the command's promise settles when the last cell has run
        self.limits.evaluate("Run All Cells (notebook:run-all-cells)", "() => window.jupyterapp"
                             ".commands.execute('notebook:run-all-cells')", seconds=timeout)
        left = max(1.0, timeout - (time.monotonic() - started))
        with self.limits.wait("every cell run, the kernel idle (NOTEBOOK_FINISHED_JS)",
                              left) as limit_ms:
            self.page.wait_for_function(NOTEBOOK_FINISHED_JS, arg=busy, timeout=limit_ms,
                                        polling=250)
        seconds = time.monotonic() - started
        self.findings.seconds["run_all_cells"] = round(seconds, 1)
        return seconds

    def save(self, copy: Path, timeout: float = 60.0) -> dict:
        """Save through JupyterLab (as a student's Ctrl+S) and return the saved notebook."""
        # a dialog (say, the file changed on disk) would hold the command's promise for ever
        self.limits.evaluate("Save (docmanager:save)", "() => window.jupyterapp.commands"
                             ".execute('docmanager:save')", seconds=timeout)
        with self.limits.wait("the notebook saved (model not dirty)", timeout) as limit_ms:
            self.page.wait_for_function("""() => !window.jupyterapp.shell.currentWidget
                                            .context.model.dirty""", timeout=limit_ms)
        return json.loads(copy.read_text(encoding="utf-8"))

    # --- checks after the run ----------------------------------------------------------------

    def check_outputs(self, notebook: dict) -> None:
        """Error outputs (unless tagged as expected), stderr text, code cells that never ran,
        figures without their cell's descriptions as alt text (plotting.lab_descriptions)."""
        findings, not_run, described = self.findings, [], 0
        for index, cell in enumerate(notebook["cells"], start=1):
            if cell["cell_type"] != "code":
                continue
            if "".join(cell["source"]).strip() and cell.get("execution_count") is None:
                not_run.append(index)
            # every PNG a cell shows (a figure, or a committed one from its file) has an alt
            pngs = sum("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
            alts = [html.unescape(alt) for output in cell.get("outputs", [])
                    for alt in re.findall(r'<img [^>]*alt="([^"]*)"',
                                          "".join(output.get("data", {}).get("text/html", "")))]
            wanted = cell.get("metadata", {}).get("figure_descriptions", [])
            if pngs and alts != wanted:
                findings.problem("run", f"cell {index}", f"figure alt texts {alts} in the lab, "
                                 f"the cell's descriptions are {wanted}")
            described += len(alts)
            tags = set(cell.get("metadata", {}).get("tags", []))
            for output in cell.get("outputs", []):
                if output["output_type"] == "error":
                    text = f"{output['ename']}: {one_line(output['evalue'], 200)}"
                    if tags & EXPECTED_ERROR_TAGS:
                        findings.notes.append(f"cell {index}: expected (tagged) error {text}")
                    else:
                        findings.problem("run", f"cell {index}", f"error output {text}")
                elif output["output_type"] == "stream" and output["name"] == "stderr":
                    text = "".join(output["text"])
                    findings.problem("run", f"cell {index}", f"stderr text a student sees: "
                                     f"{one_line(text, 200)}")
        if not_run:
            findings.problem("run", f"cells {', '.join(map(str, not_run))}",
                             "code cells never ran (execution stopped before them?)")
        if not described and any(cell.get("metadata", {}).get("figure_descriptions")
                                 for cell in notebook["cells"]):
            findings.problem("run", "figures", "no figure carries its cell's description as "
                             "alt text in the lab")

    def check_printed_outputs(self, saved: Path) -> None:
        """The nbval-checked cells print in the lab, on the machine's own kernels and as a
        student opens the notebook, what the repository stores (tests/checked_outputs.py)."""
        stored = nbformat.read(ROOT / self.path, as_version=4)
        n_checked, problems = differences(nbformat.read(saved, as_version=4), stored,
                                          self.path)
        for problem in problems:
            self.findings.problem("run", "checked output", problem)
        if not n_checked:
            self.findings.problem("run", "checked output", "no nbval-checked cell found")

    def wait_painted(self) -> None:
        """Every figure of the notebook decoded and painted (what :meth:`screenshot_pages`
        waits for before each screen, when no screenshot is wanted)."""
        self.limits.evaluate("the notebook's figures painted (PAINTED_JS)", PAINTED_JS,
                             ".jp-Notebook")

    def screenshot_pages(self) -> int:
        """Screenshots scrolled one screen (90 %) at a time to the notebook's end; the height is
        measured again after every step, so a notebook that grows while scrolled is covered."""
        limits, number, top = self.limits, 0, 0
        while True:
            height, client = limits.evaluate(
                "the notebook's height (SCROLLER_JS)", f"() => {{ const el = ({SCROLLER_JS})();"
                f" return [el.scrollHeight, el.clientHeight]; }}")
            if number and top >= height - client + 1:
                break
            limits.evaluate(f"the notebook scrolled to {top} px (SCROLLER_JS)",
                            f"(top) => {{ ({SCROLLER_JS})().scrollTop = top; }}", top)
            limits.evaluate("the notebook's figures painted (PAINTED_JS)", PAINTED_JS,
                            ".jp-Notebook")
            number += 1
            # JPEG: a third less CPU than PNG over the 400-odd pages of the seven lectures
            self.screenshot(f"page-{number:02d}", jpeg=True)
            top += max(200, int(client * 0.9))
        self.findings.notes.append(f"{number} page screenshots ({height} px of notebook)")
        return number

    def check_audio(self, timeout_ms: int = 10_000) -> None:
        """Every audio player loads (duration > 0) and plays; empty widget players are noted."""
        players = self.limits.evaluate("the number of audio players",
                                       "() => document.querySelectorAll('.jp-Notebook audio')"
                                       ".length")
        # AUDIO_JS gives a player's metadata and its play() timeout_ms each (its bytes are
        # read from a local blob): the whole gets that for every player, and a spare
        seconds = 10 + players * 3 * timeout_ms / 1000
        for player in self.limits.evaluate("every audio player loaded and played (AUDIO_JS)",
                                           AUDIO_JS, timeout_ms, seconds=seconds):
            where = f"cell {player['cell']}, audio player {player['index'] + 1}"
            if player.get("empty"):
                self.findings.notes.append(f"{where}: widget player with nothing to play yet")
                continue
            if player["error"] or not player["duration"] or not player["duration"] > 0:
                self.findings.problem(self.phase, where, f"does not load: duration "
                                      f"{player['duration']}, {player['error'] or player.get('loaded')}")
            elif player.get("play") != "ok":
                self.findings.problem(self.phase, where, f"play() failed: {player.get('play')}")
            else:
                self.findings.notes.append(f"{where}: {player['duration']:.2f} s, plays")

    def check_progress_bars(self) -> None:
        """Every progress bar is one line high (its text does not wrap)."""
        for index, bar in enumerate(self.limits.evaluate("the progress bars' heights "
                                                         "(PROGRESS_JS)", PROGRESS_JS)):
            if bar["height"] > MAX_PROGRESS_LINES * bar["line"]:
                self.page.locator(".jp-Notebook .widget-hprogress").nth(index) \
                    .scroll_into_view_if_needed()
                self.findings.problem(
                    "run", f"cell {bar['cell']}", f"progress bar '{one_line(bar['text'], 120)}'"
                    f" is {bar['height']:.0f} px high, more than one line ({bar['line']:.0f} px)",
                    self.screenshot(f"progress-{index + 1:02d}"))
            else:
                self.findings.notes.append(f"cell {bar['cell']}: progress bar one line "
                                           f"({bar['height']:.0f} px): {one_line(bar['text'])}")

    def check_server_log(self, since: int) -> None:
        for line in self.server.log_errors(since):
            self.findings.problem(self.phase, "server/kernel log", line)

    # --- explorers ---------------------------------------------------------------------------

    def explorers(self) -> list[dict]:
        return self.limits.evaluate("the explorers (MARK_EXPLORERS_JS)", MARK_EXPLORERS_JS)

    def operate_all(self, figure_may_stay: dict[tuple[str, str], str]) -> None:
        self.phase = "explorers"
        for n, explorer in enumerate(self.explorers()):
            driver = ExplorerDriver(self, n, explorer, figure_may_stay)
            # reading a control or scrolling to the explorer (the context's default limit);
            # an action's own failures are its problems, see ExplorerDriver.act
            with self.limits.wait(driver.name, DEFAULT_TIMEOUT_S):
                driver.operate()


@dataclass
class Action:
    """One move of a control. ``not_there()`` (None: always moves) is True while the control is
    not yet at the action's target: asked before (skip a move to where it already is) and
    after (a control that refused the input)."""

    what: str
    perform: Callable[[], object]
    not_there: Callable[[], bool] | None = None
    typed: bool = False  # an entry typed into a box: "Not drawn" is an allowed answer


class ExplorerDriver:
    """Moves every control of one explorer and checks how the explorer answers.

    Per action: wait for the kernel's answer (busy, then idle, as the page sees it), then for
    the figures to be decoded and painted; compare the figure with the one before (a screenshot
    of the page as the action left it when it shows a problem, and of each explorer as first
    shown).

    The figure must change whenever the control's value changed, except
    - a typed entry (a half-typed text, another number in a number box) that the explorer
      answers with its one-line red "Not drawn: ..." message instead of a figure: its designed
      answer to input it cannot draw (anywhere else that message is a problem);
    - a (explorer title, control label) pair listed in ``figure_may_stay`` with its reason
      (also when a panel that draws only on request had no figure before and after).
    A button must change the figure or the explorer's text (status line, printed answer).
    Text shown on stderr in an explorer (a traceback) is always a problem.
    """

    def __init__(self, notebook: NotebookPage, n: int, info: dict,
                 figure_may_stay: dict[tuple[str, str], str]):
        self.nb, self.page, self.findings = notebook, notebook.page, notebook.findings
        self.limits = notebook.limits
        self.n, self.info, self.figure_may_stay = n, info, figure_may_stay
        self.selector = f'[data-course-explorer="{n}"]'  # for scripts in the page
        self.explorer = self.page.locator(LIGHT_DOM + self.selector)
        self.name = f"explorer {n + 1} (cell {info['cell']}" + \
            (f", '{info['title']}')" if info["title"] else ")")
        self.count = 0

    def state(self) -> dict:
        return self.limits.evaluate(f"what {self.name} shows (EXPLORER_STATE_JS)",
                                    EXPLORER_STATE_JS, [self.selector, STDERR_MIME])

    def control(self, k: int):
        return self.page.locator(f'{LIGHT_DOM}[data-course-control="{self.n}-{k}"]')

    def operate(self) -> None:
        page = self.page
        self.explorer.scroll_into_view_if_needed()
        controls = self.limits.evaluate(f"the controls of {self.name} (MARK_CONTROLS_JS)",
                                        MARK_CONTROLS_JS, self.n)
        first = self.state()
        if not controls:  # a progress bar, an audio player, a display without controls
            self.findings.notes.append(f"{self.name}: no controls ({first['text'][:80]!r})")
            return
        taken: list[str] = []

        def shot() -> str:
            """The explorer as first shown: for the record when asked for, else when a problem
            needs it (screenshots.py)."""
            if not taken:
                taken.append(self.nb.screenshot(f"e{self.n + 1:02d}-00-initial"))
            return taken[0]

        if screenshots.requested():
            shot()
        self.findings.notes.append(
            f"{self.name}: {len(controls)} controls "
            f"({', '.join(c['kind'] + ' ' + c['label'] for c in controls)}), "
            f"{first['height']:.0f} px high, {len(first['images'])} figure(s)")
        if first["height"] > page.viewport_size["height"]:
            self.findings.notes.append(f"{self.name} is {first['height']:.0f} px high: taller "
                                       f"than the {page.viewport_size['height']} px screen")
        self.check_errors(first, "as first shown", shot, expect_not_drawn=False)
        for k, control in enumerate(controls):
            for action in self.actions_for(k, control):
                self.act(control, action)

    # --- one action --------------------------------------------------------------------------

    def act(self, control: dict, action: Action) -> None:
        """Perform one action, wait for the explorer's answer and check it."""
        where = f"{self.name}, {control['kind']} '{control['label']}', {action.what}"
        record = {"explorer": self.n + 1, "cell": self.info["cell"], "title": self.info["title"],
                  "control": f"{control['kind']} {control['label']}", "action": action.what}
        if action.not_there is not None and not action.not_there():
            # already there (a slider that starts at an end): the kernel hears nothing
            self.findings.actions.append({**record, "figure": "not checked: already there"})
            return
        before = self.state()
        sent = self.limits.evaluate("the action's clock reset (ACTION_START_JS)", ACTION_START_JS)
        started = time.monotonic()
        self.count += 1
        name = f"e{self.n + 1:02d}-{self.count:02d}-{slug(control['label'])}-{slug(action.what)}"
        try:
            action.perform()
            if action.not_there is not None and action.not_there():
                shot = self.nb.screenshot(name)
                self.findings.problem("explorers", where, "the control did not take the "
                                      "value (nothing sent to the kernel)", shot)
                return
            self.wait_for_answer(sent)
        except PlaywrightError as err:
            shot = self.nb.screenshot(name)
            self.findings.problem("explorers", where, f"could not operate, or no answer: "
                                  f"{one_line(str(err))}", shot)
            return
        seconds = time.monotonic() - started
        # the page's seconds from the input event that asked the kernel to the figure painted:
        # the test's own calls into the page (operating, polling) are not in them
        marks = self.limits.evaluate("the action's clock", "() => window.courseKernel.marks")
        page_seconds = (round((marks["painted"] - marks["input"]) / 1000, 2)
                        if "input" in marks and "painted" in marks else None)
        if page_seconds is None:
            self.findings.notes.append(f"{where}: no page clock (marks {sorted(marks)})")
        self.explorer.scroll_into_view_if_needed()
        after = self.state()
        figure = ("no figure" if not after["images"] else
                  "changed" if after["images"] != before["images"] else "unchanged")
        sound = after["audio"] != before["audio"]
        record.update(figure=figure, sound_changed=sound, seconds=round(seconds, 2),
                      page_seconds=page_seconds,
                      figure_sha1=[digest[:10] for digest in after["images"]])
        self.findings.actions.append(record)

        def shot() -> str:
            """The page as the action left it, shot when a problem needs it (a shot of every
            action cost a tenth of the lab test's CPU); named in the action's record."""
            if "screenshot" not in record:
                record["screenshot"] = self.nb.screenshot(name)
            return record["screenshot"]

        self.check_errors(after, where, shot, expect_not_drawn=action.typed)
        if figure == "changed" or (action.typed and after["not_drawn"]):
            return  # redrawn, or the designed answer to an entry the explorer cannot draw
        if sound:
            self.findings.notes.append(f"{where}: figure {figure}, new sound in its players")
            return
        if control["kind"] == "button":
            if after["text"] == before["text"]:
                self.findings.problem("explorers", where, f"the button changed nothing: "
                                      f"figure {figure}, text and sound the same", shot())
            return
        reason = self.figure_may_stay.get((self.info["title"], control["label"]))
        # a panel that draws only on request may also have had no figure before and after
        if reason and (figure == "unchanged" or (figure == "no figure" and not before["images"])):
            self.findings.notes.append(f"{where}: figure unchanged, allowed: {reason}")
        else:
            self.findings.problem("explorers", where, f"the value changed but the figure "
                                  f"{'did not' if figure == 'unchanged' else 'is gone'}", shot())

    def wait_for_answer(self, sent: int) -> None:
        """Until the page sent the kernel a request after the action and the kernel is idle
        after every request, with the explorer painted and no further request sent meanwhile
        (an answer may chain messages)."""
        while True:
            try:
                self.page.wait_for_function(ANSWERED_JS, arg=sent,
                                            timeout=self.nb.settle_timeout_ms, polling=50)
            except PlaywrightError as err:
                recent = self.limits.evaluate("the kernel's last status changes",
                                              "() => window.courseKernel.recent")
                raise PlaywrightError(f"no answer within {self.nb.settle_timeout_ms / 1000:.0f}"
                                      f" s (kernel status, last changes: {recent})") from err
            sent = self.nb.requests_sent()
            self.limits.evaluate(f"{self.name} painted (PAINTED_JS)", PAINTED_JS, self.selector)
            if self.limits.evaluate("no request sent or pending since",
                                    f"() => window.courseKernel.sent === {sent} && "
                                    "window.courseKernel.pending.size === 0"):
                return  # otherwise the page asked the kernel again: wait for that answer too

    def check_errors(self, state: dict, where: str, shot, *, expect_not_drawn: bool) -> None:
        """Problems for error text in the explorer; ``shot()`` gives the screenshot to name."""
        for text in state["stderr"]:
            self.findings.problem("explorers", where, f"error text in the explorer: "
                                  f"{one_line(text)}", shot())
        for text in state["not_drawn"]:
            if expect_not_drawn:
                self.findings.notes.append(f"{where}: {one_line(text)} (as designed)")
            else:
                self.findings.problem("explorers", where, f"explorer says {one_line(text)}",
                                      shot())

    # --- the actions for each kind of control ------------------------------------------------
    # Which moves, and their names, are tests/lab_actions.py's (the bench makes the same ones in
    # Python); here each becomes keys, clicks and typing in the page.

    def actions_for(self, k: int, control: dict):
        """The :class:`Action` list that moves one control through its range and back."""
        page, element, kind = self.page, self.control(k), control["kind"]

        def type_into(box, value):
            def perform():
                box.click()
                page.keyboard.press("Control+a")
                page.keyboard.press("Backspace")
                page.keyboard.type(value)
                page.keyboard.press("Enter")
            return perform

        if kind == "slider":
            handle = element.locator(".noUi-handle").first
            readout = element.locator(".widget-readout").first
            original = readout.inner_text().strip()

            def not_at(attribute):
                return lambda: handle.get_attribute("aria-valuenow") != \
                    handle.get_attribute(attribute)

            def press(key):
                return lambda: (handle.focus(), handle.press(key))

            keys = {"min": (press("Home"), not_at("aria-valuemin")),
                    "max": (press("End"), not_at("aria-valuemax"))}
            return [Action(move.what, *keys[move.to]) if move.to in keys else
                    Action(move.what, type_into(readout, move.value),
                           lambda: readout.inner_text().strip() != original)
                    for move in lab_actions.slider_moves(original)]
        if kind == "dropdown":
            select = element.locator("select").first
            options = select.evaluate("s => [...s.options].map(o => [o.value, o.text])")
            return [Action(move.what, lambda value=move.value: select.select_option(value),
                           lambda value=move.value: select.input_value() != value)
                    for move in lab_actions.dropdown_moves(options, select.input_value())]
        if kind == "toggle-buttons":
            buttons = element.locator("button")
            texts = [t.strip() for t in buttons.all_inner_texts()]

            def inactive(i):
                return lambda: "mod-active" not in (buttons.nth(i).get_attribute("class") or "")

            active = [i for i in range(len(texts)) if not inactive(i)()]
            return [Action(move.what, lambda i=move.value: buttons.nth(i).click(),
                           inactive(move.value))
                    for move in lab_actions.toggle_button_moves(texts, active)]
        if kind == "checkbox":
            box = element.locator("input").first
            return [Action(move.what, box.click) for move in lab_actions.checkbox_moves()]
        if kind in ("text", "number"):
            box = element.locator("input, textarea" if kind == "text" else "input").first
            original = box.input_value()
            if kind == "text":
                moves = lab_actions.text_moves(original)

                def not_there(value):
                    return lambda: box.input_value() != value
            else:
                moves = lab_actions.number_moves(original, box.get_attribute("min"),
                                                 box.get_attribute("max"))

                def not_there(value):  # the entry typed is compared as a number, the way back
                    if value == original:  # as the text the box started with
                        return lambda: box.input_value() != value
                    return lambda: float(box.input_value() or "nan") != float(value)
            return [Action(move.what, type_into(box, move.value), not_there(move.value),
                           typed=move.typed_entry) for move in moves]
        if kind == "button":
            return [Action(move.what, element.click) for move in lab_actions.button_moves()]
        raise ValueError(f"control kind {kind!r}: no actions defined")
