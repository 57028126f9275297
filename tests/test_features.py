"""Hand-checkable properties of the MFCC front end (course_lib.features)."""

import numpy as np
import pytest

from course_lib import features as F


# --- mel scale -------------------------------------------------------------------------------

def test_mel_of_700_hz_is_2595_log10_2():
    # by hand: 2595 * log10(1 + 700 / 700)
    assert F._hz_to_mel(700.0) == pytest.approx(2595 * np.log10(2.0), rel=1e-15)
    # the scale is built so that 1000 Hz is about 1000 mel
    assert F._hz_to_mel(1000.0) == pytest.approx(1000.0, abs=0.1)


def test_mel_round_trip():
    f = np.linspace(0.0, 8000.0, 101)
    np.testing.assert_allclose(F._mel_to_hz(F._hz_to_mel(f)), f, rtol=1e-12, atol=1e-9)
    m = np.linspace(0.0, 3000.0, 31)
    np.testing.assert_allclose(F._hz_to_mel(F._mel_to_hz(m)), m, rtol=1e-12, atol=1e-9)


# --- mel filterbank --------------------------------------------------------------------------

def test_filterbank_shape_and_range():
    H = F.mel_filterbank(26, 256, 8000)
    assert H.shape == (26, 129)
    assert H.min() >= 0.0 and H.max() == 1.0


def test_single_filter_by_hand():
    # K = 8, f_s = 8000: edges at 0 Hz, the mel midpoint of 0..4000 Hz (about 1112 Hz) and
    # 4000 Hz; bins floor(9 f / 8000) = 0, 1, 4. Rising side [0, 1) -> H[0] = 0; falling side
    # [1, 4) -> (4 - k) / 3 = 1, 2/3, 1/3; bin 4 is the right edge -> 0.
    H = F.mel_filterbank(1, 8, 8000)
    np.testing.assert_allclose(H, [[0.0, 1.0, 2 / 3, 1 / 3, 0.0]], rtol=1e-15)


def test_triangle_peaks_at_centre_bins():
    n_filters, nfft, rate = 26, 256, 8000
    H = F.mel_filterbank(n_filters, nfft, rate)
    edges = F._mel_to_hz(np.linspace(0.0, F._hz_to_mel(rate / 2), n_filters + 2))
    centres = np.floor((nfft + 1) * edges[1:-1] / rate).astype(int)
    assert np.all(H[np.arange(n_filters), centres] == 1.0)
    assert np.all(np.argmax(H, axis=1) == centres)
    # each row rises to its peak and falls after it (a triangle, no second bump)
    for row, c in zip(H, centres):
        assert np.all(np.diff(row[:c + 1]) >= 0) and np.all(np.diff(row[c:]) <= 0)
    # centres increase with the filter index
    assert np.all(np.diff(centres) > 0)


# --- framing and spectra ---------------------------------------------------------------------

@pytest.mark.parametrize("n, expected", [(1, 1), (199, 1), (200, 1), (201, 2), (280, 2),
                                         (281, 3), (360, 3), (361, 4)])
def test_frame_counts(n, expected):
    # 1 frame if n <= L, else 1 + ceil((n - L) / S), with L = 200, S = 80
    assert F.n_frames(n, 200, 80) == expected
    assert F._frame_signal(np.ones(n), 200, 80).shape == (expected, 200)


def test_frame_contents_and_zero_padding():
    x = np.arange(1.0, 11.0)                     # 10 samples, L = 4, S = 3 -> 3 frames
    frames = F._frame_signal(x, 4, 3)
    np.testing.assert_array_equal(frames, [[1, 2, 3, 4], [4, 5, 6, 7], [7, 8, 9, 10]])
    frames = F._frame_signal(np.arange(1.0, 10.0), 4, 3)   # 9 samples: last frame padded
    np.testing.assert_array_equal(frames[-1], [7, 8, 9, 0])


def test_seconds_to_samples_and_default_nfft():
    assert F._seconds_to_samples(0.025, 8000) == 200
    assert F._seconds_to_samples(0.010, 8000) == 80
    assert F._seconds_to_samples(0.0125, 100) == 1        # 1.25 -> 1
    assert F._seconds_to_samples(0.015, 100) == 2         # 1.5 rounds half up
    assert [F._default_nfft(n) for n in (1, 200, 256, 257)] == [1, 256, 256, 512]


def test_preemphasis_by_hand():
    np.testing.assert_allclose(F._preemphasis([1.0, 2.0, 3.0], 0.5), [1.0, 1.5, 2.0])
    np.testing.assert_array_equal(F._preemphasis([1.0, 2.0], 0.0), [1.0, 2.0])


