"""A pytest watchdog: a run in which no test finishes for a while is stopped, with its stacks.

A hung kernel or browser wait leaves every process idle, so without this a run would sit until
CI's limit and say nothing. When no test has finished for ``COURSE_WATCHDOG_MINUTES`` (default
10; the slowest single test takes a few minutes), the watchdog

* names the running test,
* writes the Python stacks of every thread of this process (faulthandler) and of every Python
  process below it (kernels, the lab server and its kernels; ``py-spy dump``, which needs no
  cooperation from a process that is stuck),
* and interrupts the run, which then fails.

The report goes to ``.test-artifacts/watchdog/`` and its path to stderr. ``0`` switches the
watchdog off.
"""

from __future__ import annotations

import _thread
import faulthandler
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPORT_DIR = Path(__file__).resolve().parents[1] / ".test-artifacts" / "watchdog"
DEFAULT_MINUTES = 10.0
PY_SPY_TIMEOUT = 60
INTERRUPT_GRACE = 120


class Watchdog:
    def __init__(self, limit_seconds: float):
        self.limit = limit_seconds
        self.last_finished = time.monotonic()
        self.current = "(collection or session set-up)"
        self.fired = False
        self.config = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="course-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _watch(self) -> None:
        while not self._stop.wait(min(30.0, self.limit / 4)):
            idle = time.monotonic() - self.last_finished
            if idle >= self.limit:
                self.fired = True
                report = write_report(self.current, idle)
                self.say(f"WATCHDOG: no test finished for {idle / 60:.1f} min; stuck in "
                         f"{self.current}. Stacks of this process and its children: {report}")
                interrupt_main_thread()
                # a main thread that does not even answer the interrupt ends the process
                if not self._stop.wait(INTERRUPT_GRACE):
                    self.say("WATCHDOG: the run did not stop; exiting")
                    os._exit(1)
                return

    def say(self, line: str) -> None:
        """Past pytest's capture: through its terminal reporter, else the real stderr."""
        plugins = self.config.pluginmanager if self.config is not None else None
        terminal = plugins and plugins.get_plugin("terminalreporter")
        capture = plugins and plugins.get_plugin("capturemanager")
        if terminal is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                terminal.write_line(line, red=True)
        else:
            print(line, file=sys.__stderr__, flush=True)


def interrupt_main_thread() -> None:
    """Raise KeyboardInterrupt in the main thread, even while it waits in a system call (a
    signal sent to that thread interrupts epoll; interrupt_main alone would wait for it to wake
    up). Windows has no pthread_kill and gets interrupt_main only."""
    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    else:
        _thread.interrupt_main()


def python_children() -> list[tuple[int, str]]:
    """(pid, command line) of every Python process below this one."""
    import psutil

    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            command = " ".join(child.cmdline())
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if command and "python" in Path(command.split(" ")[0]).name:
            found.append((child.pid, command))
    return found


def write_report(test: str, idle: float) -> Path:
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    path = REPORT_DIR / f"stuck-{os.getpid()}-{time.strftime('%Y%m%d-%H%M%S')}.txt"
    with open(path, "w", encoding="utf-8") as report:
        report.write(f"test: {test}\nno test finished for {idle:.0f} s\n\n"
                     f"== this process ({os.getpid()}), every thread ==\n")
        report.flush()
        faulthandler.dump_traceback(report, all_threads=True)
        py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        for pid, command in python_children():
            report.write(f"\n== child {pid}: {command[:300]} ==\n")
            report.flush()
            if not Path(py_spy).exists():
                report.write("(py-spy not installed: no stack)\n")
                continue
            try:
                done = subprocess.run([py_spy, "dump", "--pid", str(pid)], capture_output=True,
                                      text=True, timeout=PY_SPY_TIMEOUT)
                report.write(done.stdout + done.stderr)
            except (OSError, subprocess.TimeoutExpired) as err:
                report.write(f"(py-spy failed: {err})\n")
    return path


_watchdog: Watchdog | None = None


def pytest_configure(config):
    global _watchdog
    minutes = float(os.environ.get("COURSE_WATCHDOG_MINUTES", DEFAULT_MINUTES))
    if minutes > 0 and _watchdog is None:
        _watchdog = Watchdog(minutes * 60)
        _watchdog.config = config
        _watchdog.start()


def pytest_unconfigure(config):
    if _watchdog is not None:
        _watchdog.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logstart(nodeid, location):
    if _watchdog is not None:
        _watchdog.current = nodeid


def pytest_runtest_logfinish(nodeid, location):
    if _watchdog is not None:
        _watchdog.last_finished = time.monotonic()


def pytest_sessionfinish(session, exitstatus):
    if _watchdog is not None and _watchdog.fired:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
