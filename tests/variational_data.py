"""Test data shared by the tests of the full-rank variational GP (its bound and its model)."""

import numpy as np

from course_lib.gp import SquaredExponential
from course_lib.preference.comparisons import Comparisons

RNG = np.random.default_rng(7)
X12 = np.sort(RNG.uniform(0.0, 5.0, 12))[:, None]
Y12 = np.sin(X12[:, 0]) + 0.3 * RNG.standard_normal(12)
SE = SquaredExponential(0.8, 1.3)


def probit_pairs(n=15, m=40, seed=3):
    rng = np.random.default_rng(seed)
    X = np.linspace(0.0, 3.0, n)[:, None]
    f = np.sin(2.0 * X[:, 0])
    first = rng.integers(0, n, m)
    second = (first + rng.integers(1, n, m)) % n
    y = (f[first] - f[second] + 0.5 * rng.standard_normal(m) > 0).astype(float)
    return Comparisons(X, first, second, y)
