"""Be the sixth rater: listen, score, save, and compare yourself with the panel (Unit 5)."""

from __future__ import annotations

import html
from pathlib import Path

import ipywidgets as W
from IPython.display import display

from course_lib.data.fluency import load_fluency
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.plotting.rate_yourself import listener_figure
from course_lib.raters.rate_yourself import ScoreSheet, panel_with_listener
from course_lib.stimuli import _wav_bytes
from course_lib.widgets.base import _figure_image

_NOT_SCORED = "–"
_TITLE = "Be the sixth rater: how fluent is each sentence, 0-10?"
_DATA_SETS = {"speechocean762": lambda: load_speechocean762("fluency"),  # five real experts
             "fluency": load_fluency}                                   # five simulated raters


class RateYourself:
    """One clip at a time: play it, click a score (or "–" to take it back), move on. ``save`` /
    ``load`` keep the scores in a file you choose; "compare" fits the panel models with you as
    the sixth rater. Errors show as one line; the scores given so far are kept."""

    def __init__(self, file="my_fluency_scores.json", data_set: str = "speechocean762"):
        if data_set not in _DATA_SETS:
            raise ValueError(f"data_set: expected one of {sorted(_DATA_SETS)}, got {data_set!r}")
        self.panel = _DATA_SETS[data_set]()
        self.clips = self.panel.clips_to_rate()
        self.sheet = ScoreSheet([clip.item for clip in self.clips])
        self.clip = 0
        self.result = None
        self.heading = W.HTML()
        self.audio = W.Audio(format="wav", autoplay=False, loop=False)
        self.score_buttons = W.ToggleButtons(
            options=[_NOT_SCORED] + [str(s) for s in range(11)], value=_NOT_SCORED,
            description="fluency", style={"button_width": "40px"})
        self.previous, self.next = W.Button(description="◀ previous"), W.Button(
            description="next ▶")
        self.file = W.Text(value=str(file), description="file", layout=W.Layout(width="360px"))
        self.save_button, self.load_button = W.Button(description="save"), W.Button(
            description="load")
        self.compare_button = W.Button(description="compare me with the panel",
                                       layout=W.Layout(width="220px"))
        self.status = W.HTML()
        self.output = W.Output()
        for widget, name in ((self.heading, "heading"), (self.status, "status"),
                             (self.output, "output")):
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
                              self.compare_button, self.status, self.output])
        self.show(0)

    def show(self, clip: int) -> None:
        """Go to clip number ``clip`` (wrapping around)."""
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
        if getattr(self, "_setting", False):
            return
        value = None if change["new"] == _NOT_SCORED else int(change["new"])
        self.sheet.score(self.clip, value)
        self._say(f"clip {self.clip + 1}: {change['new']}")
        self.show(self.clip)

    def save(self) -> None:
        try:
            path = self.sheet.save(Path(self.file.value).expanduser())
        except OSError as err:
            self._say(f"file: could not save ({err.strerror or err}); your scores are kept",
                      error=True)
            return
        self._say(f"saved {self.sheet.n_scored} scores to {html.escape(str(path))}")

    def load(self) -> None:
        try:
            problems = self.sheet.load(Path(self.file.value).expanduser())
        except ValueError as err:
            self._say(f"{err}; your scores are kept", error=True)
            return
        self.show(self.clip)
        self._say("loaded" + ("" if not problems else ": " + "; ".join(problems)),
                  error=bool(problems))

    def compare(self) -> None:
        try:
            self.result = panel_with_listener(self.panel, self.sheet)
        except ValueError as err:
            self._say(str(err), error=True)
            return
        self._say(f"fitted with your {self.sheet.n_scored} scores as rater 6")
        self._draw()

    def _draw(self) -> None:
        rated = list(self.result.rated_items)
        item = self.clips[self.clip].item
        with self.output:
            self.output.clear_output(wait=True)
            if item not in rated:
                display(W.HTML("This clip was not scored when you compared; score it and "
                               "compare again."))
                return
            clip = rated.index(item)
            display(_figure_image(listener_figure(self.result, clip,
                                                 self.sheet.scores[self.clip])))

    def _say(self, text: str, error: bool = False) -> None:
        colour = "#b00020" if error else "#1b5e20"
        self.status.value = f'<span style="color:{colour}">{html.escape(text)}</span>'

    def _ipython_display_(self) -> None:
        display(self.widget)


def rate_yourself(file="my_fluency_scores.json", data_set: str = "speechocean762"
                  ) -> RateYourself:
    """The sixth-rater panel (see :class:`RateYourself`); ``file`` is where save/load go;
    ``data_set``: "speechocean762" (the real experts) or "fluency" (the synthetic set)."""
    return RateYourself(file, data_set)
