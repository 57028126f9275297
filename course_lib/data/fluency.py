"""The multi-rater fluency set ``data/fluency/`` (synthetic espeak-ng speech; see its README).

300 utterances of random 4-7 digit strings, spoken by espeak-ng at varied speed, with varied
gaps between words and with hesitations (SSML breaks). Each has

* 33 utterance-level features computed from its audio (:data:`_FEATURE_NAMES`, made by
  :func:`_utterance_features`): duration, speech span and speech time from an energy voice
  activity detector, pause fraction, number of pauses of at least 200 ms, number of words, words
  per second, and the mean and standard deviation of each of the 13 MFCCs;
* a hidden true fluency on the 0-10 scale, computed from the speech controls (speed, word gap,
  number of hesitations; formula in the README), which no rater sees;
* 0-10 whole-number scores from five simulated raters with their own bias, slope and noise
  (about 5% of the labels deliberately missing).

:func:`load_fluency` returns everything as a :class:`FluencySet` with a fixed 200/100 train /
test split; :meth:`FluencySet.example_audio` gives five of the utterances as audio (fluent to
very hesitant) to listen to, :meth:`FluencySet.clips_to_rate` twenty to score as a sixth rater.
Files are checked against ``SHA256SUMS`` on every load; arrays are read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from course_lib.data import DataError, _parse_float, _parse_int, _parse_text, _read_csv_table
from course_lib.data.wav import load_waveform
from course_lib.features import mfcc_features
from course_lib.rater_data import RaterData
from course_lib.validation import as_positive_int, as_waveform

_DATASET = "fluency"
_SAMPLE_RATE = 8000
_N_ITEMS = 300
_N_RATERS = 5
_SCALE = (0, 10)
_SPLITS = ("train", "test")

# Voice activity detection: 10 ms frames; a frame is speech when its RMS is within
# _VAD_THRESHOLD_DB of the loudest frame's. A pause counts when it lasts at least _MIN_PAUSE_S.
VAD_FRAME_S = 0.010
_VAD_THRESHOLD_DB = 35.0
_MIN_PAUSE_S = 0.200
_N_MFCC = 13

_PROSODIC_FEATURES = ("duration_s", "speech_span_s", "speech_time_s", "pause_fraction",
                     "n_pauses", "n_words", "words_per_second")
_FEATURE_NAMES = (_PROSODIC_FEATURES
                 + tuple(f"mfcc{k}_mean" for k in range(_N_MFCC))
                 + tuple(f"mfcc{k}_sd" for k in range(_N_MFCC)))
_CONTROL_NAMES = ("speed_wpm", "gap", "n_breaks", "break_ms", "pitch", "n_words")


#: below this many samples per second a 10 ms frame has hardly a sample: a rate given in kHz
_MIN_SAMPLE_RATE = 1000
#: integer PCM sample types and their full scale: _utterance_features divides by it
_PCM_FULL_SCALE = {np.dtype(np.int16): 2.0 ** 15, np.dtype(np.int32): 2.0 ** 31}


def _check_sample_rate(sample_rate) -> int:
    sample_rate = as_positive_int(sample_rate, "sample_rate", maximum=10_000_000)
    if sample_rate < _MIN_SAMPLE_RATE:
        raise ValueError(f"sample_rate: expected samples per second in Hz (e.g. 16000), got "
                         f"{sample_rate}; a rate in kHz? (below {_MIN_SAMPLE_RATE} Hz a "
                         f"{VAD_FRAME_S * 1000:g} ms frame holds "
                         f"{round(VAD_FRAME_S * sample_rate)} samples)")
    return sample_rate


def _pcm_as_float(samples):
    """Integer PCM (int16, int32) -> float64 in [-1, 1) by its full scale; other integer types
    are refused (their full scale is unknown), everything else is left to the checks."""
    dtype = getattr(samples, "dtype", None)
    if dtype is None or not np.issubdtype(dtype, np.integer):
        return samples
    if dtype not in _PCM_FULL_SCALE:
        raise TypeError(f"samples: integer samples of type {dtype} have no known full scale; "
                        "pass int16 or int32 PCM, or float64 samples in [-1, 1]")
    return np.asarray(samples, dtype=np.float64) / _PCM_FULL_SCALE[dtype]


def frame_rms(samples, sample_rate: int) -> np.ndarray:
    """RMS of each consecutive, non-overlapping 10 ms frame of ``samples`` (a last partial
    frame is dropped), shape (n_frames,). ``sample_rate`` in Hz (samples per second, at least
    :data:`_MIN_SAMPLE_RATE`)."""
    x = as_waveform(samples, "samples")
    sample_rate = _check_sample_rate(sample_rate)
    frame = round(VAD_FRAME_S * sample_rate)
    n_frames = len(x) // frame
    if n_frames == 0:
        raise ValueError(f"samples: {len(x)} samples are shorter than one {VAD_FRAME_S * 1000:g} "
                         f"ms frame ({frame} samples at {sample_rate} Hz)")
    return np.sqrt(np.mean(x[:n_frames * frame].reshape(n_frames, frame) ** 2, axis=1))


def speech_activity(samples, sample_rate: int) -> np.ndarray:
    """Boolean speech mask of the 10 ms frames of :func:`frame_rms`: a frame is speech when its
    RMS is at least the loudest frame's RMS x 10^(-_VAD_THRESHOLD_DB / 20)."""
    rms = frame_rms(samples, sample_rate)
    if rms.max() == 0:
        raise ValueError("samples: the signal is silent (all zeros), so it has no speech")
    return rms >= rms.max() * 10 ** (-_VAD_THRESHOLD_DB / 20)


