"""Loaders for the data sets in the repository's ``data/`` folder.

Every data set lives in ``data/<name>/`` with a ``README.md`` (provenance, licence, recipe) and a
``SHA256SUMS`` manifest (``sha256sum`` format) written by its generator. :func:`data_file`
verifies a file against that manifest before a loader reads it, so a missing or corrupt file
gives a clear :class:`DataError` instead of silently wrong numbers.
"""

from __future__ import annotations

import csv
import hashlib
from functools import lru_cache
from pathlib import Path

DATA_ROOT = Path(__file__).resolve().parents[2] / "data"
MANIFEST = "SHA256SUMS"


class DataError(RuntimeError):
    """A data file is missing, not listed in its manifest, or does not match its checksum."""


def sha256_of(path: Path) -> str:
    """Hex SHA-256 digest of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(dataset: str) -> dict[str, str]:
    """Map file name -> expected SHA-256 for ``data/<dataset>/SHA256SUMS``."""
    manifest = DATA_ROOT / dataset / MANIFEST
    if not manifest.is_file():
        raise DataError(f"dataset {dataset!r}: no manifest at {manifest}; "
                        f"is the repository complete? (see data/{dataset}/README.md)")
    entries = {}
    for line in manifest.read_text().splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            entries[name.lstrip("*")] = digest
    return entries


def write_manifest(dataset: str, names: list[str]) -> Path:
    """Write ``data/<dataset>/SHA256SUMS`` for ``names`` (used by the data generators)."""
    folder = DATA_ROOT / dataset
    lines = [f"{sha256_of(folder / name)}  {name}" for name in sorted(names)]
    manifest = folder / MANIFEST
    manifest.write_text("\n".join(lines) + "\n")
    _verified.cache_clear()
    return manifest


def write_csv_dataset(dataset: str, name: str, header: list[str], rows) -> Path:
    """Write ``data/<dataset>/<name>`` (header + rows) and its manifest; used by generators."""
    folder = DATA_ROOT / dataset
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / name, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    write_manifest(dataset, [name])
    return folder / name


@lru_cache(maxsize=None)
def _verified(path: Path, dataset: str, name: str, mtime_ns: int) -> Path:
    # Keyed on the full path and mtime: a copy elsewhere (or an edited file) is checked again.
    expected = read_manifest(dataset).get(name)
    if expected is None:
        raise DataError(f"dataset {dataset!r}: {name!r} is not listed in its {MANIFEST}")
    actual = sha256_of(path)
    if actual != expected:
        raise DataError(f"dataset {dataset!r}: {name!r} is corrupt (SHA-256 {actual[:12]}... "
                        f"but the manifest says {expected[:12]}...); restore it with git "
                        f"checkout or regenerate it (see data/{dataset}/README.md)")
    return path


def data_file(dataset: str, name: str) -> Path:
    """Path of ``data/<dataset>/<name>`` after checking it against the dataset's manifest."""
    path = DATA_ROOT / dataset / name
    if not path.is_file():
        raise DataError(f"dataset {dataset!r}: missing file {path}; restore it with git "
                        f"checkout or regenerate it (see data/{dataset}/README.md)")
    return _verified(path, dataset, name, path.stat().st_mtime_ns)
