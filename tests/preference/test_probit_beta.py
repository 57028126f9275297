"""The Beta algebra of the degree-of-preference and bounded-rating likelihoods
(course_lib.preference.probit_beta): log Beta(y; nu Phi(t), nu (1 - Phi(t))) equal to scipy's
for a pair (PairwiseBeta) and for one item (BetaRating), finite with every derivative where a
shape vanishes and scipy's is not. (Every family's derivatives by finite differences are in
test_likelihoods.py.)"""

import numpy as np
from scipy import stats

from course_lib.preference import PairwiseBeta
from course_lib.preference.likelihoods import inverse_mills_ratio
from course_lib.preference.rating_likelihoods import BetaRating


def test_beta_likelihoods_against_scipy_beta():
    rng = np.random.default_rng(7)
    z = rng.normal(0, 2, 40)
    y = rng.uniform(0.01, 0.99, 40)
    pairwise = PairwiseBeta(0.4, 12.0)
    mu = stats.norm.cdf(z / (np.sqrt(2) * 0.4))
    np.testing.assert_allclose(pairwise.log_likelihood(z, y),
                               stats.beta.logpdf(y, 12 * mu, 12 * (1 - mu)), rtol=1e-11)
    rating = BetaRating(5.0)
    mu = stats.norm.cdf(z)
    np.testing.assert_allclose(rating.log_likelihood(z, y),
                               stats.beta.logpdf(y, 5 * mu, 5 * (1 - mu)), rtol=1e-11)


def test_beta_stays_finite_where_a_shape_vanishes():
    """At z = +-40 one shape nu Phi(-+z) underflows to 0: scipy's log density is NaN or inf
    there, ours is finite and continues the trend of smaller |z| smoothly."""
    lik = BetaRating(5.0)
    z = np.array([-40.0, -39.0, 39.0, 40.0])
    y = np.array([0.3, 0.3, 0.3, 0.3])
    with np.errstate(all="ignore"):
        mu = stats.norm.cdf(z)
        naive = stats.beta.logpdf(y, 5 * mu, 5 * (1 - mu))
    assert not np.all(np.isfinite(naive))
    terms = lik.terms(z, y, order=3)
    for field in ("log_likelihood", "gradient", "curvature", "third"):
        assert np.all(np.isfinite(getattr(terms, field))), field
    # log alpha dominates as alpha -> 0: log p ~ log Phi(z) + const, slope ~ the probit's
    np.testing.assert_allclose(terms.gradient[:2], inverse_mills_ratio(z[:2]), rtol=1e-3)
