"""Models and points shared by the level-set tests (tests/mixed/test_levelset*.py)."""

import numpy as np
from scipy.stats import norm

from course_lib.gp import GPRegression, SquaredExponential
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseProbit
from course_lib.preference.preference_gp import PreferenceGP

THRESHOLD = norm.ppf(0.75)


def regression_model():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(6, 2))
    y = 2.0 * np.linalg.norm(X, axis=1) + 0.5 * rng.standard_normal(6)
    return GPRegression(SquaredExponential(0.5, 1.0), noise_variance=0.5).fit(X, y)


def preference_model():
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(10, 2))
    first, second = np.arange(9), np.arange(1, 10)
    wins = (X[first, 0] > X[second, 0]).astype(float)
    # PairwiseProbit(1/sqrt 2) has P(y = 1) = Phi(f(first) - f(second)), Wu et al.'s link
    return PreferenceGP(SquaredExponential(0.7, 1.0),
                        PairwiseProbit(1 / np.sqrt(2))).fit(Comparisons(X, first, second, wins))


CANDIDATES = np.array([[0.1, 0.2], [-0.7, 0.5], [0.9, -0.9]])
REFERENCES = np.random.default_rng(5).uniform(-1, 1, size=(7, 2))


def entropy_bits(p):
    p = np.clip(p, 1e-300, 1)
    q = np.clip(1 - p, 1e-300, 1)
    return -(p * np.log2(p) + q * np.log2(q))
