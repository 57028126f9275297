"""The context features (course_lib.pronunciation.context_features), checked against their
definitions: the LPR against the canonical phone's log-likelihood minus each phone's, the
duration, place in the word and neighbours' features by hand on a small sentence."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.data.speechocean762 import RecipePhone
from course_lib.pronunciation.context_features import (NEIGHBOUR_FEATURES, PHONE_FEATURES,
                                                       WORD_FEATURES, _log_posterior_ratios,
                                                       _lpr_summaries, _duration_means,
                                                       phone_features, phone_statistics,
                                                       release_phone_labels, with_neighbours,
                                                       word_features)

SET = ("AA", "B", "K", "SIL")


def _phones():
    return [RecipePhone(0, "BAK", "B", 0.10, 0.15, -1.0, "B", 1.0),
            RecipePhone(0, "BAK", "AA", 0.15, 0.30, -0.5, "AA", 0.8),
            RecipePhone(0, "BAK", "K", 0.30, 0.36, -3.0, "SIL", 0.0),
            RecipePhone(1, "A", "AA", 0.40, 0.50, -0.2, "AA", 1.0)]


def test_lpr_is_the_canonical_loglik_minus_each_phones():
    loglik = np.array([[-1.0, -3.0, -2.0, -5.0], [-4.0, 0.0, -1.0, -2.0]])
    lpr = _log_posterior_ratios(loglik, np.array([0, 2]))
    np.testing.assert_allclose(lpr, [[0.0, 2.0, 1.0, 4.0], [3.0, -1.0, 0.0, 1.0]])
    summaries = _lpr_summaries(lpr, np.array([0, 2]), silence=3)
    # margin over the best other speech phone, mean over the others, phones beating it, silence
    np.testing.assert_allclose(summaries, [[1.0, 1.5, 0, 4.0], [-1.0, 1.0, 1, 1.0]])


def test_phone_features_hold_duration_position_and_context():
    phones = _phones()
    loglik = -np.abs(np.random.default_rng(0).normal(size=(4, len(SET))))
    X = phone_features(phones, loglik, SET, np.full(4, -0.3), {"AA": 1.5, "B": 1.9}, 1.7,
                       _duration_means([phones]))
    at = {name: k for k, name in enumerate(PHONE_FEATURES)}
    assert X.shape == (4, len(PHONE_FEATURES))
    np.testing.assert_allclose(X[:, at["phone_prior"]], [1.9, 1.5, 1.7, 1.5])
    # AA lasts 15 and 10 frames, mean 12.5
    np.testing.assert_allclose(X[[1, 3], at["log_duration_ratio"]], np.log([15 / 12.5,
                                                                            10 / 12.5]))
    np.testing.assert_array_equal(X[:, at["first_in_word"]], [1, 0, 0, 1])
    np.testing.assert_array_equal(X[:, at["last_in_word"]], [0, 0, 1, 1])
    word_gop = (5 * -1.0 + 15 * -0.5 + 6 * -3.0) / 26
    np.testing.assert_allclose(X[:3, at["word_gop"]], word_gop)
    wide = with_neighbours(X)
    k = len(NEIGHBOUR_FEATURES)
    assert wide.shape == (4, len(PHONE_FEATURES) + 2 * k)
    assert np.all(np.isnan(wide[0, -2 * k:-k])) and np.all(np.isnan(wide[-1, -k:]))
    np.testing.assert_array_equal(wide[1, -2 * k], X[0, at["gop"]])     # the phone before
    np.testing.assert_array_equal(wide[1, -k], X[2, at["gop"]])         # the phone after
    W = word_features(phones, X, np.array([2.0, 1.0, 0.5, 2.0]), np.zeros(4))
    assert W.shape == (2, len(WORD_FEATURES))
    np.testing.assert_allclose(W[:, 0], [3.5 / 3, 2.0])                  # mean phone score
    np.testing.assert_allclose(W[:, 1], [0.5, 2.0])                      # least phone score
    column = {name: k for k, name in enumerate(WORD_FEATURES)}
    np.testing.assert_allclose(W[:, column["sd_phone_score"]],
                               [np.std([2.0, 1.0, 0.5]), 0.0])
    np.testing.assert_allclose(W[:, column["share_below_one_and_a_half"]], [2 / 3, 0.0])
    np.testing.assert_array_equal(W[:, column["first_word"]], [1, 0])
    np.testing.assert_array_equal(W[:, column["last_word"]], [0, 1])
    np.testing.assert_allclose(W[:, column["sentence_mean_phone_score"]], 5.5 / 4)
    np.testing.assert_allclose(W[:, column["sentence_gop"]], X[0, at["sentence_gop"]])
    np.testing.assert_allclose(W[:, column["max_abs_log_duration_ratio"]],
                               [np.abs(X[:3, at["log_duration_ratio"]]).max(),
                                abs(X[3, at["log_duration_ratio"]])])


def test_release_labels_and_training_statistics_by_hand():
    experts = np.array([[2, 2, 1, np.nan, 2], [np.nan] * 5, [0, 0, 1, 0, 0], [2] * 5])
    labels = release_phone_labels(experts)
    np.testing.assert_allclose(labels, [7 / 4, np.nan, 1 / 5, 2.0])
    priors, default, frames = phone_statistics([_phones()], [labels])
    # B 7/4; AA 2.0 (its first row has no label); K 1/5; the mean over the labelled three
    assert priors == pytest.approx({"B": 7 / 4, "AA": 2.0, "K": 1 / 5})
    assert default == pytest.approx((7 / 4 + 1 / 5 + 2.0) / 3)
    assert frames == _duration_means([_phones()])


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="expert_scores"):
        release_phone_labels([1.0, 2.0])
    with pytest.raises(ValueError, match="labels"):
        phone_statistics([_phones()], [np.ones(3)])
    with pytest.raises(ValueError, match="labels"):
        phone_statistics([_phones()], [np.full(4, np.nan)])
    with pytest.raises(ValueError, match="canonical"):
        _log_posterior_ratios(np.zeros((2, 3)), np.array([0, 3]))
    with pytest.raises(ValueError, match="frame_loglik"):
        phone_features(_phones(), np.zeros((3, len(SET))), SET, np.zeros(4), {}, 1.0, {"AA": 1})
    with pytest.raises(ValueError, match="features"):
        with_neighbours(np.zeros((3, 2)))
