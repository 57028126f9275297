"""The real five-expert panel ``data/speechocean762/`` (see its README).

speechocean762 (J. Zhang, Z. Zhang, Y. Wang et al., "speechocean762: an open-source non-native
English speech corpus for pronunciation assessment", Interspeech 2021; Apache-2.0): 5,000 English
sentences read by 250 Mandarin speakers (125 in each split, no speaker in both), each scored 0-10
for pronunciation accuracy and for fluency by the same five experts. Shipped: every expert's
sentence scores, 33 fluency features of the course front end
(:func:`course_lib.data.fluency._utterance_features`, from the audio at 8 kHz), 17 goodness of
pronunciation features (:mod:`course_lib.pronunciation`, from the 16 kHz audio), the example
sentences' phones with their GOP, six example clips and twenty clips for a listener to score.

:func:`load_speechocean762` returns a :class:`PanelSet` for one aspect ("accuracy", the score
the multi-rater GP of arXiv 2306.02719 (2024) models, or "fluency") and one input set
("fluency", "gop" or "both") with the corpus's own 2,500 / 2,500 train / test split.
:func:`_load_pronunciation_scorer` gives the scorer that made the GOP features, with the corpus's
words the CMU dictionary lacks, and :func:`_load_gop_thresholds` what its features need.
Files are checked against ``SHA256SUMS`` on every load; arrays are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from course_lib.data import DataError, _parse_float, _parse_int, _parse_text, _read_csv_table
from course_lib.data.fluency import _FEATURE_NAMES, ExampleClip, _read_only, _read_clips
from course_lib.data.wav import _load_waveform
from course_lib.pronunciation import (_GOP_FEATURE_NAMES, GopThresholds, PhoneScore,
                                      PronunciationScorer)
from course_lib.raters.rater_data import RaterData

_DATASET = "speechocean762"
_N_ITEMS = 5000
_N_RATERS = 5
_SCALE = (0, 10)
_GOP_RATE = 16000                 # Hz: the example clips as the GOP scorer hears them
_ASPECTS = ("accuracy", "fluency")
_INPUT_SETS = {"fluency": _FEATURE_NAMES, "gop": _GOP_FEATURE_NAMES,
               "both": _FEATURE_NAMES + _GOP_FEATURE_NAMES}


@dataclass(frozen=True)
class PanelSet:
    """speechocean762 for one aspect; item i is row i of every array.

    ``features`` (5000, d) of the input set ``inputs`` ("fluency": 33 features of the course
    front end; "gop": 17 goodness of pronunciation features; "both": the 50 side by side) with
    column names ``feature_names``; ``gop_aligned`` False for the sentences that did not align,
    whose GOP features are the training medians; ``ratings`` a
    :class:`~course_lib.raters.rater_data.RaterData` of the five experts' scores of ``aspect`` on the
    scale (0, 10) (every expert scored every sentence); ``texts`` the prompts, ``speakers`` and
    ``utterances`` the corpus's ids; ``train`` and ``test`` the corpus's split as sorted item
    indices (disjoint speakers).
    """

    aspect: str
    inputs: str
    features: np.ndarray
    feature_names: tuple[str, ...]
    gop_aligned: np.ndarray
    ratings: RaterData
    texts: tuple[str, ...]
    speakers: tuple[str, ...]
    utterances: tuple[str, ...]
    train: np.ndarray
    test: np.ndarray

    def __len__(self) -> int:
        return self.features.shape[0]

    def clips_to_rate(self) -> list[ExampleClip]:
        """Twenty training sentences (``rate.csv``), one per speaker, spread from the panel's
        lowest to its highest mean fluency, for a listener to score as a sixth rater. ``truth``
        holds the experts' mean of this set's aspect: hide it until the listener has scored."""
        return _read_clips(_DATASET, "rate.csv", self.texts, self.ratings.means)

    def example_audio(self) -> list[ExampleClip]:
        """Six test sentences from hesitant to fluent (``examples.csv``), 8 kHz, with their
        five-expert mean fluency as the label (``truth`` holds the mean of this set's aspect)."""
        return _read_clips(_DATASET, "examples.csv", self.texts, self.ratings.means,
                          labelled=True)

    def example_audio_16k(self) -> list[ExampleClip]:
        """The same six sentences at 16 kHz (``examples16k/``), as the GOP scorer hears them:
        the stand-in for a student without a microphone."""
        return [replace(clip, samples=_load_waveform(_DATASET, f"examples16k/s{clip.item:04d}.wav",
                                                     _GOP_RATE), sample_rate=_GOP_RATE)
                for clip in self.example_audio()]

    def example_phones(self) -> dict[int, list[PhoneScore]]:
        """{item: its phones in time order} for the six example sentences: word, phone, start
        and end in s and GOP, as the recipe's scorer aligned them (``gop_phones.csv``)."""
        columns = {"item": _parse_int, "word_index": _parse_int, "word": _parse_text,
                   "phone": _parse_text, "start": _parse_float, "end": _parse_float,
                   "gop": _parse_float}
        phones: dict[int, list[PhoneScore]] = {}
        for row in _read_csv_table(_DATASET, "gop_phones.csv", columns):
            item = row.pop("item")
            if not 0 <= item < _N_ITEMS:
                raise DataError(f"dataset {_DATASET!r}: gop_phones.csv names item {item}, "
                                f"not one of 0..{_N_ITEMS - 1}")
            phones.setdefault(item, []).append(PhoneScore(**row))
        return phones

    def gop_thresholds(self) -> GopThresholds:
        """The recipe's GOP cut-offs and training medians (``gop_thresholds.csv``), frozen when
        the features were made: ``low_phone`` is the GOP below which a phone counts as low (the
        training phones' 25th percentile); all of it is what
        :func:`course_lib.pronunciation.gop_features` needs to score a new sentence alike."""
        return _load_gop_thresholds()


def load_speechocean762(aspect: str = "accuracy", inputs: str = "fluency") -> PanelSet:
    """The panel's scores of ``aspect`` ("accuracy" or "fluency") with the input set ``inputs``
    ("fluency", "gop" or "both") and the split."""
    if aspect not in _ASPECTS:
        raise ValueError(f"aspect: expected one of {_ASPECTS}, got {aspect!r}")
    if inputs not in _INPUT_SETS:
        raise ValueError(f"inputs: expected one of {tuple(_INPUT_SETS)}, got {inputs!r}")
    utterances = _read_csv_table(_DATASET, "utterances.csv",
                                {"item": _parse_int, "utt": _parse_text, "speaker": _parse_text,
                                 "split": _parse_text, "text": _parse_text})
    features = _read_csv_table(_DATASET, "features.csv",
                              {"item": _parse_int, **dict.fromkeys(_FEATURE_NAMES, _parse_float)})
    gop = _read_csv_table(_DATASET, "gop_features.csv",
                         {"item": _parse_int, "aligned": _parse_int,
                          **dict.fromkeys(_GOP_FEATURE_NAMES, _parse_float)})
    labels = _read_csv_table(_DATASET, "scores.csv", {"item": _parse_int, "rater": _parse_int,
                                                    aspect: _parse_int})
    for name, rows in (("utterances.csv", utterances), ("features.csv", features),
                       ("gop_features.csv", gop)):
        if [row["item"] for row in rows] != list(range(_N_ITEMS)):
            raise DataError(f"dataset {_DATASET!r}: {name} should list the items "
                            f"0..{_N_ITEMS - 1} once each, in order")
    try:
        ratings = RaterData.from_long([row["item"] for row in labels],
                                      [row["rater"] for row in labels],
                                      [row[aspect] for row in labels],
                                      n_items=_N_ITEMS, n_raters=_N_RATERS, scale=_SCALE)
    except ValueError as err:
        raise DataError(f"dataset {_DATASET!r}: scores.csv does not hold valid ratings: "
                        f"{err}") from None
    split = np.array([row["split"] for row in utterances])
    columns = [{**fluency_row, **gop_row} for fluency_row, gop_row in zip(features, gop)]
    return PanelSet(
        aspect=aspect,
        inputs=inputs,
        features=_read_only([[row[name] for name in _INPUT_SETS[inputs]] for row in columns],
                            np.float64),
        feature_names=_INPUT_SETS[inputs],
        gop_aligned=_read_only([row["aligned"] == 1 for row in gop], np.bool_),
        ratings=ratings,
        texts=tuple(row["text"] for row in utterances),
        speakers=tuple(row["speaker"] for row in utterances),
        utterances=tuple(row["utt"] for row in utterances),
        train=_read_only(np.flatnonzero(split == "train"), np.int64),
        test=_read_only(np.flatnonzero(split == "test"), np.int64))


def _load_gop_thresholds() -> GopThresholds:
    """The training split's GOP thresholds and feature medians the shipped features were made
    with (``gop_thresholds.csv``): pass them to :func:`course_lib.pronunciation.gop_features`
    to put a new recording on the same footing."""
    values = {row["name"]: row["value"] for row in _read_csv_table(
        _DATASET, "gop_thresholds.csv", {"name": _parse_text, "value": _parse_float})}
    expected = ["low_phone", "very_low_phone", "low_word",
                *(f"median_{name}" for name in _GOP_FEATURE_NAMES)]
    if sorted(values) != sorted(expected):
        raise DataError(f"dataset {_DATASET!r}: gop_thresholds.csv should name {expected}")
    return GopThresholds(values["low_phone"], values["very_low_phone"], values["low_word"],
                         tuple(values[f"median_{name}"] for name in _GOP_FEATURE_NAMES))


def _load_pronunciation_scorer() -> PronunciationScorer:
    """The GOP scorer the shipped features were made with: pocketsphinx's CMU dictionary plus the
    corpus's words it lacks (``lexicon.csv``, source "speechocean762")."""
    rows = _read_csv_table(_DATASET, "lexicon.csv", {"word": _parse_text, "phones": _parse_text,
                                                   "source": _parse_text})
    return PronunciationScorer({row["word"]: row["phones"] for row in rows
                                if row["source"] != "cmudict"})
