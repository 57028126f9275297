"""Isolated-word recognition with one interface for every model, and its evaluation.

Units 1-3 build three recognisers for the same task: label a recording with one of a fixed set of
classes (the ten digits). They differ in the model behind a class score, not in how the score is
used, so they share one interface, :class:`Recogniser`:

* ``classes``: the sorted distinct classes, the columns of every score matrix;
* ``scores(items)``: shape ``(n_items, n_classes)``, **higher is better** (a log-likelihood, or
  minus a DTW distance);
* ``predict(items)`` (or ``predict(scores=S)`` for precomputed scores): ``argmax_c`` of the scores,
  as an array;
* ``evaluate(items, labels)``: a :class:`~course_lib.recognition.metrics.RecognitionReport`
  (accuracy and confusion matrix; the evaluation functions live in
  :mod:`course_lib.recognition.metrics`).

=========================  ===========================================  =============================
recogniser                 class score of an utterance X                built by
=========================  ===========================================  =============================
:class:`TemplateRecogniser`  ``-min_k d(X, Y_k)`` (or ``-mean_k``) over     its constructor (Unit 1)
                           the class's templates Y_k, d = DTW distance
:class:`GMMRecogniser`     ``sum_t log p(x_t | GMM_c)`` ("bag of frames")  :func:`fit_gmm_recogniser` (Unit 2)
:class:`HMMRecogniser`     ``log P(O | lambda_c)``, O = VQ symbols of X    :func:`fit_hmm_recogniser` (Unit 3)
=========================  ===========================================  =============================

When every class scores ``-inf`` for an item (no DTW path to any template; a symbol no model can
emit) no class is better than another; ``predict`` raises :class:`NoViableClassError` naming the
item instead of silently returning the first class.

The dev-set choice of a GMM recogniser's K and variance floor, which Units 2 and 3 both read, is
:func:`course_lib.recognition.selection.select_gmm_recogniser`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..hmm import inference as H
from ..hmm import vq
from ..dtw.distance_matrix import dtw_distance_matrix
from ..dtw.search import nearest_templates
from ..dtw.search import supports_lower_bounds
from ..dtw.alignment import as_sequence_list
from ..dtw.step_patterns import StepPattern, get_step_pattern
from ..gmm.em import score_samples
from ..gmm.mixture import GMMParams
from ..gmm.em import fit_gmm
from ..hmm.model import DiscreteHMM
from ..hmm.training import fit_hmm
from .metrics import RecognitionReport, evaluate, _label_array
from ..features import mean_variance_normalise
from ..validation import (RngLike, as_bool, as_float_array, as_positive_float, as_positive_int,
                          as_rng,
                         check_choice)

__all__ = ["NoViableClassError", "Recogniser",
           "TemplateRecogniser", "select_templates", "GMMRecogniser", "fit_gmm_recogniser",
           "VQFrontEnd", "HMMRecogniser", "fit_hmm_recogniser"]


class NoViableClassError(ValueError):
    """Every class scored -inf for an item, so no class can be chosen."""


def _predict_from_scores(scores, classes) -> np.ndarray:
    """``classes[argmax_c scores[i, c]]`` for each row; ties go to the first class.

    Raises :class:`NoViableClassError` when a row is ``-inf`` everywhere, and ``ValueError`` for
    NaN or ``+inf`` scores (a precomputed matrix gone wrong must not pick a class silently).
    """
    classes = _label_array(classes, "classes")
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.shape[1] != len(classes):
        raise ValueError(f"scores: expected shape (n_items, {len(classes)}), got {scores.shape}")
    if np.isnan(scores).any() or np.isposinf(scores).any():
        row = int(np.flatnonzero(np.isnan(scores).any(axis=1) | np.isposinf(scores).any(axis=1))[0])
        raise ValueError(f"scores: row {row} contains NaN or +inf ({scores[row].tolist()})")
    hopeless = np.all(np.isneginf(scores), axis=1)
    if hopeless.any():
        raise NoViableClassError(
            f"item {int(np.flatnonzero(hopeless)[0])}: every class scores -inf "
            f"({int(hopeless.sum())} such items), so no class can be chosen; see the "
            "recogniser's documentation for what makes a score -inf")
    return classes[np.argmax(scores, axis=1)]


class Recogniser:
    """The interface every recogniser implements; subclasses define ``classes`` and ``scores``."""

    classes: np.ndarray

    def scores(self, items) -> np.ndarray:
        raise NotImplementedError

    def predict(self, items=None, *, scores=None, **score_options) -> np.ndarray:
        """The best-scoring class of each item (pass ``scores`` to skip computing them)."""
        if scores is None:
            scores = self.scores(items, **score_options)
        return _predict_from_scores(scores, self.classes)

    def evaluate(self, items, labels, *, scores=None, **score_options) -> RecognitionReport:
        """Accuracy and confusion matrix of :meth:`predict` against the true ``labels``."""
        predictions = self.predict(items, scores=scores, **score_options)
        labels = _label_array(labels, "labels")
        if labels.shape != predictions.shape:
            raise ValueError(f"labels: expected one per item ({predictions.shape[0]}), got "
                             f"{labels.shape[0]}")
        return evaluate(labels, predictions, self.classes)


# --------------------------------------------------------------------------------------------
# Unit 1: DTW against stored templates
# --------------------------------------------------------------------------------------------

class TemplateRecogniser(Recogniser):
    """Isolated-word recognition by DTW against stored templates.

    The class score is minus the best match ``min_k d(X, Y_k)`` (``combine="min"``) or minus the
    average ``mean_k d(X, Y_k)`` (``combine="mean"``) over that class's templates Y_k, the two
    options of the slides. A query with no warping path to any template (a band too narrow for
    its length) scores -inf everywhere.
    """

    def __init__(self, templates, labels, *, combine: str = "min",
                 step_pattern: str | StepPattern = "symmetric2", metric: str = "euclidean",
                 band: int | None = None, variances=None, parallel: bool = False):
        self.templates = as_sequence_list(templates, "templates")
        self.labels = _label_array(labels, "labels")
        if self.labels.shape != (len(self.templates),):
            raise ValueError(f"labels: expected one label per template ({len(self.templates)}), "
                             f"got shape {self.labels.shape}")
        self.combine = check_choice(combine, "combine", {"min", "mean"})
        self.classes = np.unique(self.labels)
        get_step_pattern(step_pattern)
        self.dtw_options = dict(step_pattern=step_pattern, metric=metric, band=band,
                                variances=variances)
        self.parallel = as_bool(parallel, "parallel")

    def distances(self, queries) -> np.ndarray:
        """DTW distance of every query to every template, shape ``(Q, T)`` (+inf: no path)."""
        return dtw_distance_matrix(queries, self.templates, on_no_path="inf",
                                   parallel=self.parallel, **self.dtw_options)

    def scores(self, queries=None, *, distances=None) -> np.ndarray:
        """Minus the per-class distance, ``(Q, C)``; pass ``distances`` from :meth:`distances`."""
        if distances is None:
            if queries is None:
                raise TypeError("scores: pass the queries or their precomputed distances")
            dist = self.distances(queries)
        else:
            dist = _as_distances(distances)
        if dist.shape[1] != len(self.templates):
            raise ValueError(f"distances: expected shape (Q, {len(self.templates)}), got "
                             f"{dist.shape}")
        reduce = np.min if self.combine == "min" else np.mean
        return -np.stack([reduce(dist[:, self.labels == c], axis=1) for c in self.classes],
                         axis=1)

    def predict(self, items=None, *, scores=None, **score_options) -> np.ndarray:
        """The best-scoring class of each query (pass ``scores`` or ``distances`` to reuse them).

        With ``combine="min"`` and nothing precomputed that is the class of the nearest
        template, found by the pruned search :func:`course_lib.dtw.search.nearest_templates`:
        the same predictions, with most DTW computations skipped (not for "gaussian_nll",
        whose costs can be negative).
        """
        if (scores is None and not score_options and items is not None
                and self.combine == "min" and self.dtw_options["metric"] != "gaussian_nll"):
            return self._nearest_template_classes(items)
        return super().predict(items, scores=scores, **score_options)

    def _nearest_template_classes(self, queries) -> np.ndarray:
        # templates grouped by class, in class order: on a tie the search returns the lowest
        # index, which then lies in the first tied class, as argmax over the scores picks it
        order = np.argsort(np.searchsorted(self.classes, self.labels), kind="stable")
        options = {k: v for k, v in self.dtw_options.items() if k != "variances"}
        found = nearest_templates(
            queries, [self.templates[k] for k in order], on_no_path="inf", parallel=self.parallel,
            lower_bounds=supports_lower_bounds(options["step_pattern"], options["metric"]),
            **options)
        # minus the nearest distance for its class, -inf for the others: the scores' argmax
        scores = np.full((len(found.index), len(self.classes)), -np.inf)
        hit = np.flatnonzero(found.index >= 0)
        nearest_class = np.searchsorted(self.classes, self.labels[order][found.index[hit]])
        scores[hit, nearest_class] = -found.distance[hit]
        return _predict_from_scores(scores, self.classes)


def _as_distances(distances) -> np.ndarray:
    """A precomputed (Q, T) distance matrix: values >= 0, +inf allowed (no path), never NaN."""
    dist = as_float_array(distances, "distances", ndim=2, allow_inf="+inf")
    if (dist < 0).any():
        raise ValueError("distances: contains negative values (DTW distances are >= 0)")
    return dist


def select_templates(labels, n_per_class: int, *, groups=None, rng=None) -> np.ndarray:
    """Indices of ``n_per_class`` templates for every class (sorted).

    With ``groups`` (e.g. speaker ids), ``n_per_class`` groups are drawn at random among those
    that have every class, and all their items are used (so "3 templates per digit" means the
    recordings of 3 speakers); without it, items are drawn per class. A group with several items
    of one class contributes its first.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"labels: expected a non-empty 1-D array, got shape {labels.shape}")
    n_per_class = as_positive_int(n_per_class, "n_per_class")
    rng = as_rng(rng)
    classes = np.unique(labels)
    if groups is None:
        chosen = []
        for c in classes:
            members = np.flatnonzero(labels == c)
            if len(members) < n_per_class:
                raise ValueError(f"n_per_class: class {c.item()!r} has only {len(members)} items")
            chosen.extend(rng.choice(members, size=n_per_class, replace=False))
        return np.sort(np.asarray(chosen, dtype=np.int64))
    groups = np.asarray(groups)
    if groups.shape != labels.shape:
        raise ValueError(f"groups: expected shape {labels.shape}, got {groups.shape}")
    complete = [g for g in np.unique(groups)
                if set(labels[groups == g].tolist()) >= set(classes.tolist())]
    if len(complete) < n_per_class:
        raise ValueError(f"n_per_class: only {len(complete)} groups have every class, "
                         f"asked for {n_per_class}")
    picked = rng.choice(np.asarray(complete), size=n_per_class, replace=False)
    chosen = [np.flatnonzero((groups == g) & (labels == c))[0] for g in picked for c in classes]
    return np.sort(np.asarray(chosen, dtype=np.int64))


