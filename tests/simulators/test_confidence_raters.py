"""course_lib.simulators.confidence_raters: simulated subjects built from Wu et al.'s printed
marginals.

Where the paper prints a marginal the simulation forces it, so it must hold exactly (subject #2:
24 nines, 42 ratings >= 7 and none below 3 out of 50; the gait subject: 218 / 176 / 78); the
rest is checked against its definition (choices ~ Bernoulli(Phi(df)) by a binomial test, ratings
following |df| for a calibrated subject) and for determinism.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, norm

from course_lib.mixed.confidence import ConfidencePreferenceGP
from course_lib.gp.kernels import SquaredExponential
from course_lib.simulators.confidence_raters import (GAIT_LEVEL_COUNTS, OVERCONFIDENT_SUBJECT,
                                                     _calibrated_ratings, _gait_latent,
                                                     _rating_splits, preference_scores,
                                                     gait_like_subject, _haptic_latent,
                                                     haptic_like_subjects, likert_synthetic_trials,
                                                     _overconfident_ratings, ranked_levels,
                                                     _rating_levels)


def test_rating_levels_are_the_seeds_blocks_of_three():
    np.testing.assert_array_equal(_rating_levels(np.arange(1, 10)),
                                  [0, 0, 0, 1, 1, 1, 2, 2, 2])
    np.testing.assert_array_equal(_rating_levels([1, 2, 3], scale=3), [0, 1, 2])


def test_overconfident_subject_has_the_printed_marginals_exactly():
    ratings = _overconfident_ratings(50, rng=0)
    assert np.sum(ratings == 9) == 24            # 48 %
    assert np.sum(ratings >= 7) == 42            # 84 %
    assert np.sum(ratings < 3) == 0
    subject = haptic_like_subjects(rng=1)[OVERCONFIDENT_SUBJECT - 1]
    assert subject.name == "#2"
    assert np.sum(subject.ratings == 9) == 24 and np.sum(subject.ratings >= 7) == 42
    assert subject.ratings.min() >= 3
    np.testing.assert_array_equal(np.bincount(subject.levels.astype(int), minlength=3),
                                  [np.sum(subject.ratings <= 3), np.sum(
                                      (subject.ratings >= 4) & (subject.ratings <= 6)), 42])


def test_overconfident_ratings_ignore_the_pairs():
    # the same counts whatever the latent differences: only the order is random
    a, b = _overconfident_ratings(50, rng=0), _overconfident_ratings(50, rng=1)
    np.testing.assert_array_equal(np.sort(a), np.sort(b))
    assert not np.array_equal(a, b)


def test_gait_subject_has_the_printed_level_counts_and_ranks_by_strength():
    subject = gait_like_subject(rng=4)
    assert subject.n_trials == 472
    np.testing.assert_array_equal(np.bincount(subject.levels.astype(int)), GAIT_LEVEL_COUNTS)
    np.testing.assert_array_equal(subject.ratings, subject.levels + 1)
    np.testing.assert_allclose(subject.latent_difference,
                               _gait_latent(subject.X_first) - _gait_latent(subject.X_second))
    # without noise the ranking is exactly by strength
    strength = np.array([0.3, 0.1, 2.0, 0.7, 0.2])
    np.testing.assert_array_equal(ranked_levels(strength, [2, 2, 1], 0.0), [1, 0, 2, 1, 0])


def test_calibrated_ratings_follow_the_strength():
    strength = np.linspace(0, 3, 40)
    exact = _calibrated_ratings(strength, 0.0)
    np.testing.assert_array_equal(exact, np.clip(np.round(1 + 8 * np.tanh(strength)), 1, 9))
    assert np.all(np.diff(exact) >= 0) and exact[0] == 1 and exact[-1] == 9
    noisy = _calibrated_ratings(np.repeat(strength, 20), 1.0, rng=0)
    assert noisy.min() >= 1 and noisy.max() <= 9 and np.all(noisy == np.round(noisy))
    # away from the clipped ends the noisy ratings centre on 1 + 8 tanh(strength): rounding a
    # N(mu, 1) value is unbiased there to ~1e-3, and the mean of 400 draws has sd
    # sqrt(1 + 1/12) / 20
    middle = np.array([0.3, 0.5, 0.7])
    draws = _calibrated_ratings(np.repeat(middle, 400), 1.0, rng=1).reshape(3, 400)
    np.testing.assert_allclose(draws.mean(axis=1), 1 + 8 * np.tanh(middle),
                               atol=4 * np.sqrt(1 + 1 / 12) / 20)


def test_choices_are_bernoulli_phi_of_the_latent_difference():
    trials = likert_synthetic_trials(4000, rng=5)
    np.testing.assert_allclose(trials.latent_difference,
                               trials.X_first[:, 0] - trials.X_second[:, 0])
    # first-preferred answers among pairs with the first ahead by 0.5 .. 1.5: a binomial test
    # against the mean of Phi(df) over those pairs
    ahead = (trials.latent_difference > 0.5) & (trials.latent_difference < 1.5)
    expected = norm.cdf(trials.latent_difference[ahead]).mean()
    test = binomtest(int(trials.choices[ahead].sum()), int(ahead.sum()), expected)
    assert test.pvalue > 1e-3
    np.testing.assert_array_equal(trials.levels,
                                  np.searchsorted([0.5, 1.0], np.abs(trials.latent_difference)))


def test_haptic_subjects_use_the_haptic_latent_and_map_ratings_to_levels():
    subjects = haptic_like_subjects(n_pairs=50, rng=2)
    assert [s.name for s in subjects] == ["#1", "#2", "#3", "#4", "#5"]
    for s in subjects:
        assert s.n_trials == 50
        np.testing.assert_allclose(s.latent_difference,
                                   _haptic_latent(s.X_first) - _haptic_latent(s.X_second))
        np.testing.assert_array_equal(s.levels, _rating_levels(s.ratings))
        X, first, second = s.items([3, 7])
        np.testing.assert_array_equal(X[first], s.X_first[[3, 7]])
        np.testing.assert_array_equal(X[second], s.X_second[[3, 7]])


@pytest.mark.parametrize("make", [lambda rng: haptic_like_subjects(rng=rng)[0],
                                  lambda rng: gait_like_subject(rng=rng),
                                  lambda rng: likert_synthetic_trials(rng=rng)])
def test_the_same_seed_gives_the_same_subject_and_another_seed_another(make):
    a, b, c = make(11), make(11), make(12)
    for field in ("X_first", "X_second", "choices", "levels"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.X_first, c.X_first)


def small_subject():
    """A calibrated haptic-like subject with 16 pairs (8 to train, 8 to test per split)."""
    return haptic_like_subjects(n_pairs=16, rng=11)[0]


def test_preference_scores_are_the_metrics_of_the_confidence_model():
    subject, kernel = small_subject(), SquaredExponential(0.3, 2.0)
    (train, test), = _rating_splits(subject.n_trials, 8, 1, rng=0)
    assert sorted(np.concatenate([train, test]).tolist()) == list(range(subject.n_trials))
    scores = preference_scores(subject, subject.levels, kernel, [(train, test)],
                               use_ratings=True)
    X, first, second = subject.items(train)
    model = ConfidencePreferenceGP(kernel).fit(X, first, second, subject.choices[train],
                                               subject.levels[train])
    mean, var = model.predict_difference(subject.X_first[test], subject.X_second[test])
    # eq. 3 by hand, at VariationalGP's default tolerance: RATER_TOL costs ~1e-4 in Brier
    p_first = norm.cdf(mean / np.sqrt(1 + var))
    labels = subject.choices[test]
    assert scores[0, 0] == pytest.approx(np.mean((p_first - labels) ** 2), abs=1e-3)
    predicted = mean > 0
    tp = np.sum(predicted & (labels == 1))
    f1 = 2 * tp / (2 * tp + np.sum(predicted & (labels == 0)) + np.sum(~predicted & (labels == 1)))
    assert scores[0, 1] == pytest.approx(f1, abs=1e-12)



@pytest.mark.parametrize("call, name", [
    (lambda: _rating_splits(10, 10, 2), "n_train"),
    (lambda: _rating_splits(10, 5, 0), "n_splits"),
    (lambda: preference_scores(small_subject(), [0.0, 1.0], SquaredExponential(),
                               _rating_splits(16, 8, 1), use_ratings=True), "levels"),
    (lambda: preference_scores("subject", np.zeros(16), SquaredExponential(),
                               _rating_splits(16, 8, 1), use_ratings=True), "trials"),
])
def test_scores_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)
