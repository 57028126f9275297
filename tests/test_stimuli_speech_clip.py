"""The shipped speech clip (data/speech_clip) and its loader,
course_lib.stimuli._load_speech_clip."""

import os
import re
import shutil

import numpy as np
import pytest
from scipy.io import wavfile

import course_lib.data as data
from course_lib.data import DataError
from course_lib.stimuli import _SAMPLE_RATE, _SPEECH_DATASET, _SPEECH_FILE, load_clip, \
    _load_speech_clip

FOLDER = data._DATA_ROOT / _SPEECH_DATASET


def test_manifest_lists_the_one_wav_and_matches_its_bytes():
    manifest = data._read_manifest(_SPEECH_DATASET)
    on_disk = {p.name for p in FOLDER.iterdir() if p.is_file()}
    assert set(manifest) == on_disk - {"README.md", "SHA256SUMS"} == {_SPEECH_FILE}
    assert data._sha256_of(FOLDER / _SPEECH_FILE) == manifest[_SPEECH_FILE]


def test_the_clip_is_a_short_16_khz_mono_sentence_as_the_readme_says():
    rate, samples = wavfile.read(FOLDER / _SPEECH_FILE)
    assert rate == _SAMPLE_RATE == 16000 and samples.dtype == np.int16 and samples.ndim == 1
    seconds = samples.size / rate
    assert 2.5 < seconds < 4.0
    readme = (FOLDER / "README.md").read_text()
    stated = float(re.search(r"\| ([0-9.]+) s, ([0-9]+) kB \|", readme).group(1))
    assert stated == pytest.approx(seconds, abs=0.005)
    # peak-normalised to 0.9 of full scale (the generator's step 4)
    assert np.max(np.abs(samples)) == round(0.9 * 32767)
    # speech, not silence: most 10 ms frames carry energy within 40 dB of the loudest
    frames = samples[: samples.size // 160 * 160].reshape(-1, 160).astype(float)
    energy = np.sum(frames ** 2, axis=1)
    assert np.mean(energy > energy.max() * 1e-4) > 0.6


def test_loader_returns_the_file_as_read_only_floats():
    _, samples = wavfile.read(FOLDER / _SPEECH_FILE)
    clip = _load_speech_clip()
    np.testing.assert_array_equal(clip, samples / 32768.0)
    assert clip.dtype == np.float64 and not clip.flags.writeable
    np.testing.assert_array_equal(load_clip("speech"), clip)


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A private copy of data/speech_clip with _DATA_ROOT pointing at it (data/ is untouched)."""
    shutil.copytree(FOLDER, tmp_path / _SPEECH_DATASET, copy_function=shutil.copy)
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    return tmp_path / _SPEECH_DATASET


def test_a_changed_byte_is_caught_on_every_load(data_copy):
    _load_speech_clip()                                   # memoised by content hash
    target = data_copy / _SPEECH_FILE
    before = target.stat()
    raw = bytearray(target.read_bytes())
    raw[1000] ^= 0x01
    target.write_bytes(bytes(raw))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))   # same size, same time
    with pytest.raises(DataError, match="speech.wav is corrupt"):
        _load_speech_clip()


def test_missing_file_or_manifest_raises_data_error(data_copy):
    (data_copy / "SHA256SUMS").unlink()
    with pytest.raises(DataError, match="manifest"):
        _load_speech_clip()
    (data_copy / _SPEECH_FILE).unlink()
    with pytest.raises(DataError, match="missing"):
        _load_speech_clip()
