"""The Unit 5 tables of course_lib.results: each shows the committed numbers it claims to, beside
the seed's, and refuses anything but the result it is made for."""

from __future__ import annotations

import pytest

from course_lib.results import load_result, speechocean762_table, fluency_table, \
    fluency_timing_table, annotator_calibrated_table, annotator_uci_table, annotator_toy_table


def test_toy_table_shows_every_scenario_and_model():
    document = load_result("seed001_toy")
    text = annotator_toy_table(document)
    for rows in document["result"]["summary"].values():
        for row in rows.values():
            assert f"{row['rmse_x100_mean']:.1f} ± {row['rmse_x100_sd']:.1f}" in text
    assert f"noise floor {document['settings']['noise_floor']:g}" in text


def test_table1_table_puts_the_seeds_row_under_ours():
    document = load_result("seed001_table1")
    lines = annotator_uci_table(document).splitlines()
    auto = document["result"]["summary"]["regions"]["Auto"]["GOLD"]
    ours = next(i for i, line in enumerate(lines)
                if line.startswith("Auto, ours") and f"{auto['mean']:.1f}±{auto['sd']:.1f}" in line)
    assert lines[ours + 1].startswith("Auto, seed") and "35.4±3.1" in lines[ours + 1]
    assert sum(line.startswith("Average, seed") for line in lines) == 3


def test_calibrated_table_shows_the_gaps_and_tests():
    document = load_result("seed001_calibrated")
    text = annotator_calibrated_table(document)
    summary = document["result"]["summary"]
    for label, row in summary.items():
        gap = row["Av"]["mean"] - row["GOLD"]["mean"]
        assert f"{label + ', ours':16s}" in text and f"{gap:11.1f}" in text
    assert "Average, seed" in text and f"{58.23 - 38.10:11.1f}" in text
    for pairs in document["result"]["paired_tests"].values():
        for pair, test in pairs.items():
            assert (f"{pair:>12s}{test['mean_difference']:+8.1f}{test['p_plain']:10.2g}"
                    f"{test['p_corrected']:13.2g}") in text


def test_seed000_table_shows_metrics_tests_and_the_seeds_p_values():
    document = load_result("seed000_table1")
    text = fluency_table(document)
    models = document["result"]["models"]
    for model in models:
        assert f"{models[model]['KL']:7.3f}" in text
    joint_seed = next(line for line in text.splitlines() if line.startswith("GP_joint, seed"))
    assert joint_seed.split()[2:] == ["—", "—", "—"], joint_seed   # no invented joint numbers
    tests = document["result"]["significance_joint_vs_base"]
    assert f"Z1* = {tests['PCC']['z1_star']:5.2f}" in text and "(0.065)" in text
    assert "(0.036)" in text and "(< 0.001)" in text
    timing = fluency_timing_table(document)
    assert "(seed: 8476 ± 510 s)" in timing


def test_speechocean762_table_shows_direction_tests_and_experts():
    document = load_result("seed000_speechocean762")
    text = speechocean762_table(document)
    block = document["result"]["all_training"]
    models = block["models"]
    lines = text.splitlines()
    for metric, lower_is_better in (("PCC", False), ("MSE", True), ("KL", True)):
        base, joint = models["GP_base"][metric], models["GP_joint"][metric]
        row = next(line for line in lines if line.startswith(f"  {metric} "))
        assert f"{base:.3f} -> {joint:.3f}" in " ".join(row.split())
        assert ("(better)" in row) == ((joint < base) == lower_is_better), row
    assert not any(line.startswith("GP_joint, seed") for line in lines)  # the seed has none
    noise = next(line for line in lines if line.startswith("GPR-MA noise")).split()[2:]
    assert [float(v) for v in noise] == pytest.approx(
        block["per_expert"]["noise_variance_per_expert"], abs=0.005)
    with pytest.raises(ValueError, match="'seed000_speechocean762', got 'seed000_table1'"):
        speechocean762_table(load_result("seed000_table1"))


def test_tables_refuse_another_result_by_name():
    toy = load_result("seed001_toy")
    with pytest.raises(ValueError, match="^result: expected the committed result "
                                         "'seed000_table1', got 'seed001_toy'"):
        fluency_table(toy)
    with pytest.raises(TypeError, match=r"^result: expected the committed result "
                                        r"load_result\('seed001_table1'\)"):
        annotator_uci_table("seed001_table1")
