"""The student edition (tools/make_release.py): complete, free of answers, reproducible, working.

The edition is built twice into temporary folders. It must hold every unit's lecture and
exercise, the library, the data and what the lab needs; no file in it may contain a solution,
a hidden test or a rubric; the two zips must be byte for byte the same; every path the student
README names must exist. Then one lecture and its exercise run from the built folder with this
environment's Python, the edition's own folder first on the kernel's ``PYTHONPATH``, so the
library, its data and the experiments' results all come from the edition: a file the release
left out would fail the run.
"""

from __future__ import annotations

import hashlib
import re
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from course_units import UNITS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_release  # noqa: E402
from kernel_client import notebook_client  # noqa: E402

# Unit 4's lecture runs in seconds and needs no numba compilation (a fresh copy of course_lib
# compiles its DTW and HMM kernels again, which takes minutes); any unit would do for the
# purpose, which is to find a file the edition lacks.
RUN_UNIT = "04_gp_regression"
ANSWERS = [b"### BEGIN SOLUTION", b"### BEGIN HIDDEN TESTS", b"**Rubric.**"]


@pytest.fixture(scope="module")
def editions(tmp_path_factory):
    return [make_release.build(tmp_path_factory.mktemp(f"release{k}")) for k in range(2)]


@pytest.fixture(scope="module")
def edition(editions):
    return editions[0][0]


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_the_zip_is_byte_reproducible_and_holds_the_folder(editions):
    (folder, first), (_, second) = editions
    assert hashlib.sha256(first.read_bytes()).hexdigest() == \
        hashlib.sha256(second.read_bytes()).hexdigest()
    with zipfile.ZipFile(first) as zipped:
        infos = zipped.infolist()
        names = [info.filename for info in infos]
        assert names == sorted(names)
        assert {info.date_time for info in infos} == {make_release.ZIP_TIMESTAMP}
        assert {info.external_attr >> 16 for info in infos} <= {0o100644, 0o100755}
        assert names == [f"{make_release.NAME}/{p}" for p in _files(folder)]
        assert zipped.read(f"{make_release.NAME}/course.py") == (folder / "course.py").read_bytes()


def test_every_unit_is_there_and_no_answer_is(edition):
    files = set(_files(edition))
    for unit in UNITS:
        assert {f"lectures/{unit}.ipynb", f"exercises/{unit}.ipynb"} <= files
    needed = {"README.md", "course.py", "pyproject.toml", "setup.py", "environment.yml",
              "postBuild", "course_lib/__init__.py"}
    if (ROOT / "requirements").is_dir():
        needed |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "requirements").rglob("*")
                   if p.is_file()}
    assert needed <= files, sorted(needed - files)
    assert any(f.startswith("data/") for f in files)
    top = {f.split("/", 1)[0] for f in files}
    assert not top & {"solutions", "tests", "bench", ".ci", "Makefile"}, top
    assert {f for f in files if f.startswith("docs/")} == {"docs/ALGORITHMS.md"}
    tools = {f for f in files if f.startswith("tools/")}
    assert tools == make_release.data_generators(make_release.tracked_files())
    assert not tools & {"tools/make_exercises.py", "tools/make_release.py",
                        "tools/store_outputs.py", "tools/check_notebooks.py"}
    for name in files:
        data = (edition / name).read_bytes()
        for marker in ANSWERS:
            assert marker not in data, f"{name} contains {marker!r}"
    for unit in UNITS:  # the exercise for students is the generated one, notice aside
        ours = nbformat.read(edition / "exercises" / f"{unit}.ipynb", as_version=4)
        source = nbformat.read(ROOT / "exercises" / f"{unit}.ipynb", as_version=4)
        assert [c.source for c in ours.cells[1:]] == [c.source for c in source.cells[1:]]
        assert ours.cells[0].source == make_release.STUDENT_NOTICE


def test_the_readme_names_only_what_is_there(edition):
    readme = (edition / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:py|toml|yml|txt|md))`", readme))
    named |= set(re.findall(r"^([\w-]+/)\s", readme, re.M))  # the layout block
    named.discard("http://127.0.0.1")
    assert len(named) >= 10, named
    for path in named:
        assert (edition / path).exists(), f"README.md names {path}, which the edition lacks"


def test_lecture_and_exercise_run_from_the_edition(edition, monkeypatch):
    # the kernel imports course_lib from the edition (its folder first on the path), so its
    # data and the experiments' results are read from the edition too
    monkeypatch.setenv("PYTHONPATH", str(edition))
    probe = ("import course_lib, course_lib.results\n"
             "from pathlib import Path\n"
             f"assert Path(course_lib.__file__).is_relative_to({str(edition)!r}), "
             "course_lib.__file__\n"
             f"assert course_lib.results.RESULTS_DIR.is_relative_to({str(edition)!r})")
    for folder in ("lectures", "exercises"):
        notebook = nbformat.read(edition / folder / f"{RUN_UNIT}.ipynb", as_version=4)
        notebook.cells.insert(0, nbformat.v4.new_code_cell(probe))
        notebook_client(notebook, timeout=300, kernel_name="python3", allow_errors=True,
                        resources={"metadata": {"path": str(edition / folder)}}).execute()
        errors = [(index, out.ename, out.evalue) for index, cell in enumerate(notebook.cells)
                  for out in cell.get("outputs", []) if out.output_type == "error"]
        allowed = set() if folder == "lectures" else {"NotImplementedError", "AssertionError",
                                                      "SelfCheckFailed"}
        assert all(ename in allowed for _, ename, _ in errors), errors[:3]
        assert errors or folder == "lectures"


def test_every_result_a_lecture_reads_is_in_the_edition(edition):
    names = set()
    for lecture in (edition / "lectures").glob("*.ipynb"):
        names.update(re.findall(r'load_result\(\\?"(\w+)\\?"\)', lecture.read_text("utf-8")))
    assert names, "no lecture reads a result: the pattern above is stale"
    for name in names:
        assert (edition / "experiments" / "results" / f"{name}.json").is_file(), name
