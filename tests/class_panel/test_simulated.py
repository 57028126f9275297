"""course_lib.class_panel.simulated: a simulated class whose sheets carry the truth drawn."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from course_lib.class_panel.activities import RateActivity, compare_activity
from course_lib.class_panel.collect import collect
from course_lib.class_panel.simulated import (CLIP_SETS, UNDECIDED, _known_truth_panel,
                                              _round_clips, calibration_classes,
                                              known_truth_class, simulated_class, taste_class,
                                              true_utility)

RATE = RateActivity(seed=3, items=tuple(range(40)))
COMPARE = compare_activity(3, n_settings=8, n_pairs=28)
MEANS = np.linspace(1.5, 8.5, 40)


def test_the_sheets_collect_with_the_two_odd_students_named(tmp_path):
    truth = simulated_class(tmp_path, 12, RATE, COMPARE, MEANS, rng=5)
    collection = collect(tmp_path, RATE, COMPARE)
    assert len(truth.paths) == 24 and len(collection.pseudonyms) == 12
    notes = [record.reason for record in collection.sheets if record.reason]
    assert any("every clip scored 7" in note for note in notes)
    assert any("20 of 40 answered" in note for note in notes)
    assert simulated_class(tmp_path / "again", 12, RATE, COMPARE, MEANS, rng=5).bias == \
        truth.bias


def test_scores_follow_each_students_bias(tmp_path):
    truth = simulated_class(tmp_path, 60, RATE, COMPARE, MEANS, rng=6)
    collection = collect(tmp_path, RATE, COMPARE)
    items, raters, scores = collection.rate_labels
    offsets = np.bincount(raters, scores - MEANS[items]) / np.bincount(raters)
    odd = set(list(truth.bias)[:2])     # constant 7s, and a half-filled sheet
    kept = [n for n, name in enumerate(collection.rate_raters) if name not in odd]
    drawn = [truth.bias[collection.rate_raters[n]] for n in kept]
    # 40 scores of sd <= 2.5 put a student's mean offset within ~0.4 of a bias of sd 1
    # (clipping at 0 and 10 shrinks a few): a correlation of 0.9 leaves room
    assert np.corrcoef(offsets[kept], drawn)[0, 1] > 0.9


def test_a_student_prefers_the_setting_nearer_their_ideal(tmp_path):
    truth = simulated_class(tmp_path, 80, RATE, COMPARE, MEANS, rng=7)
    collection = collect(tmp_path, RATE, COMPARE)
    nearer, farther = [], []
    for name, (first, second, y) in collection.comparisons.items():
        distance = np.linalg.norm(COMPARE.settings - truth.ideal[name], axis=1)
        closer_first = distance[first] < distance[second]
        nearer += list(y[closer_first] == 0.95)
        farther += list(y[~closer_first] == 0.95)
    assert np.mean(nearer) > np.mean(farther) + 0.2


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="^expert_means: "):
        simulated_class(tmp_path, 3, RATE, COMPARE, MEANS[:5])
    with pytest.raises(ValueError, match="^n_students: "):
        simulated_class(tmp_path, 0, RATE, COMPARE, MEANS)


def test_aknown_truth_class_scores_around_the_experts_mean():
    """Scores are the experts' mean + bias + noise, rounded and clipped: a lenient class sits
    above the experts' mean by about its bias (2 on average, less where 10 cuts it off), and
    the true k is the issue's formula."""
    panel = _known_truth_panel(7)
    items = _round_clips(panel, "spread", np.random.default_rng(7))
    truth = known_truth_class(panel, items, "lenient", 40, 7)
    offsets = np.nanmean(truth.ratings.matrix() - panel.ratings.means[items][:, None], axis=0)
    # 20 scores of sd <= 2.5: each mean offset within ~0.6 of the bias; clipping only lowers it
    assert np.all(offsets < truth.bias + 0.6) and np.corrcoef(offsets, truth.bias)[0, 1] > 0.6
    assert truth.k_needed == int(np.ceil(5 * (truth.noise_variance.mean() + 1 / 12) /
                                         (panel.expert_noise.mean() + 1 / 12)))
    assert np.all(np.diff(np.sort(panel.ratings.means[items])) >= 0)
    few = known_truth_class(panel, items, "few answers", 25, 7)
    assert np.all(few.ratings.rater_counts == items.size // 2)
    with pytest.raises(ValueError, match="^kind: "):
        known_truth_class(panel, items, "sleepy", 5, 7)
    with pytest.raises(ValueError, match="^clip_set: "):
        _round_clips(panel, "low", np.random.default_rng(0))


def test_a_taste_class_of_one_taste_shares_one_ideal_and_answers_every_pair():
    compare = compare_activity()
    comparisons, ideals = taste_class(compare, 6, 0.0, rng=3)
    assert ideals.shape == (6, compare.settings.shape[1]) and np.all(ideals == ideals[0])
    assert sorted(comparisons) == [f"student-{n:03d}" for n in range(6)]
    assert all(set(np.unique(y)) <= {0.05, 0.5, 0.95} and y.size == len(compare.pairs)
               for _, _, y in comparisons.values())
    spread = taste_class(compare, 6, 4.0, rng=3)[1]
    assert not np.all(spread == spread[0])
    # the true favourite is the setting nearest the ideal
    utility = true_utility(compare.settings, ideals)
    nearest = np.argmin(np.linalg.norm(compare.settings - ideals[0], axis=1))
    assert np.all(np.argmax(utility, axis=1) == nearest)


def test_an_answer_is_none_within_the_undecided_band():
    """In a class of one taste every student has the same true difference d per pair, so the
    share answering "none" is P(|d + e| <= t) = Phi(t - d) - Phi(-t - d), t = UNDECIDED."""
    compare = compare_activity()
    comparisons, ideals = taste_class(compare, 400, 0.0, rng=11)
    utility = true_utility(compare.settings, ideals[0])[0]
    first, second = np.array(compare.pairs).T
    d = utility[first] - utility[second]
    none = np.mean([y == 0.5 for _, _, y in comparisons.values()], axis=0)
    expected = norm.cdf(UNDECIDED - d) - norm.cdf(-UNDECIDED - d)
    # 400 answers per pair: a binomial sd of at most 0.025; 4 sd over 15 pairs
    assert np.all(np.abs(none - expected) < 0.1) and expected.max() > 0.2


def test_the_calibration_grid_runs_over_the_clip_sets_in_order():
    grid = calibration_classes(3, n_large=0)
    assert tuple(dict.fromkeys(clip_set for clip_set, *_ in grid)) == CLIP_SETS
    assert [kind for clip_set, kind, *_ in grid if clip_set == CLIP_SETS[0]] == \
        ["mixed", "lenient", "harsh", "noisy", "few answers"]
