"""log Phi and its derivatives (course_lib.preference.likelihoods): the inverse Mills ratio against scipy,
and no jump where the tail series takes over. Far-tail values through the probit likelihood
are in test_likelihoods.py."""

import numpy as np
from scipy import stats

from course_lib.preference.likelihoods import inverse_mills_ratio, log_ndtr_derivatives


def test_inverse_mills_ratio_against_scipy_norm():
    # inverse Mills ratio = pdf / cdf where both are representable
    middle = np.linspace(-30, 30, 121)
    np.testing.assert_allclose(inverse_mills_ratio(middle),
                               np.exp(stats.norm.logpdf(middle) - stats.norm.logcdf(middle)),
                               rtol=1e-12)


def test_log_phi_derivatives_are_continuous_where_the_tail_series_takes_over():
    below = log_ndtr_derivatives(np.array([-12.0 - 1e-12]), 3)
    above = log_ndtr_derivatives(np.array([-12.0 + 1e-12]), 3)
    for a, b in zip(below, above):
        np.testing.assert_allclose(a, b, rtol=1e-9)
