"""The lectures' synthetic data sets (course_lib.gp.toy_data): the stated function, sorted inputs,
draws fixed by the seed, and the ambiguous set's two explanations."""

import numpy as np

from course_lib.gp.kernels import SquaredExponential
from course_lib.gp.evidence_surface import log_evidence_surface
from course_lib.gp.regression import GPRegression
from course_lib.gp.toy_data import ambiguous_regression_data, toy_regression_data


def test_toy_regression_data_is_the_stated_function_plus_noise():
    X, y = toy_regression_data(25, noise_sd=0.0, rng=3)
    assert X.shape == (25, 1) and np.all(np.diff(X[:, 0]) >= 0)
    assert X.min() >= -4.0 and X.max() <= 4.0
    np.testing.assert_allclose(y, np.sin(1.5 * X[:, 0]) + 0.3 * X[:, 0], rtol=0, atol=1e-15)
    again, noisy = toy_regression_data(25, rng=3), toy_regression_data(25, rng=3)
    np.testing.assert_array_equal(again[1], noisy[1])
    np.testing.assert_array_equal(again[0], X)         # the noise is drawn after the inputs


def test_the_ambiguous_set_has_a_wiggly_and_a_smooth_explanation():
    """Its docstring's claim, on a grid: the log marginal likelihood over (lengthscale, noise
    variance), signal variance 1, has a local maximum at a short lengthscale with little noise
    and another at a long lengthscale with more noise."""
    X, y = ambiguous_regression_data()
    assert X.shape == (12, 1) and np.all(np.diff(X[:, 0]) > 0)
    gp = GPRegression(SquaredExponential(1.0, 1.0), 0.04).fit(X, y)
    surface = log_evidence_surface(gp, "lengthscale", np.geomspace(0.1, 31.6, 40),
                                   "noise_variance", np.geomspace(1e-3, 3.16, 40))
    values = surface.values                      # values[i, j]: noise i, lengthscale j
    padded = np.pad(values, 1, constant_values=-np.inf)
    peak = np.ones(values.shape, dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di or dj:
                peak &= values > padded[1 + di:41 + di, 1 + dj:41 + dj]
    noise, lengthscale = surface.y_values[np.nonzero(peak)[0]], \
        surface.x_values[np.nonzero(peak)[1]]
    assert peak.sum() == 2, list(zip(lengthscale, noise))
    wiggly, smooth = np.argmin(lengthscale), np.argmax(lengthscale)
    assert noise[wiggly] < noise[smooth]
