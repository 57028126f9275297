"""The multi-start bEI maximiser (course_lib.preference.acquisition): it reaches the dense-grid
maximum from grid starts, ends at stationary points or on the bounds, and snaps to a grid row."""

import numpy as np
import pytest

from course_lib.preference.acquisition import bivariate_ei, bivariate_ei_gradient, incumbent
from course_lib.preference.acquisition import maximise_acquisition

from preference_data import BOX, preference_model


def test_maximise_from_grid_starts_reaches_the_dense_grid_maximum():
    model = preference_model()
    coarse = np.stack(np.meshgrid(np.linspace(-3, 3, 7), np.linspace(-3, 3, 7)),
                      -1).reshape(-1, 2)
    dense_axis = np.linspace(-3, 3, 301)
    dense = np.stack(np.meshgrid(dense_axis, dense_axis), -1).reshape(-1, 2)
    result = maximise_acquisition(model, BOX, X_grid=coarse, n_restarts=5)
    assert result.grid_values is not None
    assert result.value >= np.max(result.grid_values)                  # polish never loses
    assert result.value >= np.max(bivariate_ei(model, dense)) - 1e-6
    assert np.all(result.ends >= BOX[:, 0]) and np.all(result.ends <= BOX[:, 1])
    assert result.value == pytest.approx(bivariate_ei(model, result.x[None])[0], rel=1e-10)
    assert 0 < result.path_mean <= result.value
    assert np.array_equal(result.x_best, incumbent(model)[1])


def test_maximise_ends_at_stationary_points_or_bounds():
    model = preference_model()
    result = maximise_acquisition(model, BOX, n_restarts=4, rng=22)
    _, gradients = bivariate_ei_gradient(model, result.ends)
    at_bound = np.isclose(result.ends, BOX[:, 0]) | np.isclose(result.ends, BOX[:, 1])
    assert np.all(at_bound | (np.abs(gradients) < 1e-4))
    assert result.starts.shape == (4, 2)
    assert np.all(result.starts >= BOX[:, 0]) and np.all(result.starts <= BOX[:, 1])


def test_maximise_with_snap_returns_a_grid_row():
    model = preference_model()
    grid = np.stack(np.meshgrid(np.arange(-3.0, 3.5), np.arange(-3.0, 3.5)), -1).reshape(-1, 2)
    result = maximise_acquisition(model, BOX, X_grid=grid, snap=True)
    distances = np.sum((grid - result.x) ** 2, axis=1)
    assert np.min(distances) == 0.0
    best_end = result.ends[np.argmax(result.end_values)]
    assert np.argmin(distances) == np.argmin(np.sum((grid - best_end) ** 2, axis=1))
    assert result.value == pytest.approx(bivariate_ei(model, result.x[None])[0], rel=1e-12)
