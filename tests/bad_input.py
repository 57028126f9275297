"""The bad-input catalogue: each case calls a public function wrongly and names what must happen.

Every ``test_<module>_bad_input.py``, beside its module's tests (``tests/preference/test_ep_bad_input.py``
next to ``tests/preference/test_ep.py``), defines ``CASES``, a list of :class:`BadInput` (and
:class:`RightAnswer`), and runs them with :func:`check_case`. A :class:`BadInput` passes when
the call raises the stated error type and the message names the user's argument
(``argument``), so a student knows what to fix. A :class:`RightAnswer` is awkward input that
must be understood, not refused (a boolean mask where indices were expected, a masked array,
tied similarities): it passes when ``check(result)`` accepts what the call returned.
``tests/test_bad_input_catalogue.py`` counts the cases across families.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from course_lib.gp import SquaredExponential


@dataclass(frozen=True)
class BadInput:
    case: str                     # short unique id: "dtw: NaN in x"
    call: Callable[[], object]
    error: type[BaseException]
    argument: str                 # the user's argument the message must name
    first: bool = False           # the message must START with "argument:" (CONVENTIONS 3.5)

    def __str__(self) -> str:
        return self.case


@dataclass(frozen=True)
class RightAnswer:
    case: str                          # short unique id: "raters: subset by a boolean mask"
    call: Callable[[], object]
    check: Callable[[object], None]    # raises AssertionError when the answer is wrong

    def __str__(self) -> str:
        return self.case


def check_case(case: BadInput | RightAnswer) -> None:
    if isinstance(case, RightAnswer):
        case.check(case.call())
        return
    with pytest.raises(case.error) as info:
        case.call()
    message = str(info.value)
    if case.first:
        assert message.startswith(f"{case.argument}:"), (
            f"{case.case}: the {type(info.value).__name__} message does not start with "
            f"{case.argument + ':'!r}: {message!r}")
    assert re.search(rf"(?<![\w.]){re.escape(case.argument)}(?!\w)", message), (
        f"{case.case}: the {type(info.value).__name__} message does not name "
        f"{case.argument!r}: {message!r}")


def check_names_argument(call: Callable[[], object], name: str) -> None:
    """``call()`` raises a ValueError or TypeError whose message starts with ``name:`` (the
    short form of a :class:`BadInput` with ``first=True``, for a test module's own list of
    (call, name) pairs)."""
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)


class NegatedSE(SquaredExponential):
    """Not a kernel: minus a squared exponential (its matrices are negative definite). The GP
    families must refuse it naming ``kernel``."""

    def _K(self, X, Z):
        return -super()._K(X, Z)

    def _diag(self, X):
        return -super()._diag(X)


def cases_of(module) -> list[BadInput]:
    return list(module.CASES)


def parametrize(cases: list[BadInput]):
    """``@parametrize(CASES)`` on ``def test_bad_input(case)``: one test per case, id = case."""
    return pytest.mark.parametrize("case", cases, ids=[c.case for c in cases])


def speech_like() -> np.ndarray:
    """Three noise bursts ("words") with silence between, 16 kHz: a clip the VAD can
    segment."""
    sample_rate = 16000
    rng = np.random.default_rng(5)
    x = np.zeros(int(1.6 * sample_rate))
    for start in (0.1, 0.6, 1.1):
        i = int(start * sample_rate)
        x[i:i + int(0.3 * sample_rate)] = 0.3 * rng.standard_normal(int(0.3 * sample_rate))
    return x
