"""Bad-input catalogue: likelihoods for mixed-feedback variational GPs (Unit 7):
BernoulliProbit, GaussianConstraint and LikertConfidence in course_lib.gp.likelihoods."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp.likelihoods import BernoulliProbit, GaussianConstraint

CASES = [
    BadInput("feedback_likelihoods: Bernoulli answer 2",
             lambda: BernoulliProbit().log_likelihood([0.0, 1.0], [1.0, 2.0]), ValueError, "y"),
    BadInput("feedback_likelihoods: Bernoulli answer NaN",
             lambda: BernoulliProbit().expected_log_likelihood([np.nan], [0.0], [1.0]),
             ValueError, "y"),
    BadInput("feedback_likelihoods: Bernoulli negative variance",
             lambda: BernoulliProbit().expected_log_likelihood([1.0], [0.0], [-1.0]),
             ValueError, "var"),
    BadInput("feedback_likelihoods: constraint with a zero sd",
             lambda: GaussianConstraint([0.1, 0.0]), ValueError, "noise_sd"),
    BadInput("feedback_likelihoods: constraint sd as a scalar",
             lambda: GaussianConstraint(0.1), ValueError, "noise_sd"),
    BadInput("feedback_likelihoods: constraint sd as text",
             lambda: GaussianConstraint("0.1"), TypeError, "noise_sd"),
    BadInput("feedback_likelihoods: constraint rows do not match the sds",
             lambda: GaussianConstraint([0.1, 0.2]).expected_log_likelihood(
                 [0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]), ValueError, "noise_sd"),
    BadInput("feedback_likelihoods: constraint mean and var of different lengths",
             lambda: GaussianConstraint([0.1, 0.2]).expected_log_likelihood(
                 [0.0, 1.0], [0.0, 0.0], [1.0]), ValueError, "var"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
