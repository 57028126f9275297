"""The two class activities as a student meets them: the class as a panel (Units 5 and 6).

* :func:`class_rate` -- the sixth-rater panel
  (:class:`~course_lib.widgets.listener_panel.RateYourself`)
  on the sentences of the lecturer's rating round
  (:func:`course_lib.class_panel.activities.rate_activity`), in the student's own order;
* :func:`class_compare` -- the pairs of the comparison round
  (:func:`course_lib.class_panel.activities.compare_activity`): one sound through two
  equaliser settings, and the answer "first is better", "can't decide" or "second is better".

Both show the student's pseudonym (:func:`course_lib.class_panel.sheets.my_identity`), never a
name, and save the student's class sheet (:class:`course_lib.class_panel.sheets.ClassSheet`)
after every answer, since a student may submit without pressing anything, into a file whose
name the activity fixes (``class_sheet_rate.json``, ``class_sheet_compare.json``) in
``folder``: the notebook's own folder, which nbgrader submits with the notebook. Running the
cell again takes up the saved sheet; a file there that cannot be read whole is renamed, never
replaced. The sheet goes nowhere else: it stays on the machine that runs the kernel (the
student's computer, or the server on a hub) until the student submits it.
"""

from __future__ import annotations

import html
from pathlib import Path

import ipywidgets as W
from IPython.display import display

from course_lib.class_panel.activities import (DEFAULT_SEED, CompareActivity, compare_activity,
                                               rate_activity)
from course_lib.class_panel.sheets import ClassSheet, Identity, my_identity
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.raters.listener_panel import ScoreSheet
from course_lib.stimuli import CLIP_TRANSCRIPTS, wav_bytes
from course_lib.validation import renamed_error
from course_lib.widgets.listener_panel import RateYourself, _SheetFile
from course_lib.widgets.slider_names import _SliderNames
from course_lib.widgets.status import _StatusLine

_RATE_FILE = "class_sheet_rate.json"
_COMPARE_FILE = "class_sheet_compare.json"
# the answer buttons: plain words (each is the button's name a screen reader reads) and the
# answer the sheet keeps
_ANSWERS = (("first is better", "first"), ("can't decide", "none"),
            ("second is better", "second"))
_ANSWER_TIPS = ("the first version sounds better",
                "no difference you can hear, or you cannot choose",
                "the second version sounds better")
_RATE_TITLE = "Class rating round: how fluent is each sentence, 0-10?"
_COMPARE_TITLE = "Class comparison round: which version sounds better?"


class _ClassScores(ScoreSheet):
    """A class sheet seen as the :class:`ScoreSheet` the sixth-rater panel drives: clip ``k``
    is the activity's item ``order[k]``. The scores live in the class sheet alone (one source
    of truth), and ScoreSheet's checks stay; saved and loaded in the class sheet's format."""

    def __init__(self, sheet: ClassSheet):   # not ScoreSheet's: it would keep scores of its own
        self.class_sheet = sheet
        self.items = tuple(sheet.activity.items[index] for index in sheet.order)

    @property
    def scores(self) -> list:
        return [self.class_sheet.answers[index] for index in self.class_sheet.order]

    def _set(self, clip: int, score: int | None) -> None:
        self.class_sheet.answer(self.class_sheet.order[clip], score)

    def save(self, path) -> Path:
        return self.class_sheet.save(path)

    def load(self, path) -> list[str]:
        return self.class_sheet.load(path)


