"""Bad-input catalogue: the level-set session (course_lib.simulators.levelset_session). Family
"levelset_session".

Decisions recorded here: a session takes either a problem or explicit bounds / threshold /
constraints, never both (naming the first explicit argument given); an answer is 1 / 0 / True
/ False and a query lies inside the box (naming ``answer`` / ``x``); the model is "full" or
"sparse"; the F1 points are a power of two (``n_test``).

Candidate and test sets beyond 2 GiB are refused naming ``n_candidates`` / ``n_test``;
constraints lie inside the box (``constraint_X``).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.simulators.levelset_session import (LevelSetSession, run_levelset_session,
                                                    threshold_interval)
from course_lib.simulators.psychophysics import norm_ball_problem

SMALL = dict(n_candidates=16, n_references=16, n_test=2 ** 8)
BOX = np.array([[0.0, 1.0], [0.0, 1.0]])


def _session():
    return LevelSetSession(bounds=BOX, n_initial=2, rng=0, **SMALL)


CASES = [
    BadInput("levelset_session: a problem and bounds",
             lambda: LevelSetSession(norm_ball_problem(2), bounds=BOX), ValueError, "bounds"),
    BadInput("levelset_session: neither problem nor bounds", lambda: LevelSetSession(),
             ValueError, "bounds"),
    BadInput("levelset_session: a dict as problem", lambda: LevelSetSession({"bounds": BOX}),
             TypeError, "problem"),
    BadInput("levelset_session: unknown arm",
             lambda: LevelSetSession(bounds=BOX, arm="both"), ValueError, "arm"),
    BadInput("levelset_session: unknown acquisition",
             lambda: LevelSetSession(bounds=BOX, acquisition="ucb"), ValueError, "acquisition"),
    BadInput("levelset_session: unknown model",
             lambda: LevelSetSession(bounds=BOX, model="exact"), ValueError, "model"),
    BadInput("levelset_session: no inducing points",
             lambda: LevelSetSession(bounds=BOX, model="sparse", n_inducing=0), ValueError,
             "n_inducing"),
    BadInput("levelset_session: constraint locations without targets",
             lambda: LevelSetSession(bounds=BOX, constraint_X=BOX), ValueError, "constraint_y"),
    BadInput("levelset_session: 3-D constraints in a 2-D box",
             lambda: LevelSetSession(bounds=BOX, constraint_X=np.zeros((1, 3)),
                                     constraint_y=[0.0]), ValueError, "constraint_X"),
    BadInput("levelset_session: no answers and no constraints",
             lambda: LevelSetSession(bounds=BOX, n_initial=0), ValueError, "n_initial"),
    BadInput("levelset_session: 1000 F1 points",
             lambda: LevelSetSession(bounds=BOX, n_test=1000), ValueError, "n_test"),
    BadInput("levelset_session: polish as text",
             lambda: LevelSetSession(bounds=BOX, polish="yes"), TypeError, "polish"),
    BadInput("levelset_session: answer 2", lambda: _session().observe([0.5, 0.5], 2),
             ValueError, "answer"),
    BadInput("levelset_session: answer as text", lambda: _session().observe([0.5, 0.5], "yes"),
             TypeError, "answer"),
    BadInput("levelset_session: query outside the box",
             lambda: _session().observe([1.5, 0.5], 1), ValueError, "x"),
    BadInput("levelset_session: query with three coordinates",
             lambda: _session().observe([0.5, 0.5, 0.5], 1), ValueError, "x"),
    BadInput("levelset_session: a threshold interval of -1 sd",
             lambda: threshold_interval(None, 0.67, -1.0), ValueError, "z"),
    BadInput("levelset_session: negative active trials",
             lambda: run_levelset_session(norm_ball_problem(2), "mixed", "eavc", n_active=-1,
                                          rng=0, **SMALL), ValueError, "n_active"),
    BadInput("levelset_session: bounds at the float limit (the first query was inf)",
             lambda: LevelSetSession(bounds=[[-1.7e308, 1.7e308]], n_initial=2, rng=0, **SMALL),
             ValueError, "bounds", first=True),
    # ----- sizes and constraints ----------------------------------------------------------------
    BadInput("levelset_session: a billion Sobol candidates",
             lambda: LevelSetSession(norm_ball_problem(2), n_candidates=10 ** 9, rng=0),
             ValueError, "n_candidates", first=True),
    BadInput("levelset_session: 2^40 test points",
             lambda: LevelSetSession(norm_ball_problem(2), n_test=2 ** 40, rng=0), ValueError,
             "n_test", first=True),
    BadInput("levelset_session: a constraint below the box",
             lambda: LevelSetSession(bounds=[[0.0, 100.0], [0.0, 10.0]],
                                     constraint_X=[[50.0, -3.0]], constraint_y=[0.0], rng=0),
             ValueError, "constraint_X", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
