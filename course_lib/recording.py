"""A student's own recording as course data: resampled to the course's rate, the silence around
the word trimmed, kept as a :class:`Take`, written to and read from WAV files.

The microphone itself is :class:`course_lib.widgets.recorder.Recorder` (a widget in the browser);
this module is what Python does with the samples it receives, and what a homework may call or
write itself:

1. :func:`resample` to 8000 Hz, the digits' rate, with ``scipy.signal.resample_poly`` (a
   polyphase low-pass filter, so nothing above 4 kHz folds back into the band);
2. :func:`trim_silence` with the course's energy detector,
   :func:`course_lib.data.fluency.speech_activity` (10 ms frames; a frame is speech when its RMS
   is within 35 dB of the loudest frame), keeping 30 ms either side; a silent take, or one
   with less than 50 ms of speech, is :class:`EmptyRecording`;
3. :func:`write_wav` of a take to a 16-bit mono file, as the recorder saves it, and
   :func:`read_wav` of one.
"""

from __future__ import annotations

import wave
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from .data.fluency import VAD_FRAME_S, speech_activity
from .stimuli import wav_bytes
from .validation import as_positive_float, as_positive_int

__all__ = ["Take", "EmptyRecording", "resample", "trim_silence", "read_wav", "write_wav",
           "SAMPLE_RATE"]

SAMPLE_RATE = 8000          # Hz: the course's speech rate (data/digits)
_TRIM_MARGIN_S = 0.03        # s of signal kept before the first and after the last speech frame
# A take whose peak stays below this (about -80 dB re full scale; one step of 16-bit PCM is
# -90 dB) is silence: a muted or disconnected microphone, not a quiet word.
_SILENCE_PEAK = 1e-4
# Shorter than this after trimming (two 10 ms frames of speech) is no word at all.
_MIN_SPEECH_S = 0.05


@dataclass(frozen=True)
class Take:
    """One kept recording: ``samples`` (float64 in [-1, 1], silence trimmed) at
    ``sample_rate``; ``untrimmed`` is the whole take at the same rate; ``prompt`` the word the
    widget asked for (empty if none); ``start_s`` and ``end_s`` the kept span in the untrimmed
    take."""

    samples: np.ndarray
    sample_rate: int
    prompt: str
    untrimmed: np.ndarray
    start_s: float
    end_s: float

    @property
    def duration(self) -> float:
        return len(self.samples) / self.sample_rate


class EmptyRecording(ValueError):
    """A take with no speech in it (silent, or too short): it is not kept."""


def resample(samples, source_rate: int, target_rate: int = SAMPLE_RATE) -> np.ndarray:
    """``samples`` at ``source_rate`` resampled to ``target_rate`` (both in Hz) by a polyphase
    filter (``scipy.signal.resample_poly`` with the reduced ratio target/source)."""
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"samples: expected a 1-D array of audio samples, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("samples: contains NaN or infinite values")
    source_rate = as_positive_int(source_rate, "source_rate", maximum=768_000)
    target_rate = as_positive_int(target_rate, "target_rate", maximum=768_000)
    if source_rate == target_rate:
        return x.copy()
    ratio = Fraction(target_rate, source_rate)
    from scipy.signal import resample_poly  # 0.8 s to import: only when a recording needs it

    return resample_poly(x, ratio.numerator, ratio.denominator)


def trim_silence(samples, sample_rate: int = SAMPLE_RATE, *,
                 margin_s: float = _TRIM_MARGIN_S) -> tuple[np.ndarray, float, float]:
    """The speech part of ``samples``: from the first to the last 10 ms frame that
    :func:`course_lib.data.fluency.speech_activity` marks as speech, widened by ``margin_s``
    either side. Returns (trimmed samples, start in s, end in s). Raises
    :class:`EmptyRecording` for a silent take or one with less than :data:`_MIN_SPEECH_S` of
    speech."""
    x = np.asarray(samples, dtype=np.float64)
    margin_s = as_positive_float(margin_s, "margin_s", allow_zero=True)
    frame = round(VAD_FRAME_S * sample_rate)
    if len(x) < frame or float(np.max(np.abs(x))) < _SILENCE_PEAK:
        raise EmptyRecording("the recording is silent (is the microphone muted?); nothing was "
                             "kept, record again")
    speech = np.flatnonzero(speech_activity(x, sample_rate))
    first, last = int(speech[0]), int(speech[-1])
    if (last - first + 1) * VAD_FRAME_S < _MIN_SPEECH_S:
        raise EmptyRecording("the recording holds no word (only a click or a very short "
                             "sound); nothing was kept, record again")
    margin = round(margin_s * sample_rate)
    start = max(0, first * frame - margin)
    end = min(len(x), (last + 1) * frame + margin)
    return x[start:end].copy(), start / sample_rate, end / sample_rate


