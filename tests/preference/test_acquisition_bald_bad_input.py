"""Bad-input catalogue: pairwise BALD (course_lib.preference.acquisition). Family "bald".

Decisions recorded here: a model without a pairwise likelihood (ratings of single items) is
refused naming ``model`` (a rating is not a question about a pair); paired settings whose row
counts differ (neither a single row) are refused naming ``X_second``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import GPRegression, SquaredExponential
from course_lib.preference.acquisition import pairwise_bald
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating
from course_lib.preference.preference_gp import PreferenceGP

X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, -1.0]])
PAIRS = Comparisons(X, [0, 1], [1, 2], [1.0, 0.0])
GRID = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 0.5]])


def model():
    return PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0)).fit(PAIRS)


def rating_model():
    ratings = Comparisons.from_ratings(X, [0.2, 0.5, 0.9])
    return PreferenceGP(SquaredExponential(1.0, 1.0), BetaRating(10.0)).fit(ratings)


def regression():
    return GPRegression(SquaredExponential(1.0, 1.0)).fit(X, np.array([0.0, 1.0, 0.5]))


CASES = [
    BadInput("bald: unfitted model",
             lambda: pairwise_bald(PreferenceGP(SquaredExponential(), PairwiseProbit()), GRID,
                                   GRID), ValueError, "model"),
    BadInput("bald: a model that is not a GP", lambda: pairwise_bald("gp", GRID, GRID),
             TypeError, "model"),
    BadInput("bald: a regression GP (no pairwise likelihood)",
             lambda: pairwise_bald(regression(), GRID, GRID), TypeError, "model"),
    BadInput("bald: a model of single-item ratings",
             lambda: pairwise_bald(rating_model(), GRID, GRID), ValueError, "model"),
    BadInput("bald: first settings with 3 columns",
             lambda: pairwise_bald(model(), np.zeros((3, 3)), GRID), ValueError, "X_first"),
    BadInput("bald: second settings with NaN",
             lambda: pairwise_bald(model(), GRID, [[np.nan, 0.0]]), ValueError, "X_second"),
    BadInput("bald: second settings as text", lambda: pairwise_bald(model(), GRID, "grid"),
             TypeError, "X_second"),
    BadInput("bald: row counts that do not pair",
             lambda: pairwise_bald(model(), GRID, GRID[:2]), ValueError, "X_second"),
    BadInput("bald: empty first settings",
             lambda: pairwise_bald(model(), np.zeros((0, 2)), GRID), ValueError, "X_first"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