# --------------------------------------------------------------------------------------------
# Unit 2: one GMM per class over unordered frames
# --------------------------------------------------------------------------------------------

def _utterance_list(utterances, name: str) -> list[np.ndarray]:
    """``utterances`` checked and returned as a non-empty list of (T, D) float arrays (rows are
    frames), the check of every utterances argument of the GMM and HMM recognisers and of
    their dev-set choice; errors name the argument ``name``."""
    if isinstance(utterances, np.ndarray) and utterances.ndim == 2:
        raise TypeError(f"{name}: expected a list of (T, D) utterances, got one 2-D array "
                        "(wrap a single utterance in a list)")
    if utterances is None or isinstance(utterances, (str, bytes)) or len(utterances) == 0:
        raise ValueError(f"{name}: expected a non-empty list of (T, D) arrays")
    return [as_float_array(u, f"{name}[{i}]", ndim=2) for i, u in enumerate(utterances)]


@dataclass(frozen=True, eq=False)
class GMMRecogniser(Recogniser):
    """One GMM per class; the class score of an utterance is its total frame log-likelihood

        score_c(X) = sum_t log p(x_t | GMM_c).

    The frames are scored as if independent (a "bag of frames"): their order is ignored, which is
    what HMMs add back. With ``normalise_variance`` every utterance, in training and when scored,
    is first put through cepstral mean and variance normalisation
    (:func:`course_lib.features.mean_variance_normalise`).
    """

    classes: np.ndarray
    models: tuple[GMMParams, ...]
    normalise_variance: bool = False

    def scores(self, utterances) -> np.ndarray:
        """Total log-likelihood of each utterance (T_i, D) under each class; (n_items, C)."""
        frames = _normalised(_utterance_list(utterances, "utterances"), self.normalise_variance)
        lengths = np.array([len(f) for f in frames])
        stacked = np.vstack(frames)
        bounds = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        # one call per class over all frames, then per-utterance sums
        return np.column_stack([np.add.reduceat(score_samples(stacked, params), bounds)
                                for params in self.models])


