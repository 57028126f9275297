"""No project labels in the library, in the notebooks or in the printed tables: papers are cited
by author, year and equation.

"seed 003", "Paper H", "H(19)" and the like were this project's names for its sources. A student
never saw a "seed": the lectures, solutions and exercises cite a source by its authors and year
(or, for a text that names no authors, its title and arXiv number), an appended paper of a
thesis by its own authors, and the tables course_lib.reports prints name their paper the same
way. The experiments and their committed results are named so too, by the source's first author
and year and what they reproduce (``wu2025_fig2``, ``nielsen2015_personalisation``,
``wong2024_table1_fluency`` for arXiv 2306.02719), so the names that notebooks and plots load
and run carry no label either.
"""

import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from course_lib import reports, results

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "course_lib"
RESULT_NAMES = frozenset(path.stem for path in (ROOT / "experiments" / "results").glob("*.json"))
SCRIPT_NAMES = frozenset(path.stem for path in (ROOT / "experiments").glob("*.py"))
# the source's first author and year, then what it reproduces: gilgonzalez2019_toy, wu2025_fig2
EXPERIMENT_NAME = re.compile(r"[a-z]+(?:19|20)\d\d_[a-z0-9_]+")
# the experiments of the course's own that reproduce no single table or figure of a source
OWN_EXPERIMENTS = {"acquisition_race", "class_panel_calibration", "class_verdicts_by_condition",
                   "detection_threshold_intervals", "fsdd_real_voices", "fsdd_speaker_intervals",
                   "personalise_explorer_settling",
                   "heard_as_written",
                   "misread_readings", "overconfident_rater_fits", "panel_decoder_inputs",
                   "pronunciation_panel", "repeat_cost", "shown_word_check",
                   "word_phone_feedback"}
NOTEBOOKS = sorted(path for folder in ("lectures", "solutions", "exercises")
                   for path in (ROOT / folder).glob("*.ipynb"))

# numbered seeds (seed 003, seed003, seed_003), lettered papers (Paper H, Papers A and E,
# paper_h_...), the seed's ..., and the old API prefix seed_pref...
LABEL = re.compile(r"(?i:\bseeds?[ _]?0\d\d)|\b[Pp]apers? [A-H]\b|(?i:\bpaper_[a-h](?![a-z]))"
                   r"|(?i:\bseed's\b)|(?i:\bseed_pref)")
# What a student reads (notebooks, printed tables) uses "seed" for a random seed ("each seed's F1
# curve", "paired by seed"), so there a label is a numbered source ("seed 001", "Seed 003",
# "seed-001"), a source called "the seed", a thesis's appended paper ("Paper H", "Papers B and
# C"), its equations ("H(19)") or its tables and figures ("Table H.1").
STUDENT_LABEL = re.compile(r"(?i:\bseeds?[ _-]?0\d\d)|\b[Pp]apers? [A-Z]\b|\b[A-H]\(\d+[a-z]?\)"
                           r"|\b(?:Table|Fig\.|Figure) [A-H]\.\d|(?i:\bthe seed\b)"
                           r"|(?i:\bseed authors\b)")
# a printed table has no random seed to name: "seed" alone ("Auto, seed", "seed: ...") is a label
TABLE_LABEL = re.compile(STUDENT_LABEL.pattern + r"|(?i:\bseed\b)")


def _labels(text: str, pattern: re.Pattern = LABEL) -> list[str]:
    """The labels in ``text``."""
    return [match.group() for match in pattern.finditer(text)]


def _findings(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    findings = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.COMMENT, tokenize.NAME, tokenize.STRING):
            continue
        labels = _labels(token.string)
        findings += [f"{path.relative_to(ROOT)}:{token.start[0]}: {label!r}" for label in labels]
    return findings


MODULES = sorted(LIBRARY.rglob("*.py"))


def test_the_committed_results_are_found():
    assert "wu2025_fig2" in RESULT_NAMES and "nielsen2015_personalisation" in RESULT_NAMES


@pytest.mark.parametrize("name", sorted((RESULT_NAMES | SCRIPT_NAMES)
                                        - {"__init__", "common", "provenance"}
                                        - OWN_EXPERIMENTS))
def test_experiments_are_named_by_author_year_and_what_they_reproduce(name):
    assert EXPERIMENT_NAME.fullmatch(name), (
        f"experiments/{name}: name a reproduction by its source's first author and year and "
        f"what it reproduces (gilgonzalez2019_table1, wu2025_levelset)")


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(LIBRARY)))
def test_no_project_labels_in_the_library(path):
    assert _findings(path) == [], "cite the paper by author, year and equation instead"


