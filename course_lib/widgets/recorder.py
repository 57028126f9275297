"""A microphone recorder for the notebook: the student's own voice as course data (Units 1-3).

:class:`Recorder` is an anywidget (a Jupyter widget whose front end is the small ES module
:data:`_ESM` below, with no build step). In the browser it asks for the microphone with
``navigator.mediaDevices.getUserMedia``, records a clip of at most ``max_seconds`` with the
``MediaRecorder`` API, decodes it with the Web Audio API and draws its waveform. The decoded
samples (float32 at the browser's own rate, often 48 kHz) go to the kernel as one binary
message; Python then (with :mod:`course_lib.recording`)

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

from course_lib.recording import (_SAMPLE_RATE, EmptyRecording, Take, _write_wav, resample,
                                  trim_silence)
from course_lib.stimuli import _wav_bytes
from course_lib.validation import _as_positive_float, _as_positive_int

_MAX_SECONDS_LIMIT = 30.0    # s: the longest clip a recorder may be asked for
_NO_KERNEL_LINE = ("Microphone recorder: needs JupyterLab with a running kernel; without one the "
                  "cells below use the course's shipped recordings.")


# The front end: plain JavaScript run by anywidget in the browser (no libraries, no build).
_ESM = r"""
const FAIL = {
  insecure: "No microphone here: the browser allows one only on a secure page (https or this " +
            "computer's own JupyterLab); the cells below use the shipped recordings.",
  NotAllowedError: "Microphone permission was denied; allow it in the browser's address bar " +
                   "and press Record again, or go on: the cells below use the shipped recordings.",
  NotFoundError: "No microphone was found; the cells below use the shipped recordings.",
  other: "The microphone could not be opened (%s); the cells below use the shipped recordings.",
};

function failure(err) {
  if (err && FAIL[err.name]) return FAIL[err.name];
  if (err && err.name === "SecurityError") return FAIL.insecure;
  return FAIL.other.replace("%s", (err && (err.name || err.message)) || String(err));
}

function drawWave(canvas, samples, kept) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = "#f4f4f4";
  ctx.fillRect(0, 0, w, h);
  if (!samples || samples.length === 0) return;
  if (kept) {
    ctx.fillStyle = "#dcebf7";
    ctx.fillRect(kept[0] * w, 0, (kept[1] - kept[0]) * w, h);
    // the shading alone is 1.1:1 against the background; dark edges mark the kept part at 3:1+
    ctx.fillStyle = "#0b4f8a";
    ctx.fillRect(kept[0] * w, 0, 2, h);
    ctx.fillRect(kept[1] * w - 2, 0, 2, h);
  }
  ctx.strokeStyle = "#1f77b4";
  ctx.beginPath();
  const per = Math.max(1, Math.floor(samples.length / w));
  for (let x = 0; x < w; x++) {
    let lo = 0, hi = 0;
    const from = Math.floor(x * samples.length / w);
    for (let k = from; k < Math.min(samples.length, from + per); k++) {
      lo = Math.min(lo, samples[k]); hi = Math.max(hi, samples[k]);
    }
    ctx.moveTo(x + 0.5, h / 2 - hi * h / 2);
    ctx.lineTo(x + 0.5, h / 2 - lo * h / 2 + 1);
  }
  ctx.stroke();
}

