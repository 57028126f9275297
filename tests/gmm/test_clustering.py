"""Tests for course_lib.gmm.clustering: hand-worked examples, invariants, empty clusters, bad input."""

import itertools

import numpy as np
import pytest

from course_lib.gmm.clustering import (KMeansResult, assign_clusters, initialise_centroids, kmeans,
                                   kmeans_steps, pairwise_squared_distances)
from numerics import assert_non_increasing


def blobs(rng, n=60):
    centres = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    return np.vstack([rng.normal(c, 0.4, (n, 2)) for c in centres]), centres


def test_hand_worked_1d():
    # points 0, 1 | 10, 11, 12: means 0.5 and 11; inertia 0.25*2 + (1 + 0 + 1) = 2.5
    X = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    result = kmeans(X, 2, init=np.array([[0.0], [12.0]]))
    assert isinstance(result, KMeansResult)
    np.testing.assert_allclose(np.sort(result.centroids[:, 0]), [0.5, 11.0])
    assert result.inertia == pytest.approx(2.5)
    assert result.converged
    np.testing.assert_array_equal(result.labels, [0, 0, 1, 1, 1])


def test_assign_clusters_by_hand():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [3.0, 4.0]])
    centroids = np.array([[0.0, 0.0], [3.0, 3.0]])
    labels, d2 = assign_clusters(X, centroids)
    np.testing.assert_array_equal(labels, [0, 0, 1])
    np.testing.assert_allclose(d2, [0.0, 4.0, 1.0])


def test_matches_brute_force_optimum_on_tiny_set():
    # the global optimum over all 2-partitions of 7 points, found by enumeration
    rng = np.random.default_rng(3)
    X = rng.normal(size=(7, 2))
    best = np.inf
    for bits in itertools.product([0, 1], repeat=7):
        labels = np.array(bits)
        if labels.min() == labels.max():
            continue
        cost = sum(((X[labels == k] - X[labels == k].mean(0)) ** 2).sum() for k in (0, 1))
        best = min(best, cost)
    result = kmeans(X, 2, n_restarts=20, rng=0)
    assert result.inertia == pytest.approx(best, rel=1e-12)


def test_result_is_consistent_and_recovers_blobs():
    rng = np.random.default_rng(0)
    X, centres = blobs(rng)
    result = kmeans(X, 3, n_restarts=2, rng=1)
    labels, d2 = assign_clusters(X, result.centroids)
    np.testing.assert_array_equal(labels, result.labels)
    assert result.inertia == pytest.approx(d2.sum())
    for c in centres:
        assert np.min(np.linalg.norm(result.centroids - c, axis=1)) < 0.2
    for k in range(3):  # each centroid is the mean of its points
        np.testing.assert_allclose(result.centroids[k], X[result.labels == k].mean(0))


def test_best_of_n_restarts_is_no_worse_than_single_runs():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    singles = [kmeans(X, 6, init="random", rng=seed).inertia for seed in range(5)]
    best = kmeans(X, 6, init="random", n_restarts=5, rng=np.random.default_rng(0))
    # the n_restarts run draws its seeds from one generator, so compare with a fresh set too
    assert best.inertia <= max(singles)
    rerun = kmeans(X, 6, init="random", n_restarts=5, rng=np.random.default_rng(0))
    assert rerun.inertia == best.inertia  # same rng, same answer


def test_empty_cluster_is_reseeded_not_nan():
    # a centroid far from every point gets no points in the first assignment
    X = np.array([[0.0], [0.1], [5.0], [5.2], [9.0]])
    result = kmeans(X, 3, init=np.array([[0.0], [5.0], [100.0]]))
    assert np.all(np.isfinite(result.centroids))
    assert set(result.labels) == {0, 1, 2}
    # the optimum for these points: {0, 0.1}, {5, 5.2}, {9}
    assert result.inertia == pytest.approx(0.005 + 0.02)


def test_inertia_never_increases_across_max_iter():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    start = X[:8].copy()
    inertias = [kmeans(X, 8, init=start, max_iter=m, tol=0.0).inertia for m in range(1, 10)]
    assert_non_increasing(inertias, what="the inertia")


def test_duplicate_points_allowed_when_enough_distinct():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5 + [[4.0, 0.0]])
    result = kmeans(X, 3, rng=0)
    assert result.inertia == pytest.approx(0.0)


