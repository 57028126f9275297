"""Tests for course_lib.dtw.pruning: the band's envelope is the max and min over each window."""

import numpy as np
import pytest

from course_lib.dtw.pruning import (_band_reach, _extreme_tables, _keogh_scratch, _levels_for,
                                     _window_extremes)


@pytest.mark.parametrize("n, m, band", [(9, 9, 0), (12, 15, 2), (15, 12, 3), (7, 20, -1),
                                        (20, 7, 1), (1, 5, 0)])
def test_the_envelope_is_the_max_and_min_over_the_band_window(n, m, band):
    rng = np.random.default_rng(100 * n + m)
    dim = 3
    y_t = np.ascontiguousarray(rng.normal(size=(m, dim)).T)
    a, b = _band_reach(n, m, band)
    hi, lo, _, _ = _keogh_scratch(n, m, dim, band)
    length = a + b + n
    _extreme_tables(y_t, a, length, _levels_for(a + b + 1), hi, lo)
    upper, lower = np.empty((dim, n)), np.empty((dim, n))
    _window_extremes(hi, lo, length, a, a, b, upper, lower)
    for i in range(n):  # row i of the band reaches the columns i - a .. i + b that exist
        window = y_t[:, max(0, i - a):min(m, i + b + 1)]
        np.testing.assert_array_equal(upper[:, i], window.max(axis=1))
        np.testing.assert_array_equal(lower[:, i], window.min(axis=1))
