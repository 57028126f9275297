"""Bad input to course_lib.hmm.training: Baum-Welch's data and options, and fit_hmm's restarts.

Each case names the argument its message starts with. fit_hmm checks all its options once, before
any training, so a bad option fails before the first restart.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.hmm.model import weather_mood_hmm
from course_lib.hmm.training import BaumWelchStepper, baum_welch, baum_welch_step, fit_hmm

WEATHER = weather_mood_hmm()
FAIR_FOREVER = weather_mood_hmm("fair-forever")
SEQS = [np.array([0, 1, 1, 0]), np.array([1, 1, 0])]

CASES = [
    # ------------------------------------------------------------------ data
    BadInput("hmm: sequences as a string", lambda: baum_welch(WEATHER, "HHUH"), TypeError,
             "sequences"),
    BadInput("hmm: impossible training sequence",
             lambda: baum_welch_step(FAIR_FOREVER, [[0, 0], [0, 1]]), ValueError, "sequences"),
    # ------------------------------------------------------------------ training options
    BadInput("hmm: emission floor too large for M",
             lambda: baum_welch_step(WEATHER, ["HU"], emission_floor=0.6), ValueError,
             "emission_floor"),
    BadInput("hmm: negative emission floor",
             lambda: BaumWelchStepper(WEATHER, ["HU"], emission_floor=-0.1), ValueError,
             "emission_floor"),
    BadInput("hmm: negative max_iter", lambda: baum_welch(WEATHER, SEQS, max_iter=-1),
             ValueError, "max_iter"),
    BadInput("hmm: NaN tolerance", lambda: baum_welch(WEATHER, SEQS, tol=float("nan")),
             TypeError, "tol"),
    BadInput("hmm: progress as a string", lambda: baum_welch(WEATHER, SEQS, progress="yes"),
             TypeError, "progress"),
    BadInput("hmm: zero restarts", lambda: fit_hmm(SEQS, 2, 2, n_restarts=0), ValueError,
             "n_restarts"),
    BadInput("hmm: fit with a floor too large for M",
             lambda: fit_hmm(SEQS, 2, 2, emission_floor=0.5), ValueError, "emission_floor"),
    BadInput("hmm: fit with symbols beyond n_symbols", lambda: fit_hmm([[0, 3]], 2, 2),
             ValueError, "sequences"),
    BadInput("hmm: fit with progress as a string",
             lambda: fit_hmm(SEQS, 2, 2, progress="yes"), TypeError, "progress"),
    BadInput("hmm: fit with skip as a string", lambda: fit_hmm(SEQS, 2, 2, skip="yes"),
             TypeError, "skip"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
