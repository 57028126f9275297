"""docs/ALGORITHMS.md cannot rot: every core it names exists, is short, sits in a module a
student opens (not a private engine), its engine column names the engines that module imports,
and every lecture is there. (How long a module may be: tests/test_code_budget.py.)

The map is read as a markdown table whose first column is the lecture (01-08) and whose last
column is `course_lib/<file>.py::<function>` or `...::<Class>.<method>`; the column before it
lists the private engine modules (`course_lib/<unit>/_<name>.py`) beside the core, or "none". Functions are found with
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
ROW = re.compile(r"^\|\s*(\d\d)\s*\|(.*)\|\s*(none|`[^|]*`)\s*\|\s*"
                 r"`(course_lib/[\w/]+\.py)::([\w.]+)`\s*\|\s*$")


def _entries():
    rows = []
    for line in MAP.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            lecture, _, engines, path, name = match.groups()
            rows.append((lecture, path, name, engines))
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
    lectures = {lecture for lecture, *_ in ENTRIES}
    expected = {unit.split("_")[0] for unit in UNITS}
    assert lectures == expected, (f"lectures without an entry: {sorted(expected - lectures)}; "
                                  f"entries of no lecture: {sorted(lectures - expected)}")


@pytest.mark.parametrize("lecture, path, name, engines", ENTRIES,
                         ids=[f"{lecture}-{path}::{name}" for lecture, path, name, _ in ENTRIES])
def test_every_entry_resolves_to_a_short_core(lecture, path, name, engines):
    assert (ROOT / path).is_file(), f"{path} does not exist"
    assert not Path(path).name.startswith("_"), (
        f"{path}::{name}: a core a lecture teaches sits in a module a student opens, not in a "
        "private engine")
    node = _definition(path, name)
    assert node is not None, f"{path} has no single definition of {name}"
    length = _length(node)
    assert length <= MAX_LINES, f"{path}::{name} is {length} lines (at most {MAX_LINES})"


def _engines(path: str) -> str:
    """The engine column for a core module: the private modules of its package it imports."""
    package = Path(path).parent
    found = [f"`{(package / node.module).as_posix()}.py`" for node in _tree(path).body
             if isinstance(node, ast.ImportFrom) and node.level == 1
             and (node.module or "").startswith("_")]
    return ", ".join(found) or "none"


@pytest.mark.parametrize("lecture, path, name, engines", ENTRIES,
                         ids=[f"{lecture}-{path}::{name}" for lecture, path, name, _ in ENTRIES])
def test_the_engine_column_names_the_engines_the_module_imports(lecture, path, name, engines):
    assert engines == _engines(path)
