"""The pieces of the context model (course_lib.pronunciation.context_model), each checked
against a reference library or a closed form: the per-phone ridge against scikit-learn, the
rounded PCC against numpy and scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from sklearn.linear_model import Ridge

from course_lib.metrics import round_scores
from course_lib.pronunciation.context_model import (PerPhoneRidge, fit_sparse_regression,
                                                    round_to_scale)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="penalty"):
        PerPhoneRidge(penalty=0)
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
