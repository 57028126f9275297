"""course_lib.reports: the text a lecture prints of a committed result.

report() picks the tables of the result it is given by the result's name (the tables themselves,
lecture 05's, are tested with their engine: tests/raters/test_experiment_tables.py);
anything but a committed result with a report is refused with the argument's name."""

from __future__ import annotations

import pytest

from course_lib import reports
from course_lib.reports import report
from course_lib.results import available_results, load_result


def test_fluency_report_shows_both_tables_of_its_result():
    text = report(load_result("wong2024_table1_fluency"))
    table, timing = text.split("\n\n", 1)[0], text.rsplit("\n\n", 1)[1]
    assert table.split()[:3] == ["PCC", "MSE", "KL"]
    assert timing.startswith("GP_base") and "repeat / joint" in timing


def test_every_report_names_a_committed_result():
    assert set(reports._REPORTS) <= set(available_results())


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
