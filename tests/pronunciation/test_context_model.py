"""The pieces of the context model (course_lib.pronunciation.context_model), each checked
against a reference library or a closed form: the per-phone ridge against scikit-learn, the
rounded PCC against numpy and scipy, the speaker interval's coverage in a simulation where the
truth is known."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from sklearn.linear_model import Ridge

from course_lib.metrics import round_scores
from course_lib.pronunciation.context_model import (PerPhoneRidge, fit_sparse_regression,
                                                    round_to_scale, speaker_interval)


def test_bad_input_names_the_argument():
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
