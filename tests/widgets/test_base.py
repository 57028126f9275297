"""Tests of course_lib.widgets.base: an Explorer redraws its figure from its controls' values,
shows a half-typed entry as one line and any other error as a traceback kept in
``last_error``, and runs a button's action before redrawing; an explorer's image is its
figure's PNG described by what it draws unless told otherwise."""

from __future__ import annotations

import asyncio
import base64
import gc
import html
import re
import sys
import weakref

import ipywidgets as W
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
import pytest  # noqa: E402

from course_lib.plotting.describe import describe_figure  # noqa: E402
from course_lib.widgets import base  # noqa: E402
from course_lib.widgets.base import (Explorer, InputError, _figure_image, _fixed_seed,  # noqa: E402
                                     _float_slider)


@pytest.fixture
def shown(monkeypatch):
    """What an explorer's output area holds after each of its updates, in order."""
    held = []
    show = Explorer._show

    def recorded(explorer, *outputs):
        show(explorer, *outputs)
        held.append(explorer.output.outputs)

    monkeypatch.setattr(Explorer, "_show", recorded)
    return held


def _png(outputs) -> bytes:
    """The PNG of the figure an output area holds first, from its HTML."""
    match = re.match(r'<img src="data:image/png;base64,([^"]+)"', outputs[0]["data"]["text/html"])
    assert match, f"not a figure: {str(outputs[0])[:200]}"
    return base64.b64decode(match.group(1))


def _explorer():
    calls = []

    def render(width, label):
        calls.append((width, label))
        if label == "half-typed":
            raise InputError("label: not a number yet")
        if label == "broken":
            raise RuntimeError("a bug in the render function")
        fig, ax = plt.subplots()
        ax.plot(range(width))
        return fig

    controls = {"width": W.IntSlider(value=3, min=1, max=9),
                "label": W.Text(value="plain")}
    actions = {"Step": lambda: calls.append("stepped"),
               "Fail": lambda: 1 / 0}
    return Explorer(render, controls, buttons=actions, title="demo"), calls


def test_moving_a_control_redraws_with_every_controls_value(shown):
    explorer, calls = _explorer()
    explorer.controls["width"].value = 5
    assert calls == [(5, "plain")] and explorer.values() == {"width": 5, "label": "plain"}
    assert len(shown[-1]) == 1 and explorer.last_error is None
    assert _png(shown[-1]) == _figure_image(explorer.render(width=5, label="plain")).data
    assert not plt.get_fignums(), "the drawn figure was not closed"


def test_an_input_error_is_one_line_and_no_figure(shown):
    explorer, _ = _explorer()
    explorer.controls["label"].value = "half-typed"
    assert isinstance(explorer.last_error, InputError)
    (output,) = shown[-1]
    assert output["data"] == {"text/plain": "Not drawn: label: not a number yet",
                              "text/html": '<span style="color:#b00020">Not drawn: label: '
                                           'not a number yet</span>'}
    explorer.controls["label"].value = "broken"  # any other error: kept, not only logged
    assert isinstance(explorer.last_error, RuntimeError)
    (output,) = shown[-1]
    assert output["name"] == "stderr" and output["text"].startswith("Traceback")
    assert "RuntimeError: a bug in the render function" in output["text"]
    explorer.controls["label"].value = "plain"   # a good value clears it
    assert explorer.last_error is None


def test_a_button_runs_its_action_then_redraws_and_keeps_its_error(shown):
    explorer, calls = _explorer()
    explorer.buttons["Step"].click()
    assert calls == ["stepped", (3, "plain")]
    figure = shown[-1]
    explorer.press("Fail")
    assert isinstance(explorer.last_error, ZeroDivisionError)
    assert calls == ["stepped", (3, "plain")]  # no redraw after a failed action
    *kept, error = shown[-1]                   # the traceback beneath the figure before
    assert tuple(kept) == figure and error["name"] == "stderr"
    assert "ZeroDivisionError" in error["text"]


def test_what_a_render_prints_is_shown_beneath_its_figure(shown):
    def render(width):
        print("fitted in", width, "steps")
        # where a kernel's warnings go
        print("RuntimeWarning: an ill-conditioned kernel matrix", file=sys.stderr)
        fig, _ = plt.subplots(figsize=(1, 1))
        return fig

    Explorer(render, {"width": W.IntSlider(value=3)}).refresh()
    _png(shown[-1])
    printed, warned = shown[-1][1:]
    assert printed == {"output_type": "stream", "name": "stdout", "text": "fitted in 3 steps\n"}
    assert warned == {"output_type": "stream", "name": "stderr",
                      "text": "RuntimeWarning: an ill-conditioned kernel matrix\n"}


