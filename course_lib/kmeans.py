"""k-means clustering (Lloyd's algorithm) with k-means++ seeding.

Rows of ``X`` are points (frames), columns are dimensions. The objective is the inertia

    J = sum_n || x_n - c_{z_n} ||^2,    z_n = argmin_k || x_n - c_k ||^2,

which Lloyd's algorithm lowers by alternating the assignment step (each point to its nearest
centroid) and the update step (each centroid to the mean of its points). It is used to
initialise Gaussian mixtures (:mod:`course_lib.gmm`) and as the vector quantiser of the discrete
HMM unit.

Empty clusters: when an update leaves cluster k without points, its centroid is re-seeded at
the point that is currently worst explained (largest squared distance to its own centroid);
several empty clusters take the worst points in turn. A re-seeded centroid never gets NaN and
the inertia does not go up (the moved point's distance drops to zero).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                         check_choice)

__all__ = ["KMeansResult", "kmeans", "assign_clusters", "pairwise_squared_distances",
           "count_distinct_rows"]


@dataclass(frozen=True)
class KMeansResult:
    """The outcome of :func:`kmeans` (the best of its restarts).

    centroids : (K, D) cluster centres c_k.
    labels : (N,) index of each point's nearest centroid (consistent with ``centroids``).
    inertia : sum of squared distances of the points to their centroids.
    n_iter : number of update steps the kept run took.
    converged : whether that run met the stopping rule before ``max_iter``.
    """

    centroids: np.ndarray
    labels: np.ndarray
    inertia: float
    n_iter: int
    converged: bool


def pairwise_squared_distances(X: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances d2[n, k] = ||x_n - c_k||^2, shape (N, K).

    Uses ||x||^2 - 2 x.c + ||c||^2 (one matrix product) and clips the round-off below zero.
    """
    d2 = (np.einsum("nd,nd->n", X, X)[:, None] - 2.0 * (X @ centroids.T)
          + np.einsum("kd,kd->k", centroids, centroids)[None, :])
    return np.maximum(d2, 0.0, out=d2)


def count_distinct_rows(X: np.ndarray) -> int:
    """Number of distinct rows of a 2-D array."""
    return int(np.unique(X, axis=0).shape[0])


def assign_clusters(X, centroids) -> tuple[np.ndarray, np.ndarray]:
    """Assignment step: z_n = argmin_k ||x_n - c_k||^2.

    Parameters
    ----------
    X : (N, D) points, rows are frames.
    centroids : (K, D) codebook.

    Returns
    -------
    labels : (N,) int index of the nearest centroid (the lowest index on ties).
    squared_distances : (N,) squared distance of each point to that centroid, so the inertia
        is ``squared_distances.sum()``.
    """
    X = as_float_array(X, "X", ndim=2)
    centroids = as_float_array(centroids, "centroids", ndim=2)
    if centroids.shape[1] != X.shape[1]:
        raise ValueError(f"centroids: expected {X.shape[1]} columns like X, "
                         f"got shape {centroids.shape}")
    return _assign(X, centroids)


def _assign(X, centroids):
    d2 = pairwise_squared_distances(X, centroids)
    labels = np.argmin(d2, axis=1)
    return labels, d2[np.arange(X.shape[0]), labels]


def _kmeans_plus_plus(X, n_clusters, rng):
    """k-means++ seeding: first centre uniform, each next one drawn with probability ~ D(x)^2."""
    N = X.shape[0]
    centroids = np.empty((n_clusters, X.shape[1]))
    centroids[0] = X[rng.integers(N)]
    closest = pairwise_squared_distances(X, centroids[:1])[:, 0]
    for k in range(1, n_clusters):
        # at least n_clusters distinct rows exist, so some point is still at distance > 0
        centroids[k] = X[rng.choice(N, p=closest / closest.sum())]
        closest = np.minimum(closest, pairwise_squared_distances(X, centroids[k:k + 1])[:, 0])
    return centroids


