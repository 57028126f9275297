"""Counting by the speaker (course_lib.recognition.over_speakers): the t interval over speakers
against scipy's one-sample t interval, the paired t and sign tests against scipy's, McNemar per
speaker, and the widening to the exact interval over takes where speakers agree."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, ttest_1samp, ttest_rel

from course_lib.recognition import (Accuracy, SpeakerAccuracy, compare_on_same_items,
                                    compare_over_speakers)

# the same float operations in another order: a few ulps of quantities near 1
ULPS = 1e-12


def _counts(rates, total=100):
    return SpeakerAccuracy({f"s{k}": Accuracy(int(round(r * total)), total)
                            for k, r in enumerate(rates)})


def test_the_interval_is_scipys_t_interval_over_the_speakers():
    rates = [0.76, 0.86, 0.85, 0.60, 0.95, 0.88]
    accuracy = _counts(rates)
    scipy_interval = ttest_1samp(rates, 0.0).confidence_interval(0.95)
    assert accuracy.interval == pytest.approx((scipy_interval.low, scipy_interval.high), abs=ULPS)
    assert accuracy.rate == pytest.approx(np.mean(rates), abs=ULPS)
    assert accuracy.takes == Accuracy(490, 600)
    assert accuracy.hardest == ("s3", 0.60) and accuracy.easiest == ("s4", 0.95)
    assert str(accuracy) == "0.82 over 6 speakers (95% 0.69-0.95; per speaker 0.60-0.95)"


def test_speakers_who_agree_get_at_least_the_interval_over_takes():
    perfect = _counts([1.0, 1.0, 1.0], total=10)
    assert perfect.interval == pytest.approx(Accuracy(30, 30).interval, abs=ULPS)
    assert perfect.interval[1] == 1.0 and perfect.interval[0] < 1.0
    # a wide spread near the top: t would pass 1, the interval stops there
    assert _counts([0.3, 1.0, 1.0]).interval[1] == 1.0


def test_of_counts_each_speaker_once_whatever_their_number_of_takes():
    labels = np.array([1, 1, 1, 1, 2, 2])
    predictions = np.array([1, 1, 1, 2, 1, 2])
    speakers = np.array(["a", "a", "a", "a", "b", "b"])
    accuracy = SpeakerAccuracy.of(labels, predictions, speakers)
    assert accuracy.per_speaker == {"a": Accuracy(3, 4), "b": Accuracy(1, 2)}
    assert accuracy.rate == pytest.approx((0.75 + 0.5) / 2, abs=ULPS)
    assert accuracy.takes.rate == pytest.approx(4 / 6, abs=ULPS)
    assert SpeakerAccuracy.from_counts({"a": {"correct": 3, "total": 4, "rate": 0.75},
                                        "b": {"correct": 1, "total": 2}}) == accuracy


def test_the_comparison_is_mcnemar_per_speaker_and_scipys_paired_tests_across():
    rng = np.random.default_rng(7)
    speakers = np.repeat(["a", "b", "c", "d", "e"], 40)
    labels = rng.integers(0, 3, size=200)
    first = np.where(rng.random(200) < 0.8, labels, (labels + 1) % 3)
    second = np.where(rng.random(200) < 0.7, labels, (labels + 2) % 3)
    found = compare_over_speakers(labels, first, second, speakers)
    acc = {name: np.array([np.mean(p[speakers == s] == labels[speakers == s])
                           for s in "abcde"]) for name, p in (("1", first), ("2", second))}
    reference = ttest_rel(acc["1"], acc["2"])
    assert found.t_p_value == pytest.approx(reference.pvalue, abs=ULPS)
    ci = reference.confidence_interval(0.95)
    assert found.interval == pytest.approx((ci.low, ci.high), abs=ULPS)
    wins, losses = int(np.sum(acc["1"] > acc["2"])), int(np.sum(acc["1"] < acc["2"]))
    assert (found.first_wins, found.second_wins) == (wins, losses)
    assert found.sign_p_value == pytest.approx(binomtest(wins, wins + losses).pvalue, abs=ULPS)
    for s in "abcde":
        mine = speakers == s
        assert found.per_speaker[s] == compare_on_same_items(labels[mine], first[mine],
                                                             second[mine])
    assert str(found).startswith(f"first better on {wins} of 5 speakers")


def test_a_comparison_with_no_spread_between_speakers():
    labels = np.zeros(6, dtype=int)
    speakers = np.repeat(["a", "b", "c"], 2)
    same = compare_over_speakers(labels, labels, labels, speakers)
    assert same.t_p_value == 1.0 and same.sign_p_value == 1.0
    assert same.first_wins == same.second_wins == 0


@pytest.mark.parametrize("call, error, name", [
    (lambda: SpeakerAccuracy({"a": Accuracy(1, 2)}), ValueError, "per_speaker"),
    (lambda: SpeakerAccuracy({"a": Accuracy(1, 2), "b": (1, 2)}), TypeError, "per_speaker"),
    (lambda: SpeakerAccuracy.of([1, 2], [1, 2], ["a", "a"]), ValueError, "speakers"),
    (lambda: SpeakerAccuracy.of([1, 2], [1, 2], ["a"]), ValueError, "speakers"),
    (lambda: SpeakerAccuracy.of([1, 2], [1], ["a", "b"]), ValueError, "predictions"),
    (lambda: compare_over_speakers([1, 2], [1, 2], [1], ["a", "b"]), ValueError, "second"),
    (lambda: compare_over_speakers([1, 2], [1, 2], [1, 2], "ab"), TypeError, "speakers"),
])
def test_bad_input_names_the_argument(call, error, name):
    with pytest.raises(error, match=name):
        call()
