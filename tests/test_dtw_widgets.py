"""The Unit 1 explorers, driven in-process on synthetic utterances (no data files needed)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from widget_harness import exercise_explorer
from course_lib.widgets.dtw import alignment_explorer, subsequence_explorer

RATE = 8000


def synthetic_utterances(rng, lengths=(40, 55, 19)):
    """Chirps of different durations, with 13-dim 'features' of matching frame counts.

    The last one is less than half as long as the others, so the asymmetric and slope-limited
    patterns find no path to it: the explorer must show that state instead of failing.
    """
    utterances = {}
    for k, frames in enumerate(lengths):
        t = np.arange(frames * 80) / RATE
        wave = np.sin(2 * np.pi * (300 + 200 * k) * t * (1 + t)) * np.hanning(len(t))
        track = np.linspace(0, 1, frames)[:, None] * np.arange(1, 14)[None, :]
        utterances[f"word{k}"] = (wave, RATE, np.sin(track + k) + 0.05 * rng.normal(size=track.shape))
    return utterances


def test_alignment_explorer_survives_every_control():
    explorer = alignment_explorer(synthetic_utterances(np.random.default_rng(0)))
    start = time.perf_counter()
    states = exercise_explorer(explorer)
    per_render = (time.perf_counter() - start) / (2 * states)  # harness renders twice per state
    assert states >= 15
    assert per_render < 1.0, f"render too slow: {per_render:.2f} s"


def test_alignment_explorer_reports_no_path_in_the_figure():
    explorer = alignment_explorer(synthetic_utterances(np.random.default_rng(1)), audio=False)
    fig = explorer.render(x_name="word2", y_name="word0", step_pattern="asymmetric", band=0,
                          metric="euclidean")
    assert "no path" in fig._suptitle.get_text()
    fig = explorer.render(x_name="word0", y_name="word1", step_pattern="symmetric2", band=60,
                          metric="cosine")
    assert "d(X, Y) = D / 95" in fig._suptitle.get_text()


def test_alignment_explorer_rejects_bad_utterances():
    with pytest.raises(TypeError, match="utterances"):
        alignment_explorer({"a": (np.zeros(10), RATE)})
    with pytest.raises(ValueError, match="first"):
        alignment_explorer(synthetic_utterances(np.random.default_rng(2)), first="nope")


def test_subsequence_explorer_survives_every_control():
    rng = np.random.default_rng(3)
    words = synthetic_utterances(rng)
    reference_features = np.concatenate([words["word2"][2], rng.normal(size=(10, 13)),
                                         words["word0"][2]])
    references = {"phone": (np.zeros(len(reference_features) * 80), RATE, reference_features)}
    explorer = subsequence_explorer(words, references, max_matches=3)
    assert exercise_explorer(explorer) >= 10
    fig = explorer.render(query="word0", reference="phone", step_pattern="asymmetric",
                          metric="euclidean", n_matches=1)
    assert "best match frames 29-68" in fig._suptitle.get_text()


def test_subsequence_explorer_offers_the_slope_limited_pattern():
    from course_lib.dtw import ASYMMETRIC_P1

    rng = np.random.default_rng(4)
    words = synthetic_utterances(rng)
    reference_features = np.concatenate([rng.normal(size=(12, 13)), words["word1"][2],
                                         rng.normal(size=(12, 13))])
    references = {"phone": (np.zeros(len(reference_features) * 80), RATE, reference_features)}
    explorer = subsequence_explorer(words, references)
    options = dict(explorer.controls["step_pattern"].options)
    assert options["asymmetricP1"] is ASYMMETRIC_P1
    fig = explorer.render(query="word1", reference="phone", step_pattern=ASYMMETRIC_P1,
                          metric="euclidean", n_matches=1)
    # word1 (55 frames) sits at frames 12-66 and is found there
    assert "best match frames 12-66" in fig._suptitle.get_text()
