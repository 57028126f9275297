"""Lecture 05's prose against the committed results it states, and its shape.

Each number the lecture types in a sentence is checked here against the result or the data it
comes from (section 9.2's reading of the real panel is tied by
tests/test_experiment_wong2024_table1_speechocean762.py). The lecture teaches by cells the student
runs: at most 200 words of prose per code cell, no stretch of prose longer than 450 words, and
at most three code cells that only print, plot or assert committed results; Steiger's Z1* and
Nadeau and Bengio's corrected t are computed by the student from committed numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from course_lib.results import load_result
from tests.lecture_text import LectureText

ROOT = Path(__file__).resolve().parents[1]
LECTURE = LectureText("05_gp_raters")
NOTEBOOK = LECTURE.notebook
MAX_RESULTS_ONLY = 3
# cells that read committed results and compute from them what the lesson teaches
COMPUTING_FROM_RESULTS = {"u5-average-label-noise": "tau.sum() / 9",
                          "u5-052b": "(a + 2 * b) / 9",
                          "u5-steiger-panel": "np.arctanh(r_jk)"}


def test_at_most_three_cells_only_report_committed_results():
    reading = [c["id"] for c in LECTURE.cells("code")
               if re.search(r"\bload_result\(|\breport\(", "".join(c["source"]))]
    for cell_id, formula in COMPUTING_FROM_RESULTS.items():
        assert cell_id in reading and formula in LECTURE.source(cell_id), cell_id
        assert "assert_allclose" in LECTURE.source(cell_id) or "assert " in LECTURE.source(cell_id), cell_id
    only = [cell for cell in reading if cell not in COMPUTING_FROM_RESULTS]
    assert len(only) <= MAX_RESULTS_ONLY, only


def test_the_student_computes_the_corrected_resampled_t():
    plain, corrected = LECTURE.source("u5-plain-t"), LECTURE.source("u5-corrected-t")
    assert "np.sqrt(d.var(ddof=1) / J)" in plain and 'committed["t_plain"]' in plain
    assert "factor = 1 / d.size + n_test / n_train" in corrected
    assert 'committed["t_corrected"]' in corrected and "resampled_t_test(" in corrected
    intro = LECTURE.source("u5-corrected-t-intro")
    assert "Nadeau and Y. Bengio" in intro and r"\dfrac{n_\text{test}}{n_\text{train}}" in intro


def test_the_corrected_t_paragraph_states_the_split_sizes():
    """"about 3/7" and "about 3.7-fold" are every set's n_test / n_train and widening."""
    text = LECTURE.source("u5-corrected-t-intro")
    assert r"$1/J = 1/30$" in text and r"\approx 3/7$" in text and "about 3.7-fold" in text
    for splits in load_result("gilgonzalez2019_table1_calibrated")["result"]["per_split"].values():
        assert len(splits) == 30
        ratio = splits[0]["n_test"] / splits[0]["n_train"]
        assert abs(ratio - 3 / 7) < 0.01
        assert round(np.sqrt((1 / 30 + ratio) * 30), 1) == 3.7


def test_only_concretes_gain_survives_the_correction():
    tests = load_result("gilgonzalez2019_table1_calibrated")["result"]["paired_tests"]
    assert all(tests[s]["MA - Av"]["p_plain"] < 0.01 for s in tests)
    assert [s for s in tests if tests[s]["MA - Av"]["p_corrected"] < 0.05] == ["Concrete"]
    assert "the corrected one only on Concrete" in LECTURE.source("u5-052d")


def test_the_student_computes_steigers_z1_star():
    code = LECTURE.source("u5-steiger")
    assert "np.arctanh(r_jk), np.arctanh(r_jh)" in code
    assert "np.sqrt(n0 - 3) / np.sqrt(2 - 2 * s_bar)" in code
    assert 'pcc0["z1_star"]' in code and "steiger_z1_star(" in code
    assert "Steiger" in LECTURE.source("u5-steiger-intro") and "Dunn and V. Clark" in LECTURE.source(
        "u5-steiger-intro")


def test_the_real_panels_steiger_tests_are_on_2500_sentences():
    by_inputs = load_result("wong2024_table1_speechocean762")["result"]["by_inputs"]
    assert {b["significance_joint_vs_base"]["n_items"] for b in by_inputs.values()} == {2500}
    assert "has 2500 test sentences" in LECTURE.source("u5-steiger-panel-intro")


