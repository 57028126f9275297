"""Bad-input catalogue: the final forced-choice test (course_lib.preference.forced_choice). Family
"acquisition".

Decisions recorded here: a win count above n is refused naming ``wins``.
"""

from bad_input import BadInput, check_case, parametrize
from course_lib.preference.forced_choice import forced_choice_test, forced_choice_threshold

CASES = [
    # ----- forced-choice test --------------------------------------------------------------
    BadInput("acquisition: forced choice more wins than trials",
             lambda: forced_choice_test(21, 20), ValueError, "wins"),
    BadInput("acquisition: forced choice negative wins", lambda: forced_choice_test(-1, 20),
             ValueError, "wins"),
    BadInput("acquisition: forced choice zero trials", lambda: forced_choice_test(0, 0),
             ValueError, "n"),
    BadInput("acquisition: forced choice wins as a float", lambda: forced_choice_test(18.0, 20),
             TypeError, "wins"),
    BadInput("acquisition: forced choice level above 1",
             lambda: forced_choice_test(18, 20, level=1.5), ValueError, "level"),
    BadInput("acquisition: forced choice level 0", lambda: forced_choice_test(18, 20, level=0.0),
             ValueError, "level"),
    BadInput("acquisition: forced-choice threshold n as a bool",
             lambda: forced_choice_threshold(True), TypeError, "n"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
