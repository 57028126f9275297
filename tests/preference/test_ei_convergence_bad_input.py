"""Bad-input catalogue: the convergence measure (course_lib.preference.ei_convergence). Family
"acquisition".

Decisions recorded here: negative EI values are refused by the running mean.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference.ei_convergence import average_ei_path, settled_at, settling_threshold

CASES = [
    # ----- convergence measure -------------------------------------------------------------
    BadInput("acquisition: EI path with a negative value",
             lambda: average_ei_path([0.1, -0.1]), ValueError, "history"),
    BadInput("acquisition: EI path window 0", lambda: average_ei_path([0.1, 0.2], window=0),
             ValueError, "window"),
    BadInput("acquisition: EI path 2-D", lambda: average_ei_path(np.ones((2, 2))), ValueError,
             "history"),
    BadInput("acquisition: settled_at threshold 0",
             lambda: settled_at([0.1, 0.2], threshold=0.0), ValueError, "threshold"),
    BadInput("acquisition: settling threshold of a number, not a kernel",
             lambda: settling_threshold(4.0, np.zeros((1, 2))), TypeError, "kernel"),
    BadInput("acquisition: settling threshold over settings with NaN",
             lambda: settling_threshold(SquaredExponential(1.0, 1.0), np.array([[np.nan]])),
             ValueError, "X"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
