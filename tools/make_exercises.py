#!/usr/bin/env python3
"""Generate ``exercises/NN_topic.ipynb`` from ``solutions/NN_topic.ipynb``.

Markers (nbgrader-compatible), see docs/CONVENTIONS.md section 5:

* ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` in a code cell becomes
  ``raise NotImplementedError()`` at the marker's indentation; in a markdown cell it becomes
  ``YOUR ANSWER HERE``.
* ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` is removed.
* A cell tagged ``solution`` is replaced whole (code: a stub that raises; markdown: a prompt).

Outputs are cleared and a first cell says the notebook is generated.

Grading (nbgrader 0.9, metadata schema 3) follows one rule, applied to the solutions notebooks
themselves so that ``nbgrader generate_assignment`` can read them directly:

* a code cell with a SOLUTION block (or tagged ``solution``) is an answer cell
  (``solution: true``), grade id ``task<N>-<function it defines>``;
* a ``self-check`` cell is an autograded test cell (``grade: true``, locked) worth
  ``POINTS_PER_ANSWER`` points for every answer cell since the previous self-check of its task;
* a markdown cell tagged ``solution`` is a written answer, graded by hand: its points are the
  sum of the items of the ``**Rubric.**`` list that ends the model answer (``- 2 points: ...``);
* every ``## Task N`` heading ends in ``(P points)``, the sum over the task's graded cells.

    python tools/make_exercises.py            # apply the grading rule to solutions/, (re)write exercises/
    python tools/make_exercises.py --check    # fail if solutions/' grading or exercises/ is stale
    python tools/make_exercises.py --check 05 # the same for unit 5 alone
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

try:
    import nbformat
except ModuleNotFoundError as missing:  # started by a python other than the course's
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import course
    course.rerun_in_environment(missing)

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
MARKDOWN_STUB = "YOUR ANSWER HERE"
BLOCKS = {"SOLUTION": "replace", "HIDDEN TESTS": "remove"}
POINTS_PER_ANSWER = 4  # each answer cell (one function, as a rule) a self-check grades
TASK_HEADING = re.compile(r"^## Task (\d+)\b(.*?)(?: \(\d+ points?\))?[ \t]*$")
RUBRIC = "**Rubric.**"
RUBRIC_ITEM = re.compile(r"^[-*] (\d+) points?: \S", re.M)
DEFINED_FUNCTION = re.compile(r"^def (\w+)\(", re.M)


class MarkerError(ValueError):
    """Unbalanced or nested markers in a solutions notebook."""


def _marker(line: str) -> tuple[str, str] | None:
    text = line.strip()
    for kind in BLOCKS:
        for edge in ("BEGIN", "END"):
            if text == f"### {edge} {kind}":
                return edge, kind
    return None


def strip_blocks(source: str, cell_type: str, where: str) -> str:
    """Apply the SOLUTION / HIDDEN TESTS markers of one cell's source."""
    out, open_block = [], None
    for line in source.split("\n"):
        marker = _marker(line)
        if marker is None:
            if open_block is None:
                out.append(line)
            continue
        edge, kind = marker
        if edge == "BEGIN":
            if open_block is not None:
                raise MarkerError(f"{where}: '### BEGIN {kind}' inside an open {open_block} block")
            open_block = kind
            if BLOCKS[kind] == "replace":
                indent = line[: len(line) - len(line.lstrip())]
                stub = CODE_STUB if cell_type == "code" else MARKDOWN_STUB
                out.extend(indent + stub_line for stub_line in stub.split("\n"))
        else:
            if open_block != kind:
                raise MarkerError(f"{where}: '### END {kind}' without a matching BEGIN")
            open_block = None
    if open_block is not None:
        raise MarkerError(f"{where}: '### BEGIN {open_block}' is never closed")
    return "\n".join(out)


class GradingError(ValueError):
    """A solutions notebook that the grading rule cannot give nbgrader metadata."""


def is_code_answer(cell) -> bool:
    return cell.cell_type == "code" and (
        "solution" in cell.metadata.get("tags", [])
        or any(_marker(line) == ("BEGIN", "SOLUTION") for line in cell.source.split("\n")))


