"""Bad-input catalogue: the MFCC front end (course_lib.features), family "features" (its other
cases are in tests/dtw/test_alignment_features_bad_input.py).

Decisions recorded here: a boolean signal is refused naming ``signal``, never read as 0 / 1
samples.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.features import mfcc, mfcc_features


def speech_like(rng_seed=5, sample_rate=16000):
    """Three noise bursts ("words") with silence between."""
    rng = np.random.default_rng(rng_seed)
    x = np.zeros(int(1.6 * sample_rate))
    for start in (0.1, 0.6, 1.1):
        i = int(start * sample_rate)
        x[i:i + int(0.3 * sample_rate)] = 0.3 * rng.standard_normal(int(0.3 * sample_rate))
    return x


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
