"""Bad-input catalogue: course_lib.gp.variational (MixedLikelihood). Family "variational".

Decisions recorded here: a part is a (likelihood, M, y) triple and errors name the part
(``parts[i]``); parts must address the same items (equal column counts); an all-zero row of M
observes nothing and is refused; answers outside a likelihood's domain are refused by that
likelihood, naming the part's ``y``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp.likelihoods import PairwiseGaussian, PairwiseProbit
from course_lib.gp.variational import MixedLikelihood

PROBIT = PairwiseProbit(1.0)
PAIR_M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
GOOD = (PROBIT, PAIR_M, [1.0, 0.0])


def mixed(*parts):
    return lambda: MixedLikelihood(list(parts))


def mixed_expectation(mean, var):
    return lambda: MixedLikelihood([GOOD]).expected_log_likelihood(mean, var)


CASES = [
    BadInput("variational: no parts", lambda: MixedLikelihood([]), TypeError, "parts"),
    BadInput("variational: parts not a list", lambda: MixedLikelihood(PROBIT), TypeError,
             "parts"),
    BadInput("variational: a part that is not a triple", mixed(GOOD, (PROBIT, PAIR_M)),
             TypeError, "parts[1]"),
    BadInput("variational: a part without a Likelihood", mixed(("probit", PAIR_M, [1, 0])),
             TypeError, "parts[0]"),
    BadInput("variational: parts with different item counts",
             mixed(GOOD, (PairwiseGaussian(1.0), np.eye(4), np.zeros(4))), ValueError,
             "parts[1]"),
    BadInput("variational: y and M of a part disagree", mixed((PROBIT, PAIR_M, [1.0])),
             ValueError, "parts[0]"),
    BadInput("variational: an all-zero row of M", mixed((PROBIT, np.zeros((1, 3)), [1.0])),
             ValueError, "parts[0]"),
    BadInput("variational: NaN in a part's M", mixed((PROBIT, PAIR_M * np.nan, [1.0, 0.0])),
             ValueError, "parts[0] M"),
    BadInput("variational: a probit answer of 2", mixed((PROBIT, PAIR_M, [1.0, 2.0])),
             ValueError, "parts[0] y"),
    BadInput("variational: mean of the wrong length", mixed_expectation(np.zeros(3), np.ones(2)),
             ValueError, "mean"),
    BadInput("variational: negative variance", mixed_expectation(np.zeros(2), [1.0, -1.0]),
             ValueError, "var"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
