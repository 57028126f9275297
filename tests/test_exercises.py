"""Exercises: every self-check must fail on the generated stub (docs/CONVENTIONS.md section 5).

The site build (tests/test_site.py) runs each solutions notebook top to bottom, so every
self-check passes there.
Here each generated exercise is run with errors allowed, and then
  * every cell tagged ``self-check`` must have failed (AssertionError or NotImplementedError);
  * every other cell may raise only NotImplementedError (a stub, or code calling one);
  * the exercise has as many self-checks as its solution, at least one stub raised, and the
    committed file equals what the generator makes now.
A homework's data must not depend on which cells ran before (Unit 7's Tasks 2 and 3 draw from
generators of their own).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from course_units import UNITS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_exercises  # noqa: E402
from kernel_client import notebook_client  # noqa: E402

CHECK_FAILURES = {"AssertionError", "SelfCheckFailed", "NotImplementedError"}


def _errors(cell) -> list[str]:
    return [out.ename for out in cell.get("outputs", []) if out.output_type == "error"]


def _is_self_check(cell) -> bool:
    return "self-check" in cell.metadata.get("tags", [])


def test_every_unit_has_a_solutions_notebook():
    found = sorted(p.stem for p in (ROOT / "solutions").glob("*.ipynb"))
    assert found == sorted(UNITS)


@pytest.mark.parametrize("unit", UNITS)
def test_exercise_checks_fail_on_stubs(unit):
    solution_path = ROOT / "solutions" / f"{unit}.ipynb"
    solution = nbformat.read(solution_path, as_version=4)
    exercise = make_exercises.make_exercise(solution, solution_path.name)
    committed = (ROOT / "exercises" / f"{unit}.ipynb").read_text(encoding="utf-8")
    assert committed == make_exercises.render(exercise), "exercises/ is stale"

    notebook_client(exercise, timeout=300, kernel_name="python3", allow_errors=True,
                    resources={"metadata": {"path": str(ROOT / "exercises")}}).execute()

    checks = [c for c in exercise.cells if _is_self_check(c)]
    assert len(checks) == sum(_is_self_check(c) for c in solution.cells) >= 1
    stub_raised = False
    for index, cell in enumerate(exercise.cells):
        if cell.cell_type != "code":
            continue
        errors = _errors(cell)
        if _is_self_check(cell):
            assert errors and errors[0] in CHECK_FAILURES, (
                f"{unit} cell {index}: self-check passed on the unsolved stub "
                f"(errors: {errors}):\n{cell.source}")
        else:
            assert set(errors) <= {"NotImplementedError"}, (
                f"{unit} cell {index}: raised {errors} in the exercise; only stubs may raise:\n"
                f"{cell.source}")
        stub_raised |= "NotImplementedError" in errors
    assert stub_raised, f"{unit}: no stub raised NotImplementedError"


@pytest.mark.parametrize("unit", UNITS)
def test_teaching_points_table_is_what_the_solutions_grade(unit):
    """docs/TEACHING.md's points table, row by row, as the grading metadata gives it."""
    teaching = (ROOT / "docs" / "TEACHING.md").read_text(encoding="utf-8").splitlines()
    solution = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4)
    expected = make_exercises.points_row(solution, unit)
    shown = [line for line in teaching if line.startswith(f"| {unit} |")]
    assert shown == [expected], (f"docs/TEACHING.md's points row for {unit} is stale; it "
                                 f"should read:\n{expected}")


@pytest.mark.parametrize("unit", ["07_mixed_feedback"])  # course.py test 7 runs it, not 5
def test_unit7_task_data_do_not_depend_on_the_cells_run_before(unit):
    """Task 2's q and Task 3's data come from generators of their own: drawing from the setup
    cell's ``rng`` first (as Task 1's printout does, and again whenever it is re-run) leaves
    them, and so the printed ELBO, unchanged."""
    notebook = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4)
    sources = {cell.get("id"): cell.source for cell in notebook.cells}
    setup = next(cell.source for cell in notebook.cells if cell.cell_type == "code")
    setup = "\n".join(line for line in setup.splitlines() if not line.startswith("%"))

    def task_data(draws_before: int) -> list:
        namespace: dict = {}
        exec(setup, namespace)
        namespace["rng"].random(draws_before)
        for cell_id in ("task2-data", "task3-data"):
            exec(sources[cell_id], namespace)
        return [namespace[name] for name in ("alpha_q", "site_precision_q", "X_reg", "y_reg",
                                             "answers_reg")]

    for straight_after_setup, after_other_draws in zip(task_data(0), task_data(1000)):
        np.testing.assert_array_equal(after_other_draws, straight_after_setup)
