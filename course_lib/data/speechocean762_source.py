"""speechocean762's own files: where the course finds them, and how a user's copy is fetched.

The repository keeps only what the course's code computes from the corpus
(``data/speechocean762/README.md`` says why). The corpus's own files that the course reads (the
five experts' scores, the texts and speakers, 26 recordings and the corpus's lexicon, at the
commits the course pins) are found, in this order:

1. in the folder the environment variable ``COURSE_SPEECHOCEAN762`` names (the tests and CI point
   it at a shared copy; a user may point it at any copy);
2. in the user's cache (:func:`_cache_folder`), which ``python3 course.py data`` fills from the
   corpus's public repository (:func:`_fetch`; with the variable set, it fills that folder
   instead: a hub's admin fetches once for the class).

Both hold each file at ``<commit>/<path in the corpus's repository>`` as
``data/speechocean762/CORPUS_SHA256SUMS`` lists it, and every read checks the file against that
list. The download uses the standard library only: every file is checked before it takes its
name (it grows as ``<name>.part`` and is renamed when whole), a broken download resumes with an
HTTP Range request, and every network wait has a time limit.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

from course_lib.data import DataError, _checked_file, _parse_manifest, _read_verified

_DATASET = "speechocean762"
_VARIABLE = "COURSE_SPEECHOCEAN762"
_CORPUS_MANIFEST = "CORPUS_SHA256SUMS"
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
_TIMEOUT_S = 30.0        # for the connection and for each read of a response
_CHUNK = 1 << 16
_ADVICE = (f"run `python3 course.py data` once while connected to the internet, or set "
           f"{_VARIABLE} to a folder holding a copy (see data/speechocean762/README.md)")


def _corpus_manifest() -> dict[str, str]:
    """{file: SHA-256} of the corpus's files the course reads (itself checked by SHA256SUMS)."""
    verified = _read_verified(_DATASET, _CORPUS_MANIFEST, text=True)
    return _parse_manifest(verified.content.decode("utf-8"), str(verified.path))


def _cache_folder() -> Path:
    """The user's cache for the corpus: the platform's cache folder (``XDG_CACHE_HOME`` or
    ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS, ``LOCALAPPDATA`` on Windows)."""
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "speech-judgement-course" / _DATASET


def _corpus_folder() -> Path:
    """The folder :envvar:`COURSE_SPEECHOCEAN762` names, else the cache once it holds every
    file; a :class:`DataError` saying what to do when neither does."""
    named = os.environ.get(_VARIABLE)
    if named:
        return Path(named)
    cache = _cache_folder()
    if all((cache / name).is_file() for name in _corpus_manifest()):
        return cache
    raise DataError(f"speechocean762's own files (scores, texts, recordings) are not on this "
                    f"machine: {_ADVICE}")


def _read_corpus_file(name: str, *, text: bool = False):
    """``name`` of the corpus copy (e.g. ``148498a/dev/text``) as a checked
    :class:`~course_lib.data.VerifiedFile`."""
    expected = _corpus_manifest().get(name)
    if expected is None:
        raise DataError(f"dataset {_DATASET!r}: {name!r} is not listed in {_CORPUS_MANIFEST}")
    folder = _corpus_folder()
    where = f"dataset {_DATASET!r}, the corpus's copy in {folder}"
    path = folder / name
    if not path.is_file():
        raise DataError(f"{where}: missing file {path}; {_ADVICE}")
    return _checked_file(path, expected, text=text, where=where, advice=_ADVICE)


