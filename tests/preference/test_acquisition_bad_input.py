"""Bad-input catalogue: expected improvement and the query rules (course_lib.preference.acquisition).
Family "acquisition".

Decisions recorded here: a negative variance handed to expected_improvement is refused (the
library's own callers clip round-off before calling, so a negative value from a user is a bug);
negative EI values are refused by the multinomial draw.

Thompson sampling draws the latent jointly over the grid, so a grid whose covariance would pass
2 GiB (the 4-D study grid) is refused naming ``X_grid``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference.acquisition import (bivariate_ei, bivariate_ei_gradient, expected_improvement,
                                               incumbent, multinomial_sample, thompson_sample,
                                               univariate_ei)
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseProbit
from course_lib.preference.preference_gp import PreferenceGP
from course_lib.simulators.listeners import settings_grid

X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, -1.0]])
PAIRS = Comparisons(X, [0, 1], [1, 2], [1.0, 0.0])
GRID = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 0.5]])


def model():
    return PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0)).fit(PAIRS)


def unfitted():
    return PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0))


def fitted_preference(dim: int):
    X = np.random.default_rng(3).uniform(0, 80, (4, dim))
    return PreferenceGP(SquaredExponential(20.0, 1.0), PairwiseProbit(0.5)).fit(
        Comparisons(X, [0, 1, 2], [1, 2, 3], [1.0, 0.0, 1.0]))


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
    # ----- sizes --------------------------------------------------------------------------------
    BadInput("acquisition: Thompson sampling on the 4-D study grid",
             lambda: thompson_sample(fitted_preference(4), settings_grid(0, 80, 5, 4), rng=0),
             ValueError, "X_grid", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
