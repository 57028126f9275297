"""Bad-input catalogue: the level-set session's model (course_lib.simulators.levelset_model).
Family "levelset_model".

Decisions recorded here: the threshold estimate needs a finite threshold (a NaN one is reached
by no comparison, so it would read as "no estimate yet").
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.simulators.levelset_model import _threshold_level

CASES = [
    # a NaN threshold is reached by no comparison: it read as "no estimate yet"
    BadInput("levelset_model: a NaN threshold for the estimate",
             lambda: _threshold_level(np.linspace(0, 1, 5), np.linspace(-1, 1, 5), float("nan")),
             ValueError, "threshold"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
