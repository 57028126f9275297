"""The widget harness itself must catch a callback that fails at a control's extreme."""

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
