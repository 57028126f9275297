"""Simulated raters who score items: whole scores on a scale, and continuous labels whose noise
differs by annotator and by region of the input space.

* :func:`simulate_integer_scores` -- every rater r scores every item through its own straight
  line and noise, rounded and clipped to a scale (the shipped fluency panel was made this way,
  ``tools/make_fluency.py``); the models are in :mod:`course_lib.gp.multi_rater`.
* :func:`simulate_homogeneous`, :func:`simulate_regions` -- continuous labels y_ir = gold_i +
  N(0, s), one variance per annotator or per (region, annotator) (Gil-Gonzalez, Alvarez and
  Orozco, 2018); the models are in :mod:`course_lib.gp.annotator_noise`.
* ``ANNOTATOR_TOY_LAMBDA`` and :func:`annotator_toy_gold` -- that paper's toy problem (its section 4).

Each returns a complete :class:`~course_lib.gp.rater_data.RaterData`.
"""

from __future__ import annotations

import numpy as np

from ..gp.annotator_regions import _region_labels
from ..gp.rater_data import RaterData
from ..metrics import _check_scale
from ..validation import RngLike, as_float_array, _as_rng

__all__ = ["simulate_integer_scores", "simulate_homogeneous", "simulate_regions",
           "ANNOTATOR_TOY_LAMBDA", "annotator_toy_gold"]

#: Gil-Gonzalez et al.'s toy (their section 4): the gold standard z = sin(2 pi x) sin(6 pi x) on [0, 1] and
#: the noise table Lambda, entry [l, r] = noise variance of annotator r in region l; each
#: annotator is perfect (variance 0) in one region.
ANNOTATOR_TOY_LAMBDA = np.array([[0.0, 0.65, 1.0],
                           [0.25, 0.0, 0.75],
                           [0.1, 0.75, 0.0]])
ANNOTATOR_TOY_LAMBDA.setflags(write=False)


def annotator_toy_gold(x) -> np.ndarray:
    """The gold standard of Gil-Gonzalez et al.'s toy, z = sin(2 pi x) sin(6 pi x)."""
    x = as_float_array(x, "x")
    return np.sin(2.0 * np.pi * x) * np.sin(6.0 * np.pi * x)


def simulate_integer_scores(truth, bias, slope, noise_sd, *, scale=(0, 10),
                            rng: RngLike = None) -> RaterData:
    """Every rater r scores every item i: round(slope_r * truth_i + bias_r + N(0, noise_sd_r^2)),
    clipped to ``scale`` (whole scores, rounded half up). ``bias``, ``slope``, ``noise_sd``:
    one value per rater (``noise_sd`` >= 0). Returns a complete :class:`RaterData`."""
    truth = as_float_array(truth, "truth", ndim=1)
    bias = as_float_array(bias, "bias", ndim=1)
    slope = as_float_array(slope, "slope", ndim=1)
    noise_sd = as_float_array(noise_sd, "noise_sd", ndim=1)
    for name, values in (("slope", slope), ("noise_sd", noise_sd)):
        if values.shape != bias.shape:
            raise ValueError(f"{name}: expected one value per rater ({bias.size}, as bias), "
                             f"got {values.size}")
    if np.any(noise_sd < 0):
        raise ValueError("noise_sd: must be >= 0")
    low, high = _check_scale(scale)
    rng = _as_rng(rng)
    raw = slope[None, :] * truth[:, None] + bias[None, :] + noise_sd[None, :] * \
        rng.standard_normal((truth.size, bias.size))
    scores = np.clip(np.floor(raw + 0.5), low, high)
    return RaterData.from_matrix(scores, scale=(low, high))


def _check_variances(values, name: str, ndim: int) -> np.ndarray:
    values = as_float_array(values, name, ndim=ndim)
    if np.any(values < 0):
        raise ValueError(f"{name}: noise variances must be >= 0 (0 = a perfect annotator)")
    return values


def _simulate(gold: np.ndarray, variances: np.ndarray, rng) -> RaterData:
    """Every annotator labels every item: y_ir = gold_i + sqrt(variances[i, r]) * N(0, 1)."""
    noise = np.asarray(_as_rng(rng).standard_normal(variances.shape))
    return RaterData.from_matrix(gold[:, None] + np.sqrt(variances) * noise)


def simulate_homogeneous(gold, variances, *, rng: RngLike = None) -> RaterData:
    """Annotator r labels every item with y_ir = gold_i + N(0, variances[r]) (continuous
    labels, no scale). ``variances``: one per annotator, >= 0."""
    gold = as_float_array(gold, "gold", ndim=1)
    variances = _check_variances(variances, "variances", 1)
    return _simulate(gold, np.broadcast_to(variances, (gold.size, variances.size)), rng)


def simulate_regions(gold, regions, variance_table, *, rng: RngLike = None) -> RaterData:
    """Annotator r labels every item with y_ir = gold_i + N(0, variance_table[l(i), r]), l(i)
    the region of item i (``regions``: (N,) indices or a
    :class:`~course_lib.gp.annotator_regions.Regions`); the toy's Lambda
    (zeros allowed: a perfect annotator in that region). Uses the random numbers of
    :func:`simulate_homogeneous`: with equal rows the two give the same labels."""
    gold = as_float_array(gold, "gold", ndim=1)
    labels, _ = _region_labels(regions)
    if labels.size != gold.size:
        raise ValueError(f"regions: expected one region per item of gold ({gold.size}), got "
                         f"{labels.size}")
    table = _check_variances(variance_table, "variance_table", 2)
    if labels.max() >= table.shape[0]:
        raise ValueError(f"regions: region {labels.max()} has no row in variance_table "
                         f"({table.shape[0]} rows, one per region)")
    return _simulate(gold, table[labels], rng)
