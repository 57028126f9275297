"""Lecture 07's detection threshold measurement (experiments/detection_threshold_intervals.py)
stays true to its code.

The reduced run (two listeners of each half, 20 answers each: about 7 CPU-s, the cost of four
of the demo's sessions) is re-run and compared with the committed full result listener by
listener; the settings must be the script's, z the tuning rule applied to the committed tuning
half, and the held-out table what its listeners' intervals give.
"""

from __future__ import annotations

import pytest

from course_lib.results import load_result
from experiments import common
from experiments import detection_threshold_intervals as experiment


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(experiment)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    assert [len(reduced_run.document["result"][half]["listeners"])
            for half in experiment.HALVES] == [experiment.N_REDUCED] * 2
    assert not reduced_run.problems, ("the reduced run differs from the committed result; "
                                      "re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    assert not common.settings_problems(reduced_run.document["settings"],
                                        reduced_run.committed["settings"],
                                        run_size_settings=("listeners_per_half",))


def test_z_is_the_tuning_halfs_choice_and_the_table_is_the_held_out_halfs():
    result = load_result(experiment.NAME)["result"]
    rule = result["interval_rule"]
    assert rule["z"] == experiment.tuned_z(result["tuning"]["listeners"])
    assert rule["tuning_coverage"][str(experiment.TUNED_AT)] >= experiment.TARGET
    held_out = result["held_out"]["listeners"]
    assert {row["half"] for row in held_out} == {"held_out"}
    assert result["held_out"]["by_answers"] == experiment.held_out_summary(held_out)
    # each held-out interval holds its listener exactly when z reaches the z it needed
    for row in held_out:
        for step in row["steps"]:
            held = step["low"] is not None and step["low"] <= row["threshold"] and (
                step["high"] is None or row["threshold"] <= step["high"])
            if step["z_needed"] is not None and abs(step["z_needed"] - rule["z"]) > 2 * \
                    experiment.Z_TOLERANCE:
                assert held == (step["z_needed"] <= rule["z"])


def test_the_table_prints():
    text = experiment.format_table(load_result(experiment.NAME))
    assert "held-out coverage" in text and f"| {experiment.TUNED_AT} |" in text
