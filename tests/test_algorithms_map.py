"""docs/ALGORITHMS.md cannot rot: every core it names exists, is short, sits in a short module,
and every lecture is there.

The map is read as a markdown table whose first column is the lecture (01-07) and whose last
column is `course_lib/<file>.py::<function>` or `...::<Class>.<method>`. Functions are found with
ast, so nothing is imported.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from course_units import UNITS

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "ALGORITHMS.md"
MAX_LINES = 60
# A module the map names is read whole by a student: "at most about 300 lines" (docs/CONVENTIONS.md
# section 3.1), with a tenth for docstrings. What does not fit is an engine for a sibling module.
MAX_MODULE_LINES = 330
ROW = re.compile(r"^\|\s*(\d\d)\s*\|(.*)\|\s*`(course_lib/[\w/]+\.py)::([\w.]+)`\s*\|\s*$")


def _entries():
    rows = []
    for line in MAP.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            lecture, _, path, name = match.groups()
            rows.append((lecture, path, name))
    return rows


ENTRIES = _entries()


@cache
def _tree(path: str) -> ast.Module:
    return ast.parse((ROOT / path).read_text(encoding="utf-8"), filename=path)


def _definition(path: str, name: str):
    """The FunctionDef of ``name`` (``function`` or ``Class.method``) at module level, or None."""
    scope = _tree(path).body
    *owners, function = name.split(".")
    for owner in owners:
        classes = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == owner]
        if len(classes) != 1:
            return None
        scope = classes[0].body
    found = [n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.name == function]
    return found[0] if len(found) == 1 else None


def _length(node) -> int:
    """Lines from ``def`` (decorators not counted) to the function's last line."""
    return node.end_lineno - node.lineno + 1


def test_the_map_has_rows_and_every_line_of_its_table_parses():
    assert len(ENTRIES) >= 40, f"only {len(ENTRIES)} entries parsed from {MAP.name}"
    table = [line for line in MAP.read_text(encoding="utf-8").splitlines()
             if line.startswith("| 0")]
    assert len(table) == len(ENTRIES), [line for line in table if not ROW.match(line)]


def test_every_lecture_has_at_least_one_entry():
    lectures = {lecture for lecture, _, _ in ENTRIES}
    expected = {f"{number:02d}" for number in range(1, 8)}
    assert expected <= {unit.split("_")[0] for unit in UNITS}, UNITS
    assert lectures == expected, f"lectures without an entry: {sorted(expected - lectures)}"


@pytest.mark.parametrize("lecture, path, name", ENTRIES,
                         ids=[f"{lecture}-{path}::{name}" for lecture, path, name in ENTRIES])
def test_every_entry_resolves_to_a_short_core(lecture, path, name):
    assert (ROOT / path).is_file(), f"{path} does not exist"
    node = _definition(path, name)
    assert node is not None, f"{path} has no single definition of {name}"
    length = _length(node)
    assert length <= MAX_LINES, f"{path}::{name} is {length} lines (at most {MAX_LINES})"


@pytest.mark.parametrize("path", sorted({path for _, path, _ in ENTRIES}))
def test_every_module_the_map_names_is_short(path):
    lines = len((ROOT / path).read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, (
        f"{path} is {lines} lines (at most {MAX_MODULE_LINES}): move what a student need not "
        "read to follow the algorithm into a named engine module beside it")
