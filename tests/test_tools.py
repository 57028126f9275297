"""The notebook tooling: exercise generation markers and the static notebook checks."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import check_notebooks  # noqa: E402
import make_exercises  # noqa: E402

SETUP = ("import numpy as np\n%matplotlib inline\nSEED = 0\n"
         "rng = np.random.default_rng(SEED)")


def _notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell(SETUP),
                *cells]
    return nb


def test_solution_block_becomes_stub_at_its_indentation():
    source = ("def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n\n"
              "y = 2")
    out = make_exercises.strip_blocks(source, "code", "here")
    assert out == ("def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\n"
                   "y = 2")


def test_hidden_tests_are_removed_and_markdown_answers_replaced():
    code = "assert ok\n### BEGIN HIDDEN TESTS\nassert secret\n### END HIDDEN TESTS"
    assert make_exercises.strip_blocks(code, "code", "here") == "assert ok"
    text = "Q?\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION"
    assert make_exercises.strip_blocks(text, "markdown", "here") == "Q?\nYOUR ANSWER HERE"


@pytest.mark.parametrize("source, message", [
    ("### BEGIN SOLUTION\nx = 1", "never closed"),
    ("### END SOLUTION", "without a matching BEGIN"),
    ("### BEGIN SOLUTION\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS\n### END SOLUTION",
     "inside an open"),
])
def test_unbalanced_markers_are_errors(source, message):
    with pytest.raises(make_exercises.MarkerError, match=message):
        make_exercises.strip_blocks(source, "code", "cell 3")


def test_solution_tagged_cells_are_replaced_and_outputs_cleared():
    answer = nbformat.v4.new_code_cell("plt.plot(x)", metadata={"tags": ["solution"]})
    answer.outputs = [nbformat.v4.new_output("stream", text="hi")]
    prose = nbformat.v4.new_markdown_cell("It converges.", metadata={"tags": ["solution"]})
    solution = _notebook(answer, prose)
    exercise = make_exercises.make_exercise(solution, "99_demo.ipynb")
    assert exercise.cells[0].metadata["tags"] == ["generated-notice"]
    assert exercise.cells[3].source == make_exercises.CODE_STUB
    assert exercise.cells[3].outputs == []
    assert exercise.cells[4].source == make_exercises.MARKDOWN_STUB
    assert solution.cells[2].source == "plt.plot(x)", "the solution must not be modified"


def _problems(tmp_path, nb, folder="lectures", name="01_demo.ipynb"):
    path = tmp_path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    original = check_notebooks.ROOT
    check_notebooks.ROOT = tmp_path
    try:
        return check_notebooks.check_notebook(path)
    finally:
        check_notebooks.ROOT = original


def test_a_clean_notebook_passes(tmp_path):
    assert _problems(tmp_path, _notebook(nbformat.v4.new_code_cell("x = rng.normal()"))) == []


@pytest.mark.parametrize("source, message", [
    ("%pip install numpy", "installs packages"),
    ("import urllib.request", "network"),
    ("open('/home/me/data.csv')", "absolute path"),
])
def test_forbidden_code_is_reported(tmp_path, source, message):
    problems = _problems(tmp_path, _notebook(nbformat.v4.new_code_cell(source)))
    assert any(message in p for p in problems), problems


def test_setup_cell_stray_outputs_and_tags_are_reported(tmp_path):
    nb = _notebook(nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["mystery"]}))
    nb.cells[1].source = "import numpy as np"
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    problems = "\n".join(_problems(tmp_path, nb))
    assert "SEED = <int>" in problems and "%matplotlib inline" in problems
    assert "stored outputs" in problems and "unknown tag 'mystery'" in problems


def test_checked_cell_keeps_its_output_and_needs_one(tmp_path):
    checked = nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["nbval-check-output"]})
    assert any("no stored output" in p for p in _problems(tmp_path, _notebook(checked)))
    checked.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    assert _problems(tmp_path, _notebook(checked)) == []


def test_solutions_need_a_self_check(tmp_path):
    problems = _problems(tmp_path, _notebook(), folder="solutions")
    assert any("self-check" in p for p in problems)


def test_saved_widget_state_is_reported(tmp_path):
    nb = _notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    assert any("widget state" in p for p in _problems(tmp_path, nb))


def test_described_figures_need_course_lib_plotting_in_the_setup_cell(tmp_path):
    described = nbformat.v4.new_code_cell("plt.plot([0, 1])",
                                          metadata={"figure_descriptions": ["A rising line."]})
    problems = _problems(tmp_path, _notebook(described))
    assert any("lacks `import course_lib.plotting`" in p for p in problems), problems
    for line in ("import course_lib.plotting  # noqa: F401",
                 "from course_lib.plotting.gp import plot_posterior",
                 "from course_lib.widgets.dtw import alignment_explorer"):
        nb = _notebook(described)
        nb.cells[1].source += "\n" + line
        assert _problems(tmp_path, nb) == [], line
