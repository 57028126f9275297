"""The spoken-digit data sets and their loaders (course_lib.data.digits; the digit pairs are tested
in test_digit_pairs.py)."""

import os
import shutil

import numpy as np
import pytest
from scipy.io import wavfile

import course_lib.data as data
from course_lib.data import DataError, digits as D
from course_lib.features import mfcc_features

EXPECTED_SPLITS = {"train": (0, 20), "dev": (20, 30), "test": (30, 40)}   # README's table


def test_counts_and_sample_rate():
    every = D.load_digits("all")
    assert len(every) == 400 and every.sample_rate == 8000
    phones = D.load_phone_numbers()
    assert len(phones) == 20
    assert all(p.sample_rate == 8000 for p in phones)


def test_splits_are_the_documented_disjoint_speaker_sets():
    seen = {}
    for split, (lo, hi) in EXPECTED_SPLITS.items():
        subset = D.load_digits(split)
        speakers = set(subset.speakers)
        assert speakers == {f"s{i:02d}" for i in range(lo, hi)}
        assert len(subset) == 10 * (hi - lo)
        seen[split] = speakers
    assert not (seen["train"] & seen["dev"] or seen["train"] & seen["test"]
                or seen["dev"] & seen["test"])
    csv_split = {row["speaker"]: row["split"] for row in D._load_speakers()}
    for split, speakers in seen.items():
        assert all(csv_split[s] == split for s in speakers)


def test_order_labels_and_speakers_match_file_names():
    subset = D.load_digits("dev")
    # stable order: speaker, then digit
    np.testing.assert_array_equal(subset.labels, np.tile(np.arange(10), 10))
    np.testing.assert_array_equal(subset.speakers, np.repeat([f"s{i}" for i in range(20, 30)], 10))
    # the waveform at position i is the file named by (speakers[i], WORDS[labels[i]])
    i = 37
    _, raw = wavfile.read(data._DATA_ROOT / "digits" / "isolated" /
                          f"{subset.speakers[i]}_{D.WORDS[subset.labels[i]]}.wav")
    np.testing.assert_array_equal(subset.waveforms[i], raw / 32768.0)


def test_waveforms_are_peak_normalised_floats():
    every = D.load_digits("all")
    peaks = np.array([np.max(np.abs(x)) for x in every.waveforms])
    # the generator scales each utterance to 0.9 of int16 full scale
    np.testing.assert_allclose(peaks, round(0.9 * 32767) / 32768, atol=1 / 32768)
    assert all(x.dtype == np.float64 and x.ndim == 1 for x in every.waveforms)
    durations = np.array([len(x) for x in every.waveforms]) / every.sample_rate
    assert 0.2 < durations.min() and durations.max() < 1.5


def test_phone_numbers_are_heldout_and_well_formed():
    phones = D.load_phone_numbers()
    heldout = {row["speaker"] for row in D._load_speakers() if row["split"] == "heldout"}
    assert {p.speaker for p in phones} == heldout
    assert heldout.isdisjoint(D.SPLITS["all"])
    for p in phones:
        assert 4 <= len(p.digits) <= 7 and all(0 <= d <= 9 for d in p.digits)
        # a connected string lasts longer than any single word
        assert len(p.waveform) / p.sample_rate > 0.9


def test_digit_features_shapes_memoised_and_read_only():
    feats, labels, speakers = D.digit_features("test")
    every = D.load_digits("test")
    np.testing.assert_array_equal(labels, every.labels)
    np.testing.assert_array_equal(speakers, every.speakers)
    assert all(f.shape[1] == 39 for f in feats)
    np.testing.assert_allclose(feats[5], mfcc_features(every.waveforms[5], 8000))
    again, _, _ = D.digit_features("test")
    assert all(a is b for a, b in zip(feats, again))          # memoised, not recomputed
    with pytest.raises(ValueError):
        feats[0][0, 0] = 1.0                                   # cache is protected
    statics, _, _ = D.digit_features("test", deltas=False, cmn=False)
    assert statics[0].shape == (feats[0].shape[0], 13)
    p_feats, p_digits, p_speakers = D.phone_number_features()
    assert len(p_feats) == len(p_digits) == len(p_speakers) == 20
    assert all(f.shape[1] == 39 for f in p_feats)


