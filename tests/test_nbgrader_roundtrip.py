"""Grading with nbgrader itself: the solutions notebooks are nbgrader source notebooks.

A temporary nbgrader course (its own ``nbgrader_config.py`` and gradebook database) takes every
unit's solutions notebook as ``source/<unit>/<unit>.ipynb``; ``nbgrader generate_assignment``
must accept them all and produce, cell for cell, the exercise notebook students get.
Then, for the units in ``AUTOGRADED``, two students submit and ``nbgrader autograde`` runs:

* ``correct`` fills every answer cell with the solution: every self-check earns its points,
  every written answer waits for the lecturer, who awards its rubric's points; then the
  notebook has full marks;
* ``partial`` answers the tasks up to one with a typical mistake (from
  ``tests/wrong_answers/``), leaves the later tasks as the untouched stub and every written
  answer blank: its score must be the points of the self-checks before the mistake, computed
  from the notebook's own metadata, and the autograded notebook must show the student the
  self-check's specific message for that mistake.

Course_lib and its data come from the environment (course_lib is installed), as on a hub.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from course_units import UNITS
from nbgrader.api import Gradebook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_exercises  # noqa: E402

# autograde runs each submission top to bottom; two units (a quick early one and the latest)
# keep this file within its time budget, the generate step covers every unit
AUTOGRADED = [UNITS[0], UNITS[-1]]
SOLUTION_BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$",
                            re.S | re.M)
CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "speech-judgement-course"
c.CourseDirectory.db_url = {db_url!r}
c.Execute.timeout = 300
# nbgrader hands nbclient its kernel manager itself (not configurable): make it the course's
import kernel_client, nbgrader.preprocessors.execute
nbgrader.preprocessors.execute.AsyncKernelManager = kernel_client.KernelManager
"""


