"""Bad-input catalogue: course_lib.mixed.variational_model (MixedLikelihood). Family
"mixed_likelihood".

Decisions recorded here: a part is a (likelihood, M, y) triple and errors name the part
(``parts[i]``); parts must address the same items (equal column counts); an all-zero row of M
observes nothing and is refused; answers outside a likelihood's domain are refused by that
likelihood, naming the part's ``y``. The rows' means and variances must be one per stacked row.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.mixed import MixedLikelihood
from course_lib.preference import PairwiseGaussian, PairwiseProbit

PROBIT = PairwiseProbit(1.0)
PAIR_M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
GOOD = (PROBIT, PAIR_M, [1.0, 0.0])


def mixed(*parts):
    return lambda: MixedLikelihood(list(parts))


def mixed_expectation(mean, var):
    return lambda: MixedLikelihood([GOOD]).expected_log_likelihood(mean, var)


CASES = [
    BadInput("mixed_likelihood: no parts", lambda: MixedLikelihood([]), TypeError, "parts"),
    BadInput("mixed_likelihood: parts not a list", lambda: MixedLikelihood(PROBIT), TypeError,
             "parts"),
    BadInput("mixed_likelihood: a part that is not a triple", mixed(GOOD, (PROBIT, PAIR_M)),
             TypeError, "parts[1]"),
    BadInput("mixed_likelihood: a part without a Likelihood", mixed(("probit", PAIR_M, [1, 0])),
             TypeError, "parts[0]"),
    BadInput("mixed_likelihood: parts with different item counts",
             mixed(GOOD, (PairwiseGaussian(1.0), np.eye(4), np.zeros(4))), ValueError,
             "parts[1]"),
    BadInput("mixed_likelihood: y and M of a part disagree", mixed((PROBIT, PAIR_M, [1.0])),
             ValueError, "parts[0]"),
    BadInput("mixed_likelihood: an all-zero row of M", mixed((PROBIT, np.zeros((1, 3)), [1.0])),
             ValueError, "parts[0]"),
    BadInput("mixed_likelihood: NaN in a part's M", mixed((PROBIT, PAIR_M * np.nan, [1.0, 0.0])),
             ValueError, "parts[0] M"),
    BadInput("mixed_likelihood: a probit answer of 2", mixed((PROBIT, PAIR_M, [1.0, 2.0])),
             ValueError, "parts[0] y"),
    BadInput("mixed_likelihood: mean of the wrong length",
             mixed_expectation(np.zeros(3), np.ones(2)), ValueError, "mean"),
    BadInput("mixed_likelihood: negative variance", mixed_expectation(np.zeros(2), [1.0, -1.0]),
             ValueError, "var"),
    BadInput("mixed_likelihood: with_theta of the wrong length",
             lambda: MixedLikelihood([GOOD]).with_theta([0.0, 0.0]), ValueError, "theta"),
    BadInput("mixed_likelihood: with_theta with a NaN",
             lambda: MixedLikelihood([GOOD]).with_theta([np.nan]), ValueError, "theta"),
    BadInput("mixed_likelihood: parameter gradient with too few rows",
             lambda: MixedLikelihood([GOOD]).expected_parameter_gradient([0.0], [1.0]),
             ValueError, "mean"),
    BadInput("mixed_likelihood: ledger with a negative variance",
             lambda: MixedLikelihood([GOOD]).part_expected_log_likelihoods([0.0, 0.0],
                                                                           [1.0, -1.0]),
             ValueError, "var"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
