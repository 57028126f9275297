"""Bad-input catalogue: the audio front end of the fluency set (course_lib.data.fluency), family
"data".

Decisions recorded here: a sample rate is in Hz (16 for 16 kHz is refused naming
``sample_rate``); ``_utterance_features`` CONVERTS int16 / int32 PCM by its full scale (the same
features as the float clip); other integer types and boolean signals are refused naming
``samples``.
"""

import numpy as np

from bad_input import BadInput, RightAnswer, check_case, parametrize, speech_like
from course_lib.data.fluency import _utterance_features, frame_rms


def int16_pcm(x):
    return np.round(x * 32767).astype(np.int16)


def _same_features(pair):
    a, b = pair
    np.testing.assert_array_equal(a, b)


CASES = [
    BadInput("data: frame_rms with the sample rate in kHz",
             lambda: frame_rms(speech_like(), 16), ValueError, "sample_rate", first=True),
    BadInput("data: _utterance_features with the sample rate in kHz",
             lambda: _utterance_features(speech_like(), 16, 3), ValueError, "sample_rate",
             first=True),
    RightAnswer("data: _utterance_features of int16 PCM equal the float clip's",
                lambda: (_utterance_features(int16_pcm(speech_like()), 16000, 3),
                         _utterance_features(int16_pcm(speech_like()) / 32768.0, 16000, 3)),
                _same_features),
    BadInput("data: _utterance_features of 8-bit samples",
             lambda: _utterance_features((speech_like() * 100).astype(np.int8), 16000, 3),
             TypeError, "samples", first=True),
    BadInput("data: frame_rms of a boolean signal",
             lambda: frame_rms(speech_like() > 0, 16000), TypeError, "samples", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
