"""The class figures (``class_panel.figures``), drawn from a small simulated class (8 students,
a hand-made panel, six equaliser settings): each figure draws what the results hold (one point
per informative student, the experts apart, the band and the experts' line, one row per pair,
one line per model), colour is never the only cue, each description carries the numbers the
figure shows, and what is not the class's results is refused by name. The builders' own
drawing from plain numbers is tested in tests/plotting/test_class_panel.py."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from course_lib.class_panel.preference_model import class_preferences_model
from course_lib.class_panel.score_model import class_ratings_model
from course_lib.class_panel.figures import class_figures
from course_lib.plotting.class_panel import ClassFigure
from course_lib.rater_data import RaterData
from course_lib.class_panel.verdict_trust import _class_condition, differ_trust, counted_share
from course_lib.results import load_result

N_STUDENTS = 8


@pytest.fixture(scope="module")
def results():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (80, 2))
    f = 5 + 1.5 * np.sin(1.5 * X[:, 0]) + 0.8 * X[:, 1]
    panel = SimpleNamespace(features=X, train=np.arange(80), ratings=RaterData.from_matrix(
        np.clip(np.round(f[:, None] + rng.normal(0, 0.7, (80, 5))), 0, 10), scale=(0, 10)))
    items = np.arange(12)
    scores = np.clip(np.round(f[items, None] + rng.normal(0, 1.2, (12, N_STUDENTS))), 0, 10)
    scores[:, 3] = 6                                          # no information
    names = tuple(f"s{k}" for k in range(N_STUDENTS))
    settings = np.array([[-6.0, -6.0], [-6.0, 6.0], [6.0, -6.0], [6.0, 6.0]])
    pairs = np.array([(i, j) for i in range(4) for j in range(i + 1, 4)])
    comparisons = {}
    for k, name in enumerate(names):
        u = (1 if k % 2 else -1) * settings[:, 0] / 6 - settings[:, 1] / 6
        z = u[pairs[:, 0]] - u[pairs[:, 1]] + rng.normal(0, 0.4, len(pairs))
        comparisons[name] = (pairs[:, 0], pairs[:, 1],
                             np.where(z > 0.3, 0.95, np.where(z < -0.3, 0.05, 0.5)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ratings = class_ratings_model((RaterData.from_matrix(scores, scale=(0, 10)), names,
                                       items), panel, n_context=40)
        preferences = class_preferences_model((settings, pairs, comparisons), n_permutations=5,
                                              n_scored=4, n_held_out=2)
    yield ratings, preferences
    plt.close("all")


@pytest.fixture(scope="module")
def drawn(results):
    """class_figures' figures by name, drawn once."""
    return {f.name: f.figure for f in class_figures(*results)}


def points(ax) -> int:
    return sum(len(line.get_xdata()) for line in ax.get_lines() if line.get_linestyle() == "None")


def test_the_students_figure_draws_each_informative_student_and_the_experts_apart(results,
                                                                                 drawn):
    ratings, _ = results
    left, right = drawn["students"].axes
    markers = {line.get_marker() for line in left.get_lines() if line.get_linestyle() == "None"}
    assert len(markers) == 2                                  # students and experts: two shapes
    assert points(left) == N_STUDENTS - 1 + 5
    assert "not shown: 1 with every score the same" in left.get_title()
    assert [t.get_text() for t in right.get_yticklabels()] == [
        ratings.pseudonyms[r] for r in np.argsort(np.where(ratings.informative,
                                                           ratings.correlation, np.inf))[:7]]


def test_the_consensus_figure_draws_both_series_with_their_own_markers(results, drawn):
    ratings, _ = results
    ax = drawn["consensus"].axes[0]
    lines = [line for line in ax.get_lines()                  # not the error bars' caps
             if len(line.get_xdata()) == 12 and line.get_marker() not in ("_", "|")]
    assert len(lines) == 2 and lines[0].get_marker() != lines[1].get_marker()
    np.testing.assert_allclose(sorted(lines[0].get_ydata()), np.sort(ratings.expert_mean))


def test_the_reliability_figure_has_its_band_the_experts_line_and_the_k(results, drawn):
    ratings, _ = results
    ax = drawn["reliability"].axes[0]
    rel = ratings.reliability
    assert any(isinstance(c, PolyCollection) for c in ax.collections)
    ys = [tuple(line.get_ydata()) for line in ax.get_lines()]
    assert (rel.experts, rel.experts) in ys
    assert ax.get_title() == rel.verdict()[0].upper() + rel.verdict()[1:]


def test_the_preferences_figure_has_a_row_per_pair_and_its_verdicts(results, drawn):
    _, preferences = results
    left, right = drawn["preferences"].axes
    P = preferences.pairs.shape[0]
    assert len(left.patches) == 3 * P
    assert len({p.get_hatch() for p in left.patches}) == 3    # hatching, not colour alone
    assert [t.get_text() for t in right.texts] == list(preferences.verdict)
    assert [t.get_text() for t in left.get_yticklabels()] == [
        f"{a + 1} vs {b + 1}" for a, b in preferences.pairs]


def test_the_held_out_figure_has_one_styled_line_per_model(results, drawn):
    _, preferences = results
    ax = drawn["held-out"].axes[0]
    styled = {(line.get_marker(), str(line.get_linestyle())) for line in ax.get_lines()
              if line.get_marker() not in (None, "None", "_")}
    assert len(styled) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(
        preferences.held_out_models)


def test_the_descriptions_carry_the_numbers_drawn(results):
    ratings, preferences = results
    drawn = class_figures(ratings, preferences)
    assert [f.name for f in drawn] == ["students", "consensus", "reliability", "preferences",
                                       "held-out"]
    assert all(isinstance(f, ClassFigure) and f.description and "$" not in f.description
               and "nan" not in f.description.lower() for f in drawn)
    text = {f.name: f.description for f in drawn}
    assert f"scatter of {N_STUDENTS - 1} students" in text["students"]
    assert f"reliability {ratings.reliability.experts:.2f}" in text["reliability"]
    assert ratings.reliability.verdict() in text["reliability"]
    assert f"{preferences.pairs.shape[0]} pairs of equaliser settings" in text["preferences"]
    assert f"agrees on {preferences.verdict.count('agrees')} pairs" in text["preferences"]
    assert [f.name for f in class_figures(preferences=preferences)] == ["preferences",
                                                                       "held-out"]


def test_the_preferences_figure_states_how_far_its_verdicts_hold_for_its_class(results):
    _, preferences = results
    text = next(f.description for f in class_figures(preferences=preferences)
                if f.name == "preferences")
    assert differ_trust(preferences) in text
    size, answers = _class_condition(preferences)
    cells = load_result("class_verdicts_by_condition")["result"]["cells"]
    measured_size = max([c for c in (8, 25, 60) if c <= size], default=8)
    measured_answers = max([a for a in (2, 3, 5, 8, 15) if a <= answers], default=2)
    one = cells[f"one taste/{measured_size}/{measured_answers}"]
    assert f"{counted_share(one['classes_with_differ'], one['classes'])} showed a \"tastes " \
        f"differ\" pair (a false call)" in text
    assert one["classes"] >= 100 and one["classes_with_differ"] <= 0.05 * one["classes"]

def test_bad_input_is_named(results):
    ratings, preferences = results
    with pytest.raises(TypeError, match="^ratings:"):
        class_figures(preferences)
    with pytest.raises(TypeError, match="^preferences:"):
        class_figures(ratings, ratings)
    with pytest.raises(ValueError, match="^ratings:"):
        class_figures()