def test_steps_are_lloyd_iterations_by_hand():
    # 1-D: 0, 1 | 10, 11, 12 from centroids 1 and 10 (already the right split):
    # t = 0 assigns to (1, 10): J = 1 + 0 + 0 + 1 + 4 = 6; t = 1 moves to (0.5, 11): J = 2.5
    X = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    steps = kmeans_steps(X, np.array([[1.0], [10.0]]))
    first, second, third = itertools.islice(steps, 3)
    assert first.distortion == pytest.approx(6.0)
    np.testing.assert_array_equal(first.labels, [0, 0, 1, 1, 1])
    np.testing.assert_allclose(second.centroids[:, 0], [0.5, 11.0])
    assert second.distortion == pytest.approx(2.5)
    np.testing.assert_allclose(third.centroids, second.centroids)   # a fixed point


def test_kmeans_is_the_stepped_loop_with_a_stopping_rule():
    rng = np.random.default_rng(2)
    X, _ = blobs(rng)
    start = X[[0, 1, 2]]
    result = kmeans(X, 3, init=start, tol=0.0)
    states = list(itertools.islice(kmeans_steps(X, start), result.n_iter + 1))
    np.testing.assert_allclose(states[-1].centroids, result.centroids)
    np.testing.assert_array_equal(states[-1].labels, result.labels)
    distortions = [s.distortion for s in states]
    assert_non_increasing(distortions, what="J")
    assert len(result.restart_inertias) == 1


def test_restarts_record_every_run_and_keep_the_lowest():
    X = np.random.default_rng(1).normal(size=(150, 2))
    result = kmeans(X, 5, init="random", n_restarts=4, rng=3)
    assert result.restart_inertias.shape == (4,)
    assert result.inertia == result.restart_inertias.min()


def test_initialise_centroids_picks_distinct_data_points():
    X = np.array([[0.0, 0.0]] * 4 + [[1.0, 1.0]] * 4 + [[5.0, 5.0]])
    for init in ("k-means++", "random"):
        centroids = initialise_centroids(X, 3, init=init, rng=0)
        assert len(np.unique(centroids, axis=0)) == 3
        assert all(any(np.array_equal(c, x) for x in X) for c in centroids)


@pytest.mark.parametrize("offset", [1e8, -3e9])
def test_large_common_offset_gives_the_offset_free_answer(offset):
    # ||x||^2 - 2 x.c + ||c||^2 on points near 1e8 loses every digit of a unit distance
    rng = np.random.default_rng(7)
    X, _ = blobs(rng)
    shifted = X + offset
    base = shifted - offset                     # the same points as stored after the shift
    start = base[[0, 70, 130]]
    d2_base = pairwise_squared_distances(base, start)
    np.testing.assert_allclose(pairwise_squared_distances(shifted, start + offset), d2_base,
                               rtol=1e-6, atol=1e-6)
    labels, d2 = assign_clusters(shifted, start + offset)
    np.testing.assert_array_equal(labels, np.argmin(d2_base, axis=1))
    np.testing.assert_allclose(d2, d2_base[np.arange(len(X)), labels], rtol=1e-6, atol=1e-6)
    ours, free = kmeans(shifted, 3, init=start + offset), kmeans(base, 3, init=start)
    np.testing.assert_array_equal(ours.labels, free.labels)
    np.testing.assert_allclose(ours.centroids - offset, free.centroids, atol=1e-5)
    assert ours.inertia == pytest.approx(free.inertia, rel=1e-6)
    seeded = kmeans(shifted, 3, n_restarts=2, rng=5)
    assert seeded.inertia == pytest.approx(kmeans(base, 3, n_restarts=2, rng=5).inertia,
                                           rel=1e-6)


def test_spreads_beyond_float64_squares_are_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="X: the points spread"):
        kmeans(X * 1e200, 2, rng=0)
    with pytest.raises(ValueError, match="X: the points spread"):
        kmeans(X * 1e-200, 2, rng=0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(X=np.array([[0.0, np.nan], [1.0, 1.0]]), n_clusters=1), "X"),
    (dict(X=np.zeros(4), n_clusters=1), "X"),
    (dict(X=np.ones((5, 2)), n_clusters=2), "n_clusters"),   # one distinct point only
    (dict(X=np.eye(3), n_clusters=4), "n_clusters"),
    (dict(X=np.eye(3), n_clusters=0), "n_clusters"),
    (dict(X=np.eye(3), n_clusters=2, init="kmeans"), "init"),
    (dict(X=np.eye(3), n_clusters=2, init=np.zeros((3, 3))), "init"),
    (dict(X=np.eye(3), n_clusters=2, n_restarts=0), "n_restarts"),
    (dict(X=np.eye(3), n_clusters=2, max_iter=0), "max_iter"),
    (dict(X=np.eye(3), n_clusters=2, tol=-1.0), "tol"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kmeans(**kwargs)


def test_bad_input_assign_clusters():
    with pytest.raises(ValueError, match="centroids"):
        assign_clusters(np.eye(3), np.zeros((2, 2)))
    with pytest.raises(TypeError, match="rng"):
        kmeans(np.eye(3), 2, rng="seed")