def test_section_8_1_states_the_draws_splits_and_the_papers_gaps():
    toy = load_result("gilgonzalez2019_toy")
    table1 = load_result("gilgonzalez2019_table1")
    assert len(toy["result"]["per_seed"]) == 30 and len(table1["settings"]["splits"]) == 30
    source = table1["source"]["table"]
    gaps = [source[part][label]["Av"]["mean"] - source[part][label]["GOLD"]["mean"]
            for part in ("homogeneous", "non_homogeneous") for label in ("Auto", "Concrete",
                                                                          "Housing")]
    text = LECTURE.source("u5-045")
    assert "Over 30 draws" in text and "30 random 70/30 splits" in text
    assert f"the paper's {min(gaps):.0f} to {max(gaps):.0f}" in text


def test_section_8_3_states_the_papers_p_values_and_our_sizes():
    table0 = load_result("wong2024_table1_fluency")
    significance = table0["source"]["significance"]
    text = LECTURE.source("u5-053")
    assert (f"$p = {significance['PCC']}$ (PCC), ${significance['MSE']}$ (MSE) and "
            f"${significance['KL']}$ (KL)") in text, significance
    result = table0["result"]
    assert (result["n_train_items"], result["n_test_items"]) == (200, 100)
    assert "200 training and 100 test utterances, the 33 features" in text
    tests = result["significance_joint_vs_base"]
    assert (f"with {tests['n_items_whose_rounded_prediction_differs']} of "
            f"{tests['n_items']} test utterances rounded differently") in LECTURE.source("u5-056")


def test_section_9_2_states_the_subset_and_unit_8s_inputs():
    table = load_result("wong2024_table1_speechocean762")["result"]
    assert table["subset"]["n_train_items"] == 500
    text = LECTURE.source("3b9d69b5")
    assert "GP_repeat runs on 500 training sentences" in text
    panel = load_result("pronunciation_panel")
    assert "'gop+decoder'" in panel["settings"]["data"]
    assert panel["result"]["chosen"] == "GPR_MA"
    stated = "GPR-MA again, on these 17 GOP features plus four numbers from Unit 8's word decoder"
    assert stated in text
    assert "GPR-MA, on the 17 GOP features plus four numbers" in LECTURE.source("u5-to-unit8")
    assert "GOP inputs, and" not in text and "on GOP inputs, and" not in LECTURE.source("u5-to-unit8")


def test_unit_8s_panel_reads_17_gop_features_and_4_decoder_numbers():
    from course_lib.data.speechocean762 import load_speechocean762
    gop = load_speechocean762("accuracy", "gop").feature_names
    both = load_speechocean762("accuracy", "gop+decoder").feature_names
    assert len(gop) == 17 and len(both) == 21 and list(both[:17]) == list(gop)


def test_the_lecture_the_guide_and_the_readme_agree_on_nine_sections_and_the_time():
    headers = [c for c in NOTEBOOK["cells"] if c["cell_type"] == "markdown"
               and re.match(r"## \d\. ", "".join(c["source"]))]
    assert len(headers) == 9
    assert "About 4½ hours: nine sections" in LECTURE.source("u5-000")
    teaching = (ROOT / "docs" / "TEACHING.md").read_text("utf-8")
    row = next(line for line in teaching.splitlines() if line.startswith("| 5 |"))
    assert "4.5 h (nine sections" in row, row
    plan = re.search(r"\*\*Time plan \(4\.5 h\)\.\*\*(.*?)= (\d+) min\)", " ".join(
        teaching[teaching.index("### Unit 5"):teaching.index("### Unit 6")].split()))
    assert plan, "unit 5 has a per-section time plan"
    sums = re.search(r"\(((?:\d+ \+ )+\d+) = (\d+) min\)", plan.group(0))
    parts = [int(p) for p in sums.group(1).split(" + ")]
    assert len(parts) == 9 and sum(parts) == int(sums.group(2)) == 270
    readme = next(line for line in (ROOT / "README.md").read_text("utf-8").splitlines()
                  if line.startswith("| 5 |"))
    assert "| 4.5 h / 8-11 h |" in readme


def test_no_project_labels_in_names_or_prose():
    code = " ".join("".join(c["source"]) for c in LECTURE.cells("code"))
    for name in ("av_gap_seed", "seed_base", "seed_repeat"):
        assert name not in code, name
    assert "av_gap_gilgonzalez" in code and "wong_base, wong_repeat" in code
    prose = " ".join("".join(c["source"]) for c in NOTEBOOK["cells"]
                     if c["cell_type"] == "markdown")
    for label in (r"\bissue \d+", r"\bseed\b", r"\bPaper [A-Z]\b"):
        assert not re.search(label, prose, flags=re.IGNORECASE), label