def _utterance_features(samples, sample_rate: int, n_words: int) -> np.ndarray:
    """The 33 features of :data:`_FEATURE_NAMES` for one utterance, shape (33,).

    From the speech mask of :func:`speech_activity` (frames of 10 ms): the speech span runs from
    the first to the last speech frame, the speech time counts speech frames, the pause fraction
    is 1 - speech time / span, and a pause is a run of non-speech frames inside the span lasting
    at least ``_MIN_PAUSE_S``. Words per second = ``n_words`` / span. The MFCC statistics are the
    per-coefficient mean and standard deviation (over all frames) of the course front end
    :func:`course_lib.features.mfcc_features` without deltas or mean normalisation (c0 is the
    log frame energy).

    ``samples`` are float64 in [-1, 1] (the shipped clips); integer PCM is CONVERTED, int16 by
    dividing by 2^15 and int32 by 2^31, so a WAV file's raw samples give the same features as
    the same clip read as floats (the MFCCs, c0 above all, depend on the scale). Other integer
    types are refused.
    """
    n_words = as_positive_int(n_words, "n_words", maximum=10_000)
    samples = _pcm_as_float(samples)
    speech = speech_activity(samples, sample_rate)
    x = as_waveform(samples, "samples")
    first, last = np.flatnonzero(speech)[[0, -1]]
    inside = speech[first:last + 1]
    span_s = inside.size * VAD_FRAME_S
    speech_s = inside.sum() * VAD_FRAME_S
    # runs of non-speech inside the span: starts and ends from the edges of the mask
    edges = np.diff(np.concatenate(([1], inside.astype(np.int8), [1])))
    pause_frames = np.flatnonzero(edges == 1) - np.flatnonzero(edges == -1)
    n_pauses = int(np.sum(pause_frames >= round(_MIN_PAUSE_S / VAD_FRAME_S)))
    cepstra = mfcc_features(x, sample_rate, deltas=False, cmn=False)
    prosodic = [len(x) / sample_rate, span_s, speech_s, 1.0 - speech_s / span_s, n_pauses,
                n_words, n_words / span_s]
    return np.concatenate([prosodic, cepstra.mean(axis=0), cepstra.std(axis=0)])


@dataclass(frozen=True)
class ExampleClip:
    """One utterance's audio: ``samples`` float64 in [-1, 1) at ``sample_rate`` Hz (read-only).
    Play it with ``IPython.display.Audio(clip.samples, rate=clip.sample_rate)``."""

    item: int
    label: str
    text: str
    truth: float
    samples: np.ndarray
    sample_rate: int


