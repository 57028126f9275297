"""The Free Spoken Digit Dataset as course data (course_lib.data.fsdd): read from its copy,
every file checked, the speaker table read as data, and the README's statistics true."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from course_lib.data import DataError
from course_lib.data import fsdd

COPY = fsdd._COPY.folder()          # the copy this run reads (COURSE_FSDD in the test command)


def test_every_recording_of_the_release_is_listed_and_loads_in_order():
    features, labels, speakers, takes = fsdd.fsdd_features()
    assert len(features) == 3000 == len(fsdd._COPY.manifest()) - 2
    assert sorted(set(speakers.tolist())) == list(fsdd.SPEAKERS)
    assert np.array_equal(np.bincount(labels), np.full(10, 300))
    assert (labels[:50] == 0).all() and (takes[:50] == np.arange(50)).all()
    assert all(f.shape[1] == 39 and not f.flags.writeable for f in features)


def test_the_readme_statistics_hold():
    recordings = fsdd.load_fsdd()
    seconds = np.array([len(w) for w in recordings.waveforms]) / recordings.sample_rate
    assert recordings.sample_rate == 8000 and len(recordings) == 3000
    assert round(seconds.min(), 2) == 0.14 and round(seconds.max(), 2) == 2.28
    accents = sorted(row["accent"] for row in fsdd.speaker_table().values())
    assert accents == ["BEL/French", "DEU/German", "DEU/German", "GRC/Greek", "USA/neutral",
                       "USA/neutral"]
    assert {row["gender"] for row in fsdd.speaker_table().values()} == {"male"}


def test_one_speaker_the_first_takes_and_bad_arguments():
    assert set(fsdd.load_fsdd("theo").speakers.tolist()) == {"theo"}
    features, labels, speakers, takes = fsdd.fsdd_features(["theo", "lucas"], takes=3)
    assert len(features) == 60 and takes.max() == 2 and set(speakers.tolist()) == {"theo", "lucas"}
    every = fsdd.fsdd_features("theo")[0]
    assert all(np.array_equal(features[k], every[k]) for k in range(3))
    with pytest.raises(ValueError, match="speakers: expected some of"):
        fsdd.fsdd_features(["theo", "alice"])
    with pytest.raises(ValueError, match="takes"):
        fsdd.load_fsdd("theo", takes=51)


def _copy_of_the_copy(tmp_path, monkeypatch):
    shutil.copytree(COPY / fsdd._RELEASE, tmp_path / fsdd._RELEASE)
    monkeypatch.setenv(fsdd._VARIABLE, str(tmp_path))
    return tmp_path / fsdd._RELEASE


def test_a_changed_recording_is_refused_by_name_with_how_to_restore(tmp_path, monkeypatch):
    release = _copy_of_the_copy(tmp_path, monkeypatch)
    changed = release / "recordings" / "7_nicolas_3.wav"
    data = bytearray(changed.read_bytes())
    data[-1] ^= 1
    changed.write_bytes(bytes(data))
    with pytest.raises(DataError) as refused:
        fsdd.fsdd_features("nicolas")
    message = str(refused.value)
    assert "\n" not in message and "7_nicolas_3.wav" in message and "corrupt" in message
    assert "python3 course.py data" in message and fsdd._VARIABLE in message


def test_a_missing_recording_is_refused_by_name(tmp_path, monkeypatch):
    release = _copy_of_the_copy(tmp_path, monkeypatch)
    (release / "recordings" / "0_theo_49.wav").unlink()
    with pytest.raises(DataError, match=r"missing file .*0_theo_49\.wav.*course\.py data"):
        fsdd.load_fsdd("theo")


def test_the_speaker_table_is_read_as_a_literal_never_run(monkeypatch):
    real = fsdd._COPY.read

    def read_as(text):
        def read(name, **options):
            verified = real(name, **options)
            return type(verified)(verified.path, text.encode(), verified.sha256)
        return read

    table = fsdd.speaker_table()
    code = "import os\nos.environ['FSDD_RAN'] = '1'\nmetadata = " + repr(table) + "\n"
    monkeypatch.setattr(fsdd._COPY, "read", read_as(code))
    assert fsdd.speaker_table() == table          # the statements around it are never run
    import os
    assert "FSDD_RAN" not in os.environ
    monkeypatch.setattr(fsdd._COPY, "read", read_as("metadata = dict(theo=1)\n"))
    with pytest.raises(DataError, match="not the speaker table"):
        fsdd.speaker_table()
    monkeypatch.setattr(fsdd._COPY, "read", read_as("metadata = {'theo': {}}\n"))
    with pytest.raises(DataError, match="naming the speakers"):
        fsdd.speaker_table()


def test_the_addresses_are_the_release_commit_with_the_readme_under_its_own_name():
    base = "https://example.org/fsdd"
    assert fsdd._address(base, "v1.0.10/recordings/3_theo_7.wav") == \
        f"{base}/{fsdd._COMMIT}/recordings/3_theo_7.wav"
    assert fsdd._address(base, "v1.0.10/README.fsdd.md") == f"{base}/{fsdd._COMMIT}/README.md"
    with pytest.raises(DataError, match="not a file of release"):
        fsdd._address(base, "v1.0.9/metadata.py")
