"""A listener as the sixth rater of a panel (course_lib.raters.listener_panel): the score sheet,
the panel with a listener, and its widget. A class's sheets are pooled by
course_lib.class_panel.collect (tests/class_panel/test_collect.py).

Simulated listeners stand in for a person: one who gives each sentence its experts' rounded
mean must come out as the least noisy rater of the six, one who answers at random as the
noisiest, and a lenient one with a positive bias.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.rater_data import RaterData
from course_lib.raters.listener_panel import ScoreSheet, panel_with_listener, with_listener
from course_lib.widgets.listener_panel import rate_yourself


@pytest.fixture(scope="module")
def panel():
    return load_speechocean762("fluency")


def sheet_with(panel, scores) -> ScoreSheet:
    sheet = ScoreSheet([clip.item for clip in panel.clips_to_rate()])
    for clip, score in enumerate(scores):
        sheet.score(clip, score)
    return sheet


def test_sheet_refuses_off_scale_scores_by_clip_and_keeps_the_rest(tmp_path):
    sheet = ScoreSheet([10, 20, 30])
    sheet.score(0, 7)
    for bad in (11, -1, 6.5, "seven", np.nan):
        with pytest.raises(ValueError, match=r"value \(clip 2\): expected a whole score 0-10"):
            sheet.score(1, bad)
    with pytest.raises(ValueError, match="clip: expected a clip index 0..2"):
        sheet.score(3, 5)
    assert sheet.scores == [7, None, None]
    sheet.score(0, None)                      # taken back
    assert sheet.n_scored == 0
    (tmp_path / "saved.json").write_text(json.dumps({"items": [10, 20, 99],
                                                     "scores": [4, 12, 3]}))
    sheet.score(1, 2)
    problems = sheet.load(tmp_path / "saved.json")
    assert sheet.scores == [4, 2, None]       # 12 refused, 2 kept; item 99 is not on the sheet
    assert any("clip 2:" in p and "kept 2" in p for p in problems)
    assert any("item 99" in p for p in problems)
    (tmp_path / "other.txt").write_text("not json")
    with pytest.raises(ValueError, match="path: .* is not a saved score sheet"):
        sheet.load(tmp_path / "other.txt")
    assert sheet.scores == [4, 2, None]


def test_save_and_load_round_trip(tmp_path):
    sheet = ScoreSheet([3, 1, 2])
    sheet.score(2, 10)
    sheet.score(0, 0)
    again = ScoreSheet([3, 1, 2])
    assert again.load(sheet.save(tmp_path / "s.json")) == []
    assert again.scores == [0, None, 10]
    items, scores = again.scored()
    np.testing.assert_array_equal(items, [3, 2])
    np.testing.assert_array_equal(scores, [0.0, 10.0])


def test_with_listener_appends_one_rater():
    experts = RaterData.from_matrix(np.array([[5.0, 6.0], [7.0, np.nan], [2.0, 3.0]]),
                                    scale=(0, 10))
    everyone = with_listener(experts, [0, 2], [9, 1])
    assert everyone.n_raters == 3 and everyone.n_items == 3
    np.testing.assert_array_equal(everyone.matrix()[:, 2], [9, np.nan, 1])
    np.testing.assert_array_equal(everyone.matrix()[:, :2], experts.matrix())


def test_a_listener_is_ranked_by_how_far_they_stray(panel):
    means = np.array([panel.ratings.means[c.item] for c in panel.clips_to_rate()])
    careful = panel_with_listener(panel, sheet_with(panel, np.clip(np.round(means), 0, 10)))
    assert np.argmin(careful.noise_variance) == 5          # closest to the latent: the mean
    assert abs(careful.bias[5]) < 0.3
    rng = np.random.default_rng(7)
    guesser = panel_with_listener(panel, sheet_with(panel, rng.integers(0, 11, means.size)))
    assert np.argmax(guesser.noise_variance) == 5
    lenient = panel_with_listener(panel, sheet_with(panel, np.clip(np.round(means) + 2, 0, 10)))
    assert lenient.bias[5] > 1.0                           # +2 on most, capped at 10 on some
    np.testing.assert_array_equal(careful.n_scores, [300] * 5 + [20])
    # what was fitted, by clip index in play order, so a later change can be told from the fit
    np.testing.assert_array_equal(careful.rated_clips, np.arange(20))
    np.testing.assert_array_equal(careful.listener_scores, np.clip(np.round(means), 0, 10))
    # the experts' side of the fit does not depend on the listener's scores
    np.testing.assert_array_equal(careful.panel_histograms, guesser.panel_histograms)
    assert careful.sigma2_without == guesser.sigma2_without
    for result in (careful, guesser):
        np.testing.assert_allclose(np.exp(result.log_p_with).sum(axis=1), 1.0, atol=1e-9)


def test_too_few_scores_is_a_one_line_message(panel):
    with pytest.raises(ValueError, match="sheet: score at least 3 clips first"):
        panel_with_listener(panel, sheet_with(panel, [5, 5]))


def test_the_synthetic_fluency_set_takes_a_sixth_rater_too(tmp_path):
    from course_lib.data.fluency import load_fluency
    fluency = load_fluency()
    clips = fluency.clips_to_rate()
    assert len(clips) == 20 and all(clip.item in fluency.train for clip in clips)
    assert np.all(np.diff([clip.truth for clip in clips]) >= 0)
    sheet = ScoreSheet([clip.item for clip in clips])
    for number, clip in enumerate(clips):          # a listener who hears the hidden truth
        sheet.score(number, int(np.clip(round(clip.truth), 0, 10)))
    result = panel_with_listener(fluency, sheet)    # 200 training items: all are context
    assert np.argmin(result.noise_variance) == 5
    assert result.n_scores[5] == 20 and result.n_scores[:5].sum() > 900
    widget = rate_yourself(tmp_path / "s.json", data_set="fluency")
    assert widget.sheet.items == tuple(clip.item for clip in clips)
    with pytest.raises(ValueError, match="data_set: expected one of"):
        rate_yourself(tmp_path / "s.json", data_set="timit")
