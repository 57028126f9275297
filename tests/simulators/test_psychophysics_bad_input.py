"""Bad-input catalogue: simulated detection tasks (course_lib.simulators.psychophysics). Family
"psychophysics".

Decisions recorded here: a problem's settings must have one column per dimension of its box
(naming ``X`` / ``U``); a norm ball needs at least two dimensions (faces of a 1-D box are
points); a constraint cap outside (0.5, 1) is refused naming ``constraint_cap``; a problem is
built only from a known link, a callable latent and constraints that fit its box.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.simulators.psychophysics import (LevelSetProblem, norm_ball_problem,
                                                 passthrough_problem, psychometric_problem,
                                                 simulate_answers)


def _problem(**changes):
    args = dict(name="toy", bounds=np.array([[0.0, 1.0]]), latent=lambda X: X[:, 0],
                link="probit", constraint_X=np.zeros((1, 1)), constraint_y=np.zeros(1))
    args.update(changes)
    return LevelSetProblem(**args)


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
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
