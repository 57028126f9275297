"""The Free Spoken Digit Dataset (FSDD, release v1.0.10): real voices for Units 1-3.

Six speakers (all male; accents USA neutral x2, Belgian French, German x2, Greek) each say the
ten digits 50 times: 3,000 recordings, 8 kHz mono 16-bit, the format of the course's synthetic
digits (:mod:`course_lib.data.digits`). The dataset is its contributors' (CC BY-SA 4.0; cite it as
``data/fsdd/README.md`` says); the repository keeps none of its files. They are read from a copy
(:class:`~course_lib.data._corpus_copy._CorpusCopy`): the folder ``COURSE_FSDD`` names (the tests
and CI: ``../shared/data/fsdd``), else the user's cache, which ``python3 course.py data`` fills
from the dataset's public repository at the release's commit. Every file is checked against
``data/fsdd/CORPUS_SHA256SUMS`` on every load, so a missing or changed recording is refused in
one line naming it.

**The split is by speaker** (``data/fsdd/README.md``): a recogniser is measured on a speaker it
never heard, leaving each speaker out in turn (:func:`course_lib.recognition.speaker_folds`).
The speaker table is the dataset's own ``metadata.py``, read as data (the literal value of its
one assignment), never imported.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

import numpy as np

from course_lib.data import DataError
from course_lib.data._corpus_copy import _CorpusCopy
from course_lib.data.wav import _decode, _features_of
from course_lib.validation import as_bool, as_positive_int

_DATASET = "fsdd"
_VARIABLE = "COURSE_FSDD"
_RELEASE = "v1.0.10"
# the release's tag points at this commit (2020-08-12); the files are served by commit
_COMMIT = "d6938f9bf1545aa66d8489fc9f1385a7abd64282"
_REPOSITORY = "https://raw.githubusercontent.com/Jakobovski/free-spoken-digit-dataset"
_SAMPLE_RATE = 8000
# the copy keeps the dataset's README beside ours under another name
_RENAMED = {"README.fsdd.md": "README.md"}
SPEAKERS = ("george", "jackson", "lucas", "nicolas", "theo", "yweweler")
TAKES = 50
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _address(base_url: str, name: str) -> str:
    release, _, path = name.partition("/")
    if release != _RELEASE:
        raise DataError(f"dataset {_DATASET!r}: {name!r} is not a file of release {_RELEASE}")
    return f"{base_url}/{_COMMIT}/{_RENAMED.get(path, path)}"


# 3,000 small files: one progress line per 250 off a terminal
_COPY = _CorpusCopy(_DATASET, _VARIABLE, "The Free Spoken Digit Dataset's recordings",
                    _REPOSITORY, _address, lines_per_file=250)


@dataclass(frozen=True)
class RealDigitSet:
    """FSDD recordings in stable order (speaker, then digit, then take).

    ``waveforms[i]`` is float64 in [-1, 1) (int16 / 32768, read-only), ``labels[i]`` in 0..9
    indexes :data:`WORDS`, ``speakers[i]`` is e.g. "nicolas", ``takes[i]`` in 0..49.
    """

    waveforms: list[np.ndarray]
    labels: np.ndarray
    speakers: np.ndarray
    takes: np.ndarray
    sample_rate: int

    def __len__(self) -> int:
        return len(self.waveforms)


def _recording(speaker: str, digit: int, take: int) -> str:
    return f"{_RELEASE}/recordings/{digit}_{speaker}_{take}.wav"


def _items(speakers, takes=None) -> list[tuple[str, int, str, int]]:
    n_takes = TAKES if takes is None else as_positive_int(takes, "takes", maximum=TAKES)
    if speakers is None:
        chosen = SPEAKERS
    else:
        if isinstance(speakers, str):
            speakers = (speakers,)
        chosen = tuple(speakers)
        unknown = [s for s in chosen if s not in SPEAKERS]
        if unknown or not chosen:
            raise ValueError(f"speakers: expected some of {list(SPEAKERS)}, got {list(chosen)}")
    return [(_recording(s, d, k), d, s, k) for s in chosen for d in range(10)
            for k in range(n_takes)]


def _checked(items):
    manifest = _COPY.manifest()        # read once for the 3,000 files, not once per file
    return [_COPY.read(name, manifest=manifest) for name, *_ in items]


def _columns(items):
    return (np.array([d for _, d, _, _ in items], dtype=np.int64),
            np.array([s for _, _, s, _ in items]),
            np.array([k for _, _, _, k in items], dtype=np.int64))


def load_fsdd(speakers=None, *, takes: int | None = None) -> RealDigitSet:
    """The recordings of ``speakers`` (one name or several; default all six), by speaker, digit,
    take; only the first ``takes`` takes of each digit when given (a quick look reads fewer
    files)."""
    items = _items(speakers, takes)
    labels, who, takes = _columns(items)
    return RealDigitSet([_decode(f, _SAMPLE_RATE) for f in _checked(items)], labels, who, takes,
                        _SAMPLE_RATE)


def fsdd_features(speakers=None, *, takes: int | None = None, deltas: bool = True,
                  cmn: bool = True) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """MFCC features of :func:`load_fsdd` (speakers, takes): (features, labels, speakers, takes).

    The front end of :func:`course_lib.data.digits.digit_features`: ``features[i]`` is (T_i, 39)
    with deltas or (T_i, 13) without, per-utterance mean removed when ``cmn``; memoised by each
    file's content, read-only.
    """
    deltas, cmn = as_bool(deltas, "deltas"), as_bool(cmn, "cmn")
    items = _items(speakers, takes)
    features = [_features_of(f, _SAMPLE_RATE, deltas=deltas, cmn=cmn) for f in _checked(items)]
    return (features, *_columns(items))


def speaker_table() -> dict[str, dict[str, str]]:
    """The dataset's speaker table, ``{speaker: {"gender", "accent", "language"}}``, read from its
    ``metadata.py`` as a literal (the file is never imported or run)."""
    verified = _COPY.read(f"{_RELEASE}/metadata.py", text=True)
    where = f"dataset {_DATASET!r}: {verified.path}"
    try:
        tree = ast.parse(verified.content.decode("utf-8"))
        values = [node.value for node in tree.body if isinstance(node, ast.Assign)
                  and [getattr(t, "id", None) for t in node.targets] == ["metadata"]]
        table = ast.literal_eval(values[0]) if len(values) == 1 else None
    except (SyntaxError, ValueError, UnicodeDecodeError) as err:
        raise DataError(f"{where}: not the speaker table the course reads ({err})") from None
    if not isinstance(table, dict) or sorted(table) != sorted(SPEAKERS):
        raise DataError(f"{where}: expected one assignment 'metadata = {{...}}' naming the "
                        f"speakers {list(SPEAKERS)}")
    return {s: dict(table[s]) for s in SPEAKERS}


def _main(argv=None) -> int:
    """``python -m course_lib.data.fsdd [--base-url URL]`` (part of ``python3 course.py data``)."""
    return _COPY.main(argv, module="course_lib.data.fsdd")


if __name__ == "__main__":
    sys.exit(_main())
