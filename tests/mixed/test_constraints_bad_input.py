"""Bad-input catalogue: prior-knowledge constraints (course_lib.mixed.constraints). Family
"constraints".

Decisions recorded here: a probability outside [0, 1] and a cap outside (0.5, 1) are refused
naming ``p`` / ``cap``; answers must be 0 or 1 (naming ``answers``); constraints need both their
locations and targets; a session with no answers and no constraint in use has nothing to fit
and is refused naming ``answers``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.mixed.constraints import (constraint_sigma, constraints_from_probability,
                                          detection_likelihood, pseudo_data)

X = np.array([[0.1, 0.2], [0.5, 0.5]])
C_X = np.array([[0.0, 0.0], [1.0, 1.0]])
C_Y = np.array([0.0, 3.0])

CASES = [
    BadInput("constraints: probability 1.2", lambda: constraints_from_probability([0.5, 1.2]),
             ValueError, "p"),
    BadInput("constraints: NaN probability",
             lambda: constraints_from_probability([np.nan]), ValueError, "p"),
    BadInput("constraints: cap 1", lambda: constraints_from_probability(0.9, cap=1.0),
             ValueError, "cap"),
    BadInput("constraints: sigma of text", lambda: constraint_sigma("high"), TypeError, "y"),
    BadInput("constraints: pseudo-data with one target too few",
             lambda: pseudo_data(C_X, [0.0]), ValueError, "targets"),
    BadInput("constraints: pseudo-data with inf target",
             lambda: pseudo_data(C_X, [0.0, np.inf]), ValueError, "targets"),
    BadInput("constraints: answer 2", lambda: detection_likelihood(X, [1, 2]), ValueError,
             "answers"),
    BadInput("constraints: one answer for two trials", lambda: detection_likelihood(X, [1]),
             ValueError, "answers"),
    BadInput("constraints: locations without targets",
             lambda: detection_likelihood(X, [1, 0], constraint_X=C_X), ValueError,
             "constraint_y"),
    BadInput("constraints: constraint locations in 3-D for 2-D trials",
             lambda: detection_likelihood(X, [1, 0], constraint_X=np.zeros((2, 3)),
                                          constraint_y=C_Y), ValueError, "constraint_X"),
    BadInput("constraints: unknown arm",
             lambda: detection_likelihood(X, [1, 0], constraint_X=C_X, constraint_y=C_Y,
                                          arm="both"), ValueError, "arm"),
    BadInput("constraints: nothing to fit",
             lambda: detection_likelihood(np.zeros((0, 2)), [], constraint_X=C_X,
                                          constraint_y=C_Y, arm="none"), ValueError, "answers"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