def _nbgrader(course: Path, *args: str) -> str:
    # nbgrader starts `alembic` and kernels by name: the environment's bin/ goes first on PATH
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                   os.environ.get("PATH", "")]),
           # the course's kernel client (tools/kernel_client.py), which misses no reply
           "PYTHONPATH": os.pathsep.join([str(ROOT / "tools"), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0 and "ERROR" not in run.stderr, run.stderr[-4000:]
    return run.stderr


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _db_url(course: Path) -> str:
    return f"sqlite:///{course / 'gradebook.db'}"


@pytest.fixture(scope="module")
def course(tmp_path_factory, chosen_units):
    """The nbgrader course, its assignments generated from the solutions of the units this run
    checks (every unit, unless `course.py test UNIT` chose some)."""
    course = tmp_path_factory.mktemp("nbgrader-course")
    (course / "nbgrader_config.py").write_text(CONFIG.format(db_url=_db_url(course)),
                                               encoding="utf-8")
    for unit in chosen_units:
        (course / "source" / unit).mkdir(parents=True)
        (course / "source" / unit / f"{unit}.ipynb").write_bytes(
            (ROOT / "solutions" / f"{unit}.ipynb").read_bytes())
    _nbgrader(course, "generate_assignment", "*", "--create", "--force")
    return course


@pytest.mark.parametrize("unit", UNITS)
def test_generated_assignment_is_the_exercise(course, unit):
    released = nbformat.read(course / "release" / unit / f"{unit}.ipynb", as_version=4)
    exercise = nbformat.read(ROOT / "exercises" / f"{unit}.ipynb", as_version=4)
    exercise_cells = [c for c in exercise.cells
                      if "generated-notice" not in c.metadata.get("tags", [])]
    assert len(released.cells) == len(exercise_cells)
    for index, (ours, theirs) in enumerate(zip(exercise_cells, released.cells)):
        assert (ours.cell_type, ours.source) == (theirs.cell_type, theirs.source), \
            f"{unit} cell {index}: nbgrader's student version differs from exercises/"
        assert _meta(ours).get("grade_id") == _meta(theirs).get("grade_id")
        assert _meta(ours).get("points") == _meta(theirs).get("points")
    text = nbformat.writes(released)
    assert "### BEGIN SOLUTION" not in text and make_exercises.RUBRIC not in text
    assert "### BEGIN HIDDEN TESTS" not in text


def _task_of_cells(notebook) -> list[int | None]:
    """The task number each cell belongs to (None outside '## Task N' sections)."""
    tasks, task = [], None
    for cell in notebook.cells:
        first_line = cell.source.split("\n", 1)[0]
        if cell.cell_type == "markdown" and first_line.startswith("## "):
            match = make_exercises.TASK_HEADING.match(first_line)
            task = int(match.group(1)) if match else None
        tasks.append(task)
    return tasks


def _last_answer_mistake(unit: str, solution) -> tuple[int, object]:
    """(cell index, Mistake) of the latest task before the last one whose final answer cell
    has a typical mistake listed; later tasks depend on nothing after it but stubs."""
    mistakes = importlib.import_module(f"wrong_answers.unit_{unit.split('_')[0]}").MISTAKES
    tasks = _task_of_cells(solution)
    last_answer_of_task = {}
    for index, cell in enumerate(solution.cells):
        if make_exercises.is_code_answer(cell):
            last_answer_of_task[tasks[index]] = index
    candidates = []
    for mistake in mistakes:
        for task, index in last_answer_of_task.items():
            if (task != max(last_answer_of_task) and re.search(
                    rf"^def {mistake.function}\(", solution.cells[index].source, re.M)):
                candidates.append((index, mistake))
    assert candidates, f"{unit}: no listed mistake in the last answer of an earlier task"
    return max(candidates, key=lambda candidate: candidate[0])


def _submissions(course: Path, unit: str) -> tuple[dict[str, int], object]:
    """Write both students' submissions; return the autograded points each should get and
    the mistake the partial one makes."""
    solution = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4)
    answers = {_meta(c)["grade_id"]: c.source for c in solution.cells if _meta(c).get("solution")}
    wrong_index, mistake = _last_answer_mistake(unit, solution)
    wrong_id = _meta(solution.cells[wrong_index])["grade_id"]
    released = nbformat.read(course / "release" / unit / f"{unit}.ipynb", as_version=4)
    expected = {"correct": 0, "partial": 0}
    wrong_reached = False
    for cell in released.cells:  # nbgrader keeps the cells' order and grade ids
        meta = _meta(cell)
        wrong_reached |= meta.get("grade_id") == wrong_id
        if meta.get("grade") and not meta.get("solution"):  # a self-check, autograded
            expected["correct"] += meta["points"]
            expected["partial"] += 0 if wrong_reached else meta["points"]
    for student in expected:
        notebook = nbformat.read(course / "release" / unit / f"{unit}.ipynb", as_version=4)
        for index, cell in enumerate(notebook.cells):
            meta = _meta(cell)
            if not meta.get("solution"):
                continue
            if student == "correct":
                cell.source = answers[meta["grade_id"]]
            elif meta["grade_id"] == wrong_id:
                match = SOLUTION_BLOCK.search(answers[wrong_id])
                cell.source = (answers[wrong_id][:match.start()]
                               + textwrap.indent(textwrap.dedent(mistake.code).strip("\n"),
                                                 match.group(1))
                               + answers[wrong_id][match.end():])
            elif cell.cell_type == "code" and index < wrong_index:
                cell.source = answers[meta["grade_id"]]  # later answers stay stubs
        folder = course / "submitted" / student / unit
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, folder / f"{unit}.ipynb")
    return expected, mistake


