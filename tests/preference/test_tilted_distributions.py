"""Moments of EP's tilted distributions (course_lib.preference.tilted_distributions).

Oracles: scipy's adaptive quadrature for log Z, central finite differences of log Z for the
tilted mean and variance and for the derivatives in the likelihood's log-parameters.
"""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import multivariate_normal

from course_lib.preference import PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating, TruncatedGaussianRating, WarpedProbitRating
from course_lib.preference.tilted_distributions import tilted_moments

MOMENT_CASES = [
    (PairwiseProbit(0.6), 1.0, -0.7, 0.5),
    (PairwiseGaussian(0.3), 0.4, 0.1, 2.0),
    (WarpedProbitRating(0.3), 0.8, 0.2, 0.7),
    (BetaRating(12.0), 0.2, 0.9, 0.3),
    (BetaRating(2.5), 0.999, -1.0, 4.0),
    (TruncatedGaussianRating(0.1), 0.3, 0.5, 0.2),
    (TruncatedGaussianRating(0.3), 1.0, -0.5, 1.5),
]


@pytest.mark.parametrize("likelihood, answer, mean, var", MOMENT_CASES,
                         ids=lambda v: repr(v) if not isinstance(v, float) else None)
def test_tilted_moments_match_dense_integration_and_finite_differences(likelihood, answer, mean,
                                                                        var):
    """log Z against scipy's adaptive quadrature (1e-8); the derivatives of log Z in the cavity
    mean that the tilted mean and variance give (g1 = delta / v, g2 = (v_hat - v) / v^2)
    against central differences of log Z (1e-6), and its derivatives in the likelihood's
    log-parameters (E_tilted[d log p / d theta]) likewise."""
    y, m, v = np.array([answer]), np.array([mean]), np.array([var])
    log_Z, delta, var_hat, dtheta = tilted_moments(likelihood, y, m, v, parameters=True)
    g1, g2 = delta / v, (var_hat - v) / v ** 2
    sd = np.sqrt(v[0])

    def integrand(f):
        return np.exp(likelihood.log_likelihood(np.array([f]), y)[0]
                      + multivariate_normal(mean, var).logpdf(f))

    reference = quad(integrand, mean - 12 * sd, mean + 12 * sd, points=[mean], limit=400,
                     epsabs=0, epsrel=1e-11)[0]
    assert log_Z[0] == pytest.approx(np.log(reference), abs=1e-8)

    def log_Z_at(shift, lik=likelihood):
        return tilted_moments(lik, y, m + shift, v)[0][0]

    h = 1e-4
    assert g1[0] == pytest.approx((log_Z_at(h) - log_Z_at(-h)) / (2 * h), abs=1e-6)
    assert g2[0] == pytest.approx((log_Z_at(h) - 2 * log_Z_at(0) + log_Z_at(-h)) / h ** 2,
                                  abs=1e-5)
    for p, step in enumerate(np.eye(likelihood.n_params) * 1e-5):
        up, down = (likelihood.with_theta(likelihood.theta + s * step) for s in (1, -1))
        numeric = (log_Z_at(0, up) - log_Z_at(0, down)) / 2e-5
        assert dtheta[p, 0] == pytest.approx(numeric, abs=1e-6)
