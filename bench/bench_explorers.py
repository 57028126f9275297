"""How fast every explorer of every lecture answers its controls, without a browser.

Each lecture's code cells run in one IPython shell in this process (Agg instead of the inline
backend, so the lectures' own static figures are not rendered; the cells' printed text is
dropped), and every widget a cell displays at the top level is an explorer, as in the lab test
(``tests/browser/lab_driver.py``, which marks the same ones in the page). Once the lecture has run,
as after Run All Cells in the lab, each explorer's controls are found in page order and each is
moved with the lab test's own moves (``tests/lab_actions.py``: sliders to Home, End and back,
a dropdown's first and last other option and back, checkboxes on and off, text half-typed and
back, every button pressed), here by setting the widget's value or clicking it in Python. A move
to where the control already is sends the kernel nothing in the lab, and is skipped here too.

Each callback is timed, wall and CPU (``time.process_time``, which a busy shared machine
disturbs less), from the move to the figure drawn to a PNG and described
(``widgets.base._figure_image``, timed apart as the drawing: the rest is computing). What the
lab adds on top, sending the PNG to the page and painting it, is not here: the lab test's own
timings are in its reports, ``.test-artifacts/browser/<unit>/report.json``, whose table
(actions, median and slowest seconds per lecture) is printed at the end when they exist.

Goal (issue 71): every callback within 0.5 CPU-seconds; the lines ``slowest callback`` and
``callbacks over 0.5 CPU-s`` say how close. One BLAS thread (bench/harness.py); every action
once, in the lab's order, the first one of an explorer included (as in the lab: a lazy import
or a numba compile on first use is what a student waits for).

Unlike the other benches this one has no reference library to race: it is the explorers'
own timing, to compare a change with its parent commit (``--json`` on each, then ``--compare``
with the earlier file prints them explorer by explorer). A whole run takes some 6 CPU-minutes,
most of it the lectures' own cells (lecture 01's alone about 90 CPU-s).

Run: .venv/bin/python bench/bench_explorers.py [--lectures 05 07] [--json times.json]
                                               [--compare parent.json]
     .venv/bin/python bench/bench_explorers.py --reports-only [--compare times.json]
         [--reports DIR]   # the lab's table alone (with a run's timings: the lab's floor)
"""

from __future__ import annotations

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

os.environ.setdefault("TQDM_DISABLE", "1")
os.environ["MPLBACKEND"] = "Agg"

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "tests"))  # the lab test's moves and the list of units
import lab_actions  # noqa: E402
from course_units import UNITS  # noqa: E402

GOAL_CPU_S = 0.5
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
NOT_DRAWN = "Not drawn"


@dataclass
class Timing:
    """One action: where, what, and its clocks (seconds); ``draw_*`` the part spent drawing."""

    lecture: str
    explorer: int
    cell: int
    title: str
    control: str
    action: str
    wall: float = 0.0
    cpu: float = 0.0
    draw_wall: float = 0.0
    draw_cpu: float = 0.0
    gc_wall: float = 0.0    # of which Python's cyclic garbage collector (any phase)
    figure_sha1: str = ""   # of the last PNG drawn, to tell whether a change kept the figure
    idle_cpu: float = 0.0   # after the answer, before the next move (freeing closed figures)
    answer: str = "drawn"   # or "not drawn (typed entry)", "error: ...", "already there"


@dataclass
class Found:
    """A top-level widget a lecture displayed: the lab's explorer number, its cell, its title."""

    widget: object
    cell: int
    title: str = ""
    timings: list[Timing] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Running a lecture in this process