@dataclass(frozen=True)
class FluencySet:
    """The fluency set; item i is row i of every array.

    ``features`` (N, 33) float64 with column names ``feature_names``; ``ratings`` a
    :class:`~course_lib.rater_data.RaterData` on the scale (0, 10) (items 0..N-1, raters 0..4,
    a few labels missing); ``truth`` (N,) the hidden true fluency; ``controls`` maps each of
    :data:`_CONTROL_NAMES` to an (N,) array (speed in words per minute, word gap in espeak-ng's
    units of 10 ms, number of hesitations and their total length in ms, pitch, number of
    words); ``texts`` the digit strings as spoken; ``voices`` the espeak-ng voice+variant;
    ``train`` and ``test`` the fixed split as sorted item indices; ``rater_parameters`` maps
    "slope", "bias", "noise_sd" to (5,) arrays: rater r scored round(slope_r * truth + bias_r +
    N(0, noise_sd_r^2)), clipped to 0..10. All arrays are read-only.
    """

    features: np.ndarray
    feature_names: tuple[str, ...]
    ratings: RaterData
    truth: np.ndarray
    controls: MappingProxyType
    texts: tuple[str, ...]
    voices: tuple[str, ...]
    train: np.ndarray
    test: np.ndarray
    rater_parameters: MappingProxyType

    def __len__(self) -> int:
        return self.features.shape[0]

    def example_audio(self) -> list[ExampleClip]:
        """The example clips listed in ``examples.csv`` (item, label, file), from fluent to very
        hesitant, with their audio from ``examples/`` (8 kHz int16 WAV, the very samples their
        row of ``features`` was computed from)."""
        return _read_clips(_DATASET, "examples.csv", self.texts, self.truth, labelled=True)

    def clips_to_rate(self) -> list[ExampleClip]:
        """Twenty training utterances (``rate.csv``), low to high true fluency, for a listener
        to score as a sixth rater; ``truth`` is the hidden fluency: show it only afterwards."""
        return _read_clips(_DATASET, "rate.csv", self.texts, self.truth)


def _read_clips(dataset: str, table: str, texts, values, *, labelled: bool = False,
               audio: Callable[[int], np.ndarray] | None = None) -> list[ExampleClip]:
    """The clips a data set's ``table`` lists (item, and a label if ``labelled``), each with its
    text, ``values[item]`` as its ``truth`` and its audio at 8 kHz: ``audio(item)``, or by
    default the data set's file that the table's ``file`` column names."""
    columns = {"item": _parse_int, "file": _parse_text} if audio is None else {"item": _parse_int}
    if labelled:
        columns["label"] = _parse_text
    clips = []
    for number, row in enumerate(_read_csv_table(dataset, table, columns), start=2):
        item = row["item"]
        if not 0 <= item < len(texts):
            raise DataError(f"dataset {dataset!r}: {table}, line {number}: item {item} "
                            f"is not one of the items 0..{len(texts) - 1}")
        samples = (load_waveform(dataset, row["file"], _SAMPLE_RATE) if audio is None
                   else audio(item))
        clips.append(ExampleClip(item, row.get("label", ""), texts[item], float(values[item]),
                                 samples, _SAMPLE_RATE))
    return clips


def _read_only(values, dtype) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


def _check_items(rows: list[dict], name: str, expected: list[int]) -> None:
    if [row["item"] for row in rows] != expected:
        raise DataError(f"dataset {_DATASET!r}: {name} should list the items "
                        f"{expected[0]}..{expected[-1]} once each, in order")


def _parse_split(field: str) -> str:
    if field not in _SPLITS:
        raise ValueError(f"expected one of {list(_SPLITS)}")
    return field


def _parse_words(field: str) -> str:
    words = field.split(" ")
    if not field or not all(words):
        raise ValueError("expected digit words separated by single spaces")
    return field


def _parse_breaks(field: str) -> tuple[tuple[int, int], ...]:
    """"none" or space-separated "<after word>:<ms>" pairs, e.g. "2:450 5:800"."""
    if field == "none":
        return ()
    pairs = []
    for pair in field.split(" "):
        after, _, ms = pair.partition(":")
        if not (after.isdigit() and ms.isdigit()):
            raise ValueError('expected "none" or pairs "<after word>:<milliseconds>"')
        pairs.append((int(after), int(ms)))
    return tuple(pairs)


