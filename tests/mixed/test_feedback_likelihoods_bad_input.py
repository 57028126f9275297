"""Bad-input catalogue: likelihoods for mixed-feedback variational GPs (Unit 7):
BernoulliProbit, GaussianConstraint, LikertConfidence and OrdinalProbit in
course_lib.mixed.feedback_likelihoods."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.mixed.feedback_likelihoods import (BernoulliProbit, GaussianConstraint,
                                                  LikertConfidence, OrdinalProbit)

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
    BadInput("feedback_likelihoods: constraint targets do not match the sds",
             lambda: GaussianConstraint([0.1, 0.2]).check_observations([0.0, 1.0, 2.0], "targets"),
             ValueError, "targets"),
    BadInput("feedback_likelihoods: constraint targets that are not numbers",
             lambda: GaussianConstraint([0.1, 0.2]).check_observations(["a", "b"], "targets"),
             TypeError, "targets"),
    BadInput("feedback_likelihoods: constraint mean and var of different lengths",
             lambda: GaussianConstraint([0.1, 0.2]).expected_log_likelihood(
                 [0.0, 1.0], [0.0, 0.0], [1.0]), ValueError, "var"),
    BadInput("feedback_likelihoods: Likert with one level",
             lambda: LikertConfidence(1), ValueError, "n_levels"),
    BadInput("feedback_likelihoods: Likert with a fractional number of levels",
             lambda: LikertConfidence(2.5), ValueError, "n_levels"),
    BadInput("feedback_likelihoods: Likert with too few gaps",
             lambda: LikertConfidence(4, [0.5, 0.5]), ValueError, "gaps"),
    BadInput("feedback_likelihoods: Likert gap wider than max_gap",
             lambda: LikertConfidence(3, [0.5, 2.5]), ValueError, "gaps"),
    BadInput("feedback_likelihoods: Likert zero gap (an empty level)",
             lambda: LikertConfidence(3, [0.0, 1.0]), ValueError, "gaps"),
    BadInput("feedback_likelihoods: Likert lapse of 1",
             lambda: LikertConfidence(3, lapse=1.0), ValueError, "lapse"),
    BadInput("feedback_likelihoods: Likert lapse bounds reaching 1",
             lambda: LikertConfidence(3, lapse_bounds=(0.01, 1.0)), ValueError, "lapse_bounds"),
    BadInput("feedback_likelihoods: Likert gap bounds above max_gap",
             lambda: LikertConfidence(3, gap_bounds=(0.01, 3.0)), ValueError, "gap_bounds"),
    BadInput("feedback_likelihoods: Likert negative max_gap",
             lambda: LikertConfidence(3, max_gap=-2.0), ValueError, "max_gap"),
    BadInput("feedback_likelihoods: Likert rating above the top level",
             lambda: LikertConfidence(3).log_likelihood([0.3], [3.0]), ValueError, "y"),
    BadInput("feedback_likelihoods: Likert fractional rating",
             lambda: LikertConfidence(3).expected_log_likelihood([1.5], [0.3], [1.0]),
             ValueError, "y"),
    BadInput("feedback_likelihoods: Likert 1-based ratings (level 3 of 3)",
             lambda: LikertConfidence(3).terms([0.1, 0.2, 0.3], [1.0, 2.0, 3.0]), ValueError,
             "y"),
    BadInput("feedback_likelihoods: Likert theta of the wrong length",
             lambda: LikertConfidence(3).with_theta([0.0, 0.0]), ValueError, "theta"),
    BadInput("feedback_likelihoods: ordinal with one level",
             lambda: OrdinalProbit(1), ValueError, "n_levels"),
    BadInput("feedback_likelihoods: ordinal with too many gaps",
             lambda: OrdinalProbit(3, [1.0, 1.0]), ValueError, "gaps"),
    BadInput("feedback_likelihoods: ordinal negative gap",
             lambda: OrdinalProbit(3, [-1.0]), ValueError, "gap_1"),
    BadInput("feedback_likelihoods: ordinal rating below 0",
             lambda: OrdinalProbit(4).log_likelihood([0.0], [-1.0]), ValueError, "y"),
    BadInput("feedback_likelihoods: ordinal ratings of another length than z",
             lambda: OrdinalProbit(4).terms([0.0, 1.0], [1.0]), ValueError, "y"),
    BadInput("feedback_likelihoods: expected parameter gradient with negative variance",
             lambda: LikertConfidence(3).expected_parameter_gradient([1.0], [0.0], [-0.5]),
             ValueError, "var"),
    BadInput("feedback_likelihoods: expected parameter gradient with a rating of 7",
             lambda: OrdinalProbit(4).expected_parameter_gradient([7.0], [0.0], [0.5]),
             ValueError, "y"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