def is_written_answer(cell) -> bool:
    return cell.cell_type == "markdown" and "solution" in cell.metadata.get("tags", [])


def is_self_check(cell) -> bool:
    return "self-check" in cell.metadata.get("tags", [])


def rubric_points(source: str) -> int:
    """Points of a written answer: the sum of its rubric's items (0 when it has no rubric)."""
    _, found, rubric = source.partition(RUBRIC)
    return sum(int(points) for points in RUBRIC_ITEM.findall(rubric)) if found else 0


def _nbgrader(grade_id: str, *, solution: bool, grade: bool, points: int | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution,
            "schema_version": 3, "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def add_grading(solution: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """A copy of ``solution`` with the rule's nbgrader metadata and task headings' points."""
    graded = copy.deepcopy(solution)
    task, answers_since_check = None, 0
    headings: dict[int, tuple] = {}  # task -> (heading cell, its first line without points)
    points_of: dict[int, int] = {}
    counts: dict[tuple, int] = {}

    def next_id(kind: str) -> str:
        counts[task, kind] = counts.get((task, kind), 0) + 1
        return f"task{task}-{kind}{counts[task, kind]}"

    for index, cell in enumerate(graded.cells):
        where = f"solutions/{name} cell {index}"
        cell.metadata.pop("nbgrader", None)
        first_line = cell.source.split("\n", 1)[0]
        if cell.cell_type == "markdown" and first_line.startswith("## "):
            match = TASK_HEADING.match(first_line)
            task, answers_since_check = (int(match.group(1)) if match else None), 0
            if match:
                if task in headings:
                    raise GradingError(f"{where}: a second '## Task {task}' heading")
                headings[task] = (cell, f"## Task {task}{match.group(2)}")
                points_of[task] = 0
            continue
        if task is None and (is_code_answer(cell) or is_written_answer(cell)
                             or is_self_check(cell)):
            raise GradingError(f"{where}: an answer or self-check outside a '## Task N' section")
        if is_code_answer(cell):
            functions = DEFINED_FUNCTION.findall(cell.source)
            grade_id = f"task{task}-{functions[0]}" if functions else next_id("answer")
            cell.metadata["nbgrader"] = _nbgrader(grade_id, solution=True, grade=False)
            answers_since_check += 1
        elif is_written_answer(cell):
            points = rubric_points(cell.source)
            if points == 0:
                raise GradingError(f"{where}: a written answer without a '{RUBRIC}' list of "
                                   "'- N points: ...' items")
            cell.metadata["nbgrader"] = _nbgrader(next_id("written"), solution=True, grade=True,
                                                  points=points)
            points_of[task] += points
        elif is_self_check(cell):
            points = POINTS_PER_ANSWER * max(1, answers_since_check)
            cell.metadata["nbgrader"] = _nbgrader(next_id("check"), solution=False, grade=True,
                                                  points=points)
            points_of[task] += points
            answers_since_check = 0
    for task, (cell, title) in headings.items():
        if points_of[task] == 0:
            raise GradingError(f"solutions/{name}: Task {task} has nothing graded (no self-check "
                               "and no written answer)")
        rest = cell.source[len(cell.source.split("\n", 1)[0]):]
        points = points_of[task]
        cell.source = f"{title} ({points} point{'s' * (points != 1)}){rest}"
    return graded


def points_row(solution: nbformat.NotebookNode, unit: str) -> str:
    """The row of docs/TEACHING.md's points table for a graded solutions notebook: tasks,
    self-checks / points, written answers / points, total, self-checks with hidden tests."""
    tasks = sum(cell.cell_type == "markdown" and cell.source.startswith("## Task")
                for cell in solution.cells)
    checks, written, hidden = [], [], []
    for cell in solution.cells:
        grading = cell.metadata.get("nbgrader", {})
        if not grading.get("grade"):
            continue
        if cell.cell_type == "code":
            checks.append(grading["points"])
            if "### BEGIN HIDDEN TESTS" in cell.source:
                hidden.append(grading["grade_id"])
        else:
            written.append(grading["points"])
    return (f"| {unit} | {tasks} | {len(checks)} / {sum(checks)} | {len(written)} / "
            f"{sum(written)} | {sum(checks) + sum(written)} | {', '.join(hidden)} |")


def make_exercise(solution: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The exercise notebook generated from a solutions notebook (which is not modified).

    It keeps the solution's nbgrader metadata (``add_grading``), so a copy a student filled in
    can be autograded like nbgrader's own release of the solutions notebook."""
    exercise = copy.deepcopy(solution)
    for index, cell in enumerate(exercise.cells):
        where = f"solutions/{name} cell {index}"
        if "solution" in cell.metadata.get("tags", []):
            cell.source = CODE_STUB if cell.cell_type == "code" else MARKDOWN_STUB
        else:
            cell.source = strip_blocks(cell.source, cell.cell_type, where)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    notice = nbformat.v4.new_markdown_cell(
        f"> **Exercise notebook, generated** from `solutions/{name}` by "
        "`tools/make_exercises.py`. Do not edit it in the repository: edit the solutions "
        "notebook and regenerate. Work in a copy, fill in every `raise NotImplementedError()`, "
        "and run the self-check cell after each task.")
    notice.id = "generated-notice"
    notice.metadata["tags"] = ["generated-notice"]
    exercise.cells.insert(0, notice)
    return exercise


def render(notebook: nbformat.NotebookNode) -> str:
    return nbformat.writes(notebook) + "\n"


def expected_notebooks(units: list[str] = ()) -> dict[Path, str]:
    """Map each solutions and exercise path to the text it should have: of the units numbered
    ``units`` (``"05"``), or of every unit."""
    expected = {}
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        if units and path.name[:2] not in units:
            continue
        solution = nbformat.read(path, as_version=4)
        graded = add_grading(solution, path.name)
        if render(graded) != render(solution):  # the stored file's own formatting is kept
            expected[path] = render(graded)
        expected[EXERCISES / path.name] = render(make_exercise(graded, path.name))
    return expected


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Apply the grading rule to solutions/ and generate exercises/ from it.")
    parser.add_argument("--check", action="store_true",
                        help="only check that solutions/' grading metadata and exercises/ are up "
                             "to date (exit 1 if stale)")
    parser.add_argument("units", nargs="*", metavar="NN",
                        help="only these units, by number (05); course.py test UNIT passes its own")
    args = parser.parse_args()
    unknown = [unit for unit in args.units if not list(SOLUTIONS.glob(f"{unit}_*.ipynb"))]
    if unknown:
        parser.error(f"argument NN: no solutions/{unknown[0]}_*.ipynb")
    try:
        expected = expected_notebooks(args.units)
    except (MarkerError, GradingError) as err:
        print(f"make_exercises: {err}", file=sys.stderr)
        return 1
    # an exercise without a solutions notebook is only seen when every unit is looked at
    orphans = [] if args.units else sorted(set(EXERCISES.glob("*.ipynb")) - set(expected))
    if args.check:
        stale = [p for p, text in expected.items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale + orphans:
            print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
        if stale or orphans:
            print("solutions/ grading or exercises/ is stale: run "
                  "`python tools/make_exercises.py`", file=sys.stderr)
            return 1
        checked = (f"unit {', '.join(args.units)}" if args.units
                   else f"{len(list(SOLUTIONS.glob('*.ipynb')))} units")
        print(f"exercises/ and the grading of solutions/ are up to date ({checked})")
        return 0
    EXERCISES.mkdir(exist_ok=True)
    for path, text in expected.items():
        path.write_text(text, encoding="utf-8")
    for path in orphans:
        path.unlink()
    updated = [p.name for p in expected if p.parent == SOLUTIONS]
    print(f"wrote {len(expected) - len(updated)} exercise notebooks"
          + (f", graded {len(updated)} solutions notebooks ({', '.join(updated)})"
             if updated else "")
          + (f", removed {len(orphans)} orphans" if orphans else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
