"""The precision-weighted means of GPR-MA (Gil-González, Álvarez & Orozco 2019, eq. 1;
course_lib.raters.annotator_noise.weighted_means): a hand-worked item, the factorisation of the
labels' likelihood for any f, and bad input."""

import numpy as np
import pytest
from scipy import stats

from bad_input import BadInput, check_case, parametrize
from course_lib.linalg import LOG_2PI
from course_lib.rater_data import RaterData
from course_lib.raters import weighted_means
from tests.raters.test_multi_rater import ragged_panel


def test_weighted_means_by_hand():
    # one item, labels 1 and 3 with noise variances 1 and 3: precisions 1 and 1/3, total 4/3,
    # Sigma = 3/4, yhat = 3/4 (1 + 1) = 1.5; residuals -0.5 and 1.5 weigh 0.25 + 0.75 = 1, so
    # c = -1/2 log 2pi + 1/2 log(1/3) + 1/2 log(3/4) - 1/2 = -1/2 log 2pi - log 2 - 1/2
    data = RaterData.from_long([0, 0], [0, 1], [1.0, 3.0])
    weighted = weighted_means(data, [1.0, 3.0])
    assert weighted.target[0] == pytest.approx(1.5)
    assert weighted.noise[0] == pytest.approx(0.75)
    assert weighted.constant == pytest.approx(-0.5 * LOG_2PI - np.log(2) - 0.5)


def test_weighted_means_factorise_the_labels_for_any_f():
    X, data = ragged_panel()
    rng = np.random.default_rng(7)
    noise = rng.uniform(0.1, 2.0, data.n_raters)[data.raters]  # one variance per rater
    weighted = weighted_means(data, noise)
    for _ in range(3):
        f = rng.normal(0, 2, data.n_items)
        labels = stats.norm(f[data.items], np.sqrt(noise)).logpdf(data.scores).sum()
        means = stats.norm(f, np.sqrt(weighted.noise)).logpdf(weighted.target).sum()
        assert labels == pytest.approx(means + weighted.constant, rel=1e-12)


DATA = RaterData.from_matrix(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
CASES = [
    BadInput("raters: negative noise per label",
             lambda: weighted_means(DATA, [1, 1, -1, 1, 1, 1]), ValueError, "noise_per_label"),
    BadInput("raters: zero noise per label", lambda: weighted_means(DATA, [1, 1, 0, 1, 1, 1]),
             ValueError, "noise_per_label"),
    BadInput("raters: one noise per rater instead of per label",
             lambda: weighted_means(DATA, [1, 1, 1]), ValueError, "noise_per_label"),
    BadInput("raters: weighted means of a score matrix, not a RaterData",
             lambda: weighted_means(np.ones((3, 2)), np.ones(6)), TypeError, "data"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
