"""Bad-input catalogue: expected improvement, query rules, convergence measure and the
forced-choice test (course_lib.gp.acquisition). Family "acquisition".

Decisions recorded here: a negative variance handed to expected_improvement is refused (the
library's own callers clip round-off before calling, so a negative value from a user is a bug);
negative EI values are refused by the multinomial draw and the running mean; snapping or grid
starts without a grid are refused naming ``X_grid``; a win count above n is refused naming
``wins``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.gp.acquisition import (average_ei_path, bivariate_ei, bivariate_ei_gradient,
                                       expected_improvement, forced_choice_test,
                                       forced_choice_threshold, incumbent, maximise_acquisition,
                                       multinomial_sample, settled_at, settling_threshold,
                                       thompson_sample, univariate_ei)
from course_lib.gp.comparisons import Comparisons
from course_lib.gp.pairwise_likelihoods import PairwiseProbit
from course_lib.gp.preference import PreferenceGP

X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, -1.0]])
PAIRS = Comparisons(X, [0, 1], [1, 2], [1.0, 0.0])
BOX = np.array([[-2.0, 2.0], [-2.0, 2.0]])
GRID = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 0.5]])


def model():
    return PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0)).fit(PAIRS)


def unfitted():
    return PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0))


def maximise(**changes):
    args = {"bounds": BOX, "X_grid": GRID} | changes
    return lambda: maximise_acquisition(model(), **args)


CASES = [
    # ----- expected_improvement -----------------------------------------------------------
    BadInput("acquisition: EI mean with NaN", lambda: expected_improvement([np.nan, 0.0], 1.0),
             ValueError, "mean"),
    BadInput("acquisition: EI negative var", lambda: expected_improvement(0.0, -1e-3),
             ValueError, "var"),
    BadInput("acquisition: EI var as text", lambda: expected_improvement(0.0, "1"), TypeError,
             "var"),
    BadInput("acquisition: EI best infinite", lambda: expected_improvement(0.0, 1.0, np.inf),
             ValueError, "best"),
    BadInput("acquisition: EI shapes that do not broadcast",
             lambda: expected_improvement(np.zeros(3), np.ones(2)), ValueError, "var"),
    BadInput("acquisition: EI empty mean", lambda: expected_improvement([], 1.0), ValueError,
             "mean"),
    # ----- model-based acquisitions --------------------------------------------------------
    BadInput("acquisition: incumbent of an unfitted model", lambda: incumbent(unfitted()),
             ValueError, "model"),
    BadInput("acquisition: incumbent of a non-model", lambda: incumbent("gp"), TypeError,
             "model"),
    BadInput("acquisition: bEI candidates with 3 columns",
             lambda: bivariate_ei(model(), np.zeros((4, 3))), ValueError, "X"),
    BadInput("acquisition: bEI candidates with NaN",
             lambda: bivariate_ei(model(), [[np.nan, 0.0]]), ValueError, "X"),
    BadInput("acquisition: bEI x_best of the wrong size",
             lambda: bivariate_ei(model(), GRID, x_best=[0.0, 0.0, 0.0]), ValueError, "x_best"),
    BadInput("acquisition: bEI x_best with inf",
             lambda: bivariate_ei(model(), GRID, x_best=[np.inf, 0.0]), ValueError, "x_best"),
    BadInput("acquisition: uEI best as a vector",
             lambda: univariate_ei(model(), GRID, best=[0.0, 1.0]), ValueError, "best"),
    BadInput("acquisition: bEI gradient at a point with 1 coordinate",
             lambda: bivariate_ei_gradient(model(), [0.5]), ValueError, "X"),
    BadInput("acquisition: bEI of an unfitted model", lambda: bivariate_ei(unfitted(), GRID),
             ValueError, "model"),
    # ----- multinomial and Thompson --------------------------------------------------------
    BadInput("acquisition: multinomial negative value",
             lambda: multinomial_sample([0.1, -0.2], rng=0), ValueError, "values"),
    BadInput("acquisition: multinomial 2-D values",
             lambda: multinomial_sample(np.ones((2, 2)), rng=0), ValueError, "values"),
    BadInput("acquisition: multinomial NaN value",
             lambda: multinomial_sample([0.1, np.nan], rng=0), ValueError, "values"),
    BadInput("acquisition: multinomial empty values", lambda: multinomial_sample([], rng=0),
             ValueError, "values"),
    BadInput("acquisition: multinomial values whose sum overflows",
             lambda: multinomial_sample([1e308, 1e308], rng=0), ValueError, "values"),
    BadInput("acquisition: multinomial rng as text",
             lambda: multinomial_sample([1.0, 2.0], rng="seed"), TypeError, "rng"),
    BadInput("acquisition: Thompson grid with 1 column",
             lambda: thompson_sample(model(), np.zeros((5, 1)), rng=0), ValueError, "X_grid"),
    BadInput("acquisition: Thompson rng as a float",
             lambda: thompson_sample(model(), GRID, rng=1.5), TypeError, "rng"),
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
    # ----- forced-choice test --------------------------------------------------------------
    BadInput("acquisition: forced choice more wins than trials",
             lambda: forced_choice_test(21, 20), ValueError, "wins"),
    BadInput("acquisition: forced choice negative wins", lambda: forced_choice_test(-1, 20),
             ValueError, "wins"),
    BadInput("acquisition: forced choice zero trials", lambda: forced_choice_test(0, 0),
             ValueError, "n"),
    BadInput("acquisition: forced choice wins as a float", lambda: forced_choice_test(18.0, 20),
             TypeError, "wins"),
    BadInput("acquisition: forced choice level above 1",
             lambda: forced_choice_test(18, 20, level=1.5), ValueError, "level"),
    BadInput("acquisition: forced choice level 0", lambda: forced_choice_test(18, 20, level=0.0),
             ValueError, "level"),
    BadInput("acquisition: forced-choice threshold n as a bool",
             lambda: forced_choice_threshold(True), TypeError, "n"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
