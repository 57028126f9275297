"""Loaders for the data sets in the repository's ``data/`` folder (which a wheel carries inside the
package, as ``course_lib/_shipped/data``).

Every data set lives in ``data/<name>/`` with a ``README.md`` (provenance, licence, recipe) and a
``SHA256SUMS`` manifest (``sha256sum`` format) written by its generator. Loaders read a file
through :func:`_read_verified`, which hashes the bytes it returns on every call (never trusting a
modification time), so a missing, changed or damaged file gives a clear :class:`DataError`
instead of silently wrong numbers. Anything a loader memoises is keyed by that content hash,
so an edited file is never served from a stale cache.

Text files are accepted with Windows line endings too: a checkout made with Git's
``core.autocrlf=true`` before the repository's ``.gitattributes`` existed turns every LF into
CRLF, and such a file is verified (and parsed) as the LF file it was made from. CSV fields are
parsed strictly: a field that is not a number where a number belongs is a :class:`DataError`
naming the file, line and column, never a NaN.

One module per data set: :mod:`~course_lib.data.digits`, :mod:`~course_lib.data.digit_pairs`
(speech, with :mod:`~course_lib.data.wav` for checksummed WAV files),
:mod:`~course_lib.data.regression` (Mauna Loa CO2, mcycle), :mod:`~course_lib.data.uci` (the
Auto MPG, Concrete and Housing tables), :mod:`~course_lib.data.fluency` (utterance features
with five simulated raters' scores) and :mod:`~course_lib.data.speechocean762` (the real
five-expert panel, with :mod:`~course_lib.data.speechocean762_source` finding the corpus's own
files and :mod:`~course_lib.data.speechocean762_markup` reading the experts' word and phone
markup).

The checksum layer is shared: :func:`read_checksummed` checks a file of any folder against that
folder's ``SHA256SUMS`` and :func:`write_checksums` writes one, so the experiments' committed
results (:mod:`course_lib.results`) are checked the way the data sets are.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# A wheel carries the data sets inside the package (setup.py maps data/ there); a checkout, or an
# editable install of one, reads them where they are committed.
_SHIPPED = Path(__file__).resolve().parents[1] / "_shipped" / "data"
_DATA_ROOT = _SHIPPED if _SHIPPED.is_dir() else Path(__file__).resolve().parents[2] / "data"
MANIFEST = "SHA256SUMS"
REINSTALL = ("reinstall the course's library (`pip install --force-reinstall --no-deps` of what "
             "it was installed from)")
_MANIFEST_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](\S.*)")


class DataError(RuntimeError):
    """A data file is missing, unlisted, corrupt or malformed, or its manifest is."""


def _sha256_of(path: Path) -> str:
    """Hex SHA-256 digest of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _folder(dataset: str) -> Path:
    return _DATA_ROOT / dataset


def _restore_advice(dataset: str) -> str:
    folder = _folder(dataset)
    if _DATA_ROOT == _SHIPPED:
        return f"{REINSTALL}; {folder / 'README.md'} says where the data set comes from"
    # A checkout writes the committed bytes (or, in a clone made before .gitattributes existed,
    # their CRLF form, which _read_verified accepts). Restoring the whole folder also covers a
    # manifest edited on its own; "-C" makes the command work from any directory.
    return (f'restore the committed copies with `git -C "{folder}" checkout -- .` or '
            f"regenerate the data set (see {folder / 'README.md'})")


@lru_cache(maxsize=32)
def _parse_manifest(text: str, manifest: str) -> dict[str, str]:
    # Keyed on the manifest's text, so an edited manifest is parsed afresh.
    entries: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = _MANIFEST_LINE.fullmatch(line.rstrip())
        if match is None:
            raise DataError(f"{manifest}, line {number}: expected '<64 hex digits>  <file "
                            f"name>' (the sha256sum format), got {line!r}")
        digest, name = match.group(1).lower(), match.group(2)
        if entries.get(name, digest) != digest:
            raise DataError(f"{manifest}, line {number}: {name!r} is listed twice with "
                            f"different checksums")
        entries[name] = digest
    return entries


