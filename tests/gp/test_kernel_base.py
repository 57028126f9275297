"""Sums and products of kernels: values, parameter names, theta and bounds in reading order.

The finite-difference gradients of a composite kernel are in test_kernels.py (``composite``)."""

import numpy as np

from course_lib.gp.kernels import Periodic, SquaredExponential

RNG = np.random.default_rng(0)
X = RNG.normal(size=(7, 2))
Z = RNG.normal(size=(5, 2))


def test_composition_names_theta_and_values():
    k1, k2 = SquaredExponential(0.5, 2.0), SquaredExponential(3.0, 0.1, name="long")
    s, p = k1 + k2, k1 * Periodic(1.0, 2.0)
    np.testing.assert_allclose(s(X, Z), k1(X, Z) + k2(X, Z))
    np.testing.assert_allclose(p(X, Z), k1(X, Z) * Periodic(1.0, 2.0)(X, Z))
    assert s.param_names == ("se.variance", "se.lengthscale", "long.variance", "long.lengthscale")
    assert (k1 + k1).param_names[:2] == ("se_1.variance", "se_1.lengthscale")
    np.testing.assert_allclose(s.theta, np.log([2.0, 0.5, 0.1, 3.0]))
    moved = s.with_theta(np.zeros(4))
    np.testing.assert_allclose(moved(X), 2 * SquaredExponential(1.0, 1.0)(X))
    np.testing.assert_allclose(s.theta, np.log([2.0, 0.5, 0.1, 3.0]))  # original unchanged
    assert s.bounds.shape == (4, 2)
