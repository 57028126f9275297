"""How far to trust each verdict (``class_panel.verdict_trust``): every sentence states the
counts of the committed experiments/class_panel_calibration.py result, each with its exact 95 %
interval, and finds them also when nothing is flagged (the rule's power, a lone listener's
coverage that meets its goal). The counts are read here from the committed result; the wording
around them is the module's."""

from __future__ import annotations

import pytest

from course_lib.class_panel import verdict_trust
from course_lib.class_panel.verdict_trust import (_agreement_trust, _alone_trust,
                                                  _favourite_trust, _opposite_trust, _percent,
                                                  _sure_trust, counted_share, split_trust)
from course_lib.metrics import clopper_pearson_interval
from course_lib.results import load_result

MEASURED = load_result("class_panel_calibration")
SETTINGS, RESULT = MEASURED["settings"], MEASURED["result"]
ONE, DIFFER = RESULT["taste_summary"]["one taste"], RESULT["taste_summary"]["spread"]
CREDIBLE = "90 % Bayesian credible interval"


def test_a_share_is_stated_with_its_exact_interval():
    assert counted_share(1400, 2500) == "1,400 of 2,500 (56 %; 95 % 54-58 %)"
    low, high = clopper_pearson_interval(4221, 4226)
    assert counted_share(4221, 4226) == \
        f"4,221 of 4,226 (99.9 %; 95 % {100 * low:.1f}-100.0 %)"
    # none and all: whole points at 0 and 100 %, a decimal on the open end of the interval
    assert counted_share(0, 897) == "0 of 897 (0 %; 95 % 0-0.4 %)"
    low, _ = clopper_pearson_interval(1116, 1116)
    assert counted_share(1116, 1116) == f"1,116 of 1,116 (100 %; 95 % {100 * low:.1f}-100 %)"


def test_a_probability_is_never_stated_as_a_certainty():
    assert _percent(0.97) == "97 %" and _percent(0.99) == "99 %"
    assert _percent(0.999) == "more than 99 %" and _percent(1.0) == "more than 99 %"


def test_the_settings_the_sentences_name_are_the_committed_runs():
    """The classes the sentences describe (100 of 25 students, 15 pairs, 6 settings) are the
    full run's, not a reduced one's."""
    assert SETTINGS["classes_fitted"] == "all" and SETTINGS["taste_classes"] >= 100
    for taste in (ONE, DIFFER):
        assert taste["classes"] == SETTINGS["taste_classes"]
        assert taste["students"] == taste["classes"] * SETTINGS["taste_students"]
    assert DIFFER["pairs"] // DIFFER["classes"] == 15 and SETTINGS["taste_settings"] == 6


def test_the_favourites_trust_states_students_and_classes_against_a_blind_pick():
    text = _favourite_trust()
    assert text.startswith(
        f"How far to trust these two: in {DIFFER['classes']} simulated classes of "
        f"{SETTINGS['taste_students']} students whose tastes differ, each student answering "
        f"all 15 pairs, ")
    assert (f"the student's true favourite for "
            f"{counted_share(DIFFER['student_favourite_right'], DIFFER['students'])} students "
            f"(a blind pick among 6 settings: 17 %), and the class's for "
            f"{counted_share(DIFFER['class_favourite_right'], DIFFER['classes'])} classes.") \
        in text


@pytest.mark.parametrize("whose, stated", [("student", "simulated students' own"),
                                           ("class", "simulated classes'")])
def test_a_stated_leaning_finds_the_hit_rate_of_its_bin(whose, stated):
    """Each bin of ``sure_edges`` from its lower edge (which it holds) to the next; 1.0 in
    the last."""
    edges, cases = SETTINGS["sure_edges"], DIFFER[f"{whose}_sure"]
    for b in range(len(edges) - 1):
        expected = (f"of {stated} leanings {100 * edges[b]:.0f}-{100 * edges[b + 1]:.0f} % sure, "
                    f"{counted_share(cases['right'][b], cases['cases'][b])} were right")
        middle = (edges[b] + edges[b + 1]) / 2
        for p in (edges[b], middle):
            assert _sure_trust(p, whose) == expected, (p, whose)
    assert _sure_trust(1.0, whose) == _sure_trust(0.995, whose)
    assert "leanings 99-100 % sure" in _sure_trust(1.0, whose)


def test_flagged_pairs_state_the_rules_precision_and_power():
    text = _opposite_trust(True)
    assert (f"{counted_share(DIFFER['opposite_found'], DIFFER['opposite_flagged'])} of the pairs "
            f"flagged this way were pairs on which a student would most often answer for the "
            f"setting the class as a whole does not prefer, and the rule caught "
            f"{counted_share(DIFFER['opposite_found'], DIFFER['truly_opposite'])} of all such "
            f"pairs.") in text


