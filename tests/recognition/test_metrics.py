"""Measures of a recogniser (course_lib.recognition.metrics): the confusion matrix and the
report, by hand."""

import numpy as np

from course_lib.recognition.metrics import _confusion_matrix, evaluate


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
