"""course_lib.class_panel.activities: the same items for every student, in each one's own order."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from course_lib.class_panel.activities import (_GAIN_RANGE_DB, RateActivity, compare_activity,
                                               rate_activity)
from course_lib.data.speechocean762 import load_speechocean762


def _toy_panel(n=400, n_speakers=100):
    """A stand-in for the corpus: item i by speaker i % n_speakers, expert mean i / 40."""
    rng = np.random.default_rng(1)
    return SimpleNamespace(train=np.arange(n), speakers=[f"s{i % n_speakers}" for i in range(n)],
                           ratings=SimpleNamespace(means=rng.permutation(n) / 40.0),
                           aspect="fluency")


def test_a_seed_draws_one_sentence_per_band_of_the_experts_mean_from_distinct_speakers():
    panel = _toy_panel()
    activity = rate_activity(5, 10, panel=panel)
    assert activity == rate_activity(5, 10, panel=panel)
    assert activity.items != rate_activity(6, 10, panel=panel).items
    means = panel.ratings.means[list(activity.items)]
    bands = np.searchsorted(np.sort(panel.ratings.means)[40::40], means, side="right")
    assert sorted(bands.tolist()) == list(range(10))
    assert len({panel.speakers[i] for i in activity.items}) == 10


def test_seed_none_is_the_rate_yourself_panels_twenty_clips():
    panel = load_speechocean762("fluency")
    activity = rate_activity(None, panel=panel)
    assert activity.items == tuple(clip.item for clip in panel.clips_to_rate())
    assert "shipped" in activity.set_id
    drawn = rate_activity(panel=panel)
    assert set(drawn.items) <= set(panel.train.tolist()) and len(set(drawn.items)) == 20
    with pytest.raises(ValueError, match="^n_clips: seed None is the 20 shipped clips"):
        rate_activity(None, 10, panel=panel)


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
    (lambda: rate_activity("7", panel=_toy_panel()), "seed"),
    (lambda: rate_activity(1, 2, panel=_toy_panel()), "n_clips"),
    (lambda: rate_activity(1, 90, panel=_toy_panel(n=400, n_speakers=30)), "n_clips"),
])
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=f"^{name}: "):
        call()