def test_no_pair_flagged_still_states_what_the_rule_misses():
    """The quiet case: nothing flagged, and the sentence finds the rule's power."""
    text = _opposite_trust(False)
    assert text == (
        f"That does not mean you agree: in {DIFFER['classes']} simulated classes of 25 "
        f"students whose tastes differ, each student answering all 15 pairs, the rule caught "
        f"{counted_share(DIFFER['opposite_found'], DIFFER['truly_opposite'])} of the pairs on "
        f"which a student would most often answer for the setting the class as a whole does "
        f"not prefer.")
    assert DIFFER["truly_opposite"] > 0


def test_split_and_agrees_state_false_splits_splits_found_and_both_kinds_agreeing():
    text = split_trust()
    assert (f"in {ONE['classes']} simulated classes of 25 students of one taste, each student "
            f"answering all 15 pairs, {counted_share(ONE['classes_with_split'], ONE['classes'])} "
            f"showed a \"split\" pair (a false split)") in text
    assert (f"\"split\" found {counted_share(DIFFER['split_found'], DIFFER['truly_split'])} "
            f"of the pairs on which at least a quarter of the students") in text
    right, said = (ONE["agrees_right"] + DIFFER["agrees_right"],
                   ONE["agrees"] + DIFFER["agrees"])
    assert (f"\"Agrees\" had the class's true direction on {counted_share(right, said)} of the "
            f"pairs it was said of, in both kinds of class.") in text


def test_the_agreement_intervals_state_their_coverage_over_the_ratings_grid():
    summary = RESULT["summary"]["all"]
    assert _agreement_trust() == (
        f"On simulated students of known truth, intervals like these held the true "
        f"correlation for "
        f"{counted_share(summary['correlation_held'], summary['correlation_intervals'])} "
        f"students and the true distance for "
        f"{counted_share(summary['distance_held'], summary['distance_intervals'])}.")


def alone_numbers(m: int) -> str:
    measured = RESULT["alone_summary"][str(m)]
    return (f"on {measured['listeners']:,} simulated listeners of known truth who each scored "
            f"{m} clips alone")


def alone_shares(m: int) -> str:
    measured = RESULT["alone_summary"][str(m)]
    return (f"{CREDIBLE}s like these held the true noise for "
            f"{counted_share(measured['noise_held'], measured['noise_intervals'])} listeners "
            f"who got one, and the true bias for "
            f"{counted_share(measured['bias_held'], measured['bias_intervals'])}")


def test_a_lone_listener_finds_the_count_measured_at_or_below_theirs():
    """Each count measured is its own; between two, the one below, said so; below the fewest,
    the fewest."""
    counts = SETTINGS["alone_scores"]
    assert counts == sorted(counts) and counts[0] == 3
    for m in counts:
        text = _alone_trust(m, CREDIBLE)
        assert f"{alone_numbers(m)}, {alone_shares(m)}" in text and "you scored" not in text
    for n, m in ((4, 3), (7, 5), (19, 10), (40, 20), (2, 3)):
        text = _alone_trust(n, CREDIBLE)
        assert f"{alone_numbers(m)} (you scored {n}), {alone_shares(m)}" in text, text


def test_a_lone_coverage_within_85_to_95_percent_is_stated_without_a_miss():
    """The quiet case on the committed result: every count meets its goal, so each sentence
    states its numbers and no miss."""
    for m, measured in RESULT["alone_summary"].items():
        if m == "all":
            continue
        for quantity in ("noise", "bias"):
            assert 0.85 <= measured[f"{quantity}_held"] / measured[f"{quantity}_intervals"] \
                <= 0.95
        text = _alone_trust(int(m), CREDIBLE)
        assert alone_shares(int(m)) in text and "held the truth only" not in text
        assert "more than the 90 %" not in text


def test_a_lone_coverage_outside_85_to_95_percent_is_said_to_miss(monkeypatch):
    """The wording of a miss, either way, on a made-up measurement."""
    made = {"3": {"listeners": 200, "noise_intervals": 200, "noise_held": 156,
                  "bias_intervals": 200, "bias_held": 198}}
    monkeypatch.setattr(verdict_trust, "_alone", lambda: (made, {"alone_scores": [3],
                                                                  "level": 0.9}))
    text = _alone_trust(3, CREDIBLE)
    assert "held the true noise for 156 of 200 (78 %; 95 % " in text
    assert ("With 3 scores the noise interval held the truth only 78 % of the time, short of "
            "the 90 % it claims: it is narrower than it should be.") in text
    assert ("With 3 scores the bias interval held the truth 99 % of the time, more than the "
            "90 % it claims: it is wider than it need be.") in text
