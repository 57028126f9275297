"""course_lib.results: the committed results and the text a lecture prints from them.

report() shows the numbers of the result it is given, beside the source's, and its counts are
recounted here from the per-cell verdicts; anything but a committed result with a report is
refused with the argument's name."""

from __future__ import annotations

import copy

import pytest

from course_lib import results
from course_lib.results import load_result, report


def test_toy_table_shows_every_scenario_and_model():
    document = load_result("gilgonzalez2019_toy")
    text = report(document)
    for rows in document["result"]["summary"].values():
        for row in rows.values():
            assert f"{row['rmse_x100_mean']:.1f} ± {row['rmse_x100_sd']:.1f}" in text
    assert f"noise floor {document['settings']['noise_floor']:g}" in text


def test_table1_table_puts_the_papers_row_under_ours():
    document = load_result("gilgonzalez2019_table1")
    lines = report(document).splitlines()
    auto = document["result"]["summary"]["regions"]["Auto"]["GOLD"]
    ours = next(i for i, line in enumerate(lines)
                if line.startswith("Auto, ours") and f"{auto['mean']:.1f}±{auto['sd']:.1f}" in line)
    assert lines[ours + 1].startswith("Auto, paper") and "35.4±3.1" in lines[ours + 1]
    assert sum(line.startswith("Average, paper") for line in lines) == 3


def test_calibrated_table_shows_the_gaps_and_tests():
    document = load_result("gilgonzalez2019_table1_calibrated")
    text = report(document)
    summary = document["result"]["summary"]
    for label, row in summary.items():
        gap = row["Av"]["mean"] - row["GOLD"]["mean"]
        assert f"{label + ', ours':16s}" in text and f"{gap:11.1f}" in text
    assert "Average, paper" in text and f"{58.23 - 38.10:11.1f}" in text
    for pairs in document["result"]["paired_tests"].values():
        for pair, test in pairs.items():
            assert (f"{pair:>12s}{test['mean_difference']:+8.1f}{test['p_plain']:10.2g}"
                    f"{test['p_corrected']:13.2g}") in text


def test_fluency_table_shows_metrics_tests_and_the_papers_p_values():
    document = load_result("wong2024_table1_fluency")
    text = report(document)
    models = document["result"]["models"]
    for model in models:
        assert f"{models[model]['KL']:7.3f}" in text
    joint_seed = next(line for line in text.splitlines() if line.startswith("GP_joint, paper"))
    assert joint_seed.split()[2:] == ["—", "—", "—"], joint_seed   # no invented joint numbers
    tests = document["result"]["significance_joint_vs_base"]
    assert f"Z1* = {tests['PCC']['z1_star']:5.2f}" in text and "(0.065)" in text
    assert "(0.036)" in text and "(< 0.001)" in text
    timing = text
    assert "(arXiv 2306.02719: 8476 ± 510 s)" in timing


def test_speechocean762_table_shows_every_input_set_the_tests_and_the_experts():
    document = load_result("wong2024_table1_speechocean762")
    text = report(document)
    by_inputs = document["result"]["by_inputs"]
    lines = text.splitlines()
    for inputs, block in by_inputs.items():
        for model, row in block["models"].items():
            line = next(line for line in lines if line.startswith(f"{inputs}, {model} "))
            assert line.split()[2:5] == [f"{row[m]:.3f}" for m in ("PCC", "MSE", "KL")], line
        for model in ("GP_joint", "GPR_MA"):
            start = lines.index(f"{inputs}: {model} vs GP_base")
            for offset, (metric, lower_is_better) in enumerate(
                    (("PCC", False), ("MSE", True), ("KL", True)), start=1):
                base, other = block["models"]["GP_base"][metric], block["models"][model][metric]
                row = lines[start + offset]
                assert f"{base:.3f} -> {other:.3f}" in " ".join(row.split()), row
                assert ("(better)" in row) == ((other < base) == lower_is_better), row
                # the paper's p-value only beside its own comparison
                assert ("(0.065)" in row or "(0.036)" in row or "(< 0.001)" in row) == (
                    inputs == "gop" and model == "GP_joint"), row
    assert "GP_base: gop vs fluency" in lines and "GP_base: both vs gop" in lines
    assert not any(line.startswith("paper, GP_joint") for line in lines)  # the paper has none
    noise = next(line for line in lines if line.startswith("GPR-MA noise")).split()[2:]
    assert [float(v) for v in noise] == pytest.approx(
        by_inputs["gop"]["models"]["GPR_MA"]["noise_variance_per_expert"], abs=0.005)


def test_fluency_report_shows_both_tables_of_its_result():
    text = report(load_result("wong2024_table1_fluency"))
    table, timing = text.split("\n\n", 1)[0], text.rsplit("\n\n", 1)[1]
    assert table.split()[:3] == ["PCC", "MSE", "KL"]
    assert timing.startswith("GP_base") and "repeat / joint" in timing


def test_every_report_names_a_committed_result():
    assert set(results._REPORTS) <= set(results.available_results())



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
    holds = {step: 0 for step in results._LEVELSET_STEPS}
    pairs = 0
    for problem, entry in result["result"].items():
        for acquisition, summary in entry["summary"].items():
            pairs += 1
            f1 = " / ".join(f"{summary['arms'][arm]['f1_at'][last]['mean']:.3f}"
                            for arm in ("mixed", "pseudo", "none"))
            row = next(line for line in text.splitlines()
                       if line.startswith(f"{problem:13s}{acquisition:12s}"))
            assert f1 in row
            for step in results._LEVELSET_STEPS:
                verdict = _rule(summary["directions"][step])
                assert verdict == summary["directions"][step]["verdict"]
                holds[step] += verdict == "holds"
    for step in results._LEVELSET_STEPS:
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
    counts = results._haptic_cell_counts(result)
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
    assert results._haptic_cell_counts(result)["calibrated"]["mixed better"] == 3


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


@pytest.mark.parametrize("name", ["wu2025_levelset", "wu2025_haptic_like",
                                  "wu2025_gait_like", "wu2025_likert_synthetic"])
def test_a_result_that_lacks_its_settings_is_refused_by_name(name):
    """A stale file (a setting the report reads is missing) is named, not a KeyError."""
    result = copy.deepcopy(load_result(name))
    result["settings"].clear()
    with pytest.raises(ValueError, match=f"^result: expected .*got {name!r}"):
        report(result)
