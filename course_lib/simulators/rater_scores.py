"""Simulated raters who score items: whole scores on a scale, and continuous labels whose noise
differs by annotator and by region of the input space.

* :func:`simulate_integer_scores` -- every rater r scores every item through its own straight
  line and noise, rounded and clipped to a scale (the shipped fluency panel was made this way,
  ``tools/make_fluency.py``); the models are in :mod:`course_lib.raters.multi_rater`.
* :func:`simulate_homogeneous`, :func:`simulate_regions` -- continuous labels y_ir = gold_i +
  N(0, s), one variance per annotator or per (region, annotator) (Gil-Gonzalez, Alvarez and
  Orozco, 2019); the models are in :mod:`course_lib.raters.annotator_noise`.
* ``ANNOTATOR_TOY_LAMBDA`` and :func:`annotator_toy_gold` -- that paper's toy problem (its
  section 4), drawn whole by :func:`annotator_toy_data`.
* :func:`toy_rater_data` -- the toy panel of Unit 5's explorers: utterances that differ in one
  number, the fraction x of their time spent in pauses, with true fluency :func:`toy_truth`,
  scored 0-10 by a panel of raters (one-dimensional, so that every score can be seen).

Each simulator returns a complete :class:`~course_lib.rater_data.RaterData` (the toy problems
return it with their inputs and truth).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..raters.regions import Regions, left_to_right, region_labels, assign_regions
from ..rater_data import RaterData
from ..metrics import check_scale
from ..validation import RngLike, as_positive_float, as_positive_int, as_rng, as_float_array

__all__ = ["simulate_integer_scores", "simulate_homogeneous", "simulate_regions",
           "ANNOTATOR_TOY_LAMBDA", "annotator_toy_gold", "AnnotatorToy", "annotator_toy_data",
           "TOY_KERNEL", "toy_truth", "ToyPanel", "toy_rater_data"]

#: Gil-Gonzalez et al.'s toy (their section 4): the gold standard z = sin(2 pi x) sin(6 pi x) on
#: [0, 1] and the noise table Lambda, entry [l, r] = noise variance of annotator r in region l;
#: each annotator is perfect (variance 0) in one region.
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
    low, high = check_scale(scale)
    rng = as_rng(rng)
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
    noise = np.asarray(as_rng(rng).standard_normal(variances.shape))
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
    :class:`~course_lib.raters.regions.Regions`); the toy's Lambda
    (zeros allowed: a perfect annotator in that region). Uses the random numbers of
    :func:`simulate_homogeneous`: with equal rows the two give the same labels."""
    gold = as_float_array(gold, "gold", ndim=1)
    labels, _ = region_labels(regions)
    if labels.size != gold.size:
        raise ValueError(f"regions: expected one region per item of gold ({gold.size}), got "
                         f"{labels.size}")
    table = _check_variances(variance_table, "variance_table", 2)
    if labels.max() >= table.shape[0]:
        raise ValueError(f"regions: region {labels.max()} has no row in variance_table "
                         f"({table.shape[0]} rows, one per region)")
    return _simulate(gold, table[labels], rng)


@dataclass(frozen=True)
class AnnotatorToy:
    """Gil-Gonzalez et al.'s toy: ``X`` (N, 1) inputs on [0, 1], ``gold`` their gold standard,
    ``regions`` the k-means regions the noise was simulated with (numbered left to right), ``data``
    the annotators' labels; ``X_test`` and ``gold_test`` the evenly spaced test inputs."""

    X: np.ndarray
    gold: np.ndarray
    regions: Regions
    data: RaterData
    X_test: np.ndarray
    gold_test: np.ndarray


