"""Read a sentence aloud and see how speechocean762's five experts would score it (lecture 08).

:class:`PronunciationExplorer` puts the course recorder (at 16 kHz, the GOP scorer's rate) beside a
choice of sentence (one of the corpus's example sentences, or one you type) and, when you press
Stop, shows :class:`course_lib.pronunciation.panel.ExpertPanel`'s prediction: its notes first (a
sentence that did not align, a recording far from the ones the experts scored, what was done to
the audio), then the distribution of one expert's score with the 90% interval of the five
experts' mean over the rubric's bands, the words and phones by goodness of pronunciation, and
the same as text. Above it the panel names its aspect and rubric, says how accurate it is on
speakers it never heard, and where the recording goes. Without a microphone, "score the shipped
recording" scores the corpus's own recording of the chosen sentence. Errors show as one line;
the last prediction stays until a new one replaces it, and a take that could not be scored is
kept by the recorder (the line says how to save it). A recording that did not align gets one
line saying why and what to do, and no figure: the panel has no view of it. Each phone whose
predicted expert score flags it as mispronounced is marked in the figure and listed in the
text, with the flag's precision, recall and base rate; the status line says the count with its
recall and precision, whether or not any phone is flagged. Scoring takes a second or two: the
status line says "Scoring…" at once (a live region, read out) and the sentence, the typed text
and the shipped recording's button are disabled until the result is drawn, or the error said;
then they are as they were (the recorder stays as it is: a take made meanwhile is scored next).
"""

from __future__ import annotations

import contextlib
import html
import time
from collections.abc import Sequence

import ipywidgets as W
from IPython.display import display

from course_lib.data import DataError
from course_lib.validation import warn_deprecated
from course_lib.pronunciation.panel import (POPULATION_CAVEAT, ExpertPanel, PanelPrediction,
                                           rubric_text)
from course_lib.plotting.pronunciation import panel_description, panel_figure
from course_lib.widgets.base import _disabled, _drawn, _show_in
from course_lib.widgets.recorder import Recorder
from course_lib.widgets.slider_names import _SliderNames
from course_lib.widgets.status import _StatusLine

_RATE = 16000
# read by a screen reader, not drawn: the usual visually hidden pattern (no display:none)
_SCREEN_READER_ONLY = ("position:absolute;width:1px;height:1px;margin:-1px;padding:0;"
                       "overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0")
_OWN = "(type your own sentence below)"
_TITLE = "Read a sentence aloud: how would the five experts score its accuracy?"
# checked against widgets.recorder: the take travels from the browser to the kernel, is kept in
# the kernel's memory and written to disk only by Recorder.save / save_all
_PRIVACY = ("Where your voice goes: the recording goes to the machine that runs this "
            "notebook's kernel (your computer when you run the course locally, the hub's or "
            "Binder's server otherwise), is scored there and kept in the kernel's memory until "
            "the kernel stops; it is not written to disk unless you save it.")


