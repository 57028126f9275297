"""Bad-input catalogue: MAP-II glue of the preference GPs
(course_lib.preference.hyperparameters). Family "preference"."""

from bad_input import BadInput, check_case, parametrize
from course_lib.preference.hyperparameters import OnSquare

CASES = [
    BadInput("preference: OnSquare of a number", lambda: OnSquare(10.0), TypeError, "prior"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