def _normalised(frames: list[np.ndarray], normalise_variance: bool) -> list[np.ndarray]:
    return [mean_variance_normalise(f) for f in frames] if normalise_variance else frames


def fit_gmm_recogniser(utterances, labels, n_components: int, *, rng: RngLike = None,
                       normalise_variance: bool = False, floor_fraction: float | None = None,
                       **fit_options) -> GMMRecogniser:
    """Train one GMM per class on all frames of that class's utterances (each (T, D)).

    ``fit_options`` go to :func:`course_lib.gmm.em.fit_gmm` (covariance_type,
    variance_floor, ...). ``floor_fraction`` sets the variance floor instead: that fraction of
    each dimension's variance over all training frames (after the normalisation when
    ``normalise_variance``, see :class:`GMMRecogniser`). Classes are sorted; the fits share one
    ``rng`` stream.
    """
    normalise_variance = as_bool(normalise_variance, "normalise_variance")
    frames = _normalised(_utterance_list(utterances, "utterances"), normalise_variance)
    if floor_fraction is not None:
        if "variance_floor" in fit_options:
            raise TypeError("floor_fraction: give it or variance_floor, not both")
        fit_options["variance_floor"] = (as_positive_float(floor_fraction, "floor_fraction",
                                                           allow_zero=True)
                                         * np.vstack(frames).var(axis=0))
    labels = _label_array(labels, "labels")
    if len(labels) != len(frames):
        raise ValueError(f"labels: expected one label per utterance ({len(frames)}), got "
                         f"{len(labels)}")
    rng = as_rng(rng)
    classes = np.unique(labels)
    models = tuple(fit_gmm(np.vstack([f for f, c in zip(frames, labels) if c == cls]),
                           n_components, rng=rng, **fit_options).params for cls in classes)
    return GMMRecogniser(classes, models, normalise_variance)


