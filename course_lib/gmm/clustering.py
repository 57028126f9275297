"""k-means clustering (Lloyd's algorithm) with k-means++ seeding.

Rows of ``X`` are points (frames), columns are dimensions. The objective is the distortion
(scikit-learn's "inertia")

    J = sum_n || x_n - c_{z_n} ||^2,    z_n = argmin_k || x_n - c_k ||^2,

which Lloyd's algorithm lowers by alternating the assignment step (each point to its nearest
centroid) and the update step (each centroid to the mean of its points). It is the
hard-assignment limit of EM for a Gaussian mixture with equal weights and equal covariances
sigma^2 I as sigma -> 0 (Unit 2), initialises Gaussian mixtures (:mod:`course_lib.gmm.em`) and is
the vector quantiser of the discrete HMM unit.

One steppable loop: :func:`kmeans_steps` yields the state after every iteration; :func:`kmeans`
and the lecture's explorer both drive it.

Empty clusters: when an update leaves cluster k without points, its centroid is re-seeded at
the point that is currently worst explained (largest squared distance to its own centroid);
several empty clusters take the worst points in turn. A re-seeded centroid never gets NaN and
the distortion does not go up (the moved point's distance drops to zero).

Numerics: ||x - c||^2 is expanded as ||x||^2 - 2 x.c + ||c||^2 (one matrix product) only after
shifting points and centroids by a common reference point, because the expansion cancels
catastrophically for data far from the origin (a common offset of 1e8 leaves nothing of a unit
distance). The distances of the points to their own centroids, which make J, are then computed
directly from the differences.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..validation import (RngLike, as_float_array, as_positive_float, as_positive_int, as_rng,
                          check_choice)

__all__ = ["KMeansResult", "KMeansState", "kmeans", "kmeans_steps", "initialise_centroids",
           "assign_clusters", "check_spread", "pairwise_squared_distances", "check_n_clusters",
           "kmeans_trusted"]

_INIT_METHODS = ("k-means++", "random")
#: Points whose spread exceeds this (or is below its inverse) would overflow (underflow)
#: float64 when distances are squared.
_MAX_SPREAD = 1e150


@dataclass(frozen=True)
class KMeansResult:
    """The outcome of :func:`kmeans` (the best of its restarts).

    centroids : (K, D) cluster centres c_k.
    labels : (N,) index of each point's nearest centroid (consistent with ``centroids``).
    inertia : the distortion J, sum of squared distances of the points to their centroids.
    n_iter : number of update steps the kept run took.
    converged : whether that run met the stopping rule before ``max_iter``.
    restart_inertias : (n_restarts,) final J of every run (the smallest is kept).
    """

    centroids: np.ndarray
    labels: np.ndarray
    inertia: float
    n_iter: int
    converged: bool
    restart_inertias: np.ndarray


@dataclass(frozen=True, eq=False)
class KMeansState:
    """One state of Lloyd's algorithm, as :func:`kmeans_steps` yields it.

    centroids : (K, D) the current centroids c_k.
    labels : (N,) nearest centroid of each point, z_n = argmin_k ||x_n - c_k||^2.
    squared_distances : (N,) ||x_n - c_{z_n}||^2.
    n_reseeded : empty clusters re-seeded by the update that made these centroids.
    """

    centroids: np.ndarray
    labels: np.ndarray
    squared_distances: np.ndarray
    n_reseeded: int = 0

    @property
    def distortion(self) -> float:
        """J = sum_n ||x_n - c_{z_n}||^2."""
        return float(self.squared_distances.sum())


def check_spread(X: np.ndarray, name: str = "X") -> None:
    """Refuse points whose squared distances cannot be represented in float64 (the check every
    user of squared distances between points makes: k-means, EM's start, a VQ codebook, the
    sparse GP's inducing points, the raters' affinity).

    The spread is the largest range max_n x_nd - min_n x_nd over dimensions; squaring a spread
    above ``_MAX_SPREAD`` overflows and one below ``1 / _MAX_SPREAD`` underflows to 0, so every
    distance would be inf or 0. Rescale such data first.
    """
    # halves first: max - min itself overflows for values near the float64 limit
    spread = 2.0 * np.max(0.5 * X.max(axis=0) - 0.5 * X.min(axis=0))
    if spread > _MAX_SPREAD or 0.0 < spread < 1.0 / _MAX_SPREAD:
        raise ValueError(f"{name}: the points spread over {spread:.3g}; squared distances "
                         f"overflow or underflow float64 beyond [{1 / _MAX_SPREAD:.0e}, "
                         f"{_MAX_SPREAD:.0e}]: rescale the data")


def pairwise_squared_distances(X: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances d2[n, k] = ||x_n - c_k||^2, shape (N, K).

    Both arguments are first shifted by the centroids' mean (distances do not change), so that
    the expansion ||x||^2 - 2 x.c + ||c||^2 does not cancel catastrophically for data with a
    large common offset; round-off below zero is clipped.
    """
    reference = centroids.mean(axis=0)
    X = X - reference
    centroids = centroids - reference
    d2 = (np.einsum("nd,nd->n", X, X)[:, None] - 2.0 * (X @ centroids.T)
          + np.einsum("kd,kd->k", centroids, centroids)[None, :])
    return np.maximum(d2, 0.0, out=d2)


