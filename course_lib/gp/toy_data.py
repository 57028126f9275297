"""Small synthetic data sets the lectures and their explorers share: a stated function plus
noise, one-dimensional so that every point can be seen.

* :func:`toy_regression_data` -- Unit 4's running example, y = sin(1.5 x) + 0.3 x + noise.
* :func:`ambiguous_regression_data` -- a draw from a GP whose log marginal likelihood has two
  local maxima (Rasmussen & Williams 2006, section 5.4.1).

People are simulated in :mod:`course_lib.simulators`; data that ship are loaded by
:mod:`course_lib.data`.
"""

from __future__ import annotations

import numpy as np

from .kernels import SquaredExponential
from ..linalg import sample_gaussian
from ..validation import RngLike, as_positive_float, as_positive_int, as_rng

__all__ = ["toy_regression_data", "ambiguous_regression_data"]


def toy_regression_data(n: int = 30, noise_sd: float = 0.2, *, rng: RngLike = 0):
    """A 1-D toy set: x ~ U(-4, 4) sorted, y = sin(1.5 x) + 0.3 x + N(0, noise_sd^2)."""
    n = as_positive_int(n, "n")
    noise_sd = as_positive_float(noise_sd, "noise_sd", allow_zero=True)
    rng = as_rng(rng)
    x = np.sort(rng.uniform(-4.0, 4.0, n))
    return x[:, None], np.sin(1.5 * x) + 0.3 * x + noise_sd * rng.standard_normal(n)


def ambiguous_regression_data(n: int = 12, *, rng: RngLike = 55):
    """A 1-D set with two explanations: x ~ U(-5, 5) sorted, f a draw from an SE-kernel GP
    (lengthscale 1, variance 1), y = f + N(0, 0.1^2).

    With the defaults (12 points, seed 55) the log marginal likelihood of an SE GP with its
    signal variance fixed at 1 has two local maxima over (lengthscale, noise variance): a
    wiggly fit with short lengthscale and little noise, and a smooth fit with a long
    lengthscale that calls the wiggles noise (Rasmussen & Williams 2006, section 5.4.1 show
    the same effect). Other seeds need not have two.
    """
    n = as_positive_int(n, "n")
    rng = as_rng(rng)
    x = np.sort(rng.uniform(-5.0, 5.0, n))
    f = sample_gaussian(np.zeros(n), SquaredExponential(1.0, 1.0)(x[:, None]), 1, rng=rng)[0]
    return x[:, None], f + 0.1 * rng.standard_normal(n)
