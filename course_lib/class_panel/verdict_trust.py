"""How far to trust the class panel's verdicts, as the student pages, the class figures and
the class notebook state them: one clause per verdict, read from the committed
``experiments/class_panel_calibration.py`` and ``experiments/class_verdicts_by_condition.py``
results, said whether or not anything is flagged. The preference verdicts' rates are those of
the measured cell nearest at or below the student's own count of answers and the class's size,
and the clause says which.

Every number is a count of simulated students, listeners, pairs or classes whose truth was
known, with its exact 95 % interval (Clopper and Pearson 1934; :func:`counted_share`, which the
experiment's own tables use too). No rule or threshold behind these verdicts was tuned on those
classes or listeners, so all of them are held out.

The clauses of the student pages (:mod:`.student_pages`, :mod:`.preference_page`) are this
room's own; :func:`differ_trust` is said by the class figures and the class notebook as well.
"""

from __future__ import annotations

import functools

import numpy as np

from course_lib.metrics import clopper_pearson_interval
from course_lib.stated_rates import stated_rate

__all__ = ["counted_share", "differ_trust"]

_GOAL = (0.85, 0.95)      # issue 80: a 90 % interval should hold the truth 85-95 % of the time


def _percent(p: float) -> str:
    """A probability as a person reads it, never a certainty the model does not have."""
    return "more than 99 %" if p > 0.99 else f"{100 * p:.0f} %"


def _points(share: float) -> str:
    """A share in percent, with a decimal near 0 or 100 %, where whole points would hide it."""
    return f"{100 * share:.0f}" if 0.01 <= share <= 0.99 or share in (0.0, 1.0) else \
        f"{100 * share:.1f}"


@functools.cache                # a class's pages repeat the same few counts
def counted_share(k: int, n: int) -> str:
    """k of n with its share and exact 95 % interval (Clopper-Pearson), as every verdict's
    trust is stated: "1,353 of 2,500 (54 %; 95 % 52-56 %)"; a share near 0 or 100 % with a
    decimal ("4,221 of 4,226 (99.9 %; 95 % 99.7-100.0 %)")."""
    low, high = clopper_pearson_interval(k, n)
    return f"{k:,} of {n:,} ({_points(k / n)} %; 95 % {_points(low)}-{_points(high)} %)"


@functools.cache
def _measured() -> tuple[dict, dict]:
    """(taste summaries by kind, settings) of the committed calibration result."""
    measured = stated_rate("class_panel.leaning_sureness")
    return measured.value, measured.settings


@functools.cache
def _by_condition() -> tuple[dict, dict]:
    """(cells, settings) of the committed verdicts-by-condition result."""
    measured = stated_rate("class_panel.preference_verdicts")
    return measured.value, measured.settings


def _nearest_below(value: int, measured) -> int:
    """The measured value nearest at or below ``value`` (the smallest measured, below that)."""
    return max([m for m in measured if m <= value], default=min(measured))


def _cell(kind: str, n_answers: int, class_size: int) -> tuple[dict, str]:
    """The measured cell for ``n_answers`` per sheet in a class of ``class_size``, the nearest
    at or below each, and the words that say where it was measured (and that it is the nearest,
    where it is)."""
    cells, settings = _by_condition()
    answers = _nearest_below(n_answers, settings["answers"])
    size = _nearest_below(class_size, settings["class_sizes"])
    cell = cells[f"{kind}/{size}/{answers}"]
    taste = "of one taste" if kind == "one taste" else "whose tastes differ"
    where = (f"{cell['classes']} simulated classes of {size} students {taste}, each student "
             f"answering {answers} of the {settings['pairs_per_round']} pairs")
    notes = []
    if answers != n_answers:
        notes.append(f"the nearest count measured at or below {n_answers} answers"
                     if answers < n_answers else f"the fewest answers measured, above {n_answers}")
    if size != class_size:
        notes.append(f"the nearest class size measured at or below {class_size}"
                     if size < class_size else
                     f"the smallest class measured, above {class_size} students")
    if notes:
        where += f" ({'; '.join(notes)})"
    return cell, where


def _favourite_trust(n_answers: int, class_size: int, class_answers: int) -> str:
    """How often the student's favourite (from ``n_answers``) and the class's (a class of
    ``class_size`` whose typical sheet holds ``class_answers``) were the true ones."""
    mine, where = _cell("spread", n_answers, class_size)
    theirs, where_class = _cell("spread", class_answers, class_size)
    blind = _by_condition()[1]["settings_per_round"]
    return (f"How far to trust these two: in {where}, a favourite picked this way was the "
            f"student's true favourite for "
            f"{counted_share(mine['student_favourite_right'], mine['students'])} students (a "
            f"blind pick among {blind} settings: {100 / blind:.0f} %); in {where_class}, the "
            f"class's was for {counted_share(theirs['class_favourite_right'], theirs['classes'])}"
            f" classes.")


def _sure_trust(p: float, whose: str) -> str:
    """The hit rate of the bin a stated probability ``p`` (of the side stated, 0.5-1) falls in:
    ``whose`` "student" (a student's own leaning) or "class" (the pooled one)."""
    tastes, settings = _measured()
    edges = settings["sure_edges"]
    b = int(np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2))
    cases = tastes["spread"][f"{whose}_sure"]
    stated = "simulated students' own" if whose == "student" else "simulated classes'"
    return (f"of {stated} leanings {100 * edges[b]:.0f}-{100 * edges[b + 1]:.0f} % sure "
            f"(classes of {settings['taste_students']}, every pair answered), "
            f"{counted_share(cases['right'][b], cases['cases'][b])} were right")


