"""Bad-input catalogue: level-set estimation (course_lib.mixed.levelset). Family "levelset".

Decisions recorded here: bvn_cdf accepts +-inf bounds (the CDF's limits) but refuses NaN, a
correlation outside [-1, 1] and a method it does not know; a posterior covariance larger than
the two sds allow is refused naming ``cross_cov`` (it cannot come from a Gaussian); a model
without a LatentGaussian posterior, or an unfitted one, is refused naming ``model``. The
level-set and preference scores of course_lib.mixed.levelset_metrics and course_lib.metrics are here
too (same family): Sobol sizes must be powers of two, and an F1 with no member in either set
(0 / 0) is refused naming ``true_function`` / ``labels``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import GPRegression, SquaredExponential
from course_lib.mixed.bivariate_normal import bvn_cdf
from course_lib.mixed.levelset import eavc, global_mi, lookahead_levelset
from course_lib.mixed.levelset_metrics import brier_levelset, f1_levelset
from course_lib.metrics import brier_preference, f1_preference, levelset_probability

X = np.array([[0.0, 0.0], [1.0, 0.5], [-0.5, 1.0]])
POINTS = np.array([[0.2, 0.1], [0.9, -0.3]])
BOX = [[-1.0, 1.0], [-1.0, 1.0]]


def norm_ball(X):
    return 2.0 * np.linalg.norm(X, axis=1)


def model():
    return GPRegression(SquaredExponential(1.0, 1.0), noise_variance=0.1).fit(X, [0.0, 1.0, 2.0])


CASES = [
    BadInput("levelset: bvn_cdf with NaN h", lambda: bvn_cdf(np.nan, 0.0, 0.5), ValueError, "h"),
    BadInput("levelset: bvn_cdf with k as text", lambda: bvn_cdf(0.0, "k", 0.5), TypeError, "k"),
    BadInput("levelset: bvn_cdf with rho 1.5", lambda: bvn_cdf(0.0, 0.0, 1.5), ValueError, "rho"),
    BadInput("levelset: bvn_cdf with complex rho", lambda: bvn_cdf(0.0, 0.0, 0.5j), TypeError,
             "rho"),
    BadInput("levelset: bvn_cdf with shapes that do not broadcast",
             lambda: bvn_cdf(np.zeros(2), np.zeros(3), 0.1), ValueError, "k"),
    BadInput("levelset: bvn_cdf with an unknown method",
             lambda: bvn_cdf(0.0, 0.0, 0.5, method="genz"), ValueError, "method"),
    BadInput("levelset: probability with a negative variance",
             lambda: levelset_probability([0.0], [-1.0], 0.5), ValueError, "var"),
    BadInput("levelset: probability with NaN mean",
             lambda: levelset_probability([np.nan], [1.0], 0.5), ValueError, "mean"),
    BadInput("levelset: probability with two thresholds",
             lambda: levelset_probability([0.0], [1.0], [0.5, 0.6]), ValueError, "threshold"),
    BadInput("levelset: probability with mismatched shapes",
             lambda: levelset_probability([0.0, 1.0], [1.0, 1.0, 1.0], 0.5), ValueError, "var"),
    BadInput("levelset: look-ahead with a covariance beyond the sds",
             lambda: lookahead_levelset(0.0, 1.0, 0.0, 1.0, 1.5, 0.5), ValueError, "cross_cov"),
    BadInput("levelset: look-ahead with a negative query variance",
             lambda: lookahead_levelset(0.0, -1.0, 0.0, 1.0, 0.0, 0.5), ValueError, "query_var"),
    BadInput("levelset: look-ahead with shapes that do not broadcast",
             lambda: lookahead_levelset(np.zeros((2, 1)), np.ones((2, 1)), np.zeros(3),
                                        np.ones(3), np.zeros((2, 4)), 0.5),
             ValueError, "cross_cov"),
    BadInput("levelset: look-ahead with inf threshold",
             lambda: lookahead_levelset(0.0, 1.0, 0.0, 1.0, 0.0, np.inf), ValueError,
             "threshold"),
    BadInput("levelset: global MI of an unfitted model",
             lambda: global_mi(GPRegression(SquaredExponential()), POINTS, POINTS, 0.5),
             ValueError, "model"),
    BadInput("levelset: global MI of something that is not a GP",
             lambda: global_mi("gp", POINTS, POINTS, 0.5), TypeError, "model"),
    BadInput("levelset: global MI with 3-column candidates",
             lambda: global_mi(model(), np.zeros((2, 3)), POINTS, 0.5), ValueError,
             "candidates"),
    BadInput("levelset: EAVC with NaN in references",
             lambda: eavc(model(), POINTS, [[np.nan, 0.0]], 0.5), ValueError, "references"),
    BadInput("levelset: EAVC with threshold as text",
             lambda: eavc(model(), POINTS, POINTS, "0.67"), TypeError, "threshold"),
    BadInput("levelset: F1 of something without predict",
             lambda: f1_levelset("gp", norm_ball, 0.5, BOX), TypeError, "model"),
    BadInput("levelset: F1 with a true function that is not callable",
             lambda: f1_levelset(model(), [1.0], 0.5, BOX), TypeError, "true_function"),
    BadInput("levelset: F1 with a true function of the wrong length",
             lambda: f1_levelset(model(), lambda X: np.zeros(3), 0.5, BOX, n_points=64),
             ValueError, "true_function"),
    BadInput("levelset: Brier with a true function giving NaN",
             lambda: brier_levelset(model(), lambda X: np.full(len(X), np.nan), 0.5, BOX,
                                    n_points=64), ValueError, "true_function"),
    BadInput("levelset: F1 with an empty true set and an empty estimate",
             lambda: f1_levelset(model(), norm_ball, -10.0, BOX, n_points=64), ValueError,
             "true_function"),
    BadInput("levelset: F1 with low >= high in bounds",
             lambda: f1_levelset(model(), norm_ball, 0.5, [[1.0, -1.0], [-1.0, 1.0]]),
             ValueError, "bounds"),
    BadInput("levelset: F1 with bounds of three columns",
             lambda: f1_levelset(model(), norm_ball, 0.5, np.zeros((2, 3))), ValueError,
             "bounds"),
    BadInput("levelset: F1 on 1000 points (not a power of two)",
             lambda: f1_levelset(model(), norm_ball, 0.5, BOX, n_points=1000), ValueError,
             "n_points"),
    BadInput("levelset: Brier on 2^21 points",
             lambda: brier_levelset(model(), norm_ball, 0.5, BOX, n_points=2 ** 21),
             ValueError, "n_points"),
    BadInput("levelset: Brier in batches of 100",
             lambda: brier_levelset(model(), norm_ball, 0.5, BOX, batch_size=100), ValueError,
             "batch_size"),
    BadInput("levelset: preference Brier with a label 2",
             lambda: brier_preference([0.0, 1.0], [1.0, 1.0], [1, 2]), ValueError, "labels"),
    BadInput("levelset: preference Brier with a negative variance",
             lambda: brier_preference([0.0, 1.0], [1.0, -1.0], [1, 0]), ValueError, "var"),
    BadInput("levelset: preference F1 with one label too few",
             lambda: f1_preference([0.0, 1.0], [1.0, 1.0], [1]), ValueError, "labels"),
    BadInput("levelset: preference F1 with no 'first' label or prediction",
             lambda: f1_preference([-1.0, -2.0], [1.0, 1.0], [0, 0]), ValueError, "labels"),
    BadInput("levelset: F1 with bounds at the float limit (the error named true_function)",
             lambda: f1_levelset(model(), norm_ball, 0.5, [[-1.7e308, 1.7e308], [-1.0, 1.0]],
                                 n_points=64), ValueError, "bounds", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
