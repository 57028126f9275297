"""Be the sixth rater: listen, score, save, and compare yourself with the panel (Unit 5).

The same explorer serves the class rating round (:func:`course_lib.widgets.class_panel.class_rate`):
given the clips in a student's own order, a sheet that keeps its scores in a class sheet, and
``autosave``, it saves after every score into a file whose name the activity fixes.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable
from pathlib import Path

import ipywidgets as W
from IPython.display import display

from course_lib.class_panel.figures import listener_beside_experts
from course_lib.class_panel.score_model import listener_ratings_model
from course_lib.class_panel.student_pages import beside_experts
from course_lib.data.fluency import load_fluency
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.metrics import rmse
from course_lib.plotting.listener_panel import listener_figure
from course_lib.raters.listener_panel import ScoreSheet, panel_with_listener
from course_lib.stimuli import wav_bytes
from course_lib.widgets.base import _drawn, _show_in
from course_lib.widgets.slider_names import _SliderNames
from course_lib.widgets.status import _StatusLine

# a word, not a dash: it is also the button's name a screen reader reads out
_NOT_SCORED = "none"
_TITLE = "Be the sixth rater: how fluent is each sentence, 0-10?"
_DATA_SETS = {"speechocean762": lambda: load_speechocean762("fluency"),  # five real experts
             "fluency": load_fluency}                                   # five simulated raters
# Sets whose clips' ``truth`` is a hidden true fluency (speechocean762's is the experts' mean,
# which the figure already shows as their histogram).
_HIDDEN_TRUTH = {"fluency"}


class RateYourself:
    """One clip at a time: play it, click a score (or "none" to take it back), move on. ``save`` /
    ``load`` keep the scores in a file you choose; a file that exists already is loaded when
    the explorer starts, and save never replaces a file the explorer has not loaded or written
    without asking once. "compare" fits the panel models with you as the sixth rater; a score
    changed afterwards is marked in place until you compare again. Beside the figure, your noise
    and bias are judged against each expert's with the class page's intervals, and how often
    such intervals held the truth. Clips are numbered from 1
    everywhere. Errors show as one line; the scores given so far are kept.

    ``clips`` (default: the data set's ``clips_to_rate()``) are played in the order given, and
    ``sheet`` (default: a new :class:`~course_lib.raters.listener_panel.ScoreSheet` of them) holds
    their scores. With ``autosave`` the file is the activity's own: there is no file box or
    save button, every score is saved at once, and a file there that the explorer cannot read
    whole is kept under another name (:class:`_SheetFile`). ``title`` (text) heads the explorer,
    and ``intro`` (a line of HTML) follows it: the class round shows the student's pseudonym."""

    def __init__(self, file="my_fluency_scores.json", data_set: str = "speechocean762", *,
                 clips=None, sheet: ScoreSheet | None = None, autosave: bool = False,
                 title: str = _TITLE, intro: str = ""):
        if data_set not in _DATA_SETS:
            raise ValueError(f"data_set: expected one of {sorted(_DATA_SETS)}, got {data_set!r}")
        self.panel = _DATA_SETS[data_set]()
        self.hidden_truth = data_set in _HIDDEN_TRUTH
        self.clips = self.panel.clips_to_rate() if clips is None else list(clips)
        self.sheet = _checked_sheet(sheet, self.clips)
        self.keeper = _SheetFile(self.sheet, lambda: (self.sheet.n_scored, len(self.clips)),
                                 ("scores", "scored"), autosave=bool(autosave))
        self.clip = 0
        self.result = None
        self.beside = None            # the noise and bias panels' numbers of the last compare
        self._setting = False        # True while show() sets the buttons (not the listener)
        self.heading = _StatusLine()   # a live region: the clip after next or previous is read out
        self.audio = W.Audio(format="wav", autoplay=False, loop=False)
        self.score_buttons = W.ToggleButtons(
            options=[_NOT_SCORED] + [str(s) for s in range(11)], value=_NOT_SCORED,
            description="fluency", style={"button_width": "56px"},
            tooltips=["no score for this clip"] + [f"fluency {s} of 10" for s in range(11)])
        # plain words: a screen reader reads "◀" as "black left-pointing triangle"
        self.previous = W.Button(description="previous clip")
        self.next = W.Button(description="next clip")
        # sent once when the field is left (Tab or Enter), not per keystroke: ipywidgets queues
        # typed values while the kernel is busy, and a save pressed at once could overtake them
        self.file = W.Text(value=str(file), description="file", layout=W.Layout(width="360px"),
                           continuous_update=False)
        self.save_button, self.load_button = W.Button(description="save"), W.Button(
            description="load")
        self.compare_button = W.Button(description="compare me with the panel",
                                       layout=W.Layout(width="220px"))
        self.status = _StatusLine()   # announced by screen readers (a live region)
        # above the figure, a live region: says (and a screen reader announces) when the figure
        # is not the fit of the current sheet
        self.note = _StatusLine()
        # the verdict beside the figure, read out once per compare: your intervals against the
        # experts, and their measured coverage
        self.trust = _StatusLine()
        self.output = W.Output()
        for widget, name in ((self.heading, "heading"), (self.status, "status"),
                             (self.note, "note"), (self.trust, "trust"),
                             (self.output, "output")):
            widget.add_class(f"course-rate-{name}")       # for the browser test
        self.score_buttons.observe(self._on_score, names="value")
        self.previous.on_click(lambda _b: self.show(self.clip - 1))
        self.next.on_click(lambda _b: self.show(self.clip + 1))
        self.save_button.on_click(lambda _b: self.save())
        self.load_button.on_click(lambda _b: self.load())
        self.compare_button.on_click(lambda _b: self.compare())
        # with autosave the file is fixed and saved at every score: no box, no buttons for it
        files = [] if autosave else [W.HBox([self.file, self.save_button, self.load_button])]
        top = [W.HTML(f"<b>{html.escape(title)}</b>")] + ([W.HTML(intro)] if intro else [])
        self.widget = W.VBox([*top, self.heading, self.audio, self.score_buttons,
                              W.HBox([self.previous, self.next]), *files,
                              self.compare_button, self.status, self.note, self.trust,
                              self.output,
                              _SliderNames()])   # hidden: the score buttons' pressed state
        self.widget.add_class("course-rate-yourself")
        self.show(0)
        if Path(self.file.value).expanduser().is_file():   # a re-run cell resumes the sheet
            self.load()

    def show(self, clip: int) -> None:
        """Go to clip index ``clip`` (wrapping around); it is shown as clip ``clip + 1``."""
        self.clip = clip % len(self.clips)
        sound = self.clips[self.clip]
        self.audio.value = wav_bytes(sound.samples, sound.sample_rate)
        score = self.sheet.scores[self.clip]
        self._setting = True
        self.score_buttons.value = _NOT_SCORED if score is None else str(score)
        self._setting = False
        self.heading.value = (f"Clip {self.clip + 1} of {len(self.clips)}: "
                              f"\"{html.escape(sound.text.lower())}\" "
                              f"({self.sheet.n_scored} of {len(self.clips)} scored)")
        if self.result is not None:
            self._draw()

    def _on_score(self, change) -> None:
        if self._setting:
            return
        value = None if change["new"] == _NOT_SCORED else int(change["new"])
        self.sheet.score(self.clip, value)
        self.keeper.changed()
        stale = " (not in the comparison below: compare again)" if self._changes() else ""
        line, error = f"clip {self.clip + 1}: {change['new']}{stale}", False
        if self.keeper.autosave:
            saved, error = self.keeper.save(self._path())
            line = f"{line}; {saved}"
        self._say(line, error)
        self.show(self.clip)

    def save(self) -> None:
        """Write the scores to the file (asking once before replacing one it has not read)."""
        self._say(*self.keeper.save(self._path()))

    def load(self) -> None:
        """Take the scores saved in the file; entries it cannot use are named, not taken."""
        line, error = self.keeper.load(self._path())
        self.show(self.clip)
        self._say(line, error)

    def progress(self) -> str:
        """How many clips are scored and whether the file holds them all (one line)."""
        return self.keeper.progress(self._path())

    def _path(self) -> Path:
        return Path(self.file.value).expanduser()

    def compare(self) -> None:
        try:
            result = panel_with_listener(self.panel, self.sheet)
            # the class page's reading of the same scores: the noise and bias intervals
            alone = listener_ratings_model(self.sheet, self.panel)
        except ValueError as err:
            earlier = "; the comparison below is your earlier one" if self.result else ""
            self._say(f"{err}{earlier}", error=True)
            return
        self.result, self.beside = result, listener_beside_experts(alone)
        self.trust.value = "<br>".join(html.escape(line)
                                       for line in beside_experts(alone).splitlines())
        line = f"fitted with your {self.sheet.n_scored} scores as rater 6"
        if self.sheet.scores[self.clip] is None:
            line += (f"; clip {self.clip + 1} is not scored, so the figure shows your noise and "
                     "bias only: go to a scored clip to see its scores and the model's")
        if self.hidden_truth:
            truth = [self.clips[clip].truth for clip in result.rated_clips]
            line += (f"; your scores are {rmse(result.listener_scores, truth):.2f} points from "
                     "the hidden true fluency (RMSE; each clip's truth is in the figure)")
        self._say(line)
        self._draw()

    def _changes(self) -> list[str]:
        """"clip N: fitted → now" for every clip scored otherwise than the comparison fitted."""
        if self.result is None:
            return []
        fitted = dict(zip(self.result.rated_clips.tolist(),
                          self.result.listener_scores.tolist()))
        return [f"clip {clip + 1}: {_shown(fitted.get(clip))} → {_shown(score)}"
                for clip, score in enumerate(self.sheet.scores) if fitted.get(clip) != score]

    def _draw(self) -> None:
        truth = self.clips[self.clip].truth if self.hidden_truth else None
        changes = self._changes()
        self.note.value = "" if not changes else (
            '<span style="color:#b00020"><b>Not refitted:</b> your scores changed since you '
            f"compared ({html.escape('; '.join(changes))}); the figure is the fit of your "
            "earlier scores. Press compare to refit.</span>")
        image = _drawn(lambda: listener_figure(self.result, self.clip, truth,
                                               beside=self.beside))
        _show_in(self.output, image.output())

    def _say(self, text: str, error: bool = False) -> None:
        colour = "#b00020" if error else "#1b5e20"
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    def _ipython_display_(self) -> None:
        display(self.widget)


def _shown(score) -> str:
    return _NOT_SCORED if score is None else f"{score:g}"


def _checked_sheet(sheet, clips) -> ScoreSheet:
    """``sheet``, or a new ScoreSheet of ``clips``; a sheet of other clips is refused."""
    items = tuple(clip.item for clip in clips)
    if sheet is None:
        return ScoreSheet(items)
    if not isinstance(sheet, ScoreSheet):
        raise TypeError(f"sheet: expected a ScoreSheet, got {type(sheet).__name__}")
    if tuple(sheet.items) != items:
        raise ValueError("sheet: its items are not the clips', in the clips' order")
    return sheet


class _SheetFile:
    """An explorer's sheet and the file it goes to, kept so that nothing typed or saved is lost.

    ``sheet`` saves and loads itself (``save(path)``, ``load(path)`` returning the entries it
    could not use); ``count()`` gives (answered, total) and ``noun`` the words for them
    ("scores", "scored"). A file already there that the explorer has not read whole is never
    replaced silently: a save is refused once and the next one replaces it (a save pressed
    twice), or, with ``autosave`` (no save button: the class activities save at every answer),
    the file is first renamed to ``<stem>.unread-<n><suffix>`` beside it (:func:`_set_aside`).
    A file written over since the explorer read or wrote it (another notebook saving to the same
    name) counts as unread: files are told apart by :func:`_signature`. Every method returns
    the line to show and whether it reports a problem."""

    def __init__(self, sheet, count: Callable[[], tuple[int, int]], noun: tuple[str, str],
                 autosave: bool = False):
        self.sheet, self.count, self.noun, self.autosave = sheet, count, noun, autosave
        self.known = None        # _signature of the file last loaded whole or saved
        self.replace = None      # ... of a file a save was refused for once: the next replaces it
        self.unsaved = False     # the sheet has changed since it was last saved or loaded whole

    def changed(self) -> None:
        self.unsaved = True

    def save(self, path: Path) -> tuple[str, bool]:
        unread = path.is_file() and _signature(path) not in (self.known, self.replace)
        if unread and not self.autosave:
            self.replace = _signature(path)
            return (f"file: {path} holds {self.noun[0]} this explorer has not loaded; press load "
                    "to take them, or save again to replace them"), True
        try:
            aside = _set_aside(path) if unread else None
            self.sheet.save(path)
        except OSError as err:
            return (f"file: could not save ({err.strerror or err}); your {self.noun[0]} are "
                    "kept"), True
        self.known, self.replace, self.unsaved = _signature(path), None, False
        kept = f" (the file that was there is kept as {aside.name})" if aside else ""
        n = self.count()[0]
        noun = self.noun[0] if n != 1 else self.noun[0].removesuffix("s")
        return f"saved {n} {noun} to {path}{kept}", False

    def load(self, path: Path) -> tuple[str, bool]:
        try:
            problems = self.sheet.load(path)
        except ValueError as err:
            return self._unread(path, f"{err}; your {self.noun[0]} are kept")
        n, total = self.count()
        more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
        line = (f"loaded {path}: {n} of {total} {self.noun[1]}"
                + "".join(f"; {problem}" for problem in problems[:3]) + more)
        if problems:       # the file's unusable entries are not replaced without asking
            self.known, self.unsaved = None, True
            return self._unread(path, line)
        self.known, self.unsaved = _signature(path), False
        return line, False

    def _unread(self, path: Path, line: str) -> tuple[str, bool]:
        """A file the sheet could not take whole; with autosave it is renamed at once, so the
        student learns its new name now, before the first answer saves a sheet in its place."""
        if not self.autosave:
            return line, True
        try:
            aside = _set_aside(path)
        except OSError as err:
            return f"{line}; it could not be renamed ({err.strerror or err})", True
        return f"{line}; that file is kept as {aside.name}", True

    def progress(self, path: Path) -> str:
        n, total = self.count()
        line = f"{n} of {total} {self.noun[1]}"
        if not self.unsaved and self.known is not None and self.known == _signature(path):
            return f"{line}, all saved in {path}"
        if n == 0 and not self.unsaved:
            return f"{line}: nothing saved yet"
        return f"{line}, but {path} does not hold them all: " + (
            "see the status line; your next answer saves again" if self.autosave
            else "press save")


def _signature(path: Path) -> tuple | None:
    """What tells a file from another written in its place: its resolved path, inode, size and
    modification time (None when there is no file); a file written over by anyone else
    changes at least its modification time."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return path.resolve(), stat.st_ino, stat.st_size, stat.st_mtime_ns


def _set_aside(path: Path) -> Path:
    """Rename ``path`` to the first free ``<stem>.unread-<n><suffix>`` beside it; nothing is
    replaced or deleted."""
    for number in itertools.count(1):
        target = path.with_name(f"{path.stem}.unread-{number}{path.suffix}")
        if not target.exists():
            path.rename(target)
            return target


def rate_yourself(file="my_fluency_scores.json", data_set: str = "speechocean762"
                  ) -> RateYourself:
    """The sixth-rater explorer (see :class:`RateYourself`); ``file`` is where save/load go;
    ``data_set``: "speechocean762" (the real experts) or "fluency" (the synthetic set, whose
    hidden true fluency the comparison shows)."""
    return RateYourself(file, data_set)
