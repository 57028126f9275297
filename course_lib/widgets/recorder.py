"""A microphone recorder for the notebook: the student's own voice as course data (Units 1-3).

:class:`Recorder` is an anywidget (a Jupyter widget whose front end is the small ES module
``_ESM`` of :mod:`course_lib.widgets._recorder_front_end`, with no build step). In the browser
it asks for the microphone with ``navigator.mediaDevices.getUserMedia``, records a clip of at
most ``max_seconds`` with the ``MediaRecorder`` API, decodes it with the Web Audio API and draws
its waveform. The decoded samples (float32 at the browser's own rate, often 48 kHz) go to the
kernel as one binary message; Python then (with :mod:`course_lib.recording`)

1. resamples them to the course's rate (8000 Hz, the digits' rate,
   :func:`~course_lib.recording.resample`);
2. trims the silence before and after the word (:func:`~course_lib.recording.trim_silence`);
3. keeps the take (``recorder.samples`` is the newest, ``recorder.takes`` all of them, with
   their prompts), calls the functions registered with :meth:`Recorder.on_recording`, and sends
   the trimmed take back as a WAV so that the player plays exactly what Python kept.

The audio travels only between the browser tab and the notebook's kernel (the student's own
computer when the course runs locally; the server when it runs on a JupyterHub or Binder), stays
in the kernel's memory, and is written to disk only by :meth:`Recorder.save` /
:meth:`Recorder.save_all`, to a path the student names.

When there is no microphone (no ``getUserMedia``: a page served over plain HTTP from another
machine is not a secure context; a denied prompt; no input device) the widget says so in one
line and records nothing; ``recorder.samples`` stays ``None``, so the notebook's next cells
take a shipped clip instead (see :meth:`Recorder.samples_or`). On a page without a kernel (a
static HTML export) the widget's plain-text form is that same one line.

:meth:`Recorder.receive` is the Python half on its own (the browser calls it through the
message); tests and notebooks may call it directly with any samples and rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import anywidget
import numpy as np
import traitlets as t

from course_lib.recording import (SAMPLE_RATE, EmptyRecording, Take, write_wav, resample,
                                  trim_silence)
from course_lib.stimuli import wav_bytes
from course_lib.validation import as_positive_float, as_positive_int
from course_lib.widgets._recorder_front_end import _CSS, _ESM

_MAX_SECONDS_LIMIT = 30.0    # s: the longest clip a recorder may be asked for
_NO_KERNEL_LINE = ("Microphone recorder: needs JupyterLab with a running kernel; without one the "
                  "cells below use the course's shipped recordings.")


class Recorder(anywidget.AnyWidget):
    """Record short clips from the browser's microphone; the kernel gets them at 8000 Hz.

    Parameters
    ----------
    max_seconds:
        The longest take in seconds (recording stops by itself then; Stop ends it sooner).
    prompts:
        Optional words to ask for in turn ("zero", "zero", "one", ...): each kept take is
        labelled with the current prompt, then the widget moves on to the next. Back returns
        to the previous word; recording it again replaces that take.
    sample_rate:
        The rate of the samples Python keeps (default 8000 Hz, the course's digits).

    ``recorder.samples`` is the newest kept take (``None`` until one is kept), ``recorder.takes``
    every kept take as :class:`Take` (with ``prompts``, one slot per prompt, ``None`` where
    nothing is recorded yet), ``recorder.status`` the line the widget shows.
    """

    _esm = _ESM
    _css = _CSS
    max_seconds = t.Float(2.0).tag(sync=True)
    prompts = t.List(t.Unicode()).tag(sync=True)
    prompt_index = t.Int(0).tag(sync=True)
    status = t.Unicode("Press Record, say one word, then press Stop.").tag(sync=True)
    unavailable = t.Bool(False).tag(sync=True)

    def __init__(self, max_seconds: float = 2.0, *, prompts: Sequence[str] = (),
                 sample_rate: int = SAMPLE_RATE):
        max_seconds = as_positive_float(max_seconds, "max_seconds")
        if max_seconds > _MAX_SECONDS_LIMIT:
            raise ValueError(f"max_seconds: at most {_MAX_SECONDS_LIMIT:g} s (a recorder is for "
                             f"short words), got {max_seconds:g}")
        if isinstance(prompts, str) or not all(isinstance(p, str) and p for p in prompts):
            raise TypeError("prompts: expected a list of non-empty words, e.g. ['one', 'two']")
        self.sample_rate = as_positive_int(sample_rate, "sample_rate", minimum=1000,
                                           maximum=96_000)
        super().__init__(max_seconds=max_seconds, prompts=list(prompts))
        self._takes: list[Take] = []
        self._slots: list[Take | None] = [None] * len(self.prompts)
        self._callbacks: list[Callable[[np.ndarray], object]] = []
        self.on_msg(self._handle_message)

    # ----- what the notebook reads ------------------------------------------------------
    @property
    def samples(self) -> np.ndarray | None:
        """The newest kept take (trimmed, float64 at ``sample_rate``), or ``None``."""
        return self._takes[-1].samples if self._takes else None

    @property
    def takes(self) -> list[Take]:
        """Every kept take in the order recorded (re-recorded prompts included)."""
        return list(self._takes)

    @property
    def slots(self) -> list[Take | None]:
        """One entry per prompt: its newest take, or ``None`` while it is not recorded."""
        return list(self._slots)

    def samples_or(self, fallback) -> tuple[np.ndarray, bool]:
        """(the newest take, True), or (``fallback``, False) when nothing was recorded: the
        pattern for a cell that must run without a microphone."""
        if self.samples is None:
            return np.asarray(fallback, dtype=np.float64), False
        return self.samples, True

    def on_recording(self, callback: Callable[[np.ndarray], object]) -> None:
        """Call ``callback(samples)`` with every newly kept take."""
        if not callable(callback):
            raise TypeError(f"callback: expected a function of the samples, got "
                            f"{type(callback).__name__}")
        self._callbacks.append(callback)

    # ----- the Python half of a recording -----------------------------------------------
    def receive(self, samples, sample_rate: int) -> Take | None:
        """Take in one recording (``samples`` at ``sample_rate`` Hz): resample, trim, keep.

        Returns the kept :class:`Take`, or ``None`` when the take was empty or silent; then the
        widget's status line says why, and every earlier take stays as it was."""
        x = resample(samples, sample_rate, self.sample_rate)
        x = np.clip(x, -1.0, 1.0)      # the browser's float samples may overshoot full scale
        try:
            kept, start, end = trim_silence(x, self.sample_rate)
        except EmptyRecording as err:
            text = str(err)
            self.status = text[0].upper() + text[1:] + "."
            return None
        prompt = ""
        index = self.prompt_index
        if self.prompts:
            index = min(index, len(self.prompts) - 1)
            prompt = self.prompts[index]
        take = Take(samples=kept, sample_rate=self.sample_rate, prompt=prompt, untrimmed=x,
                    start_s=start, end_s=end)
        self._takes.append(take)
        said = f'"{prompt}": ' if prompt else ""
        self.status = (f"Kept {said}{take.duration:.2f} s of speech out of "
                       f"{len(x) / self.sample_rate:.2f} s (take {len(self._takes)}).")
        if self.prompts:
            self._slots[index] = take
            self.prompt_index = min(index + 1, len(self.prompts))
        self.send({"kind": "kept", "start_s": start, "end_s": end,
                   "untrimmed_s": len(x) / self.sample_rate},
                  buffers=[wav_bytes(kept, self.sample_rate)])
        for callback in self._callbacks:
            callback(kept)
        return take

    def _handle_message(self, _widget, content, buffers) -> None:
        kind = content.get("kind") if isinstance(content, dict) else None
        if kind == "recording":
            if not buffers:
                self.status = "Nothing kept: the browser sent no samples; record again."
                return
            samples = np.frombuffer(bytes(buffers[0]), dtype="<f4")
            try:
                self.receive(samples, int(content.get("sample_rate", 0)))
            except (TypeError, ValueError) as err:
                self.status = f"Nothing kept: {err}."
        elif kind == "back" and self.prompts:
            self.prompt_index = max(0, self.prompt_index - 1)

    # ----- saving ----------------------------------------------------------------------------
    def save(self, path) -> Path:
        """Write the newest take to ``path`` (a new ``.wav`` file; its folder must exist) as
        16-bit PCM at ``sample_rate``; returns the path."""
        if self.samples is None:
            raise ValueError("nothing to save: no take has been kept yet")
        return write_wav(path, self._takes[-1])

    def save_all(self, folder) -> list[Path]:
        """Write every prompt's newest take (or, without prompts, every take) into ``folder``
        (which must exist) as ``NN_word.wav``; returns the paths."""
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"folder: {folder} is not an existing folder")
        chosen = self._slots if self.prompts else self._takes
        paths = []
        for k, take in enumerate(chosen):
            if take is not None:
                name = f"{k:02d}_{take.prompt or 'take'}.wav"
                paths.append(write_wav(folder / name, take, overwrite=True))
        return paths

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, tuple):
            data, metadata = bundle
        else:
            data, metadata = (bundle or {}), {}
        data = dict(data)
        data["text/plain"] = _NO_KERNEL_LINE
        return data, metadata


def _recorded_or_shipped(recorder: Recorder | None, shipped) -> tuple[np.ndarray, str]:
    """The recorder's newest take and "your recording", or ``shipped`` and "a shipped clip"
    when there is no recorder or nothing was kept."""
    if recorder is not None and recorder.samples is not None:
        return recorder.samples, "your recording"
    return np.asarray(shipped, dtype=np.float64), "a shipped clip"


__all__ = ["Recorder"]
