"""Bad-input catalogue: the multi-start bEI maximiser (course_lib.preference.acquisition).
Family "acquisition".

Decisions recorded here: snapping or grid starts without a grid are refused naming ``X_grid``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference.acquisition import maximise_acquisition
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseProbit
from course_lib.preference.preference_gp import PreferenceGP

X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, -1.0]])
PAIRS = Comparisons(X, [0, 1], [1, 2], [1.0, 0.0])
BOX = np.array([[-2.0, 2.0], [-2.0, 2.0]])
GRID = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 0.5]])


def model():
    return PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0)).fit(PAIRS)


def maximise(**changes):
    args = {"bounds": BOX, "X_grid": GRID} | changes
    return lambda: maximise_acquisition(model(), **args)


CASES = [
    # ----- maximise_acquisition ------------------------------------------------------------
    BadInput("acquisition: maximise bounds of the wrong shape", maximise(bounds=BOX[:1]),
             ValueError, "bounds"),
    BadInput("acquisition: maximise bounds low above high", maximise(bounds=BOX[:, ::-1]),
             ValueError, "bounds"),
    BadInput("acquisition: maximise zero restarts", maximise(n_restarts=0), ValueError,
             "n_restarts"),
    BadInput("acquisition: maximise snap without a grid", maximise(X_grid=None, snap=True),
             ValueError, "X_grid"),
    BadInput("acquisition: maximise grid starts without a grid",
             maximise(X_grid=None, starts="grid"), ValueError, "X_grid"),
    BadInput("acquisition: maximise unknown starts", maximise(starts="best"), ValueError,
             "starts"),
    BadInput("acquisition: maximise snap as text", maximise(snap="yes"), TypeError, "snap"),
    BadInput("acquisition: maximise max_iter 0", maximise(max_iter=0), ValueError, "max_iter"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
