"""The class's comparisons, pooled and per student (``class_panel.preference_model``).

Simulated students compare six equaliser settings (bass x treble, -6 / 0 / +6 dB) on all 15
pairs, answering first / none / second as degrees 0.95 / 0.5 / 0.05 from a utility of their own
plus answer noise, with an undecided band. Everyone likes the treble at 0 dB; in a split class
half the students like the bass up and half down. The checks: the shares are counted in the
activity's orientation; the pairs that differ in bass split and the others do not; in a class
with one taste no pair splits; every student's own fit finds their side; the class's model
predicts a student who gave 2 answers better than their own model, and a student who gave 10
in a split class worse; one student alone and a student with one answer work; bad input named.
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from course_lib.class_panel.activities import CompareActivity
from course_lib.class_panel.collect import Collection
from course_lib.class_panel.preference_model import class_preferences_model

SETTINGS = np.array([[-6.0, -6.0], [-6.0, 0.0], [-6.0, 6.0], [6.0, -6.0], [6.0, 0.0],
                     [6.0, 6.0]])
PAIRS = np.array([(i, j) for i in range(6) for j in range(i + 1, 6)])
BASS_DIFFERS = SETTINGS[PAIRS[:, 0], 0] != SETTINGS[PAIRS[:, 1], 0]


def utility(side: float) -> np.ndarray:
    """Treble at 0 dB is liked by all; ``side`` * bass / 6 is the student's own taste."""
    return 1.5 - (SETTINGS[:, 1] / 6) ** 2 + side * SETTINGS[:, 0] / 6


def answers(u: np.ndarray, rng, pairs=PAIRS, noise: float = 0.4, undecided: float = 0.3):
    """first, second, y of one student, each pair shown in a random orientation."""
    z = u[pairs[:, 0]] - u[pairs[:, 1]] + rng.normal(0, noise, len(pairs))
    y = np.where(z > undecided, 0.95, np.where(z < -undecided, 0.05, 0.5))
    flip = rng.random(len(pairs)) < 0.5
    return (np.where(flip, pairs[:, 1], pairs[:, 0]), np.where(flip, pairs[:, 0], pairs[:, 1]),
            np.where(flip, 1 - y, y))


def a_class(seed: int, n_students: int, split: float):
    rng = np.random.default_rng(seed)
    sides = np.where(np.arange(n_students) % 2 == 0, split, -split)
    comparisons = {f"s{k:03d}": answers(utility(side), rng) for k, side in enumerate(sides)}
    return (SETTINGS, PAIRS, comparisons), sides


