"""Bad-input catalogue: course_lib.mixed.inducing (inducing_points). Family "inducing_points".

Decisions recorded here: ``n`` = 0 is accepted only when ``include`` brings points; a box at the
float limit, whose scaled points would be infinite, is refused by name.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.mixed.inducing import inducing_points

BOUNDS = [[0.0, 1.0], [0.0, 1.0]]


def points(**changes):
    args = {"bounds": BOUNDS, "n": 8} | changes
    return lambda: inducing_points(**args)


CASES = [
    BadInput("inducing_points: bounds with low above high",
             points(bounds=[[1.0, 0.0], [0.0, 1.0]]), ValueError, "bounds"),
    BadInput("inducing_points: bounds not (d, 2)", points(bounds=[[0.0, 1.0, 2.0]]),
             ValueError, "bounds"),
    BadInput("inducing_points: no points at all", points(n=0), ValueError, "n"),
    BadInput("inducing_points: a fractional n", points(n=2.5), (TypeError, ValueError), "n"),
    BadInput("inducing_points: include of the wrong dimension",
             points(include=np.zeros((2, 3))), ValueError, "include"),
    BadInput("inducing_points: NaN in include", points(include=[[0.0, np.nan]]), ValueError,
             "include"),
    BadInput("inducing_points: rng not a generator or seed", points(rng="seed"), TypeError,
             "rng"),
    BadInput("inducing_points: bounds at the float limit (the points were inf)",
             points(bounds=[[-1.7e308, 1.7e308], [0.0, 1.0]]), ValueError, "bounds", first=True),
    # ----- sizes --------------------------------------------------------------------------------
    BadInput("inducing_points: 10^12 inducing points",
             lambda: inducing_points([[0.0, 1.0], [0.0, 1.0]], 10 ** 12, rng=0), ValueError,
             "n", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