class ClassCompare:
    """The comparison round, one pair at a time, in this student's order: play the first and
    the second version, press an answer (saved at once), move on with previous / next. The
    answers live in :attr:`sheet` (a :class:`~course_lib.class_panel.sheets.ClassSheet`);
    :attr:`position` is the pair shown (0-based in the student's order, shown from 1)."""

    def __init__(self, activity: CompareActivity, identity: Identity, folder="."):
        if not isinstance(activity, CompareActivity):
            raise TypeError(f"activity: expected a CompareActivity, got "
                            f"{type(activity).__name__}")
        self.sheet = ClassSheet(activity, identity)
        self.path = _sheet_path(folder, _COMPARE_FILE)
        self.keeper = _SheetFile(self.sheet, lambda: (self.sheet.n_answered,
                                                      len(self.sheet.answers)),
                                 ("answers", "answered"), autosave=True)
        self.position = 0
        self._setting = False          # True while show() sets the buttons (not the student)
        self.heading = _StatusLine()   # a live region: the pair after next or previous is read out
        self.players = {name: W.Audio(format="wav", autoplay=False, loop=False,
                                      layout=W.Layout(width="300px"))
                        for name in ("first", "second")}
        self.answer_buttons = W.ToggleButtons(
            options=list(_ANSWERS), value=None, description="answer",
            tooltips=list(_ANSWER_TIPS), style={"button_width": "140px"})
        self.previous = W.Button(description="previous pair")
        self.next = W.Button(description="next pair")
        self.status = _StatusLine()    # announced by screen readers (a live region)
        for widget, name in ((self.heading, "heading"), (self.status, "status")):
            widget.add_class(f"course-compare-{name}")       # for the browser test
        self.answer_buttons.observe(self._on_answer, names="value")
        self.previous.on_click(lambda _b: self.show(self.position - 1))
        self.next.on_click(lambda _b: self.show(self.position + 1))
        self.widget = W.VBox(self._rows(activity, identity))
        self.widget.add_class("course-class-compare")
        self.show(0)
        if self.path.is_file():        # a re-run cell takes up the saved sheet
            self._say(*self.keeper.load(self.path))
            self.show(self.position)

    def _rows(self, activity: CompareActivity, identity: Identity) -> list:
        players = W.HBox([W.HTML("<b>first</b>"), self.players["first"],
                          W.HTML("<b>second</b>"), self.players["second"]],
                         layout=W.Layout(align_items="center"))
        sound = (f"Both play the same sound through two equaliser settings: "
                 f"{html.escape(CLIP_TRANSCRIPTS[activity.clip])}.")
        return [W.HTML(f"<b>{_COMPARE_TITLE}</b>"), W.HTML(_who(identity)), self.heading,
                players, W.HTML(sound), self.answer_buttons,
                W.HBox([self.previous, self.next]), self.status,
                _SliderNames()]       # hidden: the answer buttons' pressed state

    def show(self, position: int) -> None:
        """Go to pair ``position`` of this student's order (wrapping around), shown as pair
        ``position + 1``."""
        if isinstance(position, bool) or not isinstance(position, int):
            raise ValueError(f"position: expected a whole number, got {position!r}")
        self.position = position % len(self.sheet.order)
        index = self.sheet.order[self.position]
        for player, version in zip(self.players.values(), self.sheet.activity.versions(index)):
            player.value = wav_bytes(version)
        self._setting = True
        self.answer_buttons.value = self.sheet.answers[index]
        self._setting = False
        n = len(self.sheet.order)
        self.heading.value = (f"Pair {self.position + 1} of {n} "
                              f"({self.sheet.n_answered} of {n} answered)")

    def answer(self, value) -> None:
        """Answer the pair shown: "first", "second", "none" (can't decide), or None to take the
        answer back; saved at once. A value that is none of these is refused, naming
        ``value``, and nothing changes."""
        self.sheet.answer(self.sheet.order[self.position], value)
        self.keeper.changed()
        saved, error = self.keeper.save(self.path)
        said = dict((answer, label) for label, answer in _ANSWERS).get(value, "no answer")
        self._say(f"pair {self.position + 1}: {said}; {saved}", error)
        self.show(self.position)

    def progress(self) -> str:
        """How many pairs are answered and whether the file holds them all (one line)."""
        return self.keeper.progress(self.path)

    def _on_answer(self, change) -> None:
        if not self._setting:
            self.answer(change["new"])

    def _say(self, text: str, error: bool = False) -> None:
        colour = "#b00020" if error else "#1b5e20"
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    def _ipython_display_(self) -> None:
        display(self.widget)


def _who(identity: Identity) -> str:
    return (f"You take part as <b>{html.escape(identity.pseudonym)}</b>, a pseudonym: your "
            "name is not on the sheet.")


def _sheet_path(folder, name: str) -> Path:
    """The activity's file ``name`` in ``folder``, which must be a folder that exists."""
    if not isinstance(folder, (str, Path)) or not Path(folder).is_dir():
        raise ValueError(f"folder: expected an existing folder, got {folder!r}")
    return Path(folder) / name


def _identity(identity: Identity | None) -> Identity:
    """``identity``, or this student's own (drawn on first use); a damaged pseudonym file is
    named under ``identity`` with what to do."""
    if identity is not None:
        return identity
    try:
        return my_identity()
    except ValueError as err:
        raise (renamed_error(err, "folder", "identity") or err) from None


def class_rate(seed: int = DEFAULT_SEED, n_clips: int | None = None, *, clips="scale",
               folder=".", identity: Identity | None = None) -> RateYourself:
    """The class rating round's panel (module docstring): the sentences of
    ``rate_activity(seed, n_clips, clips=clips)`` in this student's order, saved to
    ``class_sheet_rate.json`` in ``folder`` at every score. ``identity``: whose sheet it is
    (default: :func:`~course_lib.class_panel.sheets.my_identity`)."""
    path = _sheet_path(folder, _RATE_FILE)
    identity = _identity(identity)
    panel = load_speechocean762("fluency")
    sheet = _ClassScores(ClassSheet(rate_activity(seed, n_clips, clips=clips, panel=panel),
                                    identity))
    return RateYourself(path, clips=panel.clips(sheet.items), sheet=sheet, autosave=True,
                        title=_RATE_TITLE, intro=_who(identity))


def class_compare(seed: int = DEFAULT_SEED, *, folder=".",
                  identity: Identity | None = None) -> ClassCompare:
    """The class comparison round's panel (module docstring): the pairs of
    ``compare_activity(seed)`` in this student's order, saved to ``class_sheet_compare.json``
    in ``folder`` at every answer. ``identity`` as for :func:`class_rate`."""
    _sheet_path(folder, _COMPARE_FILE)          # a bad folder is named before a pseudonym is drawn
    return ClassCompare(compare_activity(seed), _identity(identity), folder)
