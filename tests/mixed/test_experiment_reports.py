"""course_lib.mixed.experiment_reports: the text lecture 07 prints of its reproduced
experiments of Wu et al. 2025, through course_lib.reports.report.

Its counts are recounted here from the per-cell verdicts, and a result that lacks a setting the
text reads is refused by name."""

from __future__ import annotations

import copy

import pytest

from course_lib.mixed import experiment_reports as W
from course_lib.reports import report
from course_lib.results import load_result


def _rule(direction: dict) -> str:
    # the level-set scripts' rule, restated: positive by 2 se holds, negative by 2 se reversed
    mean, se = direction["mean"], direction["se"]
    if mean > 0:
        return "holds" if mean >= 2 * se else "not significant"
    return "reversed" if -mean >= 2 * se else "reversed, not significant"


@pytest.mark.parametrize("name", ["wu2025_levelset", "wu2025_passthrough"])
def test_levelset_report_shows_each_arms_last_f1_and_counts_the_verdicts(name):
    result = load_result(name)
    text = report(result)
    last = str(result["settings"]["report_trials"][-1])
    holds = {step: 0 for step in W._LEVELSET_STEPS}
    pairs = 0
    for problem, entry in result["result"].items():
        for acquisition, summary in entry["summary"].items():
            pairs += 1
            f1 = " / ".join(f"{summary['arms'][arm]['f1_at'][last]['mean']:.3f}"
                            for arm in ("mixed", "pseudo", "none"))
            row = next(line for line in text.splitlines()
                       if line.startswith(f"{problem:13s}{acquisition:12s}"))
            assert f1 in row
            for step in W._LEVELSET_STEPS:
                verdict = _rule(summary["directions"][step])
                assert verdict == summary["directions"][step]["verdict"]
                holds[step] += verdict == "holds"
    for step in W._LEVELSET_STEPS:
        assert (f"Wu et al.'s step {step} holds in {holds[step]} of {pairs} "
                "problem-acquisition pairs") in text.replace("\n", " ")


def test_levelset_report_names_a_step_that_does_not_hold():
    result = copy.deepcopy(load_result("wu2025_levelset"))
    result["result"]["norm_ball_2d"]["summary"]["eavc"]["directions"]["mixed > pseudo"][
        "verdict"] = "reversed"
    text = report(result).replace("\n", " ")
    assert "mixed > pseudo holds in 3 of 4" in text
    assert "not in norm_ball_2d, eavc: reversed" in text


def test_haptic_counts_come_from_the_per_cell_verdicts():
    result = load_result("wu2025_haptic_like")
    counts = W._haptic_cell_counts(result)
    over = f"#{result['settings']['overconfident_subject']}"
    recount = {"calibrated": [], "overconfident": []}
    for subject, by_size in result["result"]["summary"].items():
        for cell in by_size.values():
            for metric in ("brier", "f1"):
                group = "overconfident" if subject == over else "calibrated"
                recount[group].append(cell[metric]["verdict"])
    for group, verdicts in recount.items():
        assert counts[group] == {"mixed better": verdicts.count("mixed better"),
                                 "mixed worse": verdicts.count("mixed worse"),
                                 "cells": len(verdicts)}
    # the committed run: the calibrated subjects' ratings help clearly in 2 of 24 cells
    assert (counts["calibrated"]["mixed better"], counts["calibrated"]["cells"]) == (2, 24)
    text = report(result).replace("\n", " ")
    assert "help clearly in 2 of 24 subject-size-score cells" in text


def test_haptic_count_follows_a_changed_verdict():
    result = copy.deepcopy(load_result("wu2025_haptic_like"))
    calibrated = next(e for e in result["result"]["claims"] if e["subject"] == "#4")
    calibrated["verdicts"][0] = "mixed better"
    assert W._haptic_cell_counts(result)["calibrated"]["mixed better"] == 3


def test_gait_and_likert_reports_print_the_committed_numbers():
    gait = load_result("wu2025_gait_like")
    text = report(gait)
    for size, entry in gait["result"]["summary"].items():
        assert f"{entry['brier']['preference']:.3f} / {entry['brier']['mixed']:.3f}" in text
    claim = gait["result"]["claims"][0]
    assert (f"{claim['verdicts'].count('mixed better')} of {len(claim['verdicts'])} size-score "
            "cells") in text.replace("\n", " ")
    likert = load_result("wu2025_likert_synthetic")
    text = report(likert)
    corners = likert["result"]["summary"]["mae_corners"]
    assert f"{corners['preference']:>14.3f}{corners['mixed']:>14.3f}" in text


@pytest.mark.parametrize("name", ["wu2025_levelset", "wu2025_haptic_like",
                                  "wu2025_gait_like", "wu2025_likert_synthetic"])
def test_a_result_that_lacks_its_settings_is_refused_by_name(name):
    """A stale file (a setting the report reads is missing) is named, not a KeyError."""
    result = copy.deepcopy(load_result(name))
    result["settings"].clear()
    with pytest.raises(ValueError, match=f"^result: expected .*got {name!r}"):
        report(result)
