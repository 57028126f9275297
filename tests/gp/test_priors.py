"""Hyper-priors of Unit 4 (course_lib.gp.priors): each density in u = log theta with its
gradient by finite differences and the log-Jacobian, normalised over theta, equal to scipy's,
and finite far out in u where e^u overflows."""

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import quad

from course_lib.gp.priors import Gamma, HalfStudentT, LogNormal


@pytest.mark.parametrize("prior", [LogNormal(0.5, 0.7), Gamma(2.0, 3.0), HalfStudentT(4, 2.0)])
def test_prior_log_density_gradient_and_normalisation(prior):
    u = np.linspace(-2, 2, 9)
    value, grad = prior.log_pdf_log(u)
    fd = (prior.log_pdf_log(u + 1e-6)[0] - prior.log_pdf_log(u - 1e-6)[0]) / 2e-6
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(value, prior.log_pdf(np.exp(u)) + u)  # log-Jacobian added
    total, _ = quad(lambda t: np.exp(prior.log_pdf(np.array(t))), 0, np.inf)
    assert total == pytest.approx(1.0, rel=1e-6)
    assert np.isfinite(prior.sample_log(5, rng=0)).all()


def test_prior_densities_match_scipy():
    t = np.array([0.3, 1.0, 4.0])
    np.testing.assert_allclose(Gamma(2.0, 3.0).log_pdf(t), stats.gamma(2.0, scale=1 / 3).logpdf(t))
    np.testing.assert_allclose(HalfStudentT(4, 2.0).log_pdf(t),
                               np.log(2) + stats.t(4, scale=2.0).logpdf(t))
    np.testing.assert_allclose(LogNormal(0.5, 0.7).log_pdf(t),
                               stats.lognorm(0.7, scale=np.exp(0.5)).logpdf(t))


def test_priors_in_log_space_stay_finite_far_out():
    # log p_u is computed in u, so e^u overflowing (u > 709) or underflowing does not matter
    u = np.array([-800.0, 800.0])
    value, grad = LogNormal(0.5, 2.0).log_pdf_log(u)
    np.testing.assert_allclose(value, stats.norm(0.5, 2.0).logpdf(u))
    np.testing.assert_allclose(grad, -(u - 0.5) / 4.0)
    nu, scale = 4, 2.0
    value, grad = HalfStudentT(nu, scale).log_pdf_log(u)
    # far out, log(1 + e^z) is z (u >> 0) or 0 (u << 0) with z = 2 (u - log s) - log nu
    const = (np.log(2.0) + stats.t(nu).logpdf(0.0) - np.log(scale))
    z = 2.0 * (u - np.log(scale)) - np.log(nu)
    np.testing.assert_allclose(value, const - 0.5 * (nu + 1) * np.maximum(z, 0.0) + u)
    np.testing.assert_allclose(grad, [1.0, -nu])
    value, grad = Gamma(2.0, 3.0).log_pdf_log(u)
    assert value[0] == pytest.approx(2.0 * np.log(3.0) + 2.0 * u[0])   # gammaln(2) = 0
    assert grad[0] == pytest.approx(2.0)
    assert value[1] == -np.inf and grad[1] == -np.inf                  # -3 e^800: beyond float64
    assert np.isfinite(LogNormal(800.0, 1.0).sample_log(3, rng=0)).all()


def test_a_hyper_parameter_must_be_positive_and_each_setting_is_checked_by_name():
    with pytest.raises(ValueError, match="^theta: a hyper-parameter must be > 0"):
        LogNormal().log_pdf([1.0, 0.0])
    for build, name in ((lambda: LogNormal(0.0, 0.0), "sigma"), (lambda: HalfStudentT(0), "dof"),
                        (lambda: Gamma(2.0, -1.0), "rate"), (lambda: Gamma(0.0), "shape")):
        with pytest.raises(ValueError, match=f"^{name}:"):
            build()
