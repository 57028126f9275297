"""Helpers for the exercise self-check cells.

A failed check raises :class:`SelfCheckFailed` (an ``AssertionError``) with one short message a student can act on: what was
expected, what was found and where (shape, first differing entry, position of a NaN), plus a
hint when the answer matches a known common mistake. Authors pass those mistakes as ``hints``:
a mapping from the advice to the value the mistake produces, e.g.
``hints={"the diagonal step should weigh 2, not 1": wrong_value}``.

The checks refuse placeholders (``None``, ``...``, ``NotImplemented``), strings, functions and
ragged lists with the same kind of message, so a check can never pass on an untouched stub and a
student never sees numpy's conversion errors. In a notebook the failure shows as its message
alone (IPython's ``_render_traceback_`` hook); under pytest the check's frames are hidden with
``__tracebackhide__``.

Hidden tests call the student's function inside :func:`withheld`, which makes the library's own
answer unavailable for the duration, so a function that merely calls the library fails there.

A self-check that passes ends with :func:`report_pass`, which says what it checked and whether
hidden tests run the answer again at grading: a pass is worth what was checked.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np

__all__ = ["SelfCheckFailed", "check_close", "check_equal", "check_between", "check_true",
           "report_pass", "withheld"]

_PLACEHOLDERS = (None, Ellipsis, NotImplemented)


class SelfCheckFailed(AssertionError):
    """A self-check found a wrong answer. IPython shows only the message, no library frames."""

    def _render_traceback_(self) -> list[str]:
        # IPython's hook for exceptions that render themselves (it never hides the raising frame).
        return ["\x1b[0;31mSelf-check failed\x1b[0m", *str(self).splitlines()]


def _fail(name: str, message: str, hint: str | None = None):
    __tracebackhide__ = True
    text = f"{name}: {message}"
    if hint:
        text += f"\nHint: {hint}"
    raise SelfCheckFailed(text)


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_answer_array(name: str, value, numeric: bool) -> np.ndarray:
    """The student's answer as an array, or a readable failure for what cannot be one."""
    __tracebackhide__ = True
    if any(value is p for p in _PLACEHOLDERS):
        _fail(name, f"got {value!r}; did you fill in the task and return the result?")
    if callable(value) and not isinstance(value, np.ndarray):
        _fail(name, "got a function; did you forget to call it?")
    if isinstance(value, (str, bytes)) and numeric:
        _fail(name, f"expected numbers, got the string {_describe(value)}")
    try:
        arr = np.asarray(value, dtype=float if numeric else None)
    except (TypeError, ValueError, OverflowError):
        _fail(name, f"expected {'numbers' if numeric else 'values'} in a regular array "
                    f"(equal-length rows), got {type(value).__name__} {_describe(value)}")
    if arr.dtype == object:
        _fail(name, f"expected a regular array (equal-length rows), got {_describe(value)}")
    return arr


def _index_text(index) -> str:
    return "" if len(index) == 0 else f" at index {list(map(int, index))}"


def _shape_failure(name: str, actual: np.ndarray, expected: np.ndarray) -> None:
    __tracebackhide__ = True
    hint = None
    if actual.ndim == 2 and actual.shape == expected.shape[::-1]:
        hint = "the shape is transposed: check which axis is which (rows vs columns)"
    elif actual.size == expected.size:
        hint = "right number of entries, wrong shape: check your reshape or stacking"
    elif expected.ndim == 2 and actual.shape in ((expected.shape[0] - 1, expected.shape[1]),
                                                 (expected.shape[0], expected.shape[1] - 1)):
        hint = "one row or column short: did you skip the first (or last) one?"
    _fail(name, f"expected shape {expected.shape}, got {actual.shape}", hint)


def _matching_hint(actual, hints: Mapping | None, same) -> str | None:
    for advice, wrong in (hints or {}).items():
        try:
            wrong = np.asarray(wrong)
            if wrong.shape == actual.shape and same(actual, wrong):
                return advice
        except (TypeError, ValueError):
            continue
    return None


