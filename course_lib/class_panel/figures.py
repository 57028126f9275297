"""The class's figures: what each one draws, read from the class's results.

:func:`class_figures` reads :class:`~course_lib.class_panel.score_model.ClassRatings` and
:class:`~course_lib.class_panel.preference_model.ClassPreferences` (the students who entered the
model, each interval as its low and high end, the verdicts in words) and hands the numbers to the
figure builders of :mod:`course_lib.plotting.class_panel`, which draw them and describe them
and know nothing of the models.
"""

from __future__ import annotations

import numpy as np

from course_lib.class_panel.preference_model import ClassPreferences
from course_lib.class_panel.score_model import ClassRatings, _interval_z
from course_lib.class_panel.student_pages import _check_class_results
from course_lib.class_panel.verdict_trust import differ_trust
from course_lib.plotting.class_panel import (ClassFigure, consensus_figure, held_out_figure,
                                             preferences_figure, reliability_figure,
                                             students_figure)
from course_lib.plotting.listener_panel import BesideExperts

__all__ = ["class_figures", "listener_beside_experts"]

_PREFERENCE_LEVEL = 0.9   # the pooled difference's credible interval, as the pages state it


def class_figures(ratings: ClassRatings | None = None,
                  preferences: ClassPreferences | None = None) -> list[ClassFigure]:
    """Every class figure the results allow (three from ``ratings``: "students", "consensus",
    "reliability"; two from ``preferences``: "preferences", "held-out"), each with its
    description."""
    _check_class_results(ratings, preferences)
    drawn = []
    if ratings is not None:
        drawn += [_students(ratings), _consensus(ratings), _reliability(ratings)]
    if preferences is not None:
        drawn += [_preferences(preferences), _held_out(preferences)]
    return drawn


def listener_beside_experts(ratings: ClassRatings, pseudonym: str = "you") -> BesideExperts:
    """``pseudonym``'s noise variance and bias with their intervals beside the experts', as the
    sixth-rater figure draws them (``ratings`` from
    :func:`~course_lib.class_panel.score_model.listener_ratings_model` or of a whole class)."""
    r = ratings.row(pseudonym)
    if r is None:
        raise ValueError(f"pseudonym: {pseudonym!r} handed in no rating sheet")
    return BesideExperts(
        noise=float(ratings.noise_variance[r]), noise_interval=tuple(ratings.noise_interval[r]),
        bias=float(ratings.bias[r]), bias_interval=tuple(ratings.bias_interval[r]),
        expert_noise=ratings.expert_noise_variance, expert_bias=ratings.expert_bias,
        interval_name=ratings.interval_name("noise"))


def _around(centre, half_width) -> np.ndarray:
    """(n, 2) low and high ends of a symmetric interval."""
    return np.asarray(centre)[:, None] + np.outer(half_width, [-1.0, 1.0])


def _left_out(ratings: ClassRatings) -> str:
    """"; not shown: 2 with every score the same, 1 with too few scores" or ""."""
    parts = [f"{ratings.status.count(status)} {text}" for status, text in (
        ("no information", "with every score the same"), ("too few scores", "with too few scores"))
        if ratings.status.count(status)]
    return f"; not shown: {', '.join(parts)}" if parts else ""


def _students(ratings: ClassRatings) -> ClassFigure:
    ok = ratings.informative
    bias_interval = (ratings.bias_interval[ok] if ratings.bias_interval is not None else
                     _around(ratings.bias[ok], _interval_z(ratings.level) * ratings.bias_se[ok]))
    return students_figure(
        [name for name, keep in zip(ratings.pseudonyms, ok) if keep], ratings.bias[ok],
        bias_interval, ratings.noise_variance[ok], ratings.noise_interval[ok],
        ratings.correlation[ok], ratings.correlation_interval[ok], ratings.expert_bias,
        ratings.expert_noise_variance, level=ratings.level,
        interval_names=(ratings.interval_name("bias"), ratings.interval_name("correlation")),
        left_out=_left_out(ratings))


def _consensus(ratings: ClassRatings) -> ClassFigure:
    interval = (ratings.consensus_interval if ratings.consensus_interval is not None else
                # a ClassRatings built by hand: the normal approximation
                _around(ratings.consensus, _interval_z(ratings.level) * ratings.consensus_sd))
    return consensus_figure(ratings.expert_mean, ratings.consensus, interval,
                            n_experts=ratings.expert_bias.size,
                            interval_name=ratings.interval_name("consensus"))


def _reliability(ratings: ClassRatings) -> ClassFigure:
    rel = ratings.reliability
    return reliability_figure(rel.k, rel.reliability, rel.band, experts=rel.experts,
                              n_experts=rel.n_experts, level=rel.level, k_needed=rel.k_needed,
                              verdict=rel.verdict())


def _preferences(preferences: ClassPreferences) -> ClassFigure:
    half = _interval_z(_PREFERENCE_LEVEL) * preferences.pooled_difference_sd
    return preferences_figure(
        [f"{a + 1} vs {b + 1}" for a, b in preferences.pairs], preferences.shares,
        preferences.individual_difference[preferences.fitted], preferences.pooled_difference,
        _around(preferences.pooled_difference, half), preferences.verdict,
        level=_PREFERENCE_LEVEL, trust=differ_trust(preferences))


def _held_out(preferences: ClassPreferences) -> ClassFigure:
    return held_out_figure(preferences.held_out_counts, preferences.held_out_models,
                           preferences.held_out_score, preferences.held_out_se)
