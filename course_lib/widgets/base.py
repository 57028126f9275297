"""The :class:`Explorer`: controls + buttons + a render function, shown together."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html
import io
import traceback
from collections import OrderedDict
from collections.abc import Callable, Mapping

import ipywidgets as W
import matplotlib
import matplotlib.pyplot as plt
from IPython.display import display
from matplotlib.figure import Figure

from course_lib.plotting.describe import describe_figure, described_image_html
from course_lib.validation import RngLike, as_rng
from course_lib.widgets.slider_names import _SliderNames
from course_lib.widgets.status import _StatusLine

# A control's style that shows its whole description, however long.
_FULL_LABEL = {"description_width": "initial"}
# Figures an explorer without buttons keeps, by its controls' values: coming back to a setting
# (a slider moved and back, a box ticked twice, an entry typed again) shows the figure drawn there
# at once, without computing or drawing it again (issue 71). A PNG is some 50-150 kB.
_KEPT_FIGURES = 8


class InputError(ValueError):
    """A control holds something that is not (yet) a valid entry, e.g. a half-typed matrix.

    :meth:`Explorer.refresh` shows it as one line instead of a traceback, and no figure, so the
    controls and the figure never disagree.
    """


def _fixed_seed(rng: RngLike) -> int:
    """One integer seed drawn from ``rng``: every render redraws the same random numbers, so
    moving a slider deforms the same draws."""
    return int(as_rng(rng).integers(2 ** 63))


def _float_slider(description: str, value: float, low: float, high: float,
                  step: float = 0.1) -> W.FloatSlider:
    """A slider that redraws on release, with its whole description shown."""
    return W.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                         continuous_update=False, style=_FULL_LABEL)


class _DescribedImage:
    """A figure's PNG (``data``) with its ``description``, shown as HTML only: the PNG with the
    description as alt text and, beneath it, in a closed ``<details>``. JupyterLab's image
    renderer writes no alt text, and a PNG sent beside the HTML would double every redraw's
    message for nothing."""

    def __init__(self, png: bytes, description: str):
        self.data = png
        self.description = description

    def _repr_html_(self) -> str:
        return described_image_html(self.data, self.description)

    def output(self) -> dict:
        """The image as an Output widget's display output (its text is the description)."""
        return _html_output(self._repr_html_(), self.description)


def _show_in(area: W.Output, *outputs: dict) -> None:
    """Show ``outputs`` (nbformat output dicts) in the Output widget ``area``, in place of what
    it shows.

    Set here, in the kernel, they reach the page in one message. Output captured with
    ``with area:`` instead makes the page send the whole area, PNG and all, back to the kernel,
    which echoes it: two more transfers of every figure, and a request the kernel must answer
    before it is idle again (issue 71's lab timings)."""
    area.outputs = outputs


def _html_output(markup: str, text: str) -> dict:
    """A display output of ``markup``, read as ``text`` where HTML is not shown."""
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": markup, "text/plain": text}}


def _stream_output(text: str, name: str = "stdout") -> dict:
    """Printed ``text`` as an output (``name``: "stdout" or "stderr", shown as an error)."""
    return {"output_type": "stream", "name": name, "text": text}


@contextlib.contextmanager
def _printed_into(outputs: list):
    """What the block prints, and the warnings it shows, appended to ``outputs`` as stream
    outputs (after the block, also when it raises), so that the explorer shows them."""
    printed, errors = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            yield
    finally:
        for stream, text in (("stdout", printed.getvalue()), ("stderr", errors.getvalue())):
            if text:
                outputs.append(_stream_output(text, stream))


def _figure_image(fig, description: str | None = None) -> _DescribedImage:
    """The figure as a PNG image, drawn once (and closed), described by ``description`` or, by
    default, by what it draws (:func:`course_lib.plotting.describe.describe_figure`).

    Displaying the Figure itself would let the inline backend draw it twice (once to find its
    tight bounding box), a third of every explorer's redraw time. Explorer figures therefore lay
    themselves out: ``layout="constrained"`` or fixed gridspec margins.
    """
    buffer = io.BytesIO()
    # zlib's fastest level: the same pixels, a tenth of the redraw sooner, a fifth more bytes
    fig.savefig(buffer, format="png", pil_kwargs={"compress_level": 1})
    text = description or describe_figure(fig)
    plt.close(fig)
    _collect_when_idle()
    return _DescribedImage(buffer.getvalue(), text)


# seconds after a redraw's answer: the kernel is idle by then and the page is still painting
_IDLE_DELAY_S = 0.05
_idle_collection: list = []   # the loop a collection is scheduled on, if any


