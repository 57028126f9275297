"""The class panel's calibration (experiments/class_panel_calibration.py) stays true to its code.

The reduced run (the 25-student classes of the first report seed and its 25-student favourite)
is re-run and compared with the committed full result; the settings must be the script's, and
the committed summaries must meet the issue's goals on the report seeds: 90 % intervals of
bias and noise holding the truth 85-95 % of the time (3,250 student intervals: a binomial
spread of 0.005 around 0.9), the interval of k at least 85 % (60 classes).
"""

from __future__ import annotations

import pytest

from course_lib.results import load_result
from experiments import class_panel_calibration as calibration
from experiments import common


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(calibration)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    assert len(reduced_run.document["result"]["classes"]) == 10
    assert not reduced_run.problems, ("the reduced run differs from the committed result; "
                                      "re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    assert not common.settings_problems(
        reduced_run.document["settings"], reduced_run.committed["settings"],
        run_size_settings=("report_seeds", "classes_fitted", "favourite_sizes"))


def test_the_committed_result_meets_the_goals_on_seeds_the_test_did_not_use():
    document = load_result(calibration.NAME)
    assert not set(document["settings"]["report_seeds"]) & \
        set(document["settings"]["calibration_test_seeds"])
    summary = document["result"]["summary"]["all"]
    assert summary["student_intervals"] == 3250 and summary["classes"] == 60
    assert 0.85 <= summary["bias_coverage"] <= 0.95
    assert 0.85 <= summary["noise_coverage"] <= 0.95
    assert summary["k_coverage"] >= 0.85
    assert common.readme_table(calibration.NAME) == calibration.format_table(document)
