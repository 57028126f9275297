"""A copy of another project's corpus: where the course finds it, how it is checked, and how a
user's copy is fetched (speechocean762, the Free Spoken Digit Dataset).

The repository keeps none of another project's files (``docs/CONVENTIONS.md``, section 9). A
data set of ``data/`` that reads such a corpus lists the corpus's files it reads, by path and
SHA-256, in its ``CORPUS_SHA256SUMS`` (itself checked by the data set's ``SHA256SUMS``), and a
:class:`_CorpusCopy` finds them, in this order:

1. in the folder an environment variable names (the tests and CI point it at the shared copy
   beside the repository; a user or a hub's admin may point it at any copy);
2. in the user's cache (:meth:`_CorpusCopy.cache_folder`), which ``python3 course.py data`` fills
   from the corpus's public repository (:meth:`_CorpusCopy.fetch`; with the variable set it fills
   that folder instead).

Every read checks the file against the list. The download uses the standard library only: a
file grows as ``<name>.part`` and takes its name only once its SHA-256 is the listed one, a
broken download resumes with an HTTP Range request, and every network wait has a time limit.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from course_lib.data import DataError, VerifiedFile, _checked_file, _parse_manifest, _read_verified

_TIMEOUT_S = 30.0        # for the connection and for each read of a response
_CHUNK = 1 << 16


def _sha256_or_none(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


class _CorpusCopy:
    """One corpus the course reads from a copy outside the repository.

    dataset : the folder of ``data/`` whose ``CORPUS_SHA256SUMS`` lists the corpus's files.
    variable : the environment variable that names a copy.
    what : the files in a few words, for the message that none is on this machine.
    base_url : where the corpus's public repository serves its files.
    address : ``(base_url, name) -> URL`` of one listed file.
    lines_per_file : progress lines written off a terminal: one per file (1), or one per this
        many files (a corpus of thousands of small files).
    """

    MANIFEST = "CORPUS_SHA256SUMS"

    def __init__(self, dataset: str, variable: str, what: str, base_url: str,
                 address: Callable[[str, str], str], lines_per_file: int = 1):
        self.dataset, self.variable, self.what = dataset, variable, what
        self.base_url, self.address, self.lines_per_file = base_url, address, lines_per_file
        self.advice = (f"run `python3 course.py data` once while connected to the internet, or "
                       f"set {variable} to a folder holding a copy (see data/{dataset}/README.md)")

    def manifest(self) -> dict[str, str]:
        """{file: SHA-256} of the corpus's files the course reads (checked by SHA256SUMS)."""
        verified = _read_verified(self.dataset, self.MANIFEST, text=True)
        return _parse_manifest(verified.content.decode("utf-8"), str(verified.path))

    def cache_folder(self) -> Path:
        """The user's cache for the corpus: the platform's cache folder (``XDG_CACHE_HOME`` or
        ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS, ``LOCALAPPDATA`` on Windows)."""
        if os.name == "nt":
            base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return base / "speech-judgement-course" / self.dataset

    def folder(self) -> Path:
        """The folder the variable names, else the cache once it holds every file; a
        :class:`DataError` saying what to do when neither does."""
        named = os.environ.get(self.variable)
        if named:
            return Path(named)
        cache = self.cache_folder()
        if all((cache / name).is_file() for name in self.manifest()):
            return cache
        raise DataError(f"{self.what} are not on this machine: {self.advice}")

    def read(self, name: str, *, text: bool = False,
             manifest: dict[str, str] | None = None) -> VerifiedFile:
        """``name`` of the copy (a path the manifest lists) as a checked
        :class:`~course_lib.data.VerifiedFile`; pass ``manifest`` when reading many files."""
        expected = (self.manifest() if manifest is None else manifest).get(name)
        if expected is None:
            raise DataError(f"dataset {self.dataset!r}: {name!r} is not listed in "
                            f"{self.MANIFEST}")
        folder = self.folder()
        where = f"dataset {self.dataset!r}, the corpus's copy in {folder}"
        path = folder / name
        if not path.is_file():
            raise DataError(f"{where}: missing file {path}; {self.advice}")
        return _checked_file(path, expected, text=text, where=where, advice=self.advice)

    def fetch(self, folder: Path | None = None, base_url: str | None = None, *,
              timeout: float = _TIMEOUT_S, out=None) -> list[str]:
        """Bring every listed file into ``folder`` (default: the cache) from ``base_url``
        (default: the corpus's repository); returns the names it downloaded (none when every
        file is there and whole). Progress goes to ``out`` (default: standard error). A
        :class:`DataError` names the file that could not be fetched."""
        out = sys.stderr if out is None else out
        folder = self.cache_folder() if folder is None else Path(folder)
        base_url = self.base_url if base_url is None else base_url
        manifest = self.manifest()
        wanted = [name for name, digest in manifest.items()
                  if _sha256_or_none(folder / name) != digest]
        for number, name in enumerate(wanted, start=1):
            shown = (number % self.lines_per_file == 0 or number == len(wanted))
            progress = _Progress(out, f"[{number}/{len(wanted)}] {name}", written=shown)
            self._download(self.address(base_url.rstrip("/"), name), folder / name,
                           manifest[name], timeout, progress)
        return wanted

    def _download(self, url: str, target: Path, digest: str, timeout: float, progress) -> None:
        """``url`` into ``target`` through ``target``.part, resumed where a broken run stopped;
        the part takes the name only when its SHA-256 is ``digest``. A resumed part that fails
        the check is fetched once more from its start (its first bytes may be the bad ones)."""
        part = target.with_name(target.name + ".part")
        target.parent.mkdir(parents=True, exist_ok=True)
        resumed = self._get(url, part, timeout, progress)
        if resumed and _sha256_or_none(part) != digest:
            part.unlink()
            self._get(url, part, timeout, progress)
        actual = _sha256_or_none(part)
        if actual != digest:
            part.unlink()
            raise DataError(f"{self.dataset}: {url} gave a file whose SHA-256 is "
                            f"{actual[:12]}... but {self.MANIFEST} lists {digest[:12]}...; "
                            f"nothing was kept. Run `python3 course.py data` again, or set "
                            f"{self.variable} to a checked copy")
        os.replace(part, target)

    def _get(self, url: str, part: Path, timeout: float, progress) -> bool:
        """Append ``url``'s bytes to ``part`` from its current size on (a Range request; a
        server that answers with the whole file restarts it); True if it resumed."""
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
            raise DataError(f"{self.dataset}: {url} answered {err.code} {err.reason}; "
                            f"{self.advice}") from None
        except (OSError, ValueError) as err:   # refused, unreachable, timed out, cut short
            kept = part.stat().st_size if part.is_file() else 0
            resume = f"the {kept:,} bytes kept resume next time; " if kept else ""
            raise DataError(f"{self.dataset}: could not download {url} ({err}); {resume}"
                            f"{self.advice}") from None
        finally:
            progress.done()
        return resumed

    def main(self, argv=None, *, module: str) -> int:
        """``python -m <module> [--base-url URL]`` (what ``python3 course.py data`` runs): fill
        the folder the variable names, else the user's cache; nothing is requested when every
        file is there and whole. Offline, one line says what to do, and the exit status is 1."""
        parser = argparse.ArgumentParser(
            prog=f"python -m {module}",
            description=f"Fetch {self.what}, checked, into the folder {self.variable} names, "
                        f"else the user's cache.")
        parser.add_argument("--base-url", default=self.base_url,
                            help="where the corpus's files are served (default: its public "
                                 "repository on GitHub)")
        args = parser.parse_args(argv)
        folder = Path(os.environ.get(self.variable) or self.cache_folder())
        try:
            fetched = self.fetch(folder, args.base_url)
        except DataError as err:
            print(err, file=sys.stderr)
            return 1
        print(f"{self.dataset}: {len(fetched)} files fetched; every file is in {folder}, "
              f"checked")
        return 0


class _Progress:
    """One line per file: its name, a bar and the bytes so far (redrawn in place on a
    terminal; written once, when the file is done, elsewhere, unless ``written`` is false)."""

    def __init__(self, out, label: str, written: bool = True):
        self.out, self.label, self.line = out, label, ""
        self.live = hasattr(out, "isatty") and out.isatty()
        self.written = written

    def show(self, have: int, total: int) -> None:
        filled = round(30 * have / total) if total else 0
        self.line = (f"{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                     f"{have / 1e6:.1f}/{total / 1e6:.1f} MB")
        if self.live:
            print(f"\r{self.line}", end="", file=self.out, flush=True)

    def done(self) -> None:
        if not self.line:
            return
        if self.live:      # a file not written stays on the line the next one redraws
            print("\r" + self.line.ljust(100), end="\n" if self.written else "",
                  file=self.out, flush=True)
        elif self.written:
            print(self.line, file=self.out, flush=True)
