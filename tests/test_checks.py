"""The self-check helpers must fail loudly, briefly and specifically on wrong answers."""

import numpy as np
import pytest

from course_lib.checks import (SelfCheckFailed, check_between, check_close, check_equal,
                               check_true, report_pass, withheld)
from course_lib.rater_data import RaterData
from course_lib.metrics import discrete_kl


@pytest.mark.parametrize("placeholder", [None, Ellipsis, NotImplemented])
def test_placeholders_never_pass(placeholder):
    for check in (lambda v: check_close("x", v, 1.0), lambda v: check_equal("x", v, 1),
                  lambda v: check_between("x", v, 0, 2)):
        with pytest.raises(AssertionError, match="fill in"):
            check(placeholder)


@pytest.mark.parametrize("answer, message", [
    ("abc", "expected numbers, got the string 'abc'"),
    ([[1.0, 2.0], [3.0]], "regular array"),
    (len, "forget to call it"),
])
def test_unconvertible_answers_get_a_message_not_a_numpy_error(answer, message):
    with pytest.raises(AssertionError, match=message):
        check_close("x", answer, np.ones(3))


def test_check_close_reports_shape_with_a_hint():
    with pytest.raises(AssertionError, match=r"expected shape \(2, 3\), got \(3, 2\)\nHint: .*transposed"):
        check_close("D", np.ones((3, 2)), np.ones((2, 3)))
    with pytest.raises(AssertionError, match="skip the first"):
        check_close("D", np.ones((2, 2)), np.ones((3, 2)))


def test_check_close_names_the_first_differing_entry_and_the_nan_position():
    check_close("ok", [1.0, np.inf], [1.0 + 1e-9, np.inf])  # matching infinities pass
    with pytest.raises(AssertionError, match=r"expected 1 at index \[1\], got 1\.5 \(1 of 2"):
        check_close("v", [np.inf, 1.5], [np.inf, 1.0])
    with pytest.raises(AssertionError, match=r"NaN at index \[0, 1\]"):
        check_close("v", [[0.0, np.nan]], [[0.0, 1.0]])
    with pytest.raises(AssertionError, match=r"expected 1 at index \[0\], got inf"):
        check_close("v", [np.inf], [1.0])


def test_hints_recognise_common_mistakes():
    expected, wrong = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.5, 3.0])
    with pytest.raises(AssertionError, match="Hint: diagonal weight"):
        check_close("D", wrong, expected, hints={"diagonal weight should be 2, not 1": wrong})
    with pytest.raises(AssertionError) as info:
        check_close("D", wrong + 7, expected, hints={"diagonal weight should be 2, not 1": wrong})
    assert "Hint" not in str(info.value)
    with pytest.raises(AssertionError, match="log space"):
        check_close("log p", [0.5, 0.25], np.log([0.5, 0.25]))


def test_check_equal_spots_a_reversed_path():
    check_equal("path", [[0, 0], [1, 1]], np.array([[0, 0], [1, 1]]))
    with pytest.raises(AssertionError, match=r"index \[1, 1\].*1 of 4 entries"):
        check_equal("path", [[0, 0], [1, 2]], [[0, 0], [1, 1]])
    with pytest.raises(AssertionError, match="reverse order"):
        check_equal("path", [[2, 2], [1, 1], [0, 0]], [[0, 0], [1, 1], [2, 2]])


def test_check_between_and_check_true():
    check_between("accuracy", 0.93, 0.8, 1.0)
    with pytest.raises(AssertionError, match=r"\[0\.8, 1\], got 0\.1"):
        check_between("accuracy", 0.1, 0.8, 1.0)
    with pytest.raises(AssertionError, match="single number"):
        check_between("accuracy", [0.9, 0.9], 0.8, 1.0)
    check_true("trace", True, "never shown")
    with pytest.raises(AssertionError, match="trace: went down\nHint: check"):
        check_true("trace", False, "went down", hint="check the M-step")


