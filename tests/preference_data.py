"""Test data shared by the preference-GP tests."""

import numpy as np

from course_lib.gp import Matern52
from course_lib.gp.comparisons import Comparisons


def connected_pairs(rng: np.random.Generator, n_settings: int, m: int):
    """Index pairs (first, second): a chain through every setting (so the comparison graph is
    connected), then m random pairs of distinct settings."""
    first = np.concatenate([np.arange(n_settings - 1), rng.integers(0, n_settings, m)])
    second = np.concatenate([np.arange(1, n_settings),
                             (first[n_settings - 1:] + rng.integers(1, n_settings, m))
                             % n_settings])
    return first, second


# pseudo-inputs of the sparse model's tests, on the plane of plane_comparisons
PSEUDO = np.array([[-2.0, -1.0], [0.0, 0.5], [2.0, 1.0], [1.0, -2.0]])


def utility(X):
    """The listener's utility behind plane_comparisons."""
    return np.sin(X[:, 0]) + 0.3 * X[:, 1]


def plane_comparisons(seed=0, n_items=9, m=16):
    """Binary answers (probit noise 0.4) about connected pairs of items on [-3, 3]^2."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n_items, 2))
    first, second = connected_pairs(rng, n_items, m)
    z = utility(X)[first] - utility(X)[second]
    y = (z + rng.normal(0, 0.4, z.size) > 0).astype(float)
    return Comparisons(X, first, second, y)


def ard_kernel():
    """A Matern 5/2 kernel with a lengthscale per coordinate."""
    return Matern52([1.1, 0.8], 1.3)
