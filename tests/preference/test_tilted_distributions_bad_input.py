"""Bad-input catalogue: the moments of EP's tilted distributions (course_lib.preference.tilted_distributions).
Family "ep"."""

from bad_input import BadInput, check_case, parametrize
from course_lib.preference.rating_likelihoods import BetaRating
from course_lib.preference.tilted_distributions import tilted_moments

BETA = BetaRating(10.0)

CASES = [
    BadInput("ep: tilted moments with a zero variance",
             lambda: tilted_moments(BETA, [0.5], [0.0], [0.0]), ValueError, "var"),
    BadInput("ep: tilted moments with one answer too many",
             lambda: tilted_moments(BETA, [0.5, 0.4], [0.0], [1.0]), ValueError, "y"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