def _sha256_or_none(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _fetch(folder: Path | None = None, base_url: str = _REPOSITORY, *,
           timeout: float = _TIMEOUT_S, out=None) -> list[str]:
    """Bring every file of :func:`_corpus_manifest` into ``folder`` (default: the cache) from
    ``base_url``/<full commit>/<path>; returns the names it downloaded (none when every file
    is there and whole). Progress goes to ``out`` (default: standard error). A
    :class:`DataError` names the file that could not be fetched."""
    out = sys.stderr if out is None else out
    folder = _cache_folder() if folder is None else Path(folder)
    manifest = _corpus_manifest()
    wanted = [name for name, digest in manifest.items()
              if _sha256_or_none(folder / name) != digest]
    for number, name in enumerate(wanted, start=1):
        commit, _, path = name.partition("/")
        url = f"{base_url.rstrip('/')}/{_COMMITS[commit]}/{path}"
        _download(url, folder / name, manifest[name], timeout,
                  _Progress(out, f"[{number}/{len(wanted)}] {name}"))
    return wanted


def _download(url: str, target: Path, digest: str, timeout: float, progress) -> None:
    """``url`` into ``target`` through ``target``.part, resumed where a broken run stopped; the
    part takes the name only when its SHA-256 is ``digest``. A resumed part that fails the check
    is fetched once more from its start (its first bytes may have been the damaged ones)."""
    part = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    resumed = _get(url, part, timeout, progress)
    if resumed and _sha256_or_none(part) != digest:
        part.unlink()
        _get(url, part, timeout, progress)
    actual = _sha256_or_none(part)
    if actual != digest:
        part.unlink()
        raise DataError(f"speechocean762: {url} gave a file whose SHA-256 is {actual[:12]}... "
                        f"but {_CORPUS_MANIFEST} lists {digest[:12]}...; nothing was kept. Run "
                        f"`python3 course.py data` again, or set {_VARIABLE} to a checked copy")
    os.replace(part, target)


def _get(url: str, part: Path, timeout: float, progress) -> bool:
    """Append ``url``'s bytes to ``part`` from its current size on (a Range request; a server
    that answers with the whole file restarts it); True if it resumed."""
    have = part.stat().st_size if part.is_file() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            resumed = have > 0 and response.status == 206
            have = have if resumed else 0
            total = have + int(response.headers.get("Content-Length") or 0)
            with open(part, "ab" if resumed else "wb") as handle:
                while chunk := response.read(_CHUNK):
                    handle.write(chunk)
                    have += len(chunk)
                    progress.show(have, total)
        # http.client ends a read quietly when the connection closes early
        if have < total:
            raise ValueError(f"the connection closed after {have:,} of {total:,} bytes")
    except urllib.error.HTTPError as err:
        if err.code == 416 and have:       # the part is already whole: the check decides
            return True
        raise DataError(f"speechocean762: {url} answered {err.code} {err.reason}; "
                        f"{_ADVICE}") from None
    except (OSError, ValueError) as err:   # refused, unreachable, timed out, cut short
        kept = part.stat().st_size if part.is_file() else 0
        resume = f"the {kept:,} bytes kept resume next time; " if kept else ""
        raise DataError(f"speechocean762: could not download {url} ({err}); {resume}"
                        f"{_ADVICE}") from None
    finally:
        progress.done()
    return resumed


class _Progress:
    """One line per file: its name, a bar and the bytes so far (redrawn in place on a
    terminal; written once, when the file is done, elsewhere)."""

    def __init__(self, out, label: str):
        self.out, self.label, self.line = out, label, ""
        self.live = hasattr(out, "isatty") and out.isatty()

    def show(self, have: int, total: int) -> None:
        filled = round(30 * have / total) if total else 0
        self.line = (f"{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                     f"{have / 1e6:.1f}/{total / 1e6:.1f} MB")
        if self.live:
            print(f"\r{self.line}", end="", file=self.out, flush=True)

    def done(self) -> None:
        if self.line:
            print("\r" + self.line if self.live else self.line, file=self.out, flush=True)


def _main(argv=None) -> int:
    """``python -m course_lib.data.speechocean762_source [--base-url URL]`` (what ``python3
    course.py data`` runs): fill the folder :envvar:`COURSE_SPEECHOCEAN762` names, else the
    user's cache; nothing is requested when every file is there and whole. Offline, one line
    says what to do, and the exit status is 1."""
    parser = argparse.ArgumentParser(description="Fetch speechocean762's own files the course "
                                                 "reads, checked, into the folder "
                                                 f"{_VARIABLE} names, else the user's cache.")
    parser.add_argument("--base-url", default=_REPOSITORY,
                        help="where <full commit>/<path> is served (default: the corpus's "
                             "repository on GitHub)")
    args = parser.parse_args(argv)
    folder = Path(os.environ.get(_VARIABLE) or _cache_folder())
    try:
        fetched = _fetch(folder, args.base_url)
    except DataError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"speechocean762: {len(fetched)} files fetched; every file is in {folder}, checked")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
