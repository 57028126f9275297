"""The order-matters data set ``data/digit_pairs/`` (espeak-ng speech, 8 kHz; see its README).

Eight classes of two-word digit strings that come in reverse twins: "one two" and "two one",
"three eight" and "eight three", "four six" and "six four", "five nine" and "nine five"
(:data:`CLASSES`; the twin of class ``c`` is ``REVERSE_OF[c]``). Each of 13 synthetic speakers
says every string once, and a twin is made of the same two word recordings in the other order.
So a model that treats an utterance as a bag of frames can at best name the pair and guess the
order (accuracy 1/2, chance 1/8), while a model of the order (an HMM) can do better.

Split by speaker (:data:`_SPLITS`): p00-p06 train, p07-p08 dev, p09-p12 test. Files are verified
against the data set's SHA256SUMS on every load, as for :mod:`course_lib.data.digits`; waveforms
and features are memoised by content hash and returned read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from course_lib.data import (DataError, _check_split, _parse_float, _parse_int, _parse_text,
                             _read_csv_table)
from course_lib.data.wav import load_waveform, _waveform_features
from course_lib.validation import as_bool

_DATASET = "digit_pairs"
_SAMPLE_RATE = 8000
_PAIRS = (("one", "two"), ("three", "eight"), ("four", "six"), ("five", "nine"))
CLASSES = tuple(f"{a} {b}" for pair in _PAIRS for a, b in (pair, pair[::-1]))
REVERSE_OF = tuple(CLASSES.index(" ".join(reversed(name.split()))) for name in CLASSES)
_SPLITS = {
    "train": tuple(f"p{i:02d}" for i in range(0, 7)),
    "dev": tuple(f"p{i:02d}" for i in range(7, 9)),
    "test": tuple(f"p{i:02d}" for i in range(9, 13)),
}
_SPLITS["all"] = _SPLITS["train"] + _SPLITS["dev"] + _SPLITS["test"]


@dataclass(frozen=True)
class _DigitPairSet:
    """Two-word strings in stable order (speaker, then class).

    ``waveforms[i]`` is float64 in [-1, 1] (int16 / 32768), ``labels[i]`` indexes
    :data:`CLASSES`, ``speakers[i]`` is e.g. "p03".
    """

    waveforms: list[np.ndarray]
    labels: np.ndarray
    speakers: np.ndarray
    sample_rate: int

    def __len__(self) -> int:
        return len(self.waveforms)


def _load_speakers() -> list[dict]:
    """Rows of ``speakers.csv``: speaker, split, voice, variant, speed_wpm, pitch, snr_db."""
    rows = _read_csv_table(_DATASET, "speakers.csv", {
        "speaker": _parse_text, "split": _parse_text, "voice": _parse_text, "variant": _parse_text,
        "speed_wpm": _parse_int, "pitch": _parse_int, "snr_db": _parse_float})
    documented = {s: split for split in ("train", "dev", "test") for s in _SPLITS[split]}
    if {row["speaker"]: row["split"] for row in rows} != documented:
        raise DataError(f"dataset {_DATASET!r}: speakers.csv does not hold the documented split "
                        f"p00-p06 train, p07-p08 dev, p09-p12 test")
    return rows


def _parse_class(field: str) -> int:
    if field not in CLASSES:
        raise ValueError(f"expected one of {list(CLASSES)}")
    return CLASSES.index(field)


def _items(split: str) -> list[tuple[str, int, str]]:
    """(file, label, speaker) of one split from ``utterances.csv``, by speaker, then class."""
    _check_split(split, _SPLITS)
    rows = _read_csv_table(_DATASET, "utterances.csv",
                          {"file": _parse_text, "speaker": _parse_text, "words": _parse_class})
    listed = sorted((row["speaker"], row["words"]) for row in rows)
    expected = [(speaker, label) for speaker in _SPLITS["all"] for label in range(len(CLASSES))]
    if listed != expected:
        raise DataError(f"dataset {_DATASET!r}: utterances.csv should list each of the "
                        f"{len(CLASSES)} strings once for every speaker p00-p12")
    chosen = set(_SPLITS[split])
    return sorted(((row["file"], row["words"], row["speaker"]) for row in rows
                   if row["speaker"] in chosen), key=lambda item: (item[2], item[1]))


def _load_digit_pairs(split: str = "train") -> _DigitPairSet:
    """The utterances of one split ("train", "dev", "test" or "all"), by speaker, then class."""
    items = _items(split)
    return _DigitPairSet(
        waveforms=[load_waveform(_DATASET, name, _SAMPLE_RATE) for name, _, _ in items],
        labels=np.array([label for _, label, _ in items], dtype=np.int64),
        speakers=np.array([speaker for _, _, speaker in items]),
        sample_rate=_SAMPLE_RATE)


def digit_pair_features(split: str = "train", *, deltas: bool = True,
                        cmn: bool = True) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """MFCC features of :func:`_load_digit_pairs` (split): (features, labels, speakers).

    The front end of :func:`course_lib.data.digits.digit_features`: ``features[i]`` has shape
    (T_i, 39) with deltas or (T_i, 13) without, rows are frames. Class names: :data:`CLASSES`.
    """
    items = _items(split)
    deltas, cmn = as_bool(deltas, "deltas"), as_bool(cmn, "cmn")
    return ([_waveform_features(_DATASET, name, _SAMPLE_RATE, deltas=deltas, cmn=cmn)
             for name, _, _ in items],
            np.array([label for _, label, _ in items], dtype=np.int64),
            np.array([speaker for _, _, speaker in items]))
