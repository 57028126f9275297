"""Scoring an estimated level set on quasi-random points of a box (Unit 7, Wu et al. 2025).

:func:`f1_levelset` and :func:`brier_levelset` score a model's estimate of the sublevel set
{x : f(x) < threshold} against the true latent on quasi-random (scrambled Sobol) points of a box,
predicted in batches so that 2^20 points need little memory. The estimate is {mean < threshold}
(posterior probability above 1/2; Wu et al. 2025 do not spell their rule out), the Brier score
uses P(f < threshold) = Phi((threshold - mean) / sd)
(:func:`course_lib.metrics.levelset_probability`). The sampling and batching sit apart from
:mod:`course_lib.metrics` so that it shows the measures alone.

Reference: Wu et al. 2025 (F1 and Brier score of the estimated level set).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import qmc

from ..metrics import f1_from_counts, levelset_probability
from ..validation import RngLike, as_float_array, as_positive_int, as_rng, check_width

__all__ = ["f1_levelset", "brier_levelset"]

_MAX_LEVELSET_POINTS = 2 ** 20


def _check_bounds(bounds) -> np.ndarray:
    bounds = as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape[1] != 2:
        raise ValueError(f"bounds: expected one (low, high) row per input dimension, got shape "
                         f"{bounds.shape}")
    if np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError(f"bounds: expected low < high in every row, got row "
                         f"{int(np.argmax(bounds[:, 0] >= bounds[:, 1]))} = "
                         f"{bounds[bounds[:, 0] >= bounds[:, 1]][0].tolist()}")
    check_width(bounds[:, 0], bounds[:, 1], "bounds")
    return bounds


def _levelset_tally(model, true_function, threshold, bounds, n_points, batch_size, rng):
    """(true positives, false positives, false negatives, sum of squared Brier errors, n)."""
    if not callable(getattr(model, "predict", None)):
        raise TypeError(f"model: expected a fitted model with predict(X) -> (mean, var), got "
                        f"{type(model).__name__}")
    if not callable(true_function):
        raise TypeError(f"true_function: expected a function of an (n, d) array, got "
                        f"{type(true_function).__name__}")
    threshold = float(as_float_array(threshold, "threshold", ndim=0))
    bounds = _check_bounds(bounds)
    n_points = as_positive_int(n_points, "n_points", minimum=2, maximum=_MAX_LEVELSET_POINTS)
    batch_size = as_positive_int(batch_size, "batch_size")
    for name, value in (("n_points", n_points), ("batch_size", batch_size)):
        if value & (value - 1):
            raise ValueError(f"{name}: Sobol points keep their balance only in blocks of a "
                             f"power of two, got {value}")
    sobol = qmc.Sobol(bounds.shape[0], rng=as_rng(rng))
    tally = np.zeros(4)
    for start in range(0, n_points, batch_size):
        X = qmc.scale(sobol.random(min(batch_size, n_points - start)), bounds[:, 0],
                      bounds[:, 1])
        truth = as_float_array(true_function(X), "true_function", ndim=1)
        if truth.shape[0] != X.shape[0]:
            raise ValueError(f"true_function: expected one value per point ({X.shape[0]}), "
                             f"got {truth.shape[0]}")
        mean, var = model.predict(X)
        inside, predicted = truth < threshold, mean < threshold
        brier = (levelset_probability(mean, var, threshold) - inside) ** 2
        tally += [np.sum(inside & predicted), np.sum(predicted & ~inside),
                  np.sum(inside & ~predicted), brier.sum()]
    return (*tally, n_points)


def f1_levelset(model, true_function, threshold, bounds, *, n_points: int = 2 ** 16,
                batch_size: int = 2 ** 14, rng: RngLike = 0) -> float:
    """F1 score of the estimated sublevel set {mean < threshold} against the true one
    {true_function < threshold} on ``n_points`` scrambled Sobol points of the box ``bounds``
    ((d, 2) rows of (low, high)); module docstring.

    ``model.predict(X)`` must return the posterior (mean, variance) of the latent f;
    ``true_function(X)`` the true latent at the rows of X. ``n_points`` is a power of two up to
    2^20 (a set that fills 0.4 % of a 4-D box needs about 2^20 for a stable F1), predicted
    ``batch_size`` (a power of two) points at a time. ``rng`` scrambles the Sobol points; the
    default 0 gives every call the same points, so that models are compared on one set.
    F1 = 2 TP / (2 TP + FP + FN); when neither set has a member it is undefined and refused
    naming ``true_function``.
    """
    true_pos, false_pos, false_neg, _, _ = _levelset_tally(
        model, true_function, threshold, bounds, n_points, batch_size, rng)
    return f1_from_counts(true_pos, false_pos, false_neg, "true_function")


def brier_levelset(model, true_function, threshold, bounds, *, n_points: int = 2 ** 16,
                   batch_size: int = 2 ** 14, rng: RngLike = 0) -> float:
    """Brier score mean((P(f < threshold) - [true f < threshold])^2) over the same Sobol points
    as :func:`f1_levelset` (same arguments; 0 is perfect, 1/4 is a constant guess of 1/2)."""
    *_, squared_error, n = _levelset_tally(model, true_function, threshold, bounds, n_points,
                                           batch_size, rng)
    return float(squared_error / n)
