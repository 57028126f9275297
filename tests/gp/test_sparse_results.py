"""The fitted sparse GP: predictions through q(u) as a LatentGaussian, variances and noise."""

import numpy as np
import pytest

from course_lib.gp.kernels import SquaredExponential
from course_lib.gp.prediction import LatentGaussian
from course_lib.gp.sparse import DEFAULT_JITTER, sparse_posterior
from sparse_data import NOISE, spread_inducing, toy_data


def test_predictive_variance_properties():
    X, y = toy_data(n=100)
    kernel = SquaredExponential(0.8, 1.3)
    model = sparse_posterior(X, y, spread_inducing(8), kernel, NOISE)
    X_star = np.linspace(-3, 8, 70)[:, None]
    mean, var = model.predict(X_star)
    assert np.all(var >= 0) and np.all(var <= kernel.diag(X_star) + 1e-12)
    assert var[0] == pytest.approx(kernel.variance, rel=1e-6)  # far from the data: the prior
    _, noisy = model.predict(X_star, include_noise=True)
    np.testing.assert_allclose(noisy, var + NOISE)
    _, cov = model.predict(X_star, full_cov=True)
    np.testing.assert_allclose(np.diag(cov), var, atol=1e-12)


def test_predictions_go_through_the_shared_latent_gaussian():
    X, y = toy_data(n=80)
    kernel = SquaredExponential(0.8, 1.3)
    Z = spread_inducing(6)
    model = sparse_posterior(X, y, Z, kernel, NOISE)
    assert isinstance(model.posterior, LatentGaussian) and model.posterior.form == "covariance"
    X_star = np.linspace(0, 5, 11)[:, None]
    expected = model.posterior.predict(kernel(Z, X_star), kernel.diag(X_star))
    for got, want in zip(model.predict(X_star), expected):
        np.testing.assert_array_equal(got, want)
    # the jitter on K_uu is recorded as the absolute amount added to its diagonal
    assert model.posterior.jitter == pytest.approx(DEFAULT_JITTER * kernel.variance)
