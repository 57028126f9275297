"""In-process test harness for :class:`course_lib.widgets.Explorer` panels.

``exercise_explorer`` moves every control to its minimum, maximum and default (every option of
a dropdown, both states of a checkbox), presses every button, and fails on the first render or
action that raises. It calls ``render`` directly as well, because outside a kernel ipywidgets
would only log a callback error: the figure the explorer showed for a state and a second
drawing of the same state must be identical PNGs (a redraw must not change state). Each state
is drawn twice, no more: the figure is the most expensive part of every explorer. A state the
tour of the controls comes back to (each control ends at its default, so every control brings
the explorer back to its first state) is drawn once, by the explorer, and must show the PNG
of its first visit, which was checked against a second drawing then: about half the states of
a tour are such returns, and comparing across the tour also catches a figure that depends on
where the explorer has been (stale state a second drawing alone would repeat).

``error_settings`` are control values the explorer must refuse. For each, the harness checks
that the error is shown, that it stays shown on a second redraw and on every button press (no
silent fall-back to the previous model while the controls show the new values: stale state),
and that going back to the defaults draws the same figure as before the error.
"""

from __future__ import annotations

import contextlib

import ipywidgets as W
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from course_lib.widgets import Explorer  # noqa: E402
from course_lib.widgets import base as widgets_base  # noqa: E402
from course_lib.widgets.base import _figure_image  # noqa: E402


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


@contextlib.contextmanager
def _shown_figures():
    """The PNG of every figure an explorer shows (``_figure_image``), in order, while open."""
    shown: list[bytes] = []

    def recorded(fig, description=None):
        image = _figure_image(fig, description)
        shown.append(image.data)
        return image

    widgets_base._figure_image = recorded
    try:
        yield shown
    finally:
        widgets_base._figure_image = _figure_image


def _show(explorer: Explorer, shown: list[bytes], change=None) -> None:
    """Apply ``change`` (new control values) and make sure the explorer redrew after it: a
    control set to the value it already holds sends no change event, so refresh by hand then.
    The figures an explorer keeps for settings it has shown are forgotten first, so that every
    state is drawn and a revisit is compared with the figure of the first visit (an explorer
    keeps them only because its render depends on nothing else: this is what checks it)."""
    explorer._figures.clear()
    drawn = len(shown)
    if change is not None:
        change()
    if len(shown) == drawn:
        explorer.refresh()


def _render_checked(explorer: Explorer, shown: list[bytes], where: str,
                    check_layout: bool = False) -> bytes:
    """The figure the explorer showed last, checked against a second drawing of its state (and,
    with ``check_layout``, for labels cut off or overlapping: :func:`assert_laid_out`). The
    second is drawn outside the explorers' style (``base._drawn``), so the same bytes also show
    that the style changes no pixel."""
    assert explorer.last_error is None, f"{where}: callback raised {explorer.last_error!r}"
    fig = explorer.render(**explorer.values())
    assert isinstance(fig, Figure), f"{where}: render returned {type(fig).__name__}, not a Figure"
    assert fig.axes, f"{where}: the figure has no axes"
    assert _figure_image(fig).data == shown[-1], \
        f"{where}: redrawing the same state changed the figure"
    if check_layout:
        assert_laid_out(fig, where)
    return shown[-1]


