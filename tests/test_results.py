"""course_lib.results: the committed results and the text a lecture prints from them.

report() picks the tables of the result it is given by the result's name (the tables themselves
are tested with their engines: tests/raters/test_experiment_tables.py, tests/mixed/test_experiment_reports.py);
anything but a committed result with a report is refused with the argument's name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import results
from course_lib.results import load_result, report


def test_fluency_report_shows_both_tables_of_its_result():
    text = report(load_result("wong2024_table1_fluency"))
    table, timing = text.split("\n\n", 1)[0], text.rsplit("\n\n", 1)[1]
    assert table.split()[:3] == ["PCC", "MSE", "KL"]
    assert timing.startswith("GP_base") and "repeat / joint" in timing


def test_every_report_names_a_committed_result():
    assert set(results._reports()) <= set(results.available_results())


def test_reading_a_result_imports_no_unit():
    # `course.py pronounce` reads results only: the report tables' units cost it 1.3 s of start-up
    units = ("course_lib.raters", "course_lib.preference", "course_lib.mixed")
    code = ("import sys, course_lib.results; print(sorted(name for name in sys.modules "
            f"if name.startswith({units!r})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(results.__file__).parents[1])
    assert run.stdout.strip() == "[]"


def test_a_result_without_a_report_is_refused_with_the_names_that_have_one():
    with pytest.raises(ValueError, match="^result: there is no report for "
                                         "'jensen2011_learning_curves'; reports exist for "
                                         "gilgonzalez2019_table1, "
                                         "gilgonzalez2019_table1_calibrated, "
                                         "gilgonzalez2019_toy, wong2024_table1_fluency"):
        report(load_result("jensen2011_learning_curves"))
    with pytest.raises(TypeError, match="^result: expected a committed result"):
        report(["not", "a", "result"])
    with pytest.raises(TypeError, match="^result: expected a committed result"):
        report("gilgonzalez2019_table1")
