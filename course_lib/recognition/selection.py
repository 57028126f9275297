"""Choosing a GMM recogniser's size and variance floor on dev data (Units 2 and 3).

:func:`select_gmm_recogniser` trains one :class:`~course_lib.recognition.GMMRecogniser` per
candidate number of components K and variance floor on the training utterances
(:func:`course_lib.recognition.fit_gmm_recogniser`) and keeps the one with the highest accuracy
on the dev utterances, ties to the smallest K; :class:`GMMSelection` is the table of every
candidate, which a later unit reads instead of typing the choice (Unit 3 gets Unit 2's choice by
calling it with the same data and seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .recognisers import GMMRecogniser, _utterance_list, fit_gmm_recogniser
from .metrics import _label_array
from ..validation import RngLike, as_bool, as_positive_float, as_positive_int, as_rng

__all__ = ["GMMSelection", "select_gmm_recogniser"]


@dataclass(frozen=True, eq=False)
class GMMSelection:
    """The dev-set choice of a GMM recogniser's size and variance floor, one row per candidate.

    n_components, floor_fractions : (C,) the candidate K and floor fraction of each row (the
        floor is ``fraction * var`` of the training frames, per dimension).
    dev_accuracy : (C,) accuracy on the dev utterances.
    dev_log_likelihood : (C,) mean per-frame log-likelihood of the dev utterances under their
        own class's model.
    best_index : the chosen row: the highest dev accuracy, ties to the first row (the
        smallest K; rows run over K, then over the floor fractions in the order given).
    fit_options : the options every fit shared (covariance_type, max_iter, ...).

    A later unit reads the choice (``n_components``, ``floor_fraction``) from here instead of
    typing it, and :meth:`fit` trains the chosen configuration on other data.
    """

    n_components: np.ndarray
    floor_fractions: np.ndarray
    dev_accuracy: np.ndarray
    dev_log_likelihood: np.ndarray
    best_index: int
    fit_options: dict

    @property
    def chosen_n_components(self) -> int:
        return int(self.n_components[self.best_index])

    @property
    def chosen_floor_fraction(self) -> float:
        return float(self.floor_fractions[self.best_index])

    def fit(self, utterances, labels, *, rng: RngLike = None) -> GMMRecogniser:
        """The chosen configuration trained on ``utterances`` (floor relative to their frames)."""
        return fit_gmm_recogniser(utterances, labels, self.chosen_n_components, rng=rng,
                                  floor_fraction=self.chosen_floor_fraction, **self.fit_options)

    def summary(self) -> str:
        """The table as text, the chosen row marked."""
        lines = ["   K  floor  dev accuracy  dev log-lik/frame"]
        for i, (K, fraction, accuracy, loglik) in enumerate(zip(
                self.n_components, self.floor_fractions, self.dev_accuracy,
                self.dev_log_likelihood)):
            mark = "   <- chosen" if i == self.best_index else ""
            lines.append(f"{K:4d}  {fraction:5.3f}  {accuracy:12.3f}  {loglik:17.2f}{mark}")
        return "\n".join(lines)


def select_gmm_recogniser(train_utterances, train_labels, dev_utterances, dev_labels,
                          candidates=(1, 2, 4, 8, 16, 32), *, rng: RngLike,
                          floor_fractions=(0.01,), covariance_type: str = "diag",
                          max_iter: int = 30, progress: bool = False,
                          **fit_options) -> tuple[GMMRecogniser, GMMSelection]:
    """Choose the number of components K (and the variance floor) of a GMM recogniser on dev data.

    For every K in ``candidates`` and every fraction in ``floor_fractions`` a recogniser is
    trained on the training utterances (:func:`fit_gmm_recogniser`, variance floor = fraction
    times each dimension's variance over all training frames) and evaluated on the dev
    utterances. The row with the highest dev accuracy wins, ties going to the first row (the
    smallest K). The fits share one ``rng`` stream, in table order.

    The defaults are Unit 2's settings for the spoken digits (diagonal covariances, a floor of
    1% of the training variance, at most 30 EM iterations), so Unit 3 gets Unit 2's choice by
    calling this function with the same data and seed.

    Returns the chosen recogniser and the :class:`GMMSelection` table.
    """
    train, train_labels, dev, dev_labels = _checked_split(train_utterances, train_labels,
                                                          dev_utterances, dev_labels)
    if isinstance(candidates, (str, bytes)) or np.ndim(candidates) != 1 or len(candidates) == 0:
        raise ValueError("candidates: expected a non-empty sequence of numbers of components")
    candidates = [as_positive_int(K, "candidates") for K in candidates]
    if isinstance(floor_fractions, (str, bytes)) or np.ndim(floor_fractions) != 1 \
            or len(floor_fractions) == 0:
        raise ValueError("floor_fractions: expected a non-empty sequence of fractions >= 0")
    floor_fractions = [as_positive_float(f, "floor_fractions", allow_zero=True)
                       for f in floor_fractions]
    progress = as_bool(progress, "progress")
    rng = as_rng(rng)
    variance = np.vstack(train).var(axis=0)
    options = dict(covariance_type=covariance_type, max_iter=max_iter, **fit_options)
    grid = [(K, f) for K in candidates for f in floor_fractions]
    if progress:
        from tqdm.auto import tqdm
        grid_iter = tqdm(grid, desc="GMM recognisers", leave=False)
    else:
        grid_iter = grid
    n_dev_frames = sum(len(u) for u in dev)
    recognisers, accuracy, loglik = [], [], []
    for K, fraction in grid_iter:
        recogniser = fit_gmm_recogniser(train, train_labels, K, rng=rng,
                                        variance_floor=fraction * variance, **options)
        scores = recogniser.scores(dev)
        own = np.searchsorted(recogniser.classes, dev_labels)
        recognisers.append(recogniser)
        accuracy.append(recogniser.evaluate(dev, dev_labels, scores=scores).accuracy)
        loglik.append(float(scores[np.arange(len(dev)), own].sum()) / n_dev_frames)
    accuracy = np.array(accuracy)
    best = int(np.argmax(accuracy))
    table = GMMSelection(np.array([K for K, _ in grid]), np.array([f for _, f in grid]),
                         accuracy, np.array(loglik), best, options)
    return recognisers[best], table


def _checked_split(train_utterances, train_labels, dev_utterances, dev_labels):
    """The training and dev utterances as lists of (T, D) arrays with one label each: every dev
    label has training utterances, and both have the same columns."""
    train = _utterance_list(train_utterances, "train_utterances")
    dev = _utterance_list(dev_utterances, "dev_utterances")
    train_labels = _label_array(train_labels, "train_labels")
    dev_labels = _label_array(dev_labels, "dev_labels")
    for name, items, labels in (("train_labels", train, train_labels),
                                ("dev_labels", dev, dev_labels)):
        if len(labels) != len(items):
            raise ValueError(f"{name}: expected one label per utterance ({len(items)}), got "
                             f"{len(labels)}")
    unknown = np.setdiff1d(dev_labels, train_labels)
    if unknown.size:
        raise ValueError(f"dev_labels: {unknown[0]!r} has no training utterances")
    if dev[0].shape[1] != train[0].shape[1]:
        raise ValueError(f"dev_utterances: expected {train[0].shape[1]} columns like the "
                         f"training utterances, got {dev[0].shape[1]}")
    return train, train_labels, dev, dev_labels
