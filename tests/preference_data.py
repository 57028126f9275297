"""Test data shared by the preference-GP tests."""

import numpy as np
from scipy.special import ndtr

from course_lib.preference.comparisons import Comparisons
from course_lib.gp.kernels import Matern52, SquaredExponential
from course_lib.preference import PairwiseBeta, PairwiseProbit
from course_lib.preference.preference_gp import PreferenceGP


def connected_pairs(rng: np.random.Generator, n_settings: int, m: int):
    """Index pairs (first, second): a chain through every setting (so the comparison graph is
    connected), then m random pairs of distinct settings."""
    first = np.concatenate([np.arange(n_settings - 1), rng.integers(0, n_settings, m)])
    second = np.concatenate([np.arange(1, n_settings),
                             (first[n_settings - 1:] + rng.integers(1, n_settings, m))
                             % n_settings])
    return first, second


BOX = np.array([[-3.0, 3.0], [-3.0, 3.0]])


def utility(X):
    return np.sin(1.2 * X[:, 0]) + 0.4 * X[:, 1] - 0.1 * X[:, 1] ** 2


def comparisons(rng, n_settings=14, m=30, kind="pair-binary"):
    """m comparisons among random 2-D settings in BOX, chained first so the graph is connected."""
    X = rng.uniform(-3, 3, (n_settings, 2))
    first, second = connected_pairs(rng, n_settings, m)
    z = utility(X[first]) - utility(X[second])
    if kind == "pair-binary":
        y = (z + 0.7 * rng.standard_normal(z.size) > 0).astype(float)
    else:
        y = np.clip(ndtr(z / 1.0) + 0.1 * rng.standard_normal(z.size), 0.02, 0.98)
    return Comparisons(X, first, second, y, kind=kind)


def preference_model(kernel=None, kind="pair-binary", seed=0):
    kernel = SquaredExponential([1.2, 1.8], 1.5) if kernel is None else kernel
    likelihood = PairwiseProbit(0.7) if kind == "pair-binary" else PairwiseBeta(0.7, 10.0)
    return PreferenceGP(kernel, likelihood).fit(comparisons(np.random.default_rng(seed),
                                                            kind=kind))


# pseudo-inputs of the sparse model's tests, on the plane of plane_comparisons
PSEUDO = np.array([[-2.0, -1.0], [0.0, 0.5], [2.0, 1.0], [1.0, -2.0]])


def plane_utility(X):
    """The listener's utility behind plane_comparisons."""
    return np.sin(X[:, 0]) + 0.3 * X[:, 1]


def plane_comparisons(seed=0, n_items=9, m=16):
    """Binary answers (probit noise 0.4) about connected pairs of items on [-3, 3]^2."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n_items, 2))
    first, second = connected_pairs(rng, n_items, m)
    z = plane_utility(X)[first] - plane_utility(X)[second]
    y = (z + rng.normal(0, 0.4, z.size) > 0).astype(float)
    return Comparisons(X, first, second, y)


def ard_kernel():
    """A Matern 5/2 kernel with a lengthscale per coordinate."""
    return Matern52([1.1, 0.8], 1.3)
