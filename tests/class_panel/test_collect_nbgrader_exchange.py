"""course_lib.class_panel.collect on what nbgrader's own exchange hands the lecturer.

A temporary nbgrader course and exchange, driven through nbgrader's command line as a lecturer
and three students would: the lecturer releases the rating assignment, every student fetches
it into their own home, rates (the sheet is written with :class:`ClassSheet` under the
student's own ``COURSE_CLASS_HOME``, standing in for the notebook's autosave) and submits; the
lecturer runs ``nbgrader collect``. Then :func:`collect` reads the exchange's ``inbound/``
folder and the course's ``submitted/`` folder.

The students: ``ada.lovelace`` submits, changes three scores and submits again (on inbound
both submissions are there: the second counts, the first is kept and named as superseded;
``nbgrader collect`` copies only the second); ``alan.turing`` submits a half-filled sheet;
``grace.hopper`` submits every score.

The assignment is the class rate notebook, ``class/rate.ipynb``, with the sheet its panel
saves beside it, and the activity is the class's default (seed 2026: sixteen sentences spread
over the scale, each student in their own order). The notebook goes into
``release/`` directly: it has no nbgrader cells, so ``nbgrader generate_assignment`` would
release it unchanged (checked once by hand), and that costs four seconds
(``tests/test_nbgrader_roundtrip.py`` runs it on every unit).

Why it takes seconds: each nbgrader command costs about two (its imports; the first collect
four, as it creates the gradebook), and there are nine. Students act two or three at a time,
as a class does, so the fixture took 14 s on the 2-core machine with little else running
(release 2, the fetches 3, the submissions 2 + 3, collect 4), and about twice that beside
other jobs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from course_lib.class_panel.__main__ import main
from course_lib.class_panel.activities import rate_activity
from course_lib.class_panel.collect import _COUNTED, _SUPERSEDED, collect
from course_lib.class_panel.sheets import ClassSheet, my_identity

ROOT = Path(__file__).resolve().parents[2]
COURSE_ID = "speech-judgement-course"
ASSIGNMENT = "class_rate"
NOTEBOOK = "rate.ipynb"
SHEET = "class_sheet_rate.json"
TWICE, HALF, FULL = "ada.lovelace", "alan.turing", "grace.hopper"
STUDENTS = (TWICE, HALF, FULL)
LECTURER_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.db_url = {db_url!r}
c.Exchange.root = {exchange!r}
# every student's server runs as one system user here, as on a hub with a simple spawner
c.CollectApp.check_owner = False
"""
STUDENT_CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
"""


def _command(home: Path, *args: str) -> tuple[list[str], dict, Path]:
    """An nbgrader command run in ``home`` as its owner (HOME is theirs: nbgrader's cache)."""
    # nbgrader starts `alembic` by name: the environment's bin/ goes first on PATH
    env = {**os.environ, "HOME": str(home),
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    return [sys.executable, "-m", "nbgrader", *args], env, home


def _submit(homes: dict, student: str):
    # every student's server runs as one system user here: nbgrader is told who submits
    return _command(homes[student], "submit", ASSIGNMENT, f"--student={student}")


def _run_at_once(*commands) -> None:
    """Run nbgrader commands at the same time; each must succeed without an error line."""
    running = [(subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True), argv)
               for argv, env, cwd in commands]
    for process, argv in running:
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0 and "ERROR" not in stderr, \
            f"{' '.join(argv[3:])} failed:\n{stderr[-3000:]}"


def _rate(home: Path, activity, scores, monkeypatch) -> ClassSheet:
    """The student's sheet with ``scores`` (None: not answered), met in their own order, saved
    beside the fetched notebook; their pseudonym lives in their own COURSE_CLASS_HOME."""
    monkeypatch.setenv("COURSE_CLASS_HOME", str(home / ".course-class"))
    sheet = ClassSheet(activity, my_identity())
    saved = home / ASSIGNMENT / SHEET
    if saved.exists():  # the notebook reopened: the answers saved so far come back
        assert sheet.load(saved) == []
    for index in sheet.order:
        if scores[index] is not None:
            sheet.answer(index, scores[index])
    sheet.save(saved)
    return sheet


def _lecturer(root: Path) -> tuple[Path, Path]:
    course, exchange = root / "course", root / "exchange"
    exchange.mkdir()
    (course / "release" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "class" / NOTEBOOK, course / "release" / ASSIGNMENT / NOTEBOOK)
    (course / "nbgrader_config.py").write_text(LECTURER_CONFIG.format(
        course_id=COURSE_ID, db_url=f"sqlite:///{course / 'gradebook.db'}",
        exchange=str(exchange)), encoding="utf-8")
    return course, exchange


def _homes(root: Path, exchange: Path) -> dict[str, Path]:
    homes = {}
    for student in STUDENTS:
        homes[student] = root / "homes" / student
        homes[student].mkdir(parents=True)
        (homes[student] / "nbgrader_config.py").write_text(STUDENT_CONFIG.format(
            course_id=COURSE_ID, exchange=str(exchange)), encoding="utf-8")
    return homes


@pytest.fixture(scope="module")
def class_week(tmp_path_factory):
    """The week's round trip through nbgrader (module docstring); returns its folders and
    what each student's counted sheet holds."""
    root = tmp_path_factory.mktemp("class-panel-nbgrader")
    course, exchange = _lecturer(root)
    homes = _homes(root, exchange)
    rate = rate_activity()
    rng = np.random.default_rng(47)
    scores = {student: rng.integers(0, 11, len(rate.items)).tolist() for student in STUDENTS}
    scores[HALF][::2] = [None] * len(scores[HALF][::2])
    _run_at_once(_command(course, "release_assignment", ASSIGNMENT))
    _run_at_once(*(_command(homes[s], "fetch_assignment", ASSIGNMENT) for s in STUDENTS))
    with pytest.MonkeyPatch.context() as monkeypatch:
        sheets = {s: _rate(homes[s], rate, scores[s], monkeypatch) for s in STUDENTS}
        first_submission = list(sheets[TWICE].answers)
        _run_at_once(_submit(homes, TWICE), _submit(homes, FULL))
        scores[TWICE][:3] = [(score + 5) % 11 for score in scores[TWICE][:3]]
        sheets[TWICE] = _rate(homes[TWICE], rate, scores[TWICE], monkeypatch)
    _run_at_once(_submit(homes, TWICE), _submit(homes, HALF))
    _run_at_once(_command(course, "collect", ASSIGNMENT))
    assert sheets[TWICE].answers != first_submission
    return {"rate": rate, "inbound": exchange / COURSE_ID / "inbound",
            "submitted": course / "submitted", "out": root / "lecturer-out",
            "sheets": sheets, "first_submission": first_submission}


def _digests(folder: Path) -> dict:
    return {path: (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _scores_of(collection, pseudonym: str) -> list:
    """The collected scores of one rater, by item index (None: not scored)."""
    items, raters, scores = collection.rate_labels
    mine = raters == collection.rate_raters.index(pseudonym)
    answers = [None] * len(collection.rate.items)
    for item, score in zip(items[mine], scores[mine]):
        answers[item] = int(score)
    return answers


def _check_every_student_once(collection, week) -> None:
    sheets = week["sheets"]
    assert collection.rate_raters == tuple(sorted(s.identity.pseudonym
                                                  for s in sheets.values()))
    for sheet in sheets.values():
        assert _scores_of(collection, sheet.identity.pseudonym) == sheet.answers
    counted = [r for r in collection.sheets if r.status == _COUNTED]
    assert sorted(r.pseudonym for r in counted) == list(collection.rate_raters)
    assert not collection.left_out(), collection.summary()
    half = next(r for r in counted if r.pseudonym == sheets[HALF].identity.pseudonym)
    n = len(collection.rate.items)
    assert half.n_answers == n // 2 and f"{n // 2} of {n} answered" in half.reason


@pytest.mark.parametrize("folder", ["inbound", "submitted"])
def test_every_student_counts_once_with_their_latest_sheet(class_week, folder):
    collection = collect(class_week[folder], class_week["rate"])
    _check_every_student_once(collection, class_week)
    superseded = [r for r in collection.sheets if r.status == _SUPERSEDED]
    if folder == "submitted":  # nbgrader collect copied each student's latest submission
        assert superseded == []
        return
    (first,) = superseded
    assert first.pseudonym == class_week["sheets"][TWICE].identity.pseudonym
    assert first.path.startswith(f"{TWICE}+{ASSIGNMENT}+") and first.path.endswith(SHEET)
    (latest,) = [r.path for r in collection.sheets if r.status == _COUNTED
                 and r.pseudonym == first.pseudonym]
    assert latest != first.path and latest in first.reason and "kept on disk" in first.reason
    kept = json.loads((class_week[folder] / first.path).read_text(encoding="utf-8"))
    assert kept["answers"] == class_week["first_submission"]


@pytest.mark.parametrize("folder", ["inbound", "submitted"])
def test_no_student_id_reaches_the_table_and_no_original_changes(class_week, folder, capsys):
    before = _digests(class_week[folder])
    out = class_week["out"] / folder
    assert main(["collect", str(class_week[folder]), "--out", str(out), "--only", "rate"]) == 0
    assert "3 student(s); 3 rated" in capsys.readouterr().out
    assert _digests(class_week[folder]) == before, "collecting changed or added a file"
    table = (out / "answers.csv").read_text(encoding="utf-8")
    n = len(class_week["rate"].items)       # every clip, half of them, every clip
    assert len(table.splitlines()) == 1 + n + n // 2 + n
    for student in STUDENTS:
        assert student not in table, f"the student id {student} is in the collected rows"
    collection = collect(class_week[folder], class_week["rate"])
    assert not any(student in str(value) for student in STUDENTS
                   for row in collection.rows for value in row.values())
    assert not any(student in name for student in STUDENTS
                   for name in collection.pseudonyms + collection.rate_raters)
