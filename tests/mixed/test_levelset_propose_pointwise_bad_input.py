"""Bad-input catalogue: the level-set acquisitions of the query's own marginal, BALD and straddle
(course_lib.mixed.levelset_propose). Family "levelset".
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import GPRegression, SquaredExponential
from course_lib.mixed.levelset_propose import bald_bernoulli, straddle

X = np.array([[0.0, 0.0], [1.0, 0.5], [-0.5, 1.0]])
POINTS = np.array([[0.2, 0.1], [0.9, -0.3]])


def model():
    return GPRegression(SquaredExponential(1.0, 1.0), noise_variance=0.1).fit(X, [0.0, 1.0, 2.0])


CASES = [
    BadInput("levelset: BALD with empty candidates",
             lambda: bald_bernoulli(model(), np.zeros((0, 2))), ValueError, "candidates"),
    BadInput("levelset: straddle with a negative width",
             lambda: straddle(model(), POINTS, 0.5, width=-1.0), ValueError, "width"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
