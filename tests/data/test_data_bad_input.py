"""Bad-input catalogue: the data loaders (course_lib.data and its data set modules).

Bad arguments must name the argument; a bad file must raise ``DataError`` naming the file (or
the CSV column at fault). File cases run on a private copy of one data set folder, changed as
the case says; "resealed" means the manifest was regenerated after the change, as a contributor
who edits data and reruns the checksums would, so the loader's own parsing is what is tested.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from scipy.io import wavfile

import course_lib.data as data
from bad_input import BadInput, check_case, parametrize
from course_lib.data import DataError, digit_pairs as P, digits as D
from course_lib.data.regression import load_co2, load_mcycle
from course_lib.data.fluency import load_fluency, _utterance_features
from course_lib.data.uci import load_uci


def in_changed_copy(dataset: str, change, load, *, reseal: bool = False, waves: bool = False):
    """A call that copies ``data/<dataset>``, applies ``change(folder)``, then runs ``load()``.

    WAV files are copied only with ``waves`` (the other cases fail before reading audio); with
    ``reseal`` the manifest's entries for the files present are recomputed after the change.
    """
    def call():
        original = data._DATA_ROOT
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / dataset
            shutil.copytree(original / dataset, folder,
                            ignore=None if waves else shutil.ignore_patterns("*.wav"))
            data._DATA_ROOT = Path(tmp)
            try:
                change(folder)
                if reseal:
                    reseal_manifest(folder)
                return load()
            finally:
                data._DATA_ROOT = original
    return call


def reseal_manifest(folder: Path) -> None:
    lines = []
    for line in (folder / data.MANIFEST).read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        if (folder / name).is_file():
            digest = data._sha256_of(folder / name)
        lines.append(f"{digest}  {name}\n")
    (folder / data.MANIFEST).write_text("".join(lines))


def replace_text(name: str, old: str, new: str, count: int = 1):
    """A change replacing ``old`` by ``new`` in ``name`` (which must contain ``old``)."""
    def change(folder: Path):
        path = folder / name
        text = path.read_bytes().decode("utf-8")
        assert old in text, f"{name} has no {old!r}: the case would test nothing"
        path.write_bytes(text.replace(old, new, count).encode("utf-8"))
    return change


def write_bytes(name: str, content: bytes):
    return lambda folder: (folder / name).write_bytes(content)


def flip_byte(name: str):
    def change(folder: Path):
        raw = bytearray((folder / name).read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        (folder / name).write_bytes(bytes(raw))
    return change


def rewrite_wave(name: str, make):
    """A change writing ``make(rate, samples)`` -> (rate, samples) back to the WAV ``name``."""
    def change(folder: Path):
        rate, samples = wavfile.read(folder / name)
        wavfile.write(folder / name, *make(rate, samples))
    return change


def prepend(name: str, text: str):
    return lambda folder: (folder / name).write_bytes(text.encode() + (folder / name).read_bytes())


def delete(name: str):
    return lambda folder: (folder / name).unlink()


def manifest_line(dataset: str, number: int) -> str:
    lines = (data._DATA_ROOT / dataset / data.MANIFEST).read_text().splitlines()
    return lines[number - 1]


WAV = "isolated/s31_four.wav"
PAIR_WAV = "p10_six_four.wav"
FLUENCY_CLIP = "examples/u083.wav"
DIGIT_ROW = manifest_line("digits", 3)
DIGEST, NAME = DIGIT_ROW.split()

CASES = [
    # ---- arguments ----
    BadInput("data: digits unknown split", lambda: D.load_digits("validation"),
             ValueError, "split"),
    BadInput("data: digits split in capitals", lambda: D.digit_features("Train"),
             ValueError, "split"),
    BadInput("data: digits split as int", lambda: D.load_digits(1), TypeError, "split"),
    BadInput("data: digits split as list", lambda: D.load_digits(["train"]), TypeError, "split"),
    BadInput("data: digits split None", lambda: D.digit_features(None), TypeError, "split"),
    BadInput("data: digit_features deltas=1", lambda: D.digit_features("dev", deltas=1),
             TypeError, "deltas"),
    BadInput("data: digit_features cmn as a string", lambda: D.digit_features("dev", cmn="yes"),
             TypeError, "cmn"),
    BadInput("data: phone_number_features deltas None",
             lambda: D.phone_number_features(deltas=None), TypeError, "deltas"),
    BadInput("data: digit pairs unknown split", lambda: P._load_digit_pairs("validation"),
             ValueError, "split"),
    BadInput("data: digit pairs split as bytes", lambda: P.digit_pair_features(b"train"),
             TypeError, "split"),
    BadInput("data: digit pair features cmn as an array",
             lambda: P.digit_pair_features("dev", cmn=np.array([True])), TypeError, "cmn"),
    BadInput("data: digit pair features deltas as a string",
             lambda: P.digit_pair_features("dev", deltas="False"), TypeError, "deltas"),
    # ---- missing, unlisted or changed files ----
    BadInput("data: digits corrupt WAV",
             in_changed_copy("digits", flip_byte(WAV), lambda: D.load_digits("test"), waves=True),
             DataError, "s31_four.wav"),
    BadInput("data: digits missing WAV",
             in_changed_copy("digits", delete(WAV), lambda: D.digit_features("test"), waves=True),
             DataError, "s31_four.wav"),
    BadInput("data: digits WAV not in the manifest",
             in_changed_copy("digits", replace_text("SHA256SUMS", f"  {WAV}\n", f"  {WAV}.old\n"),
                             lambda: D.load_digits("test"), waves=True),
             DataError, "isolated/s31_four.wav"),
    BadInput("data: digits missing manifest",
             in_changed_copy("digits", delete("SHA256SUMS"), D._load_speakers),
             DataError, "SHA256SUMS"),
    BadInput("data: digits edited speakers.csv",
             in_changed_copy("digits", replace_text("speakers.csv", "s20,dev", "s20,train"),
                             D._load_speakers),
             DataError, "speakers.csv"),
    BadInput("data: co2 corrupt CSV",
             in_changed_copy("co2", replace_text("co2_monthly.csv", "316.1", "361.1"), load_co2),
             DataError, "co2_monthly.csv"),
    BadInput("data: mcycle missing CSV",
             in_changed_copy("mcycle", delete("mcycle.csv"), load_mcycle),
             DataError, "mcycle.csv"),
    BadInput("data: digit pairs corrupt WAV",
             in_changed_copy("digit_pairs", flip_byte(PAIR_WAV),
                             lambda: P._load_digit_pairs("test"), waves=True),
             DataError, PAIR_WAV),
    BadInput("data: digit pairs WAV with CRLF line endings (binary files are exact)",
             in_changed_copy("digit_pairs",
                             lambda f: (f / PAIR_WAV).write_bytes(
                                 (f / PAIR_WAV).read_bytes().replace(b"\n", b"\r\n")),
                             lambda: P.digit_pair_features("test"), waves=True),
             DataError, PAIR_WAV),
    BadInput("data: digit pairs missing utterances.csv",
             in_changed_copy("digit_pairs", delete("utterances.csv"),
                             lambda: P._load_digit_pairs("dev")),
             DataError, "utterances.csv"),
    # ---- malformed manifests ----
    BadInput("data: manifest line with only a digest",
             in_changed_copy("digits", replace_text("SHA256SUMS", DIGIT_ROW, DIGEST),
                             D._load_speakers),
             DataError, "SHA256SUMS"),
    BadInput("data: manifest digest too short",
             in_changed_copy("digits", replace_text("SHA256SUMS", DIGIT_ROW, DIGIT_ROW[2:]),
                             D._load_speakers),
             DataError, "SHA256SUMS"),
    BadInput("data: manifest digest not hexadecimal",
             in_changed_copy("digits", replace_text("SHA256SUMS", DIGIT_ROW,
                                                    "g" + DIGIT_ROW[1:]),
                             D._load_speakers),
             DataError, "SHA256SUMS"),
    BadInput("data: manifest one space between digest and name",
             in_changed_copy("digits", replace_text("SHA256SUMS", DIGIT_ROW, f"{DIGEST} {NAME}"),
                             D._load_speakers),
             DataError, "SHA256SUMS"),
    BadInput("data: manifest lists a file twice with two digests",
             in_changed_copy("digits", replace_text("SHA256SUMS", DIGIT_ROW,
                                                    f"{DIGIT_ROW}\n{'0' * 64}  {NAME}"),
                             D._load_speakers),
             DataError, NAME),
    BadInput("data: manifest not UTF-8",
             in_changed_copy("mcycle", write_bytes("SHA256SUMS", b"\xff\xfe\x00garbage"),
                             load_mcycle),
             DataError, "SHA256SUMS"),
    BadInput("data: manifest with a comment line",
             in_changed_copy("co2", prepend("SHA256SUMS", "# checksums\n"), load_co2),
             DataError, "SHA256SUMS"),
    # ---- CSV fields that do not parse (resealed) ----
    BadInput("data: speakers.csv speed_wpm not a number",
             in_changed_copy("digits", replace_text("speakers.csv", ",131,", ",fast,"),
                             D._load_speakers, reseal=True),
             DataError, "speed_wpm"),
    BadInput("data: speakers.csv pitch not whole",
             in_changed_copy("digits", replace_text("speakers.csv", ",131,55,", ",131,55.5,"),
                             D._load_speakers, reseal=True),
             DataError, "pitch"),
    BadInput("data: speakers.csv snr_db nan",
             in_changed_copy("digits", replace_text("speakers.csv", ",17.3\n", ",nan\n"),
                             D._load_speakers, reseal=True),
             DataError, "snr_db"),
    BadInput("data: speakers.csv snr_db empty",
             in_changed_copy("digits", replace_text("speakers.csv", ",17.3\n", ",\n"),
                             D._load_speakers, reseal=True),
             DataError, "snr_db"),
    BadInput("data: speakers.csv row with a field missing",
             in_changed_copy("digits", replace_text("speakers.csv", ",55,17.3\n", ",55\n"),
                             D._load_speakers, reseal=True),
             DataError, "speakers.csv"),
    BadInput("data: speakers.csv header lacks a column",
             in_changed_copy("digits", replace_text("speakers.csv", "snr_db", "snr"),
                             D._load_speakers, reseal=True),
             DataError, "snr_db"),
    BadInput("data: speakers.csv empty",
             in_changed_copy("digits", write_bytes("speakers.csv", b""), D._load_speakers,
                             reseal=True),
             DataError, "speakers.csv"),
    BadInput("data: speakers.csv not UTF-8",
             in_changed_copy("digits", write_bytes("speakers.csv", b"speaker\n\xe9\n"),
                             D._load_speakers, reseal=True),
             DataError, "speakers.csv"),
    BadInput("data: phone_numbers.csv digit is a letter",
             in_changed_copy("digits",
                             replace_text("phone_numbers.csv", ",0 6 9 3 9", ",0 6 x 3 9"),
                             D.load_phone_numbers, reseal=True),
             DataError, "digits"),
    BadInput("data: phone_numbers.csv two-digit number",
             in_changed_copy("digits",
                             replace_text("phone_numbers.csv", ",0 6 9 3 9", ",0 6 93 9"),
                             D.phone_number_features, reseal=True),
             DataError, "digits"),
    BadInput("data: phone_numbers.csv no digits",
             in_changed_copy("digits", replace_text("phone_numbers.csv", ",0 6 9 3 9", ","),
                             D.load_phone_numbers, reseal=True),
             DataError, "digits"),
    BadInput("data: co2_monthly.csv ppm not a number",
             in_changed_copy("co2", replace_text("co2_monthly.csv", "316.1000", "n/a"), load_co2,
                             reseal=True),
             DataError, "co2_ppm"),
    BadInput("data: co2_monthly.csv ppm infinite",
             in_changed_copy("co2", replace_text("co2_monthly.csv", "316.1000", "inf"), load_co2,
                             reseal=True),
             DataError, "co2_ppm"),
    BadInput("data: co2_monthly.csv row with an extra field",
             in_changed_copy("co2", replace_text("co2_monthly.csv", "316.1000,1", "316.1000,1,2"),
                             load_co2, reseal=True),
             DataError, "co2_monthly.csv"),
    BadInput("data: mcycle.csv acceleration empty",
             in_changed_copy("mcycle", replace_text("mcycle.csv", "2.4,0\n", "2.4,\n"),
                             load_mcycle, reseal=True),
             DataError, "accel_g"),
    BadInput("data: digit pairs speakers.csv split moved",
             in_changed_copy("digit_pairs", replace_text("speakers.csv", "p07,dev", "p07,test"),
                             P._load_speakers, reseal=True),
             DataError, "speakers.csv"),
    BadInput("data: digit pairs unknown words",
             in_changed_copy("digit_pairs", replace_text("utterances.csv", ",one two,",
                                                         ",one one,"),
                             lambda: P._load_digit_pairs("train"), reseal=True),
             DataError, "words"),
    BadInput("data: digit pairs utterance listed twice",
             in_changed_copy("digit_pairs", replace_text("utterances.csv", "p00,two one",
                                                         "p00,one two"),
                             lambda: P.digit_pair_features("test"), reseal=True),
             DataError, "utterances.csv"),
    # ---- WAV files that are not what the loader expects (resealed) ----
    BadInput("data: digits truncated WAV",
             in_changed_copy("digits", lambda f: (f / WAV).write_bytes((f / WAV).read_bytes()[:30]),
                             lambda: D.load_digits("test"), reseal=True, waves=True),
             DataError, "s31_four.wav"),
    BadInput("data: digits WAV at the wrong sample rate",
             in_changed_copy("digits", rewrite_wave(WAV, lambda rate, x: (16000, x)),
                             lambda: D.digit_features("test"), reseal=True, waves=True),
             DataError, "s31_four.wav"),
    BadInput("data: digit pairs stereo WAV",
             in_changed_copy("digit_pairs",
                             rewrite_wave(PAIR_WAV, lambda rate, x: (rate, np.stack([x, x], 1))),
                             lambda: P._load_digit_pairs("test"), reseal=True, waves=True),
             DataError, PAIR_WAV),
    BadInput("data: digit pairs float WAV",
             in_changed_copy("digit_pairs",
                             rewrite_wave(PAIR_WAV, lambda rate, x: (rate, x / 32768.0)),
                             lambda: P.digit_pair_features("test"), reseal=True, waves=True),
             DataError, PAIR_WAV),
    # ---- the UCI regression tables ----
    BadInput("data: uci unknown name", lambda: load_uci("boston"), ValueError, "name"),
    BadInput("data: uci name as a number", lambda: load_uci(1), TypeError, "name"),
    BadInput("data: uci name None", lambda: load_uci(None), TypeError, "name"),
    BadInput("data: uci corrupt CSV",
             in_changed_copy("uci", replace_text("housing.csv", "0.00632,18,", "0.00632,81,"),
                             lambda: load_uci("housing")),
             DataError, "housing.csv"),
    BadInput("data: uci missing CSV",
             in_changed_copy("uci", delete("concrete.csv"), lambda: load_uci("concrete")),
             DataError, "concrete.csv"),
    BadInput("data: uci horsepower '?' (the UCI file's missing value)",
             in_changed_copy("uci", replace_text("auto_mpg.csv", "8,307.0,130,", "8,307.0,?,"),
                             lambda: load_uci("auto_mpg"), reseal=True),
             DataError, "horsepower"),
    BadInput("data: uci target nan",
             in_changed_copy("uci", replace_text("concrete.csv", ",28,79.99\n", ",28,nan\n"),
                             lambda: load_uci("concrete"), reseal=True),
             DataError, "strength"),
    BadInput("data: uci header lacks the target",
             in_changed_copy("uci", replace_text("housing.csv", ",medv\n", ",price\n"),
                             lambda: load_uci("housing"), reseal=True),
             DataError, "medv"),
    BadInput("data: uci a row missing",
             in_changed_copy("uci", replace_text("housing.csv",
                                                 "0.00632,18,2.31,0,0.538,6.575,65.2,4.09,1,296,"
                                                 "15.3,4.98,24\n", ""),
                             lambda: load_uci("housing"), reseal=True),
             DataError, "housing.csv"),
    # ---- the fluency set: its feature function and its files ----
    BadInput("data: _utterance_features silent signal",
             lambda: _utterance_features(np.zeros(8000), 8000, 4), ValueError, "samples"),
    BadInput("data: _utterance_features shorter than a frame",
             lambda: _utterance_features(np.ones(50), 8000, 4), ValueError, "samples"),
    BadInput("data: _utterance_features NaN sample",
             lambda: _utterance_features(np.r_[np.ones(800), np.nan], 8000, 4), ValueError,
             "samples"),
    BadInput("data: _utterance_features 2-D samples",
             lambda: _utterance_features(np.ones((2, 800)), 8000, 4), ValueError, "samples"),
    BadInput("data: _utterance_features no words",
             lambda: _utterance_features(np.ones(800), 8000, 0), ValueError, "n_words"),
    BadInput("data: _utterance_features words as a float",
             lambda: _utterance_features(np.ones(800), 8000, 4.0), TypeError, "n_words"),
    BadInput("data: _utterance_features sample rate as a string",
             lambda: _utterance_features(np.ones(800), "8000", 4), TypeError, "sample_rate"),
    BadInput("data: fluency corrupt scores.csv",
             in_changed_copy("fluency", replace_text("scores.csv", "\n0,1,7\n", "\n0,1,8\n"),
                             load_fluency),
             DataError, "scores.csv"),
    BadInput("data: fluency missing features.csv",
             in_changed_copy("fluency", delete("features.csv"), load_fluency),
             DataError, "features.csv"),
    BadInput("data: fluency corrupt example clip",
             in_changed_copy("fluency", flip_byte(FLUENCY_CLIP),
                             lambda: load_fluency().example_audio(), waves=True),
             DataError, FLUENCY_CLIP),
    BadInput("data: fluency score above the scale",
             in_changed_copy("fluency", replace_text("scores.csv", "\n0,1,7\n", "\n0,1,11\n"),
                             load_fluency, reseal=True),
             DataError, "score"),
    BadInput("data: fluency score not whole",
             in_changed_copy("fluency", replace_text("scores.csv", "\n0,1,7\n", "\n0,1,7.5\n"),
                             load_fluency, reseal=True),
             DataError, "score"),
    BadInput("data: fluency unknown rater",
             in_changed_copy("fluency", replace_text("scores.csv", "\n0,1,7\n", "\n0,5,7\n"),
                             load_fluency, reseal=True),
             DataError, "rater"),
    BadInput("data: fluency a rater scores an item twice",
             in_changed_copy("fluency", replace_text("scores.csv", "\n0,1,7\n", "\n0,0,7\n"),
                             load_fluency, reseal=True),
             DataError, "scores.csv"),
    BadInput("data: fluency an item without labels",
             in_changed_copy("fluency", replace_text("scores.csv", "\n0,0,10\n0,1,7\n0,2,10\n"
                                                     "0,3,7\n0,4,6\n", "\n"),
                             load_fluency, reseal=True),
             DataError, "scores.csv"),
    BadInput("data: fluency unknown split",
             in_changed_copy("fluency", replace_text("utterances.csv", ",7,train,7.8942\n",
                                                     ",7,dev,7.8942\n"),
                             load_fluency, reseal=True),
             DataError, "split"),
    BadInput("data: fluency malformed breaks",
             in_changed_copy("fluency", replace_text("utterances.csv", ",3:631,", ",3-631,"),
                             load_fluency, reseal=True),
             DataError, "breaks"),
    BadInput("data: fluency n_breaks disagrees with breaks",
             in_changed_copy("fluency", replace_text("utterances.csv", ",33,1,3:631,",
                                                     ",33,2,3:631,"),
                             load_fluency, reseal=True),
             DataError, "utterances.csv"),
    BadInput("data: fluency feature nan",
             in_changed_copy("fluency", replace_text("features.csv", "\n0,1.88725,", "\n0,nan,"),
                             load_fluency, reseal=True),
             DataError, "duration_s"),
    BadInput("data: fluency features row missing",
             in_changed_copy("fluency", replace_text("features.csv", "\n0,1.88725,", "\n"
                                                     "1000,1.88725,"),
                             load_fluency, reseal=True),
             DataError, "features.csv"),
    BadInput("data: fluency example of an unknown item",
             in_changed_copy("fluency", replace_text("examples.csv", "\n266,", "\n9266,"),
                             lambda: load_fluency().example_audio(), reseal=True),
             DataError, "examples.csv"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


# The catalogue checks one name per message; these check that the whole location is given.

def test_a_field_that_does_not_parse_names_file_line_and_column():
    # line 3 of speakers.csv is "s01,train,en-029,m4,150,43,17.6"
    load = in_changed_copy("digits", replace_text("speakers.csv", ",150,43,", ",150,high,"),
                           D._load_speakers, reseal=True)
    with pytest.raises(DataError, match=r"speakers\.csv, line 3, column 'pitch': not a whole "
                                        r"number, got 'high'"):
        load()


def test_a_nan_field_is_an_error_not_a_nan():
    load = in_changed_copy("mcycle", replace_text("mcycle.csv", "2.4,0\n", "2.4,NaN\n"),
                           load_mcycle, reseal=True)
    with pytest.raises(DataError, match=r"mcycle\.csv, line 2, column 'accel_g': not a finite "
                                        r"number, got 'NaN'"):
        load()


def test_a_malformed_manifest_line_names_the_manifest_and_the_line():
    load = in_changed_copy("digits", replace_text("SHA256SUMS", DIGIT_ROW, "oops"),
                           D._load_speakers)
    with pytest.raises(DataError, match=r"digits[/\\]SHA256SUMS, line 3: expected .*got 'oops'"):
        load()


def test_a_corrupt_file_names_the_data_set_and_how_to_restore_it():
    load = in_changed_copy("co2", replace_text("co2_monthly.csv", "316.1", "361.1"), load_co2)
    with pytest.raises(DataError) as info:
        load()
    message = str(info.value)
    assert "co2_monthly.csv is corrupt" in message
    assert "git -C" in message and "checkout -- ." in message and "README.md" in message
