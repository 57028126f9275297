"""Lecture 06's prose against the committed results it states, and its shape.

The lecture teaches by cells the student runs (at most 200 words of prose per code cell, no
stretch longer than 450), shows the reproduced experiments in few cells, and leaves their
history to the experiments' pages (E6.1-E6.5, experiments/<name>.md). Each number its prose
types about a committed result is checked here against that result.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scipy.stats import binomtest, wilcoxon

from course_lib.results import load_result
from tests.lecture_text import LectureText

ROOT = Path(__file__).resolve().parents[1]
LECTURE = LectureText("06_preference_gp")
MAX_RESULT_VIEWS = 3


def test_few_cells_only_show_committed_results_and_one_computes_from_them():
    """A cell that reads a committed result and checks nothing only shows it; the paired
    comparison and the sparse toy's numbers are computed and checked against the file."""
    readers = [c for c in LECTURE.cells("code") if "load_result(" in "".join(c["source"])]
    views = [c["id"] for c in readers if "assert" not in "".join(c["source"])]
    assert len(views) <= MAX_RESULT_VIEWS, views
    paired = LECTURE.source("u6-paired-nlpd")
    assert "student_t.ppf" in paired and "student_t.sf" in paired
    assert 'committed["mean_difference"]' in paired and 'committed["p_value"]' in paired
    assert "assert_allclose" in LECTURE.source("u6-sparse-toy")


def test_the_report_stretches_moved_to_the_experiments_readme():
    prose = LECTURE.prose()
    for gone in ("Test 1 and Test 2", "test–retest design is also", "is generally found to "
                 "better capture", "forty comparisons of practice", "Reading the claims"):
        assert gone not in prose, gone
    code = " ".join("".join(c["source"]) for c in LECTURE.cells("code"))
    assert '["source"]["claims"]' not in code, "the claims print belongs to the README"
    pages = [(ROOT / "experiments" / f"{name}.md").read_text("utf-8") for name in (
        "jensen2011_learning_curves", "nielsen2011_sparse_toy", "nielsen2015_personalisation",
        "acquisition_race", "jensen2013_bounded_regression")]
    for label, page in zip(("E6.1", "E6.2", "E6.3", "E6.4", "E6.5"), pages):
        assert page.startswith(f"# {label} "), label
    readme = " ".join(" ".join(pages).split())
    assert "is generally found to better capture the relevant mass" in readme
    assert "Test 2 thus came after 40 comparisons of practice" in readme


def test_the_matched_model_wins_the_papers_columns_not_the_third_functions():
    verdicts = load_result("jensen2013_bounded_regression")["result"]["summary"]["ml_ii"][
        "verdicts"]
    assert all(verdicts[function][noise]["matched_wins"] for function in ("SE", "periodic")
               for noise in ("WA", "TG", "BE"))
    lost = [(f, n) for f in verdicts for n in verdicts[f] if not verdicts[f][n]["matched_wins"]]
    assert lost == [("SE_text", "BE")] and verdicts["SE_text"]["BE"]["winner"] == "GP-WA"
    assert "every column of our repetition" not in LECTURE.prose()
    summary = " ".join(LECTURE.source("u6-summary").split())
    p_tg = verdicts["SE"]["TG"]["against"]["GP-BE"]["p_value"]
    assert ("has the lower mean NLPD in all six columns of the paper's table (in one, not beyond "
            f"chance: p = {p_tg:.2f}), and not in one column of a third function") in summary
    text = LECTURE.source("ba23a9ed")
    lowest = verdicts["SE"]["TG"]["n_realisations_matched_lowest"]
    assert f"it is the lowest in {lowest} of 10 realisations" in text
    assert "GP-WA is lower: the matched model loses there, again not significantly" in text
    for function, noise, rival in (("SE", "TG", "GP-BE"), ("SE_text", "BE", "GP-WA")):
        against = verdicts[function][noise]["against"][rival]
        assert against["p_value"] > 0.05, "both intervals hold 0"


def test_uei_against_random_is_the_committed_race():
    """Section 8.4's "no better than random": the final regrets of the same listeners, paired."""
    regret = {}
    for row in load_result("acquisition_race")["result"]["per_listener"]["2d"]:
        regret.setdefault(row["group"], {})[row["index"]] = row["regret"][-1]
    listeners = sorted(regret["uei"])
    uei, chance = ([regret[rule][k] for k in listeners] for rule in ("uei", "random"))
    p = wilcoxon(uei, chance).pvalue
    assert sum(uei) > sum(chance) and p > 0.05
    assert f"Wilcoxon p = {p:.2f}" in " ".join(LECTURE.source("64cf04cd").split())


def test_the_priors_are_credited_to_the_paper_that_states_them():
    """Nielsen, Nielsen & Larsen (2015), eqs. 23-28, state sigma_f = 4 and the half-Student-t
    priors; the thesis only says it 'typically' uses weakly-informative ones."""
    assert "Nielsen, Nielsen & Larsen (2015, eqs. 23–28)" in LECTURE.source("367d3340")
    loop = LECTURE.source("7556b6fb")
    assert loop.count("Nielsen et al. 2015, eqs. 23–28") == 2
    assert "priors of Nielsen 2015" not in loop and "variance 4 of Nielsen 2015" not in loop
    assert "half-Student-t priors (Nielsen et al. 2015)" in LECTURE.source("u6-summary")


def test_section_8_3_states_the_committed_settling_counts():
    claims = load_result("nielsen2015_personalisation")["result"]["claims"]
    two = claims["2d: 10-20 comparisons suffice"]
    four = claims["4d: 10-20 comparisons suffice"]
    assert two.startswith("partly") and four.startswith("does not hold")
    measure = re.search(r"median (\S+) until the convergence measure", two).group(1)
    moving = re.search(r"median (\S+) until the incumbent", two).group(1)
    never, listeners = map(int, re.search(r"\((\d+) of (\d+) never\)", four).groups())
    text = LECTURE.source("e2819766")
    assert f"measure settles after {measure} active comparisons" in text
    assert f"incumbent keeps moving until {moving}" in text
    assert f"{round(100 * never / listeners)} % of the listeners never settle" in text


def test_section_8_5_states_the_sparse_toys_numbers():
    models = load_result("nielsen2011_sparse_toy")["result"]["models"]
    assert models["sparse_fixed"]["test_error_rate"] == pytest.approx(1 / 6)
    assert models["sparse_optimised"]["test_error_rate"] == 0
    assert round(100 * (models["sparse_optimised"]["mean_sd_over_full"] - 1), -1) == 30
    gap = models["full"]["log_evidence"] - models["sparse_optimised"]["log_evidence"]
    assert 0 < gap < 1, "within a nat of the full model's"
    text = LECTURE.source("c49d478e")
    assert "one test pair in six wrongly" in text and "within a nat" in text
    assert "sd about 30 % wider" in text


def test_the_forced_choice_counts_are_the_binomial_tests():
    text = LECTURE.source("bcc912f9")
    assert (f"18 ($p = {binomtest(18, 20).pvalue:.4f}$; 17 gives "
            f"${binomtest(17, 20).pvalue:.4f}$)") in text
    assert binomtest(11, 11).pvalue < 0.005 < binomtest(10, 11).pvalue
