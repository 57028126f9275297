"""Exact GP regression, the shared prediction step, hyper-priors and fitting."""

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import quad

from course_lib.gp.kernels import (Linear, Matern52, Periodic, RationalQuadratic,
                                   SquaredExponential, White)
from course_lib.gp.prediction import (JitterWarning, LatentGaussian, NotPositiveDefiniteError,
                                      cholesky_with_jitter, predict_from_gaussian,
                                      sample_gaussian)
from course_lib.gp.priors import Gamma, HalfStudentT, LogNormal
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


# ----- the shared prediction step ------------------------------------------------------------
def test_general_prediction_step_reduces_to_exact_regression():
    kernel, s2 = SquaredExponential(0.3, 1.2), 0.07  # short lengthscale: K well conditioned
    gp = GPRegression(kernel, s2).fit(X, Y)
    K, K_cross = kernel(X), kernel(X, X_TEST)
    # exact posterior of the training latents, written out: mu = K (K + s2 I)^-1 y,
    # Sigma = K - K (K + s2 I)^-1 K
    inverse = np.linalg.inv(K + s2 * np.eye(len(Y)))
    mu, Sigma = K @ inverse @ Y, K - K @ inverse @ K
    expected_mean, expected_cov = gp.predict(X_TEST, full_cov=True)
    forms = {
        "covariance": LatentGaussian.from_mean_cov(K, mu, Sigma),
        "precision (diagonal R)": LatentGaussian.from_precision(K, mu, np.full(len(Y), s2 ** -0.5)),
        "precision (matrix R)": LatentGaussian.from_precision(K, mu, np.eye(len(Y)) / np.sqrt(s2)),
    }
    for label, q in forms.items():
        mean, cov = q.predict(K_cross, kernel(X_TEST))
        np.testing.assert_allclose(mean, expected_mean, atol=1e-8, err_msg=label)
        np.testing.assert_allclose(cov, expected_cov, atol=1e-8, err_msg=label)
    mean, var = predict_from_gaussian(K, K_cross, kernel.diag(X_TEST), mu, Sigma)
    np.testing.assert_allclose(var, np.diag(expected_cov), atol=1e-8)
    np.testing.assert_allclose(gp.posterior.mean, mu, atol=1e-10)
    np.testing.assert_allclose(gp.posterior.covariance(K), Sigma, atol=1e-10)


def test_precision_form_with_singular_w_matches_dense_formula():
    # a pairwise-like W = M^T D M is singular; the R-form needs no inverse of W
    rng = np.random.default_rng(3)
    kernel = SquaredExponential(1.0, 1.0)
    Xp = rng.uniform(-2, 2, (6, 1))
    M = np.zeros((4, 6))
    for row, (u, v) in enumerate([(0, 1), (1, 2), (3, 4), (4, 5)]):
        M[row, u], M[row, v] = -1.0, 1.0
    w = rng.uniform(0.5, 2.0, 4)
    R = M.T * np.sqrt(w)
    K = kernel(Xp)
    f_hat = rng.normal(size=6)
    q = LatentGaussian.from_precision(K, f_hat, R)
    Sigma = np.linalg.inv(np.linalg.inv(K) + M.T @ np.diag(w) @ M)
    mean, cov = q.predict(kernel(Xp, X_TEST), kernel(X_TEST))
    Kinv = np.linalg.inv(K)
    Kc = kernel(Xp, X_TEST)
    np.testing.assert_allclose(mean, Kc.T @ Kinv @ f_hat, atol=1e-8)
    np.testing.assert_allclose(cov, kernel(X_TEST) - Kc.T @ (Kinv - Kinv @ Sigma @ Kinv) @ Kc,
                               atol=1e-8)


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


# ----- fitting -------------------------------------------------------------------------------
def test_optimise_finds_a_stationary_point_and_beats_the_start():
    gp = GPRegression(SquaredExponential(0.1, 5.0, lengthscale_bounds=(0.05, 20.0),
                                         variance_bounds=(0.01, 100.0)),
                      0.5, noise_bounds=(1e-4, 10.0)).fit(X, Y)
    start = gp.log_evidence()
    fit = gp.optimise_hyperparameters(n_restarts=4, rng=0)
    assert fit.objective >= start
    assert fit.objectives.shape == (4,) and fit.starts.shape == fit.ends.shape == (4, 3)
    assert fit.objective == pytest.approx(fit.objectives.max())
    assert gp.log_evidence() == pytest.approx(fit.objective) == fit.log_evidence
    grad = gp.evidence(eval_gradient=True).gradient
    assert np.abs(grad).max() < 1e-2
    assert 0.05 < fit.params["noise_variance"] ** 0.5 < 0.3  # data noise sd is 0.1
    np.testing.assert_allclose(gp.theta, fit.theta)


