#!/usr/bin/env python3
"""Static checks of every notebook in lectures/, solutions/ and exercises/ (docs/CONVENTIONS.md s.4).

* valid nbformat 4 with the ``python3`` kernelspec and a markdown title cell first;
* the first code cell is the setup cell: ``SEED = ...``, ``rng = np.random.default_rng(SEED)``,
  ``%matplotlib inline``, and in a notebook with figure descriptions an import of
  ``course_lib.plotting`` (or a module of it, or of ``course_lib.widgets``), which gives its
  figures the course's colours and, in JupyterLab, their descriptions as alt text;
* no package installs, network access or absolute paths in code cells;
* stored outputs only in cells whose output nbval checks (tag ``nbval-check-output`` or a
  ``# NBVAL_CHECK_OUTPUT`` comment); none at all in exercises/;
* only known cell tags and no saved widget state;
* figure descriptions (cell metadata ``figure_descriptions``) only on code cells, as a list of
  non-empty texts (tools/build_site.py counts them against the figures);
* the same ``NN_topic`` names in all three folders, every solutions notebook has a self-check;
* the unit number prefixes are unique;
* grading (solutions/ and exercises/, docs/CONVENTIONS.md s.5): every answer and self-check
  cell carries nbgrader metadata, grade ids are unique, every ``## Task N`` heading states its
  points and they add up, and (solutions/) every written answer has a rubric worth its points.

Exit status 1 and one line per problem when anything fails. ``check_notebooks.py 05`` checks
unit 5's notebooks alone (and the layout, which is the folders' as a whole).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from make_exercises import (RUBRIC, TASK_HEADING, is_code_answer, is_self_check,
                            is_written_answer, rubric_points)  # first: it finds the environment
import nbformat

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("lectures", "solutions", "exercises")
ALLOWED_TAGS = {"solution", "self-check", "nbval-check-output", "nbval-ignore-output",
                "nbval-raises-exception", "generated-notice"}
FORBIDDEN_CODE = [
    (re.compile(r"^\s*[%!]\s*(pip|conda|mamba|apt|apt-get)\b", re.M), "installs packages"),
    (re.compile(r"\b(pip|conda)\s+install\b"), "installs packages"),
    (re.compile(r"\b(urllib|requests|httpx|urlopen|wget|curl)\b"), "uses the network"),
    (re.compile(r"https?://"), "names a URL in code (data must come from data/)"),
    (re.compile(r"['\"](/home/|/work/|/Users/|/tmp/|[A-Za-z]:\\\\)"), "uses an absolute path"),
]
GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")  # what nbgrader accepts
TASK_POINTS = re.compile(r"^## Task \d+\b.* \((\d+) points?\)$")
NAME = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")
SETUP_NEEDS = [
    (re.compile(r"^SEED\s*=\s*\d+", re.M), "SEED = <int>"),
    (re.compile(r"rng\s*=\s*np\.random\.default_rng\(SEED\)"), "rng = np.random.default_rng(SEED)"),
    (re.compile(r"^%matplotlib inline", re.M), "%matplotlib inline"),
]
# imports course_lib.plotting, directly or through a module of it or of the widgets
PLOTTING_IMPORT = re.compile(r"^\s*(?:import|from)\s+course_lib\.(?:plotting|widgets)\b", re.M)


def checks_output(cell) -> bool:
    return ("nbval-check-output" in cell.metadata.get("tags", [])
            or "# NBVAL_CHECK_OUTPUT" in cell.source)


def check_notebook(path: Path) -> list[str]:
    rel = path.relative_to(ROOT)
    problems = []
    if not NAME.match(path.name):
        problems.append(f"{rel}: name must look like NN_topic.ipynb")
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as err:  # any parse or schema error is reported, not raised
        return [f"{rel}: not a valid notebook ({err})"]
    if "widgets" in nb.metadata:
        problems.append(f"{rel}: saved widget state in the metadata (run "
                        "`python tools/store_outputs.py --strip-only`)")
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problems.append(f"{rel}: kernelspec must be python3")
    markdown = [c for c in nb.cells if c.cell_type == "markdown"
                and "generated-notice" not in c.metadata.get("tags", [])]
    if not markdown or not markdown[0].source.lstrip().startswith("# "):
        problems.append(f"{rel}: the first cell must be a markdown title ('# ...')")
    code = [c for c in nb.cells if c.cell_type == "code"]
    if not code:
        problems.append(f"{rel}: has no code cells")
    else:
        for pattern, what in SETUP_NEEDS:
            if not pattern.search(code[0].source):
                problems.append(f"{rel}: the first code cell (setup) lacks `{what}`")
        if (any(c.metadata.get("figure_descriptions") for c in code)
                and not PLOTTING_IMPORT.search(code[0].source)):
            problems.append(f"{rel}: the first code cell (setup) lacks `import course_lib.plotting`"
                            " (its figures would miss the course's colours and, in JupyterLab, "
                            "their descriptions as alt text)")
    for index, cell in enumerate(nb.cells):
        where = f"{rel} cell {index}"
        for tag in cell.metadata.get("tags", []):
            if tag not in ALLOWED_TAGS:
                problems.append(f"{where}: unknown tag {tag!r} (allowed: {sorted(ALLOWED_TAGS)})")
        descriptions = cell.metadata.get("figure_descriptions")
        if descriptions is not None and (cell.cell_type != "code" or not isinstance(
                descriptions, list) or not all(isinstance(text, str) and text.strip()
                                               for text in descriptions)):
            problems.append(f"{where}: figure_descriptions must be a list of non-empty texts "
                            "on a code cell, one per figure it draws")
        if cell.cell_type != "code":
            continue
        for pattern, what in FORBIDDEN_CODE:
            if pattern.search(cell.source):
                problems.append(f"{where}: {what}")
        if cell.outputs and (rel.parts[0] == "exercises" or not checks_output(cell)):
            problems.append(f"{where}: stored outputs (only nbval-checked cells keep outputs; "
                            "run `python tools/store_outputs.py`)")
        if checks_output(cell) and not cell.outputs and rel.parts[0] != "exercises":
            problems.append(f"{where}: checked by nbval but has no stored output "
                            "(run `python tools/store_outputs.py`)")
    if rel.parts[0] in ("solutions", "exercises"):
        problems.extend(check_grading(nb, rel))
    if rel.parts[0] == "solutions" and not any(
            "self-check" in c.metadata.get("tags", []) for c in nb.cells):
        problems.append(f"{rel}: no cell tagged self-check")
    return problems


def check_grading(nb, rel) -> list[str]:
    """nbgrader metadata of a solutions or exercise notebook (see tools/make_exercises.py)."""
    problems, grade_ids = [], set()
    task, points_stated, points_found = None, {}, {}
    for index, cell in enumerate(nb.cells):
        where = f"{rel} cell {index}"
        meta = cell.metadata.get("nbgrader", {})
        first_line = cell.source.split("\n", 1)[0]
        if cell.cell_type == "markdown" and first_line.startswith("## "):
            task = first_line if TASK_HEADING.match(first_line) else None
            if task:
                stated = TASK_POINTS.match(first_line)
                points_stated[task] = int(stated.group(1)) if stated else None
                points_found[task] = 0
            continue
        written = rel.parts[0] == "solutions" and is_written_answer(cell)
        answer = is_code_answer(cell) or written or (
            rel.parts[0] == "exercises" and meta.get("solution"))
        if (answer or is_self_check(cell)) and task is None:
            problems.append(f"{where}: an answer or self-check outside a '## Task N' section")
        if answer and not meta.get("solution"):
            problems.append(f"{where}: an answer cell without nbgrader 'solution: true' "
                            "(run `python tools/make_exercises.py`)")
        if is_self_check(cell) and not (meta.get("grade") and meta.get("locked")):
            problems.append(f"{where}: a self-check that is not a locked nbgrader test cell "
                            "(run `python tools/make_exercises.py`)")
        if not meta:
            continue
        if meta.get("schema_version") != 3:
            problems.append(f"{where}: nbgrader schema_version must be 3")
        grade_id = meta.get("grade_id", "")
        if not GRADE_ID.match(grade_id):
            problems.append(f"{where}: nbgrader grade id {grade_id!r} is empty or not "
                            "letters, digits, '-' and '_'")
        elif grade_id in grade_ids:
            problems.append(f"{where}: nbgrader grade id {grade_id!r} is used twice")
        grade_ids.add(grade_id)
        if meta.get("grade"):
            points = meta.get("points")
            if not isinstance(points, int) or points <= 0:
                problems.append(f"{where}: a graded cell needs whole points > 0, has {points!r}")
                continue
            if task is not None:
                points_found[task] += points
            if written and rubric_points(cell.source) != points:
                problems.append(f"{where}: a written answer worth {points} points needs a "
                                f"'{RUBRIC}' list whose items add up to it (found "
                                f"{rubric_points(cell.source)})")
    for heading, stated in points_stated.items():
        if not points_found[heading]:
            problems.append(f"{rel}: '{heading}' has no points (no graded cell)")
        elif stated != points_found[heading]:
            problems.append(f"{rel}: '{heading}' should end in '({points_found[heading]} points)'"
                            " (run `python tools/make_exercises.py`)")
    return problems


def check_layout() -> list[str]:
    names = {folder: {p.name for p in (ROOT / folder).glob("*.ipynb")} for folder in FOLDERS}
    problems = []
    for folder in FOLDERS:
        for other in FOLDERS:
            for missing in sorted(names[folder] - names[other]):
                problems.append(f"{folder}/{missing} has no counterpart in {other}/")
    prefixes = [n[:2] for n in names["lectures"]]
    for prefix in sorted({p for p in prefixes if prefixes.count(p) > 1}):
        problems.append(f"lectures/: unit prefix {prefix}_ is used more than once")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("units", nargs="*", metavar="NN",
                        help="only these units' notebooks, by number (05); the layout is always "
                             "checked whole")
    units = parser.parse_args().units
    paths = sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("*.ipynb")
                   if not units or p.name[:2] in units)
    unknown = [unit for unit in units if not any(p.name.startswith(f"{unit}_") for p in paths)]
    if unknown:
        parser.error(f"argument NN: no notebook of unit {unknown[0]}")
    problems = check_layout()
    for path in paths:
        problems.extend(check_notebook(path))
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"check_notebooks: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_notebooks: {len(paths)} notebooks OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
