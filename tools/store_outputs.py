#!/usr/bin/env python3
"""Run notebooks and store outputs only in the cells nbval compares.

nbval in lax mode compares the stored output of cells tagged ``nbval-check-output`` (or
holding ``# NBVAL_CHECK_OUTPUT``) with a fresh run; every other output is dropped so that the
repository carries no stray outputs (tools/check_notebooks.py enforces it).

    python tools/store_outputs.py lectures/01_dtw.ipynb   # run one, keep checked outputs
    python tools/store_outputs.py                          # all of lectures/ and solutions/
    python tools/store_outputs.py --strip-only NB ...      # drop outputs without running
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT)]
from check_notebooks import checks_output  # noqa: E402
from course import TEST_ENVIRONMENT, corpus_environment  # noqa: E402
from kernel_client import notebook_client  # noqa: E402


def keep_checked_outputs(nb: nbformat.NotebookNode) -> None:
    # Saved widget state (audio as base64 among it) would bloat the file; it is rebuilt on run.
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            # nbval refuses a stored output without an execution count ("unrun cell").
            if not checks_output(cell):
                cell.outputs = []
                cell.execution_count = None
            cell.metadata.pop("execution", None)


def process(path: Path, run: bool) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    if run:
        notebook_client(nb, timeout=600, kernel_name="python3",
                        resources={"metadata": {"path": str(path.parent)}}).execute()
    keep_checked_outputs(nb)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--strip-only", action="store_true", help="do not run, only strip")
    args = parser.parse_args()
    os.environ.update(TEST_ENVIRONMENT)  # the kernels inherit it: same outputs as the tests
    os.environ.update(corpus_environment())  # and the same copy of speechocean762's files
    paths = args.notebooks or sorted([*ROOT.glob("lectures/*.ipynb"),
                                      *ROOT.glob("solutions/*.ipynb")])
    for path in paths:
        seconds = process(path.resolve(), run=not args.strip_only)
        print(f"{path}: {'stripped' if args.strip_only else f'ran in {seconds:.1f} s'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
