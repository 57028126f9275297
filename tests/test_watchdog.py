"""The watchdog stops a run in which no test finishes, names the test and writes the stacks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

STUCK_TEST = textwrap.dedent("""
    import subprocess, sys, time

    def test_waits_on_a_child_for_ever():
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        try:
            time.sleep(600)   # a blocking wait, as a client waiting on a kernel's reply
        finally:
            child.kill()
""")


def test_a_stuck_run_fails_with_the_test_named_and_the_stacks_written(tmp_path):
    (tmp_path / "test_stuck.py").write_text(STUCK_TEST)
    environment = dict(os.environ, COURSE_WATCHDOG_MINUTES=str(3 / 60),   # 3 s
                       PYTHONPATH=str(Path(__file__).parent))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "watchdog_plugin", "-q",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                           str(tmp_path / "test_stuck.py")],
                          cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=180)
    assert time.monotonic() - start < 120, "the watchdog did not stop the run"
    assert done.returncode != 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "WATCHDOG: no test finished" in said, said
    assert "stuck in test_stuck.py::test_waits_on_a_child_for_ever" in said
    report = Path(said.split("Stacks of this process and its children: ")[1].split()[0])
    text = report.read_text()
    assert "test_waits_on_a_child_for_ever" in text          # this process's stack
    assert "time.sleep(600)" in text and "== child" in text   # and its child's command
    assert "<module> (<string>:1)" in text, text               # and stack (py-spy)
