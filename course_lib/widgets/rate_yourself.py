"""Be the sixth rater: listen, score, save, and compare yourself with the panel (Unit 5)."""

from __future__ import annotations

import html
from pathlib import Path

import ipywidgets as W
from IPython.display import display

from course_lib.data.fluency import load_fluency
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.metrics import rmse
from course_lib.plotting.rate_yourself import listener_figure
from course_lib.raters.rate_yourself import ScoreSheet, panel_with_listener
from course_lib.stimuli import _wav_bytes
from course_lib.widgets.base import _figure_image
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
    the panel starts, and save never replaces a file the panel has not loaded or written
    without asking once. "compare" fits the panel models with you as the sixth rater; a score
    changed afterwards is marked in place until you compare again. Clips are numbered from 1
    everywhere. Errors show as one line; the scores given so far are kept."""

    def __init__(self, file="my_fluency_scores.json", data_set: str = "speechocean762"):
        if data_set not in _DATA_SETS:
            raise ValueError(f"data_set: expected one of {sorted(_DATA_SETS)}, got {data_set!r}")
        self.panel = _DATA_SETS[data_set]()
        self.hidden_truth = data_set in _HIDDEN_TRUTH
        self.clips = self.panel.clips_to_rate()
        self.sheet = ScoreSheet([clip.item for clip in self.clips])
        self.clip = 0
        self.result = None
        self._setting = False        # True while show() sets the buttons (not the listener)
        self._known_file = None      # the file the sheet was last loaded from or saved to
        self._replace = None         # a file save refused once: saving again replaces it
        self.heading = W.HTML()
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
        self.note = W.HTML()         # above the figure: says when it is not the current sheet
        self.output = W.Output()
        for widget, name in ((self.heading, "heading"), (self.status, "status"),
                             (self.note, "note"), (self.output, "output")):
            widget.add_class(f"course-rate-{name}")       # for the browser test
        self.score_buttons.observe(self._on_score, names="value")
        self.previous.on_click(lambda _b: self.show(self.clip - 1))
        self.next.on_click(lambda _b: self.show(self.clip + 1))
        self.save_button.on_click(lambda _b: self.save())
        self.load_button.on_click(lambda _b: self.load())
        self.compare_button.on_click(lambda _b: self.compare())
        self.widget = W.VBox([W.HTML(f"<b>{_TITLE}</b>"), self.heading, self.audio, self.score_buttons,
                              W.HBox([self.previous, self.next]),
                              W.HBox([self.file, self.save_button, self.load_button]),
                              self.compare_button, self.status, self.note, self.output,
                              _SliderNames()])   # hidden: the score buttons' pressed state
        self.widget.add_class("course-rate-yourself")
        self.show(0)
        if Path(self.file.value).expanduser().is_file():   # a re-run cell resumes the sheet
            self.load()

    def show(self, clip: int) -> None:
        """Go to clip index ``clip`` (wrapping around); it is shown as clip ``clip + 1``."""
        self.clip = clip % len(self.clips)
        sound = self.clips[self.clip]
        self.audio.value = _wav_bytes(sound.samples, sound.sample_rate)
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
        stale = " (not in the comparison below: compare again)" if self._changes() else ""
        self._say(f"clip {self.clip + 1}: {change['new']}{stale}")
        self.show(self.clip)

    def save(self) -> None:
        path = Path(self.file.value).expanduser()
        if path.is_file() and path.resolve() not in (self._known_file, self._replace):
            self._replace = path.resolve()
            self._say(f"file: {path} holds scores this panel has not loaded; press load to "
                      "take them, or save again to replace them", error=True)
            return
        try:
            self.sheet.save(path)
        except OSError as err:
            self._say(f"file: could not save ({err.strerror or err}); your scores are kept",
                      error=True)
            return
        self._known_file, self._replace = path.resolve(), None
        self._say(f"saved {self.sheet.n_scored} scores to {path}")

    def load(self) -> None:
        path = Path(self.file.value).expanduser()
        try:
            problems = self.sheet.load(path)
        except ValueError as err:
            self._say(f"{err}; your scores are kept", error=True)
            return
        # a file with entries the sheet could not take is not replaced without asking
        self._known_file = None if problems else path.resolve()
        self.show(self.clip)
        more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
        self._say(f"loaded {path}: {self.sheet.n_scored} of {len(self.clips)} scored"
                  + "".join(f"; {problem}" for problem in problems[:3]) + more,
                  error=bool(problems))

    def compare(self) -> None:
        try:
            result = panel_with_listener(self.panel, self.sheet)
        except ValueError as err:
            earlier = "; the comparison below is your earlier one" if self.result else ""
            self._say(f"{err}{earlier}", error=True)
            return
        self.result = result
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
        with self.output:
            self.output.clear_output(wait=True)
            display(_figure_image(listener_figure(self.result, self.clip, truth)))

    def _say(self, text: str, error: bool = False) -> None:
        colour = "#b00020" if error else "#1b5e20"
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    def _ipython_display_(self) -> None:
        display(self.widget)


def _shown(score) -> str:
    return _NOT_SCORED if score is None else f"{score:g}"


def rate_yourself(file="my_fluency_scores.json", data_set: str = "speechocean762"
                  ) -> RateYourself:
    """The sixth-rater panel (see :class:`RateYourself`); ``file`` is where save/load go;
    ``data_set``: "speechocean762" (the real experts) or "fluency" (the synthetic set, whose
    hidden true fluency the comparison shows)."""
    return RateYourself(file, data_set)
