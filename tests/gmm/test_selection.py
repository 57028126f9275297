"""Tests for course_lib.gmm.selection: the parameter count and BIC in closed form, choosing the
number of components on a development set, and growing a mixture by splitting."""

import numpy as np
import pytest

from course_lib.gmm.em import fit_gmm, score_samples
from course_lib.gmm.mixture import GMMParams, sample_gmm
from course_lib.gmm.selection import (bic, grow_by_splitting, n_parameters, select_n_components,
                                      split_components)
from tests.gmm.test_em import TRUE


@pytest.fixture(scope="module")
def data():
    X, z = sample_gmm(TRUE, 3000, rng=0)
    return X, z


def test_n_parameters_closed_form():
    # K = 3, D = 2: 2 weights + 6 means + 3 * 3 (full) or 3 * 2 (diag) covariance entries
    assert n_parameters(3, 2, "full") == 2 + 6 + 9
    assert n_parameters(3, 2, "diag") == 2 + 6 + 6
    # D = 39, one component: 39 means + 780 covariance entries, no free weight
    assert n_parameters(1, 39, "full") == 39 + 39 * 40 // 2
    for K, D in [(1, 1), (4, 13), (16, 39)]:
        assert n_parameters(K, D, "diag") == K * (2 * D + 1) - 1
        assert n_parameters(K, D, "full") == K * (D + D * (D + 1) // 2 + 1) - 1


def test_bic_by_hand_and_in_model_selection(data):
    X, _ = data
    params = fit_gmm(X[:500], 2, rng=0).params
    ll = score_samples(X[:500], params).sum()
    assert bic(X[:500], params) == pytest.approx(-2 * ll + 11 * np.log(500), rel=1e-14)
    sel = select_n_components(X[:1500], X[1500:], [1, 2, 3, 6], rng=8, n_restarts=2)
    for i, model in enumerate(sel.models):
        assert sel.bic[i] == pytest.approx(bic(X[:1500], model), rel=1e-14)
    assert sel.n_components[sel.bic_best_index] == 3    # the true K, found without dev data


def test_select_n_components_on_dev_set(data):
    X, _ = data
    sel = select_n_components(X[:2000], X[2000:], [1, 2, 3, 5], rng=8, n_restarts=2)
    assert sel.best_index == int(np.argmax(sel.dev_scores))
    assert sel.n_components[sel.best_index] >= 3
    assert sel.dev_scores[2] > sel.dev_scores[1] + 0.05 > sel.dev_scores[0] + 0.05
    assert np.all(np.diff(sel.train_scores) > -1e-3)


def test_split_components_and_grow():
    params = GMMParams(np.array([0.4, 0.6]), np.array([[0.0, 0.0], [3.0, 3.0]]),
                       np.array([[1.0, 4.0], [1.0, 1.0]]), "diag")
    split = split_components(params, 0.1, rng=0)
    assert split.n_components == 4
    np.testing.assert_allclose(split.weights, [0.2, 0.2, 0.3, 0.3])
    np.testing.assert_allclose((split.means[0::2] + split.means[1::2]) / 2, params.means)
    X, _ = sample_gmm(TRUE, 2400, rng=9)
    history = grow_by_splitting(X[:1600], X[1600:], max_components=16, rng=10,
                                covariance_type="full")
    ks = history.n_components
    np.testing.assert_array_equal(ks, 2 ** np.arange(len(ks)))
    kept = history.dev_scores[:history.best_index + 1]
    assert np.all(np.diff(kept) > 0)            # every kept split improved the dev set
    last = history.dev_scores[-1]
    assert history.best_index == len(ks) - 1 or last <= kept[-1]
    assert history.best.n_components >= 2


def test_a_development_set_of_other_features_is_refused_by_name(data):
    X = data[0]
    with pytest.raises(ValueError, match="X_dev"):
        select_n_components(X, X[:, :1], [1])
