"""Chromium's fake microphone: it plays a WAV file into every ``getUserMedia`` stream.

Launch Chromium with :func:`flags` (``--use-fake-device-for-media-stream`` and the file; add
``--use-fake-ui-for-media-stream`` to accept the permission prompt) and a WAV written by
:func:`write_wav`: 16-bit mono, any rate (the browser resamples to its own).
:func:`open_with_recorder` opens a notebook, runs it and waits for its recorder's Record button.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
from lab_driver import Findings, NotebookPage


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(np.round(np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def flags(wav: Path) -> list[str]:
    return ["--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}"]


def open_with_recorder(page, lab_server, path: str, shots: Path, findings: Findings,
                       run_timeout: float):
    """(the :class:`NotebookPage`, the Record button) once the notebook at ``path`` has run."""
    notebook = NotebookPage(page, lab_server, path, shots, findings)
    notebook.open(timeout=run_timeout)
    notebook.run_all(timeout=run_timeout)
    with notebook.limits.wait("the recorder's Record button", 60) as limit_ms:
        record = page.locator(".course-recorder-record")
        record.wait_for(state="visible", timeout=limit_ms)
    return notebook, record