def _opposite_trust(any_flagged: bool, n_answers: int, class_size: int) -> str:
    """How the "you lean clearly the other way" rule did for students with ``n_answers`` in a
    class of ``class_size``: its precision where tastes differ and its false flags where the
    class has one taste when it flagged a pair; its power when it flagged none."""
    spread, where = _cell("spread", n_answers, class_size)
    one, where_one = _cell("one taste", n_answers, class_size)
    truth = ("pairs on which a student would most often answer for the setting the class as "
             "a whole does not prefer")
    caught = counted_share(spread["opposite_found"], spread["truly_opposite"]) \
        if spread["truly_opposite"] else "none (there were none)"
    if not any_flagged:
        return (f"That does not mean you agree: in {where}, the rule caught {caught} of the "
                f"{truth}.")
    right = counted_share(spread["opposite_found"], spread["opposite_flagged"]) \
        if spread["opposite_flagged"] else "none (it flagged none)"
    return (f"How far to trust this list: in {where}, {right} of the pairs flagged this way "
            f"were {truth}, and the rule caught {caught} of all such pairs; in {where_one}, "
            f"where no student truly leans the other way, it flagged {one['opposite_flagged']:,}"
            f" pairs of {one['students']:,} students, every one of them false.")


def _class_condition(preferences) -> tuple[int, int]:
    """(class size, answers on its typical sheet) of a fitted class's preferences: how many
    students handed in a comparison sheet, and the median count of their answers."""
    return len(preferences.pseudonyms), int(np.median(preferences.n_answers))


def differ_trust(preferences) -> str:
    """How far to trust "tastes differ" and "agrees" in a class like ``preferences``'s
    (:func:`_class_condition`): false calls where the class has one taste, how often a call was
    true (some student truly prefers each side) and how often it met the stronger "a quarter
    each way" where tastes differ, and how often "agrees" had the class's direction."""
    class_size, class_answers = _class_condition(preferences)
    one, where_one = _cell("one taste", class_answers, class_size)
    spread, where = _cell("spread", class_answers, class_size)
    agrees = {key: one[key] + spread[key] for key in ("agrees", "agrees_right")}
    calls = spread["differ"]
    found = (f"its {calls:,} calls were true (at least one student truly prefers each side) "
             f"for {counted_share(spread['differ_true'], calls)}, and met \"a quarter of the "
             f"class each way\" for {counted_share(spread['differ_quarter'], calls)}"
             if calls else "it made no call")
    said = (f"\"Agrees\" had the class's true direction on "
            f"{counted_share(agrees['agrees_right'], agrees['agrees'])} of the pairs it was said "
            f"of, in both kinds of class." if agrees["agrees"] else
            "\"Agrees\" was said of no pair there.")
    return (f"How far to trust \"tastes differ\" and \"agrees\": in {where_one}, "
            f"{counted_share(one['classes_with_differ'], one['classes'])} showed a \"tastes "
            f"differ\" pair (a false call); in {where}, {found}. {said}")


@functools.cache
def _agreement_trust() -> str:
    """How often the agreement intervals held the truth (the ratings calibration's grid)."""
    measured = stated_rate("class_panel.agreement_coverage").value
    correlation = counted_share(measured["correlation_held"], measured["correlation_intervals"])
    distance = counted_share(measured["distance_held"], measured["distance_intervals"])
    return (f"On simulated students of known truth (in classes of 25 and of 200), intervals "
            f"like these held the true correlation for {correlation} students and the true "
            f"distance for {distance}.")


@functools.cache
def _alone() -> tuple[dict, dict]:
    """(lone listeners' summary by count of scores, settings) of the committed result."""
    measured = stated_rate("class_panel.listener_alone_coverage")
    return measured.value, measured.settings


def _alone_trust(n_scores: int, interval: str) -> str:
    """How often the noise and bias intervals (``interval`` their name) of a listener fitted
    alone held the truth, measured on simulated listeners who gave the count of scores nearest
    at or below ``n_scores`` (the fewest measured, below that); a share outside issue 80's
    85-95 % is said to miss, and which way."""
    summary, settings = _alone()
    counts = settings["alone_scores"]
    m = max([c for c in counts if c <= n_scores], default=counts[0])
    measured = summary[str(m)]
    yours = "" if m == n_scores else f" (you scored {n_scores})"
    lines = [f"How far to trust the intervals: on {measured['listeners']:,} simulated listeners "
             f"of known truth who each scored {m} clips alone{yours}, {interval}s like these "
             f"held the true noise for "
             f"{counted_share(measured['noise_held'], measured['noise_intervals'])} listeners "
             f"who got one, and the true bias for "
             f"{counted_share(measured['bias_held'], measured['bias_intervals'])} (experiments/"
             f"class_panel_calibration.py). That is a best case: those listeners score as the "
             f"model assumes (the clip's true score plus their own bias and Gaussian noise, "
             f"rounded to the scale); a person who uses only part of the scale or drifts is "
             f"not one of them."]
    level = f"{100 * settings['level']:.0f} %"
    for name in ("noise", "bias"):
        share = measured[f"{name}_held"] / measured[f"{name}_intervals"]
        if share < _GOAL[0]:
            lines.append(f"With {m} scores the {name} interval held the truth only "
                         f"{_points(share)} % of the time, short of the {level} it claims: it "
                         f"is narrower than it should be.")
        elif share > _GOAL[1]:
            lines.append(f"With {m} scores the {name} interval held the truth "
                         f"{_points(share)} % of the time, more than the {level} it claims: it "
                         f"is wider than it need be.")
    return " ".join(lines)