def _update(X, labels, squared_distances, n_clusters):
    """Update step c_k = mean of the points with z_n = k, re-seeding empty clusters."""
    counts = np.bincount(labels, minlength=n_clusters)
    sums = np.zeros((n_clusters, X.shape[1]))
    np.add.at(sums, labels, X)
    centroids = sums / np.maximum(counts, 1)[:, None]
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        worst = np.argsort(squared_distances)[::-1][:empty.size]
        centroids[empty] = X[worst]
    return centroids


def _lloyd(X, centroids, max_iter, tol):
    n_clusters = centroids.shape[0]
    labels, d2 = _assign(X, centroids)
    inertia = float(d2.sum())
    for n_iter in range(1, max_iter + 1):
        centroids = _update(X, labels, d2, n_clusters)
        new_labels, d2 = _assign(X, centroids)
        new_inertia = float(d2.sum())
        unchanged = np.array_equal(new_labels, labels)
        small_gain = inertia - new_inertia <= tol * inertia
        labels, inertia = new_labels, new_inertia
        if unchanged or small_gain:
            return KMeansResult(centroids, labels, inertia, n_iter, True)
    return KMeansResult(centroids, labels, inertia, max_iter, False)


def kmeans(X, n_clusters: int, *, init="k-means++", n_init: int = 1, max_iter: int = 100,
           tol: float = 1e-6, rng: RngLike = None) -> KMeansResult:
    """Cluster the rows of ``X`` into ``n_clusters`` groups with Lloyd's algorithm.

    Each run alternates  z_n = argmin_k ||x_n - c_k||^2  and  c_k = mean{x_n : z_n = k}
    until the assignments stop changing or the inertia J falls by at most ``tol * J`` in one
    step (relative tolerance), or ``max_iter`` update steps have run.

    Parameters
    ----------
    X : (N, D) points, rows are frames.
    n_clusters : K, at most the number of distinct rows of X.
    init : "k-means++" (seeds spread out, drawn with probability ~ squared distance to the
        nearest chosen seed), "random" (K distinct data rows) or a (K, D) array of centroids.
    n_init : number of runs from different seeds; the run with the lowest inertia is kept.
        With an explicit array ``init`` every run would be the same, so only one is done.
    max_iter : maximum number of update steps per run.
    tol : relative inertia decrease below which a run counts as converged (>= 0).
    rng : Generator, int seed or None, used for the seeding.

    Returns
    -------
    KMeansResult with centroids (K, D), labels (N,), inertia, n_iter, converged.
    """
    X = as_float_array(X, "X", ndim=2)
    n_clusters = as_positive_int(n_clusters, "n_clusters")
    n_init = as_positive_int(n_init, "n_init")
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol", allow_zero=True)
    rng = as_rng(rng)
    N, D = X.shape
    if n_clusters > N:
        raise ValueError(f"n_clusters: {n_clusters} clusters need at least as many points, "
                         f"X has {N}")
    if isinstance(init, str):
        check_choice(init, "init", {"k-means++", "random"})
        distinct = np.unique(X, axis=0)
        if n_clusters > distinct.shape[0]:
            raise ValueError(f"n_clusters: {n_clusters} is larger than the number of distinct "
                             f"points in X ({distinct.shape[0]})")
        best = None
        for _ in range(n_init):
            if init == "k-means++":
                start = _kmeans_plus_plus(X, n_clusters, rng)
            else:
                start = distinct[rng.choice(distinct.shape[0], n_clusters, replace=False)]
            run = _lloyd(X, start, max_iter, tol)
            if best is None or run.inertia < best.inertia:
                best = run
        return best
    start = as_float_array(init, "init", ndim=2)
    if start.shape != (n_clusters, D):
        raise ValueError(f"init: expected centroids of shape {(n_clusters, D)}, "
                         f"got {start.shape}")
    return _lloyd(X, start.copy(), max_iter, tol)
