"""Tests for course_lib.gmm.em: a fit from k-means++ starts recovers a known mixture,
restarts keep the best run."""

import numpy as np
import pytest

from course_lib.gmm.mixture import sample_gmm
from course_lib.gmm.em import fit_gmm
from tests.gmm.test_em import TRUE


@pytest.fixture(scope="module")
def data():
    X, z = sample_gmm(TRUE, 3000, rng=0)
    return X, z


def test_recovers_known_mixture(data):
    X, _ = data
    result = fit_gmm(X, 3, n_restarts=3, rng=4)
    order = np.argsort(result.params.means[:, 0] + 10 * result.params.means[:, 1])
    expected = np.argsort(TRUE.means[:, 0] + 10 * TRUE.means[:, 1])
    fitted = result.params
    np.testing.assert_allclose(fitted.means[order], TRUE.means[expected], atol=0.12)
    np.testing.assert_allclose(fitted.weights[order], TRUE.weights[expected], atol=0.03)
    np.testing.assert_allclose(fitted.covariances[order], TRUE.covariances[expected], atol=0.15)
    assert result.converged


def test_restarts_keep_the_best(data):
    X, _ = data
    result = fit_gmm(X[:1000], 5, init="random", n_restarts=4, max_iter=30, rng=5)
    assert len(result.restart_objectives) == 4
    assert result.objective_trace[-1] == pytest.approx(result.restart_objectives.max())