def test_map_ii_pulls_towards_the_prior_and_fixed_bounds_hold():
    base = dict(noise_variance=0.01, noise_bounds="fixed")
    kernel = SquaredExponential(1.0, 1.0, variance_bounds="fixed")
    ml = GPRegression(kernel, **base).fit(X[:6], Y[:6])
    ml.optimise_hyperparameters(n_restarts=3, rng=0)
    prior = {"lengthscale": LogNormal(np.log(0.2), 0.1)}
    gp_map = GPRegression(kernel, priors=prior, **base).fit(X[:6], Y[:6])
    fit = gp_map.optimise_hyperparameters(n_restarts=3, rng=0)
    assert abs(np.log(fit.params["lengthscale"] / 0.2)) < abs(np.log(ml.kernel.lengthscale / 0.2))
    assert fit.params["variance"] == pytest.approx(1.0)
    assert gp_map.noise_variance == pytest.approx(0.01)
    lp, _ = gp_map.log_hyper_prior()
    assert fit.objective == pytest.approx(fit.log_evidence + lp)


def test_n_restarts_counts_every_run_and_n_iter_is_reported():
    gp = GPRegression(SquaredExponential(1.0, 1.0), 0.1).fit(X, Y)
    initial = gp.theta
    fit = gp.optimise_hyperparameters(n_restarts=3, rng=0, max_iter=5)
    assert fit.starts.shape == fit.ends.shape == (3, 3)
    np.testing.assert_array_equal(fit.starts[0], initial)     # the first run from the model
    assert fit.n_iter.shape == (3,) and np.all((fit.n_iter >= 1) & (fit.n_iter <= 5))
    single = GPRegression(SquaredExponential(1.0, 1.0), 0.1).fit(X, Y)
    assert single.optimise_hyperparameters(n_restarts=1).ends.shape == (1, 3)


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


def test_from_whitened_is_the_same_gaussian_as_from_mean_cov():
    rng = np.random.default_rng(5)
    K = SquaredExponential(0.8, 1.2)(X[:6]) + 0.1 * np.eye(6)
    L_K = np.linalg.cholesky(K)
    w, T = rng.normal(size=6), np.tril(rng.normal(size=(6, 6)))
    whitened = LatentGaussian.from_whitened(L_K, w, T)
    mean, Sigma = L_K @ w, L_K @ T @ T.T @ L_K.T
    literal = LatentGaussian.from_mean_cov(K, mean, Sigma)
    np.testing.assert_allclose(whitened.mean, mean)
    np.testing.assert_allclose(whitened.covariance(), Sigma, atol=1e-12)
    K_cross = SquaredExponential(0.8, 1.2)(X[:6], X_TEST)
    K_test = SquaredExponential(0.8, 1.2)(X_TEST)
    for got, want in zip(whitened.predict(K_cross, K_test), literal.predict(K_cross, K_test)):
        np.testing.assert_allclose(got, want, atol=1e-9)


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


def test_the_optimiser_objective_has_the_gradient_it_reports():
    # what L-BFGS-B sees: minus (log evidence + log hyper-prior), with its own gradient assembly
    gp = GPRegression(SquaredExponential(0.7, 1.3), 0.2,
                      priors={"lengthscale": LogNormal(0.0, 1.0)}).fit(X, Y)
    theta = gp.theta
    _, grad = gp.negative_objective(theta)
    for p in range(theta.size):
        step = np.zeros_like(theta)
        step[p] = 1e-6
        fd = (gp.negative_objective(theta + step)[0]
              - gp.negative_objective(theta - step)[0]) / 2e-6
        assert grad[p] == pytest.approx(fd, rel=1e-5, abs=1e-7), gp.param_names[p]


def test_no_kernel_parameters_give_an_empty_kernel_gradient():
    """A kernel with nothing to learn passes dK of shape (0, n, n): the evidence is the same and
    its kernel gradient is empty (it once failed reshaping a size-0 array)."""
    K = np.array([[2.0, 0.5, 0.1], [0.5, 2.0, 0.5], [0.1, 0.5, 2.0]])
    y = np.array([1.0, -0.5, 2.0])
    without = gaussian_evidence(K, y, 0.1)
    empty = gaussian_evidence(K, y, 0.1, np.zeros((0, 3, 3)))
    assert empty.value == without.value and empty.gradient_kernel.shape == (0,)
