"""No project labels in the library: papers are cited by author, year and equation.

"seed 003", "Paper H" and the like are this project's names for its sources; they are decoded
only in experiments/README.md, which a reader of course_lib never sees. The one exception is
the name of a committed experiment result (the stem of a file in experiments/results/, such as
``seed003_fig2``): course_lib.results and the plots load results by that name. Separately,
course_lib.results prints lecture tables whose rows keep the lecture's short name for a paper
("GOLD, seed", "p-values ours (the seed's)"), so its string literals may say "seed's".
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "course_lib"
RESULT_NAMES = frozenset(path.stem for path in (ROOT / "experiments" / "results").glob("*.json"))
# the module whose printed tables use the lecture's vocabulary
LECTURE_TABLES = LIBRARY / "results.py"

# numbered seeds (seed 003, seed003, seed_003), lettered papers (Paper H, Papers A and E,
# paper_h_...), the seed's ..., and the old API prefix seed_pref...
LABEL = re.compile(r"(?i:\bseeds?[ _]?0\d\d)|\b[Pp]apers? [A-H]\b|(?i:\bpaper_[a-h](?![a-z]))"
                   r"|(?i:\bseed's\b)|(?i:\bseed_pref)")
# "seed's" in a printed table of results.py; nothing else is allowed there
PRINTED_SHORT_NAME = re.compile(r"\bseed's\b", re.IGNORECASE)


def _labels(text: str) -> list[str]:
    """The labels in ``text`` that are not part of a committed result's name."""
    found = []
    for match in LABEL.finditer(text):
        start = match.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        end = match.end()
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        if text[start:end] not in RESULT_NAMES:
            found.append(match.group())
    return found


def _docstring_starts(source: str) -> set[tuple[int, int]]:
    """Start positions (row, col) of the module, class and function docstrings."""
    starts = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                starts.add((body[0].value.lineno, body[0].value.col_offset))
    return starts


def _findings(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    docstrings = _docstring_starts(source)
    findings = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.COMMENT, tokenize.NAME, tokenize.STRING):
            continue
        labels = _labels(token.string)
        if path == LECTURE_TABLES and token.type == tokenize.STRING \
                and token.start not in docstrings:
            labels = [label for label in labels if not PRINTED_SHORT_NAME.fullmatch(label)]
        findings += [f"{path.relative_to(ROOT)}:{token.start[0]}: {label!r}" for label in labels]
    return findings


MODULES = sorted(LIBRARY.rglob("*.py"))


def test_the_committed_results_are_found():
    assert "seed003_fig2" in RESULT_NAMES and "paper_h_personalisation" in RESULT_NAMES


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
    ('load_result("seed003_fig2")', []),
    ("``paper_a_learning_curves``", []),
    ("rng : Generator, int seed or None", []),
    ("a paper about hearing aids", []),
])
def test_the_label_pattern(text, expected):
    assert _labels(text) == expected
