#!/usr/bin/env python3
"""Build the student edition: the course without its answers, as a folder and a zip.

    python tools/make_release.py [--out DIR]     # default DIR: dist

writes ``DIR/speech-judgement-course-student/`` and ``DIR/speech-judgement-course-student.zip``.

What goes in (``EDITION``): the lectures (with their stored outputs), the generated exercises
(their notice rewritten for students), ``course_lib``, ``data``, ``experiments`` (the library
reads the committed results at run time and the lectures point at the scripts that made them),
the data generators that data READMEs name, and what the lab needs: ``course.py``,
``pyproject.toml`` and ``setup.py`` (the package's build), ``environment.yml``, ``postBuild``,
``requirements/`` and any licence file, and ``docs/ALGORITHMS.md`` (every lecture sends its
reader there).
What stays out: ``solutions/`` (answers and rubrics), ``tests/`` (hidden tests, typical wrong
answers), the authoring tools, ``bench/``, the rest of ``docs/`` and the authors' README, which a short
student README replaces. Only files Git tracks are taken (no caches, no local leftovers).

The zip is byte-reproducible: entries in sorted order, a fixed timestamp, permissions 0644 (0755
for files Git marks executable) and a fixed compression level, so the same tree always gives
the same bytes.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

import make_exercises
import nbformat

ROOT = Path(__file__).resolve().parents[1]
NAME = "speech-judgement-course-student"
# top-level files and folders of the edition (anything else Git tracks stays out)
EDITION_FILES = ("course.py", "pyproject.toml", "setup.py", "environment.yml", "postBuild",
                 "docs/ALGORITHMS.md")  # the map from lecture to code the lectures name
EDITION_FOLDERS = ("lectures", "exercises", "course_lib", "data", "experiments", "requirements")
LICENCE = re.compile(r"^(LICEN[CS]E|COPYING)", re.I)
DATA_GENERATOR = re.compile(r"tools/(make_\w+\.py)")
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can store
STUDENT_NOTICE = (
    "> **Exercise notebook.** Work in this notebook (or a copy of it): replace every "
    "`raise NotImplementedError()` with your code and every *YOUR ANSWER HERE* with your "
    "answer, and run the self-check cell after each task; its message says what is wrong and "
    "where. Each task's heading gives its points. If your lecturer collects this notebook for "
    "grading (nbgrader), keep its cells: do not delete, split or retype the self-check cells.")


class ReleaseError(RuntimeError):
    """The repository cannot be released as it is."""


def tracked_files() -> dict[str, str]:
    """Git's tracked files of the repository (posix paths) with their modes ('100644', ...)."""
    try:
        listing = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, check=True,
                                 capture_output=True).stdout.decode("utf-8")
    except (OSError, subprocess.CalledProcessError) as err:
        raise ReleaseError(f"make_release needs the course's Git checkout and git ({err})") \
            from err
    files = {}
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        files[path] = meta.split()[0]
    return files


def data_generators(files: dict[str, str]) -> set[str]:
    """The tools/ scripts that the data READMEs name as their sets' recipes."""
    names = set()
    for path in files:
        if path.startswith("data/") and PurePosixPath(path).name.lower().startswith("readme"):
            names.update(DATA_GENERATOR.findall((ROOT / path).read_text(encoding="utf-8")))
    return {f"tools/{name}" for name in names if f"tools/{name}" in files}


def edition_paths(files: dict[str, str]) -> list[str]:
    """The tracked files that go into the student edition, sorted."""
    chosen = {path for path in files
              if path in EDITION_FILES or LICENCE.match(path)
              or path.split("/", 1)[0] in EDITION_FOLDERS}
    chosen |= data_generators(files)
    return sorted(p for p in chosen if (ROOT / p).is_file())  # a deletion not yet committed


def _title(notebook_path: Path) -> str:
    notebook = nbformat.read(notebook_path, as_version=4)
    first = next(c for c in notebook.cells if c.cell_type == "markdown")
    return first.source.split("\n", 1)[0].lstrip("# ").strip()


