"""speechocean762's own files: where the course finds them, and how a user's copy is fetched.

The repository keeps only what the course's code computes from the corpus
(``data/speechocean762/README.md`` says why). The corpus's own files that the course reads (the
five experts' scores, the texts and speakers, 26 recordings and the corpus's lexicon, at the
commits the course pins) are found, in this order:

1. in the folder the environment variable ``COURSE_SPEECHOCEAN762`` names (the tests and CI point
   it at a shared copy; a user may point it at any copy);
2. in the user's cache, which ``python3 course.py data`` fills from the corpus's public
   repository (:func:`_fetch`; with the variable set, it fills that folder instead: a hub's
   admin fetches once for the class).

Both hold each file at ``<commit>/<path in the corpus's repository>`` as
``data/speechocean762/CORPUS_SHA256SUMS`` lists it, and every read checks the file against that
list. Finding, checking and fetching the copy is the work of
:class:`~course_lib.data._corpus_copy._CorpusCopy`, shared with the Free Spoken Digit Dataset.
"""

from __future__ import annotations

import sys
from pathlib import Path

from course_lib.data import VerifiedFile
from course_lib.data._corpus_copy import _CorpusCopy, _sha256_or_none  # noqa: F401 (tests use it)

_DATASET = "speechocean762"
_VARIABLE = "COURSE_SPEECHOCEAN762"
_CORPUS_MANIFEST = _CorpusCopy.MANIFEST
# The corpus's revision with five experts for every sentence (the README says why), and its
# folder for each of the course's splits; the corpus's lexicon arrived later (03a1d16). Every
# sentence's record holds the five experts' whole scores 0-10.
_COMMIT = "148498a"
_CORPUS_SPLITS = {"train": "dev", "test": "test"}
_LEXICON = "03a1d16/resource/lexicon.txt"
_N_RATERS = 5
_SCALE = (0, 10)
# raw.githubusercontent.com serves <commit>/<path> under this address
_REPOSITORY = "https://raw.githubusercontent.com/jimbozhang/speechocean762"
# the folders of the copy are the short commits; the addresses take the full ones
_COMMITS = {"148498a": "148498a200e446fb6350baa2ecdd0521e31ea9c3",
            "03a1d16": "03a1d16d66d8c073da195ffbb525944872f6ae6f"}


def _address(base_url: str, name: str) -> str:
    commit, _, path = name.partition("/")
    return f"{base_url}/{_COMMITS[commit]}/{path}"


_COPY = _CorpusCopy(_DATASET, _VARIABLE,
                    "speechocean762's own files (scores, texts, recordings)", _REPOSITORY,
                    _address)


def _corpus_manifest() -> dict[str, str]:
    """{file: SHA-256} of the corpus's files the course reads (itself checked by SHA256SUMS)."""
    return _COPY.manifest()


def _corpus_folder() -> Path:
    """The folder :envvar:`COURSE_SPEECHOCEAN762` names, else the cache once it holds every
    file; a :class:`DataError` saying what to do when neither does."""
    return _COPY.folder()


def _read_corpus_file(name: str, *, text: bool = False) -> VerifiedFile:
    """``name`` of the corpus copy (e.g. ``148498a/dev/text``) as a checked
    :class:`~course_lib.data.VerifiedFile`."""
    return _COPY.read(name, text=text)


def _fetch(folder: Path | None = None, base_url: str = _REPOSITORY, **options) -> list[str]:
    """Every file of :func:`_corpus_manifest` into ``folder`` (default: the cache), checked
    (:meth:`_CorpusCopy.fetch`)."""
    return _COPY.fetch(folder, base_url, **options)


def _main(argv=None) -> int:
    """``python -m course_lib.data.speechocean762_source [--base-url URL]``."""
    return _COPY.main(argv, module="course_lib.data.speechocean762_source")


if __name__ == "__main__":
    sys.exit(_main())