# --------------------------------------------------------------------------------------------
# Unit 3: one discrete HMM per class over vector-quantised frames
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class VQFrontEnd:
    """Feature frames -> discrete symbols: standardise each dimension, then nearest centroid.

    ``z_t = (x_t - mean) / scale`` with the training frames' mean and standard deviation, then
    ``o_t = argmin_k ||z_t - c_k||``. Stored with the recogniser so new audio features are
    turned into symbols exactly as the training data were.
    """

    mean: np.ndarray
    scale: np.ndarray
    codebook: vq.Codebook

    @classmethod
    def fit(cls, utterances, codebook_size: int, *, rng: RngLike = None, tol: float = 1e-4,
            **codebook_options) -> "VQFrontEnd":
        """Standardiser and codebook (k-means, :func:`course_lib.hmm.vq.train_codebook`) of the frames."""
        frames = _utterance_list(utterances, "utterances")
        stacked = np.vstack(frames)
        mean, scale = stacked.mean(axis=0), stacked.std(axis=0)
        if np.any(scale == 0):
            raise ValueError(f"utterances: dimension(s) {np.flatnonzero(scale == 0).tolist()} "
                             "are constant, so they cannot be standardised")
        codebook = vq.train_codebook([(f - mean) / scale for f in frames], codebook_size,
                                     rng=rng, tol=tol, **codebook_options)
        return cls(mean, scale, codebook)

    @property
    def n_symbols(self) -> int:
        return self.codebook.size

    def standardise(self, utterances) -> list[np.ndarray]:
        return [(f - self.mean) / self.scale for f in _utterance_list(utterances, "utterances")]

    def symbols(self, utterances) -> list[np.ndarray]:
        """The symbol sequence of each utterance."""
        return vq.quantise_all(self.standardise(utterances), self.codebook)


