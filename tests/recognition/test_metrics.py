"""Measures of a recogniser (course_lib.recognition.metrics): the confusion matrix and the
report, by hand; the paired comparison by hand and against scipy's and statsmodels' exact
tests."""

import numpy as np
import pytest
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar

from course_lib.recognition.metrics import _confusion_matrix, compare_on_same_items, evaluate


def test_confusion_matrix_counts_rows_true_columns_predicted():
    np.testing.assert_array_equal(_confusion_matrix([0, 0, 1, 2], [0, 1, 1, 0], [0, 1, 2]),
                                  [[1, 1, 0], [0, 1, 0], [1, 0, 0]])


def test_evaluate_report():
    report = evaluate(["a", "a", "b", "c"], ["a", "b", "b", "a"])
    assert report.accuracy == 0.5 and report.n_errors == 2 and report.n_items == 4
    np.testing.assert_array_equal(report.classes, ["a", "b", "c"])
    np.testing.assert_allclose(report.class_accuracy, [0.5, 1.0, 0.0])
    assert report.summary().startswith("accuracy 0.500 (2 errors in 4)")
    assert "a -> b (1x)" in report.summary()


def test_paired_comparison_counts_the_items_only_one_gets_right_and_tests_them_exactly():
    labels = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    first = np.array([0, 1, 2, 3, 4, 9, 9, 9])          # right on the first five
    second = np.array([0, 9, 9, 9, 9, 9, 9, 7])         # right on items 0 and 7
    comparison = compare_on_same_items(labels, first, second)
    assert (comparison.first_only, comparison.second_only) == (4, 1)
    # by hand: 2 P(X <= 1), X ~ Binomial(5, 1/2) = 2 * 6/32
    assert comparison.p_value == pytest.approx(12 / 32, rel=1e-12)
    assert "exact McNemar p = 0.38" in str(comparison)
    assert compare_on_same_items(labels, first, first).p_value == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_paired_comparison_matches_scipys_and_statsmodels_exact_tests(seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, 300)
    first = np.where(rng.random(300) < 0.8, labels, (labels + 1) % 10)
    second = np.where(rng.random(300) < 0.7, labels, (labels + 3) % 10)
    comparison = compare_on_same_items(labels, first, second)
    b, c = comparison.first_only, comparison.second_only
    # the same p-value two ways: a two-sided binomial test at 1/2 and statsmodels' McNemar
    assert comparison.p_value == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-9)
    table = [[0, b], [c, 0]]                             # only the discordant cells matter
    assert comparison.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)


def test_paired_comparison_names_a_bad_argument():
    with pytest.raises(ValueError, match="second: expected one prediction per label"):
        compare_on_same_items([0, 1, 2], [0, 1, 2], [0, 1])
    with pytest.raises(TypeError, match="first: expected a sequence of labels"):
        compare_on_same_items([0, 1], None, [0, 1])
