"""Choosing the number of components K of a Gaussian mixture (Unit 2).

On held-out data: fit each candidate K on the training frames and keep the one whose mean
log-likelihood on the dev frames is highest (:func:`select_n_components`), or grow a mixture
from one Gaussian by splitting every component in two (HTK's mixture splitting, Young et al.,
*The HTK Book*) while the dev score still rises (:func:`split_components`,
:func:`grow_by_splitting`).

By a complexity penalty, without held-out data: the Bayesian information criterion (Schwarz
1978), BIC = -2 l(theta) + p ln N with p free parameters (:func:`n_parameters`, :func:`bic`).

Every fit is :func:`course_lib.gmm.em.fit_gmm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .gaussian import _COVARIANCE_TYPES
from .em import average_log_likelihood, score_samples
from .mixture import GMMParams, _check_params
from .em import fit_gmm
from .clustering import _count_distinct_rows
from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_choice)

__all__ = ["n_parameters", "bic", "ModelSelection", "select_n_components", "split_components",
           "SplitStep", "SplitHistory", "grow_by_splitting"]


def n_parameters(n_components: int, n_features: int, covariance_type: str = "full") -> int:
    """Number of free parameters p of a K-component mixture in D dimensions.

        p = (K - 1) weights + K D means + K D (D + 1) / 2 covariances   ("full")
        p = (K - 1) weights + K D means + K D variances                 ("diag")

    (the weights lose one because they sum to one; a symmetric D x D matrix has D (D + 1) / 2
    free entries).
    """
    K = as_positive_int(n_components, "n_components")
    D = as_positive_int(n_features, "n_features")
    check_choice(covariance_type, "covariance_type", _COVARIANCE_TYPES)
    per_covariance = D * (D + 1) // 2 if covariance_type == "full" else D
    return (K - 1) + K * D + K * per_covariance


def bic(X, params: GMMParams) -> float:
    """Bayesian information criterion of a fitted mixture on the frames ``X`` (N, D):

        BIC = -2 l(theta) + p ln N,   l(theta) = sum_n log p(x_n | theta),

    with p = :func:`n_parameters`. Lower is better: the first term rewards fit, the second
    charges ln N per free parameter (a large-N approximation of -2 log p(X | K) that needs no
    held-out data). Same convention as scikit-learn's ``GaussianMixture.bic``.
    Lecture 02, section 11 (How many components?).
    """
    log_px = score_samples(X, params)  # checks X and params
    p = n_parameters(params.n_components, params.n_features, params.covariance_type)
    return -2.0 * float(log_px.sum()) + p * np.log(log_px.shape[0])


@dataclass(frozen=True, eq=False)
class ModelSelection:
    """Selection of K for each candidate: held-out scores and the BIC of the same fits.

    n_components : (C,) candidates; train_scores, dev_scores : (C,) mean log p(x) per frame;
    models : the fitted parameters; best_index : argmax of dev_scores;
    bic : (C,) :func:`bic` of each model on the training frames (lower is better).
    """

    n_components: np.ndarray
    train_scores: np.ndarray
    dev_scores: np.ndarray
    models: tuple
    best_index: int
    bic: np.ndarray

    @property
    def best(self) -> GMMParams:
        return self.models[self.best_index]

    @property
    def bic_best_index(self) -> int:
        """Index of the candidate with the lowest BIC (no held-out data needed)."""
        return int(np.argmin(self.bic))


def _check_dev(X_dev, D):
    X_dev = as_float_array(X_dev, "X_dev", ndim=2)
    if X_dev.shape[1] != D:
        raise ValueError(f"X_dev: expected {D} columns like X_train, got shape {X_dev.shape}")
    return X_dev


def select_n_components(X_train, X_dev, candidates: Sequence[int], *,
                        rng: RngLike = None, **fit_kwargs) -> ModelSelection:
    """Fit a mixture for each K in ``candidates`` on X_train and score it on X_dev.

    The training score keeps rising with K (in the limit every frame gets its own tiny
    Gaussian), the dev score peaks: choose K = argmax of the dev score. The BIC of each fit on
    the training frames is recorded too, for the complexity-penalty choice argmin BIC.
    ``fit_kwargs`` go to :func:`fit_gmm`; the fits share one ``rng`` stream.
    """
    X_train = as_float_array(X_train, "X_train", ndim=2)
    X_dev = _check_dev(X_dev, X_train.shape[1])
    candidates = np.array([as_positive_int(k, "candidates") for k in candidates], dtype=int)
    if candidates.size == 0:
        raise ValueError("candidates: give at least one number of components")
    rng = as_rng(rng)
    models, train, dev, criterion = [], [], [], []
    for K in candidates:
        params = fit_gmm(X_train, int(K), rng=rng, **fit_kwargs).params
        models.append(params)
        train.append(average_log_likelihood(X_train, params))
        dev.append(average_log_likelihood(X_dev, params))
        criterion.append(bic(X_train, params))
    dev = np.array(dev)
    return ModelSelection(candidates, np.array(train), dev, tuple(models), int(np.argmax(dev)),
                          np.array(criterion))


# ----------------------------------------------------------------------------- splitting

def split_components(params: GMMParams, perturbation: float = 0.2, *,
                     rng: RngLike = None) -> GMMParams:
    """Split every component into two: mu_k +/- delta_k, halved weights, same covariance.
    Lecture 02, section 11 (How many components?).

    delta_k = perturbation * sqrt(diag Sigma_k) * u_k with u_k ~ N(0, I): a small random step
    measured in the component's own standard deviations. Component k becomes 2k and 2k + 1.
    """
    params = _check_params(params)
    perturbation = as_positive_float(perturbation, "perturbation")
    rng = as_rng(rng)
    K, D = params.means.shape
    std = np.sqrt(params.covariances if params.covariance_type == "diag"
                  else np.diagonal(params.covariances, axis1=1, axis2=2))
    delta = perturbation * std * rng.standard_normal((K, D))
    means = np.stack([params.means + delta, params.means - delta], axis=1).reshape(2 * K, D)
    return GMMParams(np.repeat(params.weights / 2, 2), means,
                     np.repeat(params.covariances, 2, axis=0), params.covariance_type)


@dataclass(frozen=True, eq=False)
class SplitStep:
    """One round of :func:`grow_by_splitting`: K, per-frame train/dev scores, the model."""

    n_components: int
    train_score: float
    dev_score: float
    params: GMMParams


@dataclass(frozen=True, eq=False)
class SplitHistory:
    """All rounds of splitting (the last one may be the dev-set drop that stopped it)."""

    steps: tuple[SplitStep, ...]
    best_index: int

    @property
    def best(self) -> GMMParams:
        return self.steps[self.best_index].params

    @property
    def n_components(self) -> np.ndarray:
        return np.array([s.n_components for s in self.steps])

    @property
    def dev_scores(self) -> np.ndarray:
        return np.array([s.dev_score for s in self.steps])

    @property
    def train_scores(self) -> np.ndarray:
        return np.array([s.train_score for s in self.steps])


_SPLIT_TOL = 1e-6  # per-frame convergence tolerance for EM after a split


def grow_by_splitting(X_train, X_dev, *, max_components: int = 64, perturbation: float = 0.2,
                      rng: RngLike = None, **fit_kwargs) -> SplitHistory:
    """Grow a mixture by splitting, keeping it while the dev set improves.

    Start with one Gaussian and run EM; repeat: split every component in two
    (:func:`split_components`), run EM from there, score the dev set; stop when the dev
    per-frame log-likelihood no longer improves or K would exceed ``max_components`` (or the
    number of distinct training frames). ``fit_kwargs`` (covariance_type, variance_floor,
    prior, ridge, max_iter, tol) go to :func:`fit_gmm`; ``tol`` defaults to 1e-6.
    """
    X_train = as_float_array(X_train, "X_train", ndim=2)
    X_dev = _check_dev(X_dev, X_train.shape[1])
    max_components = as_positive_int(max_components, "max_components")
    rng = as_rng(rng)
    distinct = _count_distinct_rows(X_train)
    # Just after a split the two halves barely differ, so the log-likelihood moves little at
    # first: fit_gmm's default tol would stop EM after one step and splitting would stall.
    fit_kwargs.setdefault("tol", _SPLIT_TOL)
    params = fit_gmm(X_train, 1, rng=rng, **fit_kwargs).params
    steps = [SplitStep(1, average_log_likelihood(X_train, params),
                       average_log_likelihood(X_dev, params), params)]
    best = 0
    while 2 * params.n_components <= min(max_components, distinct):
        start = split_components(params, perturbation, rng=rng)
        params = fit_gmm(X_train, start.n_components, init=start, **fit_kwargs).params
        steps.append(SplitStep(params.n_components, average_log_likelihood(X_train, params),
                               average_log_likelihood(X_dev, params), params))
        if steps[-1].dev_score <= steps[best].dev_score:
            break
        best = len(steps) - 1
    return SplitHistory(tuple(steps), best)