def test_a_figure_reaches_the_page_as_the_explorers_own_state_not_captured_output(
        shown, monkeypatch):
    """Captured output (``with output:``) would make the page send every figure back."""
    def capture(output):
        raise AssertionError("the explorer captured output")

    monkeypatch.setattr(W.Output, "__enter__", capture)
    explorer, calls = _tiny_explorer()
    explorer.refresh()
    explorer.controls["width"].value = 4
    explorer.controls["label"].value = "broken"
    assert calls == [(3, "plain"), (4, "plain"), (4, "broken")] and len(shown) == 3
    assert "a bug in the render function" in shown[-1][0]["text"]
    explorer.controls["label"].value = "plain"
    assert explorer.last_error is None and shown[-1] == explorer.output.outputs


def test_a_fixed_seed_redraws_the_same_numbers_and_a_slider_redraws_on_release():
    assert _fixed_seed(4) == _fixed_seed(4) != _fixed_seed(5)
    slider = _float_slider("a long description of the noise", 0.5, 0.0, 1.0)
    assert not slider.continuous_update and slider.style.description_width == "initial"


def test_an_explorer_image_is_its_figure_described_unless_told_otherwise():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    composed = describe_figure(fig)
    image = _figure_image(fig)
    assert image.data.startswith(b"\x89PNG") and image.description == composed
    assert f'alt="{html.escape(composed)}"' in image._repr_html_()
    fig, ax = plt.subplots()
    told = _figure_image(fig, "the panel's view of one sentence")
    assert told.description == "the panel's view of one sentence"
    assert not plt.get_fignums(), "the figures were not closed"


def _tiny_explorer(**options):
    """An explorer without buttons whose renders are counted; figures of 1 x 1 inch."""
    calls = []

    def render(width, label):
        calls.append((width, label))
        if label == "broken":
            raise RuntimeError("a bug in the render function")
        fig, ax = plt.subplots(figsize=(1, 1))
        ax.plot(range(width))
        return fig

    controls = {"width": W.IntSlider(value=3, min=1, max=20), "label": W.Text(value="plain")}
    return Explorer(render, controls, **options), calls


def test_a_setting_shown_before_shows_its_figure_again_without_a_redraw(shown):
    explorer, calls = _tiny_explorer()
    explorer.refresh()
    first = shown[-1]
    explorer.controls["width"].value = 5
    explorer.controls["width"].value = 3
    assert calls == [(3, "plain"), (5, "plain")] and shown[-1] == first
    for width in range(6, 6 + base._KEPT_FIGURES):   # the oldest kept figures are forgotten
        explorer.controls["width"].value = width
    explorer.controls["width"].value = 3
    assert calls[-1] == (3, "plain") and shown[-1] == first
    assert _figure_image(explorer.render(width=3, label="plain")).data == _png(first)
    explorer.controls["label"].value = "broken"         # an error is never kept
    explorer.controls["label"].value = "plain"
    explorer.controls["label"].value = "broken"
    assert calls.count((3, "broken")) == 2 and isinstance(explorer.last_error, RuntimeError)


def test_an_explorer_with_buttons_or_a_render_with_side_effects_redraws_every_time(shown):
    explorer, calls = _explorer()                        # buttons: its state is not its values
    for width in (5, 3, 5):
        explorer.controls["width"].value = width
    assert calls == [(5, "plain"), (3, "plain"), (5, "plain")]

    class Noting(Explorer):
        keeps_figures = False

    explorer, calls = _tiny_explorer()
    explorer.__class__ = Noting
    for width in (5, 3, 5):
        explorer.controls["width"].value = width
    assert calls == [(5, "plain"), (3, "plain"), (5, "plain")]


def test_a_busy_explorer_says_so_at_once_and_disables_the_rest_until_drawn(shown, monkeypatch):
    seen = []
    explorer, calls = _tiny_explorer(busy="fitting the models…")
    width, label = explorer.controls["width"], explorer.controls["label"]
    label.disabled = True          # disabled before: stays disabled after
    original = explorer.render

    def watched(**values):
        seen.append((explorer._busy_line.value, width.disabled, label.disabled))
        return original(**values)

    explorer.render = watched
    width.value = 5
    assert seen == [("fitting the models…", False, True)], "the moved slider keeps its focus"
    assert explorer._busy_line.value == "" and not width.disabled and label.disabled
    assert explorer._busy_line in explorer.widget.children
    label.disabled = False
    label.value = "broken"         # after an error, every control as it was
    assert seen[-1] == ("fitting the models…", True, False)
    assert explorer._busy_line.value == "" and not width.disabled and not label.disabled
    assert isinstance(explorer.last_error, RuntimeError)
    label.value = "plain"          # a setting shown before: no status, no redraw
    assert len(seen) == 2 and _png(shown[-1]) == _figure_image(original(5, "plain")).data


