"""Exact GP regression (the shared prediction step, the hyper-priors and the optimiser have
their own test files: test_prediction.py, test_priors.py, test_optimise.py)."""

import warnings

import numpy as np
import pytest
from scipy import stats

from course_lib.gp.kernels import (Linear, Matern52, Periodic, RationalQuadratic,
                                   SquaredExponential, White)
from course_lib.gp.prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                                      cholesky_with_jitter, sample_gaussian)
from course_lib.gp.priors import LogNormal
from course_lib.gp.regression import GPRegression, gaussian_evidence


def toy(n=25, seed=1, d=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, d))
    return X, np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)


X, Y = toy()
X_TEST = np.linspace(-4, 4, 31)[:, None]


# ----- hand-worked examples ------------------------------------------------------------------
def test_one_point_gp_by_hand():
    # K = 1, k(x*, x1) = exp(-1/2) at distance one lengthscale:
    # m* = e^{-1/2} y / (1 + s2), v* = 1 - e^{-1} / (1 + s2)
    gp = GPRegression(SquaredExponential(1.0, 1.0), 0.25).fit([[0.0]], [2.0])
    mean, var = gp.predict([[1.0]])
    assert mean[0] == pytest.approx(np.exp(-0.5) * 2.0 / 1.25)
    assert var[0] == pytest.approx(1.0 - np.exp(-1.0) / 1.25)
    # log N(2 | 0, 1.25)
    assert gp.log_evidence() == pytest.approx(
        -0.5 * 4 / 1.25 - 0.5 * np.log(2 * np.pi * 1.25))


def test_three_point_gp_worked_out():
    # X = 0, 1, 2 with SE(ell=1, var=1): K has e^{-1/2} next to the diagonal and e^{-2} in the
    # corners. The solve is done with an explicit 3x3 Gauss elimination via np.linalg.solve
    # (independent of the Cholesky path), predictions at x* = 0.5.
    a, b, s2 = np.exp(-0.5), np.exp(-2.0), 0.1
    K = np.array([[1, a, b], [a, 1, a], [b, a, 1]])
    y = np.array([1.0, -1.0, 0.5])
    k_star = np.exp(-0.5 * (np.array([0.0, 1.0, 2.0]) - 0.5) ** 2)
    alpha = np.linalg.solve(K + s2 * np.eye(3), y)
    gp = GPRegression(SquaredExponential(1.0, 1.0), s2).fit([[0.0], [1.0], [2.0]], y)
    mean, var = gp.predict([[0.5]])
    assert mean[0] == pytest.approx(k_star @ alpha, rel=1e-12)
    assert var[0] == pytest.approx(1.0 - k_star @ np.linalg.solve(K + s2 * np.eye(3), k_star),
                                   rel=1e-12)
    assert gp.log_evidence() == pytest.approx(
        stats.multivariate_normal(np.zeros(3), K + s2 * np.eye(3)).logpdf(y), rel=1e-12)


def test_log_evidence_equals_multivariate_normal_density():
    kernel = Matern52(0.8, 1.5) + Linear(0.1)
    gp = GPRegression(kernel, 0.05).fit(X, Y)
    cov = kernel(X) + 0.05 * np.eye(len(Y))
    expected = stats.multivariate_normal(np.zeros(len(Y)), cov).logpdf(Y)
    result = gp.evidence()
    assert result.value == pytest.approx(expected, rel=1e-10) and result.gradient is None
    assert result.value == pytest.approx(result.data_fit + result.complexity + result.constant)


# ----- invariants ----------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", [SquaredExponential(0.5, 2.0), Matern52(1.5, 0.7),
                                    Periodic(1.0, 2.0) + Linear(0.3), RationalQuadratic(0.3, 1.0)])
def test_posterior_variance_never_above_prior(kernel):
    gp = GPRegression(kernel, 0.01).fit(X, Y)
    _, var = gp.predict(X_TEST)
    assert np.all(var <= kernel.diag(X_TEST) + 1e-12)
    assert np.all(var >= 0)
    _, cov = gp.predict(X_TEST, full_cov=True)
    assert np.linalg.eigvalsh(kernel(X_TEST) - cov).min() > -1e-9  # prior - posterior is PSD


def test_noise_to_zero_interpolates():
    # noise-free data from a smooth function (noisy data cannot be interpolated stably)
    x = np.linspace(-3, 3, 12)[:, None]
    y = np.sin(2 * x[:, 0])
    gp = GPRegression(SquaredExponential(0.7, 1.0), 0.0).fit(x, y)
    mean, var = gp.predict(x)
    np.testing.assert_allclose(mean, y, atol=1e-6)
    np.testing.assert_allclose(var, 0.0, atol=1e-6)
    assert gp.param_names == ("variance", "lengthscale")  # noise is not a hyper-parameter
    for noise in (1e-2, 1e-4, 1e-6):  # the error shrinks with the noise
        err = np.abs(GPRegression(SquaredExponential(0.7, 1.0), noise).fit(x, y).predict(x)[0] - y)
        assert err.max() < 10 * noise