def test_check_frames_are_hidden_from_tracebacks():
    with pytest.raises(AssertionError) as info:
        check_close("x", [2.0], [1.0])
    library_frames = [entry for entry in info.traceback
                      if entry.path.name == "checks.py"]
    assert library_frames and all(entry.ishidden(info) for entry in library_frames)


def test_ipython_shows_only_the_message():
    failure = pytest.raises(AssertionError, check_close, "D", [2.0], [1.0]).value
    lines = failure._render_traceback_()
    assert len(lines) == 2 and lines[1] == "D: expected 1 at index [0], got 2"


def test_withheld_blocks_every_route_to_a_library_function_and_restores_them():
    import importlib

    import course_lib.metrics
    from course_lib.metrics import discrete_kl as renamed  # bound before the block: restored too

    here = globals()
    scores = np.array([[1.0, 2.0], [3.0, 4.0]])
    data = RaterData.from_matrix(scores)
    histogram, log_p = [[1.0, 1.0]], np.log([[0.5, 0.5]])
    routes = {"module attribute": lambda: course_lib.metrics.discrete_kl(histogram, log_p),
              "imported name": lambda: here["discrete_kl"](histogram, log_p),
              "import inside the answer": lambda: importlib.import_module(
                  "course_lib.metrics").discrete_kl(histogram, log_p),
              "method": lambda: data.subset([0])}
    with withheld(discrete_kl, RaterData.subset, task="Task 2"):
        for route, call in routes.items():
            with pytest.raises(SelfCheckFailed, match="course_lib.metrics.discrete_kl|"
                               "RaterData.subset") as failure:
                call()
            assert "Task 2" in str(failure.value) and "off limits" in str(failure.value), route
    assert discrete_kl is renamed is course_lib.metrics.discrete_kl
    np.testing.assert_allclose(discrete_kl(histogram, log_p), [0.0], atol=1e-15)
    assert data.subset([0]).n_items == 1


def test_withheld_restores_after_an_error_and_refuses_non_functions():
    with pytest.raises(ZeroDivisionError):
        with withheld(discrete_kl, task="Task 2"):
            1 / 0
    np.testing.assert_allclose(discrete_kl([[1.0, 1.0]], np.log([[0.5, 0.5]])), [0.0], atol=1e-15)
    with pytest.raises(TypeError, match="withheld"):
        with withheld("discrete_kl", task="Task 2"):
            pass


def test_report_pass_says_what_was_checked_and_what_grading_adds(capsys):
    report_pass("Task 2 (b)", ["the margin of ten hand-made margins", "the tuning half"],
                hidden_tests=True, library_withheld=True)
    shown = " ".join(capsys.readouterr().out.split())
    assert shown.startswith("Task 2 (b) passed. Checked: the margin of ten hand-made margins; "
                            "the tuning half.")
    assert "hidden tests run your answer again on other inputs, with the off-limits functions " \
           "switched off" in shown
    report_pass("Task 9", ["the scores"], hidden_tests=False, result="test accuracy 0.93")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Task 9 passed (test accuracy 0.93). Checked: the scores."
    assert lines[1] == "At grading, this same check decides the points; it has no hidden tests."
    report_pass("Task 1", ["a long phrase that goes on " * 10], hidden_tests=True)
    printed = capsys.readouterr().out
    assert "switched off" not in printed and max(map(len, printed.splitlines())) <= 100


@pytest.mark.parametrize("arguments, error, names", [
    (("", ["x"]), TypeError, "task"),
    (("Task 1", "the path"), TypeError, "checked"),
    (("Task 1", []), TypeError, "checked"),
    (("Task 1", ["the path", " "]), TypeError, "checked"),
])
def test_report_pass_refuses_what_says_nothing(arguments, error, names):
    with pytest.raises(error, match=names):
        report_pass(*arguments, hidden_tests=False)


def test_report_pass_withholds_the_library_only_in_hidden_tests():
    with pytest.raises(ValueError, match="library_withheld"):
        report_pass("Task 1", ["the path"], hidden_tests=False, library_withheld=True)
