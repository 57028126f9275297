"""Bad-input catalogue: the MFCC front end (course_lib.features), family "features" (its other
cases are in tests/dtw/test_alignment_features_bad_input.py).

Decisions recorded here: a boolean signal is refused naming ``signal``, never read as 0 / 1
samples.
"""

from bad_input import BadInput, check_case, parametrize, speech_like
from course_lib.features import mfcc, mfcc_features


CASES = [
    BadInput("features: mfcc of a boolean signal",
             lambda: mfcc(speech_like() > 0.1, 16000), TypeError, "signal", first=True),
    BadInput("features: the MFCC front end on a list of booleans",
             lambda: mfcc_features([True, False] * 4000, 16000), TypeError, "signal",
             first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