class _Shell:
    """An IPython shell that runs notebook cells and records the widgets displayed at the top
    level (not inside an explorer's own Output, as the lab's explorers are not nested)."""

    def __init__(self):
        import ipywidgets as W
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance()
        self.displayed: list[tuple[int, str]] = []   # (cell, widget model id)
        self.inside_output = 0
        self.not_drawn = 0
        self.cell = 0
        self.shell.display_pub.publish = self._publish
        # the image formatters of figures a cell displays itself: not what is measured here
        self.shell.display_formatter.formatters["image/png"].enabled = False
        shell = self

        enter, leave = W.Output.__enter__, W.Output.__exit__

        def counted_enter(output):
            shell.inside_output += 1
            return enter(output)

        def counted_exit(output, *args):
            shell.inside_output -= 1
            return leave(output, *args)

        W.Output.__enter__, W.Output.__exit__ = counted_enter, counted_exit

    def _publish(self, data, metadata=None, *args, **kwargs) -> None:
        view = data.get(WIDGET_VIEW)
        if view is None:
            return
        if self.inside_output:
            from ipywidgets.widgets.widget import _instances
            shown = _instances.get(view["model_id"])
            if NOT_DRAWN in str(getattr(shown, "value", "")):
                self.not_drawn += 1
        else:
            self.displayed.append((self.cell, view["model_id"]))

    def run_lecture(self, unit: str) -> tuple[list[Found], str]:
        """The lecture's explorers, and what stopped its run ("" when every cell ran): a
        failed cell ends the run, and the explorers shown before it are still operated."""
        import matplotlib.pyplot as plt
        import nbformat
        from ipywidgets.widgets.widget import _instances

        self.shell.reset(new_session=False)
        self.displayed.clear()
        notebook = nbformat.read(ROOT / "lectures" / f"{unit}.ipynb", as_version=4)
        failure = ""
        for number, cell in enumerate(notebook.cells, start=1):
            if cell.cell_type != "code":
                continue
            self.cell = number
            source = re.sub(r"^%matplotlib .*$", "", cell.source, flags=re.M)
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                result = self.shell.run_cell(source, store_history=False)
            plt.close("all")
            tags = set(cell.metadata.get("tags", []))
            if not result.success and not tags & {"raises-exception", "nbval-raises-exception"}:
                error = result.error_in_exec or result.error_before_exec
                failure = f"cell {number} failed ({type(error).__name__}: {error})"[:300]
                break
        return [Found(_instances[model_id], cell, _title(_instances[model_id]))
                for cell, model_id in self.displayed], failure


def _title(widget) -> str:
    """The explorer's bold title, as the lab reads it (the first ``<b>`` of an HTML widget)."""
    import ipywidgets as W

    for child in _walk(widget):
        if isinstance(child, W.HTML):
            match = re.search(r"<b>(.*?)</b>", child.value, flags=re.S)
            if match:
                return match.group(1).strip()
    return ""


def _output_areas(widget) -> list[tuple]:
    """What each Output widget in ``widget`` holds (its tuple of outputs), in page order."""
    import ipywidgets as W

    return [child.outputs for child in _walk(widget) if isinstance(child, W.Output)]


def _walk(widget):
    """The widget and every widget inside it, in page order (an Output's contents excluded)."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


# ---------------------------------------------------------------------------------------------
# The lab's moves, made on the widgets


def _kind(widget) -> str | None:
    """The lab's name for a control (lab_driver's MARK_CONTROLS_JS), or None: not operated."""
    import ipywidgets as W

    kinds = (((W.IntSlider, W.FloatSlider, W.FloatLogSlider, W.SelectionSlider, W.IntRangeSlider,
               W.FloatRangeSlider, W.SelectionRangeSlider), "slider"),
             ((W.Dropdown,), "dropdown"), ((W.ToggleButtons,), "toggle-buttons"),
             ((W.Checkbox,), "checkbox"),
             ((W.IntText, W.FloatText, W.BoundedIntText, W.BoundedFloatText), "number"),
             ((W.Text, W.Textarea), "text"), ((W.Button,), "button"))
    return next((kind for types, kind in kinds if isinstance(widget, types)), None)


def _label(widget) -> str:
    return (getattr(widget, "description", "") or "").strip() or _kind(widget)


def _ends_of(slider):
    """A slider's value at Home and at End."""
    import ipywidgets as W

    if isinstance(slider, W.FloatLogSlider):
        return slider.base ** slider.min, slider.base ** slider.max
    if isinstance(slider, (W.SelectionSlider,)):
        return slider.options[0], slider.options[-1]
    return slider.min, slider.max


def _readout(slider) -> str:
    fmt = getattr(slider, "readout_format", "")
    try:
        return format(slider.value, fmt)
    except (TypeError, ValueError):
        return str(slider.value)


