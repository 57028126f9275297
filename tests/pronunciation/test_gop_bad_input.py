"""Bad-input catalogue: the word verdict of course_lib.pronunciation (heard as written)."""

import math

from bad_input import BadInput, check_case, parametrize
from course_lib.pronunciation import PhoneScore, Pronunciation, completeness, word_readings

SCORED = Pronunciation("CAT", (PhoneScore(0, "CAT", "K", 0.1, 0.2, -1.0),), True, -5.0, -4.0,
                       ())

CASES = [
    BadInput("pronunciation: readings of a text, not a scored sentence",
             lambda: word_readings("CAT"), TypeError, "scored", first=True),
    BadInput("pronunciation: readings of a list of phones",
             lambda: word_readings(list(SCORED.phones), 0.0), TypeError, "scored", first=True),
    BadInput("pronunciation: NaN threshold",
             lambda: word_readings(SCORED, math.nan), ValueError, "threshold", first=True),
    BadInput("pronunciation: infinite threshold",
             lambda: word_readings(SCORED, -math.inf), ValueError, "threshold", first=True),
    BadInput("pronunciation: threshold as text",
             lambda: word_readings(SCORED, "-3"), ValueError, "threshold", first=True),
    BadInput("pronunciation: threshold as a bool",
             lambda: word_readings(SCORED, True), ValueError, "threshold", first=True),
    BadInput("pronunciation: completeness of a scored sentence, not its readings",
             lambda: completeness(SCORED), TypeError, "readings", first=True),
    BadInput("pronunciation: completeness of numbers",
             lambda: completeness([1.0, 0.0]), TypeError, "readings", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
