"""Bad-input catalogue: simulated listeners (course_lib.simulators.listeners). Family "listeners".

Decisions recorded here: a listener needs a pairwise likelihood (a bounded-rating likelihood
is refused naming ``likelihood``); an IRF that returns the wrong shape or NaN is refused naming
``irf`` (or ``other`` for a switching listener's second IRF) rather than giving NaN answers;
only one pathology may change the utility.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference import BetaRating, PairwiseProbit
from course_lib.simulators.listeners import (CannotHear, Fatigue, GPDrawResponse,
                                             MattersAboveThreshold, SimulatedListener,
                                             SwitchesPreference, gp_draw_2d, negated_griewank,
                                             settings_grid)

PROBIT = PairwiseProbit(0.5)
GRID = settings_grid(-4, 4, 2, 2)   # 25 settings


def plane(X):
    return X[:, 0] + X[:, 1]


def listener(**changes):
    args = {"irf": plane, "likelihood": PROBIT, "rng": 0} | changes
    irf, likelihood = args.pop("irf"), args.pop("likelihood")
    return lambda: SimulatedListener(irf, likelihood, **args)


def asks(irf, pathology=None, X_first=np.zeros((1, 2)), X_second=np.ones((1, 2))):
    return lambda: SimulatedListener(irf, PROBIT, rng=0, pathology=pathology).answer(
        X_first, X_second)


CASES = [
    # ----- IRFs ---------------------------------------------------------------------------------
    BadInput("listeners: griewank with two columns", lambda: negated_griewank(np.ones((3, 2))),
             ValueError, "X"),
    BadInput("listeners: griewank with NaN", lambda: negated_griewank([0.0, np.nan]),
             ValueError, "X"),
    BadInput("listeners: grid with high below low", lambda: settings_grid(1, -1, 0.5, 2),
             ValueError, "high"),
    BadInput("listeners: grid with step 0", lambda: settings_grid(-1, 1, 0, 2), ValueError,
             "step"),
    BadInput("listeners: grid in 0 dimensions", lambda: settings_grid(-1, 1, 0.5, 0),
             ValueError, "dim"),
    BadInput("listeners: grid far too large", lambda: settings_grid(0, 80, 1, 4), ValueError,
             "step"),
    BadInput("listeners: GP draw with a kernel name", lambda: GPDrawResponse("se", GRID),
             TypeError, "kernel"),
    BadInput("listeners: GP draw with NaN anchors",
             lambda: GPDrawResponse(SquaredExponential(), [[0.0], [np.nan]]), ValueError,
             "anchors"),
    BadInput("listeners: GP draw evaluated in the wrong dimension",
             lambda: gp_draw_2d(rng=0)(np.zeros((2, 3))), ValueError, "X"),
    BadInput("listeners: GP draw with negative lengthscale",
             lambda: gp_draw_2d(rng=0, lengthscale=-1.0), ValueError, "lengthscale"),
    # ----- listeners ------------------------------------------------------------------------------
    BadInput("listeners: irf not callable", listener(irf=3.0), TypeError, "irf"),
    BadInput("listeners: irf a class", listener(irf=GPDrawResponse), TypeError, "irf"),
    BadInput("listeners: likelihood for single ratings", listener(likelihood=BetaRating()),
             ValueError, "likelihood"),
    BadInput("listeners: likelihood as text", listener(likelihood="probit"), TypeError,
             "likelihood"),
    BadInput("listeners: rng as text", listener(rng="seed"), TypeError, "rng"),
    BadInput("listeners: pathology as text", listener(pathology="tired"), TypeError,
             "pathology"),
    BadInput("listeners: two pathologies change the utility",
             listener(pathology=[CannotHear(0.1), SwitchesPreference(plane, 3)]), ValueError,
             "pathology"),
    BadInput("listeners: cannot-hear scale above 1", lambda: CannotHear(1.5), ValueError,
             "scale"),
    BadInput("listeners: switch to a number", lambda: SwitchesPreference(3, 2), TypeError,
             "other"),
    BadInput("listeners: switch after -1 answers", lambda: SwitchesPreference(plane, -1),
             ValueError, "after"),
    BadInput("listeners: negative fatigue rate", lambda: Fatigue(-0.1), ValueError, "rate"),
    BadInput("listeners: threshold on a missing coordinate",
             asks(plane, MattersAboveThreshold(dim=2, level=0.0)), ValueError, "dim"),
    BadInput("listeners: pairs with different row counts",
             asks(plane, X_second=np.ones((2, 2))), ValueError, "X_second"),
    BadInput("listeners: pairs with different dimensions",
             asks(plane, X_second=np.ones((1, 3))), ValueError, "X_second"),
    BadInput("listeners: irf returning one value for all", asks(lambda X: 1.0), ValueError,
             "irf"),
    BadInput("listeners: irf returning NaN", asks(lambda X: np.full(X.shape[0], np.nan)),
             ValueError, "irf"),
    BadInput("listeners: second irf of the wrong shape",
             asks(plane, SwitchesPreference(lambda X: np.zeros(5), 0)), ValueError, "other"),
    BadInput("listeners: forced choice of 0 presentations",
             lambda: SimulatedListener(plane, PROBIT, rng=0).forced_choice([1, 1], [0, 0], 0),
             ValueError, "n"),
    BadInput("listeners: forced choice with two found settings",
             lambda: SimulatedListener(plane, PROBIT, rng=0).forced_choice(np.ones((2, 2)),
                                                                            [0, 0], 5),
             ValueError, "x_found"),
    # ----- issue 39: bad input that still got through -------------------------------------
    BadInput("listeners: grid step larger than its range (the end was dropped)",
             lambda: settings_grid(0, 1, 2, 1), ValueError, "step", first=True),
    BadInput("listeners: grid bounds at the float limit",
             lambda: settings_grid(-1.7e308, 1.7e308, 1e307, 1), ValueError, "high", first=True),
    BadInput("listeners: grid step at float64's smallest",
             lambda: settings_grid(0, 1, 5e-324, 1), ValueError, "step", first=True),
    BadInput("listeners: GP draw anchored on a step larger than its box",
             lambda: gp_draw_2d(anchor_step=50, rng=0), ValueError, "anchor_step", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
