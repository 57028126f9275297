"""The equaliser section of a student's page (``class_panel.preference_page``), from hand-made
preferences so every number is known: the student's favourite and the class's, named by their
gains; the pairs on which the student and the class lean clearly opposite ways
(:func:`leans_opposite`), each with both probabilities; a student with few answers told whether
the class's model predicts them better; a sheet with no information or no fit told so. Every
verdict carries its trust sentence (``verdict_trust``, tested there) in its place, also when
nothing is flagged."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.class_panel.preference_page import _preferences_section, leans_opposite
from course_lib.class_panel.preference_model import ClassPreferences
from course_lib.class_panel.verdict_trust import (_favourite_trust, _opposite_trust,
                                                  _sure_trust, differ_trust)

PSEUDONYMS = ("amber-otter-07", "brisk-heron-11")


def made_preferences() -> ClassPreferences:
    """Four settings, six pairs; students 0 (every pair, against the class on pairs 0 and 5)
    and 1 (2 answers, on the class's side)."""
    settings = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 6.0], [0.0, -6.0]])
    pairs = np.array([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])
    return ClassPreferences(
        pseudonyms=PSEUDONYMS, settings=settings, pairs=pairs,
        shares=np.tile([0.5, 0.2, 0.3], (6, 1)), n_answered=np.full(6, 2),
        pooled_difference=np.array([-2.0, 0.1, 0.0, 0.2, 0.1, 1.5]),
        pooled_difference_sd=np.full(6, 0.3),
        pooled_probability=np.array([0.001, 0.6, 0.5, 0.7, 0.6, 0.99]),
        pooled_utility=np.array([-1.0, 1.0, 0.0, 0.0]), pooled_utility_sd=np.full(4, 0.3),
        hyperparameters={"noise_sd": 2.0}, n_answers=np.array([6, 2]),
        individual_difference=np.array([[1.5, 0.2, 0.0, 0.0, 0.0, -1.0],
                                        [-0.5, 0.0, 0.0, 0.0, 0.0, 0.3]]),
        individual_difference_sd=np.full((2, 6), 0.8),
        individual_probability=np.array([[0.97, 0.6, 0.5, 0.5, 0.5, 0.1],
                                         [0.27, 0.5, 0.5, 0.5, 0.5, 0.65]]),
        individual_utility=np.array([[1.0, -0.5, 0.0, 0.1], [-0.2, 0.3, 0.0, 0.0]]),
        fitted=np.array([True, True]), spread=np.full(6, 0.5),
        spread_null_mean=np.full(6, 0.4), spread_null_sd=np.full(6, 0.1),
        split_t=np.array([9.0, 0.0, 0.0, 0.0, 0.0, 0.0]), split_threshold=3.5,
        verdict=("tastes differ",) + ("no clear preference",) * 4 + ("agrees",), n_permutations=10,
        held_out_counts=np.array([1, 2, 4]), held_out_models=("the class without you",
                                                              "you alone", "the class and you"),
        held_out_score=np.array([[0.5, 0.5, 0.5], [0.1, 0.15, 0.3], [0.5, 0.51, 0.52]]),
        held_out_se=np.full((3, 3), 0.05), held_out_students=np.full((3, 3), 12))


PREFERENCES = made_preferences()


def section(s: int | None, preferences: ClassPreferences = PREFERENCES) -> str:
    return "\n".join(_preferences_section(preferences, s))


def changed(**fields) -> ClassPreferences:
    return ClassPreferences(**{**made_preferences().__dict__, **fields})


def test_leaning_opposite_needs_both_sure_at_80_percent_either_way():
    mine = np.array([0.8, 0.15, 0.97, 0.79, 0.9, 0.5, 0.1])
    theirs = np.array([0.15, 0.8, 0.001, 0.1, 0.85, 0.0, 0.21])
    # sure both ways (from 0.8 on); not when one is short of it or both lean one way
    assert leans_opposite(mine, theirs).tolist() == [True, True, True, False, False, False,
                                                     False]
    assert leans_opposite(0.85, 0.1) and not leans_opposite(0.85, 0.95)


def test_leaning_opposite_takes_a_row_per_student_against_the_class():
    rows = PREFERENCES.individual_probability
    flagged = leans_opposite(rows, PREFERENCES.pooled_probability)
    assert flagged.shape == rows.shape
    assert flagged.tolist() == [[True, False, False, False, False, True], [False] * 6]


