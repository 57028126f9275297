"""course_lib.stimuli: the equaliser's biquads against scipy.signal and their closed-form gains,
the synthesised music clip, loudness matching and WAV encoding (bad input:
tests/test_stimuli_bad_input.py)."""

import io
import wave

import numpy as np
import pytest
from scipy.io import wavfile
from scipy.signal import freqz, sosfilt, sosfreqz

from course_lib import stimuli as A

FS = A._SAMPLE_RATE


def db(h):
    return 20 * np.log10(np.abs(h))


def one_band(kind, frequency, q=1.0):
    return A._Equaliser([A._Band(kind, frequency, "band", q)])


# ----- the equaliser's response -----------------------------------------------------------------

@pytest.mark.parametrize("n_bands", [2, 3, 4])
def test_response_equals_scipy_freqz_of_the_sections(n_bands):
    eq = A.standard_equaliser(n_bands)
    gains = np.linspace(-12, 9, n_bands)
    frequencies = np.linspace(0, FS / 2, 257)
    sections = eq.sos(gains)
    assert sections.shape == (n_bands, 6)
    np.testing.assert_allclose(sections[:, 3], 1.0)           # a0 normalised to 1
    _, expected = sosfreqz(sections, worN=frequencies, fs=FS)
    np.testing.assert_allclose(eq.response(gains, frequencies), expected, rtol=1e-10,
                               atol=1e-12)
    # and section by section with the transfer-function form
    for section, band, gain in zip(sections, eq.bands, gains):
        _, h = freqz(section[:3], section[3:], worN=frequencies, fs=FS)
        single = A._Equaliser([band]).response([gain], frequencies)
        np.testing.assert_allclose(single, h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("gain", [-12.0, -3.0, 0.5, 6.0, 12.0])
@pytest.mark.parametrize("centre, q", [(100.0, 0.7), (1000.0, 1.0), (3000.0, 2.0),
                                       (7000.0, 4.0)])
def test_peaking_band_has_the_asked_for_gain_at_its_centre_and_none_far_away(gain, centre, q):
    eq = one_band("peaking", centre, q)
    assert db(eq.response([gain], [centre]))[0] == pytest.approx(gain, abs=1e-9)
    # the centre is the extreme of the response: between 0 dB and the gain everywhere
    grid = db(eq.response([gain], np.linspace(1, FS / 2 - 1, 2000)))
    assert np.all(np.abs(grid) <= abs(gain) + 1e-9)
    # at 0 Hz and at Nyquist the peaking section is exactly 1 (0 dB)
    np.testing.assert_allclose(db(eq.response([gain], [0.0, FS / 2])), 0.0, atol=1e-9)


@pytest.mark.parametrize("gain", [-12.0, -4.0, 5.0, 12.0])
@pytest.mark.parametrize("corner", [150.0, 1000.0, 5000.0])
def test_shelves_reach_the_gain_on_their_side_and_half_of_it_at_the_corner(gain, corner):
    low, high = one_band("low_shelf", corner), one_band("high_shelf", corner)
    ends = [0.0, FS / 2]
    np.testing.assert_allclose(db(low.response([gain], ends)), [gain, 0.0], atol=1e-9)
    np.testing.assert_allclose(db(high.response([gain], ends)), [0.0, gain], atol=1e-9)
    assert db(low.response([gain], [corner]))[0] == pytest.approx(gain / 2, abs=1e-9)
    assert db(high.response([gain], [corner]))[0] == pytest.approx(gain / 2, abs=1e-9)
    # shelf slope 1: monotone from one plateau to the other, no bump beyond the gain
    f = np.linspace(0, FS / 2, 1500)
    steps = np.diff(db(low.response([gain], f))) * np.sign(gain)
    assert np.all(steps <= 1e-9)


@pytest.mark.parametrize("kind", A._BAND_KINDS)
def test_zero_gain_is_the_identity_and_minus_g_undoes_g(kind):
    eq = one_band(kind, 800.0, 1.5)
    f = np.linspace(0, FS / 2, 300)
    product = eq.response([7.5], f) * eq.response([-7.5], f)
    np.testing.assert_allclose(product, 1.0, rtol=1e-10)


@pytest.mark.parametrize("kind", A._BAND_KINDS)
def test_zero_gain_sections_pass_the_signal_unchanged(kind):
    row = one_band(kind, 800.0).sos([0.0])[0]
    # b and a equal: H = 1 for every input
    np.testing.assert_allclose(row[:3], row[3:], rtol=1e-12, atol=1e-15)
    x = np.random.default_rng(0).standard_normal(500)
    np.testing.assert_allclose(one_band(kind, 800.0).apply(x, [0.0]), x, atol=1e-12)


@pytest.mark.parametrize("frequency, gains", [(1000.0, [0.0, 9.0, 0.0]),
                                              (100.0, [-8.0, 0.0, 0.0]),
                                              (7500.0, [0.0, 0.0, 10.0])])
def test_a_steady_sine_comes_out_scaled_by_the_response(frequency, gains):
    """Time domain, independent of the response formula: a long sine through ``apply``
    (scipy's sosfilt) has, after the transient, the amplitude |H(f)| of the design."""
    eq = A.standard_equaliser(3)
    t = np.arange(3 * FS) / FS
    y = eq.apply(np.sin(2 * np.pi * frequency * t), gains)
    steady = y[FS:]                                  # 1 s of transient discarded
    amplitude = np.sqrt(2) * np.sqrt(np.mean(steady ** 2))
    expected = np.abs(eq.response(gains, [frequency]))[0]
    assert amplitude == pytest.approx(expected, rel=2e-3)
    np.testing.assert_allclose(y, sosfilt(eq.sos(gains), np.sin(2 * np.pi * frequency * t)))


def test_the_bands_of_the_standard_layouts_are_named_and_ordered():
    for n_bands in (2, 3, 4):
        eq = A.standard_equaliser(n_bands)
        assert eq.n_bands == n_bands and eq.names[0] == "bass" and eq.names[-1] == "treble"
        frequencies = [band.frequency for band in eq.bands]
        assert frequencies == sorted(frequencies) and frequencies[-1] < FS / 2
        assert eq.bands[0].kind == "low_shelf" and eq.bands[-1].kind == "high_shelf"


# ----- clips ------------------------------------------------------------------------------------

def test_music_is_deterministic_peak_normalised_and_spans_bass_and_treble():
    x = A._synthesised_music(3.0)
    np.testing.assert_array_equal(x, A._synthesised_music(3.0))
    assert x.shape == (3 * FS,) and np.max(np.abs(x)) == pytest.approx(0.9)
    np.testing.assert_array_equal(A.load_clip("music"), x)
    spectrum = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(x.size, 1 / FS)
    share = {name: spectrum[(f >= lo) & (f < hi)].sum() / spectrum.sum()
             for name, lo, hi in [("bass", 30, 250), ("treble", 3000, 8000)]}
    # both shelves of the 2-band equaliser act on a clearly audible part of the energy
    assert share["bass"] > 0.2 and share["treble"] > 0.05, share
    # the equaliser changes the clip audibly: +12 dB treble adds more than 3 dB of level
    eq = A.standard_equaliser(2)
    assert 20 * np.log10(A._rms(eq.apply(x, [0, 12])) / A._rms(x)) > 3


def test_music_length_follows_duration():
    assert A._synthesised_music(0.5).shape == (FS // 2,)
    assert A._synthesised_music(1.0, sample_rate=8000).shape == (8000,)


# ----- loudness and WAV ---------------------------------------------------------------------

def test_loudness_matched_gives_equal_rms_and_no_clipping():
    x = A._synthesised_music(1.0)
    eq = A.standard_equaliser(2)
    loud, quiet = eq.apply(x, [12, 12]), eq.apply(x, [-12, -12])
    assert A._rms(loud) / A._rms(quiet) > 4                    # over 12 dB apart before
    a, b = A.loudness_matched(loud, quiet)
    assert A._rms(a) == pytest.approx(A._rms(b), rel=1e-12)
    assert max(np.max(np.abs(a)), np.max(np.abs(b))) < A._PEAK_LIMIT
    # shapes are kept: the outputs are the inputs times a positive factor
    np.testing.assert_allclose(a / loud, (a / loud)[0])
    # the target level when nothing would clip
    c, d = A.loudness_matched(0.01 * np.sin(np.arange(1000)), 0.5 * np.cos(np.arange(1000)),
                              target_rms=0.05)
    assert A._rms(c) == pytest.approx(0.05) and A._rms(d) == pytest.approx(0.05)


def test_rms_of_a_full_scale_sine():
    t = np.arange(FS) / FS
    assert A._rms(np.sin(2 * np.pi * 100 * t)) == pytest.approx(1 / np.sqrt(2), rel=1e-9)


def test_wav_bytes_round_trip_through_two_readers():
    x = A.loudness_matched(A._synthesised_music(0.5))[0]
    blob = A.wav_bytes(x)
    rate, samples = wavfile.read(io.BytesIO(blob))
    assert rate == FS and samples.dtype == np.int16 and samples.shape == x.shape
    np.testing.assert_allclose(samples / 32767.0, x, atol=0.5 / 32767 + 1e-12)
    with wave.open(io.BytesIO(blob)) as handle:
        assert (handle.getnchannels(), handle.getsampwidth(), handle.getframerate(),
                handle.getnframes()) == (1, 2, FS, x.size)
    # full scale maps to +-32767, no wrap-around
    _, edge = wavfile.read(io.BytesIO(A.wav_bytes(np.array([-1.0, 0.0, 1.0]), 8000)))
    np.testing.assert_array_equal(edge, [-32767, 0, 32767])
