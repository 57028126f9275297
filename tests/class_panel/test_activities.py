"""course_lib.class_panel.activities: the same items for every student, in each one's own order."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.class_panel.activities import (_GAIN_RANGE_DB, RateActivity, compare_activity,
                                               rate_activity)
from course_lib.data.speechocean762 import load_speechocean762


def test_the_round_draws_from_the_twenty_clips_every_copy_of_the_course_can_play():
    panel = load_speechocean762("fluency")
    shipped = [clip.item for clip in panel.clips_to_rate()]
    every = rate_activity(5, panel=panel)
    assert every.items == tuple(shipped) and every.set_id == rate_activity(6, panel=panel).set_id
    some = rate_activity(5, 12, panel=panel)
    assert some == rate_activity(5, 12, panel=panel) and len(set(some.items)) == 12
    assert set(some.items) < set(shipped) and some.items != rate_activity(6, 12, panel=panel).items
    assert some.set_id != every.set_id
    with pytest.raises(ValueError, match="^n_clips: "):
        rate_activity(1, 21, panel=panel)
    with pytest.raises(ValueError, match="^seed: "):
        rate_activity("7", panel=panel)


def test_every_student_meets_the_same_items_in_an_own_reproducible_order():
    activity = RateActivity(3, tuple(range(50, 70)))
    orders = {name: activity.order_for(name) for name in ("a-b-01", "a-b-02", "c-d-03")}
    assert all(sorted(order) == list(range(20)) for order in orders.values())
    assert len(set(orders.values())) == 3
    assert activity.order_for("a-b-01") == orders["a-b-01"]
    with pytest.raises(ValueError, match="^pseudonym: "):
        activity.order_for(" ")


def test_compare_pairs_are_distinct_settings_in_the_loops_range():
    activity = compare_activity(11, n_settings=8, n_pairs=28, n_bands=3)
    low, high = _GAIN_RANGE_DB
    assert activity.settings.shape == (8, 3) and len(np.unique(activity.settings, axis=0)) == 8
    assert activity.settings.min() >= low and activity.settings.max() <= high
    assert all(first != second for first, second in activity.pairs)
    assert len({frozenset(pair) for pair in activity.pairs}) == 28
    assert compare_activity(11, 8, 28, 3).set_id == activity.set_id
    assert compare_activity(12, 8, 28, 3).set_id != activity.set_id


@pytest.mark.parametrize("call, name", [
    (lambda: compare_activity(-1), "seed"),
    (lambda: compare_activity(1.5), "seed"),
    (lambda: compare_activity(True), "seed"),
    (lambda: compare_activity(1, n_settings=4, n_pairs=7), "n_pairs"),
    (lambda: compare_activity(1, n_settings=2), "n_settings"),
    (lambda: compare_activity(1, n_bands=5), "n_bands"),
    (lambda: compare_activity(1, clip="jazz"), "clip"),
])
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=f"^{name}: "):
        call()
