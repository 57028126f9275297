"""Bad-input catalogue: the equaliser, clips, WAV encoding and the tone in noise
(course_lib.stimuli). Family "audio"."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib import stimuli as A

CASES = [
    BadInput("audio: peaking centre at the Nyquist frequency",
             lambda: A.peaking_biquad(8000.0, 3.0), ValueError, "centre_hz"),
    BadInput("audio: peaking centre negative", lambda: A.peaking_biquad(-5.0, 3.0), ValueError,
             "centre_hz"),
    BadInput("audio: peaking gain NaN", lambda: A.peaking_biquad(1000.0, float("nan")),
             ValueError, "gain_db"),
    BadInput("audio: peaking q zero", lambda: A.peaking_biquad(1000.0, 3.0, 0.0), ValueError,
             "q"),
    BadInput("audio: low shelf corner above the Nyquist frequency",
             lambda: A.low_shelf_biquad(9000.0, 3.0), ValueError, "corner_hz"),
    BadInput("audio: high shelf gain a list", lambda: A.high_shelf_biquad(1000.0, [1.0, 2.0]),
             ValueError, "gain_db"),
    BadInput("audio: five bands", lambda: A.standard_equaliser(5), ValueError, "n_bands"),
    BadInput("audio: three gains for two bands",
             lambda: A.standard_equaliser(2).sos([1.0, 2.0, 3.0]), ValueError, "gains_db"),
    BadInput("audio: stereo waveform",
             lambda: A.standard_equaliser(2).apply(np.ones((3, 2)), [0.0, 0.0]), ValueError,
             "waveform"),
    BadInput("audio: unknown band kind", lambda: A.Band("notch", 100.0, "x"), ValueError,
             "kind"),
    BadInput("audio: band above the Nyquist frequency of the equaliser",
             lambda: A.Equaliser([A.Band("peaking", 7000.0, "x")], sample_rate=8000),
             ValueError, "bands"),
    BadInput("audio: equaliser without bands", lambda: A.Equaliser([]), TypeError, "bands"),
    BadInput("audio: equaliser of band names", lambda: A.Equaliser(["bass"]), TypeError,
             "bands"),
    BadInput("audio: music of zero duration", lambda: A.synthesised_music(0.0), ValueError,
             "duration"),
    BadInput("audio: unknown clip", lambda: A.load_clip("noise"), ValueError, "name"),
    BadInput("audio: silent waveform to loudness-match",
             lambda: A.loudness_matched(np.ones(10), np.zeros(10)), ValueError, "waveforms[1]"),
    BadInput("audio: no waveforms to loudness-match", lambda: A.loudness_matched(), ValueError,
             "waveforms"),
    BadInput("audio: WAV sample beyond full scale", lambda: A.wav_bytes(np.array([0.5, 1.5])),
             ValueError, "waveform"),
    BadInput("audio: WAV sample NaN", lambda: A.wav_bytes(np.array([0.5, np.nan])), ValueError,
             "waveform"),
    BadInput("audio: RMS of an empty waveform", lambda: A.rms(np.array([])), ValueError,
             "waveform"),
    # the detection demo's tone in noise
    BadInput("audio: tone level above 1", lambda: A.tone_in_noise(1.5), ValueError, "level"),
    BadInput("audio: tone level negative", lambda: A.tone_in_noise(-0.1), ValueError, "level"),
    BadInput("audio: tone level NaN", lambda: A.tone_in_noise(float("nan")), ValueError,
             "level"),
    BadInput("audio: tone level a list", lambda: A.tone_in_noise([0.1, 0.2]), ValueError,
             "level"),
    BadInput("audio: tone above the Nyquist frequency",
             lambda: A.tone_in_noise(0.5, frequency=9000.0), ValueError, "frequency"),
    BadInput("audio: tone louder than the noise",
             lambda: A.tone_in_noise(0.5, max_snr_db=3.0), ValueError, "max_snr_db"),
    BadInput("audio: tone noise loud enough to clip",
             lambda: A.tone_in_noise(0.5, noise_rms=0.5), ValueError, "noise_rms"),
    BadInput("audio: tone snr of a level above 1", lambda: A.tone_snr_db([0.5, 2.0]),
             ValueError, "level"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
