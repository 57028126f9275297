"""The bad-input catalogue: each case calls a public function wrongly and names what must happen.

Every ``tests/test_bad_input_<family>.py`` defines ``CASES``, a list of :class:`BadInput`, and
runs them with :func:`check_case`. A case passes when the call raises the stated error type and
the message names the user's argument (``argument``), so a student knows what to fix.
``tests/test_bad_input_catalogue.py`` counts the cases across families.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class BadInput:
    case: str                     # short unique id: "dtw: NaN in x"
    call: Callable[[], object]
    error: type[BaseException]
    argument: str                 # the user's argument the message must name

    def __str__(self) -> str:
        return self.case


def check_case(case: BadInput) -> None:
    with pytest.raises(case.error) as info:
        case.call()
    message = str(info.value)
    assert re.search(rf"(?<![\w.]){re.escape(case.argument)}(?!\w)", message), (
        f"{case.case}: the {type(info.value).__name__} message does not name "
        f"{case.argument!r}: {message!r}")


def cases_of(module) -> list[BadInput]:
    return list(module.CASES)


def parametrize(cases: list[BadInput]):
    """``@parametrize(CASES)`` on ``def test_bad_input(case)``: one test per case, id = case."""
    return pytest.mark.parametrize("case", cases, ids=[c.case for c in cases])
