"""course_lib.raters.experiment_tables: the tables lecture 05 prints of its reproduced multi-rater
experiments (Gil-González et al. 2019, arXiv 2306.02719), through course_lib.reports.report.

Each table shows the numbers of the committed result it is given, beside the source's."""

from __future__ import annotations

import pytest

from course_lib.reports import report
from course_lib.results import load_result


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
