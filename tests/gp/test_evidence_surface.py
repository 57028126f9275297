"""The evidence on a grid of two hyper-parameters: every grid value is the pointwise one."""

import warnings

import numpy as np
import pytest

from course_lib.gp.kernels import SquaredExponential
from course_lib.gp.evidence_surface import log_evidence_surface
from course_lib.gp.prediction import JitterWarning
from course_lib.gp.regression import GPRegression
from numerics import assert_within, round_off

RNG = np.random.default_rng(1)
X = RNG.uniform(-3, 3, (25, 1))
Y = np.sin(2 * X[:, 0]) + 0.1 * RNG.standard_normal(25)


def test_evidence_surface_matches_pointwise_values():
    gp = GPRegression(SquaredExponential(1.0), 0.1).fit(X, Y)
    ell, noise = np.array([0.3, 1.0, 3.0]), np.array([0.01, 0.1])
    surface = log_evidence_surface(gp, "lengthscale", ell, "noise_variance", noise)
    assert surface.values.shape == (2, 3)
    check = gp.log_evidence(np.log([1.0, 3.0, 0.01]))
    assert surface.values[0, 2] == pytest.approx(check)
    i, j = np.unravel_index(np.argmax(surface.values), surface.values.shape)
    assert surface.best == (ell[j], noise[i])


def test_evidence_surface_is_the_pointwise_value_on_either_axis_and_when_ill_conditioned():
    # the noise axis is served by one eigendecomposition per kernel setting; tiny noise levels
    # (condition number > 1e10) fall back to the Cholesky route with its jitter
    gp = GPRegression(SquaredExponential(1.0, 1.3), 0.1).fit(X, Y)
    ell = np.array([0.2, 0.7, 2.5, 9.0])
    noise = np.array([1e-14, 1e-6, 0.03, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)
        expected = np.array([[gp.evidence(np.log([1.3, l, s]), warn=False).value
                              for l in ell] for s in noise])
    by_rows = log_evidence_surface(gp, "lengthscale", ell, "noise_variance", noise)
    by_columns = log_evidence_surface(gp, "noise_variance", noise, "lengthscale", ell)
    # the eigendecomposition and the Cholesky route solve K + s I differently: they agree to
    # round-off times its condition number (up to 1e10 on that route; 2e7 and 7e-10 relative
    # apart here). Beyond 1e10 both surfaces hold the pointwise values themselves.
    cond = np.array([[np.linalg.cond(SquaredExponential(l, 1.3)(X) + s * np.eye(len(X)))
                      for l in ell] for s in noise])
    tol = round_off(cond * expected, k=16)
    assert_within(by_rows.values, expected, tol, what="the surface by rows")
    assert_within(by_columns.values, expected.T, tol.T, what="the surface by columns")
    np.testing.assert_array_equal(by_rows.values[cond > 1e10], expected[cond > 1e10])
    terms = gp.evidence(np.log([1.3, 0.7, 0.03]))
    assert by_rows.data_fit[2, 1] == pytest.approx(terms.data_fit, rel=1e-9)
    assert by_rows.complexity[2, 1] == pytest.approx(terms.complexity, rel=1e-9)
    # a surface over two kernel parameters is evaluated point by point
    both = log_evidence_surface(gp, "lengthscale", ell, "variance", [0.5, 2.0])
    assert both.values[1, 3] == pytest.approx(gp.log_evidence(np.log([2.0, 9.0, 0.1])))