def _moves(widget, kind: str):
    """(move, target value or None, apply) for each of the lab's moves of ``widget``."""
    import ipywidgets as W

    if kind == "slider":
        low, high, start = *_ends_of(widget), widget.value
        targets = {"min": low, "max": high, "typed": start}
        return [(move, targets[move.to], None) for move in lab_actions.slider_moves(
            _readout(widget))]
    if kind in ("dropdown", "toggle-buttons"):
        labels = list(widget._options_labels)
        if kind == "dropdown":
            moves = lab_actions.dropdown_moves([(label, label) for label in labels],
                                               widget.label)
            return [(move, labels.index(move.value), "index") for move in moves]
        active = [] if widget.index is None else [widget.index]
        return [(move, move.value, "index")
                for move in lab_actions.toggle_button_moves(labels, active)]
    if kind == "checkbox":
        return [(move, None, "toggle") for move in lab_actions.checkbox_moves()]
    if kind == "text":
        return [(move, move.value, None) for move in lab_actions.text_moves(widget.value)]
    if kind == "number":
        bounded = isinstance(widget, (W.BoundedIntText, W.BoundedFloatText))
        number = int if isinstance(widget, (W.IntText, W.BoundedIntText)) else float
        moves = lab_actions.number_moves(str(widget.value), str(widget.min) if bounded else None,
                                         str(widget.max) if bounded else None)
        return [(move, number(float(move.value)), None) for move in moves]
    return [(move, None, "press") for move in lab_actions.button_moves()]


def _make(widget, target, how) -> bool:
    """Make one move; False when the control is already there (the lab sends nothing)."""
    if how == "press":
        widget.click()
        return True
    if how == "toggle":
        widget.value = not widget.value
        return True
    attribute = "index" if how == "index" else "value"
    if getattr(widget, attribute) == target:
        return False
    setattr(widget, attribute, target)
    return True


class _GcClock:
    """Wall seconds spent in Python's cyclic garbage collector (``gc.callbacks``)."""

    def __init__(self):
        self.wall, self._started = 0.0, None

    def __call__(self, phase, _info):
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.wall += time.perf_counter() - self._started
            self._started = None

    @contextlib.contextmanager
    def installed(self):
        import gc

        gc.callbacks.append(self)
        try:
            yield self
        finally:
            gc.callbacks.remove(self)


