"""The word verdict's calibration (experiments/heard_as_written.py) stays true to its code.

The reduced run (the candidates' table on the first training sentences) is re-run and compared
with the committed full result; the settings must be the script's, the committed rule the
training table's own choice, and the library must read that rule. A failure after a change of
the scorer, the data or the verdict means the calibration is stale: re-run
``python -m experiments.heard_as_written`` and commit its result.
"""

from __future__ import annotations

import pytest

from course_lib.pronunciation.heard_as_written import _MATCH_MEASURE, _committed_threshold
from course_lib.results import load_result
from experiments import common
from experiments import heard_as_written as calibration


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(calibration)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    assert set(reduced_run.document["result"]) == {"block"}
    assert not reduced_run.problems, ("the reduced run differs from the committed result; "
                                      "re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    assert not common.settings_problems(reduced_run.document["settings"],
                                        reduced_run.committed["settings"])


def test_the_rule_is_the_training_splits_choice_and_the_library_reads_it():
    result = load_result(calibration.NAME)["result"]
    training, rule = result["training"], result["rule"]
    chosen = training["candidates"][training["chosen"]]
    assert rule == {"measure": training["chosen"], "threshold": chosen["threshold"],
                    "target_false_flags": calibration.TARGET_FALSE_FLAGS,
                    "squeezed": "never heard as written"}
    # the rule flags the measure's words and the squeezed ones: no fewer than either, no more
    # than both
    for split in ("training", "test"):
        rates = result[split]["at_rule"]
        measure_alone = (chosen["flagged_accurate"] if split == "training" else
                         result["test"]["candidates_at_training_thresholds"][
                             training["chosen"]]["flagged_accurate"])
        assert max(measure_alone, rates["squeezed_accurate"]) <= rates["flagged_accurate"] \
            <= measure_alone + rates["squeezed_accurate"] + 1e-12, split
    assert chosen["flagged_misread"] == max(row["flagged_misread"]
                                            for row in training["candidates"].values())
    # the threshold flags at most the target share of the accurate training words
    assert chosen["flagged_accurate"] <= calibration.TARGET_FALSE_FLAGS
    assert _MATCH_MEASURE == rule["measure"] and _committed_threshold() == rule["threshold"]
    # held out: the test speakers' accurate words are flagged at about the training rate
    # (2,500 sentences: a share of 0.03 has a sampling sd near 0.002)
    assert result["test"]["at_rule"]["flagged_accurate"] < 2 * calibration.TARGET_FALSE_FLAGS


def test_the_table_prints():
    text = calibration.format_table(load_result(calibration.NAME))
    assert "Rule:" in text and "Completeness" in text
