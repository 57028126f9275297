"""Test data shared by the preference-GP tests."""

import numpy as np


def connected_pairs(rng: np.random.Generator, n_settings: int, m: int):
    """Index pairs (first, second): a chain through every setting (so the comparison graph is
    connected), then m random pairs of distinct settings."""
    first = np.concatenate([np.arange(n_settings - 1), rng.integers(0, n_settings, m)])
    second = np.concatenate([np.arange(1, n_settings),
                             (first[n_settings - 1:] + rng.integers(1, n_settings, m))
                             % n_settings])
    return first, second