def check_close(name: str, actual, expected, *, rtol: float = 1e-6, atol: float = 1e-9,
                hints: Mapping | None = None) -> None:
    """Assert ``actual`` equals ``expected`` elementwise within ``rtol``/``atol``, same shape.

    Infinities must match exactly (same sign, same place); NaN never matches.
    """
    __tracebackhide__ = True
    actual_arr = _as_answer_array(name, actual, numeric=True)
    expected_arr = np.asarray(expected, dtype=float)
    if actual_arr.shape != expected_arr.shape:
        hint = _matching_hint(actual_arr, hints, lambda a, w: np.allclose(a, w, rtol, atol))
        if hint is None:
            _shape_failure(name, actual_arr, expected_arr)
        _fail(name, f"expected shape {expected_arr.shape}, got {actual_arr.shape}", hint)
    nan = np.isnan(actual_arr) & ~np.isnan(expected_arr)
    if np.any(nan):
        where = tuple(np.argwhere(nan)[0])
        _fail(name, f"NaN{_index_text(where)} ({int(nan.sum())} NaN in all), where the expected "
                    f"value is {expected_arr[where]:.6g}",
              "NaN usually comes from 0/0, log of a negative number, or inf - inf; print the "
              "intermediate values of that entry")
    close = np.isclose(actual_arr, expected_arr, rtol=rtol, atol=atol, equal_nan=True)
    if np.all(close):
        return
    where = tuple(np.argwhere(~close)[0])
    hint = _matching_hint(actual_arr, hints,
                          lambda a, w: np.allclose(a, w, rtol=rtol, atol=atol, equal_nan=True))
    if hint is None and np.all(np.isfinite(expected_arr)) and np.all(expected_arr <= 0) \
            and np.all(actual_arr > 0) and np.allclose(np.log(actual_arr), expected_arr,
                                                       rtol=rtol, atol=atol):
        hint = "these are probabilities; the reference is their logarithm (work in log space)"
    count = "" if actual_arr.size == 1 else f" ({int((~close).sum())} of {close.size} entries differ)"
    _fail(name, f"expected {expected_arr[where]:.6g}{_index_text(where)}, got "
                f"{actual_arr[where]:.6g}{count}", hint)


def check_equal(name: str, actual, expected, *, hints: Mapping | None = None) -> None:
    """Assert exact equality (integers, labels, paths), comparing as arrays."""
    __tracebackhide__ = True
    actual_arr = _as_answer_array(name, actual, numeric=False)
    expected_arr = np.asarray(expected)
    if actual_arr.shape != expected_arr.shape:
        hint = _matching_hint(actual_arr, hints, np.array_equal)
        if hint is None:
            _shape_failure(name, actual_arr, expected_arr)
        _fail(name, f"expected shape {expected_arr.shape}, got {actual_arr.shape}", hint)
    differ = actual_arr != expected_arr
    if not np.any(differ):
        return
    where = tuple(np.argwhere(np.atleast_1d(differ))[0]) if differ.ndim else ()
    hint = _matching_hint(actual_arr, hints, np.array_equal)
    if hint is None and actual_arr.ndim >= 1 and np.array_equal(actual_arr[::-1], expected_arr):
        hint = "your answer is the expected one in reverse order (e.g. a backtracked path " \
               "that was not flipped)"
    shown_expected = expected_arr[where] if where else expected_arr
    shown_actual = actual_arr[where] if where else actual_arr
    count = "" if actual_arr.size == 1 else \
        f" ({int(np.sum(differ))} of {expected_arr.size} entries differ)"
    _fail(name, f"expected {_describe(shown_expected.tolist())}{_index_text(where)}, got "
                f"{_describe(shown_actual.tolist())}{count}", hint)


def check_between(name: str, value, low: float, high: float, *, hint: str | None = None) -> None:
    """Assert a scalar lies in ``[low, high]`` (accuracies, log-likelihood ranges)."""
    __tracebackhide__ = True
    arr = _as_answer_array(name, value, numeric=True)
    if arr.size != 1:
        _fail(name, f"expected a single number, got an array of shape {arr.shape}")
    number = float(arr.reshape(()))
    if not (low <= number <= high):
        _fail(name, f"expected a value in [{low:.6g}, {high:.6g}], got {number:.6g}", hint)


