"""Every data set loads from a Windows-style checkout (Git's ``core.autocrlf=true``).

Three checkouts are tried: a real clone of the repository's last commit with autocrlf on (the
repository's ``.gitattributes`` keeps the data files byte for byte); the same clone with that
file overruled, which is what a Windows clone looked like before the file existed (every CSV and
SHA256SUMS with CRLF); and a CRLF copy of the working tree's ``data/`` (covers data sets not
committed yet). The loaders must give the same values from all of them, and the advice of a
"corrupt" error, followed literally in such a checkout, must repair it.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import course_lib.data as data
from course_lib.data import DataError
from course_lib.data import digit_pairs as P
from course_lib.data import digits as D
from course_lib.data import fsdd
from course_lib.data.fluency import load_fluency
from course_lib.data.regression import load_co2, load_mcycle
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.data.uci import _NAMES as UCI_NAMES, load_uci
from course_lib.stimuli import _load_speech_clip

ROOT = Path(__file__).resolve().parents[2]
LOADED_DATASETS = {"digits", "digit_pairs", "co2", "mcycle", "uci", "fluency", "speech_clip",
                   "speechocean762", "fsdd"}


@contextlib.contextmanager
def data_root(root: Path):
    """Point course_lib.data at ``root`` (a folder holding data set folders) for a while."""
    original = data._DATA_ROOT
    data._DATA_ROOT = root
    try:
        yield
    finally:
        data._DATA_ROOT = original


def load_every_dataset(root: Path) -> dict[str, object]:
    """What every loader returns from ``root``, as arrays and plain rows."""
    with data_root(root):
        digits, pairs = D.load_digits("all"), P._load_digit_pairs("all")
        phones = D.load_phone_numbers()
        fluency = load_fluency()
        panel = load_speechocean762("fluency")
        return {
            "digits/speakers": D._load_speakers(),
            "digits/waveforms": np.concatenate(digits.waveforms),
            "digits/labels": (digits.labels, digits.speakers),
            "digits/features": np.vstack(D.digit_features("dev")[0]),
            "digits/phone_waveforms": np.concatenate([p.waveform for p in phones]),
            "digits/phone_digits": [p.digits for p in phones],
            "digit_pairs/speakers": P._load_speakers(),
            "digit_pairs/waveforms": np.concatenate(pairs.waveforms),
            "digit_pairs/labels": (pairs.labels, pairs.speakers),
            "co2": load_co2(),
            "mcycle": load_mcycle(),
            **{f"uci/{name}": (load_uci(name).X, load_uci(name).y) for name in UCI_NAMES},
            "fluency/features": (fluency.features, fluency.truth, fluency.train, fluency.test),
            "fluency/ratings": (fluency.ratings.items, fluency.ratings.raters,
                                fluency.ratings.scores),
            "fluency/controls": tuple(fluency.controls.values()),
            "fluency/texts": [fluency.texts, fluency.voices],
            "fluency/examples": tuple(clip.samples for clip in fluency.example_audio()),
            "speech_clip": _load_speech_clip(),
            "speechocean762/panel": (panel.features, panel.ratings.items, panel.ratings.raters,
                                     panel.ratings.scores, panel.texts, panel.speakers),
            "speechocean762/clips": tuple(clip.samples for clip in
                                          panel.example_audio() + panel.clips_to_rate()),
            "fluency/clips_to_rate": tuple(clip.samples for clip in fluency.clips_to_rate()),
            # the list of the dataset's files this folder keeps; the files are the copy's
            "fsdd/manifest": sorted(fsdd._COPY.manifest().items()),
            "fsdd/features": np.vstack(fsdd.fsdd_features("theo", takes=2)[0]),
        }


def assert_same_values(found: dict, expected: dict) -> None:
    assert found.keys() == expected.keys()
    for key in expected:
        a, b = found[key], expected[key]
        if isinstance(b, list):                        # CSV rows, digit sequences
            assert a == b, key
        else:
            for x, y in zip(a if isinstance(a, tuple) else (a,),
                            b if isinstance(b, tuple) else (b,), strict=True):
                np.testing.assert_array_equal(x, y, err_msg=key)


def git(*args: str, cwd: Path | None = None) -> str:
    if shutil.which("git") is None:
        pytest.fail("git is not installed; these tests clone the course repository")
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(f"git {' '.join(args)} failed (is {ROOT} a git clone of the course?):\n"
                    f"{result.stderr}")
    return result.stdout


def windows_clone(target: Path, *, with_gitattributes: bool) -> Path:
    """A clone of the last commit, checked out with core.autocrlf=true (Git for Windows' default).

    Without the repository's .gitattributes means as a clone made before that file existed:
    ``$GIT_DIR/info/attributes`` outranks it, and "* text=auto" leaves Git its own guess of
    which files are text (every CSV and SHA256SUMS; no WAV, since they hold NUL bytes).
    """
    git("clone", "--quiet", "--no-checkout", "-c", "core.autocrlf=true", str(ROOT), str(target))
    if not with_gitattributes:
        (target / ".git" / "info").mkdir(exist_ok=True)
        (target / ".git" / "info" / "attributes").write_text("* text=auto\n")
    git("reset", "--quiet", "--hard", "HEAD", cwd=target)
    return target


def text_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix == ".csv" or p.name == data.MANIFEST)


@pytest.fixture(scope="module")
def lf_clone(tmp_path_factory) -> Path:
    return windows_clone(tmp_path_factory.mktemp("with_gitattributes") / "course",
                         with_gitattributes=True)


@pytest.fixture(scope="module")
def crlf_clone(tmp_path_factory) -> Path:
    return windows_clone(tmp_path_factory.mktemp("without_gitattributes") / "course",
                         with_gitattributes=False)


def test_every_data_set_is_loaded_by_these_tests():
    folders = {p.name for p in (ROOT / "data").iterdir() if p.is_dir()}
    assert folders == LOADED_DATASETS, "add the new data set to load_every_dataset"


def test_gitattributes_keep_data_files_byte_for_byte(lf_clone):
    folders = sorted(p for p in (lf_clone / "data").iterdir() if p.is_dir())
    assert {p.name for p in folders} == LOADED_DATASETS
    for folder in folders:
        with data_root(lf_clone / "data"):
            manifest = data._read_manifest(folder.name)
        for name, digest in manifest.items():
            assert data._sha256_of(folder / name) == digest, f"{folder.name}/{name} was converted"
    assert all(b"\r\n" not in p.read_bytes() for p in text_files(lf_clone / "data"))


def test_clone_without_gitattributes_has_crlf_and_loads_the_same(lf_clone, crlf_clone):
    converted = text_files(crlf_clone / "data")
    assert len(converted) >= 2 * len(LOADED_DATASETS)       # a CSV and a manifest per set
    assert all(b"\r\n" in p.read_bytes() for p in converted), "the checkout kept LF endings"
    for wav in (crlf_clone / "data").rglob("*.wav"):         # binary files stay untouched
        assert wav.read_bytes() == (lf_clone / wav.relative_to(crlf_clone)).read_bytes()
    assert_same_values(load_every_dataset(crlf_clone / "data"),
                       load_every_dataset(lf_clone / "data"))


def test_crlf_copy_of_the_working_tree_loads_the_same(tmp_path):
    copy = tmp_path / "data"
    shutil.copytree(ROOT / "data", copy)
    converted = 0
    for path in copy.rglob("*"):
        raw = path.read_bytes() if path.is_file() else b"\0"
        if b"\0" not in raw[:8000]:                          # Git's test for a text file
            path.write_bytes(raw.replace(b"\n", b"\r\n"))
            converted += 1
    assert converted >= 3 * len(LOADED_DATASETS)             # README, CSV, manifest per set
    assert_same_values(load_every_dataset(copy), load_every_dataset(ROOT / "data"))


def run_advice(message: str) -> None:
    """Run the git command a DataError message advises, exactly as written."""
    commands = re.findall(r"`(git [^`]+)`", message)
    assert len(commands) == 1, f"expected one git command in {message!r}"
    subprocess.run(shlex.split(commands[0]), check=True, capture_output=True)


@pytest.mark.parametrize("with_gitattributes", [True, False])
def test_the_advice_of_a_corrupt_error_repairs_a_windows_checkout(tmp_path, lf_clone,
                                                                 with_gitattributes):
    clone = windows_clone(tmp_path / "course", with_gitattributes=with_gitattributes)
    speakers = clone / "data" / "digits" / "speakers.csv"
    speakers.write_bytes(speakers.read_bytes().replace(b"s20,dev", b"s20,train"))
    wave = clone / "data" / "digit_pairs" / "p10_six_four.wav"
    wave.write_bytes(wave.read_bytes()[:-2])
    with data_root(clone / "data"):
        with pytest.raises(DataError, match="speakers.csv is corrupt") as speakers_error:
            D._load_speakers()
        with pytest.raises(DataError, match="p10_six_four.wav is corrupt") as wave_error:
            P._load_digit_pairs("test")
    run_advice(str(speakers_error.value))
    run_advice(str(wave_error.value))
    assert_same_values(load_every_dataset(clone / "data"), load_every_dataset(lf_clone / "data"))
