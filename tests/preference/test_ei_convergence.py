"""The convergence measure of a preference session (course_lib.preference.ei_convergence): the running
mean of EI, where it settles, and the course's settling level."""

import numpy as np
import pytest

from course_lib.gp import SquaredExponential
from course_lib.preference.ei_convergence import average_ei_path, settled_at, settling_threshold


def test_average_ei_path_is_the_trailing_running_mean():
    history = np.random.default_rng(23).uniform(size=11)
    for window in (1, 3, 4, 20):
        expected = [history[max(0, t + 1 - window):t + 1].mean() for t in range(11)]
        assert np.allclose(average_ei_path(history, window), expected, rtol=1e-13)


def test_settled_at_finds_where_the_smoothed_ei_stays_low():
    history = np.array([0.5, 0.4, 0.3, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01])
    smoothed = average_ei_path(history, 4)
    first = settled_at(history, threshold=0.05, window=4)
    assert np.all(smoothed[first:] < 0.05) and smoothed[first - 1] >= 0.05
    assert settled_at(np.full(6, 0.2), threshold=0.05) is None       # never settles
    assert settled_at(np.r_[history, 0.5], threshold=0.05) is None   # relapse at the end


def test_settling_threshold_is_a_fraction_of_the_prior_utility_sd():
    from course_lib.simulators.listeners import settings_grid
    from course_lib.simulators.personalisation_study import hearing_aid_model
    grid = settings_grid(-20, 20, 5, 2)
    assert settling_threshold(hearing_aid_model(2).kernel, grid) == pytest.approx(0.02)  # variance 4
    # it follows the utility's scale: nine times the variance, three times the level
    assert settling_threshold(SquaredExponential(3.0, 36.0), grid) == pytest.approx(0.06)
