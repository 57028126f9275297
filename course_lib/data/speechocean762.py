"""The real five-expert panel ``data/speechocean762/`` (see its README).

speechocean762 (J. Zhang, Z. Zhang, Y. Wang et al., "speechocean762: an open-source non-native
English speech corpus for pronunciation assessment", Interspeech 2021; Apache-2.0): 5,000 English
sentences read by 250 Mandarin speakers (125 in each split, no speaker in both), each scored 0-10
for pronunciation accuracy and for fluency by the same five experts. Shipped: every expert's
sentence scores, 33 utterance features of the course front end
(:func:`course_lib.data.fluency._utterance_features`, from the audio at 8 kHz), six example clips
and twenty clips for a listener to score.

:func:`load_speechocean762` returns a :class:`PanelSet` for one aspect ("accuracy", the score
the multi-rater GP of arXiv 2306.02719 (2024) models, or "fluency") with the corpus's own
2,500 / 2,500 train / test split.
Files are checked against ``SHA256SUMS`` on every load; arrays are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from course_lib.data import DataError, _parse_float, _parse_int, _parse_text, _read_csv_table
from course_lib.data.fluency import _FEATURE_NAMES, ExampleClip, _read_only, _read_clips
from course_lib.raters.rater_data import RaterData

_DATASET = "speechocean762"
_N_ITEMS = 5000
_N_RATERS = 5
_SCALE = (0, 10)
_ASPECTS = ("accuracy", "fluency")


@dataclass(frozen=True)
class PanelSet:
    """speechocean762 for one aspect; item i is row i of every array.

    ``features`` (5000, 33) with column names ``feature_names``; ``ratings`` a
    :class:`~course_lib.raters.rater_data.RaterData` of the five experts' scores of ``aspect`` on the
    scale (0, 10) (every expert scored every sentence); ``texts`` the prompts, ``speakers`` and
    ``utterances`` the corpus's ids; ``train`` and ``test`` the corpus's split as sorted item
    indices (disjoint speakers).
    """

    aspect: str
    features: np.ndarray
    feature_names: tuple[str, ...]
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


def load_speechocean762(aspect: str = "accuracy") -> PanelSet:
    """The panel's scores of ``aspect`` ("accuracy" or "fluency") with the features and split."""
    if aspect not in _ASPECTS:
        raise ValueError(f"aspect: expected one of {_ASPECTS}, got {aspect!r}")
    utterances = _read_csv_table(_DATASET, "utterances.csv",
                                {"item": _parse_int, "utt": _parse_text, "speaker": _parse_text,
                                 "split": _parse_text, "text": _parse_text})
    features = _read_csv_table(_DATASET, "features.csv",
                              {"item": _parse_int, **dict.fromkeys(_FEATURE_NAMES, _parse_float)})
    labels = _read_csv_table(_DATASET, "scores.csv", {"item": _parse_int, "rater": _parse_int,
                                                    aspect: _parse_int})
    for name, rows in (("utterances.csv", utterances), ("features.csv", features)):
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
    return PanelSet(
        aspect=aspect,
        features=_read_only([[row[name] for name in _FEATURE_NAMES] for row in features],
                            np.float64),
        feature_names=_FEATURE_NAMES,
        ratings=ratings,
        texts=tuple(row["text"] for row in utterances),
        speakers=tuple(row["speaker"] for row in utterances),
        utterances=tuple(row["utt"] for row in utterances),
        train=_read_only(np.flatnonzero(split == "train"), np.int64),
        test=_read_only(np.flatnonzero(split == "test"), np.int64))
