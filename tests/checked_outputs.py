"""What nbval (lax) checks, for notebooks executed elsewhere: the printed output of every cell
tagged ``nbval-check-output`` (or marked ``# NBVAL_CHECK_OUTPUT``) must be the stored one,
sanitised by ``tests/nbval_sanitize.cfg`` as nbval sanitises it.

The test command runs the lectures and solutions once per set of kernels instead of once more
through nbval: the site build (second pass, tests/test_site.py) and the lectures in the lab
(first pass, on the machine's own kernels as a student opens them, tests/browser) compare their
executed notebooks with the repository's here. ``python3 course.py test lectures/NN.ipynb``
still runs one notebook through nbval itself.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from check_notebooks import checks_output  # noqa: E402

SANITIZE_CONFIG = ROOT / "tests" / "nbval_sanitize.cfg"


def sanitizers() -> list[tuple[re.Pattern, str]]:
    """The (regex, replacement) pairs of nbval's sanitize file, which nbval applies too."""
    lines = [line.strip() for line in SANITIZE_CONFIG.read_text(encoding="utf-8").splitlines()]
    pairs = [(line[len("regex:"):].strip(), after[len("replace:"):].strip())
             for line, after in zip(lines, lines[1:])
             if line.startswith("regex:") and after.startswith("replace:")]
    return [(re.compile(regex), replace) for regex, replace in pairs]


def printed(cell, rules) -> list[str]:
    """What a code cell prints, as nbval compares it: each stream's text joined, and the plain
    text of results and displays, sanitised; figures and widgets left aside."""
    streams: dict[str, str] = {}
    shown = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            streams[output["name"]] = streams.get(output["name"], "") + output["text"]
        elif "text/plain" in output.get("data", {}) and not any(
                key.startswith(("image/", "application/vnd.jupyter.widget"))
                for key in output["data"]):
            shown.append(output["data"]["text/plain"])
    texts = [f"{name}: {text}" for name, text in sorted(streams.items())] + shown
    for pattern, replace in rules:
        texts = [pattern.sub(replace, text) for text in texts]
    return texts


def differences(executed, stored, name: str) -> tuple[int, list[str]]:
    """(how many cells are checked, one line per checked cell of ``stored`` whose printed output
    ``executed`` does not repeat). Both are nbformat notebooks of the same cells; ``name``
    labels the problems."""
    if len(executed.cells) != len(stored.cells):
        return 0, [f"{name}: {len(executed.cells)} cells executed, {len(stored.cells)} stored"]
    rules, problems, n_checked = sanitizers(), [], 0
    for index, (mine, theirs) in enumerate(zip(executed.cells, stored.cells)):
        if theirs.cell_type != "code" or not checks_output(theirs):
            continue
        n_checked += 1
        if printed(mine, rules) != printed(theirs, rules):
            problems.append(f"{name} cell {index}: prints\n{printed(mine, rules)}\n"
                            f"stored:\n{printed(theirs, rules)}")
    return n_checked, problems
