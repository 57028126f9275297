"""course_lib.results: the committed results, read without importing any unit.

The text a lecture prints of a result is course_lib.reports' (tests/test_reports.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from course_lib import results


def test_reading_a_result_imports_no_unit():
    # `course.py pronounce` reads results only: the report tables' units cost it 1.3 s of start-up
    units = ("course_lib.raters", "course_lib.preference", "course_lib.mixed")
    code = ("import sys, course_lib.results; print(sorted(name for name in sys.modules "
            f"if name.startswith({units!r})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(results.__file__).parents[1])
    assert run.stdout.strip() == "[]"