class PronunciationExplorer:
    """The recorder, the sentence and the expert panel's view (module docstring).

    ``prediction`` is the newest :class:`PanelPrediction` (``None`` before the first), ``image``
    its figure as shown, ``last_error`` the error of the newest attempt (``None`` when it
    worked), ``seconds`` how long the newest scoring took from the samples to the figure.
    """

    def __init__(self, panel: ExpertPanel, sentences: Sequence, *, max_seconds: float = 15.0):
        if not isinstance(panel, ExpertPanel):
            raise TypeError(f"panel: expected an ExpertPanel, got {type(panel).__name__}")
        self.panel = panel
        self._clips = {clip.text.lower(): clip for clip in sentences}
        if not self._clips:
            raise ValueError("sentences: expected at least one example clip")
        self.prediction: PanelPrediction | None = None
        self.last_error: Exception | None = None
        self.seconds: float | None = None
        self.image = None             # the newest figure, as the PNG shown
        self._busy = False            # scoring: the controls are disabled (_scoring)
        self.sentence = W.Dropdown(options=[*self._clips, _OWN], description="sentence",
                                   layout=W.Layout(width="640px"))
        self.own_text = W.Text(description="your text", placeholder="words the dictionary knows",
                               disabled=True, layout=W.Layout(width="640px"))
        self.recorder = Recorder(max_seconds=max_seconds, sample_rate=_RATE)
        self.recorder.status = "Press Record, read the sentence aloud, then press Stop."
        self.shipped = W.Button(description="score the shipped recording",
                                layout=W.Layout(width="240px"))
        self.status = _StatusLine()   # a live region: each new line is announced
        self.about = W.HTML(_about(panel))
        # live regions: the notes and the word list of a new score are read out
        self.notes_view = _StatusLine()
        self.output = W.Output()
        self.text_view = _StatusLine()
        self._slider_names = _SliderNames()
        # class names a browser test and a stylesheet can find
        for widget, name in ((self.status, "status"), (self.about, "about"),
                             (self.notes_view, "notes"), (self.output, "figure"),
                             (self.text_view, "summary")):
            widget.add_class(f"course-pronunciation-{name}")
        self.sentence.observe(self._on_sentence, names="value")
        self.recorder.on_recording(lambda samples: self.score(samples, _RATE, take=True))
        self.shipped.on_click(lambda _button: self.score_shipped())
        self._say("Choose a sentence, then record it, or score the corpus's own recording.")

    def text(self) -> str:
        """The sentence to score: the chosen one, or the typed one."""
        return self.own_text.value if self.sentence.value == _OWN else self.sentence.value

    def _on_sentence(self, change) -> None:
        own = change["new"] == _OWN
        self.own_text.disabled = not own
        self.shipped.disabled = own
        self._say("Type your sentence, then record it." if own else
                  "Record this sentence, or score the corpus's own recording of it.")

    def _say(self, line: str, error: bool = False) -> None:
        colour = "#b00020" if error else "inherit"
        self.status.value = f'<span style="color:{colour}">{html.escape(line)}</span>'

    def score_shipped(self) -> PanelPrediction | None:
        """Score the corpus's recording of the chosen sentence (no microphone needed)."""
        clip = self._clips.get(self.sentence.value)
        if clip is None:
            self._say("There is no shipped recording of a typed sentence: record it.", True)
            return None
        with self._scoring(focus=self.shipped):
            return self.score(clip.samples, clip.sample_rate)

    @contextlib.contextmanager
    def _scoring(self, focus: W.Button | None = None):
        """"Scoring…" in the status line, and the sentence, the typed text and the button
        disabled while the block runs; then each as it was (also after an error), the keyboard
        focus back on ``focus`` (a disabled button loses it). Nested blocks change nothing."""
        if self._busy:
            yield
            return
        self._busy = True
        self._say("Scoring…")
        try:
            with _disabled((self.sentence, self.own_text, self.shipped), focus=focus):
                yield
        finally:
            self._busy = False

    def score(self, samples, sample_rate: int, *, take: bool = False) -> PanelPrediction | None:
        """Score ``samples`` of :meth:`text` and show the panel's view; on bad input, say why in
        one line and keep the previous view (``take``: the samples are the recorder's newest
        take, which stays kept, and the line says how to save it)."""
        with self._scoring():
            return self._score(samples, sample_rate, take)

    def _score(self, samples, sample_rate: int, take: bool) -> PanelPrediction | None:
        started = time.perf_counter()
        kept = (f" Your recording is kept (take {len(self.recorder.takes)}): "
                "recorder.save('my_take.wav') writes it to a file." if take else "")
        try:
            prediction = self.panel.score(samples, sample_rate, self.text())
        except (ValueError, RuntimeError, OSError, DataError) as err:
            # a take's callback must not raise: the recorder would report the kept take as lost
            self.last_error = err
            self._say(f"Not scored: {err}.{kept}", True)
            return None
        self.prediction, self.last_error = prediction, None
        self.seconds = time.perf_counter() - started
        if not prediction.aligned:
            # no figure and no numbers: the panel has no view of this recording
            self.notes_view.value = f"<p>{html.escape(prediction.not_aligned_line())}</p>"
            self.image = None
            _show_in(self.output)
            self.text_view.value = ""
            self._say(f"{prediction.not_aligned_line()}{kept}", True)
            return prediction
        # notes first: they say whether the numbers below are to be read at all
        self.notes_view.value = "".join(f"<p><b>Note:</b> {html.escape(note)}.</p>"
                                        for note in prediction.notes)
        self.image = _drawn(lambda: panel_figure(prediction), panel_description(prediction))
        _show_in(self.output, self.image.output())
        self.text_view.value = _summary_html(prediction)
        self.seconds = time.perf_counter() - started
        low, high = prediction.interval_90
        self._say(f"Scored in {self.seconds:.1f} s: panel mean {prediction.mean:.1f}, the five "
                  f"experts' mean {low:.1f}-{high:.1f} (90%); {prediction.phones_flagged_line()}"
                  + (f"; {len(prediction.notes)} note(s) above the figure"
                     if prediction.notes else ""))
        return prediction

    def _children(self) -> list:
        """The panel's parts from top to bottom: the notes above the figure."""
        # hidden, last: keeps the dropdown's arrow keys on its value in JupyterLab
        return [W.HTML(f"<b>{_TITLE}</b>"), self.about, self.sentence, self.own_text,
                self.recorder, self.shipped, self.status, self.notes_view, self.output,
                self.text_view, self._slider_names]

    def _ipython_display_(self) -> None:
        display(W.VBox(self._children()))



