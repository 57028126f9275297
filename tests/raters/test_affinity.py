"""Affinity propagation (course_lib.raters.affinity) against its equations and scikit-learn.

scikit-learn adds noise (eps * s + 100 * tiny) * N(0, 1), drawn from ``random_state``, to the
similarities to break exact ties; ours adds none. ``NoTieBreaking`` (a RandomState whose normal
draws are zero) makes scikit-learn run on exactly our matrix, so labels, exemplars and the
number of sweeps must agree exactly. With its real noise (relative size 1e-16) the result
agrees too on data without exact ties, which is checked on the same sets.
"""

import warnings

import numpy as np
import pytest
from sklearn.cluster import AffinityPropagation
from sklearn.datasets import load_diabetes, make_blobs
from sklearn.exceptions import ConvergenceWarning

from course_lib.raters.affinity import (AffinityPropagationWarning, _availabilities,
                                         _responsibilities, _affinity_propagation,
                                         _negative_squared_distances)


class NoTieBreaking(np.random.RandomState):
    """scikit-learn's tie-breaking noise set to zero."""

    def standard_normal(self, size=None):
        return np.zeros(size)


def _toy_points():
    return np.random.default_rng(0).uniform(0, 1, (60, 1))


def _diabetes_split():
    X = load_diabetes().data
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[np.random.default_rng(1).permutation(X.shape[0])[:309]]


def _blobs():
    return make_blobs(80, centers=4, random_state=1)[0]


def _random_similarity():
    return np.random.default_rng(2).normal(size=(50, 50))   # not symmetric


# name -> (similarity, options)
CASES = {
    "toy 60 points in 1-D": (_negative_squared_distances(_toy_points()), {}),
    "diabetes 309 points in 10-D": (_negative_squared_distances(_diabetes_split()), {}),
    "blobs in 2-D": (_negative_squared_distances(_blobs()), {}),
    "asymmetric, minimum preference, damping 0.8": (
        _random_similarity(), {"preference": _random_similarity().min(), "damping": 0.8}),
    "one preference per point": (
        _negative_squared_distances(_blobs()),
        {"preference": np.random.default_rng(3).uniform(-50.0, 0.0, 80)}),
    "damping 0.9, convergence after 30 sweeps": (
        _negative_squared_distances(_toy_points()), {"damping": 0.9, "convergence_iter": 30}),
    "damping 0.7, convergence after 5 sweeps": (
        _negative_squared_distances(_blobs()), {"damping": 0.7, "convergence_iter": 5}),
}