def _count_distinct_rows(X: np.ndarray) -> int:
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
    squared_distances : (N,) squared distance of each point to that centroid, so the
        distortion is ``squared_distances.sum()``.
    """
    X = as_float_array(X, "X", ndim=2)
    centroids = as_float_array(centroids, "centroids", ndim=2)
    if centroids.shape[1] != X.shape[1]:
        raise ValueError(f"centroids: expected {X.shape[1]} columns like X, "
                         f"got shape {centroids.shape}")
    return assign_clusters_trusted(X, centroids)


def assign_clusters_trusted(X, centroids) -> tuple[np.ndarray, np.ndarray]:
    """:func:`assign_clusters` of checked arrays with as many columns.
    Lecture 02, section 8 (k-means: EM with hard assignments)."""
    labels = np.argmin(pairwise_squared_distances(X, centroids), axis=1)
    own = X - centroids[labels]                     # direct differences: exact J
    return labels, np.einsum("nd,nd->n", own, own)


def _kmeans_plus_plus(X, n_clusters, rng):
    """k-means++ seeding: first centre uniform, each next one drawn with probability ~ D(x)^2.
    Lecture 02, section 8 (k-means: EM with hard assignments)."""
    N = X.shape[0]
    centroids = np.empty((n_clusters, X.shape[1]))
    centroids[0] = X[rng.integers(N)]
    closest = np.einsum("nd,nd->n", X - centroids[0], X - centroids[0])
    for k in range(1, n_clusters):
        # at least n_clusters distinct rows exist, so some point is still at distance > 0
        centroids[k] = X[rng.choice(N, p=closest / closest.sum())]
        d2 = np.einsum("nd,nd->n", X - centroids[k], X - centroids[k])
        closest = np.minimum(closest, d2)
    return centroids


def _update(X, labels, squared_distances, n_clusters):
    """Update step c_k = mean of the points with z_n = k, re-seeding empty clusters.
    Lecture 02, section 8 (k-means: EM with hard assignments)."""
    counts = np.bincount(labels, minlength=n_clusters)
    # one pass over X in row order: bin (k, d) adds x_nd for n = 0, 1, ... as a per-column
    # bincount would, to the bit, without reading X column by column
    D = X.shape[1]
    bins = (labels[:, None] * D + np.arange(D)).ravel()
    sums = np.bincount(bins, weights=X.ravel(), minlength=n_clusters * D).reshape(n_clusters, D)
    centroids = sums / np.maximum(counts, 1)[:, None]
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        worst = np.argsort(squared_distances)[::-1][:empty.size]
        centroids[empty] = X[worst]
    return centroids, int(empty.size)


def _lloyd_steps(X, centroids) -> Iterator[KMeansState]:
    labels, d2 = assign_clusters_trusted(X, centroids)
    state = KMeansState(centroids, labels, d2)
    yield state
    while True:
        centroids, reseeded = _update(X, state.labels, state.squared_distances,
                                      centroids.shape[0])
        labels, d2 = assign_clusters_trusted(X, centroids)
        state = KMeansState(centroids, labels, d2, reseeded)
        yield state


def _check_points(X):
    X = as_float_array(X, "X", ndim=2)
    check_spread(X)
    return X


def kmeans_steps(X, centroids) -> Iterator[KMeansState]:
    """Lloyd's algorithm one iteration at a time, from the given centroids, without end.

    The first state is the assignment to ``centroids`` (t = 0); each next one runs the update
    step c_k = mean{x_n : z_n = k} and the assignment step to the new centroids. The
    distortion J never increases from one state to the next. Take as many as you need
    (``itertools.islice``); :func:`kmeans` adds the stopping rule and restarts.
    """
    X = _check_points(X)
    centroids = as_float_array(centroids, "centroids", ndim=2)
    if centroids.shape[1] != X.shape[1]:
        raise ValueError(f"centroids: expected {X.shape[1]} columns like X, "
                         f"got shape {centroids.shape}")
    if centroids.shape[0] > X.shape[0]:
        raise ValueError(f"centroids: {centroids.shape[0]} centroids need at least as many "
                         f"points, X has {X.shape[0]}")
    return _lloyd_steps(X, centroids.copy())


def check_n_clusters(X, n_clusters, name: str = "n_clusters", rows: str = "points"):
    """``n_clusters`` checked and returned as an int no larger than the number of (distinct)
    rows of ``X``, the check k-means makes before it seeds; ``name`` and ``rows`` word the
    message for a caller that calls them otherwise (a VQ codebook)."""
    n_clusters = as_positive_int(n_clusters, name)
    if n_clusters > X.shape[0]:
        raise ValueError(f"{name}: {n_clusters} centroids need at least as many {rows}, "
                         f"got {X.shape[0]}")
    distinct = _count_distinct_rows(X)
    if n_clusters > distinct:
        raise ValueError(f"{name}: {n_clusters} centroids need at least as many distinct "
                         f"{rows}, got {distinct}")
    return n_clusters


def _initial_centroids(X, n_clusters, init, rng):
    if init == "k-means++":
        return _kmeans_plus_plus(X, n_clusters, rng)
    distinct = np.unique(X, axis=0)
    return distinct[rng.choice(distinct.shape[0], n_clusters, replace=False)]


def initialise_centroids(X, n_clusters: int, *, init: str = "k-means++",
                         rng: RngLike = None) -> np.ndarray:
    """Starting centroids (K, D): "k-means++" (spread-out seeds, each drawn with probability
    proportional to its squared distance from the nearest seed so far) or "random" (K distinct
    rows of X)."""
    X = _check_points(X)
    n_clusters = check_n_clusters(X, n_clusters)
    check_choice(init, "init", _INIT_METHODS)
    return _initial_centroids(X, n_clusters, init, as_rng(rng))


def _lloyd(X, centroids, max_iter, tol):
    """Run :func:`_lloyd_steps` until labels stop changing, J gains <= tol * J, or max_iter."""
    steps = _lloyd_steps(X, centroids)
    state = next(steps)
    for n_iter in range(1, max_iter + 1):
        previous, state = state, next(steps)
        unchanged = np.array_equal(state.labels, previous.labels)
        small_gain = previous.distortion - state.distortion <= tol * previous.distortion
        if unchanged or small_gain:
            return state, n_iter, True
    return state, max_iter, False


def kmeans(X, n_clusters: int, *, init="k-means++", n_restarts: int = 1, max_iter: int = 100,
           tol: float = 1e-6, rng: RngLike = None) -> KMeansResult:
    """Cluster the rows of ``X`` into ``n_clusters`` groups with Lloyd's algorithm.

    Each run alternates  z_n = argmin_k ||x_n - c_k||^2  and  c_k = mean{x_n : z_n = k}
    (:func:`kmeans_steps`) until the assignments stop changing or the distortion J falls by at
    most ``tol * J`` in one step (relative tolerance), or ``max_iter`` update steps have run.

    Parameters
    ----------
    X : (N, D) points, rows are frames.
    n_clusters : K, at most the number of distinct rows of X.
    init : "k-means++" (seeds spread out, drawn with probability ~ squared distance to the
        nearest chosen seed), "random" (K distinct data rows) or a (K, D) array of centroids.
    n_restarts : total number of runs from different seeds; the run with the lowest J is
        kept. With an explicit array ``init`` every run would be the same, so only one is done.
    max_iter : maximum number of update steps per run.
    tol : relative distortion decrease below which a run counts as converged (>= 0).
    rng : Generator, int seed or None, used for the seeding.

    Returns
    -------
    KMeansResult with centroids (K, D), labels (N,), inertia (= J), n_iter, converged and the
    final J of every restart.
    """
    X = _check_points(X)
    n_clusters = as_positive_int(n_clusters, "n_clusters")
    n_restarts = as_positive_int(n_restarts, "n_restarts")
    max_iter = as_positive_int(max_iter, "max_iter")
    tol = as_positive_float(tol, "tol", allow_zero=True)
    rng = as_rng(rng)
    if isinstance(init, str):
        check_choice(init, "init", _INIT_METHODS)
        n_clusters = check_n_clusters(X, n_clusters)
    else:
        if n_clusters > X.shape[0]:
            raise ValueError(f"n_clusters: {n_clusters} centroids need at least as many points, "
                             f"got {X.shape[0]}")
        init = as_float_array(init, "init", ndim=2)
        if init.shape != (n_clusters, X.shape[1]):
            raise ValueError(f"init: expected centroids of shape {(n_clusters, X.shape[1])}, "
                             f"got {init.shape}")
    return kmeans_trusted(X, n_clusters, rng, init=init, n_restarts=n_restarts,
                          max_iter=max_iter, tol=tol)


def kmeans_trusted(X, n_clusters, rng, *, init="k-means++", n_restarts=1, max_iter=100,
                   tol=1e-6) -> KMeansResult:
    """:func:`kmeans` of checked arguments (the core its border calls, and what another model
    seeds with after :func:`check_spread` and :func:`check_n_clusters`): ``X`` (N, D) float
    points, ``n_clusters`` an int, ``init`` a method or a (K, D) array of centroids, ``rng`` a
    Generator; returns the :class:`KMeansResult` of the best run."""
    if isinstance(init, str):
        starts = (_initial_centroids(X, n_clusters, init, rng) for _ in range(n_restarts))
    else:
        starts = iter([init.copy()])
    best, inertias = None, []
    for start in starts:
        run = _lloyd(X, start, max_iter, tol)
        inertias.append(run[0].distortion)
        if best is None or inertias[-1] < best[0].distortion:
            best = run
    state, n_iter, converged = best
    return KMeansResult(state.centroids, state.labels, state.distortion, n_iter, converged,
                        np.array(inertias))
