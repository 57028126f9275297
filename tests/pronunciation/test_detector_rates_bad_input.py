"""Bad-input catalogue: the word check as shown and the decoder's committed margins
(course_lib.pronunciation.detector_rates)."""

import math

from bad_input import BadInput, check_case, parametrize
from course_lib.pronunciation.detector_rates import decoder_margins, lowest_below, named_words

CASES = [
    BadInput("detector rates: NaN among the GOPs",
             lambda: named_words([-1.0, math.nan], [True, True], -3.0), ValueError, "gops",
             first=True),
    BadInput("detector rates: GOPs as a table",
             lambda: named_words([[-1.0, -2.0]], [True, True], -3.0), ValueError, "gops",
             first=True),
    BadInput("detector rates: one verdict too few",
             lambda: named_words([-1.0, -2.0], [True], -3.0), ValueError, "heard_as_written",
             first=True),
    BadInput("detector rates: a verdict that is not a bool",
             lambda: named_words([-1.0, -2.0], [True, None], -3.0), TypeError,
             "heard_as_written", first=True),
    BadInput("detector rates: NaN threshold",
             lambda: lowest_below([-1.0], math.nan), ValueError, "threshold", first=True),
    BadInput("detector rates: negative k",
             lambda: lowest_below([-1.0], -3.0, k=-1), ValueError, "k", first=True),
    BadInput("detector rates: a half the readings do not have",
             lambda: decoder_margins("test"), ValueError, "half", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
