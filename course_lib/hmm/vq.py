"""Vector quantisation: turn feature frames (e.g. MFCCs) into discrete symbols for a discrete HMM.

A codebook is a set of K centroids ``c_0 .. c_{K-1}`` learnt by k-means
(:mod:`course_lib.gmm.clustering`) on the frames of all training utterances pooled together. A frame
``x_t`` becomes the symbol of its nearest centroid,

    o_t = argmin_k || x_t - c_k ||^2,

so an utterance of T frames (rows are frames, shape (T, D)) becomes T symbols in 0..K-1, and
K plays the role of the HMM's M. The price is the quantisation error: the mean squared distance
of a frame to its centroid, which falls as K grows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gmm.clustering import (assign_clusters_trusted, check_n_clusters, check_spread,
                              kmeans_trusted)
from ..validation import RngLike, as_float_array, as_positive_float, as_positive_int, as_rng

__all__ = ["Codebook", "train_codebook", "quantise", "quantise_all", "quantisation_error"]


@dataclass(frozen=True, eq=False)
class Codebook:
    """A VQ codebook: ``centroids`` (K, D), plus how the k-means run that made it went.

    ``inertia`` is the total squared distance of the training frames to their centroids.
    """

    centroids: np.ndarray
    inertia: float
    n_iter: int
    converged: bool

    @property
    def size(self) -> int:
        """K, the number of symbols the codebook produces."""
        return self.centroids.shape[0]

    @property
    def n_dims(self) -> int:
        """D, the dimension of a frame."""
        return self.centroids.shape[1]


def _as_frames_list(frames_list, name: str) -> list[np.ndarray]:
    """A list of (T_u, D) float arrays with one common D; one 2-D array counts as one utterance."""
    if isinstance(frames_list, np.ndarray) and frames_list.ndim == 2:
        frames_list = [frames_list]
    if isinstance(frames_list, (str, np.ndarray)) or not hasattr(frames_list, "__len__"):
        raise TypeError(f"{name}: expected a list of (T, D) frame arrays, "
                        f"got {type(frames_list).__name__}")
    if len(frames_list) == 0:
        raise ValueError(f"{name}: needs at least one utterance, got an empty list")
    arrays = [as_float_array(f, f"{name}[{u}]", ndim=2) for u, f in enumerate(frames_list)]
    dims = {a.shape[1] for a in arrays}
    if len(dims) > 1:
        raise ValueError(f"{name}: every utterance needs the same number of columns (D), "
                         f"got {sorted(dims)}")
    return arrays


def _centroids(codebook) -> np.ndarray:
    if isinstance(codebook, Codebook):
        # a Codebook may be built by hand: its centroids under the name k-means gives them
        return as_float_array(codebook.centroids, "centroids", ndim=2)
    return as_float_array(codebook, "codebook", ndim=2)


def _utterances_and_centroids(features_list, codebook):
    arrays = _as_frames_list(features_list, "features_list")
    centroids = _centroids(codebook)
    if arrays[0].shape[1] != centroids.shape[1]:
        raise ValueError(f"features_list: expected {centroids.shape[1]} columns like the "
                         f"codebook, got {arrays[0].shape[1]}")
    return arrays, centroids


def train_codebook(frames_list, codebook_size: int, *, rng: RngLike = None,
                   n_restarts: int = 1, max_iter: int = 100, tol: float = 1e-6) -> Codebook:
    """Learn a K-symbol codebook by k-means on all frames of all utterances pooled.
    Lecture 03, section 10.1 (Vector quantisation: frames become symbols).

    Parameters
    ----------
    frames_list : list of (T_u, D) arrays, rows are frames (or a single (T, D) array).
    codebook_size : K, the number of centroids (= the HMM's number of symbols M).
    rng : Generator, int seed or None, for the k-means++ seeding.
    n_restarts, max_iter, tol : passed to :func:`course_lib.gmm.clustering.kmeans` (``n_restarts`` runs
        from different seeds, the one with the lowest distortion kept).
    """
    frames = np.concatenate(_as_frames_list(frames_list, "frames_list"))
    codebook_size = check_n_clusters(frames, codebook_size, "codebook_size", "frames")
    # kmeans's own checks of what it alone checks, with its messages
    check_spread(frames)
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol", allow_zero=True)
    result = kmeans_trusted(frames, codebook_size, as_rng(rng), n_restarts=n_restarts,
                            max_iter=max_iter, tol=tol)
    centroids = result.centroids.copy()
    centroids.flags.writeable = False
    return Codebook(centroids, float(result.inertia), int(result.n_iter), bool(result.converged))


def quantise(features, codebook) -> np.ndarray:
    """Symbols of one utterance: ``o_t = argmin_k ||x_t - c_k||^2`` for each row x_t.
    Lecture 03, section 10.1 (Vector quantisation: frames become symbols).

    ``features`` is (T, D), rows are frames; ``codebook`` a :class:`Codebook` or a (K, D)
    array. Returns (T,) int64 symbols in 0..K-1 (ties go to the lower index).
    """
    features = as_float_array(features, "features", ndim=2)
    centroids = _centroids(codebook)
    if features.shape[1] != centroids.shape[1]:
        raise ValueError(f"features: expected {centroids.shape[1]} columns like the codebook, "
                         f"got shape {features.shape}")
    labels, _ = assign_clusters_trusted(features, centroids)
    return labels.astype(np.int64)


def quantise_all(features_list, codebook) -> list[np.ndarray]:
    """:func:`quantise` for a list of utterances, done as one distance computation."""
    arrays, centroids = _utterances_and_centroids(features_list, codebook)
    labels, _ = assign_clusters_trusted(np.concatenate(arrays), centroids)
    cuts = np.cumsum([a.shape[0] for a in arrays])[:-1]
    return np.split(labels.astype(np.int64), cuts)


def quantisation_error(features_list, codebook) -> float:
    """Mean squared distance of a frame to its nearest centroid (the VQ distortion per frame)."""
    arrays, centroids = _utterances_and_centroids(features_list, codebook)
    _, squared_distances = assign_clusters_trusted(np.concatenate(arrays), centroids)
    return float(squared_distances.mean())
