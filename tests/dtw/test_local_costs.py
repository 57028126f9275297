"""Unit tests for course_lib.dtw.local_costs, the compiled local distances d(i, j): every metric
against scipy, one row of a band left alone outside its columns, and the checks of ``metric``
and ``variances`` naming the argument."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.stats import multivariate_normal

from course_lib.dtw.alignment import local_cost_matrix
from course_lib.dtw.local_costs import METRICS, _frame_norms, _metric_terms, local_cost_row

# sums of a few O(1) squares: scipy and the compiled loop add them in other orders, a few
# hundred eps relative
ROUND_OFF = 1e-12


def test_local_costs_match_scipy():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(7, 4)), rng.normal(size=(5, 4))
    for metric in ("euclidean", "sqeuclidean", "cosine"):
        np.testing.assert_allclose(local_cost_matrix(x, y, metric), cdist(x, y, metric),
                                   rtol=1e-12, atol=1e-14)
    var = rng.uniform(0.5, 2.0, 4)
    expected = -np.array([[multivariate_normal(mu, np.diag(var)).logpdf(xi) for mu in y]
                          for xi in x])
    np.testing.assert_allclose(local_cost_matrix(x, y, "gaussian_nll", variances=var), expected,
                               rtol=1e-12)
    per_frame = rng.uniform(0.5, 2.0, (5, 4))
    expected = -np.array([[multivariate_normal(y[j], np.diag(per_frame[j])).logpdf(xi)
                           for j in range(5)] for xi in x])
    np.testing.assert_allclose(local_cost_matrix(x, y, "gaussian_nll", variances=per_frame),
                               expected, rtol=1e-12)

@pytest.mark.parametrize("metric", METRICS)
def test_one_row_of_a_band_fills_only_its_columns(metric):
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(9, 4))
    local = _metric_terms(metric, None, x, y, ("x", "y"))
    out = np.full(9, -1.0)  # a sentinel no distance takes
    local_cost_row(x[1], _frame_norms(x, local[0])[1], np.ascontiguousarray(y.T),
                   _frame_norms(y, local[0]), local, np.int64(2), np.int64(5), out)
    np.testing.assert_allclose(out[2:6], local_cost_matrix(x, y, metric)[1, 2:6],
                               rtol=ROUND_OFF, atol=ROUND_OFF)
    assert np.all(out[:2] == -1.0) and np.all(out[6:] == -1.0)


@pytest.mark.parametrize("metric,variances,match", [
    ("manhattan", None, "^metric"),
    ("euclidean", [1.0, 1.0], "^variances: only used with metric='gaussian_nll'"),
    ("gaussian_nll", [1.0, 0.0], "^variances: must all be > 0"),
    ("gaussian_nll", [1.0, 2.0, 3.0], r"^variances: expected shape"),
])
def test_metric_and_variances_are_checked_by_name(metric, variances, match):
    x = np.ones((3, 2))
    with pytest.raises(ValueError, match=match):
        _metric_terms(metric, variances, x, x, ("x", "y"))


def test_variances_per_template_frame_only_where_allowed():
    x, y = np.ones((3, 2)), np.ones((4, 2))
    per_frame = np.ones((4, 2))
    assert _metric_terms("gaussian_nll", per_frame, x, y, ("x", "y"))[1].shape == (2, 4)
    with pytest.raises(ValueError, match="^variances: expected shape"):
        _metric_terms("gaussian_nll", per_frame, x, y, ("x", "y"), per_frame_ok=False)


def test_cosine_refuses_an_all_zero_frame_naming_its_sequence():
    x, y = np.ones((3, 2)), np.ones((4, 2))
    y[2] = 0.0
    with pytest.raises(ValueError, match="^templates: cosine distance is undefined"):
        _metric_terms("cosine", None, x, y, ("queries", "templates"))
