"""The Unit 1 explorers, driven in-process on synthetic utterances (no data files needed)."""

from __future__ import annotations

import ipywidgets as W
import numpy as np
import pytest

from widget_harness import exercise_explorer
from course_lib.dtw.step_patterns import ASYMMETRIC_P1
from course_lib.widgets.dtw import _FIGURE_SIZE, alignment_explorer, subsequence_explorer

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


def with_silent_frame(utterances):
    """Add an utterance whose first frame is all zeros: the cosine distance refuses it."""
    utterances = dict(utterances)
    features = np.vstack([np.zeros((1, 13)), utterances["word0"][2]])
    utterances["silent"] = (np.zeros(len(features) * 80), RATE, features)
    return utterances


def test_alignment_explorer_survives_every_control_and_recovers_from_errors():
    explorer = alignment_explorer(with_silent_frame(synthetic_utterances(np.random.default_rng(0))))
    error = {"metric": "cosine", "x_name": "silent"}
    assert exercise_explorer(explorer, error_settings=[error]) >= 15


def test_explorers_put_controls_beside_a_laptop_sized_figure():
    # 1366 x 768 screen: a column of controls and players left of a 760 x 520 px figure
    words = synthetic_utterances(np.random.default_rng(5))
    for explorer in (alignment_explorer(words), subsequence_explorer(words, words)):
        row = explorer.widget
        assert isinstance(row, W.HBox) and row.children[1] is explorer.output
        column = row.children[0]
        assert all(control in column.children for control in explorer.controls.values())
        fig = explorer.render(**explorer.values())
        assert tuple(fig.get_size_inches()) == _FIGURE_SIZE and fig.dpi * _FIGURE_SIZE[1] <= 520


def test_alignment_explorer_names_the_refused_utterance():
    explorer = alignment_explorer(with_silent_frame(synthetic_utterances(np.random.default_rng(6))),
                                  audio=False)
    explorer.controls["metric"].value = "cosine"
    explorer.controls["x_name"].value = "silent"
    assert isinstance(explorer.last_error, ValueError)
    assert str(explorer.last_error).startswith("x: cosine distance is undefined")


def test_alignment_explorer_reports_no_path_in_the_figure():
    explorer = alignment_explorer(synthetic_utterances(np.random.default_rng(1)), audio=False)
    fig = explorer.render(x_name="word2", y_name="word0", step_pattern="asymmetric", band=0,
                          metric="euclidean")
    assert "no path" in fig._suptitle.get_text()
    fig = explorer.render(x_name="word0", y_name="word1", step_pattern="symmetric2", band=60,
                          metric="cosine")
    assert "D(n-1, m-1) = " in fig._suptitle.get_text()
    assert "d(X, Y) = D(n-1, m-1) / 95 = " in fig._suptitle.get_text()


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
    references = with_silent_frame(
        {"phone": (np.zeros(len(reference_features) * 80), RATE, reference_features),
         "word0": words["word0"]})
    explorer = subsequence_explorer(words, references, max_matches=3)
    error = {"metric": "cosine", "reference": "silent"}
    assert exercise_explorer(explorer, error_settings=[error]) >= 10
    fig = explorer.render(query="word0", reference="phone", step_pattern="asymmetric",
                          metric="euclidean", n_matches=1)
    assert "best match frames 29-68" in fig._suptitle.get_text()


def test_subsequence_explorer_offers_the_slope_limited_pattern():
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


def test_search_players_play_the_query_and_the_best_match():
    rng = np.random.default_rng(7)
    words = synthetic_utterances(rng)
    reference_features = np.concatenate([rng.normal(size=(12, 13)), words["word1"][2],
                                         rng.normal(size=(12, 13))])
    reference_wave = rng.normal(size=len(reference_features) * 80)
    references = {"phone": (reference_wave, RATE, reference_features)}
    explorer = subsequence_explorer(words, references, frame_shift=0.01)
    explorer.controls["step_pattern"].value = ASYMMETRIC_P1
    explorer.controls["query"].value = "word1"
    assert explorer.last_error is None
    (query_label, query_wave, _), (match_label, match_wave, rate) = explorer.playing()
    assert "word1" in query_label and query_wave is words["word1"][0]
    # the best match is frames 12-66 of the reference: samples 12 * 80 to 67 * 80
    np.testing.assert_array_equal(match_wave, reference_wave[12 * 80:67 * 80])
    assert rate == RATE and "0.12-0.67 s" in match_label


def test_search_players_never_show_a_stale_match_after_an_error():
    rng = np.random.default_rng(8)
    words = synthetic_utterances(rng)
    features = np.concatenate([np.zeros((1, 13)), words["word0"][2], rng.normal(size=(30, 13))])
    references = {"good": (np.ones(len(features) * 80), RATE, features[1:]),
                  "zero frame": (np.ones(len(features) * 80), RATE, features)}
    explorer = subsequence_explorer(words, references)
    explorer.controls["metric"].value = "cosine"
    assert explorer.last_error is None and len(explorer.playing()) == 2
    explorer.controls["reference"].value = "zero frame"   # cosine undefined: the redraw fails
    assert isinstance(explorer.last_error, ValueError)
    assert [label for label, _, _ in explorer.playing()] == ["query <b>word0</b>"]
    explorer.controls["reference"].value = "good"
    assert explorer.last_error is None and len(explorer.playing()) == 2


def test_alignment_players_follow_the_dropdowns():
    words = synthetic_utterances(np.random.default_rng(9))
    explorer = alignment_explorer(words)
    explorer.controls["y_name"].value = "word2"
    shown = explorer.players.shown
    assert [label for label, _, _ in shown] == ["x = <b>word0</b>", "y = <b>word2</b>"]
    np.testing.assert_array_equal(shown[1][1], words["word2"][0])
    assert all(audio.value and audio.layout.display is None for audio in explorer.players.audio)
    assert not any(audio.loop or audio.autoplay for audio in explorer.players.audio)


def test_search_player_slot_of_a_failed_match_is_hidden():
    rng = np.random.default_rng(10)
    words = synthetic_utterances(rng)
    references = with_silent_frame({"word0": words["word0"]})
    explorer = subsequence_explorer(words, references)
    explorer.controls["metric"].value = "cosine"
    explorer.controls["reference"].value = "silent"            # the redraw fails
    assert explorer.last_error is not None
    assert explorer.players.labels[1].layout.display == "none"
    assert explorer.players.audio[1].layout.display == "none"
