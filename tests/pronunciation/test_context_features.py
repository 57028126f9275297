"""The context features and the pieces of the context model (course_lib.pronunciation
.context_features and .context_model), each checked against a reference library or a closed
form: the ridge against scikit-learn, the rounded PCC against numpy/scipy, the speaker interval's
coverage in simulation where the truth is known, the LPR table against its own definition."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from sklearn.linear_model import Ridge

from course_lib.data.speechocean762 import RecipePhone
from course_lib.data.speechocean762_lpr import load_lpr_table
from course_lib.metrics import round_scores
from course_lib.pronunciation.context_features import (NEIGHBOUR_FEATURES, PHONE_FEATURES,
                                                       WORD_FEATURES, duration_means,
                                                       log_posterior_ratios,
                                                       lpr_summaries, phone_features,
                                                       with_neighbours, word_features)
from course_lib.pronunciation.context_model import (PerPhoneRidge, fit_sparse_regression,
                                                    round_to_scale, speaker_interval)

SET = ("AA", "B", "K", "SIL")


def _phones():
    return [RecipePhone(0, "BAK", "B", 0.10, 0.15, -1.0, "B", 1.0),
            RecipePhone(0, "BAK", "AA", 0.15, 0.30, -0.5, "AA", 0.8),
            RecipePhone(0, "BAK", "K", 0.30, 0.36, -3.0, "SIL", 0.0),
            RecipePhone(1, "A", "AA", 0.40, 0.50, -0.2, "AA", 1.0)]


def test_lpr_is_the_canonical_loglik_minus_each_phones():
    loglik = np.array([[-1.0, -3.0, -2.0, -5.0], [-4.0, 0.0, -1.0, -2.0]])
    lpr = log_posterior_ratios(loglik, np.array([0, 2]))
    np.testing.assert_allclose(lpr, [[0.0, 2.0, 1.0, 4.0], [3.0, -1.0, 0.0, 1.0]])
    summaries = lpr_summaries(lpr, np.array([0, 2]), silence=3)
    # margin over the best other speech phone, mean over the others, phones beating it, silence
    np.testing.assert_allclose(summaries, [[1.0, 1.5, 0, 4.0], [-1.0, 1.0, 1, 1.0]])


def test_phone_features_hold_duration_position_and_context():
    phones = _phones()
    loglik = -np.abs(np.random.default_rng(0).normal(size=(4, len(SET))))
    X = phone_features(phones, loglik, SET, np.full(4, -0.3), {"AA": 1.5, "B": 1.9}, 1.7,
                       duration_means([phones]))
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


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="canonical"):
        log_posterior_ratios(np.zeros((2, 3)), np.array([0, 3]))
    with pytest.raises(ValueError, match="frame_loglik"):
        phone_features(_phones(), np.zeros((3, len(SET))), SET, np.zeros(4), {}, 1.0, {"AA": 1})
    with pytest.raises(ValueError, match="features"):
        with_neighbours(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="penalty"):
        PerPhoneRidge(penalty=0)
    with pytest.raises(ValueError, match="speakers"):
        speaker_interval(np.mean, (np.zeros(4),), np.zeros(3))
    with pytest.raises(ValueError, match="X"):
        fit_sparse_regression(np.full((5, 2), np.inf), np.zeros(5), 2)


def test_per_phone_ridge_is_scikit_learns_ridge_for_each_phone():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 5))
    phones = np.array(["AA"] * 250 + ["B"] * 120 + ["K"] * 30)
    y = X @ rng.normal(size=5) + (phones == "B") + rng.normal(0, 0.1, 400)
    model = PerPhoneRidge(penalty=3.0, min_count=50).fit(X, y, phones)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    for name, rows in (("AA", phones == "AA"), ("B", phones == "B")):
        reference = Ridge(alpha=3.0).fit(Z[rows], y[rows])
        np.testing.assert_allclose(model.predict(X[rows], phones[rows]),
                                   reference.predict(Z[rows]), atol=1e-10)
    # too few K rows: the ridge on every row
    pooled = Ridge(alpha=3.0).fit(Z, y)
    np.testing.assert_allclose(model.predict(X[phones == "K"], phones[phones == "K"]),
                               pooled.predict(Z[phones == "K"]), atol=1e-10)


def test_rounding_to_the_scale_and_the_rounded_pcc_match_numpy_and_scipy():
    values = np.array([-0.4, 0.5, 1.49, 1.5, 2.7, 9.5, 10.6])
    np.testing.assert_array_equal(round_to_scale(values, (0, 2)), [0, 1, 1, 2, 2, 2, 2])
    np.testing.assert_array_equal(round_to_scale(values, (0, 10)),
                                  np.clip(round_scores(values), 0, 10))
    rng = np.random.default_rng(2)
    truth, predicted = rng.uniform(0, 2, 300), rng.uniform(0, 2, 300)
    r = np.corrcoef(round_to_scale(truth, (0, 2)), round_to_scale(predicted, (0, 2)))[0, 1]
    assert r == pytest.approx(scipy.stats.pearsonr(np.floor(truth + 0.5),
                                                   np.floor(predicted + 0.5))[0], abs=1e-12)


def test_the_speaker_interval_holds_a_known_pcc_about_95_percent_of_the_time():
    rng = np.random.default_rng(3)

    def draw(n_speakers, per_speaker=20):
        shared = rng.normal(0, 1, n_speakers)
        x = np.repeat(shared, per_speaker) + rng.normal(0, 1, n_speakers * per_speaker)
        y = 0.6 * np.repeat(shared, per_speaker) + 0.3 * x + rng.normal(0, 1, x.size)
        return x, y, np.repeat(np.arange(n_speakers), per_speaker)
    x, y, _ = draw(40_000)
    truth = np.corrcoef(x, y)[0, 1]
    held = 0
    draws = 120
    for _ in range(draws):
        x, y, speakers = draw(60)
        low, high, values = speaker_interval(lambda a, b: np.corrcoef(a, b)[0, 1], (x, y),
                                             speakers, n_resamples=300, rng=rng)
        held += low <= truth <= high
    # 95% stated; 120 draws put a true 95% within about 0.89-0.99
    assert 0.87 <= held / draws <= 1.0


def test_the_speaker_interval_resamples_whole_speakers():
    speakers = np.repeat(["a", "b", "c"], [1, 2, 3])
    values = np.repeat([1.0, 2.0, 3.0], [1, 2, 3])
    _, _, drawn = speaker_interval(lambda v: v.size, (values,), speakers, n_resamples=200,
                                   rng=np.random.default_rng(4))
    # three speakers drawn each time: sizes are sums of three of 1, 2, 3
    assert set(drawn) <= {3, 4, 5, 6, 7, 8, 9}


def test_the_lpr_table_matches_the_shipped_phones():
    phone_set, table = load_lpr_table()
    assert len(phone_set) == 40 and phone_set[-1] == "SIL"
    loglik, lpp = table[0]
    # every frame's best phone is at 0, so the means are at most 0; the LPP is a log posterior
    assert np.all(loglik <= 0) and np.all(lpp <= 0)
    assert sum(rows[0].shape[0] for rows in table.values()) == 95_660
