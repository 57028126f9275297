"""Lecture 07's prose against the committed results it states, and its shape.

The lecture teaches by cells the student runs (at most 200 words of prose per code cell, no
stretch longer than 450), shows the reproduced experiments in few cells, and leaves their
diagnoses to the experiments' pages (experiments/<name>.md: E7.0-E7.5, E7.1b, and where
AEPsych's KL weight comes from). Each number its prose types about a committed result is
checked here against that result.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import t as student_t

from course_lib.results import load_result
from course_lib.significance import resampled_t_test
from tests.lecture_text import LectureText

ROOT = Path(__file__).resolve().parents[1]
LECTURE = LectureText("07_mixed_feedback")
MAX_RESULT_VIEWS = 3


def _paired(d: np.ndarray) -> tuple[float, float, float]:
    """Mean, and the 95 % t interval's ends, of paired differences."""
    half = student_t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    return d.mean(), d.mean() - half, d.mean() + half


def test_few_cells_only_show_committed_results_and_two_compute_from_them():
    """A cell that reads a committed result and checks nothing only shows it (the rater
    explorer reads its fits made ahead, and is an explorer); the paired comparisons are
    computed and checked against the committed numbers."""
    readers = [c for c in LECTURE.cells("code") if "load_result(" in "".join(c["source"])
               or "RESULTS_DIR" in "".join(c["source"])]
    views = [c["id"] for c in readers if "assert" not in "".join(c["source"])
             and "_explorer(" not in "".join(c["source"])]
    assert len(views) <= MAX_RESULT_VIEWS, views
    assert "student_t.ppf" in LECTURE.source("u7-paired-area") and "student_t.sf" in LECTURE.source(
        "u7-paired-area"), "the interval and the test, computed by the student"
    code = LECTURE.source("u7-paired-area")
    assert "paired(d)" in code and '["directions"]["mixed > pseudo"]' in code \
        and "assert_allclose" in code
    code = LECTURE.source("u7-paired-brier")
    assert "resampled_t_test(" in code and '["brier"]' in code and "committed" in code
    assert "nbval-check-output" in LECTURE.cell("u7-paired-area")["metadata"]["tags"]


def test_the_paired_area_differences_are_the_committed_ones():
    """What the cell prints, recomputed from the committed sessions: the 2-D interval lies above
    zero, the 4-D one holds it, as the prose after the cell says."""
    printed = LECTURE.output("u7-paired-area")
    for name, problem, acquisition in (("wu2025_levelset", "norm_ball_2d", "eavc"),
                                       ("wu2025_levelset_4d", "norm_ball_4d", "global_mi")):
        runs = load_result(name)["result"][problem]
        area = {arm: {s["seed"]: np.mean(s["f1"]) for s in runs["sessions"]
                      if s["arm"] == arm and s["acquisition"] == acquisition}
                for arm in ("mixed", "pseudo")}
        d = np.array([area["mixed"][seed] - area["pseudo"][seed] for seed in sorted(area["mixed"])])
        mean, low, high = _paired(d)
        assert mean == pytest.approx(runs["summary"][acquisition]["directions"]["mixed > pseudo"]
                                     ["mean"], rel=1e-9)
        assert f"95% interval [{low:+.3f}, {high:+.3f}]" in printed
        assert (low > 0) == (problem == "norm_ball_2d") and (high > 0)
    assert "In 2-D the interval lies well above zero; in 4-D it holds zero." in \
        LECTURE.source("u7-levelset-after")


def test_the_paired_brier_differences_are_tested_as_their_replicates_allow():
    """The splits of one simulated data set share their trials: the cell prints the plain and
    the corrected resampled t (Nadeau and Bengio 2003) as recomputed here."""
    printed = LECTURE.output("u7-paired-brier")
    haptic = load_result("wu2025_haptic_like")["result"]
    gait = load_result("wu2025_gait_like")["result"]
    for runs, chosen, committed, total, size in (
            (haptic, lambda r: r["subject"] == 2 and r["n_train"] == 10,
             haptic["summary"]["#2"]["10"]["brier"], 50, 10),
            (gait, lambda r: r["n_train"] == 20, gait["summary"]["20"]["brier"], 472, 20)):
        d = np.array([r["mixed"]["brier"] - r["preference"]["brier"]
                      for r in runs["per_split"] if chosen(r)])
        test = resampled_t_test(d, size, total - size)
        assert test.mean_difference == pytest.approx(committed["difference"], rel=1e-9)
        assert (f"plain paired t p = {test.p_value_plain:.4f}, corrected p = "
                f"{test.p_value:.2f}") in printed
        assert test.p_value_plain < 0.05 < test.p_value
    assert "in 6 of 6 cells by the plain t, in 0 by the corrected t" in printed
    assert "in 2 of 24 cells by the plain t, in 0 by the corrected t" in printed


