"""Checksummed WAV files of the speech data sets and their MFCC features, memoised by content.

Every call verifies the file's bytes (:func:`course_lib.data._read_verified`); the decoded
waveform and its features are then looked up by the file's SHA-256, so a changed file is never
answered from the cache. Cached arrays are read-only: copy one before editing it.
"""

from __future__ import annotations

import io
import struct

import numpy as np

from course_lib.data import DataError, VerifiedFile, _read_verified
from course_lib.features import mfcc_features
from course_lib.validation import as_bool

# keyed by the rate asked for too: a file is refused at any rate but its own, cached or not
_waveforms: dict[tuple[str, int], np.ndarray] = {}
_features: dict[tuple[str, bool, bool], np.ndarray] = {}


def _decode(verified: VerifiedFile, sample_rate: int) -> np.ndarray:
    cached = _waveforms.get((verified.sha256, sample_rate))
    if cached is not None:
        return cached
    from scipy.io import wavfile  # imported here: only a WAV data set needs it

    try:
        rate, samples = wavfile.read(io.BytesIO(verified.content))
    except (ValueError, EOFError, struct.error) as err:     # scipy's errors for a bad header
        raise DataError(f"{verified.path}: not a readable WAV file ({err})") from err
    if rate != sample_rate or samples.dtype != np.int16 or samples.ndim != 1:
        raise DataError(f"{verified.path}: expected {sample_rate} Hz mono int16, got {rate} Hz, "
                        f"{samples.dtype}, shape {samples.shape}")
    waveform = samples / 32768.0
    waveform.setflags(write=False)
    _waveforms[verified.sha256, sample_rate] = waveform
    return waveform


def load_waveform(dataset: str, name: str, sample_rate: int) -> np.ndarray:
    """``data/<dataset>/<name>`` as read-only float64 in [-1, 1) (int16 / 32768)."""
    return _decode(_read_verified(dataset, name), sample_rate)


def _waveform_features(dataset: str, name: str, sample_rate: int, *, deltas: bool,
                      cmn: bool) -> np.ndarray:
    """:func:`course_lib.features.mfcc_features` of :func:`load_waveform`, read-only."""
    return _features_of(_read_verified(dataset, name), sample_rate, deltas=deltas, cmn=cmn)


def _features_of(verified: VerifiedFile, sample_rate: int, *, deltas: bool,
                 cmn: bool) -> np.ndarray:
    """:func:`course_lib.features.mfcc_features` of a checked WAV file (a data set's or a
    corpus copy's), read-only and memoised by the file's content."""
    deltas, cmn = as_bool(deltas, "deltas"), as_bool(cmn, "cmn")
    key = (verified.sha256, deltas, cmn)
    cached = _features.get(key)
    if cached is None:
        cached = mfcc_features(_decode(verified, sample_rate), sample_rate, deltas=deltas, cmn=cmn)
        cached.setflags(write=False)
        _features[key] = cached
    return cached