def test_a_busy_explorers_button_says_what_it_does_and_gets_the_focus_back(shown, monkeypatch):
    focused = []
    monkeypatch.setattr(W.Button, "focus", lambda button: focused.append(button.description))
    seen = []

    def render(width):
        fig, _ = plt.subplots(figsize=(1, 1))
        return fig

    def step():
        seen.append((explorer._busy_line.value, explorer.buttons["Step"].disabled,
                     explorer.controls["width"].disabled))

    explorer = Explorer(render, {"width": W.IntSlider(value=3)}, buttons={"Step": step},
                        busy="computing…")
    explorer.buttons["Step"].click()
    assert seen == [("Step: working…", True, True)] and focused == ["Step"]
    assert not explorer.buttons["Step"].disabled and not explorer.controls["width"].disabled
    assert explorer._busy_line.value == "" and _png(shown[-1])


def test_an_explorer_whose_buttons_alone_change_its_state_keeps_figures_until_a_press(shown):
    explorer, calls = _explorer()

    class ButtonsAlone(Explorer):
        keeps_figures = True

    explorer.__class__ = ButtonsAlone
    for width in (5, 3, 5):
        explorer.controls["width"].value = width
    assert calls == [(5, "plain"), (3, "plain")], "a setting shown before is not drawn again"
    explorer.press("Step")                   # a press forgets every figure kept
    explorer.controls["width"].value = 3
    assert calls[2:] == ["stepped", (5, "plain"), (3, "plain")]


def _closed_figure():
    """A weak reference to a figure drawn to an explorer's image and closed."""
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    alive = weakref.ref(fig)
    _figure_image(fig, "a falling line")
    return alive


def test_a_closed_figure_is_freed_once_the_kernel_is_idle():
    gc.disable()   # only the collection the explorer schedules may free it
    try:
        alive = _closed_figure()
        # no event loop (a script): nothing scheduled, and a closed figure is cyclic garbage
        assert base._idle_collection == [] and alive() is not None

        async def redraw_then_idle():
            alive = _closed_figure()
            scheduled = list(base._idle_collection)
            await asyncio.sleep(2 * base._IDLE_DELAY_S)
            return alive, scheduled

        alive, scheduled = asyncio.run(redraw_then_idle())
    finally:
        gc.enable()
    assert scheduled, "closing a figure in the kernel scheduled no collection for its idle time"
    assert alive() is None, "the idle-time collection left the closed figure alive"
    assert base._idle_collection == []


def _panels():
    fig = Figure(figsize=(4, 2.5))
    fig.add_subplot(1, 2, 1)
    fig.add_subplot(1, 2, 2)
    return fig


def _draw_setting(fig, scale, set_by_hand):
    """Default colours, limits found from the data (shrinking when ``scale`` does) and, in some
    settings only, a legend and y limits set by hand on the left panel."""
    left, right = fig.axes
    for k in range(3):
        left.plot([0, 1, 2], [k * scale, scale, 0], label=f"line {k}")
    if set_by_hand:
        left.legend(loc="upper left")
        left.set_ylim(-1, 1)
    right.fill_between([0, scale], [0, scale], alpha=0.5)
    right.text(0.5 * scale, 0.5 * scale, f"{scale:g}")
    return fig


def test_a_redrawn_figure_draws_what_a_new_figure_shows():
    """Each part of ``_RedrawnFigure``'s emptying is what makes the kept panels draw a setting as
    a new figure does after another setting: every artist, the legend, the colour cycle, data
    limits that shrink and a y range set by hand once."""
    redrawn = base._RedrawnFigure(_panels)
    for scale, by_hand in [(3.0, True), (1.0, False), (0.2, False), (3.0, True), (1.0, False)]:
        kept = _figure_image(_draw_setting(redrawn(), scale, by_hand)).data
        new = _figure_image(_draw_setting(_panels(), scale, by_hand)).data
        assert kept == new, f"setting (scale {scale}, set by hand {by_hand}) drawn differently"
    assert redrawn() is redrawn(), "a new figure instead of the kept one"
