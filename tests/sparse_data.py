"""Test data shared by the tests of the sparse GP (its bound and fit, and its result types)."""

import numpy as np

NOISE = 0.05


def toy_data(n=40, seed=0, dim=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 5.0, (n, dim))
    y = np.sin(X.sum(axis=1)) + np.sqrt(NOISE) * rng.standard_normal(n)
    return X, y


def spread_inducing(m, seed=1, dim=1):
    """Inducing inputs near a grid (well conditioned K_uu), slightly perturbed."""
    rng = np.random.default_rng(seed)
    grid = np.linspace(0.2, 4.8, m)
    return np.column_stack([grid + 0.05 * rng.standard_normal(m) for _ in range(dim)])
