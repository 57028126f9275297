"""Small Unit 7 problems shared by the tests of its fits and of its explorers."""

import numpy as np
from scipy.stats import norm

from course_lib.mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint


def detection_problem(n=15):
    """Yes/no answers about a latent 0.5 x^2 on [-2, 2] and two constraints on items 0 and 2."""
    x = np.linspace(-2.0, 2.0, n)
    rng = np.random.default_rng(3)
    answers = (rng.random(n) < norm.cdf(0.5 * x ** 2)).astype(float)
    identity = np.eye(n)
    ends = [n // 2, n - 1]
    parts = [(BernoulliProbit(), identity, answers),
             (GaussianConstraint([0.05, 0.05]), identity[ends], [0.0, 2.0])]
    return x[:, None], parts


def trials(n=12):
    """Yes/no answers at random intensities in [0, 2] (in the order they were asked)."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0.0, 2.0, n)
    return x[:, None], (rng.random(n) < norm.cdf(0.5 * x ** 2)).astype(float)


CONSTRAINT_X, CONSTRAINT_Y = [[0.0], [2.0]], [0.0, 2.0]

