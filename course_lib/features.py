"""HTK-style MFCC front end, one function per stage so the lecture can show each of them.

The chain for a signal x[n] sampled at f_s Hz (rows of every 2-D result are frames):

1. pre-emphasis        y[n] = x[n] - a x[n-1]  (a = 0.97; y[0] = x[0])
2. framing             frames of L = 25 ms every S = 10 ms, zero-padded at the end
3. Hamming window      w[m] = 0.54 - 0.46 cos(2 pi m / (L - 1))
4. power spectrum      P_t[k] = |FFT_K(w * frame_t)[k]|^2 / K,  k = 0..K/2
5. mel filterbank      E_t[j] = sum_k H_j[k] P_t[k], 26 triangles equally spaced in mel
6. cepstra             c_t = DCT-II(log E_t) (orthonormal), first 13 kept
7. lifter              c_t[i] *= 1 + (Q / 2) sin(pi i / Q)  (Q = 22)
8. energy              c_t[0] := log sum_k P_t[k]  (the "appendEnergy" convention)
9. deltas              d_t = sum_{n=1}^N n (c_{t+n} - c_{t-n}) / (2 sum_{n=1}^N n^2)
10. optional cepstral mean normalisation  c_t := c_t - mean_t c_t

Conventions (chosen so that the result equals python_speech_features 0.6 ``mfcc`` with
``winfunc=numpy.hamming``, ``nfft=256`` at 8 kHz, and its ``delta``, to float precision):

* mel(f) = 2595 log10(1 + f / 700);
* framing: L and S are rounded half up to samples (200 and 80 at 8 kHz); a signal of n samples
  gives 1 frame if n <= L, else 1 + ceil((n - L) / S) frames, the last padded with zeros;
* FFT size K: by default the smallest power of two >= L (256 at 8 kHz, since a 200-sample window
  must fit; python_speech_features' default of 512 would just interpolate the spectrum);
* filter edges are FFT bins floor((K + 1) f / f_s) of mel-equally spaced frequencies;
* the energy term is the sum of the one-sided power spectrum of the pre-emphasised, windowed
  frame (what python_speech_features computes; HTK instead takes the raw frame's energy);
* zero band powers and energies are floored at machine epsilon before the log, so silence
  never gives -inf;
* delta at the edges repeats the first / last frame.

Sizes are capped where a typo would otherwise allocate terabytes (:data:`_MAX_SAMPLE_RATE`,
:data:`_MAX_FRAME_LENGTH`, :data:`_MAX_NFFT`; at most one filter per FFT bin), and a result that
overflows float64 (a signal with values around 1e200, whose powers exceed 1e308) is refused with a
message naming the input, never returned as inf or NaN.
"""

from __future__ import annotations

import numpy as np

from course_lib.validation import (as_bool, as_float_array, as_positive_float, as_positive_int,
                                   as_waveform)

_EPS = np.finfo(np.float64).eps
_MAX_SAMPLE_RATE = 10_000_000    # Hz
_MAX_FRAME_LENGTH = 2 ** 20      # samples per frame
_MAX_NFFT = 2 ** 21
_MAX_DELTA_WINDOW = 10_000       # N of the delta regression, in frames


def _check_finite(result, name: str, what: str) -> np.ndarray:
    """Refuse a result that overflowed float64 (computed under ``np.errstate(over="ignore")``)."""
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{name}: the values are too large: {what} overflows float64 "
                         f"(beyond 1.8e308); scale the input down")
    return result


def _as_coefficient(value, name: str) -> float:
    """A pre-emphasis coefficient a with 0 <= a <= 1."""
    value = as_positive_float(value, name, allow_zero=True)
    if value > 1:
        raise ValueError(f"{name}: expected a pre-emphasis coefficient between 0 and 1 "
                         f"(usually 0.95-0.97), got {value}")
    return value