def annotator_toy_data(variance_table=ANNOTATOR_TOY_LAMBDA, n_items: int = 60, n_test: int = 600,
                       *, rng: RngLike = 0) -> AnnotatorToy:
    """Gil-Gonzalez et al.'s toy: ``n_items`` inputs uniform on [0, 1], gold
    :func:`annotator_toy_gold`, as many k-means regions as ``variance_table`` has rows (numbered
    left to right), and one label per item from every annotator (column), y = gold +
    N(0, variance_table[region, annotator]) (:func:`simulate_regions`; zeros allowed). The
    draws come in a fixed order (inputs, regions, noise), so another table with the same ``rng``
    seed rescales the same noise."""
    table = as_float_array(variance_table, "variance_table", ndim=2)
    n_items = as_positive_int(n_items, "n_items", minimum=2 * table.shape[0])
    n_test = as_positive_int(n_test, "n_test")
    rng = as_rng(rng)
    x = np.sort(rng.uniform(0.0, 1.0, n_items))
    X = x[:, None]
    regions = left_to_right(assign_regions(X, table.shape[0], "kmeans", rng=rng))
    data = simulate_regions(annotator_toy_gold(x), regions, table, rng=rng)
    x_test = np.linspace(0.0, 1.0, n_test)
    return AnnotatorToy(X, annotator_toy_gold(x), regions, data, x_test[:, None],
                        annotator_toy_gold(x_test))


# The toy panel's scale: whole scores 0-10.
_TOY_SCALE = (0, 10)


#: The toy's kernel, close to what ML-II finds on it (lengthscale 0.2, variance 4): the
#: spread-term explorer holds it fixed so that only sigma^2 moves.
TOY_KERNEL = dict(lengthscale=0.2, variance=4.0)


def toy_truth(x) -> np.ndarray:
    """True fluency (0-10) of a toy utterance that spends a fraction x in [0, 1] of its time in
    pauses: 8 - 5x + sin(3 pi x), falling from 8 to 3 with a bump (short pauses barely hurt)."""
    x = as_float_array(x, "x")
    return 8.0 - 5.0 * x + np.sin(3.0 * np.pi * x)


@dataclass(frozen=True)
class ToyPanel:
    """Toy utterances scored by one panel of raters (see :func:`toy_rater_data`).

    ``X`` (n_items, 1) pause fractions, ``truth`` their true fluency, ``data`` the panel's
    scores; ``X_test``, ``truth_test``, ``test``: the same raters (same biases) scoring
    ``n_test`` evenly spaced test utterances (``None`` without test utterances).
    """

    X: np.ndarray
    truth: np.ndarray
    data: RaterData
    X_test: np.ndarray | None = None
    truth_test: np.ndarray | None = None
    test: RaterData | None = None


def toy_rater_data(n_items: int = 40, n_raters: int = 5, noise_sd: float = 1.0,
                   bias_sd: float = 0.0, *, n_test: int = 0, rng: RngLike = 0) -> ToyPanel:
    """Toy utterances scored by a panel of raters on the 0-10 scale.

    Training inputs are uniform on [0, 1] and sorted, test inputs evenly spaced on
    [0.02, 0.98]; truth is :func:`toy_truth`. Rater r has a bias b_r ~ N(0, bias_sd^2) and scores
    round(truth + b_r + N(0, noise_sd^2)), clipped to 0..10
    (:func:`simulate_integer_scores`). The draws come in a
    fixed order (biases, inputs, training noise, test noise), so the same ``rng`` seed with another
    ``noise_sd`` or ``bias_sd`` rescales the same random numbers.
    """
    n_items = as_positive_int(n_items, "n_items")
    n_raters = as_positive_int(n_raters, "n_raters")
    n_test = as_positive_int(n_test, "n_test", minimum=0)
    noise_sd = as_positive_float(noise_sd, "noise_sd", allow_zero=True)
    bias_sd = as_positive_float(bias_sd, "bias_sd", allow_zero=True)
    rng = as_rng(rng)
    bias = bias_sd * rng.standard_normal(n_raters)
    x = np.sort(rng.uniform(0.0, 1.0, n_items))
    x_test = np.linspace(0.02, 0.98, n_test)
    slope, noise = np.ones(n_raters), np.full(n_raters, noise_sd)
    panels = [(x[:, None], toy_truth(x), simulate_integer_scores(
        toy_truth(x), bias, slope, noise, scale=_TOY_SCALE, rng=rng))]
    if n_test:
        panels.append((x_test[:, None], toy_truth(x_test), simulate_integer_scores(
            toy_truth(x_test), bias, slope, noise, scale=_TOY_SCALE, rng=rng)))
    return ToyPanel(*[part for panel in panels for part in panel])
