"""Loaders for the two regression data sets of the GP unit: Mauna Loa CO2 and mcycle.

Each loader reads its CSV through :func:`course_lib.data._read_csv_table`: a missing or corrupt
file, or a field that is not a finite number, raises :class:`course_lib.data.DataError` naming
the file (and line and column); restore the file with git or rerun its generator in ``tools/``.
Provenance, licence and recipe: ``data/co2/README.md`` and ``data/mcycle/README.md``.
"""

from __future__ import annotations

import numpy as np

from course_lib.data import _parse_float, _read_csv_table


def _read_columns(dataset: str, name: str, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Named float columns of a checksummed CSV with a header row."""
    rows = _read_csv_table(dataset, name, dict.fromkeys(columns, _parse_float))
    return {col: np.array([row[col] for row in rows], dtype=np.float64) for col in columns}


def load_co2() -> tuple[np.ndarray, np.ndarray]:
    """Monthly mean atmospheric CO2 at Mauna Loa, March 1958 to December 2001.

    Returns ``(t_years, ppm)``, both of shape (521,): ``t_years`` is the middle of each
    calendar month as a decimal year, ``t = year + (month - 0.5) / 12`` (strictly increasing),
    and ``ppm`` the mean of that month's weekly flask values in parts per million. The five
    months with no measured week (1958-06, 1958-10, 1964-02 to 1964-04) are dropped, not
    interpolated, so the grid has gaps there.
    """
    cols = _read_columns("co2", "co2_monthly.csv", ("year", "month", "co2_ppm"))
    t_years = cols["year"] + (cols["month"] - 0.5) / 12.0
    return t_years, cols["co2_ppm"]


def load_mcycle() -> tuple[np.ndarray, np.ndarray]:
    """Head acceleration in a simulated motorcycle crash (Silverman 1985; R's ``MASS::mcycle``).

    Returns ``(times_ms, accel_g)``, both of shape (133,): milliseconds after impact
    (non-decreasing, with repeated times: 94 distinct values) and acceleration in g. The noise
    level and the wiggliness both change with time, so a stationary GP with one noise variance
    fits it badly: that is why the course uses it.
    """
    cols = _read_columns("mcycle", "mcycle.csv", ("times_ms", "accel_g"))
    return cols["times_ms"], cols["accel_g"]