def test_duplicated_noise_free_inputs_need_jitter_and_warn():
    Xd = np.array([[0.0], [1.0], [1.0], [2.0]])
    yd = np.array([0.0, 1.0, 1.0, 0.5])
    with pytest.warns(JitterWarning, match="jitter"):
        gp = GPRegression(SquaredExponential(1.0), 0.0).fit(Xd, yd)
    assert gp.posterior.jitter > 0
    mean, var = gp.predict(Xd)
    np.testing.assert_allclose(mean, yd, atol=1e-4)
    assert np.all(np.isfinite(var))


def test_not_positive_definite_even_with_jitter_says_what_to_try():
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1: no jitter can fix it
    with pytest.raises(NotPositiveDefiniteError, match=r"K \+ noise.*even with jitter.*Try"):
        LatentGaussian.from_noise(bad, [0.0, 1.0], 0.0)
    with pytest.raises(ValueError, match="K: not positive definite"):
        cholesky_with_jitter(-np.eye(2))


def test_include_noise_and_full_covariance():
    gp = GPRegression(SquaredExponential(1.0), 0.2).fit(X, Y)
    mean, var = gp.predict(X_TEST)
    mean2, cov = gp.predict(X_TEST, full_cov=True)
    np.testing.assert_allclose(mean, mean2)
    np.testing.assert_allclose(np.diag(cov), var, atol=1e-12)
    np.testing.assert_allclose(gp.predict(X_TEST, include_noise=True)[1], var + 0.2)
    np.testing.assert_allclose(np.diag(gp.predict(X_TEST, True, True)[1]), var + 0.2)


def test_samples_are_reproducible_and_have_the_right_moments():
    gp = GPRegression(SquaredExponential(1.0), 0.1).fit(X, Y)
    x = np.linspace(-1, 1, 4)[:, None]
    a = gp.sample_posterior(x, 3, rng=5)
    assert a.shape == (3, 4)
    np.testing.assert_array_equal(a, gp.sample_posterior(x, 3, rng=np.random.default_rng(5)))
    draws = gp.sample_posterior(x, 20000, rng=0)
    mean, cov = gp.predict(x, full_cov=True)
    np.testing.assert_allclose(draws.mean(0), mean, atol=4 * np.sqrt(np.diag(cov).max() / 20000))
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.02 * np.diag(cov).max() + 1e-4)
    prior = gp.sample_prior(x, 20000, rng=1)
    np.testing.assert_allclose(np.cov(prior.T), gp.kernel(x), atol=0.05)


def test_sampling_singular_covariance_falls_back_to_eigen():
    draws = sample_gaussian(np.ones(3), np.zeros((3, 3)), 2, rng=0)
    np.testing.assert_allclose(draws, 1.0)


# ----- gradients -----------------------------------------------------------------------------
def test_log_evidence_gradient_by_finite_differences():
    kernel = SquaredExponential([0.8, 1.3], 1.1) * Periodic(1.5, 3.0) + RationalQuadratic(0.6, 0.3)
    X2, y2 = toy(d=2)
    gp = GPRegression(kernel, 0.05).fit(X2, y2)
    grad = gp.evidence(eval_gradient=True).gradient
    theta, h = gp.theta, 1e-5
    for p in range(theta.size):
        step = np.zeros_like(theta)
        step[p] = h
        fd = (gp.log_evidence(theta + step) - gp.log_evidence(theta - step)) / (2 * h)
        assert grad[p] == pytest.approx(fd, rel=1e-5, abs=1e-6), gp.param_names[p]


def test_per_point_noise_gradient_by_finite_differences():
    # heteroscedastic noise (e.g. one variance per rater in Unit 5): d/d log noise_i
    kernel = SquaredExponential(1.0, 1.0)
    noise = np.linspace(0.05, 0.3, len(Y))
    result = gaussian_evidence(kernel(X), Y, noise, kernel.gradient(X)[1])
    for i in (0, 7, 24):
        up, down = noise.copy(), noise.copy()
        up[i] *= np.exp(1e-6)
        down[i] *= np.exp(-1e-6)
        fd = (gaussian_evidence(kernel(X), Y, up).value
              - gaussian_evidence(kernel(X), Y, down).value) / 2e-6
        assert result.gradient_log_noise[i] == pytest.approx(fd, rel=1e-5, abs=1e-8)
    # the gradient of a vector noise: the kernel's, then one entry per point
    np.testing.assert_array_equal(result.gradient, np.concatenate(
        [result.gradient_kernel, result.gradient_log_noise]))


