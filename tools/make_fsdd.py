"""Write ``data/fsdd/CORPUS_SHA256SUMS`` (and ``SHA256SUMS``) from a copy of FSDD v1.0.10.

The Free Spoken Digit Dataset's files stay the dataset's (``data/fsdd/README.md``): the course
keeps only the list of the files it reads, with their SHA-256, which every load checks. Run from
the repository root with a copy in the layout ``v1.0.10/recordings/*.wav``,
``v1.0.10/metadata.py``, ``v1.0.10/README.fsdd.md`` (the dataset's README.md of that release,
renamed), e.g. a checkout of tag v1.0.10 of
https://github.com/Jakobovski/free-spoken-digit-dataset arranged so, or the shared copy::

    .venv/bin/python tools/make_fsdd.py ../shared/data/fsdd

It refuses a copy that is not the release: other than 3,000 recordings, one per digit, speaker
and take of the speaker table, or (when the copy has one) files that differ from its own
``SHA256SUMS``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course_lib.data import _folder, _manifest_entries, write_checksums  # noqa: E402
from course_lib.data._corpus_copy import _CorpusCopy  # noqa: E402
from course_lib.data.fsdd import _DATASET, _RELEASE, _items  # noqa: E402


def corpus_checksums(copy: Path) -> dict[str, str]:
    """{name: SHA-256} of the release's files in ``copy``; SystemExit if it is not the release."""
    names = [name for name, *_ in _items(None)]
    names += [f"{_RELEASE}/metadata.py", f"{_RELEASE}/README.fsdd.md"]
    present = {p.relative_to(copy).as_posix() for p in (copy / _RELEASE).rglob("*") if p.is_file()}
    if present != set(names):
        raise SystemExit(f"{copy}: expected exactly the {len(names)} files of {_RELEASE}; "
                         f"missing {sorted(set(names) - present)[:3]}, "
                         f"extra {sorted(present - set(names))[:3]}")
    digests = {name: hashlib.sha256((copy / name).read_bytes()).hexdigest() for name in names}
    own = copy / "SHA256SUMS"
    if own.is_file():
        listed = {name.removeprefix("./"): digest
                  for name, digest in _manifest_entries(own).items()}
        differ = [name for name in names if listed.get(name) != digests[name]]
        if differ:
            raise SystemExit(f"{copy}: {len(differ)} files differ from its SHA256SUMS, "
                             f"e.g. {differ[0]}")
    return digests


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("copy", type=Path, help="a copy of FSDD in the layout above")
    args = parser.parse_args(argv)
    digests = corpus_checksums(args.copy)
    folder = _folder(_DATASET)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / _CorpusCopy.MANIFEST).write_bytes(
        "".join(f"{digests[name]}  {name}\n" for name in sorted(digests)).encode("utf-8"))
    write_checksums(folder, [_CorpusCopy.MANIFEST])
    print(f"{folder / _CorpusCopy.MANIFEST}: {len(digests)} files of FSDD {_RELEASE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