def _collect_when_idle() -> None:
    """Free the figures a redraw closed once the kernel has answered (a closed figure is a web
    of reference cycles that only Python's collector frees): otherwise the collector frees them
    in the middle of a later redraw (bench_explorers times those pauses). In the kernel the
    collection is a timer on its event loop; with no loop running (a script, a test) nothing is
    scheduled and the collector runs as usual."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    if _idle_collection != [loop]:
        _idle_collection[:] = [loop]
        loop.call_later(_IDLE_DELAY_S, _collect_now)


def _collect_now() -> None:
    _idle_collection.clear()
    gc.collect()


# Every title at the top of its axes, set rather than searched for at each draw (the search
# lays out the y axis's ticks a second time). It moves a title only above tick labels or an
# offset text over the axes, which no explorer figure has: tests/widget_harness.py compares each
# explorer's PNG with one drawn without this style.
_FIGURE_STYLE = {"axes.titley": 1.0}


def _drawn(make_figure: Callable, description: str | None = None) -> _DescribedImage:
    """The figure ``make_figure()`` returns, made in the explorers' style (``_FIGURE_STYLE``),
    as a described PNG (:func:`_figure_image`)."""
    with matplotlib.rc_context(_FIGURE_STYLE):
        return _figure_image(make_figure(), description)


class _RedrawnFigure:
    """A figure laid out once by ``make_figure()`` and emptied for every later render, for an
    explorer whose panels stay where they are whatever its controls say.

    Calling it gives the figure with every panel as a new one starts (no lines, collections,
    patches, texts, images or legend; data limits, autoscaling and colour cycle reset), so a
    render draws the same pixels into it as into a new figure (``tests/widgets/test_base.py``
    and ``test_raters.py`` compare them). What it keeps are the panels' axes and the ticks
    matplotlib made for them, much of a many-panel redraw (``bench/bench_explorers.py`` times
    it). Not a pyplot figure: nothing shows it but the explorer, and closing it
    (``_figure_image``) leaves it usable."""

    def __init__(self, make_figure: Callable[[], Figure]):
        self._make_figure = make_figure
        self._figure: Figure | None = None

    def __call__(self) -> Figure:
        if self._figure is None:
            self._figure = self._make_figure()
            return self._figure
        for ax in self._figure.axes:
            for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts, *ax.images]:
                artist.remove()
            if ax.get_legend() is not None:
                ax.get_legend().remove()
            ax.ignore_existing_data_limits = True
            ax.set_autoscale_on(True)
            ax.set_prop_cycle(None)
        return self._figure


@contextlib.contextmanager
def _disabled(widgets, focus: W.Button | None = None):
    """``widgets`` disabled while the block runs, then each as it was (also after an error),
    and the keyboard focus back on ``focus`` (a disabled button loses it)."""
    was = [widget.disabled for widget in widgets]
    for widget in widgets:
        widget.disabled = True
    try:
        yield
    finally:
        for widget, disabled in zip(widgets, was):
            widget.disabled = disabled
        if focus is not None and not focus.disabled:
            focus.focus()


def _settle_heap() -> None:
    """Collect the kernel's cyclic garbage, then leave every object alive now out of later
    collections (``gc.freeze``). What a lecture has made by the time it shows an explorer lives
    as long as its kernel, and Python's full collection scanned all of it again whenever a
    redraw's thousands of short-lived figure objects set one off: a second of one redraw in
    eight on the 2-core test machine (bench/bench_explorers.py, issue 71). Objects made later
    are collected as before; after the first, a call scans only those."""
    gc.collect()
    gc.freeze()


class Explorer:
    """An interactive figure: ``render(**values)`` redrawn whenever a control changes.

    Parameters
    ----------
    render : callable
        ``render(**{name: control.value})`` returns a new matplotlib ``Figure``. It must raise
        on bad input; the explorer shows the error in its output area (one line for an
        :class:`InputError`, a traceback otherwise) and keeps it in :attr:`last_error`
        (ipywidgets alone would only log it).
    controls : mapping name -> ValueWidget
        The sliders, dropdowns and checkboxes; their names are ``render``'s keyword arguments.
    buttons : mapping label -> callable, optional
        Each callable takes no argument and changes state that ``render`` reads (for example
        one EM step); the figure is redrawn after it.
    busy : str, optional
        For an explorer whose redraw can take more than half a second: the status shown at
        once, in a live region above the figure, while it computes and draws (a button's press
        shows "<label>: working…"); meanwhile the buttons and every control but the one moved
        are disabled, and afterwards they are as they were, also after an error.

    An explorer without buttons keeps the figures of its last few settings (``render`` is a
    function of the controls' values: tests/widget_harness.py checks it) and shows one again
    when its setting comes back; a subclass whose ``render`` does more than return the figure
    sets ``keeps_figures = False``, and one whose state only its buttons change (never a
    control's move) sets ``keeps_figures = True``: its figures are kept by setting and by the
    number of presses so far, so a press forgets them all.
    """

    keeps_figures: bool | None = None   # None: when the explorer has no buttons

    def __init__(self, render: Callable, controls: Mapping[str, W.ValueWidget],
                 buttons: Mapping[str, Callable[[], None]] | None = None, title: str = "",
                 *, busy: str = ""):
        self.render = render
        self.controls = dict(controls)
        self.buttons = {label: W.Button(description=label) for label in (buttons or {})}
        self._actions = dict(buttons or {})
        self.output = W.Output()
        self.last_error: BaseException | None = None
        self._figures: OrderedDict = OrderedDict()   # setting -> image, oldest first
        self._presses = 0                             # button actions run so far
        self._busy_text = busy
        # a live region: the busy status is announced (widgets.status)
        self._busy_line = _StatusLine() if busy else None
        self._working_depth = 0
        self._moved = None   # the control whose move asked for the redraw in progress
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        for label, button in self.buttons.items():
            button.on_click(lambda _b, label=label: self.press(label))
        header = [W.HTML(f"<b>{title}</b>")] if title else []
        rows = [W.HBox(list(self.controls.values())[i:i + 3])
                for i in range(0, len(self.controls), 3)]
        if self.buttons:
            rows.append(W.HBox(list(self.buttons.values())))
        if self._busy_line is not None:
            rows.append(self._busy_line)
        # hidden: names the sliders' handles; a subclass that builds its own box keeps it
        self._slider_names = _SliderNames.for_controls(self.controls.values())
        self.widget = W.VBox(header + rows + [self.output, self._slider_names])

    def values(self) -> dict:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def refresh(self) -> None:
        """Redraw the figure (or show the one kept for this setting again); an exception is
        shown in the explorer and stored in ``last_error``."""
        self.last_error = None
        values, moved, self._moved = self.values(), self._moved, None
        key = self._setting(values)
        printed: list[dict] = []
        try:
            image = self._figures.pop(key, None)
            if image is None:
                with self._working(self._busy_text, moved=moved), _printed_into(printed):
                    image = _drawn(lambda: self.render(**values))
            if key is not None:
                self._figures[key] = image   # the newest last
                while len(self._figures) > _KEPT_FIGURES:
                    self._figures.popitem(last=False)
            self._show(image.output(), *printed)
        except InputError as err:
            self.last_error = err
            message = f"Not drawn: {err}"
            self._show(_html_output(f'<span style="color:#b00020">{html.escape(message)}</span>',
                                    message), *printed)
        except Exception as err:  # shown to the user instead of vanishing into a log
            self.last_error = err
            self._show(*printed, _stream_output(traceback.format_exc(), "stderr"))

    def _show(self, *outputs: dict) -> None:
        """``outputs`` in the explorer's output area, in place of what it shows
        (:func:`_show_in`)."""
        _show_in(self.output, *outputs)

    def _show_failed_update(self, err: Exception, what: str) -> None:
        """Keep ``err`` and show it in the panel in place of the figure, as a render error is."""
        self.last_error = err
        self._show(_stream_output(f"{what} not updated: {err}\n"))

    def press(self, label: str) -> None:
        """Run the action of button ``label`` and redraw."""
        self.last_error = None
        with self._working(f"{label}: working…", self.buttons.get(label)):
            try:
                self._presses += 1     # the state may change even when the action fails
                self._actions[label]()
            except Exception as err:
                self.last_error = err
                # beneath the figure of the state before the press
                self._show(*self.output.outputs,
                           _stream_output(traceback.format_exc(), "stderr"))
                return
            self.refresh()

    def _on_change(self, change) -> None:
        self._moved = change.get("owner")
        self.refresh()

    def _setting(self, values: dict):
        """The key of the figure kept for ``values``, or None when none is kept."""
        keeps = not self._actions if self.keeps_figures is None else self.keeps_figures
        if not keeps:
            return None
        key = (self._presses, *sorted(values.items()))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    @contextlib.contextmanager
    def _working(self, text: str, pressed: W.Button | None = None, moved=None):
        """While the block runs: ``text`` in the busy line, and the buttons and controls
        disabled, except the control ``moved`` (it keeps the keyboard focus); afterwards as they
        were, and the focus back on the ``pressed`` button. Nested blocks change nothing."""
        if self._busy_line is None or self._working_depth:
            self._working_depth += 1
            try:
                yield
            finally:
                self._working_depth -= 1
            return
        widgets = [w for w in [*self.controls.values(), *self.buttons.values()] if w is not moved]
        self._working_depth += 1
        self._busy_line.value = html.escape(text)
        try:
            with _disabled(widgets, focus=pressed):
                yield
        finally:
            self._working_depth -= 1
            self._busy_line.value = ""

    def _ipython_display_(self) -> None:
        _settle_heap()
        self.refresh()
        display(self.widget)
