"""The regression tables of Gil-González et al.'s Table 1 (course_lib.data.uci, data/uci/).

The facts checked here are those stated in data/uci/README.md; the published summaries (row
counts, target ranges and means) are those of the UCI / StatLib descriptions of the sets.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

import course_lib.data as data
from course_lib.data.uci import _NAMES, _SETS, RegressionSet, load_uci

EXPECTED = {   # name: (rows, features, target, min, max, mean of the target)
    "auto_mpg": (392, 7, "mpg", 9.0, 46.6, 23.4459),
    "concrete": (1030, 8, "strength", 2.33, 82.6, 35.8180),
    "housing": (506, 12, "medv", 5.0, 50.0, 22.5328),
}


@pytest.mark.parametrize("name", _NAMES)
def test_shapes_targets_and_names(name):
    rows, n_features, target, low, high, mean = EXPECTED[name]
    table = load_uci(name)
    assert isinstance(table, RegressionSet) and table.name == name
    assert table.X.shape == (rows, n_features) and table.y.shape == (rows,) and len(table) == rows
    assert table.X.dtype == table.y.dtype == np.float64
    assert len(table.feature_names) == n_features and table.target_name == target
    assert table.y.min() == low and table.y.max() == high
    assert table.y.mean() == pytest.approx(mean, abs=5e-5)
    assert np.isfinite(table.X).all()


@pytest.mark.parametrize("name", _NAMES)
def test_columns_are_the_csv_columns_in_order(name):
    table = load_uci(name)
    with open(data._DATA_ROOT / "uci" / _SETS[name].file, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        first = [float(v) for v in next(reader)]
    assert header == [*table.feature_names, table.target_name]
    np.testing.assert_array_equal(table.X[0], first[:-1])
    assert table.y[0] == first[-1]


def test_known_rows():
    auto = load_uci("auto_mpg")
    # first row of the UCI file: chevrolet chevelle malibu, 1970, USA
    np.testing.assert_array_equal(auto.X[0], [8, 307.0, 130, 3504, 12.0, 70, 1])
    assert auto.y[0] == 18.0
    year, origin = (auto.X[:, auto.feature_names.index(c)] for c in ("model_year", "origin"))
    assert set(year) == set(range(70, 83))
    np.testing.assert_array_equal(np.bincount(origin.astype(int))[1:], [245, 68, 79])
    concrete = load_uci("concrete")
    np.testing.assert_array_equal(concrete.X[0], [540.0, 0.0, 0.0, 162.0, 2.5, 1040.0, 676.0, 28])
    assert concrete.y[0] == 79.99 and concrete.y[-1] == 32.4
    rows = np.column_stack([concrete.X, concrete.y])
    assert len(rows) - len(np.unique(rows, axis=0)) == 25       # duplicates kept, as in UCI
    housing = load_uci("housing")
    np.testing.assert_array_equal(housing.X[0], [0.00632, 18, 2.31, 0, 0.538, 6.575, 65.2,
                                                 4.09, 1, 296, 15.3, 4.98])
    assert housing.y[0] == 24.0 and np.sum(housing.y == 50.0) == 16


def test_housing_has_no_column_b():
    housing = load_uci("housing")
    assert not {"b", "black"} & {name.lower() for name in housing.feature_names}
    # B = 1000 (Bk - 0.63)^2 lies in 0.32..396.9; no column of X has that range
    for column in housing.X.T:
        assert not (column.min() == 0.32 and column.max() == 396.9)


def test_arrays_are_read_only():
    table = load_uci("concrete")
    with pytest.raises(ValueError):
        table.X[0, 0] = 1.0
    with pytest.raises(ValueError):
        table.y[0] = 1.0
    with pytest.raises(AttributeError):
        table.name = "other"


def test_manifest_covers_every_file_and_matches():
    folder = data._DATA_ROOT / "uci"
    manifest = data._read_manifest("uci")
    on_disk = {p.name for p in folder.iterdir() if p.is_file()}
    assert set(manifest) == on_disk - {"README.md", "SHA256SUMS"} == {
        spec.file for spec in _SETS.values()}
    for name, digest in manifest.items():
        assert data._sha256_of(folder / name) == digest


@pytest.mark.parametrize("bad, error", [("boston", ValueError), ("Auto_MPG", ValueError),
                                        ("", ValueError), (None, TypeError), (0, TypeError),
                                        (["housing"], TypeError)])
def test_unknown_name_is_refused_with_the_choices(bad, error):
    with pytest.raises(error, match=r"name: expected one of \['auto_mpg', 'concrete', "
                                    r"'housing'\]"):
        load_uci(bad)