def fit(source, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return class_preferences_model(source, **kwargs)


@pytest.fixture(scope="module")
def split_class():
    source, sides = a_class(1, 24, split=1.0)
    return source, sides, fit(source, n_permutations=6, n_scored=12, rng=1)


def test_the_shares_are_counted_in_the_activitys_orientation():
    comparisons = {"a": (np.array([0, 2]), np.array([1, 0]), np.array([0.95, 0.95])),
                   "b": (np.array([1, 0]), np.array([0, 2]), np.array([0.5, 0.05])),
                   "c": (np.array([0]), np.array([1]), np.array([0.05]))}
    result = fit((SETTINGS[:3], np.array([[0, 1], [0, 2]]), comparisons), n_scored=1)
    # pair (0, 1): a first, b none, c second; pair (0, 2): a said 2 over 0, b said 2 over 0
    np.testing.assert_allclose(result.shares, [[1 / 3, 1 / 3, 1 / 3], [0, 0, 1]])
    assert result.n_answered.tolist() == [3, 2]
    assert result.n_answers.tolist() == [2, 2, 1] and result.pseudonyms == ("a", "b", "c")
    assert result.pooled_difference[1] < 0             # the class prefers setting 2 to 0


def test_tastes_split_where_the_bass_differs_and_nowhere_else(split_class):
    _, _, result = split_class
    verdict = np.array(result.verdict)
    assert np.all(verdict[BASS_DIFFERS] == "tastes differ"), result.split_t.round(1)
    assert not np.any(verdict[~BASS_DIFFERS] == "tastes differ"), result.split_t.round(1)
    # where the bass is equal everyone shares the treble taste: 0 dB beats -6 and +6
    clear = ~BASS_DIFFERS & (SETTINGS[PAIRS[:, 0], 1] * SETTINGS[PAIRS[:, 1], 1] == 0)
    assert np.all(verdict[clear] == "agrees")
    assert np.all(result.spread[BASS_DIFFERS] > result.spread_null_mean[BASS_DIFFERS])


@pytest.fixture(scope="module")
def one_taste():
    source, _ = a_class(2, 24, split=0.0)
    return fit(source, n_permutations=6, n_scored=12, rng=2)


def test_in_a_class_of_one_taste_no_pair_splits(one_taste):
    """A split is declared at a 5 % family-wise level, so a class with one taste shows none
    (seed 2, not chosen: a correct test fails about one time in twenty)."""
    result = one_taste
    assert "tastes differ" not in result.verdict, result.split_t.round(1)
    assert result.split_threshold > 2.0


def test_each_students_own_fit_finds_their_side(split_class):
    _, sides, result = split_class
    bass_up = result.individual_utility[:, 3:].mean(axis=1) - \
        result.individual_utility[:, :3].mean(axis=1)
    assert np.mean(np.sign(bass_up) == np.sign(sides)) >= 0.9
    assert result.fitted.all()
    assert np.all((result.individual_probability >= 0) & (result.individual_probability <= 1))
    # the pooled utility knows the treble, not the bass (the halves cancel)
    assert np.argmax(result.pooled_utility) in (1, 4)


def test_the_class_predicts_a_student_with_two_answers_better_than_their_own_model(one_taste):
    result = one_taste
    two = int(np.flatnonzero(result.held_out_counts == 2)[0])
    without_you, alone, with_you = result.held_out_score[:, two]
    assert without_you > alone + 2 * result.held_out_se[1, two]
    assert with_you > alone
    assert result.held_out_students[:, two].tolist() == [12, 12, 12]


def test_in_a_split_class_ten_answers_of_your_own_beat_the_class(split_class):
    _, _, result = split_class
    assert result.held_out_counts[-1] == 10
    without_you, alone, _ = result.held_out_score[:, -1]
    assert alone > without_you


def test_a_collection_and_its_tuple_give_the_same_answers():
    (settings, pairs, comparisons), _ = a_class(4, 6, split=0.5)
    activity = CompareActivity(0, settings, tuple(map(tuple, pairs.tolist())))
    collection = Collection(folder="", rate=None, compare=activity,
                            pseudonyms=tuple(comparisons), rate_raters=(),
                            rate_labels=((), (), ()), comparisons=comparisons, rows=(),
                            sheets=())
    one = fit(collection, n_permutations=5, n_scored=3, rng=0)
    two = fit((settings, pairs, comparisons), n_permutations=5, n_scored=3, rng=0)
    np.testing.assert_allclose(one.individual_difference, two.individual_difference)
    assert one.verdict == two.verdict


def test_one_student_alone_and_a_student_with_one_answer():
    rng = np.random.default_rng(5)
    alone = fit((SETTINGS, PAIRS, {"solo": answers(utility(0.0), rng)}), n_permutations=5)
    assert alone.pseudonyms == ("solo",) and np.all(alone.spread == 0)
    assert np.isnan(alone.held_out_score[0]).all() and np.isfinite(alone.held_out_score[1]).all()
    assert alone.held_out_students[0].tolist() == [0] * alone.held_out_counts.size
    first, second, y = answers(utility(0.0), rng)
    few = {"many": (first, second, y), "one": (first[:1], second[:1], y[:1]),
           "none": (first[:0], second[:0], y[:0])}
    result = fit((SETTINGS, PAIRS, few), n_permutations=5)
    assert result.pseudonyms == ("many", "one")        # no answer: not a student of this round
    assert result.n_answers.tolist() == [15, 1] and result.fitted.all()


def test_bad_input_is_named():
    (settings, pairs, comparisons), _ = a_class(6, 3, split=0.0)
    name = next(iter(comparisons))
    first, second, y = comparisons[name]
    cases = [
        ([settings, pairs, comparisons], TypeError, "^collection:"),
        ((settings[:, :1], pairs, comparisons), ValueError, "^settings:"),
        ((settings, pairs + 6, comparisons), ValueError, "^pairs:"),
        ((settings, np.vstack([pairs, pairs[:1, ::-1]]), comparisons), ValueError, "^pairs:"),
        ((settings, pairs, list(comparisons.items())), TypeError, "^comparisons:"),
        ((settings, pairs, {}), ValueError, "^comparisons:"),
        ((settings, pairs, {name: (first, second)}), TypeError, "^comparisons:"),
        ((settings, pairs, {name: (first, second, y + 1)}), ValueError, "^comparisons:"),
        ((settings, pairs[:3], {name: (first, second, y)}), ValueError, "^comparisons:"),
        ((settings, pairs, {name: (first, second, y[:3])}), ValueError, "^comparisons:"),
    ]
    for source, error, message in cases:
        with pytest.raises(error, match=message):
            class_preferences_model(source)
    source = (settings, pairs, comparisons)
    for keyword, value, error in (("n_permutations", 2, ValueError), ("n_scored", 0, ValueError),
                                  ("n_held_out", 1.5, TypeError), ("rng", "seed", TypeError)):
        with pytest.raises(error, match=f"^{keyword}:"):
            class_preferences_model(source, **{keyword: value})
    with pytest.raises(ValueError, match="^collection: holds no comparison sheets"):
        class_preferences_model(SimpleNamespace(compare=None, comparisons={}))


def test_a_sheet_answering_first_to_every_pair_is_no_information_and_left_out():
    (settings, pairs, comparisons), _ = a_class(5, 10, split=0.5)
    first, second, _ = comparisons["s000"]
    comparisons["s000"] = (first, second, np.full(first.size, 0.95))   # "first" every time
    result = class_preferences_model((settings, pairs, comparisons), n_permutations=5,
                                     n_scored=4, rng=0)
    assert result.status == ("no information",) + ("ok",) * 9
    assert not result.fitted[0] and np.isnan(result.individual_difference[0]).all()
    assert result.fitted[1:].all() and result.n_answers[0] == first.size
    assert result.n_answered.sum() == sum(np.size(v[2]) for v in comparisons.values()) - \
        first.size
    without = dict(comparisons)
    del without["s000"]
    alone = class_preferences_model((settings, pairs, without), n_permutations=5,
                                    n_scored=4, rng=0)
    # the same pooled fit: the sheet carries no weight (MAP-II from the same answers)
    np.testing.assert_allclose(result.pooled_difference, alone.pooled_difference, rtol=1e-6)