def test_power_spectrum_of_constant_and_cosine():
    K = 16
    P = F._checked_power_spectrum(np.ones((1, K)))
    # DC bin: |sum of K ones|^2 / K = K, all other bins 0
    np.testing.assert_allclose(P, [[K] + [0.0] * (K // 2)], atol=1e-12)
    k0 = 3
    cosine = np.cos(2 * np.pi * k0 * np.arange(K) / K)[None, :]
    P = F._checked_power_spectrum(cosine)
    # |K / 2|^2 / K = K / 4 at bin k0 only
    assert np.argmax(P[0]) == k0 and P[0, k0] == pytest.approx(K / 4)
    assert np.sum(P) == pytest.approx(K / 4)


# --- cepstra ---------------------------------------------------------------------------------

def test_lifter_by_hand():
    c = np.ones((2, 13))
    lifted = F._lifter(c, 22)
    assert lifted[0, 0] == 1.0                               # sin(0) = 0
    assert lifted[0, 11] == pytest.approx(12.0)              # 1 + 11 sin(pi / 2)
    np.testing.assert_array_equal(F._lifter(c, 0), c)


def test_mfcc_shape_and_silence_is_finite():
    c = F.mfcc(np.zeros(800), 8000)
    assert c.shape == (F.n_frames(800, 200, 80), 13)
    assert np.all(np.isfinite(c))
    # energy floored at machine epsilon
    np.testing.assert_allclose(c[:, 0], np.log(np.finfo(float).eps))


def test_mfcc_gain_only_moves_energy():
    # a gain a scales every power by a^2: log E shifts by 2 log a in every band, which the
    # orthonormal DCT puts into c0 only, and c0 is replaced by log energy (also + 2 log a)
    x = np.random.default_rng(0).standard_normal(1600)
    a = 3.0
    c, c_loud = F.mfcc(x, 8000), F.mfcc(a * x, 8000)
    np.testing.assert_allclose(c_loud[:, 0] - c[:, 0], 2 * np.log(a), rtol=1e-10)
    np.testing.assert_allclose(c_loud[:, 1:], c[:, 1:], atol=1e-10)


def test_mfcc_of_a_very_loud_signal_is_exact_and_beyond_float64_is_refused():
    # up to the overflow limit the gain property holds exactly (no inf, no NaN) ...
    x = np.random.default_rng(5).standard_normal(1600)
    a = 1e150
    c, c_loud = F.mfcc(x, 8000), F.mfcc(a * x, 8000)
    np.testing.assert_allclose(c_loud[:, 0] - c[:, 0], 2 * np.log(a), rtol=1e-12)
    np.testing.assert_allclose(c_loud[:, 1:], c[:, 1:], atol=1e-9)
    # ... beyond it (powers above 1.8e308) the signal is refused by name
    with pytest.raises(ValueError, match="^signal: the values are too large"):
        F.mfcc(1e200 * x, 8000)


def test_append_energy_false_keeps_the_cepstral_c0():
    x = np.random.default_rng(6).standard_normal(1600)
    E, energy = F.mel_energies(x, 8000)
    c0 = np.sum(np.log(E), axis=1) / np.sqrt(E.shape[1])   # orthonormal DCT-II, k = 0; lifter 1
    np.testing.assert_allclose(F.mfcc(x, 8000, append_energy=False)[:, 0], c0, rtol=1e-12)
    np.testing.assert_allclose(F.mfcc(x, 8000)[:, 0], np.log(energy), rtol=1e-12)


def test_energy_term_is_log_sum_of_power_spectrum():
    x = np.random.default_rng(1).standard_normal(1000)
    frames = F._frame_signal(F._preemphasis(x, 0.97), 200, 80) * np.hamming(200)
    energy = np.sum(np.abs(np.fft.rfft(frames, 256, axis=1)) ** 2, axis=1) / 256
    np.testing.assert_allclose(F.mfcc(x, 8000)[:, 0], np.log(energy), rtol=1e-12)


# --- deltas and normalisation ----------------------------------------------------------------

@pytest.mark.parametrize("N", [1, 2, 3])
def test_delta_of_linear_ramp_is_its_slope(N):
    t = np.arange(20.0)[:, None]
    ramp = np.hstack([0.5 * t + 1.0, -2.0 * t])
    d = F.delta(ramp, N)
    np.testing.assert_allclose(d[N:-N], np.tile([0.5, -2.0], (20 - 2 * N, 1)), rtol=1e-12)
    # edges repeat the end frames, so the slope estimate shrinks there
    assert abs(d[0, 0]) < 0.5 and abs(d[-1, 0]) < 0.5


def test_delta_of_constant_is_zero_and_deltas_stack():
    c = np.full((7, 3), 4.2)
    np.testing.assert_array_equal(F.delta(c), 0.0)
    x = np.random.default_rng(2).standard_normal((30, 13))
    full = F._add_deltas(x)
    assert full.shape == (30, 39)
    np.testing.assert_array_equal(full[:, :13], x)
    np.testing.assert_allclose(full[:, 26:], F.delta(F.delta(x)))


def test_mean_normalise():
    x = np.random.default_rng(3).standard_normal((50, 13)) + 7.0
    y = F._mean_normalise(x)
    np.testing.assert_allclose(y.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(x - y, np.tile(x.mean(axis=0), (50, 1)))


def test_mfcc_features_front_end():
    x = np.random.default_rng(4).standard_normal(2400)
    full = F.mfcc_features(x, 8000)
    assert full.shape == (F.n_frames(2400, 200, 80), 39)
    np.testing.assert_allclose(full[:, :13].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(F.mfcc_features(x, 8000, deltas=False, cmn=False),
                               F.mfcc(x, 8000))


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: F.mfcc(np.ones((10, 2)), 8000), "signal"),
    (lambda: F.mfcc(np.array([1.0, np.nan]), 8000), "signal"),
    (lambda: F.mfcc(np.array([]), 8000), "signal"),
    (lambda: F.mfcc(np.ones(400), 0), "sample_rate"),
    (lambda: F.mfcc(np.ones(400), 8000, nfft=128), "nfft"),
    (lambda: F.mfcc(np.ones(400), 8000, n_cepstra=30), "n_cepstra"),
    (lambda: F.mfcc(np.ones(400), 8000, frame_length_s=-0.01), "frame_length_s"),
    (lambda: F.mel_filterbank(26, 256, 8000, high_hz=5000.0), "high_hz"),
    (lambda: F.mel_filterbank(26, 256, 8000, low_hz=4000.0), "low_hz"),
    (lambda: F.mel_filterbank(0, 256, 8000), "n_filters"),
    (lambda: F._hz_to_mel(-1.0), "f"),
    (lambda: F._mel_to_hz(-1.0), "m"),
    (lambda: F._frame_signal(np.ones(10), 0, 3), "frame_length"),
    (lambda: F._frame_signal(np.ones(10), 4, 0), "frame_step"),
    (lambda: F._checked_power_spectrum(np.ones(8)), "frames"),
    (lambda: F.delta(np.ones(5)), "features"),
    (lambda: F.delta(np.ones((5, 2)), 0), "N"),
    (lambda: F._lifter(np.ones((2, 3)), -1), "Q"),
    (lambda: F._preemphasis(np.ones(3), -0.5), "coeff"),
    (lambda: F.mfcc(np.ones(400), 8000, preemph=-0.5), "preemph"),
    (lambda: F.mfcc(np.ones(400), 8000, cep_lifter=-1), "cep_lifter"),
    (lambda: F.mel_energies(np.ones(400), 8000, preemph=2.0), "preemph"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()


def test_bad_flag_type():
    with pytest.raises(TypeError, match="^deltas"):
        F.mfcc_features(np.ones(400), 8000, deltas="yes")
    with pytest.raises(TypeError, match="^signal"):
        F.mfcc(["a", "b"], 8000)
    with pytest.raises(TypeError, match="^append_energy"):
        F.mfcc(np.ones(400), 8000, append_energy="no")


def test_pca_whiten_gives_training_rows_unit_covariance_and_drops_null_directions():
    from course_lib.features import pca_whiten
    rng = np.random.default_rng(4)
    train = rng.normal(size=(200, 3)) @ np.array([[2.0, 0.5, 0.0], [0.0, 1.0, 0.3],
                                                  [0.0, 0.0, 0.2]]) + [5.0, -1.0, 0.0]
    whitened = pca_whiten(train, train)
    # an exact identity for the training rows, up to round-off of a 3 x 3 eigendecomposition
    np.testing.assert_allclose(np.cov(whitened, rowvar=False, bias=True), np.eye(3), atol=1e-12)
    np.testing.assert_allclose(whitened.mean(axis=0), 0.0, atol=1e-12)
    doubled = np.column_stack([train, 2 * train[:, 0]])   # a linearly dependent column
    assert pca_whiten(doubled, doubled).shape == (200, 3)
    with pytest.raises(ValueError, match=r"train: columns \[1\] are constant"):
        pca_whiten(np.column_stack([train[:, 0], np.ones(200)]), train[:, :2])
    with pytest.raises(ValueError, match="values: expected 3 columns"):
        pca_whiten(train, train[:, :2])


def test_mean_variance_normalisation_is_per_column_and_leaves_constant_columns_centred():
    from course_lib.features import mean_variance_normalise

    rng = np.random.default_rng(3)
    frames = np.column_stack([rng.normal(5, 3, 40), np.full(40, 2.0), rng.normal(-1, 0.1, 40)])
    normalised = mean_variance_normalise(frames)
    assert np.allclose(normalised.mean(axis=0), 0, atol=1e-12)
    assert np.allclose(normalised.std(axis=0), [1, 0, 1], atol=1e-12)
    # a scaled and shifted copy of an utterance normalises to the same frames
    assert np.allclose(mean_variance_normalise(frames * [2, 1, 7] + 3), normalised, atol=1e-12)