def check_true(name: str, condition, message: str, *, hint: str | None = None) -> None:
    """Assert a property of the answer (``condition`` True); ``message`` says what is wrong."""
    __tracebackhide__ = True
    if not isinstance(condition, (bool, np.bool_)):
        _fail(name, f"the check could not be evaluated (got {_describe(condition)})")
    if not condition:
        _fail(name, message, hint)


def report_pass(task: str, checked: Sequence[str], *, hidden_tests: bool,
                library_withheld: bool = False, result: str | None = None) -> None:
    """Print a self-check's pass line: what it checked, and what grading adds to it.

    ``checked`` lists what the visible checks compared, a short phrase each ("the margin on
    three hand-made lists", "the tuning half against the course's margin"). ``hidden_tests``
    says whether the cell holds hidden tests, which run the answer again at grading on other
    inputs; ``library_withheld`` that they run it with the task's off-limits functions switched
    off. ``result`` is what the answer gave, shown beside the task ("test accuracy 0.93").
    """
    if not isinstance(task, str) or not task.strip():
        raise TypeError(f"report_pass: task must name the task, e.g. 'Task 2 (b)', got {task!r}")
    if isinstance(checked, str) or not isinstance(checked, Sequence) or not checked \
            or not all(isinstance(item, str) and item.strip() for item in checked):
        raise TypeError("report_pass: checked must be a non-empty list of phrases saying what "
                        f"was checked, got {checked!r}")
    if library_withheld and not hidden_tests:
        raise ValueError("report_pass: library_withheld=True needs hidden_tests=True (only the "
                         "hidden tests switch the off-limits functions off)")
    shown = f"{task} passed" + (f" ({result})" if result else "")
    if hidden_tests:
        grading = ("At grading, hidden tests run your answer again on other inputs"
                   + (", with the off-limits functions switched off" if library_withheld else "")
                   + "; the points need them to pass too.")
    else:
        grading = "At grading, this same check decides the points; it has no hidden tests."
    print(textwrap.fill(f"{shown}. Checked: {'; '.join(checked)}.", width=100))
    print(textwrap.fill(grading, width=100))


def _full_name(function: Callable) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def _owner_class(function: Callable):
    """The class whose namespace defines ``function`` (a method), or None for a plain function."""
    owner = sys.modules.get(function.__module__)
    parts = function.__qualname__.split(".")
    if len(parts) < 2 or "<locals>" in parts:
        return None
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
    return owner if isinstance(owner, type) else None


@contextmanager
def withheld(*functions: Callable, task: str) -> Iterator[None]:
    """Make ``functions`` raise a self-check failure while the block runs (for hidden tests).

    Every module attribute that is one of ``functions`` (the notebook's own namespace included,
    so ``from course_lib.gp import f`` at the top does not escape) and, for a method, its
    class attribute, is replaced by a stand-in that fails with a message naming the function and
    ``task``. Everything is restored when the block ends, also after an error.
    """
    __tracebackhide__ = True
    if not functions or not all(callable(f) and hasattr(f, "__qualname__") for f in functions):
        raise TypeError("withheld: pass the library functions themselves, e.g. "
                        "withheld(discrete_kl, task='Task 2')")
    stand_ins = {}
    for function in functions:
        name = _full_name(function)

        def stand_in(*args, _name=name, **kwargs):
            __tracebackhide__ = True
            _fail(task, f"your answer calls {_name}, which this task asks you to write "
                        "yourself; it is off limits here",
                  "write the steps with numpy/scipy as the task describes; the self-check "
                  "compares with the library afterwards")

        stand_ins[id(function)] = stand_in
    replaced = []
    try:
        for function in functions:
            owner = _owner_class(function)
            if owner is not None:
                original = owner.__dict__[function.__name__]
                replaced.append((owner, function.__name__, original))
                setattr(owner, function.__name__, stand_ins[id(function)])
        for module in list(sys.modules.values()):
            namespace = getattr(module, "__dict__", None)
            if not isinstance(namespace, dict):
                continue
            for key, value in list(namespace.items()):
                if id(value) in stand_ins:  # both alive, so the same id is the same object
                    replaced.append((namespace, key, value))
                    namespace[key] = stand_ins[id(value)]
        yield
    finally:
        for where, key, original in reversed(replaced):
            if isinstance(where, dict):
                where[key] = original
            else:
                setattr(where, key, original)
