"""Bad-input catalogue: the equaliser, clips, WAV encoding and the tone in noise
(course_lib.stimuli). Family "stimuli"."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib import stimuli as A

CASES = [
    BadInput("stimuli: peaking centre at the Nyquist frequency",
             lambda: A._peaking_biquad(8000.0, 3.0), ValueError, "centre_hz"),
    BadInput("stimuli: peaking centre negative", lambda: A._peaking_biquad(-5.0, 3.0), ValueError,
             "centre_hz"),
    BadInput("stimuli: peaking gain NaN", lambda: A._peaking_biquad(1000.0, float("nan")),
             ValueError, "gain_db"),
    BadInput("stimuli: peaking q zero", lambda: A._peaking_biquad(1000.0, 3.0, 0.0), ValueError,
             "q"),
    BadInput("stimuli: low shelf corner above the Nyquist frequency",
             lambda: A._low_shelf_biquad(9000.0, 3.0), ValueError, "corner_hz"),
    BadInput("stimuli: high shelf gain a list", lambda: A._high_shelf_biquad(1000.0, [1.0, 2.0]),
             ValueError, "gain_db"),
    BadInput("stimuli: five bands", lambda: A._standard_equaliser(5), ValueError, "n_bands"),
    BadInput("stimuli: three gains for two bands",
             lambda: A._standard_equaliser(2).sos([1.0, 2.0, 3.0]), ValueError, "gains_db"),
    BadInput("stimuli: stereo waveform",
             lambda: A._standard_equaliser(2).apply(np.ones((3, 2)), [0.0, 0.0]), ValueError,
             "waveform"),
    BadInput("stimuli: unknown band kind", lambda: A._Band("notch", 100.0, "x"), ValueError,
             "kind"),
    BadInput("stimuli: band above the Nyquist frequency of the equaliser",
             lambda: A._Equaliser([A._Band("peaking", 7000.0, "x")], sample_rate=8000),
             ValueError, "bands"),
    BadInput("stimuli: equaliser without bands", lambda: A._Equaliser([]), TypeError, "bands"),
    BadInput("stimuli: equaliser of band names", lambda: A._Equaliser(["bass"]), TypeError,
             "bands"),
    BadInput("stimuli: music of zero duration", lambda: A._synthesised_music(0.0), ValueError,
             "duration"),
    BadInput("stimuli: unknown clip", lambda: A._load_clip("noise"), ValueError, "name"),
    BadInput("stimuli: silent waveform to loudness-match",
             lambda: A._loudness_matched(np.ones(10), np.zeros(10)), ValueError, "waveforms[1]"),
    BadInput("stimuli: no waveforms to loudness-match", lambda: A._loudness_matched(), ValueError,
             "waveforms"),
    BadInput("stimuli: WAV sample beyond full scale", lambda: A._wav_bytes(np.array([0.5, 1.5])),
             ValueError, "waveform"),
    BadInput("stimuli: WAV sample NaN", lambda: A._wav_bytes(np.array([0.5, np.nan])), ValueError,
             "waveform"),
    BadInput("stimuli: RMS of an empty waveform", lambda: A._rms(np.array([])), ValueError,
             "waveform"),
    # the detection demo's tone in noise
    BadInput("stimuli: tone level above 1", lambda: A._tone_in_noise(1.5), ValueError, "level"),
    BadInput("stimuli: tone level negative", lambda: A._tone_in_noise(-0.1), ValueError, "level"),
    BadInput("stimuli: tone level NaN", lambda: A._tone_in_noise(float("nan")), ValueError,
             "level"),
    BadInput("stimuli: tone level a list", lambda: A._tone_in_noise([0.1, 0.2]), ValueError,
             "level"),
    BadInput("stimuli: tone above the Nyquist frequency",
             lambda: A._tone_in_noise(0.5, frequency=9000.0), ValueError, "frequency"),
    BadInput("stimuli: tone louder than the noise",
             lambda: A._tone_in_noise(0.5, max_snr_db=3.0), ValueError, "max_snr_db"),
    BadInput("stimuli: tone noise loud enough to clip",
             lambda: A._tone_in_noise(0.5, noise_rms=0.5), ValueError, "noise_rms"),
    BadInput("stimuli: tone snr of a level above 1", lambda: A._tone_snr_db([0.5, 2.0]),
             ValueError, "level"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
