"""course_lib.class_panel.activities: the same items for every student, in each one's own order."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.class_panel.activities import (_GAIN_RANGE_DB, _SCALE_RECORDINGS, RateActivity,
                                               compare_activity, rate_activity)
from course_lib.data.speechocean762 import load_speechocean762


@pytest.fixture(scope="module")
def panel():
    return load_speechocean762("fluency")


def test_the_default_round_covers_the_scale_by_its_stated_rule(panel):
    means = panel.ratings.means
    scale = sorted((float(means[item]), item) for item, utterance in enumerate(panel.utterances)
                   if utterance in _SCALE_RECORDINGS)
    assert len(scale) == 40
    default = rate_activity(5, panel=panel)
    # the rule by hand: 16 evenly spaced ranks of the 40 sorted by the experts' mean
    ranks = [round(k * 39 / 15) for k in range(16)]
    assert default.items == tuple(scale[rank][1] for rank in ranks)
    assert default.set_id == rate_activity(6, panel=panel).set_id     # the seed only orders
    shown = means[list(default.items)]
    # the ends of the scale are in the round: the lowest and highest of the 40 (0.8 and 9.4)
    assert shown.min() == scale[0][0] and shown.max() == scale[-1][0]
    assert np.histogram(shown, bins=[0, 3, 4, 5, 6, 7, 8, 9, 10.01])[0].min() >= 1
    short = rate_activity(5, 10, panel=panel)
    assert len(short.items) == 10 and short.set_id != default.set_id
    assert means[list(short.items)].min() == scale[0][0]
    assert means[list(short.items)].max() == scale[-1][0]
    clips = panel.clips(default.items)          # every recording read from the corpus's copy
    assert [clip.truth for clip in clips] == shown.tolist()   # the same numbers, read alike


def test_the_panel_round_draws_from_the_twenty_clips_every_copy_of_the_course_can_play(panel):
    shipped = [clip.item for clip in panel.clips_to_rate()]
    every = rate_activity(5, clips="panel", panel=panel)
    assert every.items == tuple(shipped)
    assert every.set_id == rate_activity(6, clips="panel", panel=panel).set_id
    some = rate_activity(5, 12, clips="panel", panel=panel)
    assert some == rate_activity(5, 12, clips="panel", panel=panel) and len(set(some.items)) == 12
    assert set(some.items) < set(shipped)
    assert some.items != rate_activity(6, 12, clips="panel", panel=panel).items
    assert some.set_id != every.set_id


def test_a_lecturers_own_clips_are_checked_against_the_corpus_copy(panel):
    own = rate_activity(5, clips=[48, 213, 312], panel=panel)
    assert own.items == (48, 213, 312)
    with pytest.raises(ValueError, match=r"^clips: .*no recording of item\(s\) \[1, 2\]"):
        rate_activity(5, clips=[1, 2, 48], panel=panel)


@pytest.mark.parametrize("call, name", [
    (lambda panel: rate_activity(1, 41, panel=panel), "n_clips"),
    (lambda panel: rate_activity(1, 21, clips="panel", panel=panel), "n_clips"),
    (lambda panel: rate_activity("7", panel=panel), "seed"),
    (lambda panel: rate_activity(1, clips="all", panel=panel), "clips"),
    (lambda panel: rate_activity(1, clips=[48, 48, 213], panel=panel), "clips"),
    (lambda panel: rate_activity(1, clips=[48, 213], panel=panel), "clips"),
    (lambda panel: rate_activity(1, 4, clips=[48, 213, 312], panel=panel), "n_clips"),
])
def test_bad_round_arguments_are_named(panel, call, name):
    with pytest.raises(ValueError, match=f"^{name}: "):
        call(panel)


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