def _read_manifest(dataset: str) -> dict[str, str]:
    """Map file name -> expected SHA-256 for ``data/<dataset>/SHA256SUMS``."""
    return _listed(_folder(dataset), where=f"dataset {dataset!r}",
                   advice=_restore_advice(dataset))


def _listed(folder: Path, *, where: str, advice: str) -> dict[str, str]:
    """:func:`_manifest_entries` of ``folder``'s manifest; a missing one is a :class:`DataError`
    starting with ``where`` and ending with ``advice``."""
    manifest = Path(folder) / MANIFEST
    if not manifest.is_file():
        raise DataError(f"{where}: no manifest at {manifest}; is the repository complete? "
                        f"{advice}")
    return _manifest_entries(manifest)


def _manifest_entries(manifest: Path) -> dict[str, str]:
    """Map file name -> expected SHA-256 of a manifest in the ``sha256sum`` format; one that is
    not UTF-8 or has a malformed line is a :class:`DataError` naming it (and the line)."""
    try:
        text = manifest.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataError(f"{manifest}: not UTF-8 text ({err})") from err
    return _parse_manifest(text, str(manifest))


@dataclass(frozen=True)
class VerifiedFile:
    """A file's bytes as checked against its manifest (``sha256`` is the listed digest)."""

    path: Path
    content: bytes
    sha256: str


def _read_verified(dataset: str, name: str, *, text: bool = False) -> VerifiedFile:
    """Read ``data/<dataset>/<name>`` and check its bytes against the data set's manifest
    (:func:`read_checksummed`, which says what ``text`` does)."""
    return read_checksummed(_folder(dataset), name, text=text, where=f"dataset {dataset!r}",
                            advice=_restore_advice(dataset))


def read_checksummed(folder: Path, name: str, *, where: str, advice: str,
                     text: bool = False) -> VerifiedFile:
    """Read ``folder/name`` and check its bytes against ``folder``'s :data:`MANIFEST`.

    A missing, unlisted or changed file is a :class:`DataError` on one line that starts with
    ``where``, names the file and ends with ``advice`` (how to restore it). With ``text=True``
    a file whose CRLF line endings are the only difference from the listed checksum is
    accepted, and its content is returned with LF endings (a Windows checkout without the
    repository's ``.gitattributes``). Binary files must match byte for byte.
    """
    path = Path(folder) / name
    if not path.is_file():
        raise DataError(f"{where}: missing file {path}; {advice}")
    expected = _listed(folder, where=where, advice=advice).get(name)
    if expected is None:
        raise DataError(f"{where}: {name!r} is not listed in {Path(folder) / MANIFEST}; "
                        f"{advice}")
    return _checked_file(path, expected, text=text, where=where, advice=advice)


def _checked_file(path: Path, expected: str, *, text: bool, where: str,
                  advice: str) -> VerifiedFile:
    """``path``'s bytes if their SHA-256 is ``expected`` (CRLF endings forgiven with ``text``, as
    in :func:`read_checksummed`), else a :class:`DataError` starting with ``where`` and ending with
    ``advice``. Shared with the corpus files a data set reads from outside ``data/``."""
    content = path.read_bytes()
    actual = hashlib.sha256(content).hexdigest()
    if actual != expected and text and b"\r\n" in content:
        as_lf = content.replace(b"\r\n", b"\n")
        if hashlib.sha256(as_lf).hexdigest() == expected:
            content, actual = as_lf, expected
    if actual != expected:
        raise DataError(f"{where}: {path} is corrupt: its SHA-256 is {actual[:12]}... but "
                        f"its manifest lists {expected[:12]}...; {advice}")
    return VerifiedFile(path, content, expected)


def _data_file(dataset: str, name: str) -> Path:
    """Path of ``data/<dataset>/<name>`` after checking its bytes against the manifest.

    For reading the file, prefer :func:`_read_verified`: it returns the bytes it checked.
    """
    return _read_verified(dataset, name).path


