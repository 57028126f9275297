"""Bad-input catalogue: level-set estimation (course_lib.gp.levelset). Family "levelset".

Decisions recorded here: bvn_cdf accepts +-inf bounds (the CDF's limits) but refuses NaN and a
correlation outside [-1, 1]; a posterior covariance larger than the two sds allow is refused
naming ``cross_cov`` (it cannot come from a Gaussian); a model without a LatentGaussian
posterior, or an unfitted one, is refused naming ``model``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import GPRegression, SquaredExponential
from course_lib.gp.levelset import (bald_bernoulli, bvn_cdf, eavc, global_mi,
                                    levelset_probability, lookahead_levelset, straddle)

X = np.array([[0.0, 0.0], [1.0, 0.5], [-0.5, 1.0]])
POINTS = np.array([[0.2, 0.1], [0.9, -0.3]])


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
    BadInput("levelset: BALD with empty candidates",
             lambda: bald_bernoulli(model(), np.zeros((0, 2))), ValueError, "candidates"),
    BadInput("levelset: straddle with a negative width",
             lambda: straddle(model(), POINTS, 0.5, width=-1.0), ValueError, "width"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
