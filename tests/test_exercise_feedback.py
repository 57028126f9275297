"""What a student sees after a typical wrong answer: a short, specific self-check message.

For every task listed in ``tests/wrong_answers/unit_NN.py`` the solutions notebook is run with
that task's answer replaced by the mistake; the task's next self-check cell must fail with an
``AssertionError`` (or the checks' ``SelfCheckFailed``) whose message contains the expected text
and is short (no traceback through course_lib). The right answer is then restored and the
notebook goes on (up to the last task with a mistake), so one kernel serves every mistake of a
unit. The messages are written to
``.test-artifacts/exercise-feedback/`` for reading.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from course_units import UNITS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from kernel_client import notebook_client  # noqa: E402

ARTIFACTS = ROOT / ".test-artifacts" / "exercise-feedback"
MAX_MESSAGE_LINES = 6
SOLUTION_BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$",
                            re.S | re.M)


def _mistakes(unit: str) -> list:
    module = f"wrong_answers.unit_{unit.split('_')[0]}"
    try:
        return importlib.import_module(module).MISTAKES
    except ModuleNotFoundError:
        return []


def _with_mistake(source: str, code: str) -> str:
    match = SOLUTION_BLOCK.search(source)
    indent = match.group(1)
    return source[:match.start()] + textwrap.indent(textwrap.dedent(code).strip("\n"), indent) \
        + source[match.end():]


def _defines(cell, function: str) -> bool:
    return cell.cell_type == "code" and re.search(rf"^\s*def {function}\(", cell.source, re.M) \
        and SOLUTION_BLOCK.search(cell.source) is not None


def _error(cell):
    errors = [out for out in cell.get("outputs", []) if out.output_type == "error"]
    return errors[0] if errors else None


def _is_self_check(cell) -> bool:
    return "self-check" in cell.metadata.get("tags", [])


@pytest.mark.parametrize("unit", UNITS)
def test_typical_mistakes_get_specific_messages(unit):
    mistakes = _mistakes(unit)
    assert mistakes, f"tests/wrong_answers/unit_{unit.split('_')[0]}.py lists no mistakes"
    notebook = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4)
    cells = notebook.cells
    pending: dict[str, list] = {}  # every mistake of a function is tried, none replaces another
    for mistake in mistakes:
        pending.setdefault(mistake.function, []).append(mistake)
    for function in pending:
        assert any(_defines(c, function) for c in cells), \
            f"{unit}: no answer cell defines {function}()"
    client = notebook_client(notebook, timeout=300, kernel_name="python3",
                             resources={"metadata": {"path": str(ROOT / "solutions")}})
    seen = []
    with client.setup_kernel():
        for index, cell in enumerate(cells):
            if not pending:
                break  # the rest of the notebook has no mistakes to try
            if cell.cell_type != "code":
                continue
            function = next((f for f in pending if _defines(cell, f)), None)
            for mistake in pending.pop(function, []):
                check_index = next(k for k in range(index + 1, len(cells))
                                   if _is_self_check(cells[k]))
                wrong = nbformat.v4.new_code_cell(_with_mistake(cell.source, mistake.code))
                client.execute_cell(wrong, index)
                assert _error(wrong) is None, f"{unit}: the wrong {mistake.function} did not run"
                for k in range(index + 1, check_index):  # cells between answer and check
                    client.execute_cell(cells[k], k)
                probe = nbformat.v4.new_code_cell(cells[check_index].source)
                try:
                    client.execute_cell(probe, check_index)
                except Exception:  # noqa: BLE001 - the failure is what we want to read
                    pass
                error = _error(probe)
                assert error is not None, \
                    f"{unit}: the self-check passed with the mistake in {mistake.function}()"
                assert error.ename in {"AssertionError", "SelfCheckFailed"}, \
                    f"{unit}/{mistake.function}: got {error.ename}: {error.evalue}"
                message = error.evalue
                assert mistake.expect in message, \
                    f"{unit}/{mistake.function}: message {message!r} lacks {mistake.expect!r}"
                assert 0 < len(message.splitlines()) <= MAX_MESSAGE_LINES, message
                if error.ename == "SelfCheckFailed":  # shown alone, no library frames
                    assert not any("checks.py" in line for line in error.traceback)
                seen.append((mistake, message))
            client.execute_cell(cell, index)
            assert _error(cell) is None, f"{unit} cell {index} failed: {_error(cell)}"
    assert not pending, f"{unit}: mistakes never tried: {sorted(pending)}"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{unit}.txt").write_text("\n\n".join(
        f"## {m.function}: {m.why}\n{message}" for m, message in seen) + "\n", encoding="utf-8")


# Units whose every task function is graded with the library's answer withheld (issue of units
# 5-7: their exercises had imported the very references their checks compare with; unit 8 was
# written that way)
UNITS_WITHOUT_LIBRARY_ANSWERS = {"05", "06", "07", "08"}


def _withheld_functions(unit: str) -> list[str]:
    """Task functions whose next self-check runs them inside checks.withheld (a hidden test)."""
    cells = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4).cells
    names = []
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or not SOLUTION_BLOCK.search(cell.source):
            continue
        check = next((c for c in cells[index + 1:] if _is_self_check(c)), None)
        hidden = check.source.split("### BEGIN HIDDEN TESTS", 1)[-1] if check else ""
        for name in re.findall(r"^def (\w+)\(", cell.source, re.M):
            if "withheld(" in hidden and re.search(rf"\b{name}\(", hidden):
                names.append(name)
    return names


@pytest.mark.parametrize("unit", UNITS)
def test_an_answer_that_calls_the_library_fails_every_hidden_test(unit):
    """docs/CONVENTIONS.md section 5: each function graded with the library withheld has an
    answer in tests/wrong_answers that just calls the library, pinned to 'off limits' (the
    previous test runs it)."""
    library_calls = {m.function for m in _mistakes(unit) if "off limits" in m.expect}
    withheld = _withheld_functions(unit)
    missing = [name for name in withheld if name not in library_calls]
    assert not missing, (f"{unit}: no library-calling answer in tests/wrong_answers for "
                         f"{missing}")
    if unit[:2] in UNITS_WITHOUT_LIBRARY_ANSWERS:
        cells = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4).cells
        tasks = {name for cell in cells if cell.cell_type == "code"
                 and SOLUTION_BLOCK.search(cell.source)
                 for name in re.findall(r"^def (\w+)\(", cell.source, re.M)}
        assert tasks <= set(withheld), (f"{unit}: task functions graded without the library "
                                        f"withheld: {sorted(tasks - set(withheld))}")


@pytest.mark.parametrize("unit", UNITS)
def test_every_pass_line_says_whether_hidden_tests_follow(unit):
    """docs/TEACHING.md section 3: each self-check ends in course_lib.checks.report_pass,
    whose flags state what the cell's hidden tests do: hidden_tests when it has any,
    library_withheld when they run the answer inside checks.withheld."""
    cells = nbformat.read(ROOT / "solutions" / f"{unit}.ipynb", as_version=4).cells
    for index, cell in enumerate(cells):
        if not _is_self_check(cell):
            continue
        last = ast.parse(cell.source).body[-1]
        called = getattr(getattr(last, "value", None), "func", None)
        assert isinstance(called, ast.Name) and called.id == "report_pass", \
            f"{unit} cell {index}: the self-check does not end with report_pass(...)"
        flags = {keyword.arg: keyword.value.value for keyword in last.value.keywords
                 if keyword.arg in ("hidden_tests", "library_withheld")}
        hidden = cell.source.partition("### BEGIN HIDDEN TESTS")[2]
        assert flags.get("hidden_tests") == bool(hidden), \
            f"{unit} cell {index}: hidden_tests={flags.get('hidden_tests')}, but the cell has " \
            f"{'' if hidden else 'no '}hidden tests"
        assert flags.get("library_withheld", False) == ("withheld(" in hidden), \
            f"{unit} cell {index}: library_withheld does not say what its hidden tests do"
