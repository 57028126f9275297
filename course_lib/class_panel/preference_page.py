"""The equaliser section of a student's page (:mod:`.student_pages`): their favourite and the
class's, the pairs on which they and the class lean clearly opposite ways, and what the
class's model says of a student with few answers. Every verdict comes with how far to trust
it, read from the committed calibration run (:mod:`.verdict_trust`), also when nothing is
flagged.
"""

from __future__ import annotations

import numpy as np

from course_lib.class_panel.preference_model import ClassPreferences
from course_lib.class_panel.verdict_trust import (_favourite_trust, _opposite_trust, _percent,
                                                  _sure_trust, _class_condition, differ_trust)
from course_lib.stimuli import standard_equaliser

__all__ = ["leans_opposite"]

_SURE = 0.8               # "you prefer" / "the class prefers" from this posterior probability


def _setting_text(settings: np.ndarray, index: int) -> str:
    names = standard_equaliser(settings.shape[1]).names
    gains = ", ".join(f"{name} {gain:+g} dB" for name, gain in zip(names, settings[index]))
    return f"setting {index + 1} ({gains})"


def _preferences_section(preferences: ClassPreferences, s: int | None) -> list[str]:
    """The equaliser choices: favourites and the pairs where the student and the class differ
    (module docstring)."""
    lines = ["## Your equaliser choices", ""]
    if s is None:
        return lines + ["You handed in no comparison sheet, so there is nothing to show here.",
                        ""]
    settings = preferences.settings
    lines.append(f"You answered {int(preferences.n_answers[s])} of the "
                 f"{preferences.pairs.shape[0]} pairs.")
    if preferences.status is not None and preferences.status[s] == "no information":
        return lines + ["You gave the same answer (always the first, or always the second "
                        "version as played) to every pair. Which setting of a pair played "
                        "first was drawn at random, so these answers say nothing about which "
                        "setting you prefer: the model left them out, and the class's model "
                        "stands in for you.", ""]
    if not preferences.fitted[s]:
        return lines + ["Your answers could not be fitted on their own, so the class's model "
                        "stands in for you.", ""]
    yours = int(np.argmax(preferences.individual_utility[s]))
    class_best = int(np.argmax(preferences.pooled_utility))
    same = "the same as the class's" if yours == class_best else \
        f"the class's is {_setting_text(settings, class_best)}"
    n = int(preferences.n_answers[s])
    guess = f" (a guess from {n} answer{'s' * (n != 1)})" if n < 5 else ""
    class_size, class_answers = _class_condition(preferences)
    lines += ["", f"- Your favourite{guess}: {_setting_text(settings, yours)}; {same}. "
              f"{_favourite_trust(n, class_size, class_answers)}"]
    lines += _differences(preferences, s)
    lines += _few_answers(preferences, s)
    return lines + [""]


def leans_opposite(mine, theirs) -> np.ndarray:
    """Where a student and the class lean clearly opposite ways: the student's probability that
    the first setting is preferred ``mine`` (per pair; or a row per student) at least _SURE
    one way and the class's ``theirs`` at least _SURE the other."""
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    return ((mine >= _SURE) & (theirs <= 1 - _SURE)) | ((mine <= 1 - _SURE) & (theirs >= _SURE))


def _differences(preferences: ClassPreferences, s: int) -> list[str]:
    mine, theirs = preferences.individual_probability[s], preferences.pooled_probability
    differ = np.flatnonzero(leans_opposite(mine, theirs))
    condition = int(preferences.n_answers[s]), _class_condition(preferences)[0]
    if differ.size == 0:
        return [f"- On no pair do you and the class lean clearly opposite ways (each at least "
                f"{_percent(_SURE)} sure). {_opposite_trust(False, *condition)}"]
    lines = [f"- On {differ.size} pair{'s' * (differ.size != 1)} you lean clearly the other "
             "way from the class:"]
    for j in differ:
        a, b = preferences.pairs[j]
        first_you = mine[j] >= 0.5
        you, them = (a, b) if first_you else (b, a)
        sure_you = mine[j] if first_you else 1 - mine[j]
        sure_class = 1 - theirs[j] if first_you else theirs[j]
        differs = " (on this pair the class's tastes differ)" if preferences.verdict[j] == \
            "tastes differ" else ""
        lines.append(f"  - you prefer {_setting_text(preferences.settings, you)} "
                     f"({_percent(sure_you)} sure; {_sure_trust(sure_you, 'student')}), the "
                     f"class as a whole leans to {_setting_text(preferences.settings, them)} "
                     f"({_percent(sure_class)} sure; {_sure_trust(sure_class, 'class')})"
                     f"{differs}.")
    lines += ["", _opposite_trust(True, *condition)]     # a paragraph, not one more pair
    if any(preferences.verdict[j] == "tastes differ" for j in differ):
        lines += ["", differ_trust(preferences)]
    return lines + [""]


def _few_answers(preferences: ClassPreferences, s: int) -> list[str]:
    """For a student with few answers: what the held-out scores say about trusting the class's
    model instead of their own."""
    n = int(preferences.n_answers[s])
    counts = preferences.held_out_counts
    at = np.flatnonzero(counts >= n)
    if n > 4 or at.size == 0:
        return []
    g = int(at[0])
    class_score, own = preferences.held_out_score[0, g], preferences.held_out_score[1, g]
    if np.isnan(class_score) or np.isnan(own):
        return []
    better = "better" if class_score > own else "no better"
    return [f"- With only {n} answers your own model knows little: for students with "
            f"{int(counts[g])} answers, the class's model predicted their other answers "
            f"{better} than their own answers did."]