def test_the_gradient_of_one_noise_is_the_sum_and_of_no_noise_the_kernels_alone():
    kernel = SquaredExponential(1.0, 1.0)
    K, dK = kernel.gradient(X)
    shared = gaussian_evidence(K, Y, 0.1, dK)
    np.testing.assert_allclose(shared.gradient, np.append(shared.gradient_kernel,
                                                          shared.gradient_log_noise.sum()))
    noise_free = gaussian_evidence(K + 0.1 * np.eye(len(Y)), Y, 0.0, dK)
    np.testing.assert_array_equal(noise_free.gradient, noise_free.gradient_kernel)


def test_rng_is_keyword_only_everywhere_in_unit_4():
    import inspect

    from course_lib.gp import toy_data
    from course_lib.gp import priors
    from course_lib.gp import sparse as inducing_inputs
    from course_lib.widgets import gp as gp_widgets
    callables = [GPRegression.optimise_hyperparameters, GPRegression.sample_prior,
                 GPRegression.sample_posterior, LogNormal.sample_log, sample_gaussian,
                 inducing_inputs.select_inducing_inputs, toy_data.toy_regression_data,
                 toy_data.ambiguous_regression_data, gp_widgets.kernel_explorer,
                 gp_widgets.conditioning_explorer]
    for function in callables:
        parameter = inspect.signature(function).parameters["rng"]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, function.__qualname__
    assert priors.Prior.sample_log is LogNormal.sample_log


def test_extreme_but_allowed_magnitudes_are_computed():
    # log-parameters up to +-230 (values 1e-100 to 1e100) give finite evidence and gradients
    gp = GPRegression(SquaredExponential(1.0, 1.0), 0.1).fit(X, Y)
    for theta in ([200.0, 0.0, -2.0], [0.0, 200.0, -2.0], [0.0, -200.0, -2.0],
                  [-200.0, 0.0, 200.0], [0.0, 0.0, -200.0]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JitterWarning)   # K + noise is singular at 1e-16
            result = gp.evidence(np.array(theta), eval_gradient=True)
        assert np.isfinite(result.value) and np.all(np.isfinite(result.gradient)), theta
    # training inputs 1e200 apart are independent: the evidence is a product of 1-D Gaussians
    far = np.array([[0.0], [1e200], [-1e200]])
    y = np.array([0.3, -1.0, 2.0])
    far_gp = GPRegression(SquaredExponential(1.0, 2.0), 0.5).fit(far, y)
    result = far_gp.evidence(eval_gradient=True)
    assert result.value == pytest.approx(stats.norm(0, np.sqrt(2.5)).logpdf(y).sum())
    assert np.all(np.isfinite(result.gradient)) and result.gradient[1] == 0.0
    mean, var = far_gp.predict(far)
    np.testing.assert_allclose(mean, 2.0 / 2.5 * y)
    np.testing.assert_allclose(var, 2.0 - 4.0 / 2.5)


def test_fit_names_the_kernel_when_its_matrix_is_not_positive_definite():
    # a linear kernel on inputs at the origin with no noise: K = 0, beyond any jitter. The
    # message starts with the kernel (the argument to change) and says on which X (issue 20)
    gp = GPRegression(Linear(1.0), 0.0)
    with pytest.raises(NotPositiveDefiniteError, match="^kernel: its matrix on X plus "
                                                       "noise_variance"):
        gp.fit(np.zeros((3, 1)), np.ones(3))


def test_no_warning_in_the_normal_path():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gp = GPRegression(SquaredExponential(1.0) + White(0.01), 0.1).fit(X, Y)
        mean, cov = gp.predict(X_TEST, full_cov=True)
        result = gp.evidence(eval_gradient=True)
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))
    assert np.isfinite(result.value) and np.all(np.isfinite(result.gradient))


def test_no_kernel_parameters_give_an_empty_kernel_gradient():
    """A kernel with nothing to learn passes dK of shape (0, n, n): the evidence is the same and
    its kernel gradient is empty (it once failed reshaping a size-0 array)."""
    K = np.array([[2.0, 0.5, 0.1], [0.5, 2.0, 0.5], [0.1, 0.5, 2.0]])
    y = np.array([1.0, -0.5, 2.0])
    without = gaussian_evidence(K, y, 0.1)
    empty = gaussian_evidence(K, y, 0.1, np.zeros((0, 3, 3)))
    assert empty.value == without.value and empty.gradient_kernel.shape == (0,)