def test_the_section_names_the_settings_and_where_the_student_differs():
    text = section(0)
    assert text.startswith("## Your equaliser choices\n\nYou answered 6 of the 6 pairs.")
    assert "Your favourite: setting 1 (bass -6 dB, treble +0 dB); the class's is setting 2 " \
           "(bass +6 dB, treble +0 dB)." in text
    assert "On 2 pairs you lean clearly the other way from the class:" in text
    assert "you prefer setting 1 (bass -6 dB, treble +0 dB) (97 % sure; of simulated " \
           "students' own leanings 95-99 % sure (classes of 25, every pair answered), " in text
    assert "the class as a whole leans to setting 2 (bass +6 dB, treble +0 dB) (more than " \
           "99 % sure; of simulated classes' leanings 99-100 % sure (classes of 25, every pair " \
           "answered), " in text
    assert ") (on this pair the class's tastes differ)." in text
    assert "you prefer setting 4 (bass +0 dB, treble -6 dB) (90 % sure; " in text
    assert "the class as a whole leans to setting 3 (bass +0 dB, treble +6 dB) (99 % sure; " \
           in text
    assert "With only" not in text


def test_every_verdict_carries_its_trust_in_its_place():
    """The favourite with its trust; each flagged pair with its two bins' hit rates; the list's
    precision in a paragraph of its own; the tastes-differ rule's trust after such a pair."""
    lines = _preferences_section(PREFERENCES, 0)
    favourite = next(line for line in lines if line.startswith("- Your favourite"))
    # student 0 answered 6 pairs in a class of 2 sheets whose median holds 4 answers
    assert favourite.endswith(f"(bass +6 dB, treble +0 dB). {_favourite_trust(6, 2, 4)}")
    first, second = (line for line in lines if line.startswith("  - you prefer"))
    assert f"(97 % sure; {_sure_trust(0.97, 'student')})" in first
    assert f"(more than 99 % sure; {_sure_trust(0.999, 'class')})" in first
    assert f"(90 % sure; {_sure_trust(0.9, 'student')})" in second
    assert f"(99 % sure; {_sure_trust(0.99, 'class')})" in second
    assert lines.index(_opposite_trust(True, 6, 2)) > lines.index(second)
    assert lines.index(differ_trust(PREFERENCES)) > lines.index(_opposite_trust(True, 6, 2))


def test_no_differing_pair_among_the_flagged_pairs_leaves_its_rule_out():
    text = section(0, changed(verdict=("no clear preference",) * 5 + ("agrees",)))
    assert _opposite_trust(True, 6, 2) in text and differ_trust(PREFERENCES) not in text
    assert "(on this pair the class's tastes differ)" not in text


def test_no_pair_flagged_states_what_the_rule_misses():
    text = section(1)
    assert "Your favourite (a guess from 2 answers): setting 2" in text
    assert ("- On no pair do you and the class lean clearly opposite ways (each at least 80 % "
            f"sure). {_opposite_trust(False, 2, 2)}") in text
    assert _opposite_trust(True, 2, 2) not in text and differ_trust(PREFERENCES) not in text


def test_a_student_with_two_answers_is_told_the_class_predicts_them_better():
    text = section(1)
    assert "- With only 2 answers your own model knows little: for students with 2 answers, " \
           "the class's model predicted their other answers better than their own answers " \
           "did." in text


@pytest.mark.parametrize("scores, said", [
    ([[0.5, 0.5, 0.5], [0.1, 0.6, 0.3]], "no better"),            # their own predicts better
    ([[0.5, np.nan, 0.5], [0.1, 0.15, 0.3]], None),               # not measured at 2 answers
])
def test_a_few_answers_line_says_no_better_or_nothing(scores, said):
    text = section(1, changed(held_out_score=np.array(scores + [[0.5, 0.51, 0.52]])))
    if said is None:
        assert "With only" not in text
    else:
        assert f"the class's model predicted their other answers {said} than" in text


def test_a_few_answers_line_takes_the_first_count_measured_at_or_above_theirs():
    text = section(1, changed(held_out_counts=np.array([1, 3, 4])))
    assert "for students with 3 answers, the class's model predicted" in text
    assert "With only" not in section(1, changed(held_out_counts=np.array([1])))


def test_a_comparison_sheet_with_no_information_is_told_so():
    preferences = changed(status=("no information", "ok"))
    text = section(0, preferences)
    assert "You gave the same answer (always the first, or always the second version as " \
           "played) to every pair" in text and "say nothing about which setting" in text
    assert "Your favourite" not in text and "lean clearly" not in text
    assert "Your favourite (a guess from 2 answers)" in section(1, preferences)


def test_no_sheet_and_no_fit_are_told_so_without_a_verdict():
    assert section(None) == "## Your equaliser choices\n\nYou handed in no comparison " \
                            "sheet, so there is nothing to show here.\n"
    text = section(0, changed(fitted=np.array([False, True])))
    assert "Your answers could not be fitted on their own, so the class's model stands in " \
           "for you." in text
    assert "Your favourite" not in text and "lean clearly" not in text
