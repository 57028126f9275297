"""Simulation-based calibration of the class ratings model (issue 59, "intervals that hold").

Classes of known truth (``class_panel.simulated.calibration_classes``): on a panel whose five
experts have known noise, students of every kind (mixed, lenient, harsh, noisy, few answers;
25 each) and a class of 200 mixed students score a round of 20 clips, once with the clips high
on the scale (13 of 20 at an experts' mean of 7.4 or more, as the default round of issue 47)
and once with the clips spread over it, as issue 59's classes did: the clip's experts' mean
plus the student's bias plus noise, rounded and clipped to 0-10. Two seeds, so 1,300 student
intervals of each kind and 24 intervals of k.

The model's choices (the grids, the class's prior of the noise and its least sd) were made on
these seeds; experiments/class_panel_calibration.py reports on seeds it did not see.

At commit 1ff5964 (plug-in intervals, scores taken as exact; its bias interval the estimate
+- 1.645 standard errors) the same grid gives: bias 0.794 (1,032 of 1,300: fails), noise 0.850
(1,105 of 1,300: at the band's edge) and k 11 of 24 (fails).
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.class_panel.score_model import class_ratings_model
from course_lib.class_panel.simulated import calibration_classes, interval_hits

SEEDS = (0, 1)


@pytest.fixture(scope="module")
def hits():
    found = {"bias": [], "noise": [], "k": []}
    for seed in SEEDS:
        for _, _, panel, truth in calibration_classes(seed):
            result = class_ratings_model((truth.ratings, truth.pseudonyms, truth.items), panel,
                                         rng=seed)
            for kind, hit in interval_hits(result, truth).items():
                found[kind].append(np.atleast_1d(hit))
    return {kind: np.concatenate(values) for kind, values in found.items()}


@pytest.mark.parametrize("kind", ["bias", "noise"])
def test_the_90_percent_intervals_of_bias_and_noise_hold_85_to_95_percent(hits, kind):
    """1,300 intervals: a method whose intervals hold 90 % of the time has a binomial spread
    of sqrt(0.9 x 0.1 / 1300) = 0.008 in its coverage, so the band 0.85-0.95 (the issue's) lies
    six of those from 0.9: a calibrated model fails it with probability below 1e-8, one whose
    coverage is 0.83 passes with probability 0.03."""
    coverage = hits[kind].mean()
    assert hits[kind].size == 1300
    assert 0.85 <= coverage <= 0.95, f"{kind}: {coverage:.3f} of {hits[kind].size}"


def test_the_interval_of_k_holds_the_true_k(hits):
    """24 classes: the number of intervals holding the true k is binomial. The issue asks for
    at least 85 %; at a true coverage of 0.9 (the intervals' level) 19 or more of 24 hold with
    probability 0.97, at 0.85 with 0.86, at 0.7 with 0.23 and at 0.5 with 0.003. So at least 19
    of 24: the test can tell a method far below the goal, not 0.85 from 0.8 (the experiment's
    report seeds add more classes)."""
    covered = int(hits["k"].sum())
    assert hits["k"].size == 24
    assert covered >= 19, f"k: {covered} of 24"
