"""Make ``data/co2/co2_monthly.csv``: monthly mean Mauna Loa CO2 from statsmodels' bundled copy.

Source: the weekly Mauna Loa flask record (Keeling & Whorf, Scripps / CDIAC; public domain)
that statsmodels ships as ``statsmodels/datasets/co2/co2.csv`` (2284 weeks, 1958-03-29 to
2001-12-29, 59 weeks missing). Nothing is downloaded: the file is read from the installed
package.

Recipe: every weekly value is assigned to the calendar month of its date; a month's value is
the mean of its non-missing weeks; months without any measured week are dropped (not
interpolated). The CSV keeps ``year``, ``month``, ``co2_ppm`` (rounded to 4 decimals) and
``n_weeks`` (how many weekly values were averaged). ``course_lib.data.regression.load_co2``
turns ``year, month`` into the mid-month decimal year ``year + (month - 0.5) / 12``.

Run from the repository root (statsmodels is in the course's .venv):

    .venv/bin/python tools/make_co2.py

It rewrites the CSV and ``data/co2/SHA256SUMS``; the README is written by hand.
"""

from __future__ import annotations

import csv
import math
import sys
from collections import defaultdict
from importlib import resources
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from course_lib.data import _write_csv_dataset  # noqa: E402

DATASET = "co2"
CSV_NAME = "co2_monthly.csv"


def read_weekly() -> list[tuple[int, int, float]]:
    """(year, month, ppm) for every non-missing week of statsmodels' bundled ``co2.csv``."""
    source = resources.files("statsmodels.datasets.co2") / "co2.csv"
    weeks = []
    with source.open("r", newline="") as handle:
        for row in csv.DictReader(handle):
            value = row["co2"].strip()
            if value == "" or math.isnan(float(value)):
                continue  # a missing week: the month mean uses the weeks that were measured
            date = row["date"]  # YYYYMMDD
            weeks.append((int(date[:4]), int(date[4:6]), float(value)))
    return weeks


def monthly_means(weeks: list[tuple[int, int, float]]) -> list[tuple[int, int, float, int]]:
    """(year, month, mean ppm, number of weeks) for every month that has at least one week."""
    by_month: dict[tuple[int, int], list[float]] = defaultdict(list)
    for year, month, ppm in weeks:
        by_month[year, month].append(ppm)
    return [(year, month, sum(values) / len(values), len(values))
            for (year, month), values in sorted(by_month.items())]


def main() -> None:
    rows = monthly_means(read_weekly())
    path = _write_csv_dataset(DATASET, CSV_NAME, ["year", "month", "co2_ppm", "n_weeks"],
                             [(year, month, f"{ppm:.4f}", n) for year, month, ppm, n in rows])
    first, last = rows[0], rows[-1]
    print(f"wrote {len(rows)} months to {path}: "
          f"{first[0]}-{first[1]:02d} {first[2]:.4f} ppm ... "
          f"{last[0]}-{last[1]:02d} {last[2]:.4f} ppm")


if __name__ == "__main__":
    main()
