"""Bad-input catalogue: simulated subjects and their trials (course_lib.simulators.confidence_raters),
family "confidence_raters" (the simulators' own arguments are in
tests/mixed/test_confidence_bad_input.py).

Decisions recorded here: "which trials" arguments follow the one selection rule of
:func:`course_lib.validation.as_selection`: integer indices 0..n-1 or a boolean mask of length n;
fractions, out-of-range indices, masks of another length and text are refused naming ``trials``
(or the split they came in). A mask is understood, never read as the indices 0 and 1.
"""

import numpy as np

from bad_input import BadInput, RightAnswer, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.simulators.confidence_raters import haptic_like_subjects, preference_scores

SE = SquaredExponential(1.5, 1.0)


def trials():
    return haptic_like_subjects(n_pairs=12, rng=7)[0]


def _mask_trials():
    t = trials()
    mask = np.zeros(t.n_trials, dtype=bool)
    mask[[1, 4, 9]] = True
    return t, mask


def _mask_picks_those_trials(result):
    t, mask = result
    X, first, second = t.items(mask)
    np.testing.assert_array_equal(X, np.vstack([t.X_first[mask], t.X_second[mask]]))
    np.testing.assert_array_equal(first, np.arange(3))
    np.testing.assert_array_equal(second, np.arange(3, 6))


CASES = [
    # ----- one index rule for trials ----------------------------------------------------------
    RightAnswer("confidence_raters: trials as a boolean mask", _mask_trials,
                _mask_picks_those_trials),
    BadInput("confidence_raters: fractional trial indices",
             lambda: trials().items([0.7, 2.9]), ValueError, "trials", first=True),
    BadInput("confidence_raters: a trial index equal to n_trials",
             lambda: trials().items([3, 12]), ValueError, "trials", first=True),
    BadInput("confidence_raters: a negative trial index", lambda: trials().items([-1]),
             ValueError, "trials", first=True),
    BadInput("confidence_raters: a trial mask one entry short",
             lambda: trials().items(np.ones(11, dtype=bool)), ValueError, "trials", first=True),
    BadInput("confidence_raters: trials as text", lambda: trials().items("0:3"), TypeError,
             "trials", first=True),
    # ----- the splits of preference_scores (the haptic explorer's scores) ---------------------
    BadInput("confidence_raters: a split with fractional trial indices",
             lambda: preference_scores(trials(), trials().levels, SE, [([0.5, 1.5], [2, 3])],
                                       use_ratings=False), ValueError, "splits[0][0]",
             first=True),
    BadInput("confidence_raters: a split's test trials beyond the subject's",
             lambda: preference_scores(trials(), trials().levels, SE, [([0, 1, 2], [40])],
                                       use_ratings=False), ValueError, "splits[0][1]",
             first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
