"""The three regression sets of Table 1 of Gil-González, Álvarez & Orozco 2019 (``data/uci/``;
provenance in its README).

``load_uci(name)`` for ``name`` in :data:`_NAMES`:

* ``"auto_mpg"``: Auto MPG, 392 cars (the 6 with unknown horsepower dropped), 7 features,
  target ``mpg`` (miles per gallon); ``origin`` is a code (1 USA, 2 Europe, 3 Japan);
* ``"concrete"``: Concrete compressive strength, 1030 mixtures, 8 features (7 ingredients in
  kg per m^3 and the age in days), target ``strength`` (MPa);
* ``"housing"``: Boston housing, 506 census tracts, 12 features, target ``medv`` (median home
  value in $1000s). The original column ``B`` is **not** included: it was built from the
  proportion of Black residents by a transform that encodes a segregationist assumption, and
  scikit-learn removed the set over it. Gil-Gonzalez et al. used the full set, so our Housing
  numbers are not exactly comparable with their table.

Files are read through :func:`course_lib.data._read_csv_table` (checked against the manifest on
every load; a field that is not a finite number is a :class:`~course_lib.data.DataError` naming
file, line and column). The returned arrays are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from course_lib.data import DataError, _parse_float, _read_csv_table

_DATASET = "uci"


@dataclass(frozen=True)
class _UCISpec:
    """Where a set lives and what its columns are (the generator writes this layout)."""

    file: str
    features: tuple[str, ...]
    target: str
    n_rows: int


_SETS = {
    "auto_mpg": _UCISpec("auto_mpg.csv",
                        ("cylinders", "displacement", "horsepower", "weight", "acceleration",
                         "model_year", "origin"), "mpg", 392),
    "concrete": _UCISpec("concrete.csv",
                        ("cement", "blast_furnace_slag", "fly_ash", "water", "superplasticizer",
                         "coarse_aggregate", "fine_aggregate", "age"), "strength", 1030),
    "housing": _UCISpec("housing.csv",
                       ("crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax",
                        "ptratio", "lstat"), "medv", 506),
}
_NAMES = tuple(_SETS)


@dataclass(frozen=True)
class RegressionSet:
    """A regression table: ``X`` (n, d) float64 inputs (rows are cases), ``y`` (n,) targets,
    ``feature_names`` (d,) naming the columns of X, ``target_name`` naming y, ``name`` the key
    given to :func:`load_uci`. Arrays are read-only (copy before editing)."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    name: str
    target_name: str

    def __len__(self) -> int:
        return self.X.shape[0]


def load_uci(name: str) -> RegressionSet:
    """One of the sets in :data:`_NAMES` ("auto_mpg", "concrete", "housing") as a RegressionSet."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected one of {list(_NAMES)} as a string, got "
                        f"{type(name).__name__}")
    if name not in _SETS:
        raise ValueError(f"name: expected one of {list(_NAMES)}, got {name!r}")
    spec = _SETS[name]
    columns = (*spec.features, spec.target)
    rows = _read_csv_table(_DATASET, spec.file, dict.fromkeys(columns, _parse_float))
    if len(rows) != spec.n_rows:
        raise DataError(f"dataset {_DATASET!r}: {spec.file} has {len(rows)} rows, expected "
                        f"{spec.n_rows} (see data/uci/README.md)")
    table = np.array([[row[col] for col in columns] for row in rows], dtype=np.float64)
    X, y = np.ascontiguousarray(table[:, :-1]), table[:, -1].copy()
    X.setflags(write=False)
    y.setflags(write=False)
    return RegressionSet(X, y, spec.features, name, spec.target)