def _sklearn(similarity, random_state, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = AffinityPropagation(affinity="precomputed", random_state=random_state,
                                    **options).fit(similarity)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return model, converged


@pytest.mark.parametrize("case", list(CASES))
def test_equals_sklearn_without_tie_breaking_noise(case):
    similarity, options = CASES[case]
    ours = _affinity_propagation(similarity, **options)
    theirs, converged = _sklearn(similarity, NoTieBreaking(0), **options)
    np.testing.assert_array_equal(ours.exemplars, theirs.cluster_centers_indices_)
    np.testing.assert_array_equal(ours.labels, theirs.labels_)
    assert ours.n_iter == theirs.n_iter_
    assert ours.converged and converged
    assert ours.n_clusters >= 2


@pytest.mark.parametrize("case", list(CASES))
def test_sklearns_tie_breaking_noise_changes_nothing_without_ties(case):
    similarity, options = CASES[case]
    ours = _affinity_propagation(similarity, **options)
    for random_state in (0, 1):
        theirs, _ = _sklearn(similarity, random_state, **options)
        np.testing.assert_array_equal(ours.labels, theirs.labels_)
        np.testing.assert_array_equal(ours.exemplars, theirs.cluster_centers_indices_)


def test_default_preference_is_sklearns_median_of_all_entries():
    similarity = CASES["toy 60 points in 1-D"][0]
    result = _affinity_propagation(similarity)
    np.testing.assert_array_equal(result.preference, np.full(60, np.median(similarity)))
    # the diagonal (zeros for points) is part of that median, as in scikit-learn
    assert np.median(similarity) != np.median(similarity[~np.eye(60, dtype=bool)])


def test_points_convenience_equals_sklearns_euclidean_affinity():
    X = _blobs()
    ours = _affinity_propagation(_negative_squared_distances(X))
    theirs = AffinityPropagation(random_state=NoTieBreaking(0)).fit(X)
    np.testing.assert_array_equal(ours.labels, theirs.labels_)
    np.testing.assert_array_equal(ours.exemplars, theirs.cluster_centers_indices_)


def test_negative_squared_distances_is_exact_and_safe_far_from_the_origin():
    X = np.random.default_rng(4).normal(size=(12, 3))
    direct = -np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    similarity = _negative_squared_distances(X)
    np.testing.assert_allclose(similarity, direct, atol=1e-12)
    assert np.all(np.diag(similarity) == 0.0)
    np.testing.assert_allclose(_negative_squared_distances(X + 1e8), direct, atol=1e-6)
    # 1-D input is one point per entry
    np.testing.assert_array_equal(_negative_squared_distances(np.arange(3.0)),
                                  -np.subtract.outer(np.arange(3.0), np.arange(3.0)) ** 2)


def _messages_by_definition(S, A, R_old, damping):
    """One sweep written entry by entry from Frey & Dueck's definitions."""
    n = S.shape[0]
    R_new = np.empty((n, n))
    for i in range(n):
        for k in range(n):
            others = [A[i, j] + S[i, j] for j in range(n) if j != k]
            R_new[i, k] = S[i, k] - max(others)
    R = damping * R_old + (1 - damping) * R_new
    A_new = np.empty((n, n))
    for i in range(n):
        for k in range(n):
            support = sum(max(0.0, R[j, k]) for j in range(n) if j not in (i, k))
            A_new[i, k] = support if i == k else min(0.0, R[k, k] + support)
    return R, A_new


def test_one_sweep_of_messages_follows_the_definitions():
    rng = np.random.default_rng(5)
    S = rng.normal(size=(7, 7))
    A = rng.normal(size=(7, 7)) * 0.3
    R_old = rng.normal(size=(7, 7)) * 0.3
    R_expected, A_expected = _messages_by_definition(S, A, R_old, damping=0.6)
    R = 0.6 * R_old + 0.4 * _responsibilities(S, A)
    np.testing.assert_allclose(R, R_expected, atol=1e-13)
    np.testing.assert_allclose(_availabilities(R), A_expected, atol=1e-13)


def test_two_groups_by_hand():
    # 0, 1, 2 and 10, 11, 12: the middle points represent their groups best
    X = np.array([0.0, 1.0, 2.0, 10.0, 11.0, 12.0])
    result = _affinity_propagation(_negative_squared_distances(X), preference=-10.0)
    np.testing.assert_array_equal(result.exemplars, [1, 4])
    np.testing.assert_array_equal(result.labels, [0, 0, 0, 1, 1, 1])
    assert result.converged


def test_more_preference_more_clusters():
    similarity = CASES["blobs in 2-D"][0]
    counts = [_affinity_propagation(similarity, preference=p).n_clusters
              for p in (np.min(similarity), np.median(similarity), -1.0)]
    assert counts[0] <= counts[1] < counts[2], counts


def test_non_convergence_is_reported_and_matches_sklearn():
    similarity = CASES["diabetes 309 points in 10-D"][0]
    with pytest.warns(AffinityPropagationWarning, match="did not converge"):
        ours = _affinity_propagation(similarity, max_iter=10)
    assert not ours.converged and ours.n_iter == 10
    theirs, converged = _sklearn(similarity, NoTieBreaking(0), max_iter=10)
    assert not converged
    np.testing.assert_array_equal(ours.labels, theirs.labels_)
    np.testing.assert_array_equal(ours.exemplars, theirs.cluster_centers_indices_)


def test_fewer_sweeps_than_convergence_iter_never_converge():
    with pytest.warns(AffinityPropagationWarning):
        result = _affinity_propagation(CASES["blobs in 2-D"][0], max_iter=15,
                                      convergence_iter=15)
    assert not result.converged


@pytest.mark.parametrize("preference, expected_clusters", [(None, 1), (1.0, 5)])
def test_identical_points_are_one_cluster_or_each_its_own(preference, expected_clusters):
    similarity = _negative_squared_distances(np.ones((5, 2)))
    with pytest.warns(AffinityPropagationWarning, match="equally similar"):
        ours = _affinity_propagation(similarity, preference=preference)
    assert ours.n_clusters == expected_clusters and ours.n_iter == 0 and ours.converged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = AffinityPropagation(affinity="precomputed", preference=preference,
                                     random_state=0).fit(similarity)
    np.testing.assert_array_equal(ours.labels, theirs.labels_)
    np.testing.assert_array_equal(ours.exemplars, theirs.cluster_centers_indices_)


def test_one_point_is_one_cluster():
    result = _affinity_propagation([[0.0]])
    np.testing.assert_array_equal(result.labels, [0])
    np.testing.assert_array_equal(result.exemplars, [0])


def test_input_is_not_modified():
    similarity = CASES["blobs in 2-D"][0].copy()
    before = similarity.copy()
    _affinity_propagation(similarity, preference=-5.0)
    np.testing.assert_array_equal(similarity, before)
