"""How far to trust each verdict (``class_panel.verdict_trust``): every sentence states the
counts of the committed experiments/class_panel_calibration.py and class_verdicts_by_condition.py
results (the cell of the student's own count of answers and class size), each with its exact
95 % interval, and finds them also when nothing is flagged (the rule's power, a lone listener's
coverage that meets its goal). The counts are read here from the committed result; the wording
around them is the module's."""

from __future__ import annotations

import pytest

from course_lib.class_panel import verdict_trust
from course_lib.class_panel.verdict_trust import (_agreement_trust, _alone_trust,
                                                  _favourite_trust, _opposite_trust, _percent,
                                                  _sure_trust, counted_share, differ_trust)
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


BY_CONDITION = load_result("class_verdicts_by_condition")
CELLS, GRID = BY_CONDITION["result"]["cells"], BY_CONDITION["settings"]


def where(kind: str, size: int, answers: int) -> str:
    taste = "of one taste" if kind == "one taste" else "whose tastes differ"
    return (f"{CELLS[f'{kind}/{size}/{answers}']['classes']} simulated classes of {size} "
            f"students {taste}, each student answering {answers} of the 15 pairs")


def test_the_grid_the_sentences_name_is_the_committed_full_run():
    assert GRID["classes_per_cell"] >= 100
    assert set(GRID["answers"]) >= {2, 3, 5, 8, 15} and set(GRID["class_sizes"]) >= {8, 25, 60}
    for kind in ("one taste", "spread"):
        for size in GRID["class_sizes"]:
            for answers in GRID["answers"]:
                cell = CELLS[f"{kind}/{size}/{answers}"]
                assert cell["classes"] == GRID["classes_per_cell"]
                assert cell["pairs"] == 15 * cell["classes"]


def test_the_favourites_trust_is_the_cell_of_the_students_own_count_and_class_size():
    mine, theirs = CELLS["spread/25/3"], CELLS["spread/25/15"]
    text = _favourite_trust(3, 25, 15)
    assert text.startswith(f"How far to trust these two: in {where('spread', 25, 3)}, ")
    assert (f"the student's true favourite for "
            f"{counted_share(mine['student_favourite_right'], mine['students'])} students (a "
            f"blind pick among 6 settings: 17 %); in {where('spread', 25, 15)}, the class's "
            f"was for {counted_share(theirs['class_favourite_right'], theirs['classes'])} "
            f"classes.") in text
    # between measured counts and sizes: the nearest at or below, said as such
    text = _favourite_trust(4, 30, 15)
    assert (f"in {where('spread', 25, 3)} (the nearest count measured at or below 4 answers; "
            f"the nearest class size measured at or below 30)") in text
    assert (f"in {where('spread', 8, 2)} (the fewest answers measured, above 1; the smallest "
            f"class measured, above 5 students)") in _favourite_trust(1, 5, 1)


def test_a_short_sheet_is_told_a_lower_rate_than_a_full_one():
    """Issue 88's goal: a 4-answer sheet is told a lower favourite rate than a full one."""
    def stated(answers):
        cell = CELLS[f"spread/25/{answers}"]
        return cell["student_favourite_right"] / cell["students"]
    assert stated(3) < stated(15)
    assert counted_share(CELLS["spread/25/3"]["student_favourite_right"],
                         CELLS["spread/25/3"]["students"]) in _favourite_trust(4, 25, 15)


@pytest.mark.parametrize("whose, stated", [("student", "simulated students' own"),
                                           ("class", "simulated classes'")])
