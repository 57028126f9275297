#!/usr/bin/env python3
"""Static checks of every notebook in lectures/, solutions/ and exercises/ (docs/CONVENTIONS.md s.4).

* valid nbformat 4 with the ``python3`` kernelspec and a markdown title cell first;
* the first code cell is the setup cell: ``SEED = ...``, ``rng = np.random.default_rng(SEED)``,
  ``%matplotlib inline``;
* no package installs, network access or absolute paths in code cells;
* stored outputs only in cells whose output nbval checks (tag ``nbval-check-output`` or a
  ``# NBVAL_CHECK_OUTPUT`` comment); none at all in exercises/;
* only known cell tags and no saved widget state;
* the same ``NN_topic`` names in all three folders, every solutions notebook has a self-check;
* the unit number prefixes are unique.

Exit status 1 and one line per problem when anything fails.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

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
NAME = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")
SETUP_NEEDS = [
    (re.compile(r"^SEED\s*=\s*\d+", re.M), "SEED = <int>"),
    (re.compile(r"rng\s*=\s*np\.random\.default_rng\(SEED\)"), "rng = np.random.default_rng(SEED)"),
    (re.compile(r"^%matplotlib inline", re.M), "%matplotlib inline"),
]


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
    for index, cell in enumerate(nb.cells):
        where = f"{rel} cell {index}"
        for tag in cell.metadata.get("tags", []):
            if tag not in ALLOWED_TAGS:
                problems.append(f"{where}: unknown tag {tag!r} (allowed: {sorted(ALLOWED_TAGS)})")
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
    if rel.parts[0] == "solutions" and not any(
            "self-check" in c.metadata.get("tags", []) for c in nb.cells):
        problems.append(f"{rel}: no cell tagged self-check")
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
    paths = sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("*.ipynb"))
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