def student_readme(paths: list[str]) -> str:
    """A README for the edition: only what the edition holds, and how to open it."""
    course_title = (ROOT / "README.md").read_text(encoding="utf-8").split("\n", 1)[0]
    lectures = [p for p in paths if p.startswith("lectures/") and p.endswith(".ipynb")]
    rows = []
    for lecture in lectures:
        exercise = "exercises/" + PurePosixPath(lecture).name
        rows.append(f"| `{lecture}` | `{exercise}` | {_title(ROOT / lecture)} |"
                    if exercise in paths else f"| `{lecture}` | | {_title(ROOT / lecture)} |")
    return "\n".join([
        f"{course_title} (student edition)",
        "",
        "The lectures, exercises, library and data of the course, without the worked answers.",
        "Everything runs offline on a laptop once installed (the first start fetches Unit 5's",
        "speechocean762 files).",
        "",
        "## Open it",
        "",
        "You need Python 3.11 (or newer) with pip. In this folder run",
        "",
        "```bash",
        "python3 course.py lab",
        "```",
        "",
        "The first run creates the environment `.venv` here and installs the course library",
        "at the versions the course was tested with (`requirements/lock.txt`); then JupyterLab",
        "opens on http://127.0.0.1 (the URL with its token is printed). Conda users:",
        "`conda env create -f environment.yml`, `conda activate speech-judgement-course`,",
        "`python postBuild` once, then `jupyter lab`.",
        "",
        "## Work through a unit",
        "",
        "Read the lecture, then do the exercise notebook of the same unit: replace every",
        "`raise NotImplementedError()` with your code and every *YOUR ANSWER HERE* with your",
        "answer, and run the self-check cell after each task. Each task's heading gives its",
        "points. If your lecturer grades with nbgrader, keep the notebook's cells as they are.",
        "",
        "| lecture | exercise | unit |",
        "|---|---|---|",
        *rows,
        "",
        "## What is in this folder",
        "",
        "```",
        "lectures/     the lectures, one notebook per unit",
        "exercises/    the homework to fill in, one notebook per unit",
        "course_lib/   the course's library, which the notebooks import (one package per unit)",
        "docs/ALGORITHMS.md  from lecture to code: where each algorithm lives",
        "data/         the data sets, each with a README (provenance, licence, recipe)",
        "experiments/  scripts that reproduce published results; results/ holds what the",
        "              lectures read",
        "tools/        the data generators the data READMEs name",
        "course.py     `python3 course.py lab` opens the course (and fetches, once, the files",
        "              of the speechocean762 corpus that Unit 5 reads: `course.py data`)",
        "```",
        "",
        "The worked solutions, the course's tests and its authoring tools are not part of this",
        "edition; where a lecture mentions one of them, it is in the full course repository.",
        "",
    ])


def for_students(path: str, data: bytes) -> bytes:
    """The bytes of ``path`` in the edition: exercise notices rewritten, all else unchanged."""
    if not (path.startswith("exercises/") and path.endswith(".ipynb")):
        return data
    notebook = nbformat.reads(data.decode("utf-8"), as_version=4)
    for cell in notebook.cells:
        if "generated-notice" in cell.metadata.get("tags", []):
            cell.source = STUDENT_NOTICE
    return (nbformat.writes(notebook) + "\n").encode("utf-8")


def build(out: Path) -> tuple[Path, Path]:
    """Write the edition's folder and zip under ``out``; return their paths."""
    stale = [path for path, text in make_exercises.expected_notebooks().items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if stale:
        raise ReleaseError("exercises/ or the grading of solutions/ is stale: run "
                           "`python tools/make_exercises.py` and commit")
    files = tracked_files()
    paths = edition_paths(files)
    contents = {path: for_students(path, (ROOT / path).read_bytes()) for path in paths}
    contents["README.md"] = student_readme(paths).encode("utf-8")
    folder, archive = out / NAME, out / f"{NAME}.zip"
    if folder.exists():
        shutil.rmtree(folder)
    out.mkdir(parents=True, exist_ok=True)
    executable = {p for p in paths if files[p] == "100755"}
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(contents):
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(contents[path])
            mode = 0o755 if path in executable else 0o644
            target.chmod(mode)
            info = zipfile.ZipInfo(f"{NAME}/{path}", date_time=ZIP_TIMESTAMP)
            info.create_system = 3  # unix, so the permissions below are read the same everywhere
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zipped.writestr(info, contents[path], compresslevel=9)
    return folder, archive


def main() -> int:
    parser = argparse.ArgumentParser(description="Build the student edition (folder and zip).")
    parser.add_argument("--out", type=Path, default=ROOT / "dist",
                        help="output folder (default: dist)")
    args = parser.parse_args()
    try:
        folder, archive = build(args.out.resolve())
    except ReleaseError as err:
        print(f"make_release: {err}", file=sys.stderr)
        return 1
    count = sum(1 for p in folder.rglob("*") if p.is_file())
    print(f"student edition: {folder} ({count} files)\n"
          f"zip: {archive} ({archive.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