def test_the_report_stretches_moved_to_the_experiments_readme():
    prose = LECTURE.prose()
    for gone in ("lines 190–196", "lines 236–245", "8.2a", "8.2b", "Why \"none\" never finds",
                 "Why the pseudo-data arm's F1 falls", "replays every committed"):
        assert gone not in prose, gone
    code = " ".join("".join(c["source"]) for c in LECTURE.cells("code"))
    assert "report(" not in code, "the reports' tables belong to the experiments' pages"
    pages = [(ROOT / "experiments" / f"{name}.md").read_text("utf-8")
             for name in ("aepsych_kl_weight", "wu2025_levelset_diagnosis")]
    readme = " ".join(" ".join(pages).split())
    assert pages[0].startswith("# Unit 7's KL weight in AEPsych and GPyTorch")
    assert "(`aepsych/models/gp_classification.py`, lines 190-196)" in readme
    assert "(`gpytorch/mlls/_approximate_mll.py`, lines 59-61)" in readme
    assert "\"Unit 7's KL weight\"" in LECTURE.source("u7-bookkeeping-trap")
    assert "**Why \"none\" never finds the ball.**" in readme
    assert "**Why the pseudo-data arm's F1 falls.**" in readme


def test_the_stale_statements_are_fixed():
    prose = LECTURE.prose()
    assert "falls below it as the active answers" not in prose
    assert "trap 2" not in prose
    headings = [line for c in LECTURE.cells("markdown") for line in "".join(c["source"]).splitlines()
                if line.startswith("#")]
    assert not [h for h in headings if re.search(r"\bE\d+\.\d", h)], headings
    code = " ".join("".join(c["source"]) for c in LECTURE.cells("code"))
    for old, new in (("seed_preference", "wu_preference"), ("seed_heuristic", "wu_heuristic"),
                     ("seed_likert", "wu_likert")):
        assert old not in code and new in code, new


def test_the_4d_ball_curves_cross_as_the_prose_says():
    """With global MI the pseudo-data arm starts above the mixed one, is below it at trial 30
    and ends above it again."""
    f1 = {arm: load_result("wu2025_levelset_4d")["result"]["norm_ball_4d"]["summary"]
          ["global_mi"]["arms"][arm]["f1_at"] for arm in ("mixed", "pseudo")}
    text = LECTURE.source("u7-levelset-after")
    at = {trial: (f1["pseudo"][trial]["mean"], f1["mixed"][trial]["mean"])
          for trial in ("10", "30", "50")}
    assert f"(F1 {at['10'][0]:.3f} against {at['10'][1]:.3f} after the Sobol trials)" in text
    assert f"is below it by trial 30 ({at['30'][0]:.3f} against {at['30'][1]:.3f})" in text
    assert f"ends higher again ({at['50'][0]:.3f} against {at['50'][1]:.3f})" in text
    assert at["10"][0] > at["10"][1] and at["30"][0] < at["30"][1] and at["50"][0] > at["50"][1]


def test_section_8_states_the_committed_numbers():
    fig2 = load_result("wu2025_fig2")["result"]["map_ii"]
    intro = LECTURE.source("u7-experiments")
    assert all(round(sd, 3) == 0.032 for sd in fig2["mixed"]["sd_at_constraints"])
    assert (f"domain from {fig2['plain']['mean_sd']:.3f} to {fig2['mixed']['mean_sd']:.3f}"
            in intro)
    levelset = load_result("wu2025_levelset")["result"]["norm_ball_2d"]["summary"]
    assert max(levelset[a]["arms"]["none"]["f1_at"]["50"]["mean"]
               for a in ("global_mi", "eavc")) <= 0.07
    reading = LECTURE.source("u7-levelset-reading")
    assert "(F1 at most 0.07 after 50 trials)" in reading
    diagnosis = load_result("wu2025_levelset_diagnosis")["result"]["norm_ball_2d"]
    no_share = diagnosis["reference"]["no_share_box"]
    assert f"answered \"no\" {round(100 * no_share)} % of the time" in reading
    origin = diagnosis["summary"]["global_mi"]["pseudo"]["trials"]["10"]["mean_at_origin"]
    assert round(origin, 1) == 0.3 and "about 0.3 too high" in LECTURE.source("u7-paired-reading")
    passthrough = load_result("wu2025_passthrough")["result"]["passthrough"]["summary"]
    after = LECTURE.source("u7-levelset-after")
    for acquisition in ("global_mi", "eavc"):
        step = passthrough[acquisition]["directions"]["mixed > pseudo"]
        assert step["verdict"] == "holds"
        assert f"+{step['mean']:.3f} ± {step['se']:.3f}" in after


