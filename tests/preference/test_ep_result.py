"""EP's result (course_lib.preference.ep): the evidence gradient at converged sites.

Oracle: central finite differences of log Z_EP, each evaluation converged from scratch.
"""

import numpy as np
import pytest

from course_lib.gp import SquaredExponential
from course_lib.preference.ep import expectation_propagation
from course_lib.preference import PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating, TruncatedGaussianRating, WarpedProbitRating
from numerics import finite_difference


def rows(item, n):
    """Identity rows of M for the items rated, one row per rating."""
    return np.eye(n)[np.asarray(item)]


@pytest.mark.parametrize("likelihood", [BetaRating(8.0), TruncatedGaussianRating(0.15),
                                        WarpedProbitRating(0.3), PairwiseProbit(0.8)])
def test_evidence_gradient_matches_finite_differences(likelihood):
    """d log Z_EP / d theta at converged sites (kernel: explicit terms only; likelihood:
    E_tilted[d log p / d theta] by quadrature) against central differences of log Z_EP, each
    evaluation converged from scratch; 8 items, one rated twice."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, (8, 2))
    item = np.array([0, 1, 2, 3, 4, 5, 6, 7, 3])
    f = np.sin(X[item, 0]) + 0.5 * X[item, 1]
    if isinstance(likelihood, PairwiseProbit):
        y = (f + 0.5 * rng.standard_normal(item.size) > 0).astype(float)
    else:
        y = np.clip(1 / (1 + np.exp(-2 * f)) + 0.05 * rng.standard_normal(item.size), 0.02,
                    0.98)
    kernel = SquaredExponential([0.9, 1.3], 1.2)
    M = rows(item, 8)
    P = kernel.n_params

    def result(theta):
        return expectation_propagation(kernel.with_theta(theta[:P])(X), M,
                                       likelihood.with_theta(theta[P:]), y, tol=1e-11)

    theta = np.concatenate([kernel.theta, likelihood.theta])
    ep = result(theta)
    assert ep.n_clipped == 0
    gradient = np.concatenate(ep.evidence_gradient(kernel.gradient(X)[1]))
    numeric = finite_difference(lambda t: result(t).log_evidence, theta)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)
