"""In-process test harness for :class:`course_lib.widgets.Explorer` panels.

``exercise_explorer`` moves every control to its minimum, maximum and default (every option of
a dropdown, both states of a checkbox), presses every button, and fails on the first render or
action that raises. It calls ``render`` directly as well, because outside a kernel ipywidgets
would only log a callback error.
"""

from __future__ import annotations

import ipywidgets as W
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from course_lib.widgets import Explorer  # noqa: E402


def control_settings(control: W.ValueWidget) -> list:
    """The values the harness tries for one control: extremes and default, or every option."""
    default = control.value
    if isinstance(control, (W.IntSlider, W.FloatSlider, W.FloatLogSlider, W.BoundedIntText,
                            W.BoundedFloatText)):
        if isinstance(control, W.FloatLogSlider):
            extremes = [control.base ** control.min, control.base ** control.max]
        else:
            extremes = [control.min, control.max]
        return extremes + [default]
    if isinstance(control, (W.IntRangeSlider, W.FloatRangeSlider)):
        return [(control.min, control.min), (control.max, control.max),
                (control.min, control.max), default]
    if isinstance(control, (W.Dropdown, W.RadioButtons, W.ToggleButtons, W.SelectionSlider,
                            W.Select)):
        options = [opt[1] if isinstance(opt, tuple) else opt for opt in control.options]
        return options + [default]
    if isinstance(control, (W.Checkbox, W.ToggleButton)):
        return [not default, default]
    if isinstance(control, W.Text):
        return [default]
    raise TypeError(f"widget harness: no test values for control type {type(control).__name__}")


def _render_checked(explorer: Explorer, where: str) -> None:
    assert explorer.last_error is None, f"{where}: callback raised {explorer.last_error!r}"
    fig = explorer.render(**explorer.values())
    assert isinstance(fig, Figure), f"{where}: render returned {type(fig).__name__}, not a Figure"
    assert fig.axes, f"{where}: the figure has no axes"
    plt.close(fig)


def exercise_explorer(explorer: Explorer, button_presses: int = 2) -> int:
    """Drive every control and button of ``explorer``; return the number of states checked."""
    assert isinstance(explorer, Explorer), f"expected an Explorer, got {type(explorer).__name__}"
    checked = 0
    explorer.refresh()
    _render_checked(explorer, "initial state")
    checked += 1
    for name, control in explorer.controls.items():
        for value in control_settings(control):
            control.value = value
            explorer.refresh()  # also covers a value equal to the current one (no change event)
            _render_checked(explorer, f"control {name!r} = {value!r}")
            checked += 1
    for label in explorer.buttons:
        for _ in range(button_presses):
            explorer.buttons[label].click()
            assert explorer.last_error is None, (
                f"button {label!r}: action raised {explorer.last_error!r}")
            _render_checked(explorer, f"after button {label!r}")
            checked += 1
    plt.close("all")
    return checked
