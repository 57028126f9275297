"""Loaders of the GP unit's regression data: Mauna Loa CO2 and the motorcycle crash data.

The stated facts (row counts, first/last rows, extremes, dropped months) are those in
data/co2/README.md and data/mcycle/README.md; the CO2 monthly means are also recomputed
independently from statsmodels' bundled weekly series with pandas.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from course_lib import data as data_mod
from course_lib.data import DataError
from course_lib.data.regression import load_co2, load_mcycle


def test_co2_shapes_and_known_rows():
    t_years, ppm = load_co2()
    assert t_years.shape == ppm.shape == (521,)
    assert t_years.dtype == ppm.dtype == np.float64
    # first row: March 1958 (one week, 316.1 ppm); last: December 2001 (mean of 5 weeks)
    assert t_years[0] == pytest.approx(1958 + 2.5 / 12)
    assert ppm[0] == pytest.approx(316.1)
    assert t_years[-1] == pytest.approx(2001 + 11.5 / 12)
    assert ppm[-1] == pytest.approx(371.02)
    assert ppm.min() == pytest.approx(313.4) and ppm.max() == pytest.approx(373.8)
    assert t_years[np.argmin(ppm)] == pytest.approx(1959 + 9.5 / 12)  # October 1959


def test_co2_time_is_monthly_and_gaps_are_the_dropped_months():
    t_years, _ = load_co2()
    steps = np.diff(t_years)
    assert np.all(steps > 0)
    months = np.round(t_years * 12 - 0.5).astype(int)  # year * 12 + (month - 1)
    assert np.allclose(t_years * 12 - 0.5, months)
    gaps = np.flatnonzero(np.diff(months) != 1)
    missing = [m for g in gaps for m in range(months[g] + 1, months[g + 1])]
    as_dates = [(m // 12, m % 12 + 1) for m in missing]
    assert as_dates == [(1958, 6), (1958, 10), (1964, 2), (1964, 3), (1964, 4)]


def test_co2_equals_pandas_monthly_resample_of_statsmodels_copy():
    from statsmodels.datasets import co2
    weekly = co2.load_pandas().data["co2"]
    monthly = weekly.resample("MS").mean().dropna()
    t_years, ppm = load_co2()
    expected_t = monthly.index.year + (monthly.index.month - 0.5) / 12
    np.testing.assert_allclose(t_years, expected_t, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ppm, monthly.to_numpy(), rtol=0, atol=5e-5)  # CSV keeps 4 decimals


def test_co2_has_the_seasonal_cycle_and_trend():
    t_years, ppm = load_co2()
    slope = np.polyfit(t_years, ppm, 1)[0]
    assert 1.0 < slope < 2.0  # ppm per year over 1958-2001
    detrended = ppm - np.polyval(np.polyfit(t_years, ppm, 2), t_years)
    month = np.round((t_years % 1) * 12 - 0.5).astype(int) + 1
    by_month = np.array([detrended[month == m].mean() for m in range(1, 13)])
    assert np.argmax(by_month) + 1 == 5  # Mauna Loa peaks in May ...
    assert np.argmin(by_month) + 1 in (9, 10)  # ... and bottoms out in early autumn


def test_mcycle_shapes_and_known_rows():
    times_ms, accel_g = load_mcycle()
    assert times_ms.shape == accel_g.shape == (133,)
    assert (times_ms[0], accel_g[0]) == (2.4, 0.0)
    assert (times_ms[-1], accel_g[-1]) == (57.6, 10.7)
    assert accel_g.min() == -134.0 and times_ms[np.argmin(accel_g)] == 21.2
    assert accel_g.max() == 75.0 and times_ms[np.argmax(accel_g)] == 31.0
    assert np.all(np.diff(times_ms) >= 0)
    assert np.unique(times_ms).size == 94  # repeated times: duplicated GP inputs


def test_mcycle_is_heteroscedastic():
    times_ms, accel_g = load_mcycle()
    early = accel_g[times_ms < 14]
    middle = accel_g[(times_ms > 16) & (times_ms < 30)]
    assert early.std() < 2 and middle.std() > 20


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of the two data folders, with course_lib.data reading from it."""
    for name in ("co2", "mcycle"):
        shutil.copytree(data_mod._DATA_ROOT / name, tmp_path / name, copy_function=shutil.copy)
    monkeypatch.setattr(data_mod, "_DATA_ROOT", tmp_path)
    return tmp_path


def test_copy_loads_like_the_original(data_copy):
    t_years, ppm = load_co2()
    assert t_years.shape == (521,)


@pytest.mark.parametrize("loader, path", [(load_co2, "co2/co2_monthly.csv"),
                                          (load_mcycle, "mcycle/mcycle.csv")])
def test_corrupted_file_raises_data_error(data_copy, loader, path):
    csv_path = data_copy / path
    text = csv_path.read_text()
    csv_path.write_text(text.replace("0", "1", 1))
    with pytest.raises(DataError, match="corrupt"):
        loader()


@pytest.mark.parametrize("loader, path", [(load_co2, "co2/co2_monthly.csv"),
                                          (load_mcycle, "mcycle/mcycle.csv")])
def test_missing_file_raises_data_error(data_copy, loader, path):
    (data_copy / path).unlink()
    with pytest.raises(DataError, match="missing"):
        loader()
