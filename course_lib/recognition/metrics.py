"""Measures of a recogniser (Units 1-3): the confusion matrix and accuracy, with their report.

:func:`_confusion_matrix` counts items by true and predicted class, :func:`evaluate` gives the
accuracy and the matrix as a :class:`RecognitionReport` (with the per-class accuracy and a
one-line summary). The recognisers of :mod:`course_lib.recognition` use them and show them to a
reader. :func:`compare_on_same_items` asks whether one recogniser is better than another on the
same test items, or whether the gap is within chance (exact McNemar test). They sit apart from :mod:`course_lib.metrics` (the scores of Units 5-7) because they
count labels rather than score numbers on a scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

__all__ = ["RecognitionReport", "evaluate", "PairedComparison", "compare_on_same_items"]


def _label_array(values, name: str) -> np.ndarray:
    """``values`` checked and returned as a non-empty 1-D array of labels (any hashable
    dtype), the check of every labels argument of a recogniser; errors name the argument
    ``name``."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: expected a sequence of labels, got {type(values).__name__}")
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-D sequence of labels, got shape "
                         f"{arr.shape}")
    return arr


def _confusion_matrix(labels, predictions, classes) -> np.ndarray:
    """Counts ``C[a, b]`` of items of class ``classes[a]`` predicted as ``classes[b]``.

    Rows are the true class, columns the predicted one; ``np.trace(C) / C.sum()`` is the
    accuracy. A label or prediction that is not in ``classes`` raises ``ValueError``.
    """
    labels = _label_array(labels, "labels")
    predictions = _label_array(predictions, "predictions")
    classes = _label_array(classes, "classes")
    if labels.shape != predictions.shape:
        raise ValueError(f"predictions: expected one per label ({labels.shape[0]}), got "
                         f"{predictions.shape[0]}")
    index = {c: k for k, c in enumerate(classes.tolist())}
    if len(index) != len(classes):
        raise ValueError("classes: contains duplicates")
    for name, values in (("labels", labels), ("predictions", predictions)):
        unknown = [v for v in values.tolist() if v not in index]
        if unknown:
            raise ValueError(f"{name}: {unknown[0]!r} is not one of classes "
                             f"{classes.tolist()}")
    out = np.zeros((len(classes), len(classes)), dtype=np.int64)
    np.add.at(out, ([index[v] for v in labels.tolist()],
                    [index[v] for v in predictions.tolist()]), 1)
    return out


@dataclass(frozen=True)
class RecognitionReport:
    """Accuracy and confusion matrix of predictions against true labels.

    ``confusion[a, b]`` counts items of ``classes[a]`` recognised as ``classes[b]``.
    """

    accuracy: float
    confusion: np.ndarray
    classes: np.ndarray
    predictions: np.ndarray
    labels: np.ndarray

    @property
    def n_items(self) -> int:
        return int(self.labels.shape[0])

    @property
    def n_errors(self) -> int:
        return int(np.sum(self.predictions != self.labels))

    @property
    def class_accuracy(self) -> np.ndarray:
        """Fraction of each class's items recognised correctly (NaN for a class with none)."""
        totals = self.confusion.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals > 0, np.diag(self.confusion) / totals, np.nan)

    def summary(self, class_names=None) -> str:
        """One line: accuracy, errors, and the most frequent confusion."""
        names = [str(c) for c in self.classes] if class_names is None else list(class_names)
        off = self.confusion - np.diag(np.diag(self.confusion))
        text = f"accuracy {self.accuracy:.3f} ({self.n_errors} errors in {self.n_items})"
        if off.max() > 0:
            a, b = np.unravel_index(np.argmax(off), off.shape)
            text += f"; most frequent confusion: {names[a]} -> {names[b]} ({off[a, b]}x)"
        return text


def evaluate(labels, predictions, classes=None) -> RecognitionReport:
    """Accuracy and confusion matrix of ``predictions`` against the true ``labels``.

    ``classes`` defaults to the sorted union of both.
    """
    labels = _label_array(labels, "labels")
    predictions = _label_array(predictions, "predictions")
    if classes is None:
        classes = np.unique(np.concatenate([labels, predictions]))
    confusion = _confusion_matrix(labels, predictions, classes)
    return RecognitionReport(float(np.trace(confusion) / confusion.sum()), confusion,
                             np.asarray(classes), predictions, labels)


@dataclass(frozen=True)
class PairedComparison:
    """Two recognisers on the same items: how many items only the first got right, how many
    only the second, and the exact two-sided McNemar p-value of the difference."""

    first_only: int
    second_only: int
    p_value: float

    def __str__(self) -> str:
        return (f"right only by the first: {self.first_only}, only by the second: "
                f"{self.second_only} (exact McNemar p = {self.p_value:.2g})")


def compare_on_same_items(labels, first, second) -> PairedComparison:
    """Is one recogniser better than the other on these items, or is the gap within chance?

    Items both get right or both get wrong say nothing about which is better; of the
    ``n = b + c`` items exactly one gets right, under "equally good" each is the first's with
    probability 1/2, so the first's count ``b`` is Binomial(n, 1/2) (McNemar 1947, in its exact
    form). The two-sided p-value is ``min(1, 2 P(X <= min(b, c)))``; 1 when ``n = 0``.
    ``first`` and ``second`` are the two recognisers' predictions for ``labels``.
    """
    labels = _label_array(labels, "labels")
    first, second = _label_array(first, "first"), _label_array(second, "second")
    for name, values in (("first", first), ("second", second)):
        if values.shape != labels.shape:
            raise ValueError(f"{name}: expected one prediction per label ({labels.shape[0]}), "
                             f"got {values.shape[0]}")
    first_right, second_right = first == labels, second == labels
    b = int(np.sum(first_right & ~second_right))
    c = int(np.sum(second_right & ~first_right))
    p_value = 1.0 if b + c == 0 else min(1.0, 2.0 * float(binom.cdf(min(b, c), b + c, 0.5)))
    return PairedComparison(b, c, p_value)
