"""Bad-input catalogue: simulated detection tasks (course_lib.simulators.psychophysics). Family
"psychophysics".

Decisions recorded here: a problem's settings must have one column per dimension of its box
(naming ``X`` / ``U``); a norm ball needs at least two dimensions (faces of a 1-D box are
points); a constraint cap outside (0.5, 1) is refused naming ``constraint_cap``; a problem is
built only from a known link, a callable latent and constraints that fit its box.

A level-set problem has one definition of its set, {P(yes) < Phi(threshold)}: ``in_level_set``
agrees with the set a session scores (``probit_latent < threshold``); its latent is checked on
every call like a listener's utilities (NaN, one number for every query or a row per column is
refused naming ``latent``); its constraints lie inside the box and its threshold is finite.
"""

import numpy as np

from bad_input import BadInput, RightAnswer, check_case, parametrize
from course_lib.simulators.psychophysics import (LevelSetProblem, detection_problem,
                                                 norm_ball_problem, passthrough_problem,
                                                 psychometric_problem, simulate_answers)


def _problem(**changes):
    args = dict(name="toy", bounds=np.array([[0.0, 1.0]]), latent=lambda X: X[:, 0],
                link="probit", constraint_X=np.zeros((1, 1)), constraint_y=np.zeros(1))
    args.update(changes)
    return LevelSetProblem(**args)


def _inside(problem):
    """in_level_set at 4000 random settings, after checking that it is the set the session
    scores (probit_latent < threshold)."""
    X = problem.from_unit(np.random.default_rng(11).uniform(size=(4000, problem.dim)))
    inside = problem.in_level_set(X)
    np.testing.assert_array_equal(inside, problem.probit_latent(X) < problem.threshold)
    return inside


def _thresholds_agree(problem):
    assert 0 < _inside(problem).mean() < 1


def _empty_set(problem):
    # the psychometric latent is >= 0 everywhere: {P(yes) < 1/2} is empty (the old
    # in_level_set kept the 75 % set, 6 % of the box, while the session scored this one)
    assert not _inside(problem).any()


def _same_problem(make, threshold, name):
    problem = make()
    return LevelSetProblem(name, problem.bounds, problem.latent, problem.link,
                           problem.constraint_X, problem.constraint_y, threshold=threshold)


CASES = [
    BadInput("psychophysics: answers at 3-D settings of a 2-D task",
             lambda: simulate_answers(psychometric_problem(), np.zeros((4, 3)), rng=0),
             ValueError, "X"),
    BadInput("psychophysics: answers at NaN settings",
             lambda: simulate_answers(psychometric_problem(), [[np.nan, 0.0]], rng=0),
             ValueError, "X"),
    BadInput("psychophysics: answers for a dict",
             lambda: simulate_answers({"name": "task"}, np.zeros((1, 2)), rng=0), TypeError,
             "problem"),
    BadInput("psychophysics: answers with a text rng",
             lambda: simulate_answers(psychometric_problem(), np.zeros((1, 2)), rng="seed"),
             TypeError, "rng"),
    BadInput("psychophysics: cube coordinates with 2 columns for the 3-D passthrough",
             lambda: passthrough_problem().from_unit(np.zeros((2, 2))), ValueError, "U"),
    BadInput("psychophysics: a listener whose 50 % point is level 0",
             lambda: detection_problem(u50=0.0), ValueError, "u50"),
    BadInput("psychophysics: a listener who says heard to silence 60 % of the time",
             lambda: detection_problem(false_alarms=0.6), ValueError, "false_alarms"),
    BadInput("psychophysics: a 1-D norm ball", lambda: norm_ball_problem(1), ValueError, "dim"),
    BadInput("psychophysics: constraint cap 1.5",
             lambda: psychometric_problem(constraint_cap=1.5), ValueError, "constraint_cap"),
    BadInput("psychophysics: a cauchit link", lambda: _problem(link="cauchit"), ValueError,
             "link"),
    BadInput("psychophysics: a latent that is a number", lambda: _problem(latent=3.0),
             TypeError, "latent"),
    BadInput("psychophysics: bounds with low above high",
             lambda: _problem(bounds=np.array([[1.0, 0.0]])), ValueError, "bounds"),
    BadInput("psychophysics: 2-D constraints in a 1-D box",
             lambda: _problem(constraint_X=np.zeros((1, 2))), ValueError, "constraint_X"),
    BadInput("psychophysics: bounds at the float limit",
             lambda: _problem(bounds=np.array([[-1.7e308, 1.7e308]]),
                              constraint_X=np.zeros((1, 1))), ValueError, "bounds", first=True),
    # ----- one definition of the set, a checked latent ------------------------------------------
    BadInput("psychophysics: a latent that is NaN in part of the box",
             lambda: LevelSetProblem("holey", [[0.0, 1.0]],
                                     lambda X: np.where(X[:, 0] > 0.8, np.nan, X[:, 0]),
                                     "probit", [[0.1]], [0.1]).answer_probability(
                 [[0.5], [0.9]]), ValueError, "latent", first=True),
    BadInput("psychophysics: a latent that returns one number for every query",
             lambda: LevelSetProblem("flat", [[0.0, 1.0]], lambda X: 0.3, "probit", [[0.1]],
                                     [0.1]), ValueError, "latent", first=True),
    BadInput("psychophysics: a latent that returns a row per column",
             lambda: LevelSetProblem("sideways", [[0.0, 1.0], [0.0, 1.0]],
                                     lambda X: X.sum(axis=0), "probit",
                                     [[0.1, 0.2], [0.3, 0.4]], [0.1, 0.2]),
             ValueError, "latent", first=True),
    RightAnswer("psychophysics: threshold 0 and in_level_set agree (psychometric)",
                lambda: _same_problem(psychometric_problem, 0.0, "psychometric at 50 %"),
                _empty_set),
    RightAnswer("psychophysics: threshold 1 and in_level_set agree (norm ball)",
                lambda: _same_problem(norm_ball_problem, 1.0, "ball at 84 %"),
                _thresholds_agree),
    RightAnswer("psychophysics: threshold 1.5 and in_level_set agree (logistic)",
                lambda: _same_problem(passthrough_problem, 1.5, "passthrough at 93 %"),
                _thresholds_agree),
    BadInput("psychophysics: a constraint at 250 in the box [0, 100]",
             lambda: LevelSetProblem("far", [[0.0, 100.0]], lambda X: X[:, 0] / 50.0, "probit",
                                     [[250.0]], [1.0]), ValueError, "constraint_X", first=True),
    BadInput("psychophysics: a NaN threshold",
             lambda: LevelSetProblem("nan", [[0.0, 1.0]], lambda X: X[:, 0], "probit", [[0.5]],
                                     [0.5], threshold=np.nan), ValueError, "threshold",
             first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
