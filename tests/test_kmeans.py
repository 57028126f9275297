"""Tests for course_lib.kmeans: hand-worked examples, invariants, empty clusters, bad input."""

import itertools

import numpy as np
import pytest

from course_lib.kmeans import KMeansResult, assign_clusters, kmeans


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
    result = kmeans(X, 2, n_init=20, rng=0)
    assert result.inertia == pytest.approx(best, rel=1e-12)


def test_result_is_consistent_and_recovers_blobs():
    rng = np.random.default_rng(0)
    X, centres = blobs(rng)
    result = kmeans(X, 3, n_init=2, rng=1)
    labels, d2 = assign_clusters(X, result.centroids)
    np.testing.assert_array_equal(labels, result.labels)
    assert result.inertia == pytest.approx(d2.sum())
    for c in centres:
        assert np.min(np.linalg.norm(result.centroids - c, axis=1)) < 0.2
    for k in range(3):  # each centroid is the mean of its points
        np.testing.assert_allclose(result.centroids[k], X[result.labels == k].mean(0))


def test_best_of_n_init_is_no_worse_than_single_runs():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    singles = [kmeans(X, 6, init="random", rng=seed).inertia for seed in range(5)]
    best = kmeans(X, 6, init="random", n_init=5, rng=np.random.default_rng(0))
    # the n_init run draws its seeds from one generator, so compare with a fresh set too
    assert best.inertia <= max(singles)
    rerun = kmeans(X, 6, init="random", n_init=5, rng=np.random.default_rng(0))
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
    assert np.all(np.diff(inertias) <= 1e-9)


def test_duplicate_points_allowed_when_enough_distinct():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5 + [[4.0, 0.0]])
    result = kmeans(X, 3, rng=0)
    assert result.inertia == pytest.approx(0.0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(X=np.array([[0.0, np.nan], [1.0, 1.0]]), n_clusters=1), "X"),
    (dict(X=np.zeros(4), n_clusters=1), "X"),
    (dict(X=np.ones((5, 2)), n_clusters=2), "n_clusters"),   # one distinct point only
    (dict(X=np.eye(3), n_clusters=4), "n_clusters"),
    (dict(X=np.eye(3), n_clusters=0), "n_clusters"),
    (dict(X=np.eye(3), n_clusters=2, init="kmeans"), "init"),
    (dict(X=np.eye(3), n_clusters=2, init=np.zeros((3, 3))), "init"),
    (dict(X=np.eye(3), n_clusters=2, n_init=0), "n_init"),
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
