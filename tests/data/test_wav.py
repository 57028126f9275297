"""Checksummed WAV files and their features (course_lib.data.wav): a file is decoded as int16 /
32768 and read-only, one that is not mono int16 at the data set's rate is refused naming it, and the waveform
and features are memoised by the file's content, so a changed file is never answered from the
cache."""

import numpy as np
import pytest
from scipy.io import wavfile

import course_lib.data as data
from course_lib.data import DataError
from course_lib.data import wav as W
from course_lib.features import mfcc_features
from tests.data.test_digits import data_copy  # noqa: F401  (the fixture: a copy of data/digits)

NAME = "isolated/s31_four.wav"


def test_a_waveform_is_the_files_int16_samples_over_32768_and_read_only(monkeypatch):
    monkeypatch.setattr(W, "_waveforms", {})  # decoded afresh: the cache holds checked files
    rate, samples = wavfile.read(data._DATA_ROOT / "digits" / NAME)
    with pytest.raises(DataError, match=f"{NAME}: expected 16000 Hz mono int16, got {rate} Hz"):
        W.load_waveform("digits", NAME, 16000)
    waveform = W.load_waveform("digits", NAME, rate)
    np.testing.assert_array_equal(waveform, samples / 32768.0)
    assert not waveform.flags.writeable
    assert W.load_waveform("digits", NAME, rate) is waveform   # memoised
    # a cached file is refused at another rate all the same
    with pytest.raises(DataError, match=f"{NAME}: expected 16000 Hz mono int16, got {rate} Hz"):
        W.load_waveform("digits", NAME, 16000)


def test_features_are_the_front_ends_memoised_by_content(data_copy):
    rate, samples = wavfile.read(data_copy / NAME)
    features = W._waveform_features("digits", NAME, rate, deltas=False, cmn=True)
    np.testing.assert_array_equal(features, mfcc_features(samples / 32768.0, rate, deltas=False,
                                                          cmn=True))
    assert not features.flags.writeable
    assert W._waveform_features("digits", NAME, rate, deltas=False, cmn=True) is features
    # the file changed, and its manifest with it, as a contributor would change them
    wavfile.write(data_copy / NAME, rate, np.ascontiguousarray(samples[::-1]))
    data._write_manifest("digits", list(data._read_manifest("digits")))
    changed = W._waveform_features("digits", NAME, rate, deltas=False, cmn=True)
    np.testing.assert_array_equal(changed, mfcc_features(samples[::-1] / 32768.0, rate,
                                                         deltas=False, cmn=True))
    with pytest.raises(TypeError, match="^deltas"):
        W._waveform_features("digits", NAME, rate, deltas="no", cmn=True)


def test_a_file_that_is_no_wav_is_refused_naming_it(data_copy):
    (data_copy / NAME).write_bytes(b"RIFF, but not really")
    data._write_manifest("digits", list(data._read_manifest("digits")))
    with pytest.raises(DataError, match="s31_four.wav: not a readable WAV file"):
        W.load_waveform("digits", NAME, 8000)
