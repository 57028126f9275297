"""Scores of an estimated level set (course_lib.mixed.levelset_metrics), hand-worked on a line."""

import numpy as np
from scipy.integrate import quad
from scipy.stats import norm

from course_lib.mixed.levelset_metrics import brier_levelset, f1_levelset


class _LineModel:
    """A stand-in posterior on [0, 1]: mean x, a fixed variance (for hand-worked values)."""

    def __init__(self, var):
        self.var = var

    def predict(self, X):
        return X[:, 0], np.full(X.shape[0], self.var)


def test_f1_and_brier_levelset_hand_worked():
    """Truth f = x - 0.1 (set x < 0.6), estimate mean = x (set x < 0.5), threshold 0.5:
    TP = 0.5, FP = 0, FN = 0.1 of the interval, so F1 = 1 / 1.1; with zero variance the
    Brier score is the misclassified length 0.1."""
    bounds = [[0.0, 1.0]]
    truth = lambda X: X[:, 0] - 0.1  # noqa: E731
    assert abs(f1_levelset(_LineModel(0.0), truth, 0.5, bounds) - 1 / 1.1) < 1e-4
    assert abs(brier_levelset(_LineModel(0.0), truth, 0.5, bounds) - 0.1) < 1e-4
    sd = 0.2  # Brier = integral of (Phi((0.5 - x) / sd) - [x < 0.6])^2 over [0, 1]
    exact = quad(lambda x: (norm.cdf((0.5 - x) / sd) - (x < 0.6)) ** 2, 0, 1, points=[0.6])[0]
    assert abs(brier_levelset(_LineModel(sd ** 2), truth, 0.5, bounds) - exact) < 1e-4