def test_section_8_2_states_the_ratings_numbers():
    likert = load_result("wu2025_likert_synthetic")["result"]
    summary = likert["summary"]
    text = LECTURE.source("u7-ratings-reading")
    assert f"Over {len(likert['per_seed'])} runs" in text
    for region, words in (("mae_corners", "from {p:.3f} to {m:.3f}; near"),
                          ("mae_diagonal", "from {p:.3f} to {m:.3f}; over"),
                          ("mae", "no clear difference ({p:.3f} and {m:.3f})")):
        row = summary[region]
        assert words.format(p=row["preference"], m=row["mixed"]) in text, region
    whole = summary["mae"]
    assert abs(whole["difference"]) < 2 * whole["difference_se"], "no clear difference"
    gait = load_result("wu2025_gait_like")["result"]["summary"]
    cells = [gait[size][score]["verdict"] for size in gait for score in ("brier", "f1")]
    assert cells.count("mixed better") == len(cells) == 6
    haptic = load_result("wu2025_haptic_like")["result"]["summary"]
    calibrated = [haptic[s][n][score]["verdict"] for s in haptic if s != "#2"
                  for n in haptic[s] for score in ("brier", "f1")]
    assert len(calibrated) == 24 and calibrated.count("mixed better") == 2
    assert "mixed worse" not in calibrated
    # the splits of one simulated data set share their trials: corrected, no cell is clear
    for kind, runs, total in (("haptic", haptic, 50), ("gait", gait, 472)):
        per_split = load_result(f"wu2025_{kind}_like")["result"]["per_split"]
        for size in {r["n_train"] for r in per_split}:
            for subject in {r.get("subject") for r in per_split}:
                d = [r["mixed"]["brier"] - r["preference"]["brier"] for r in per_split
                     if r["n_train"] == size and r.get("subject") == subject]
                assert resampled_t_test(d, size, total - size).p_value > 0.05
    end = LECTURE.source("u7-ratings-after")
    assert "**no cell is clear**" in end and "6 of 6" not in end


def test_section_7_states_subject_2s_committed_marginals():
    counts = load_result("wu2025_haptic_like")["result"]["subjects"]["#2"]["rating_counts"]
    total = sum(counts)
    assert round(100 * counts[8] / total) == 48 and round(100 * sum(counts[6:]) / total) == 84
    assert sum(counts[:2]) == 0, "none below 3"
    assert ("gave 48 % of all ratings the top value 9, 84 % at least 7, and none below 3"
            in LECTURE.source("836a1c29"))


def test_the_lecture_the_guide_and_the_readme_agree_on_eight_sections_and_the_time():
    headers = [h for c in LECTURE.cells("markdown")
               for h in re.findall(r"^## (\d)\. ", "".join(c["source"]), flags=re.MULTILINE)]
    assert headers == [str(n) for n in range(1, 9)], headers
    assert "**Expected time.** About 4½ hours: eight sections" in LECTURE.source("u7-intro")
    teaching = (ROOT / "docs" / "TEACHING.md").read_text("utf-8")
    row = next(line for line in teaching.splitlines() if line.startswith("| 7 |"))
    assert "4.5 h (eight sections" in row, row
    unit = " ".join(teaching[teaching.index("### Unit 7"):teaching.index("### Unit 8")].split())
    plan = re.search(r"\*\*Time plan \(4\.5 h\)\.\*\*.*?\(((?:\d+ \+ )+\d+) = (\d+) min\)", unit)
    assert plan, "unit 7 has a per-section time plan"
    parts = [int(p) for p in plan.group(1).split(" + ")]
    assert len(parts) == 8 and sum(parts) == int(plan.group(2)) == 270
    readme = next(line for line in (ROOT / "README.md").read_text("utf-8").splitlines()
                  if line.startswith("| 7 |"))
    assert "| 4.5 h / 5-7 h |" in readme