def _parse_score(field: str) -> int:
    value = _parse_int(field)
    if not _SCALE[0] <= value <= _SCALE[1]:
        raise ValueError(f"a score outside {_SCALE[0]}..{_SCALE[1]}")
    return value


def _parse_rater(field: str) -> int:
    value = _parse_int(field)
    if not 0 <= value < _N_RATERS:
        raise ValueError(f"a rater outside 0..{_N_RATERS - 1}")
    return value


def _load_utterances() -> list[dict]:
    """Rows of ``utterances.csv``: item, text, voice, pitch, speed_wpm, gap, n_breaks,
    breaks (a tuple of (after word, ms) pairs), break_ms, n_words, split, truth (numbers
    converted)."""
    rows = _read_csv_table(_DATASET, "utterances.csv", {
        "item": _parse_int, "text": _parse_words, "voice": _parse_text, "pitch": _parse_int,
        "speed_wpm": _parse_int, "gap": _parse_int, "n_breaks": _parse_int, "breaks": _parse_breaks,
        "break_ms": _parse_int, "n_words": _parse_int, "split": _parse_split,
        "truth": _parse_float})
    _check_items(rows, "utterances.csv", list(range(_N_ITEMS)))
    for number, row in enumerate(rows, start=2):
        breaks = row["breaks"]
        if (len(row["text"].split(" ")) != row["n_words"] or len(breaks) != row["n_breaks"]
                or sum(ms for _, ms in breaks) != row["break_ms"]
                or not all(0 < after < row["n_words"] for after, _ in breaks)):
            raise DataError(f"dataset {_DATASET!r}: utterances.csv, line {number}: the columns "
                            f"text, n_words, breaks, n_breaks and break_ms disagree")
    return rows


def load_fluency() -> FluencySet:
    """The whole set as a :class:`FluencySet` (see the module docstring and the README)."""
    utterances = _load_utterances()
    parsers = {"item": _parse_int, **dict.fromkeys(_FEATURE_NAMES, _parse_float)}
    feature_rows = _read_csv_table(_DATASET, "features.csv", parsers)
    _check_items(feature_rows, "features.csv", list(range(_N_ITEMS)))
    labels = _read_csv_table(_DATASET, "scores.csv", {"item": _parse_int, "rater": _parse_rater,
                                                    "score": _parse_score})
    raters = _read_csv_table(_DATASET, "raters.csv", {"rater": _parse_int, "slope": _parse_float,
                                                    "bias": _parse_float, "noise_sd": _parse_float})
    if [row["rater"] for row in raters] != list(range(_N_RATERS)):
        raise DataError(f"dataset {_DATASET!r}: raters.csv should list the raters "
                        f"0..{_N_RATERS - 1} once each, in order")
    try:
        ratings = RaterData.from_long([row["item"] for row in labels],
                                      [row["rater"] for row in labels],
                                      [row["score"] for row in labels],
                                      n_items=_N_ITEMS, n_raters=_N_RATERS, scale=_SCALE)
    except ValueError as err:
        raise DataError(f"dataset {_DATASET!r}: scores.csv does not hold valid ratings "
                        f"(row k below is line k + 2 of the file): {err}") from None
    split = np.array([row["split"] for row in utterances])
    return FluencySet(
        features=_read_only([[row[name] for name in _FEATURE_NAMES] for row in feature_rows],
                            np.float64),
        feature_names=_FEATURE_NAMES,
        ratings=ratings,
        truth=_read_only([row["truth"] for row in utterances], np.float64),
        controls=MappingProxyType({name: _read_only([row[name] for row in utterances],
                                                    np.int64) for name in _CONTROL_NAMES}),
        texts=tuple(row["text"] for row in utterances),
        voices=tuple(row["voice"] for row in utterances),
        train=_read_only(np.flatnonzero(split == "train"), np.int64),
        test=_read_only(np.flatnonzero(split == "test"), np.int64),
        rater_parameters=MappingProxyType({name: _read_only([row[name] for row in raters],
                                                            np.float64)
                                           for name in ("slope", "bias", "noise_sd")}))