def assert_laid_out(fig: Figure, where: str) -> None:
    """Every panel of ``fig``, drawn, lies inside the figure with its ticks, labels, title and
    legend, and no two panels' boxes overlap (a colour bar may sit on its panel's box): what a
    figure laid out with fixed margins instead of constrained layout must still do at every
    setting (1 px of slack)."""
    renderer = FigureCanvasAgg(fig).get_renderer()   # a closed figure has lost its canvas
    width, height = fig.bbox.width, fig.bbox.height
    boxes = [(ax, ax.get_tightbbox(renderer)) for ax in fig.axes if ax.get_visible()]
    for ax, box in boxes:
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1, \
            (f"{where}: panel {ax.get_title()!r} reaches outside the {width:.0f} x "
             f"{height:.0f} px figure ({box.bounds}): a label is cut off")
    panels = [(ax, box) for ax, box in boxes if ax.get_label() != "<colorbar>"]
    for k, (ax, box) in enumerate(panels):
        for other, other_box in panels[k + 1:]:
            overlap = (min(box.x1, other_box.x1) - max(box.x0, other_box.x0),
                       min(box.y1, other_box.y1) - max(box.y0, other_box.y0))
            assert min(overlap) <= 1, (f"{where}: panels {ax.get_title()!r} and "
                                       f"{other.get_title()!r} overlap ({overlap} px)")


def _revisited(explorer: Explorer, shown: list[bytes], where: str, first: bytes) -> bytes:
    """The figure the explorer showed on coming back to a state, checked against the one it
    showed there first (itself checked against a second drawing)."""
    assert explorer.last_error is None, f"{where}: callback raised {explorer.last_error!r}"
    assert shown[-1] == first, f"{where}: back in a state seen before, the explorer shows " \
        "another figure than it did there (stale state, or a redraw that changes state)"
    return shown[-1]


def _state(explorer: Explorer) -> str:
    """The controls' values, as a key of the states a tour has seen."""
    return repr(sorted(explorer.values().items()))


def _check_refused(explorer: Explorer, settings: dict) -> None:
    where = f"error settings {settings!r}"
    for name, value in settings.items():
        explorer.controls[name].value = value
    for attempt in ("refresh", "second refresh"):
        explorer.refresh()
        assert explorer.last_error is not None, \
            f"{where}: {attempt} drew a figure instead of showing the error (stale state?)"
    for label in explorer.buttons:
        explorer.buttons[label].click()
        assert explorer.last_error is not None, \
            f"{where}: button {label!r} acted although the controls are invalid (stale state)"


def exercise_explorer(explorer: Explorer, button_presses: int = 2,
                      error_settings: list[dict] | None = None, *,
                      check_layout: bool = False) -> int:
    """Drive every control and button of ``explorer``; return the number of states checked.
    ``check_layout``: also check every state's figure with :func:`assert_laid_out`."""
    assert isinstance(explorer, Explorer), f"expected an Explorer, got {type(explorer).__name__}"
    with _shown_figures() as shown:
        checked = _exercise(explorer, shown, button_presses, error_settings or [], check_layout)
    plt.close("all")
    return checked


def _exercise(explorer: Explorer, shown: list[bytes], button_presses: int,
              error_settings: list[dict], check_layout: bool = False) -> int:
    checked = 0
    defaults = explorer.values()
    _show(explorer, shown)
    initial = _render_checked(explorer, shown, "initial state", check_layout)
    seen = {_state(explorer): initial}  # the figure of every state checked so far
    checked += 1
    for settings in error_settings:
        _check_refused(explorer, settings)

        def back_to_defaults():
            for name, value in defaults.items():
                explorer.controls[name].value = value

        _show(explorer, shown, back_to_defaults)
        _revisited(explorer, shown, f"after {settings!r} and back to the defaults", initial)
        checked += 1
    for name, control in explorer.controls.items():
        for value in control_settings(control):
            _show(explorer, shown, lambda control=control, value=value:
                  setattr(control, "value", value))
            where, state = f"control {name!r} = {value!r}", _state(explorer)
            if state in seen:
                _revisited(explorer, shown, where, seen[state])
            else:
                seen[state] = _render_checked(explorer, shown, where, check_layout)
            checked += 1
    for label in explorer.buttons:
        for _ in range(button_presses):
            explorer.buttons[label].click()
            assert explorer.last_error is None, (
                f"button {label!r}: action raised {explorer.last_error!r}")
            _render_checked(explorer, shown, f"after button {label!r}", check_layout)
            checked += 1
    return checked