@pytest.mark.parametrize("text, expected", [
    ("as in seed 003, eq. 2", ["seed 003"]),
    ("Paper H's 2-D study", ["Paper H"]),
    ("its Papers A and E", ["Papers A"]),
    ("def paper_h_model():", ["paper_h"]),
    ("seed_preference_likelihood", ["seed_pref"]),
    ("the seed's noise heuristic", ["seed's"]),
    ('load_result("seed003_fig2")', ["seed003"]),
    ("``paper_a_learning_curves``", ["paper_a"]),
    ('load_result("wu2025_fig2")', []),
    ("``jensen2011_learning_curves``", []),
    ("rng : Generator, int seed or None", []),
    ("a paper about hearing aids", []),
])
def test_the_label_pattern(text, expected):
    assert _labels(text) == expected


def _notebook_text(path: Path) -> str:
    """Every cell's source and every stored output (the tables nbval checks) of a notebook."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in notebook["cells"]:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_project_labels_in_what_a_student_reads(path):
    assert _labels(_notebook_text(path), STUDENT_LABEL) == [], \
        "cite the source by its authors and year (a thesis's paper by its own authors)"


@pytest.mark.parametrize("path", sorted((ROOT / "experiments").glob("*.md")),
                         ids=lambda path: str(path.relative_to(ROOT)))
def test_no_project_labels_in_the_experiments_pages(path):
    """The experiments' index and pages are read by students too (no "digest" of a source
    either: a source is its paper)."""
    text = path.read_text(encoding="utf-8")
    assert _labels(text, STUDENT_LABEL) == [], \
        "cite the source by its authors and year (a thesis's paper by its own authors)"
    assert "digest" not in text.lower(), "cite the paper, not a summary of it"


@pytest.mark.parametrize("name", sorted(reports._REPORTS))
def test_no_project_labels_in_the_printed_tables(name):
    assert _labels(reports.report(results.load_result(name)), TABLE_LABEL) == [], \
        "a printed table names its paper by author and year (or arXiv number)"


def test_the_notebooks_are_found():
    assert len(NOTEBOOKS) >= 21 and ROOT / "lectures" / "05_gp_raters.ipynb" in NOTEBOOKS


@pytest.mark.parametrize("text, expected", [
    ("Seed 001's Table 1", ["Seed 001"]),
    ('title="the seed-001 toy"', ["the seed"]),
    ("fitted on the seed-001 toy", ["the seed"]),
    ("a seed-001 toy", ["seed-001"]),
    ("as in the seed, only the KL gain", ["the seed"]),
    ("The seed's step mixed > pseudo", ["The seed"]),
    ("from the seed authors' group", ["the seed"]),
    ("AEPsych, from its seed authors' group", ["seed authors"]),
    ("the thesis's Paper A prints", ["Paper A"]),
    ("Papers B and C let a few", ["Papers B"]),
    ("the predictive covariance (H(19))", ["H(19)"]),
    ("most of whom ended there (its Table H.1)", ["Table H.1"]),
    ("`experiments/seed001_table1.py` repeats this", ["seed001"]),
    ("python -m experiments.seed003_levelset --four-d", ["seed003"]),
    ("`experiments/gilgonzalez2019_table1.py` repeats this", []),
    ("python -m experiments.wu2025_levelset --four-d", []),
    ("the same seed for every setting; each seed's F1 curve, paired by seed", []),
    ("Gil-González et al. (2019), Table 1; Nielsen, Nielsen & Larsen (2015), eq. 2.52", []),
    ("entropy H(p) and E(mean), f(x1) - f(x2), App. A.1", []),
])
def test_the_student_label_pattern(text, expected):
    assert _labels(text, STUDENT_LABEL) == expected


@pytest.mark.parametrize("text, expected", [
    ("Auto, seed            35.4±3.1", ["seed"]),
    ("seed: near-zero posterior uncertainty", ["seed"]),
    ("p ours (seed's)", ["seed"]),
    ("RMSE x 100, mean ± sd over 30 seeds", []),
    ("Auto, paper           35.4±3.1   (paper: Gil-González et al. 2019, Table 1a)", []),
])
def test_the_table_label_pattern(text, expected):
    assert _labels(text, TABLE_LABEL) == expected
