"""Bad-input catalogue: the personalisation study's loop
(course_lib.simulators.personalisation_study). Family "personalisation_study".

Decisions recorded here: a session whose model models another kind of answer than the listener
gives is refused naming ``model``. A session's grid has distinct settings (a repeated setting is
refused naming ``grid``); the 'thompson' rule on a grid whose joint draw would pass 2 GiB is
refused naming ``grid``; ``next_candidate`` needs a grid with a setting besides the incumbent,
and a bEI table of that grid (``grid_bei``).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference import PairwiseBeta, PairwiseProbit, PreferenceGP
from course_lib.preference.comparisons import Comparisons
from course_lib.simulators.listeners import SimulatedListener, settings_grid
from course_lib.simulators.personalisation_study import (hearing_aid_model, next_candidate,
                                                         run_session)

PROBIT = PairwiseProbit(0.5)
GRID = settings_grid(-4, 4, 2, 2)   # 25 settings


def plane(X):
    return X[:, 0] + X[:, 1]


def session(**changes):
    args = {"listener": SimulatedListener(plane, PROBIT, rng=0),
            "model": PreferenceGP(SquaredExponential(2.0, 1.0), PROBIT), "grid": GRID,
            "n_random": 3, "n_active": 1, "optimise_every": None, "rng": 0} | changes
    return lambda: run_session(args.pop("listener"), args.pop("model"), args.pop("grid"),
                               **args)


def tilted_plane(X):
    return X[:, 0] - 0.5 * X[:, 1]


def fitted_preference(dim: int):
    X = np.random.default_rng(3).uniform(0, 80, (4, dim))
    return PreferenceGP(SquaredExponential(20.0, 1.0), PROBIT).fit(
        Comparisons(X, [0, 1, 2], [1, 2, 3], [1.0, 0.0, 1.0]))


def session_on(grid, **options):
    return lambda: run_session(SimulatedListener(tilted_plane, PROBIT, rng=1),
                               PreferenceGP(SquaredExponential(2.0, 1.0), PROBIT), grid,
                               n_random=3, n_active=1, optimise_every=None, rng=2, **options)


CASES = [
    # ----- sessions -------------------------------------------------------------------------------
    BadInput("personalisation_study: session with a plain function as listener",
             session(listener=plane), TypeError, "listener"),
    BadInput("personalisation_study: session model for slider answers",
             session(model=PreferenceGP(SquaredExponential(), PairwiseBeta())), ValueError,
             "model"),
    BadInput("personalisation_study: session model as text", session(model="gp"), TypeError,
             "model"),
    BadInput("personalisation_study: session factory returning no model", session(model=lambda: 3),
             TypeError, "model"),
    BadInput("personalisation_study: unknown acquisition", session(acquisition="ei"), ValueError,
             "acquisition"),
    BadInput("personalisation_study: random start larger than the grid", session(n_random=25),
             ValueError, "n_random"),
    BadInput("personalisation_study: baseline in the wrong dimension", session(baseline=[0.0]),
             ValueError, "baseline"),
    BadInput("personalisation_study: optimise every 0 steps", session(optimise_every=0), ValueError,
             "optimise_every"),
    BadInput("personalisation_study: grid with NaN",
             session(grid=np.where(GRID == 4, np.nan, GRID)), ValueError, "grid"),
    BadInput("personalisation_study: paper-H model for unknown answers",
             lambda: hearing_aid_model(2, answers="slider"), ValueError, "answers"),
    BadInput("personalisation_study: next candidate by an unknown rule",
             lambda: next_candidate(PreferenceGP(SquaredExponential(2.0, 1.0), PROBIT), GRID,
                                    GRID[0], "greedy", np.zeros(len(GRID)), None, rng=0),
             ValueError, "rule"),
    # ----- grids the session cannot use ---------------------------------------------------------
    BadInput("personalisation_study: the 'thompson' rule on the 4-D study grid",
             lambda: run_session(SimulatedListener(lambda X: X.sum(axis=1), PROBIT, rng=1),
                                 PreferenceGP(SquaredExponential(20.0, 1.0), PROBIT),
                                 settings_grid(0, 80, 5, 4), acquisition="thompson", rng=0),
             ValueError, "grid", first=True),
    BadInput("personalisation_study: a grid of one setting repeated", session_on(np.ones((12, 2))),
             ValueError, "grid", first=True),
    BadInput("personalisation_study: a grid with one duplicated row",
             session_on(np.vstack([settings_grid(-2, 2, 1, 2), [[0.0, 1.0]]])), ValueError,
             "grid", first=True),
    BadInput("personalisation_study: next_candidate on an empty grid",
             lambda: next_candidate(fitted_preference(2), np.zeros((0, 2)), np.zeros(2), "bei",
                                    np.zeros(0), None, rng=0), ValueError, "grid", first=True),
    BadInput("personalisation_study: next_candidate on a grid holding only the incumbent",
             lambda: next_candidate(fitted_preference(2), np.full((1, 2), 4.0), np.full(2, 4.0),
                                    "random", np.zeros(1), None, rng=0), ValueError, "grid",
             first=True),
    BadInput("personalisation_study: next_candidate with bEI for another grid",
             lambda: next_candidate(fitted_preference(2), settings_grid(0, 4, 2, 2),
                                    np.zeros(2), "bei", np.zeros(4), None, rng=0), ValueError,
             "grid_bei", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
