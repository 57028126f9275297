"""The register of stated rates: every rate a student reads, and where it was measured.

A verdict shown to a student (a pick, a flag, an interval, "settled") says how far to trust it:
a hit rate, a false-flag rate or a coverage, read from the committed result of the experiment
that measured it (``experiments/<name>.py``; :mod:`course_lib.results`). Each such rate has one
entry here, :data:`STATED_RATES`: the experiment, the key in its result that holds the numbers,
and the situation they were measured in (the kind of data, its size, simulated or real, the
rule applied). The functions that print a rate read it with :func:`stated_rate`, so the page,
the widget and the lecture that show it show the same numbers, and ``tests/test_stated_rates.py``
fails on a committed result read anywhere else in the library.

The fitted state a verdict applies (a tuned threshold, a chosen width, a fitted model) is read
the same way, with :func:`fitted_state`, from :data:`FITTED_STATE`: it is not a rate, but it
comes from the same experiments and goes stale with them (``python3 course.py experiments``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from course_lib.results import available_results, load_result

__all__ = ["Measured", "STATED_RATES", "FITTED_STATE",
           "stated_rate", "fitted_state", "is_committed"]


@dataclass(frozen=True)
class _StatedRate:
    """One rate a student reads: ``experiment`` (a script in ``experiments/`` and its committed
    result), ``key`` (the path to the numbers inside the result document), ``situation`` (where
    they were measured) and ``read_by`` (the functions that read it, for the sentences that
    print it)."""

    experiment: str
    key: tuple[str, ...]
    situation: str
    read_by: tuple[str, ...]


@dataclass(frozen=True)
class _FittedState:
    """Fitted state a verdict applies: ``experiment``, ``key`` as for a rate, ``what`` it is and
    ``read_by`` (the functions that apply it)."""

    experiment: str
    key: tuple[str, ...]
    what: str
    read_by: tuple[str, ...]


@dataclass(frozen=True)
class Measured:
    """A stated rate as read: ``value`` (the numbers at the entry's key), ``settings`` (the
    experiment's settings, the situation's parameters), and the entry's ``situation`` and
    ``experiment``."""

    value: Any
    settings: dict
    situation: str
    experiment: str


_CLASS_PANEL = "course_lib.class_panel.verdict_trust"
_PRONUNCIATION = "course_lib.pronunciation._panel_statements"

STATED_RATES: dict[str, _StatedRate] = {
    "class_panel.preference_verdicts": _StatedRate(
        "class_verdicts_by_condition", ("result", "cells"),
        "simulated classes of 8, 25 and 60 students, of one taste or whose tastes differ, each "
        "student answering 2, 3, 5, 8 or 15 of the round's pairs, 100 classes a cell; the class "
        "page's own rules (favourites, \"tastes differ\", \"agrees\", \"you lean the other way\")",
        (f"{_CLASS_PANEL}._by_condition",)),
    "class_panel.leaning_sureness": _StatedRate(
        "class_panel_calibration", ("result", "taste_summary"),
        "100 simulated classes of 25 students whose tastes differ, every pair answered; the "
        "stated probability of a leaning, binned",
        (f"{_CLASS_PANEL}._measured",)),
    "class_panel.agreement_coverage": _StatedRate(
        "class_panel_calibration", ("result", "summary", "all"),
        "simulated students of known truth in classes of 25 and of 200; the ratings model's "
        "90 % intervals of a student's correlation with and distance from the experts",
        (f"{_CLASS_PANEL}._agreement_trust",)),
    "class_panel.listener_alone_coverage": _StatedRate(
        "class_panel_calibration", ("result", "alone_summary"),
        "simulated listeners of known noise and bias scoring 3, 5, 10 or 20 clips alone "
        "(mixed, lenient, harsh and noisy kinds); the 90 % credible intervals of the listener "
        "model",
        (f"{_CLASS_PANEL}._alone",)),
    "personalise.settled": _StatedRate(
        "personalise_explorer_settling", ("result", "summary"),
        "400 simulated listeners per band count (2, 3 and 4 bands) answering as the model "
        "assumes, under the explorer's own settling rule, 40 comparisons each",
        ("course_lib.simulators.personalisation.settling_trust",)),
    "detection.threshold_interval": _StatedRate(
        "detection_threshold_intervals", ("result", "held_out", "by_answers"),
        "the held-out half: 45 simulated listeners of known threshold (probit curves, no "
        "lapses), the demo's own session (arm \"mixed\", global MI, 3 initial levels), after "
        "every number of answers up to 20; the interval width chosen on the other half",
        ("course_lib.widgets.detection._threshold_report",)),
    "recognition.real_voices": _StatedRate(
        "fsdd_real_voices", ("result",),
        "FSDD's six adult male speakers, 500 takes each, every recogniser tested on speakers it "
        "never heard (trained on synthetic digits, or leaving the tested speaker out)",
        ("course_lib.recognition.real_voices.measured_row",)),
    "recognition.speaker_interval_coverage": _StatedRate(
        "fsdd_speaker_intervals", ("result", "coverage", "fsdd_like"),
        "20,000 simulated draws of six speakers from an FSDD-like population per recogniser "
        "(500 takes each, the speakers' accuracies spread as FSDD's); the interval over "
        "speakers (Student's t, clipped, never narrower than the exact one over takes)",
        ("course_lib.recognition.real_voices._coverage",)),
    "pronunciation.word_accuracy_and_phone_flag": _StatedRate(
        "gong2022_context", ("result", "verdicts"),
        "speechocean762's test split (125 speakers the models never heard), the release's "
        "labels (a word's accuracy the median of the five experts; a phone mispronounced when "
        "most experts who scored it gave 0); the flag's threshold chosen on the training "
        "speakers' out-of-fold predictions; intervals over test speakers",
        (f"{_PRONUNCIATION}._word_accuracy_statement", f"{_PRONUNCIATION}._phone_verdict")),
    "pronunciation.word_check": _StatedRate(
        "shown_word_check", ("result",),
        "640 held-out espeak-ng readings (sentences and voices used in no choice: correct, a "
        "word replaced by a one-phone neighbour, or a word left out) and speechocean762's test "
        "speakers; the checks as the panel shows them",
        ("course_lib.pronunciation.detector_rates._rates",)),
    "pronunciation.reading_decoder": _StatedRate(
        "misread_readings", ("result",),
        "640 held-out espeak-ng readings; the neighbour decoder's margin and penalties tuned "
        "on the other 640",
        (f"{_PRONUNCIATION}._decoder_accuracy", f"{_PRONUNCIATION}._misreading_check")),
    "pronunciation.panel_accuracy": _StatedRate(
        "pronunciation_panel", ("result",),
        "speechocean762's test split, 2,500 sentences of 125 speakers the panel never heard, "
        "against the five experts' mean sentence accuracy; the model chosen by speaker-disjoint "
        "cross-validation on the training speakers",
        ("course_lib.pronunciation.panel.ExpertPanel",)),
    "pronunciation.table1_baseline": _StatedRate(
        "wong2024_table1_speechocean762", ("result", "by_inputs"),
        "speechocean762's test split, GP_base on each input set, predictions and the experts' "
        "mean rounded as Wong et al. 2024's Table 1",
        ("course_lib.pronunciation.panel.ExpertPanel",)),
}

FITTED_STATE: dict[str, _FittedState] = {
    "detection.interval_rule": _FittedState(
        "detection_threshold_intervals", ("result", "interval_rule"),
        "the interval's width z, chosen on the tuning half of the simulated listeners",
        ("course_lib.widgets.detection.DetectionState.interval",
         "course_lib.widgets.detection._threshold_report")),
    "pronunciation.word_model": _FittedState(
        "word_phone_feedback", ("result", "model"),
        "the word and phone score models (sparse GPs) and the flag's threshold, fitted on the "
        "training split",
        ("course_lib.pronunciation.word_scores.WordScoreModel",)),
    "pronunciation.context_model": _FittedState(
        "gong2022_context", ("result", "model"),
        "the phone and word score models that see the LPR vector and the neighbours (a "
        "per-phone ridge and sparse GPs) and the flag's threshold, fitted and chosen on the "
        "training speakers",
        ("course_lib.pronunciation.context_scores.ContextScoreModel",)),
    "pronunciation.heard_as_written_rule": _FittedState(
        "heard_as_written", ("result", "rule"),
        "the measure and threshold of \"not heard as written\", set on the training split",
        ("course_lib.pronunciation.heard_as_written._committed_threshold",)),
    "pronunciation.reading_decoder_tuning": _FittedState(
        "misread_readings", ("result",),
        "the neighbour decoder's margin and penalties, and whether they met their rule on the "
        "tuning half",
        ("course_lib.pronunciation.word_choice._tuned",
         "course_lib.pronunciation.panel._decoder_tuned")),
    "pronunciation.decoder_margins": _FittedState(
        "shown_word_check", ("result",),
        "the neighbour decoder's margins on both halves of the readings, and its tuned margin",
        ("course_lib.pronunciation.detector_rates._margins",)),
}


def _entry(key: str, register: dict, kind: str):
    if key not in register:
        raise KeyError(f"key: {key!r} is not a registered {kind} (course_lib.stated_rates); "
                       f"registered: {', '.join(sorted(register))}")
    return register[key]


def _at(document: dict, path: tuple[str, ...], experiment: str):
    value = document
    for part in path:
        if not isinstance(value, dict) or part not in value:
            raise LookupError(f"the committed result {experiment!r} has no "
                              f"{'/'.join(path)!r}; re-run python3 course.py experiments "
                              f"--run {experiment}")
        value = value[part]
    return value


def stated_rate(key: str) -> Measured:
    """The rate registered as ``key`` in :data:`STATED_RATES`, as its experiment committed it."""
    entry = _entry(key, STATED_RATES, "stated rate")
    document = load_result(entry.experiment)
    return Measured(_at(document, entry.key, entry.experiment), document["settings"],
                    entry.situation, entry.experiment)


def fitted_state(key: str):
    """The fitted state registered as ``key`` in :data:`FITTED_STATE`."""
    entry = _entry(key, FITTED_STATE, "fitted state")
    return _at(load_result(entry.experiment), entry.key, entry.experiment)


def is_committed(key: str) -> bool:
    """Whether the experiment behind ``key`` (a stated rate or fitted state) has a committed
    result; a result that is optional (not yet tuned) is asked about before it is read."""
    entry = STATED_RATES.get(key) or _entry(key, FITTED_STATE, "rate or fitted state")
    return entry.experiment in available_results()
