"""How far to trust the class panel's verdicts, as the student pages, the class figures and
the class notebook state them: one clause per verdict, read from the committed
``experiments/class_panel_calibration.py`` result, said whether or not anything is flagged.

Every number is a count of simulated students, listeners, pairs or classes whose truth was
known, with its exact 95 % interval (Clopper and Pearson 1934; :func:`counted_share`, which the
experiment's own tables use too). No rule or threshold behind these verdicts was tuned on those
classes or listeners, so all of them are held out.

The clauses of the student pages (:mod:`.student_pages`, :mod:`.preference_page`) are this
room's own; :func:`split_trust` is said by the class figures and the class notebook as well.
"""

from __future__ import annotations

import functools

import numpy as np

from course_lib.metrics import clopper_pearson_interval
from course_lib.results import load_result

__all__ = ["counted_share", "split_trust"]

_RESULT = "class_panel_calibration"
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
    """(taste summaries by kind, settings) of the committed result."""
    document = load_result(_RESULT)
    return document["result"]["taste_summary"], document["settings"]


def _classes(kind: str) -> str:
    """"100 simulated classes of 25 students whose tastes differ" (or "of one taste")."""
    tastes, settings = _measured()
    taste = "of one taste" if kind == "one taste" else "whose tastes differ"
    pairs = tastes[kind]["pairs"] // tastes[kind]["classes"]
    return (f"{tastes[kind]['classes']} simulated classes of {settings['taste_students']} "
            f"students {taste}, each student answering all {pairs} pairs")


def _favourite_trust() -> str:
    """How often the student's and the class's favourites were the true ones."""
    tastes, settings = _measured()
    spread = tastes["spread"]
    return (f"How far to trust these two: in {_classes('spread')}, a favourite picked this "
            f"way was the student's true favourite for "
            f"{counted_share(spread['student_favourite_right'], spread['students'])} students "
            f"(a blind pick among {settings['taste_settings']} settings: "
            f"{100 / settings['taste_settings']:.0f} %), and the class's for "
            f"{counted_share(spread['class_favourite_right'], spread['classes'])} classes.")


def _sure_trust(p: float, whose: str) -> str:
    """The hit rate of the bin a stated probability ``p`` (of the side stated, 0.5-1) falls in:
    ``whose`` "student" (a student's own leaning) or "class" (the pooled one)."""
    tastes, settings = _measured()
    edges = settings["sure_edges"]
    b = int(np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2))
    cases = tastes["spread"][f"{whose}_sure"]
    stated = "simulated students' own" if whose == "student" else "simulated classes'"
    return (f"of {stated} leanings {100 * edges[b]:.0f}-{100 * edges[b + 1]:.0f} % sure, "
            f"{counted_share(cases['right'][b], cases['cases'][b])} were right")


def _opposite_trust(any_flagged: bool) -> str:
    """How the "you lean clearly the other way" rule did: its precision when it flagged a pair,
    its power (what a page without a flag may still hide) when it flagged none."""
    spread = _measured()[0]["spread"]
    truth = ("pairs on which a student would most often answer for the setting the class as "
             "a whole does not prefer")
    caught = counted_share(spread["opposite_found"], spread["truly_opposite"])
    if any_flagged:
        return (f"How far to trust this list: in {_classes('spread')}, "
                f"{counted_share(spread['opposite_found'], spread['opposite_flagged'])} of the "
                f"pairs flagged this way were {truth}, and the rule caught {caught} of all such "
                f"pairs.")
    return (f"That does not mean you agree: in {_classes('spread')}, the rule caught {caught} "
            f"of the {truth}.")


def split_trust() -> str:
    """How often "split" was false on classes of one taste, how much it found where tastes
    truly split, and how often "agrees" had the class's direction."""
    tastes = _measured()[0]
    one, spread = tastes["one taste"], tastes["spread"]
    both = {key: one[key] + spread[key] for key in ("agrees", "agrees_right")}
    return (f"How far to trust \"split\" and \"agrees\": in {_classes('one taste')}, "
            f"{counted_share(one['classes_with_split'], one['classes'])} showed a \"split\" "
            f"pair (a false split); in {_classes('spread')}, \"split\" found "
            f"{counted_share(spread['split_found'], spread['truly_split'])} of the pairs on "
            f"which at least a quarter of the students would most often answer each way. "
            f"\"Agrees\" had the class's true direction on "
            f"{counted_share(both['agrees_right'], both['agrees'])} of the pairs it was said of, "
            f"in both kinds of class.")


@functools.cache
def _agreement_trust() -> str:
    """How often the agreement intervals held the truth (the ratings calibration's grid)."""
    measured = load_result(_RESULT)["result"]["summary"]["all"]
    correlation = counted_share(measured["correlation_held"], measured["correlation_intervals"])
    distance = counted_share(measured["distance_held"], measured["distance_intervals"])
    return (f"On simulated students of known truth, intervals like these held the true "
            f"correlation for {correlation} students and the true distance for {distance}.")


@functools.cache
def _alone() -> tuple[dict, dict]:
    """(lone listeners' summary by count of scores, settings) of the committed result."""
    document = load_result(_RESULT)
    return document["result"]["alone_summary"], document["settings"]


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
             f"class_panel_calibration.py)."]
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