def test_a_stated_leaning_finds_the_hit_rate_of_its_bin(whose, stated):
    """Each bin of ``sure_edges`` from its lower edge (which it holds) to the next; 1.0 in
    the last."""
    edges, cases = SETTINGS["sure_edges"], DIFFER[f"{whose}_sure"]
    for b in range(len(edges) - 1):
        expected = (f"of {stated} leanings {100 * edges[b]:.0f}-{100 * edges[b + 1]:.0f} % sure "
                    f"(classes of 25, every pair answered), "
                    f"{counted_share(cases['right'][b], cases['cases'][b])} were right")
        middle = (edges[b] + edges[b + 1]) / 2
        for p in (edges[b], middle):
            assert _sure_trust(p, whose) == expected, (p, whose)
    assert _sure_trust(1.0, whose) == _sure_trust(0.995, whose)
    assert "leanings 99-100 % sure" in _sure_trust(1.0, whose)


def test_flagged_pairs_state_the_rules_precision_power_and_false_flags_in_its_cell():
    spread, one = CELLS["spread/60/8"], CELLS["one taste/60/8"]
    text = _opposite_trust(True, 8, 60)
    assert (f"in {where('spread', 60, 8)}, "
            f"{counted_share(spread['opposite_found'], spread['opposite_flagged'])} of the "
            f"pairs flagged this way were pairs on which a student would most often answer for "
            f"the setting the class as a whole does not prefer, and the rule caught "
            f"{counted_share(spread['opposite_found'], spread['truly_opposite'])} of all such "
            f"pairs; in {where('one taste', 60, 8)}, where no student truly leans the other "
            f"way, it flagged {one['opposite_flagged']:,} pairs of {one['students']:,} "
            f"students, every one of them false.") in text
    assert one["truly_opposite"] == 0


def test_no_pair_flagged_still_states_what_the_rule_misses():
    """The quiet case: nothing flagged, and the sentence finds the rule's power."""
    spread = CELLS["spread/25/15"]
    assert _opposite_trust(False, 15, 25) == (
        f"That does not mean you agree: in {where('spread', 25, 15)}, the rule caught "
        f"{counted_share(spread['opposite_found'], spread['truly_opposite'])} of the pairs on "
        f"which a student would most often answer for the setting the class as a whole does "
        f"not prefer.")
    assert spread["truly_opposite"] > 0


class _Class:
    """What differ_trust reads of a fitted class: its sheets and their answers."""

    def __init__(self, size: int, answers: int):
        self.pseudonyms = tuple(f"student-{k}" for k in range(size))
        self.n_answers = [answers] * size


@pytest.mark.parametrize("size, answers", [(25, 15), (60, 8), (8, 15)])
def test_tastes_differ_states_false_calls_true_calls_and_agrees_in_its_cell(size, answers):
    one, spread = CELLS[f"one taste/{size}/{answers}"], CELLS[f"spread/{size}/{answers}"]
    text = differ_trust(_Class(size, answers))
    assert (f"in {where('one taste', size, answers)}, "
            f"{counted_share(one['classes_with_differ'], one['classes'])} showed a \"tastes "
            f"differ\" pair (a false call)") in text
    assert (f"its {spread['differ']:,} calls were true (at least one student truly prefers "
            f"each side) for {counted_share(spread['differ_true'], spread['differ'])}, and met "
            f"\"a quarter of the class each way\" for "
            f"{counted_share(spread['differ_quarter'], spread['differ'])}") in text
    right, said = one["agrees_right"] + spread["agrees_right"], one["agrees"] + spread["agrees"]
    assert (f"\"Agrees\" had the class's true direction on {counted_share(right, said)} of the "
            f"pairs it was said of, in both kinds of class.") in text


def test_tastes_differ_earns_its_words_where_it_calls():
    """Issue 88's goal: where tastes differ, at least half of the calls are true, in every cell
    with enough calls to tell (at least 20)."""
    for key, cell in CELLS.items():
        if key.startswith("spread/") and cell["differ"] >= 20:
            assert cell["differ_true"] / cell["differ"] >= 0.5, key


def test_the_agreement_intervals_state_their_coverage_over_the_ratings_grid():
    summary = RESULT["summary"]["all"]
    assert _agreement_trust() == (
        f"On simulated students of known truth (in classes of 25 and of 200), intervals "
        f"like these held the true correlation for "
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
