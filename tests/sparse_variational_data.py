"""Test data shared by the tests of the sparse variational GP (its bound and its model)."""

import numpy as np
from scipy.stats import norm

from course_lib.gp import SquaredExponential
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint
from course_lib.mixed import MixedLikelihood

RNG = np.random.default_rng(7)
X12 = np.sort(RNG.uniform(0.0, 5.0, 12))[:, None]
Y12 = np.sin(X12[:, 0]) + 0.3 * RNG.standard_normal(12)
SE = SquaredExponential(1.0, 1.0)
TIGHT = {"tol": 1e-15}


def detection_2d(n_trials=40, seed=3):
    """Yes/no answers on a 2-D box plus constraints at the left edge (never seen, f = 0) and the
    right edge (seen, f = 2), every item its own row: Wu et al.'s mixed set-up in miniature."""
    rng = np.random.default_rng(seed)
    trials = rng.uniform(0.0, 1.0, (n_trials, 2))
    answers = (rng.uniform(size=n_trials) < norm.cdf(4.0 * trials[:, 0] - 2.0)).astype(float)
    edge = np.linspace(0.0, 1.0, 4)
    constraints = np.r_[np.c_[np.zeros(4), edge], np.c_[np.ones(4), edge]]
    targets = np.r_[np.zeros(4), np.full(4, 2.0)]
    X = np.vstack([trials, constraints])
    n = X.shape[0]
    mixed = MixedLikelihood([
        (BernoulliProbit(), np.eye(n)[:n_trials], answers),
        (GaussianConstraint(0.2 * np.abs(targets) + 0.1), np.eye(n)[n_trials:], targets)])
    return X, mixed, constraints


def probit_pairs():
    """Probit answers about pairs of 10 items (rows +1/-1: c = diag(M K M^T) needs K_XX)."""
    rng = np.random.default_rng(11)
    X = np.sort(rng.uniform(0.0, 3.0, 10))[:, None]
    first, second = rng.integers(0, 10, 25), rng.integers(0, 10, 25)
    keep = first != second
    first, second = first[keep], second[keep]
    M = np.zeros((first.size, 10))
    M[np.arange(first.size), first] = 1.0
    M[np.arange(first.size), second] = -1.0
    y = (np.sin(2 * X[first, 0]) - np.sin(2 * X[second, 0])
         + 0.5 * rng.standard_normal(first.size) > 0).astype(float)
    return X, M, y
