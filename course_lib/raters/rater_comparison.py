"""The comparisons Unit 5 draws between its models, on arrays of one data set.

* :func:`centre_scores`, :func:`fit_score_model` and :class:`ScoreModel`: a
  :class:`~course_lib.raters.multi_rater.MultiRaterGP` fitted to centred scores, with the offset
  added back to its predictions (a zero-mean GP on scores that sit around 5-7 of 10).
* :func:`noise_profile`: the joint model's log-likelihood over a grid of one rater's noise
  variance, split into its GP term and its spread term (:mod:`course_lib.raters.multi_rater`; with
  equal rater counts the log g(Y) of arXiv 2306.02719, 2024, eq. 4).
* :func:`fit_annotator_models` and :func:`true_noise_table`: the four models of
  Gil-González, Álvarez and Orozco (2019) fitted to one data set (GOLD, Av, MA, MANH), and the
  noise table a model with given regions should find.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import discretised_log_predictive
from ..validation import (RngLike, as_positive_float, as_positive_int, as_rng, check_choice,
                          as_float_array)
from ._noise_table import NOISE_FLOOR
from .annotator_noise import AnnotatorNoiseGP
from .regions import Regions, left_to_right, assign_regions
from ..gp.kernels import SquaredExponential
from .multi_rater import _MODES, MultiRaterGP, joint_evidence
from ..rater_data import RaterData
from ..gp.regression import GPRegression

__all__ = ["centre_scores", "ScoreModel", "fit_score_model", "NoiseProfile", "noise_profile",
           "fit_annotator_models", "true_noise_table"]


def centre_scores(data: RaterData) -> RaterData:
    """The same labels with every score minus the mean of the item means (no scale: centred
    scores are not whole numbers): what a zero-mean GP should be fitted to."""
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData, got {type(data).__name__}")
    return RaterData(data.items, data.raters, data.scores - data.means.mean(),
                     n_items=data.n_items, n_raters=data.n_raters)


@dataclass(frozen=True)
class ScoreModel:
    """A :class:`MultiRaterGP` fitted to centred scores, and the offset to add back.

    Both papers (arXiv 2306.02719 and Gil-González et al. 2019) use a zero-mean GP, but scores
    sit around 5-7 on a 0-10 scale: the model is
    fitted to the scores minus ``offset`` (the training mean of the item means).
    """

    model: MultiRaterGP
    offset: float

    def predict_one_rater(self, X_test) -> tuple[np.ndarray, np.ndarray, float]:
        """(mean score, latent variance, noise of one rater's score) at the rows of X_test."""
        mean, var = self.model.predict(X_test)
        return mean + self.offset, var, self.model.noise_variance

    def log_predictive(self, X_test, scale=(0, 10)) -> np.ndarray:
        """log P(one rater gives score c) for each test item and whole score c, (n*, L)."""
        mean, var = self.model.predict(X_test, include_noise=True)
        return discretised_log_predictive(mean + self.offset, var, scale)


def fit_score_model(X, data: RaterData, mode: str, *, lengthscale: float = 0.2,
                    variance: float = 4.0, noise_variance: float = 1.0, optimise: bool = True,
                    n_restarts: int = 3, rng: RngLike = 0) -> ScoreModel:
    """A :class:`MultiRaterGP` (SE kernel) of ``mode`` fitted to the centred scores of ``data``,
    by ML-II with ``n_restarts`` runs when ``optimise`` (else at the given hyper-parameters)."""
    check_choice(mode, "mode", _MODES)
    model = MultiRaterGP(SquaredExponential(lengthscale, variance), noise_variance,
                         mode=mode).fit(X, centre_scores(data))
    if optimise:
        model.optimise_hyperparameters(n_restarts, rng=rng)
    return ScoreModel(model, float(data.means.mean()))


@dataclass(frozen=True)
class NoiseProfile:
    """The joint model's evidence on a grid of one rater's noise variance, in its terms:
    ``total = gp_term + spread_term`` (see :func:`course_lib.raters.multi_rater.joint_evidence`).
    ``gp_term`` alone is the evidence of the GP on the mean scores with noise sigma^2 / R_i."""

    noise: np.ndarray
    gp_term: np.ndarray
    spread_term: np.ndarray
    total: np.ndarray


def noise_profile(K, data: RaterData, noise) -> NoiseProfile:
    """Evaluate :func:`~course_lib.raters.multi_rater.joint_evidence` (kernel matrix ``K`` of the
    items, centred scores ``data``) at every noise variance of the grid ``noise``."""
    noise = as_float_array(noise, "noise", ndim=1)
    terms = [joint_evidence(K, data, value) for value in noise]
    gp_term = np.array([term.gp_term.value for term in terms])
    spread_term = np.array([term.spread_term for term in terms])
    return NoiseProfile(noise, gp_term, spread_term, gp_term + spread_term)


def _se_kernel() -> SquaredExponential:
    return SquaredExponential(0.1, 1.0, lengthscale_bounds=(1e-3, 10.0),
                              variance_bounds=(1e-3, 100.0))


def fit_annotator_models(X, data: RaterData, gold, n_regions: int = 3,
                         noise_floor: float = NOISE_FLOOR, *, n_restarts: int = 3,
                         rng: RngLike = 0) -> tuple[dict, Regions]:
    """The four models of Gil-Gonzalez et al.'s comparison, each with an SE kernel fitted by ML-II
    (``n_restarts`` runs, every noise variance bounded below by ``noise_floor``):

    ``GOLD``  a GP on the gold labels (the upper bound no real data set allows);
    ``Av``    a GP on the average label of each item;
    ``MA``    :class:`~course_lib.raters.annotator_noise.AnnotatorNoiseGP`, one variance per annotator;
    ``MANH``  the same with one variance per (region, annotator), regions by k-means
              (``n_regions``, one-dimensional inputs numbered left to right, regions of fewer
              than 2 items merged).

    Returns ``(models, regions)``: the fitted models by name and MANH's regions.
    """
    rng = as_rng(rng)
    noise_floor = as_positive_float(noise_floor, "noise_floor")
    gold = as_float_array(gold, "gold", ndim=1)
    regions = assign_regions(X, as_positive_int(n_regions, "n_regions"), "kmeans", rng=rng,
                             min_size=2)
    if np.shape(X)[1] == 1:
        regions = left_to_right(regions)
    models = {
        "GOLD": GPRegression(_se_kernel(), 0.1, noise_bounds=(noise_floor, 100.0)).fit(X, gold),
        "Av": GPRegression(_se_kernel(), 0.1, noise_bounds=(noise_floor, 100.0)).fit(
            X, data.means),
        "MA": AnnotatorNoiseGP(_se_kernel(), data.n_raters, noise_variance=0.1,
                               noise_floor=noise_floor).fit(X, data),
        "MANH": AnnotatorNoiseGP(_se_kernel(), data.n_raters, regions, noise_variance=0.1,
                                 noise_floor=noise_floor).fit(X, data),
    }
    for model in models.values():
        model.optimise_hyperparameters(n_restarts, rng=rng)
    return models, regions


def true_noise_table(model_regions, true_regions, variance_table) -> np.ndarray:
    """The true noise variance of every (model region, annotator) cell: the mean, over the
    items of that model region, of the variance ``variance_table[true region, annotator]`` their
    labels were drawn with (the table itself when the two partitions agree). Shape
    (n_model_regions, n_annotators); ``model_regions=None`` gives GPR-MA's single row."""
    table = as_float_array(variance_table, "variance_table", ndim=2)
    true_labels = (true_regions.labels if isinstance(true_regions, Regions)
                   else np.asarray(true_regions))
    per_item = table[true_labels]
    if model_regions is None:
        return per_item.mean(axis=0, keepdims=True)
    labels = (model_regions.labels if isinstance(model_regions, Regions)
              else np.asarray(model_regions))
    return np.vstack([per_item[labels == region].mean(axis=0)
                      for region in range(int(labels.max()) + 1)])