def write_wav(path, take: Take, *, overwrite: bool = False) -> Path:
    """Write ``take`` (its trimmed samples) to ``path`` as a 16-bit mono WAV file, which
    :func:`read_wav` reads back; ``path`` must end in .wav, its folder exist, and an existing
    file is only replaced with ``overwrite``. Returns the path."""
    path = Path(path)
    if path.suffix.lower() != ".wav":
        raise ValueError(f"path: expected a file name ending in .wav, got {path.name!r}")
    if not path.parent.is_dir():
        raise ValueError(f"path: the folder {path.parent} does not exist")
    if path.exists() and not overwrite:
        raise ValueError(f"path: {path} exists already; choose another name")
    path.write_bytes(wav_bytes(take.samples, take.sample_rate))
    return path


def read_wav(path) -> tuple[np.ndarray, int]:
    """A 16-bit PCM mono WAV file (as :meth:`course_lib.widgets.recorder.Recorder.save` writes)
    as (float64 samples, rate). Any other file raises ValueError naming the file, what it is and
    how to convert it (with a SoX command); a missing one raises FileNotFoundError."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path: {path}: no such file (give the path of a WAV file)")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"path: {path} is empty (0 bytes): nothing was recorded into it; "
                         "record again or give another file")
    try:
        with wave.open(str(path), "rb") as handle:
            width, channels = handle.getsampwidth(), handle.getnchannels()
            rate = handle.getframerate()
            frames = handle.readframes(handle.getnframes())
    except (wave.Error, EOFError) as err:
        raise ValueError(f"path: {path} {_what_wav_is(path, err)}") from None
    if width != 2 or channels != 1:
        raise ValueError(f"path: {path} holds {_channels(channels)} {8 * width}-bit samples; "
                         f"expected 16-bit mono: {_CONVERT.format(path=path)}")
    if not frames:
        raise ValueError(f"path: {path} holds no samples (a WAV header only); record again")
    return np.frombuffer(frames, dtype="<i2").astype(np.float64) / 32768.0, rate


# how to make a file read_wav reads, with SoX (any format SoX reads, any rate)
_CONVERT = "convert it with `sox {path} -b 16 -e signed-integer -c 1 converted.wav`"
_FORMATS = {1: "PCM", 3: "floating-point", 6: "A-law", 7: "mu-law"}
_EXTENSIBLE = 0xFFFE


def _what_wav_is(path: Path, err: Exception) -> str:
    """Why the ``wave`` module refused ``path`` (``err``), in words and with what to do: the
    RIFF header's fmt chunk read directly (format tag, and the sub-format of an extensible
    file)."""
    head = path.read_bytes()[:4096]
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return (f"is not a WAV file (no RIFF/WAVE header); save your recording as a 16-bit "
                f"PCM mono WAV, or {_CONVERT.format(path=path)}")
    at = head.find(b"fmt ")
    if at < 0 or len(head) < at + 24:
        return (f"is a truncated or damaged WAV file ({str(err) or 'it ends early'}); record again")
    tag, channels, _rate, _bytes, _align, bits = np.frombuffer(
        head[at + 8:at + 24], dtype="<u2, <u2, <u4, <u4, <u2, <u2")[0]
    if tag == _EXTENSIBLE and len(head) >= at + 34:
        tag = int(np.frombuffer(head[at + 32:at + 34], dtype="<u2")[0])
    kind = _FORMATS.get(int(tag), f"format-{int(tag)}")
    return (f"holds {_channels(int(channels))} {int(bits)}-bit {kind} samples; expected "
            f"16-bit PCM mono: {_CONVERT.format(path=path)}")


def _channels(n: int) -> str:
    return "mono" if n == 1 else f"{n}-channel"
