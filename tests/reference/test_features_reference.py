"""course_lib.features against python_speech_features 0.6 with the same settings.

Conventions aligned on the reference side: ``winfunc=numpy.hamming`` (its default is a
rectangular window) and ``nfft=256`` (its default is 512; ours is the smallest power of two that
holds the 200-sample window at 8 kHz). Everything else (pre-emphasis 0.97, 25 ms / 10 ms,
26 filters, 13 cepstra, lifter 22, appendEnergy, round-half-up framing with zero padding, edge
padding in delta) is its default. The only documented difference: it replaces exact zeros by
eps before the log, we floor at eps; the two agree unless a band power lies in (0, eps).
"""

import numpy as np
import pytest
import python_speech_features as psf

from course_lib import features as F
from course_lib.data import digits

RTOL = 1e-10
SETTINGS = dict(winlen=0.025, winstep=0.01, numcep=13, nfilt=26, nfft=256, preemph=0.97,
                ceplifter=22, appendEnergy=True, winfunc=np.hamming)


def assert_close(ours, theirs):
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=RTOL * np.max(np.abs(theirs)))


def real_utterances():
    isolated = digits.load_digits("all")
    picks = list(range(0, len(isolated), 37))     # a spread of speakers and words
    waves = [isolated.waveforms[i] for i in picks]
    return waves + [p.waveform for p in digits.load_phone_numbers()[:3]]


def test_filterbank_equals_reference():
    for n_filters, nfft, rate in [(26, 256, 8000), (26, 512, 16000), (40, 512, 16000), (10, 64, 8000)]:
        assert_close(F.mel_filterbank(n_filters, nfft, rate),
                     psf.get_filterbanks(n_filters, nfft, rate))
    assert_close(F.mel_filterbank(20, 256, 8000, low_hz=300.0, high_hz=3400.0),
                 psf.get_filterbanks(20, 256, 8000, 300.0, 3400.0))


def test_mfcc_equals_reference_on_real_utterances():
    for x in real_utterances():
        assert_close(F.mfcc(x, 8000), psf.mfcc(x, 8000, **SETTINGS))


@pytest.mark.parametrize("n", [1, 57, 199, 200, 201, 280, 281, 4000, 12345])
def test_mfcc_equals_reference_on_random_signals(n):
    # lengths around the framing boundaries: 1 frame for n <= 200, then a new frame every 80
    x = np.random.default_rng(n).standard_normal(n)
    assert_close(F.mfcc(x, 8000), psf.mfcc(x, 8000, **SETTINGS))


def test_mfcc_equals_reference_at_16k():
    x = np.random.default_rng(16).standard_normal(16000)
    assert_close(F.mfcc(x, 16000, nfft=512), psf.mfcc(x, 16000, **{**SETTINGS, "nfft": 512}))


def test_mel_energies_equal_reference_fbank():
    x = real_utterances()[0]
    E, energy = F.mel_energies(x, 8000)
    E_ref, energy_ref = psf.fbank(x, 8000, 0.025, 0.01, 26, 256, 0, None, 0.97, np.hamming)
    assert_close(E, E_ref)
    assert_close(energy, energy_ref)


@pytest.mark.parametrize("N", [1, 2, 3])
def test_delta_equals_reference(N):
    c = F.mfcc(real_utterances()[1], 8000)
    assert_close(F.delta(c, N), psf.delta(c, N))
    assert_close(F.delta(F.delta(c, N), N), psf.delta(psf.delta(c, N), N))


@pytest.mark.parametrize("preemph, cep_lifter, append_energy",
                         [(0.0, 0, False), (0.95, 10, True), (1.0, 22, False)])
def test_mfcc_options_equal_reference(preemph, cep_lifter, append_energy):
    # the options a user sets (validated at mfcc itself) mean what they mean in the reference
    x = real_utterances()[2]
    ours = F.mfcc(x, 8000, preemph=preemph, cep_lifter=cep_lifter, append_energy=append_energy)
    theirs = psf.mfcc(x, 8000, **{**SETTINGS, "preemph": preemph, "ceplifter": cep_lifter,
                                  "appendEnergy": append_energy})
    assert_close(ours, theirs)
