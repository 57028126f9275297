"""The widget harness itself must catch failing callbacks, stale state and unstable redraws."""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt
import pytest
from widget_harness import control_settings, exercise_explorer

from course_lib.widgets import Explorer


def _explorer(fail_at=None):
    state = {"presses": 0}

    def render(width, mode, show):
        if width == fail_at:
            raise ValueError("width: too wide")
        fig, ax = plt.subplots()
        ax.plot(range(width + state["presses"]))
        ax.set_title(f"{mode} {show}")
        return fig

    def step():
        state["presses"] += 1

    controls = {"width": W.IntSlider(value=3, min=1, max=9),
                "mode": W.Dropdown(options=["a", "b"], value="a"),
                "show": W.Checkbox(value=True)}
    return Explorer(render, controls, buttons={"Step": step}, title="demo"), state


def test_harness_visits_every_setting_and_button():
    explorer, state = _explorer()
    checked = exercise_explorer(explorer, button_presses=2)
    assert checked == 1 + 3 + 3 + 2 + 2
    assert state["presses"] == 2


def test_harness_fails_when_a_control_extreme_raises():
    explorer, _ = _explorer(fail_at=9)
    with pytest.raises(AssertionError, match="width"):
        exercise_explorer(explorer)


def test_explorer_keeps_the_error_instead_of_only_logging_it():
    explorer, _ = _explorer(fail_at=1)
    explorer.controls["width"].value = 1
    assert isinstance(explorer.last_error, ValueError)


def test_unknown_control_types_are_refused():
    with pytest.raises(TypeError, match="ColorPicker"):
        control_settings(W.ColorPicker())


def _stepper_explorer(commit_before_validating):
    """An EM-like explorer: a model of size K is rebuilt when K changes; strict K = 9 is refused."""
    state = {"K": None, "model": None}

    def rebuild(K, strict):
        if commit_before_validating:
            state["K"] = K  # the bug: settings stored before the build that raises
        if strict and K == 9:
            raise ValueError("K: more components than distinct points")
        state["K"], state["model"] = K, list(range(K))

    def render(K, strict):
        if state["K"] != K:
            rebuild(K, strict)
        fig, ax = plt.subplots()
        ax.bar(range(len(state["model"])), state["model"])
        return fig

    def step():
        values = explorer.values()
        if state["K"] != values["K"]:
            rebuild(values["K"], values["strict"])
        state["model"] = [v + 1 for v in state["model"]]

    explorer = Explorer(render, {"K": W.IntSlider(value=3, min=1, max=9),
                                 "strict": W.Checkbox(value=False)}, buttons={"Step": step})
    return explorer


def test_harness_catches_stale_state_after_an_error():
    with pytest.raises(AssertionError, match="stale state"):
        exercise_explorer(_stepper_explorer(commit_before_validating=True),
                          error_settings=[{"strict": True, "K": 9}])
    assert exercise_explorer(_stepper_explorer(commit_before_validating=False),
                             error_settings=[{"strict": True, "K": 9}]) > 0


def test_harness_catches_a_redraw_that_changes_state():
    counter = {"draws": 0}

    def render(width):
        counter["draws"] += 1
        fig, ax = plt.subplots()
        ax.plot(range(width + counter["draws"]))
        return fig

    explorer = Explorer(render, {"width": W.IntSlider(value=3, min=1, max=5)})
    with pytest.raises(AssertionError, match="redrawing the same state changed the figure"):
        exercise_explorer(explorer)


def test_harness_catches_a_figure_that_remembers_where_the_explorer_has_been():
    widest = {"width": 0}

    def render(width):  # the same figure on every redraw, but the widest width seen stays
        widest["width"] = max(widest["width"], width)
        fig, ax = plt.subplots()
        ax.plot(range(widest["width"]))
        return fig

    explorer = Explorer(render, {"width": W.IntSlider(value=3, min=1, max=5)})
    with pytest.raises(AssertionError, match="back in a state seen before"):
        exercise_explorer(explorer)
