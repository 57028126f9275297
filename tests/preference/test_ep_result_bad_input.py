"""Bad-input catalogue: the evidence gradient of EP's result (course_lib.preference.ep).
Family "ep"."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference.ep import expectation_propagation
from course_lib.preference.rating_likelihoods import BetaRating

X = np.array([[0.0], [1.0], [2.0]])
K = SquaredExponential(1.0, 1.0)(X)
M = np.eye(3)[[0, 1, 2, 1]]
Y = np.array([0.8, 0.3, 0.6, 0.4])
BETA = BetaRating(10.0)


def evidence_gradient(dK):
    return lambda: expectation_propagation(K, M, BETA, Y).evidence_gradient(dK)


CASES = [
    BadInput("ep: dK of the wrong size", evidence_gradient(np.ones((2, 2, 2))), ValueError,
             "dK"),
    BadInput("ep: dK with NaN", evidence_gradient(np.full((1, 3, 3), np.nan)), ValueError, "dK"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
