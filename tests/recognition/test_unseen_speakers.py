"""Measuring a recogniser on speakers it never heard (course_lib.recognition.unseen_speakers):
folds that never share a speaker, the exact interval against scipy's, the per-speaker counts
and the most confused pairs by hand, and a nested choice that never sees the held-out speaker."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from course_lib.recognition import (Accuracy, Recogniser, choose_by_speaker_folds, evaluate,
                                    most_confused_pairs, per_speaker_accuracy, speaker_folds)


def test_each_speaker_is_left_out_once_and_never_trained_on():
    speakers = np.array(["b", "a", "b", "c", "a", "c", "c"])
    folds = speaker_folds(speakers)
    assert [name for name, _, _ in folds] == ["a", "b", "c"]
    for name, train, test in folds:
        assert set(speakers[test]) == {name} and name not in set(speakers[train])
        assert sorted(np.concatenate([train, test]).tolist()) == list(range(7))
    with pytest.raises(ValueError, match="speakers: need at least two"):
        speaker_folds(["a", "a"])


@pytest.mark.parametrize("correct, total", [(0, 10), (7, 10), (10, 10), (410, 500), (1, 3)])
def test_the_interval_is_clopper_pearson_as_scipy_computes_it(correct, total):
    accuracy = Accuracy(correct, total)
    exact = binomtest(correct, total).proportion_ci(0.95, method="exact")
    # both are beta quantiles from one scipy: equal up to the root finder's last bits
    assert accuracy.interval == pytest.approx((exact.low, exact.high), abs=1e-12)
    assert accuracy.rate == correct / total
    assert str(Accuracy(7, 10)) == "0.70 (7/10; 95% 0.35-0.93)"


def test_accuracy_of_predictions_and_bad_counts():
    assert Accuracy.of([1, 2, 3, 3], [1, 2, 3, 2]) == Accuracy(3, 4)
    with pytest.raises(ValueError, match="predictions: expected one per label"):
        Accuracy.of([1, 2], [1])
    with pytest.raises(ValueError, match="successes"):
        Accuracy(5, 4)


def test_per_speaker_counts_and_most_confused_pairs_by_hand():
    labels = np.array([0, 1, 2, 0, 1, 2, 1])
    predictions = np.array([0, 2, 1, 0, 1, 1, 2])
    report = evaluate(labels, predictions, np.arange(3))
    per = per_speaker_accuracy(report, ["x", "x", "x", "y", "y", "y", "y"])
    assert per == {"x": Accuracy(1, 3), "y": Accuracy(2, 4)}
    # 1 -> 2 twice and 2 -> 1 twice: the pair (1, 2) four times, either way round
    assert most_confused_pairs(report) == [((1, 2), 4)]
    with pytest.raises(ValueError, match="speakers: expected one per item"):
        per_speaker_accuracy(report, ["x"])


class _Nearest(Recogniser):
    """Labels an item (a number) by the nearest class mean; ``shift`` moves every mean."""

    def __init__(self, items, labels, shift):
        self.classes = np.unique(labels)
        self.means = np.array([np.mean([x for x, y in zip(items, labels) if y == c])
                               for c in self.classes]) + shift
        self.seen = list(items)

    def scores(self, items):
        return -np.abs(np.asarray(items, float)[:, None] - self.means[None, :])


def test_the_nested_choice_uses_only_the_speakers_it_is_given():
    rng = np.random.default_rng(0)
    labels = np.tile([0, 1], 30)
    items = labels * 4.0 + rng.normal(0, 1, 60)
    speakers = np.repeat(["a", "b", "c"], 20)
    fitted = []

    def fit(shift, train_items, train_labels):
        fitted.append(_Nearest(train_items, train_labels, shift))
        return fitted[-1]

    choice = choose_by_speaker_folds(fit, (3.0, 0.0, 0.0), items, labels, speakers)
    assert choice.best == 0.0 and choice.best_index == 1        # ties go to the first listed
    assert choice.inner_speakers == ("a", "b", "c") and choice.inner_accuracy.shape == (3, 3)
    assert all(len(model.seen) == 40 for model in fitted)       # never the left-out speaker
    with pytest.raises(ValueError, match="settings: expected at least one"):
        choose_by_speaker_folds(fit, (), items, labels, speakers)
    with pytest.raises(ValueError, match="labels, speakers: expected one per item"):
        choose_by_speaker_folds(fit, (0.0,), items, labels[:-1], speakers)