function render({ model, el }) {
  el.classList.add("course-recorder");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", "Microphone recorder");
  const prompt = document.createElement("div");
  prompt.className = "course-recorder-prompt";
  const row = document.createElement("div");
  row.className = "course-recorder-row";
  const record = document.createElement("button");
  record.className = "jupyter-button course-recorder-record";
  const back = document.createElement("button");
  back.className = "jupyter-button course-recorder-back";
  back.textContent = "Back one word";
  const audio = document.createElement("audio");
  audio.controls = true;
  audio.className = "course-recorder-player";
  audio.setAttribute("aria-label", "Play the kept take");
  row.append(record, back);   // the player joins the row once there is a take to play
  const canvas = document.createElement("canvas");
  canvas.width = 480; canvas.height = 80;
  canvas.className = "course-recorder-wave";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "Waveform: no take yet");
  const status = document.createElement("div");
  status.className = "course-recorder-status";
  // a live region that stays in place: a screen reader reads each new line as it is set
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  el.append(prompt, row, canvas, status);

  let recorder = null, stream = null, timer = null, lastWave = null, url = null;
  const busy = () => recorder !== null;

  function showPrompt() {
    const prompts = model.get("prompts");
    const i = model.get("prompt_index");
    if (prompts.length === 0) { prompt.textContent = ""; back.style.display = "none"; return; }
    back.style.display = "";
    const hadFocus = document.activeElement === back;
    back.disabled = busy() || i === 0;
    // a disabled button drops the keyboard focus to the page: hand it to Record instead
    if (hadFocus && back.disabled) record.focus();
    prompt.textContent = i < prompts.length
      ? `Say "${prompts[i]}" (word ${i + 1} of ${prompts.length})`
      : `All ${prompts.length} words recorded; press Record to replace the last one, or Back.`;
  }
  function showButton() {
    record.textContent = busy() ? "Stop" : "Record";
    record.disabled = model.get("unavailable");
    showPrompt();
  }
  function say(line) {
    model.set("status", line);
    model.save_changes();
  }
  status.textContent = model.get("status");
  model.on("change:status", () => { status.textContent = model.get("status"); });
  model.on("change:prompt_index", showPrompt);
  model.on("change:prompts", showPrompt);
  model.on("change:unavailable", showButton);
  drawWave(canvas, null, null);
  showButton();

  if (!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia &&
        window.MediaRecorder)) {
    model.set("unavailable", true);
    say(FAIL.insecure);
  }

  async function finish(chunks, mime) {
    const blob = new Blob(chunks, { type: mime });
    if (blob.size === 0) { say("Nothing was recorded (the microphone sent no sound); record again."); return; }
    let decoded;
    try {
      const context = new (window.AudioContext || window.webkitAudioContext)();
      decoded = await context.decodeAudioData(await blob.arrayBuffer());
      context.close();
    } catch (err) {
      say("The recording could not be decoded; record again."); return;
    }
    const samples = decoded.getChannelData(0);
    if (samples.length === 0) { say("Nothing was recorded; record again."); return; }
    lastWave = samples;
    drawWave(canvas, samples, null);
    canvas.setAttribute("aria-label", `Waveform of the last take, ${decoded.duration.toFixed(2)} s`);
    say(`Recorded ${decoded.duration.toFixed(2)} s; trimming it in Python...`);
    const copy = new Float32Array(samples);
    model.send({ kind: "recording", sample_rate: decoded.sampleRate }, undefined, [copy.buffer]);
  }

  async function start() {
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false,
                 channelCount: 1 } });
    } catch (err) {
      if (err && err.name !== "NotAllowedError") model.set("unavailable", true);
      say(failure(err));
      showButton();
      return;
    }
    const chunks = [];
    recorder = new MediaRecorder(stream);
    recorder.ondataavailable = (e) => { if (e.data && e.data.size > 0) chunks.push(e.data); };
    recorder.onstop = () => {
      const mime = recorder.mimeType;
      stream.getTracks().forEach((track) => track.stop());
      recorder = null; stream = null; clearTimeout(timer);
      showButton();
      finish(chunks, mime);
    };
    recorder.start();
    const limit = model.get("max_seconds");
    timer = setTimeout(() => { if (recorder) recorder.stop(); }, limit * 1000);
    say(`Recording (at most ${limit} s): say the word, then press Stop.`);
    showButton();
  }

  record.addEventListener("click", () => {
    if (busy()) { recorder.stop(); } else { start(); }
  });
  back.addEventListener("click", () => {
    model.send({ kind: "back" });
  });
  model.on("msg:custom", (msg, buffers) => {
    if (msg.kind !== "kept") return;
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([buffers[0]], { type: "audio/wav" }));
    audio.src = url;
    if (!audio.isConnected) row.append(audio);
    if (lastWave && msg.untrimmed_s > 0) {
      drawWave(canvas, lastWave, [msg.start_s / msg.untrimmed_s, msg.end_s / msg.untrimmed_s]);
      canvas.setAttribute("aria-label", `Waveform of the last take, ${msg.untrimmed_s.toFixed(2)}` +
        ` s; the part kept, ${msg.start_s.toFixed(2)} s to ${msg.end_s.toFixed(2)} s, is shaded`);
    }
  });
  return () => {
    if (recorder) recorder.stop();
    if (stream) stream.getTracks().forEach((track) => track.stop());
    if (url) URL.revokeObjectURL(url);
  };
}

export default { render };
"""

_CSS = """
.course-recorder { display: flex; flex-direction: column; gap: 4px; margin: 4px 0; }
.course-recorder-row { display: flex; align-items: center; gap: 6px; }
.course-recorder-prompt { font-weight: bold; }
.course-recorder-player { height: 32px; }
.course-recorder-wave { border: 1px solid #ccc; width: 480px; height: 80px; }
.course-recorder-status { font-size: 90%; }
/* a focus ring at 3:1 or more on the lab's white (ipywidgets' own is 1 px at 2.2:1); the
   selector outranks ipywidgets' .jupyter-button:focus:enabled */
.course-recorder .jupyter-button:focus-visible:enabled, .course-recorder audio:focus-visible {
  outline: 2px solid #1a53a1; outline-offset: 1px; }
"""


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
                 sample_rate: int = _SAMPLE_RATE):
        max_seconds = _as_positive_float(max_seconds, "max_seconds")
        if max_seconds > _MAX_SECONDS_LIMIT:
            raise ValueError(f"max_seconds: at most {_MAX_SECONDS_LIMIT:g} s (a recorder is for "
                             f"short words), got {max_seconds:g}")
        if isinstance(prompts, str) or not all(isinstance(p, str) and p for p in prompts):
            raise TypeError("prompts: expected a list of non-empty words, e.g. ['one', 'two']")
        self.sample_rate = _as_positive_int(sample_rate, "sample_rate", minimum=1000,
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
                  buffers=[_wav_bytes(kept, self.sample_rate)])
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
        return _write_wav(path, self._takes[-1])

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
                paths.append(_write_wav(folder / name, take, overwrite=True))
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