def PronunciationPanel(panel: ExpertPanel, sentences: Sequence, *,
                       max_seconds: float = 15.0) -> PronunciationExplorer:
    """Deprecated, removed in the next release: :class:`PronunciationExplorer` (issue 60: a
    panel is a set of raters, and a widget is an explorer; lecture 08 as released called it
    so)."""
    warn_deprecated("PronunciationPanel", "PronunciationExplorer")
    return PronunciationExplorer(panel, sentences, max_seconds=max_seconds)

def _about(panel: ExpertPanel) -> str:
    """The aspect and its rubric, how accurate the panel is, and where the recording goes."""
    return "".join(f"<p>{html.escape(text)}</p>" for text in (
        f"Aspect: accuracy of pronunciation, 0-10, as speechocean762's experts score it "
        f"({rubric_text()}).",
        f"How far to trust it. {panel.evaluation.statement()} {POPULATION_CAVEAT}", _PRIVACY))


def _summary_html(prediction: PanelPrediction) -> str:
    """The prediction's text beside the figure, its bar chart of one expert's score drawn in
    '#' for the eye only (``aria-hidden``): the live region reads the same probabilities in
    words instead ("score 7 of 10: 30 %", the scores that round to 0 % in one phrase), never a run
    of '#'."""
    lines = prediction.summary(preamble=False).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("One expert's score")) + 1
    last = first + prediction.distribution.size
    percent = [round(100 * float(p)) for p in prediction.distribution]
    rare = [str(score) for score, share in enumerate(percent) if share == 0]
    in_words = "; ".join([f"score {score} of 10: {share} %" for score, share in enumerate(percent)
                          if share > 0]
                         + ([f"score{'s' * (len(rare) > 1)} {', '.join(rare)}: below 0.5 %"]
                            if rare else [])) + "."
    return ("<pre>" + html.escape("\n".join(lines[:first]))
            + '\n<span aria-hidden="true">' + html.escape("\n".join(lines[first:last]))
            + f'</span><span style="{_SCREEN_READER_ONLY}"> {html.escape(in_words)}</span>\n'
            + html.escape("\n".join(lines[last:])) + "</pre>")
