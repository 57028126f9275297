"""The moves the lab test makes on each kind of control, written once.

``tests/browser/lab_driver.py`` performs them in JupyterLab with Playwright (keys, clicks,
typing) and ``bench/bench_explorers.py`` makes the same moves on the widgets in one Python
process, so the bench times the very actions whose seconds the lab's ``report.json`` records.
Each function takes what the page shows of a control (a slider's readout, a dropdown's options,
a text box's text) and returns its :class:`Move` list, in order; ``Move.what`` is how the lab's
report names the action.

A choice among many (a dropdown, toggle buttons) takes its first and last other option and goes
back: each goes through the same front-end path, and ``tests/widget_harness.py`` takes every
option in Python (the 20 options of lecture 01's reference list took 14 s in the lab).
"""

from __future__ import annotations

from dataclasses import dataclass

# The kinds of control the lab operates (its MARK_CONTROLS_JS names them so); "number" is a
# text box that holds a number (ipywidgets' IntText, BoundedFloatText, ...).
KINDS = ("slider", "dropdown", "toggle-buttons", "checkbox", "text", "number", "button")


@dataclass(frozen=True)
class Move:
    """One move of one control.

    ``to`` says where the control goes: ``"min"`` or ``"max"`` (a slider's Home and End keys),
    ``"typed"`` (``value`` typed into the box or readout, then Enter), ``"option"`` (the option
    whose value, or toggle button whose index, is ``value``), ``"toggle"`` (a checkbox clicked)
    or ``"press"`` (a button clicked). ``typed_entry``: an entry a student is still typing, which
    the explorer may answer with its one-line "Not drawn: ..." instead of a figure."""

    what: str
    to: str
    value: object = None
    typed_entry: bool = False


def ends(choices: list) -> list:
    """The first and the last of ``choices`` (all of them when there are at most two)."""
    return choices if len(choices) <= 2 else [choices[0], choices[-1]]


def slider_moves(readout: str) -> list[Move]:
    """Home, End, and back by typing the readout's starting text (a typographic minus in the
    readout is typed as "-", as a student types it)."""
    typed = readout.replace("\u2212", "-")
    return [Move("to its minimum (Home)", "min"), Move("to its maximum (End)", "max"),
            Move(f"back to {typed} (typed)", "typed", typed)]


def dropdown_moves(options: list[tuple[str, str]], original: str) -> list[Move]:
    """``options`` as (value, text) pairs: the first and last option other than ``original``
    (a value), then ``original`` again."""
    others = ends([option for option in options if option[0] != original])
    back = [option for option in options if option[0] == original]
    return [Move(f"option '{text.strip()}'" + (" (back)" if value == original else ""),
                 "option", value) for value, text in others + back]


def toggle_button_moves(texts: list[str], active: list[int]) -> list[Move]:
    """The first and last button not ``active`` (indices), then the active one(s) again."""
    others = ends([i for i in range(len(texts)) if i not in active])
    return [Move(f"'{texts[i]}'" + (" (back)" if i in active else ""), "option", i)
            for i in others + active]


def checkbox_moves() -> list[Move]:
    return [Move("toggled", "toggle"), Move("toggled back", "toggle")]


def text_moves(original: str) -> list[Move]:
    """The first half of the box's text typed (an entry being typed), then the whole again."""
    half = original[:len(original) // 2]
    return [Move(f"half-typed '{half}' + Enter", "typed", half, typed_entry=True),
            Move(f"back to '{original}' + Enter", "typed", original)]


def number_moves(original: str, low: str | None, high: str | None) -> list[Move]:
    """Another number the box accepts (its lower bound, else its upper bound, else 0 or 1)
    typed, then the starting one; the bounds as the page's ``min``/``max`` attributes."""
    other = next(v for v in (low, high, "0", "1")
                 if v is not None and float(v) != float(original or "nan"))
    return [Move(f"typed {other} + Enter", "typed", other, typed_entry=True),
            Move(f"back to {original} + Enter", "typed", original)]


def button_moves() -> list[Move]:
    return [Move("pressed", "press")]