def _hz_to_mel(f):
    """Mel value of frequency ``f`` in Hz: mel(f) = 2595 log10(1 + f / 700) (elementwise)."""
    f = as_float_array(f, "f", allow_empty=True)
    if np.any(f < 0):
        raise ValueError("f: frequencies must be >= 0 Hz")
    return 2595.0 * np.log10(1.0 + f / 700.0)


def _mel_to_hz(m):
    """Inverse of :func:`_hz_to_mel`: f = 700 (10^(m / 2595) - 1) (elementwise)."""
    m = as_float_array(m, "m", allow_empty=True)
    if np.any(m < 0):
        raise ValueError("m: mel values must be >= 0")
    with np.errstate(over="ignore"):
        return _check_finite(700.0 * (10.0 ** (m / 2595.0) - 1.0), "m",
                             "the frequency of a mel value above about 8e5")


def _seconds_to_samples(seconds: float, sample_rate: int, name: str = "seconds") -> int:
    """Number of samples in ``seconds`` at ``sample_rate``, rounded half up (at least 1)."""
    sample_rate = as_positive_int(sample_rate, "sample_rate", maximum=_MAX_SAMPLE_RATE)
    seconds = as_positive_float(seconds, name)
    if seconds * sample_rate > _MAX_FRAME_LENGTH:
        raise ValueError(f"{name}: {seconds:g} s is more than {_MAX_FRAME_LENGTH} samples at "
                         f"{sample_rate} Hz")
    samples = int(np.floor(seconds * sample_rate + 0.5))
    if samples < 1:
        raise ValueError(f"{name}: {seconds} s is shorter than one sample at {sample_rate} Hz")
    return samples


def _default_nfft(frame_length: int) -> int:
    """Smallest power of two K >= ``frame_length`` (256 for the 200-sample window at 8 kHz)."""
    frame_length = as_positive_int(frame_length, "frame_length", maximum=_MAX_FRAME_LENGTH)
    return 1 << (frame_length - 1).bit_length()


def _preemphasis(signal, coeff: float = 0.97) -> np.ndarray:
    """y[0] = x[0], y[n] = x[n] - coeff x[n-1]: boosts high frequencies (first difference)."""
    x = as_waveform(signal, "signal")
    coeff = _as_coefficient(coeff, "coeff")
    with np.errstate(over="ignore", invalid="ignore"):
        return _check_finite(np.concatenate((x[:1], x[1:] - coeff * x[:-1])), "signal",
                             "the pre-emphasised signal")


