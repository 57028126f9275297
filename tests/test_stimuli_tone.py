"""course_lib.stimuli.tone_in_noise: the detection demo's stimulus. The tone's level in the mix,
level zero = the noise alone, frozen noise, ramps without clicks, the tone's frequency (its bad
input is in the catalogue, tests/test_stimuli_bad_input.py)."""

import numpy as np
import pytest

from course_lib import stimuli as A

FS = A._SAMPLE_RATE


def flat_part(x):
    """The samples of the tone's flat part (between its ramps)."""
    n = x.size
    n_tone = int(round(A.TONE_DURATION * FS))
    start = (n - n_tone) // 2
    n_ramp = int(round(A._TONE_RAMP * FS))
    return x[start + n_ramp:start + n_tone - n_ramp]


def test_level_zero_is_the_noise_alone_at_the_asked_rms():
    mix, tone = A.tone_in_noise(0.0)
    assert mix.shape == (int(round(A.TONE_CLIP_DURATION * FS)),)
    np.testing.assert_array_equal(tone, 0.0)
    # the noise over the clip's flat part (between its 10 ms ramps) has RMS close to 0.1
    n_ramp = int(round(A._CLIP_RAMP * FS))
    assert A._rms(mix[n_ramp:-n_ramp]) == pytest.approx(A._TONE_NOISE_RMS, rel=0.01)
    for level in (0.3, 1.0):
        other, other_tone = A.tone_in_noise(level)
        np.testing.assert_allclose(other - other_tone, mix, atol=1e-15)   # the same noise


@pytest.mark.parametrize("level, max_snr_db", [(1.0, -12.0), (0.5, -12.0), (0.1, -6.0),
                                               (0.8, -20.0)])
def test_tone_rms_in_the_mix_is_level_times_the_snr(level, max_snr_db):
    mix, tone = A.tone_in_noise(level, max_snr_db=max_snr_db)
    expected = level * A._TONE_NOISE_RMS * 10 ** (max_snr_db / 20)
    # the flat part holds a whole number of periods (360 ms at 1 kHz): RMS = peak / sqrt 2
    assert A._rms(flat_part(tone)) == pytest.approx(expected, rel=1e-9)
    noise = A.tone_in_noise(0.0, max_snr_db=max_snr_db)[0]
    assert A._rms(flat_part(mix - noise)) == pytest.approx(expected, rel=1e-9)
    measured_snr = 20 * np.log10(A._rms(flat_part(tone)) / A._TONE_NOISE_RMS)
    assert measured_snr == pytest.approx(A.tone_snr_db(level, max_snr_db=max_snr_db),
                                         abs=0.05)


def test_tone_snr_db_closed_form():
    np.testing.assert_allclose(A.tone_snr_db([1.0, 0.1, 0.01]), [-12.0, -32.0, -52.0])
    assert A.tone_snr_db(0.0) == -np.inf


def test_deterministic_and_within_full_scale_and_wav_encodes():
    first, _ = A.tone_in_noise(1.0)
    second, _ = A.tone_in_noise(1.0)
    np.testing.assert_array_equal(first, second)
    assert np.max(np.abs(first)) < 0.9
    data = A.wav_bytes(first)
    assert data[:4] == b"RIFF" and len(data) == 44 + 2 * first.size


def test_tone_is_at_its_frequency_and_centred_with_click_free_ramps():
    _, tone = A.tone_in_noise(1.0, frequency=750.0)
    spectrum = np.abs(np.fft.rfft(tone))
    peak_hz = np.argmax(spectrum) * FS / tone.size
    assert peak_hz == pytest.approx(750.0, abs=FS / tone.size)
    active = np.flatnonzero(tone != 0)
    n_tone = int(round(A.TONE_DURATION * FS))
    assert active[-1] - active[0] + 1 <= n_tone
    assert active[0] >= (tone.size - n_tone) // 2
    # the envelope starts near 0 (no jump): first sample tiny against the peak
    peak = np.max(np.abs(tone))
    assert abs(tone[active[0]]) < 0.01 * peak
    mix, _ = A.tone_in_noise(0.0)
    assert abs(mix[0]) < 0.01 and abs(mix[-1]) < 0.01   # the clip fades in and out


def test_louder_level_is_louder_in_the_mix():
    levels = [A._rms(flat_part(A.tone_in_noise(u)[0])) for u in (0.0, 0.5, 1.0)]
    assert levels[0] < levels[1] < levels[2]
