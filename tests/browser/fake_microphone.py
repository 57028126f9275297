"""Chromium's fake microphone: it plays a WAV file into every ``getUserMedia`` stream.

Launch Chromium with :func:`flags` (``--use-fake-device-for-media-stream`` and the file; add
``--use-fake-ui-for-media-stream`` to accept the permission prompt) and a WAV written by
:func:`write_wav`: 16-bit mono, any rate (the browser resamples to its own).
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(np.round(np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def flags(wav: Path) -> list[str]:
    return ["--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}"]
