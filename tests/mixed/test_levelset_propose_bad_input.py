"""Bad-input catalogue: choosing the next level-set query (course_lib.mixed.levelset_propose).
Family "levelset".

Decisions recorded here: ``propose`` names the argument an acquisition lacks (``references``,
``threshold``) and ignores the ones it does not use (a widget may pass all of them whatever the
acquisition); a callable acquisition's wrong-shaped or NaN scores are refused naming
``acquisition``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import GPRegression, SquaredExponential
from course_lib.mixed.levelset_propose import propose

X = np.array([[0.0, 0.0], [1.0, 0.5], [-0.5, 1.0]])
POINTS = np.array([[0.2, 0.1], [0.9, -0.3]])
BOX_SMALL = [[0.0, 0.5], [-1.0, 1.0]]


def model():
    return GPRegression(SquaredExponential(1.0, 1.0), noise_variance=0.1).fit(X, [0.0, 1.0, 2.0])


CASES = [
    BadInput("levelset: propose with an unknown acquisition name",
             lambda: propose(model(), "mutual_information", candidates=POINTS), ValueError,
             "acquisition"),
    BadInput("levelset: propose with an acquisition that is neither a name nor callable",
             lambda: propose(model(), 3, candidates=POINTS), TypeError, "acquisition"),
    BadInput("levelset: propose global MI without references",
             lambda: propose(model(), "global_mi", candidates=POINTS, threshold=0.5),
             ValueError, "references"),
    BadInput("levelset: propose EAVC without a threshold",
             lambda: propose(model(), "eavc", candidates=POINTS, references=POINTS),
             ValueError, "threshold"),
    BadInput("levelset: propose straddle without a threshold",
             lambda: propose(model(), "straddle", candidates=POINTS), ValueError, "threshold"),
    BadInput("levelset: propose with a callable giving one score too few",
             lambda: propose(model(), lambda m, C: np.zeros(len(C) - 1), candidates=POINTS),
             ValueError, "acquisition"),
    BadInput("levelset: propose with a callable giving NaN",
             lambda: propose(model(), lambda m, C: np.full(len(C), np.nan), candidates=POINTS),
             ValueError, "acquisition"),
    BadInput("levelset: propose with NaN candidates",
             lambda: propose(model(), "bald", candidates=[[np.nan, 0.0]]), ValueError,
             "candidates"),
    BadInput("levelset: propose with 3-column references",
             lambda: propose(model(), "global_mi", candidates=POINTS,
                             references=np.zeros((2, 3)), threshold=0.5), ValueError,
             "references"),
    BadInput("levelset: propose with bounds of the wrong shape",
             lambda: propose(model(), "bald", candidates=POINTS, bounds=[0.0, 1.0]),
             ValueError, "bounds"),
    BadInput("levelset: propose with candidates outside the bounds",
             lambda: propose(model(), "bald", candidates=POINTS, bounds=BOX_SMALL), ValueError,
             "bounds"),
    BadInput("levelset: propose with polish as text",
             lambda: propose(model(), "bald", candidates=POINTS, polish="yes"), TypeError,
             "polish"),
    BadInput("levelset: propose with bounds at the float limit",
             lambda: propose(model(), "bald", candidates=POINTS,
                             bounds=[[-1.7e308, 1.7e308], [-1.0, 1.0]]), ValueError, "bounds",
             first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