class _DrawClock:
    """Wall and CPU seconds spent in ``_figure_image`` (the figure to a PNG, and described),
    wherever a widget module took it from."""

    def __init__(self):
        self.wall = self.cpu = 0.0
        self.figure_sha1 = ""

    @contextlib.contextmanager
    def installed(self):
        import hashlib

        import course_lib.widgets as widgets_package
        from course_lib.widgets import base

        original = base._figure_image

        def timed(*args, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                image = original(*args, **kwargs)
            finally:
                self.wall += time.perf_counter() - wall
                self.cpu += time.process_time() - cpu
            self.figure_sha1 = hashlib.sha1(image.data).hexdigest()
            return image

        modules = [base] + [module for name, module in sys.modules.items()
                            if name.startswith(widgets_package.__name__ + ".")
                            and getattr(module, "_figure_image", None) is original]
        for module in modules:
            module._figure_image = timed
        try:
            yield self
        finally:
            for module in modules:
                module._figure_image = original


def operate(shell: _Shell, lecture: str, number: int, found: Found) -> None:
    """Every control of one explorer, every move, timed (``found.timings``)."""
    controls = [w for w in _walk(found.widget) if _kind(w) and not getattr(w, "disabled", False)]
    from course_lib.widgets import base

    idle_delay = getattr(base, "_IDLE_DELAY_S", 0.0)   # none before issue 71's idle collection

    clock, collector = _DrawClock(), _GcClock()
    loop = asyncio.new_event_loop()
    with clock.installed(), collector.installed(), contextlib.closing(loop):
        for widget in controls:
            kind = _kind(widget)
            for move, target, how in _moves(widget, kind):
                timing = Timing(lecture, number, found.cell, found.title,
                                f"{kind} {_label(widget)}", move.what)
                found.timings.append(timing)
                if getattr(widget, "disabled", False):
                    timing.answer = "disabled"
                    continue
                clock.wall = clock.cpu = collector.wall = 0.0
                clock.figure_sha1 = ""
                shell.not_drawn = 0
                before = _output_areas(found.widget)
                quiet = io.StringIO()

                async def act():
                    wall, cpu = time.perf_counter(), time.process_time()
                    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                        made = _make(widget, target, how)
                    timing.wall = time.perf_counter() - wall
                    timing.cpu = time.process_time() - cpu
                    return made

                # the move in an event loop, as the kernel handles it, then idle long enough for
                # what the explorer left for the kernel's idle time (base._collect_when_idle)
                made = loop.run_until_complete(act())
                timing.draw_wall, timing.draw_cpu = clock.wall, clock.cpu
                timing.gc_wall = collector.wall
                timing.figure_sha1 = clock.figure_sha1
                idle = time.process_time()
                loop.run_until_complete(asyncio.sleep(2 * idle_delay))
                timing.idle_cpu = time.process_time() - idle
                # what the move put in the output areas: an explorer sets them itself (before
                # issue 71's last change it printed into them and displayed a "Not drawn"
                # widget there, which shell._publish sees)
                new = [output for old, now in zip(before, _output_areas(found.widget))
                       if now is not old for output in now]
                errors = quiet.getvalue() + "".join(
                    output.get("text", "") for output in new if output.get("name") == "stderr")
                if not made:
                    timing.answer = "already there"
                elif "Traceback" in errors:
                    timing.answer = "error: " + errors.strip().splitlines()[-1][:120]
                elif shell.not_drawn or any(
                        NOT_DRAWN in output.get("data", {}).get("text/plain", "")
                        for output in new):
                    timing.answer = ("not drawn (typed entry)" if move.typed_entry
                                     else "not drawn")


# ---------------------------------------------------------------------------------------------
# Tables


def _timed(timings: list[Timing]) -> list[Timing]:
    return [t for t in timings if t.answer not in ("already there", "disabled")]


def explorer_table(found_by_lecture: dict[str, list[Found]]) -> list[Timing]:
    """One row per explorer: actions, median and slowest wall and CPU seconds, the share of its
    CPU spent drawing, and its slowest action; returns every timed action."""
    every = []
    print(f"{'lecture / explorer':58s} {'n':>3s} {'wall med':>8s} {'max':>6s} "
          f"{'CPU med':>8s} {'max':>6s} {'draw':>5s} {'gc':>4s}  slowest (CPU)")
    for lecture, founds in found_by_lecture.items():
        for number, found in enumerate(founds, start=1):
            timings = _timed(found.timings)
            name = f"{lecture[:2]} e{number} c{found.cell} {found.title or '(untitled)'}"
            if not timings:
                print(f"{name[:58]:58s} {0:3d}   (no controls operated)")
                continue
            every += timings
            cpu = [t.cpu for t in timings]
            drawn = sum(t.draw_cpu for t in timings) / max(sum(cpu), 1e-9)
            collected = sum(t.gc_wall for t in timings) / max(sum(t.wall for t in timings), 1e-9)
            slow = max(timings, key=lambda t: t.cpu)
            print(f"{name[:58]:58s} {len(timings):3d} "
                  f"{statistics.median(t.wall for t in timings):8.3f} "
                  f"{max(t.wall for t in timings):6.3f} {statistics.median(cpu):8.3f} "
                  f"{max(cpu):6.3f} {drawn:5.0%} {collected:4.0%}  {slow.control}, "
                  f"{slow.action}")
    return every


def summary(every: list[Timing]) -> None:
    if not every:
        return
    cpu = [t.cpu for t in every]
    drawn = sum(t.draw_cpu for t in every) / max(sum(cpu), 1e-9)
    slow = max(every, key=lambda t: t.cpu)
    over = [t for t in every if t.cpu > GOAL_CPU_S]
    print(f"\n{len(every)} callbacks: median {statistics.median(t.wall for t in every):.3f} s "
          f"wall, {statistics.median(cpu):.3f} CPU-s; {drawn:.0%} of the CPU drawing the "
          f"figures, {1 - drawn:.0%} computing")
    print(f"slowest callback: {slow.cpu:.3f} CPU-s ({slow.wall:.3f} s wall), lecture "
          f"{slow.lecture}, explorer {slow.explorer} ({slow.title[:50]}), {slow.control}, "
          f"{slow.action} (goal <= {GOAL_CPU_S})")
    print(f"kernel idle time between moves: {sum(t.idle_cpu for t in every):.1f} CPU-s in all "
          f"(freeing the figures a redraw closed, after its answer)")
    print(f"callbacks over {GOAL_CPU_S} CPU-s: {len(over)}")
    for t in sorted(over, key=lambda t: -t.cpu):
        print(f"  {t.cpu:6.3f} CPU-s  {t.lecture[:2]} e{t.explorer} {t.title[:40]}: "
              f"{t.control}, {t.action} (drawing {t.draw_cpu:.3f}, gc {t.gc_wall:.3f} s wall)")
    problems = [t for t in every if t.answer.startswith("error") or t.answer == "not drawn"]
    for t in problems:
        print(f"  PROBLEM {t.lecture[:2]} e{t.explorer} {t.control}, {t.action}: {t.answer}")


def compare_table(before_path: Path, after: list[dict]) -> None:
    """Per explorer, the median and slowest CPU seconds of an earlier run (``--json`` of the
    parent commit, say) beside this one's."""
    def per_explorer(rows):
        grouped: dict[tuple, list[float]] = {}
        for row in rows:
            if row["answer"] not in ("already there", "disabled"):
                grouped.setdefault((row["lecture"][:2], row["explorer"], row["title"]),
                                   []).append(row["cpu"])
        return grouped

    before = per_explorer(json.loads(before_path.read_text(encoding="utf-8")))
    now = per_explorer(after)
    print(f"\nCPU seconds per callback, {before_path.name} -> this run (median / slowest):")
    for key in sorted(set(before) | set(now)):
        lecture, number, title = key
        old, new = before.get(key, []), now.get(key, [])
        cells = [f"{statistics.median(v):5.3f} / {max(v):5.3f}" if v else f"{'-':>13s}"
                 for v in (old, new)]
        print(f"{lecture} e{number} {title[:50]:50s} {cells[0]}  ->  {cells[1]}")
    _compare_figures(json.loads(before_path.read_text(encoding="utf-8")), after)
    for name, grouped in (("before", before), ("after", now)):
        every = [c for v in grouped.values() for c in v]
        if every:
            print(f"all, {name}: {len(every)} callbacks, median {statistics.median(every):.3f}, "
                  f"slowest {max(every):.3f}, over {GOAL_CPU_S}: "
                  f"{sum(c > GOAL_CPU_S for c in every)}")


def _action_key(row: dict, lecture: str | None = None) -> tuple:
    """One action, the same in this bench's rows and the lab's reports (which name the lecture
    by their folder): lecture, explorer, control and move."""
    return (lecture or row["lecture"], row["explorer"], row["control"], row["action"])


def _compare_figures(before: list[dict], after: list[dict]) -> None:
    """How many actions drew the same PNG in both runs (an action named by its lecture,
    explorer, control and move), and which did not: a speed-up should change none."""
    def drawn(rows):
        return {_action_key(r): r["figure_sha1"] for r in rows if r.get("figure_sha1")}

    old, new = drawn(before), drawn(after)
    both = sorted(set(old) & set(new))
    changed = [key for key in both if old[key] != new[key]]
    print(f"\nfigures: {len(both) - len(changed)} of {len(both)} actions drawn in both runs "
          f"drew the same PNG")
    for lecture, number, control, action in changed:
        print(f"  changed: {lecture[:2]} e{number} {control}, {action}")


def lab_reports_table(folder: Path, rows: list[dict] | None = None) -> None:
    """The lab test's own timings, per lecture, from its reports (when a run left them); with
    this bench's ``rows`` for the same actions, also the lab's floor: the seconds of the actions
    that computed nothing here (a kept figure shown again, a typed entry refused)."""
    reports = sorted(folder.glob("*/report.json"))
    where = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder
    if not reports:
        print(f"\n(no lab reports in {where}: run the lab test to get them)")
        return
    print(f"\nThe lab test's timings ({where}/*/report.json), from each action to the explorer "
          f"painted: as the test sees it, and (page) by the page's clock from the input event "
          f"that asked the kernel:")
    print(f"{'lecture':24s} {'actions':>7s} {'median (s)':>10s} {'slowest (s)':>11s} "
          f"{'page median':>11s} {'page slowest':>12s}  slowest")
    every = []
    for path in reports:
        actions = [a for a in json.loads(path.read_text(encoding="utf-8"))["actions"]
                   if "seconds" in a]
        if not actions:
            continue
        every += actions
        slow = max(actions, key=lambda a: a["seconds"])
        print(f"{path.parent.name:24s} {len(actions):7d} {_lab_seconds(actions)}"
              f"  {slow['title'][:40]}: {slow['control']}, {slow['action']}")
    if every:
        print(f"{'all':24s} {len(every):7d} {_lab_seconds(every)}".rstrip())
        for clock in ("seconds", "page_seconds"):
            values = [a[clock] for a in every if a.get(clock) is not None]
            if values:
                print(f"  {'test' if clock == 'seconds' else 'page'}: median "
                      f"{statistics.median(values):.2f} s, {sum(v > 1.0 for v in values)} "
                      f"actions over 1 s, {sum(v > 2.0 for v in values)} over 2 s "
                      f"({len(values)} timed)")
    if every and rows:
        _lab_floor(reports, rows)


def _lab_seconds(actions: list[dict]) -> str:
    """Median and slowest of the test's clock, then of the page's (blank in older reports)."""
    columns = []
    for key, widths in (("seconds", (10, 11)), ("page_seconds", (11, 12))):
        values = [a[key] for a in actions if a.get(key) is not None]
        columns += ([f"{statistics.median(values):{widths[0]}.2f}",
                     f"{max(values):{widths[1]}.2f}"] if values else
                    [" " * widths[0], " " * widths[1]])
    return " ".join(columns)


def _lab_floor(reports: list[Path], rows: list[dict]) -> None:
    """The lab's seconds against this bench's CPU-s, action by action: what the lab adds to a
    callback (the round trip, sending and painting the PNG, the test's own polling)."""
    cpu = {_action_key(r): r["cpu"] for r in rows
           if r["answer"] not in ("already there", "disabled")}
    cheap, costly = [], []
    for path in reports:
        for action in json.loads(path.read_text(encoding="utf-8"))["actions"]:
            key = _action_key(action, lecture=path.parent.name)
            if "seconds" in action and key in cpu:
                (cheap if cpu[key] <= 0.01 else costly).append((cpu[key], action["seconds"]))
    for name, pairs in (("computing nothing here (<= 0.01 CPU-s)", cheap),
                        ("computing and drawing here", costly)):
        if pairs:
            print(f"lab actions {name}: {len(pairs)}, lab median "
                  f"{statistics.median(s for _, s in pairs):.2f} s (bench median "
                  f"{statistics.median(c for c, _ in pairs):.3f} CPU-s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lectures", nargs="*", default=[],
                        help="the lectures to run, by the start of their name (e.g. 03 07)")
    parser.add_argument("--json", type=Path, help="write every action's timings here")
    parser.add_argument("--reports-only", action="store_true",
                        help="print only the lab test's table from its reports")
    parser.add_argument("--compare", type=Path,
                        help="an earlier --json to print beside this run, explorer by explorer "
                             "(with --reports-only: the timings set beside the lab's)")
    parser.add_argument("--reports", type=Path,
                        help="the lab test's report folder (default .test-artifacts/browser)")
    args = parser.parse_args()
    units = [unit for unit in UNITS if not args.lectures
             or any(unit.startswith(prefix) for prefix in args.lectures)]
    found_by_lecture: dict[str, list[Found]] = {}
    if not args.reports_only:
        started = time.process_time()
        shell = _Shell()
        home = os.getcwd()
        with harness.one_thread(), tempfile.TemporaryDirectory() as scratch:
            os.chdir(scratch)   # a file a lecture writes (a sheet, a recording) lands here
            try:
                for unit in units:
                    built = time.process_time()
                    founds, failure = shell.run_lecture(unit)
                    ran = time.process_time() - built
                    for number, found in enumerate(founds, start=1):
                        operate(shell, unit, number, found)
                    found_by_lecture[unit] = founds
                    print(f"{unit}: cells {ran:.1f} CPU-s, {len(founds)} explorers, actions "
                          f"{sum(t.cpu for f in founds for t in f.timings):.1f} CPU-s"
                          + (f"; NOT ALL BUILT, {failure}" if failure else ""), flush=True)
            finally:
                os.chdir(home)
        print(f"(all lectures and actions: {time.process_time() - started:.0f} CPU-s)\n")
        every = explorer_table(found_by_lecture)
        summary(every)
        rows = [asdict(t) for f in found_by_lecture.values() for found in f for t in found.timings]
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
        if args.compare:
            compare_table(args.compare, rows)
    elif args.compare:
        rows = json.loads(args.compare.read_text(encoding="utf-8"))
    else:
        rows = None
    lab_reports_table(args.reports or ROOT / ".test-artifacts" / "browser", rows)


if __name__ == "__main__":
    main()
