"""The spoken-digit data set ``data/digits/`` (espeak-ng speech, 8 kHz; see its README).

* 40 speakers s00..s39 x the ten words "zero".."nine", split by speaker:
  s00-s19 train, s20-s29 dev, s30-s39 test (:data:`SPLITS`);
* 20 connected "phone numbers" of 4-7 digits by held-out speakers h00..h04.

Every load reads each file through :func:`course_lib.data._read_verified`, which checks its
bytes against the data set's SHA256SUMS, so a missing or corrupt file raises :class:`DataError`.
Waveforms and feature matrices are memoised by content hash and returned read-only (copy one
before editing it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from course_lib.data import (DataError, _check_split, _parse_float, _parse_int, _parse_text,
                             _read_csv_table)
from course_lib.data.wav import load_waveform, _waveform_features
from course_lib.validation import as_bool

_DATASET = "digits"
_SAMPLE_RATE = 8000
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
SPLITS = {
    "train": tuple(f"s{i:02d}" for i in range(0, 20)),
    "dev": tuple(f"s{i:02d}" for i in range(20, 30)),
    "test": tuple(f"s{i:02d}" for i in range(30, 40)),
}
SPLITS["all"] = SPLITS["train"] + SPLITS["dev"] + SPLITS["test"]


@dataclass(frozen=True)
class DigitSet:
    """Isolated digits in stable order (speaker, then digit).

    ``waveforms[i]`` is float64 in [-1, 1] (int16 / 32768), ``labels[i]`` in 0..9 indexes
    :data:`WORDS`, ``speakers[i]`` is e.g. "s07".
    """

    waveforms: list[np.ndarray]
    labels: np.ndarray
    speakers: np.ndarray
    sample_rate: int

    def __len__(self) -> int:
        return len(self.waveforms)


@dataclass(frozen=True)
class PhoneNumber:
    """One connected utterance: the digits spoken as one string by a held-out speaker."""

    waveform: np.ndarray
    digits: tuple[int, ...]
    speaker: str
    sample_rate: int


def _wave(name: str) -> np.ndarray:
    return load_waveform(_DATASET, name, _SAMPLE_RATE)


def _features(name: str, deltas: bool, cmn: bool) -> np.ndarray:
    return _waveform_features(_DATASET, name, _SAMPLE_RATE, deltas=deltas, cmn=cmn)


def _load_speakers() -> list[dict]:
    """Rows of ``speakers.csv``: speaker, split, voice, variant, speed_wpm, pitch, snr_db.

    Includes the held-out speakers h00..h04 (split "heldout") of the phone numbers. Numbers are
    converted (speed_wpm and pitch to int, snr_db to float).
    """
    rows = _read_csv_table(_DATASET, "speakers.csv", {
        "speaker": _parse_text, "split": _parse_text, "voice": _parse_text, "variant": _parse_text,
        "speed_wpm": _parse_int, "pitch": _parse_int, "snr_db": _parse_float})
    documented = {s: split for split in ("train", "dev", "test") for s in SPLITS[split]}
    listed = {row["speaker"]: row["split"] for row in rows if row["split"] != "heldout"}
    if listed != documented:
        raise DataError(f"dataset {_DATASET!r}: speakers.csv does not hold the documented split "
                        f"s00-s19 train, s20-s29 dev, s30-s39 test")
    return rows


def _isolated_items(split: str) -> list[tuple[str, int, str]]:
    _check_split(split, SPLITS)
    return [(f"isolated/{speaker}_{word}.wav", label, speaker)
            for speaker in SPLITS[split] for label, word in enumerate(WORDS)]


def load_digits(split: str = "train") -> DigitSet:
    """Isolated digits of one split ("train", "dev", "test" or "all"), by speaker, then digit."""
    items = _isolated_items(split)
    return DigitSet(waveforms=[_wave(name) for name, _, _ in items],
                    labels=np.array([label for _, label, _ in items], dtype=np.int64),
                    speakers=np.array([speaker for _, _, speaker in items]),
                    sample_rate=_SAMPLE_RATE)


def digit_features(split: str = "train", *, deltas: bool = True,
                   cmn: bool = True) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """MFCC features of :func:`load_digits` (split): (features, labels, speakers).

    ``features[i]`` has shape (T_i, 39) with deltas (13 static + 13 delta + 13 delta-delta) or
    (T_i, 13) without; rows are frames; per-utterance mean removed when ``cmn``. See
    :func:`course_lib.features.mfcc_features`. Memoised in-process; the arrays are read-only.
    """
    items = _isolated_items(split)
    deltas, cmn = as_bool(deltas, "deltas"), as_bool(cmn, "cmn")
    return ([_features(name, deltas, cmn) for name, _, _ in items],
            np.array([label for _, label, _ in items], dtype=np.int64),
            np.array([speaker for _, _, speaker in items]))


def _parse_digits(field: str) -> tuple[int, ...]:
    digits = field.split()
    if not digits or any(d not in "0123456789" or len(d) != 1 for d in digits):
        raise ValueError("expected digits 0-9 separated by spaces")
    return tuple(int(d) for d in digits)


def _phone_rows() -> list[dict]:
    return _read_csv_table(_DATASET, "phone_numbers.csv",
                          {"file": _parse_text, "speaker": _parse_text, "digits": _parse_digits})


def load_phone_numbers() -> list[PhoneNumber]:
    """The connected phone-number utterances, in file order (h00_00, h00_01, ...)."""
    return [PhoneNumber(waveform=_wave(row["file"]), digits=row["digits"],
                        speaker=row["speaker"], sample_rate=_SAMPLE_RATE)
            for row in _phone_rows()]


def phone_number_features(*, deltas: bool = True, cmn: bool = True
                          ) -> tuple[list[np.ndarray], list[tuple[int, ...]], np.ndarray]:
    """MFCC features of :func:`load_phone_numbers`: (features, digit sequences, speakers).

    Same front end and conventions as :func:`digit_features`.
    """
    deltas, cmn = as_bool(deltas, "deltas"), as_bool(cmn, "cmn")
    rows = _phone_rows()
    return ([_features(row["file"], deltas, cmn) for row in rows],
            [row["digits"] for row in rows],
            np.array([row["speaker"] for row in rows]))