def _check_split(split, splits) -> str:
    """``split`` if it is one of ``splits`` (e.g. "train"), else ``TypeError``/``ValueError``."""
    if not isinstance(split, str):
        raise TypeError(f"split: expected one of {sorted(splits)} as a string, "
                        f"got {type(split).__name__}")
    if split not in splits:
        raise ValueError(f"split: expected one of {sorted(splits)}, got {split!r}")
    return split


# Field parsers for _read_csv_table: each raises ValueError with a reason a person can act on.
def _parse_text(field: str) -> str:
    """A non-empty string field, as is."""
    if not field:
        raise ValueError("empty field")
    return field


def _parse_int(field: str) -> int:
    """A whole number written in decimal digits (an optional sign)."""
    if not re.fullmatch(r"[+-]?[0-9]+", field):
        raise ValueError("not a whole number")
    return int(field)


def _parse_float(field: str) -> float:
    """A finite decimal number; "nan", "inf" and empty fields are refused."""
    try:
        value = float(field)
    except ValueError:
        raise ValueError("not a number") from None
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def _read_csv_table(dataset: str, name: str,
                   columns: dict[str, Callable[[str], object]]) -> list[dict]:
    """Rows of a checksummed CSV with a header line, each parsed column by column.

    ``columns`` maps each column the caller needs to its parser (:func:`_parse_int`,
    :func:`_parse_float`, :func:`_parse_text` or any callable raising ``ValueError``). Returns
    one dict per data row with those columns. A missing column, a row with the wrong number of
    fields or a field its parser refuses raises :class:`DataError` naming file, line and column.
    """
    verified = _read_verified(dataset, name, text=True)
    where = f"dataset {dataset!r}: {verified.path}"
    try:
        text = verified.content.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataError(f"{where}: not UTF-8 text ({err})") from err
    return _parse_csv_text(text, where, columns)


def _parse_csv_text(text: str, where: str,
                    columns: dict[str, Callable[[str], object]]) -> list[dict]:
    """The rows of CSV ``text`` (a header line first), each field parsed by its column's parser
    (as :func:`_read_csv_table` describes); ``where`` names the file in every error."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header:
        raise DataError(f"{where}: no header line")
    missing = [col for col in columns if col not in header]
    if missing:
        raise DataError(f"{where}, line 1: the header {header} lacks the columns {missing}")
    index = {col: header.index(col) for col in columns}
    rows = []
    for fields in reader:
        if len(fields) != len(header):
            raise DataError(f"{where}, line {reader.line_num}: expected {len(header)} fields "
                            f"({', '.join(header)}), got {len(fields)}")
        row = {}
        for col, parse in columns.items():
            field = fields[index[col]]
            try:
                row[col] = parse(field)
            except ValueError as err:
                raise DataError(f"{where}, line {reader.line_num}, column {col!r}: {err}, "
                                f"got {field!r}") from None
        rows.append(row)
    return rows


def _write_manifest(dataset: str, names: list[str]) -> Path:
    """Write ``data/<dataset>/SHA256SUMS`` for ``names`` (used by the data generators)."""
    return write_checksums(_folder(dataset), names)


def write_checksums(folder: Path, names, *, keep_others: bool = False) -> Path:
    """Write ``folder``'s :data:`MANIFEST` with the SHA-256 of each file ``names`` lists (names
    in ``folder``); return its path. With ``keep_others=True`` the entries it already holds for
    other files stay as they are, so recording one file never vouches for another."""
    manifest = Path(folder) / MANIFEST
    # a copy: the parsed entries are cached and shared
    digests = dict(_manifest_entries(manifest)) if keep_others and manifest.is_file() else {}
    digests.update({name: _sha256_of(manifest.parent / name) for name in names})
    manifest.write_bytes("".join(f"{digests[name]}  {name}\n"
                                 for name in sorted(digests)).encode("utf-8"))
    return manifest


def _write_csv_dataset(dataset: str, name: str, header: list[str], rows) -> Path:
    """Write ``data/<dataset>/<name>`` (header + rows) and its manifest; used by generators."""
    folder = _folder(dataset)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    _write_manifest(dataset, [name])
    return folder / name
