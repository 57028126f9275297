"""The start-up of `course.py pronounce` (course_lib.pronunciation.panel run as a program): it
imports nothing it does not use (issue 58, point 5: at most 3 s a call, start-up included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import course_lib

# What the command never uses and once imported (about 5.9 CPU-s a call then): Units 5-7's report
# tables (course_lib.reports) with the preference models below them (0.7 s), scipy.stats
# (0.6 s; only a default interval width calls it), and scipy.optimize, scipy.fft and scipy.io
# (0.2 s together; fitting hyper-parameters, MFCCs and WAV data sets call them).
_UNUSED = ("course_lib.reports", "course_lib.raters.experiment_tables", "course_lib.mixed",
           "course_lib.preference", "scipy.stats", "scipy.optimize", "scipy.fft", "scipy.io")


def test_the_command_imports_no_module_it_does_not_use():
    code = ("import sys, course_lib.pronunciation.panel; print(sorted(name for name in "
            f"sys.modules if name.startswith({_UNUSED!r})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(course_lib.__file__).parents[1])
    assert run.stdout.strip() == "[]"