@pytest.mark.parametrize("unit", AUTOGRADED)
def test_autograde_gives_full_and_partial_marks(course, unit):
    expected, mistake = _submissions(course, unit)
    _nbgrader(course, "autograde", unit, "--create", "--force")
    with Gradebook(_db_url(course)) as gradebook:
        correct = gradebook.find_submission_notebook(unit, unit, "correct")
        partial = gradebook.find_submission_notebook(unit, unit, "partial")
        assert sum(g.auto_score or 0 for g in correct.grades) == expected["correct"]
        assert sum(g.auto_score or 0 for g in partial.grades) == expected["partial"]
        assert 0 < expected["partial"] < expected["correct"]
        written = [g for g in correct.grades if g.cell_type == "markdown"]
        assert written and all(g.needs_manual_grade for g in written)
        for grade in written:  # the lecturer awards the rubric's points
            grade.manual_score = grade.max_score
        gradebook.db.commit()
        assert correct.score == correct.max_score > 0
        # a blank written answer scores 0 by itself; nothing is left for the lecturer
        assert not partial.needs_manual_grade
        assert partial.score == expected["partial"]
    autograded = nbformat.read(course / "autograded" / "partial" / unit / f"{unit}.ipynb",
                               as_version=4)
    messages = [out.evalue for cell in autograded.cells if _meta(cell).get("grade")
                for out in cell.get("outputs", []) if out.output_type == "error"]
    assert any(mistake.expect in message for message in messages), \
        f"{unit}: the autograded notebook does not show the self-check's message " \
        f"{mistake.expect!r} for the mistake in {mistake.function}()"


def test_grading_rule_rejects_what_it_cannot_grade():
    notebook = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1\n"
                                       "    ### END SOLUTION")
    check = nbformat.v4.new_code_cell("assert f() == 1", metadata={"tags": ["self-check"]})
    written = nbformat.v4.new_markdown_cell("Because.", metadata={"tags": ["solution"]})
    notebook.cells = [nbformat.v4.new_markdown_cell("## Task 1 — one"), answer, check, written]
    with pytest.raises(make_exercises.GradingError, match="without a '\\*\\*Rubric"):
        make_exercises.add_grading(notebook, "99_demo.ipynb")
    written.source += "\n\n**Rubric.**\n- 2 points: says why.\n- 1 point: says how."
    graded = make_exercises.add_grading(notebook, "99_demo.ipynb")
    assert graded.cells[0].source == "## Task 1 — one (7 points)"
    assert [_meta(c).get("points") for c in graded.cells[1:]] == \
        [None, make_exercises.POINTS_PER_ANSWER, 3]
    assert _meta(graded.cells[1])["grade_id"] == "task1-f"
    assert make_exercises.add_grading(graded, "99_demo.ipynb") == graded, "not idempotent"
    notebook.cells.insert(0, nbformat.v4.new_code_cell("def g():\n    ### BEGIN SOLUTION\n"
                                                       "    pass\n    ### END SOLUTION"))
    with pytest.raises(make_exercises.GradingError, match="outside a '## Task N' section"):
        make_exercises.add_grading(notebook, "99_demo.ipynb")


def test_check_notebooks_catches_drifted_grading():
    import check_notebooks

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("## Task 1 — one"),
        nbformat.v4.new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1\n"
                                  "    ### END SOLUTION"),
        nbformat.v4.new_code_cell("assert f() == 1", metadata={"tags": ["self-check"]}),
        nbformat.v4.new_markdown_cell("## Task 2 — two"),
        nbformat.v4.new_code_cell("assert True", metadata={"tags": ["self-check"]}),
        nbformat.v4.new_markdown_cell("Because.\n\n**Rubric.**\n- 2 points: says why.",
                                      metadata={"tags": ["solution"]})]
    graded = make_exercises.add_grading(notebook, "99_demo.ipynb")
    where = Path("solutions/99_demo.ipynb")
    assert check_notebooks.check_grading(graded, where) == []
    graded.cells[4].metadata.nbgrader.grade_id = "task1-check1"  # copied cell, id not renewed
    graded.cells[3].source = "## Task 2 — two"  # heading without its points
    graded.cells[5].source = "Because."  # rubric lost
    problems = "\n".join(check_notebooks.check_grading(graded, where))
    assert "grade id 'task1-check1' is used twice" in problems
    assert "'## Task 2 — two' should end in '(6 points)'" in problems
    assert "needs a '**Rubric.**' list whose items add up to it" in problems
    del graded.cells[2].metadata["nbgrader"]
    assert "self-check that is not a locked nbgrader test cell" in \
        "\n".join(check_notebooks.check_grading(graded, where))