@pytest.mark.parametrize("dataset, n_files", [("digits", 422), ("digit_pairs", 106)])
def test_manifest_covers_every_file_and_matches(dataset, n_files):
    folder = data._DATA_ROOT / dataset
    manifest = data._read_manifest(dataset)
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert set(manifest) == on_disk - {"README.md", "SHA256SUMS"}
    assert len(manifest) == n_files
    for name, digest in manifest.items():
        assert data._sha256_of(folder / name) == digest


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A private copy of data/digits with _DATA_ROOT pointing at it (data/ is never touched)."""
    shutil.copytree(data._DATA_ROOT / "digits", tmp_path / "digits", copy_function=shutil.copy)
    monkeypatch.setattr(data, "_DATA_ROOT", tmp_path)
    return tmp_path / "digits"


def test_corrupt_wave_raises_data_error(data_copy):
    target = data_copy / "isolated" / "s31_four.wav"
    raw = bytearray(target.read_bytes())
    raw[-1] ^= 0xFF
    target.write_bytes(bytes(raw))
    with pytest.raises(DataError, match="s31_four.wav.*corrupt"):
        D.load_digits("test")
    with pytest.raises(DataError, match="corrupt"):
        D.digit_features("test")
    assert len(D.load_digits("train")) == 200        # the other splits still load


def test_missing_files_raise_data_error(data_copy):
    (data_copy / "connected" / "h02_01.wav").unlink()
    with pytest.raises(DataError, match="missing"):
        D.load_phone_numbers()
    (data_copy / "SHA256SUMS").unlink()
    with pytest.raises(DataError, match="manifest"):
        D._load_speakers()


def test_edited_csv_raises_data_error(data_copy):
    csv_path = data_copy / "speakers.csv"
    csv_path.write_text(csv_path.read_text().replace("s20,dev", "s20,train"))
    with pytest.raises(DataError, match="speakers.csv"):
        D._load_speakers()


def test_checksum_is_verified_on_every_load_not_by_modification_time(data_copy):
    assert len(D.load_digits("test")) == 100
    target = data_copy / "isolated" / "s31_four.wav"
    before = target.stat()
    raw = bytearray(target.read_bytes())
    raw[100] ^= 0x01
    target.write_bytes(bytes(raw))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))   # same size, same time
    assert target.stat().st_mtime_ns == before.st_mtime_ns
    with pytest.raises(DataError, match="s31_four.wav is corrupt"):
        D.load_digits("test")
    with pytest.raises(DataError, match="s31_four.wav is corrupt"):
        D.digit_features("test")


def test_memoised_arrays_follow_the_file_content(data_copy):
    feats, labels, speakers = D.digit_features("test")
    i = int(np.flatnonzero((speakers == "s31") & (labels == D.WORDS.index("four")))[0])
    # a deliberate change with its manifest regenerated, as a contributor would make it
    target = data_copy / "isolated" / "s31_four.wav"
    rate, samples = wavfile.read(target)
    wavfile.write(target, rate, np.ascontiguousarray(samples[::-1]))
    data._write_manifest("digits", list(data._read_manifest("digits")))
    new_feats, _, _ = D.digit_features("test")
    assert new_feats[i].shape == feats[i].shape and not np.allclose(new_feats[i], feats[i])
    np.testing.assert_allclose(new_feats[i], mfcc_features(samples[::-1] / 32768.0, rate))
    np.testing.assert_array_equal(D.load_digits("test").waveforms[i], samples[::-1] / 32768.0)
    assert all(a is b for k, (a, b) in enumerate(zip(feats, new_feats, strict=True)) if k != i)