def n_frames(n_samples: int, frame_length: int, frame_step: int) -> int:
    """Frames for ``n_samples``: 1 if n <= L, else 1 + ceil((n - L) / S)."""
    n_samples = as_positive_int(n_samples, "n_samples")
    frame_length = as_positive_int(frame_length, "frame_length", maximum=_MAX_FRAME_LENGTH)
    frame_step = as_positive_int(frame_step, "frame_step", maximum=_MAX_FRAME_LENGTH)
    if n_samples <= frame_length:
        return 1
    return 1 + -(-(n_samples - frame_length) // frame_step)   # integer ceil


def _frame_signal(signal, frame_length: int, frame_step: int) -> np.ndarray:
    """Cut ``signal`` into overlapping frames, shape (n_frames, frame_length); rows are frames.

    Frame t holds samples t * S .. t * S + L - 1; the end is zero-padded so that the last frame
    is complete (frame count: :func:`n_frames`). No window is applied here.
    """
    x = as_waveform(signal, "signal")
    T = n_frames(len(x), frame_length, frame_step)
    padded = np.zeros((T - 1) * frame_step + frame_length)
    padded[:len(x)] = x
    starts = frame_step * np.arange(T)
    return padded[starts[:, None] + np.arange(frame_length)[None, :]]


def _checked_power_spectrum(frames, nfft: int | None = None) -> np.ndarray:
    """P_t[k] = |sum_m frame_t[m] e^{-2 pi i k m / K}|^2 / K for k = 0..K/2; shape (T, K/2 + 1).

    ``nfft`` (K) defaults to :func:`_default_nfft` of the frame length; frames are zero-padded
    to K, and K smaller than the frame length is an error (it would drop samples).
    """
    frames = as_float_array(frames, "frames", ndim=2)
    K = _default_nfft(frames.shape[1]) if nfft is None else \
        as_positive_int(nfft, "nfft", maximum=_MAX_NFFT)
    if K < frames.shape[1]:
        raise ValueError(f"nfft: {K} is shorter than the frame length {frames.shape[1]}")
    return _check_finite(_power_spectrum(frames, K), "frames", "the power spectrum")


def _power_spectrum(frames, K):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.abs(np.fft.rfft(frames, K, axis=1)) ** 2 / K


def mel_filterbank(n_filters: int, nfft: int, sample_rate: int, low_hz: float = 0.0,
                   high_hz: float | None = None) -> np.ndarray:
    """Triangular mel filters H, shape (n_filters, nfft // 2 + 1); row j is filter j.
    Lecture 01, section 6 (The front end in brief: from waveform to MFCC frames).

    The n_filters + 2 edge frequencies are equally spaced in mel between ``low_hz`` and
    ``high_hz`` (default f_s / 2) and mapped to FFT bins b = floor((K + 1) f / f_s). Filter j
    rises linearly from 0 at bin b_j to 1 at b_{j+1} and falls back to 0 at b_{j+2}:
    H_j[k] = (k - b_j) / (b_{j+1} - b_j) on [b_j, b_{j+1}), (b_{j+2} - k) / (b_{j+2} - b_{j+1})
    on [b_{j+1}, b_{j+2}), 0 elsewhere.
    """
    nfft = as_positive_int(nfft, "nfft", minimum=2, maximum=_MAX_NFFT)
    n_filters = as_positive_int(n_filters, "n_filters")
    if n_filters > nfft // 2 + 1:
        raise ValueError(f"n_filters: {n_filters} filters do not fit the {nfft // 2 + 1} "
                         f"frequency bins of a {nfft}-point FFT")
    sample_rate = as_positive_int(sample_rate, "sample_rate", maximum=_MAX_SAMPLE_RATE)
    low_hz = as_positive_float(low_hz, "low_hz", allow_zero=True)
    high_hz = sample_rate / 2 if high_hz is None else as_positive_float(high_hz, "high_hz")
    if high_hz > sample_rate / 2:
        raise ValueError(f"high_hz: {high_hz} Hz is above the Nyquist frequency {sample_rate / 2} Hz")
    if low_hz >= high_hz:
        raise ValueError(f"low_hz: {low_hz} Hz must be below high_hz = {high_hz} Hz")
    mel_edges = np.linspace(_hz_to_mel(low_hz), _hz_to_mel(high_hz), n_filters + 2)
    bins = np.floor((nfft + 1) * _mel_to_hz(mel_edges) / sample_rate)
    left, centre, right = bins[:-2, None], bins[1:-1, None], bins[2:, None]
    k = np.arange(nfft // 2 + 1)[None, :]
    # an empty side (equal integer edges) is never selected below, so its denominator may be 1
    rising = (k - left) / np.maximum(centre - left, 1.0)
    falling = (right - k) / np.maximum(right - centre, 1.0)
    return np.where((left <= k) & (k < centre), rising,
                    np.where((centre <= k) & (k < right), falling, 0.0))


def mel_energies(signal, sample_rate: int, *, frame_length_s: float = 0.025,
                 frame_step_s: float = 0.010, preemph: float = 0.97, n_filters: int = 26,
                 nfft: int | None = None, low_hz: float = 0.0,
                 high_hz: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Stages 1-5: mel band energies E, shape (T, n_filters), and frame energies sum_k P_t[k], (T,).

    Both are floored at machine epsilon (so their log is finite). See the module docstring for
    the conventions.
    """
    x = as_waveform(signal, "signal")
    sample_rate = as_positive_int(sample_rate, "sample_rate", maximum=_MAX_SAMPLE_RATE)
    preemph = _as_coefficient(preemph, "preemph")
    L = _seconds_to_samples(frame_length_s, sample_rate, "frame_length_s")
    S = _seconds_to_samples(frame_step_s, sample_rate, "frame_step_s")
    K = _default_nfft(L) if nfft is None else as_positive_int(nfft, "nfft", maximum=_MAX_NFFT)
    if K < L:
        raise ValueError(f"nfft: {K} is shorter than the frame length {L} samples "
                         f"(frame_length_s = {frame_length_s} s)")
    H = mel_filterbank(n_filters, K, sample_rate, low_hz, high_hz)
    with np.errstate(over="ignore", invalid="ignore"):
        emphasised = np.concatenate((x[:1], x[1:] - preemph * x[:-1]))
        P = _power_spectrum(_frame_signal(emphasised, L, S) * np.hamming(L), K)
        E, energy = P @ H.T, P.sum(axis=1)
    for result in (P, E, energy):
        _check_finite(result, "signal", f"the power spectrum of a signal with peak "
                                        f"|x| = {np.max(np.abs(x)):.3g}")
    return np.maximum(E, _EPS), np.maximum(energy, _EPS)


def _lifter(cepstra, Q: int = 22) -> np.ndarray:
    """c[i] * (1 + (Q / 2) sin(pi i / Q)) for each column i; Q = 0 leaves cepstra unchanged."""
    c = as_float_array(cepstra, "cepstra", ndim=2)
    Q = as_positive_int(Q, "Q", minimum=0, maximum=10 ** 9)
    if Q == 0:
        return c
    i = np.arange(c.shape[1])
    with np.errstate(over="ignore"):
        return _check_finite(c * (1.0 + Q / 2.0 * np.sin(np.pi * i / Q)), "cepstra",
                             "the liftered cepstrum")


def mfcc(signal, sample_rate: int, *, frame_length_s: float = 0.025,
         frame_step_s: float = 0.010, preemph: float = 0.97, n_filters: int = 26,
         n_cepstra: int = 13, cep_lifter: int = 22, nfft: int | None = None,
         low_hz: float = 0.0, high_hz: float | None = None,
         append_energy: bool = True) -> np.ndarray:
    """Mel-frequency cepstral coefficients, shape (T, n_cepstra); rows are frames.
    Lecture 01, section 6 (The front end in brief: from waveform to MFCC frames).

    c_t = lifter(DCT-II_ortho(log E_t))[:n_cepstra], and with ``append_energy`` c_t[0] is
    replaced by the log frame energy log sum_k P_t[k] (stages 1-8 of the module docstring).
    ``cep_lifter`` is Q of :func:`_lifter` (0: no liftering), ``preemph`` the coefficient of
    :func:`_preemphasis`.
    """
    n_filters = as_positive_int(n_filters, "n_filters")
    n_cepstra = as_positive_int(n_cepstra, "n_cepstra")
    if n_cepstra > n_filters:
        raise ValueError(f"n_cepstra: {n_cepstra} is more than n_filters = {n_filters}")
    cep_lifter = as_positive_int(cep_lifter, "cep_lifter", minimum=0, maximum=10 ** 9)
    append_energy = as_bool(append_energy, "append_energy")
    E, energy = mel_energies(signal, sample_rate, frame_length_s=frame_length_s,
                             frame_step_s=frame_step_s, preemph=preemph, n_filters=n_filters,
                             nfft=nfft, low_hz=low_hz, high_hz=high_hz)
    from scipy.fft import dct  # imported here: loading the library needs no FFT

    c = _lifter(dct(np.log(E), type=2, norm="ortho", axis=1)[:, :n_cepstra], cep_lifter)
    if append_energy:
        c[:, 0] = np.log(energy)
    return c


def delta(features, N: int = 2) -> np.ndarray:
    """Regression deltas d_t = sum_{n=1}^N n (c_{t+n} - c_{t-n}) / (2 sum_{n=1}^N n^2).
    Lecture 01, section 6 (The front end in brief: from waveform to MFCC frames).

    ``features`` has shape (T, d), rows are frames; frames beyond either end repeat the first /
    last frame. Returns shape (T, d). For a linear ramp c_t = a t + b the interior deltas are a.
    """
    c = as_float_array(features, "features", ndim=2)
    N = as_positive_int(N, "N", maximum=_MAX_DELTA_WINDOW)
    T = len(c)
    padded = np.pad(c, ((N, N), (0, 0)), mode="edge")
    with np.errstate(over="ignore", invalid="ignore"):
        numerator = sum(n * (padded[N + n:N + n + T] - padded[N - n:N - n + T])
                        for n in range(1, N + 1))
    return _check_finite(numerator / (2 * sum(n * n for n in range(1, N + 1))), "features",
                         "the delta regression")


def _add_deltas(features, N: int = 2, order: int = 2) -> np.ndarray:
    """[c, delta c, delta^2 c, ...] side by side up to ``order``: shape (T, d (order + 1))."""
    c = as_float_array(features, "features", ndim=2)
    order = as_positive_int(order, "order", minimum=0, maximum=10)
    blocks = [c]
    for _ in range(order):
        blocks.append(delta(blocks[-1], N))
    return np.hstack(blocks)


def _mean_normalise(features) -> np.ndarray:
    """Cepstral mean normalisation: c_t - (1/T) sum_t c_t, per column; rows are frames."""
    c = as_float_array(features, "features", ndim=2)
    with np.errstate(over="ignore", invalid="ignore"):
        return _check_finite(c - c.mean(axis=0), "features", "the mean")


def mean_variance_normalise(features) -> np.ndarray:
    """Cepstral mean and variance normalisation (CMVN) of one utterance: each column minus its
    mean over the utterance's frames, divided by its standard deviation (a constant column is
    only centred). A channel or a voice that scales a coefficient's range then looks like every
    other; it is what the recogniser of Units 1-3 needs most on real voices
    (``experiments/fsdd_real_voices.py``)."""
    c = as_float_array(features, "features", ndim=2)
    sd = c.std(axis=0)
    return (c - c.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def mfcc_features(signal, sample_rate: int, *, deltas: bool = True, cmn: bool = True,
                  N: int = 2) -> np.ndarray:
    """The course's standard front end: :func:`mfcc` with the default (HTK-style) settings,
    then optional cepstral mean normalisation, then optional deltas and delta-deltas.

    Shape (T, 39) with deltas, (T, 13) without; rows are frames. The mean is removed from the
    static coefficients before the deltas are taken (deltas ignore a constant offset anyway).
    """
    as_bool(deltas, "deltas")
    as_bool(cmn, "cmn")
    c = mfcc(signal, sample_rate)
    if cmn:
        c = _mean_normalise(c)
    return _add_deltas(c, N, order=2) if deltas else c


def pca_whiten(train, values, *, eigenvalue_cutoff: float = 1e-10) -> np.ndarray:
    """``values`` (n, d) standardised with the mean and sd of the rows of ``train`` (m, d),
    rotated onto the eigenvectors of the standardised training covariance and scaled to unit
    variance along each (PCA whitening), so that one lengthscale suits every direction.
    Directions whose eigenvalue is below ``eigenvalue_cutoff`` x the largest are dropped."""
    train = as_float_array(train, "train", ndim=2)
    values = as_float_array(values, "values", ndim=2)
    if values.shape[1] != train.shape[1]:
        raise ValueError(f"values: expected {train.shape[1]} columns like train, got "
                         f"{values.shape[1]}")
    mean, sd = train.mean(axis=0), train.std(axis=0)
    if np.any(sd == 0):
        raise ValueError(f"train: columns {np.flatnonzero(sd == 0).tolist()} are constant")
    eigenvalues, eigenvectors = np.linalg.eigh(np.cov((train - mean) / sd, rowvar=False,
                                                      bias=True))
    keep = eigenvalues > eigenvalue_cutoff * eigenvalues.max()
    return ((values - mean) / sd) @ (eigenvectors[:, keep] / np.sqrt(eigenvalues[keep]))
