#!/usr/bin/env python3
"""Generate ``exercises/NN_topic.ipynb`` from ``solutions/NN_topic.ipynb``.

Markers (nbgrader-compatible), see docs/CONVENTIONS.md section 5:

* ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` in a code cell becomes
  ``raise NotImplementedError()`` at the marker's indentation; in a markdown cell it becomes
  ``YOUR ANSWER HERE``.
* ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` is removed.
* A cell tagged ``solution`` is replaced whole (code: a stub that raises; markdown: a prompt).

Outputs are cleared and a first cell says the notebook is generated.

    python tools/make_exercises.py            # (re)write exercises/
    python tools/make_exercises.py --check    # fail if exercises/ is stale
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
MARKDOWN_STUB = "YOUR ANSWER HERE"
BLOCKS = {"SOLUTION": "replace", "HIDDEN TESTS": "remove"}


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


def make_exercise(solution: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The exercise notebook generated from a solutions notebook (which is not modified)."""
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


def expected_exercises() -> dict[Path, str]:
    """Map each exercise path to the text it should have."""
    expected = {}
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        solution = nbformat.read(path, as_version=4)
        expected[EXERCISES / path.name] = render(make_exercise(solution, path.name))
    return expected


def main() -> int:
    parser = argparse.ArgumentParser(description="Generate exercises/ from solutions/.")
    parser.add_argument("--check", action="store_true",
                        help="only check that exercises/ is up to date (exit 1 if stale)")
    args = parser.parse_args()
    try:
        expected = expected_exercises()
    except MarkerError as err:
        print(f"make_exercises: {err}", file=sys.stderr)
        return 1
    orphans = sorted(set(EXERCISES.glob("*.ipynb")) - set(expected))
    if args.check:
        stale = [p for p, text in expected.items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale + orphans:
            print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
        if stale or orphans:
            print("exercises/ is stale: run `python tools/make_exercises.py`", file=sys.stderr)
            return 1
        print(f"exercises/ is up to date ({len(expected)} notebooks)")
        return 0
    EXERCISES.mkdir(exist_ok=True)
    for path, text in expected.items():
        path.write_text(text, encoding="utf-8")
    for path in orphans:
        path.unlink()
    print(f"wrote {len(expected)} exercise notebooks" +
          (f", removed {len(orphans)} orphans" if orphans else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
