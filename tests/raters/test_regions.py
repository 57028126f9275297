"""Regions of the input space for GPR-MANH (course_lib.raters.regions): k-means and
affinity propagation as course_lib computes them, the number of regions affinity propagation
picks, and the merging of small regions."""

import numpy as np

from course_lib.raters.affinity import _affinity_propagation, _negative_squared_distances
from course_lib.raters.regions import assign_regions
from course_lib.gmm.clustering import kmeans


def test_kmeans_regions_are_course_lib_kmeans():
    X = np.random.default_rng(6).uniform(0, 1, (60, 2))
    regions = assign_regions(X, 4, rng=7)
    reference = kmeans(X, 4, n_restarts=10, rng=7)
    np.testing.assert_array_equal(regions.labels, reference.labels)
    np.testing.assert_array_equal(regions.centres, reference.centroids)
    np.testing.assert_array_equal(regions.regions_of(X), regions.labels)
    assert regions.n_regions == 4 and regions.method == "kmeans"
    assert regions.sizes.sum() == 60


def test_affinity_regions_are_course_lib_affinity_propagation():
    X = np.random.default_rng(8).uniform(0, 1, (60, 1))
    regions = assign_regions(X, method="affinity")
    reference = _affinity_propagation(_negative_squared_distances(X))
    np.testing.assert_array_equal(regions.labels, reference.labels)
    np.testing.assert_array_equal(regions.centres, X[reference.exemplars])
    np.testing.assert_array_equal(regions.regions_of(X), regions.labels)
    damped = assign_regions(X, method="affinity", damping=0.9, preference=-0.5)
    assert damped.n_regions == _affinity_propagation(_negative_squared_distances(X), damping=0.9,
                                                    preference=-0.5).n_clusters


def test_affinity_propagation_picks_many_regions_in_many_dimensions():
    # trap 7: the median preference gives a handful of regions on 60 points in 1-D but dozens
    # on a few hundred points in 10-D (three noise variances per handful of items)
    rng = np.random.default_rng(9)
    few = assign_regions(rng.uniform(0, 1, (60, 1)), method="affinity").n_regions
    many = assign_regions(rng.standard_normal((300, 10)), method="affinity").n_regions
    assert 2 <= few <= 8 and many >= 20, (few, many)


def test_min_size_merges_small_regions():
    X = np.random.default_rng(10).uniform(0, 1, (60, 1))
    plain = assign_regions(X, method="affinity")
    merged = assign_regions(X, method="affinity", min_size=16)
    assert merged.n_regions < plain.n_regions
    assert merged.sizes.min() >= 16
    assert all(any(np.array_equal(c, p) for p in plain.centres) for c in merged.centres)
    np.testing.assert_array_equal(merged.regions_of(X), merged.labels)