@dataclass(frozen=True, eq=False)
class HMMRecogniser(Recogniser):
    """One discrete HMM per class; the class score is ``log P(O | lambda_c)``.

    With a ``front_end`` the items are feature matrices (T, D), turned into symbols by it; without
    one the items are symbol sequences. A sequence that no model can emit (a symbol with zero
    emission probability everywhere) scores -inf for every class; an emission floor in training
    prevents that.
    """

    classes: np.ndarray
    models: tuple[DiscreteHMM, ...]
    front_end: VQFrontEnd | None = None
    training_log_likelihoods: np.ndarray | None = None

    def __post_init__(self):
        if len(self.classes) != len(self.models) or not self.models:
            raise ValueError(f"models: expected one model per class, got {len(self.models)} "
                             f"models for {len(self.classes)} classes")

    def symbols(self, items) -> list:
        return list(items) if self.front_end is None else self.front_end.symbols(items)

    def scores(self, items) -> np.ndarray:
        """``log P(O_i | lambda_c)``, shape (n_items, C); -inf where a model cannot emit O_i."""
        batch = H.pack_sequences(self.symbols(items), min(m.n_symbols for m in self.models))
        return np.column_stack([H.log_likelihoods(m, batch) for m in self.models])


def fit_hmm_recogniser(items, labels, n_states: int, *, front_end: VQFrontEnd | None = None,
                       n_symbols: int | None = None, topology: str = "left-to-right",
                       skip: bool = False, n_restarts: int = 1, max_iter: int = 50,
                       tol: float = 1e-3, emission_floor: float = 1e-3, rng: RngLike = None,
                       progress: bool = False) -> HMMRecogniser:
    """Train one HMM per distinct label (:func:`course_lib.hmm.training.fit_hmm`) on that
    label's items.

    ``items`` are feature matrices when a ``front_end`` is given (its symbols are used), else
    symbol sequences over ``n_symbols`` symbols. The default emission floor keeps a test
    utterance with a symbol unseen in one class's training data from scoring -inf there.
    """
    labels = _label_array(labels, "labels")
    if front_end is not None:
        sequences = front_end.symbols(items)
        n_symbols = front_end.n_symbols
    else:
        if n_symbols is None:
            raise ValueError("n_symbols: required when items are symbol sequences (no front_end)")
        sequences = list(items)
    if len(labels) != len(sequences):
        raise ValueError(f"labels: expected one label per item ({len(sequences)}), got "
                         f"{len(labels)}")
    rng = as_rng(rng)
    classes = np.unique(labels)
    models, finals = [], []
    for cls in classes:
        own = [seq for seq, label in zip(sequences, labels) if label == cls]
        result = fit_hmm(own, n_states, n_symbols, topology=topology, skip=skip,
                         n_restarts=n_restarts, max_iter=max_iter, tol=tol,
                         emission_floor=emission_floor, rng=rng, progress=progress)
        models.append(result.hmm)
        finals.append(result.log_likelihood)
    return HMMRecogniser(classes, tuple(models), front_end, np.asarray(finals))

