"""MAP-II glue of the preference GPs (course_lib.preference.hyperparameters): the prior on a
square, against the prior it must equal and finite differences."""

import numpy as np
import pytest

from course_lib.gp import HalfStudentT, LogNormal
from course_lib.preference.hyperparameters import OnSquare


def test_on_square_is_the_prior_of_the_square_root():
    """OnSquare(LogNormal(mu, s)) on ell is exactly LogNormal(mu / 2, s / 2): ell^2 = lambda."""
    u = np.linspace(-3, 3, 13)
    wrapped, plain = OnSquare(LogNormal(0.4, 1.2)), LogNormal(0.2, 0.6)
    for a, b in zip(wrapped.log_pdf_log(u), plain.log_pdf_log(u)):
        np.testing.assert_allclose(a, b, atol=1e-12)
    draws = wrapped.sample_log(200000, rng=0)
    assert draws.mean() == pytest.approx(0.2, abs=0.01)
    assert draws.std() == pytest.approx(0.6, abs=0.01)
    # and the half-Student-t on a squared lengthscale: derivative by finite differences
    prior = OnSquare(HalfStudentT(6, 10.0))
    value, slope = prior.log_pdf_log(u)
    step = 1e-6
    numeric = (prior.log_pdf_log(u + step)[0] - prior.log_pdf_log(u - step)[0]) / (2 * step)
    np.testing.assert_allclose(slope, numeric, rtol=1e-6, atol=1e-8)
