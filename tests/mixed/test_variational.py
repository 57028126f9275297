"""The variational bound and its fit (course_lib.mixed.variational): fit_variational,
variational_evidence, and VariationalGP as the driver that fits q(f).

Oracles: exact Gaussian conditioning (closed form; with a Gaussian likelihood the variational
posterior is exact and the ELBO is the log marginal likelihood), grid integration of the
posterior of two items (the ELBO is below the log evidence by exactly KL(q || posterior)),
dense-matrix formulas for the KL and the rows' moments, and finite differences. GPflow (its
VGP_opper_archambeau is this model) is on the package index but needs TensorFlow, far too
heavy a dependency for the course's environment, so it is not an oracle here. The model's own
behaviour (MAP-II, learned likelihood parameters, warm-started refits) is tested in
test_variational_model.py, the MixedLikelihood in test_variational_model_mixed_likelihood.py.
"""

import numpy as np
import pytest
from scipy.special import log_ndtr, ndtr
from scipy.stats import multivariate_normal

from course_lib.gp import GPRegression, SquaredExponential
from course_lib.preference import PreferenceGP
from course_lib.preference.comparisons import Comparisons
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint
from course_lib.mixed import MixedLikelihood
from course_lib.preference import PairwiseGaussian, PairwiseProbit
from course_lib.mixed.variational import VariationalGP, fit_variational, variational_evidence
from variational_data import SE, X12, Y12, probit_pairs


def test_gaussian_likelihood_gives_exact_regression():
    exact = GPRegression(SE, 0.09, noise_bounds="fixed").fit(X12, Y12)
    vgp = VariationalGP(SE, PairwiseGaussian(0.3)).fit(X12, Y12)
    X_test = np.linspace(-1.0, 6.0, 9)[:, None]
    mean, cov = vgp.predict(X_test, full_cov=True)
    mean_exact, cov_exact = exact.predict(X_test, full_cov=True)
    np.testing.assert_allclose(mean, mean_exact, atol=1e-7)
    np.testing.assert_allclose(cov, cov_exact, atol=1e-9)
    assert vgp.log_evidence() == pytest.approx(exact.log_evidence(), abs=1e-8)
    # the optimum satisfies the fixed point exactly: lambda = 1 / noise variance
    np.testing.assert_allclose(vgp.result.site_precision, 1.0 / 0.09, rtol=1e-9)
    gradient = vgp.evidence(vgp.theta, eval_gradient=True).gradient
    np.testing.assert_allclose(gradient, exact.evidence(eval_gradient=True).gradient[:2],
                               rtol=1e-5)


@pytest.mark.filterwarnings("ignore::course_lib.preference.comparisons.DisconnectedComparisonsWarning")
def test_gaussian_pairs_and_single_items_match_dense_conditioning():
    """Observed differences (+1/-1 rows) and single items: q is exact, ELBO = log N(y; 0,
    M K M^T + diag(noise))."""
    pairs = Comparisons(X12, [0, 3, 5, 9], [2, 4, 11, 1], [0.5, -0.2, 1.0, 0.3],
                        kind="pair-difference")
    M_items = np.eye(12)[[1, 6, 7]]
    y_items = Y12[[1, 6, 7]]
    mixed = MixedLikelihood([(PairwiseGaussian(0.4), pairs.matrix(), pairs.y),
                             (PairwiseGaussian(0.2), M_items, y_items)])
    vgp = VariationalGP(SE, mixed).fit(X12)
    K = SE(X12)
    M = np.vstack([pairs.matrix(), M_items])
    noise = np.r_[[0.16] * 4, [0.04] * 3]
    y = np.r_[pairs.y, y_items]
    precision = np.linalg.inv(K) + M.T @ (M / noise[:, None])
    Sigma = np.linalg.inv(precision)
    mean = Sigma @ M.T @ (y / noise)
    np.testing.assert_allclose(vgp.posterior.mean, mean, atol=1e-7)
    np.testing.assert_allclose(vgp.posterior.covariance(K), Sigma, atol=1e-8)
    evidence = multivariate_normal(np.zeros(7), M @ K @ M.T + np.diag(noise)).logpdf(y)
    assert vgp.result.value == pytest.approx(evidence, abs=1e-8)


def two_item_probit():
    X = np.array([[0.0], [0.9]])
    kernel = SquaredExponential(1.5, 1.0)
    M = np.array([[1.0, -1.0], [1.0, -1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([1.0, 1.0, 0.0, 1.0])
    return X, kernel, M, y, PairwiseProbit(0.7)


def test_elbo_is_below_the_log_evidence_by_kl_to_the_true_posterior():
    X, kernel, M, y, likelihood = two_item_probit()
    result = VariationalGP(kernel, likelihood).fit(X, y, M).result
    K = kernel(X)
    # grid over f (2 items), +-9 prior sds, the true posterior by quadrature
    grid = np.linspace(-9.0, 9.0, 721) * np.sqrt(K[0, 0])
    F = np.stack(np.meshgrid(grid, grid, indexing="ij"), axis=-1).reshape(-1, 2)
    cell = (grid[1] - grid[0]) ** 2
    c = 1.0 / (np.sqrt(2.0) * 0.7)
    log_joint = (multivariate_normal(np.zeros(2), K).logpdf(F)
                 + log_ndtr((2 * y - 1) * c * (F @ M.T)).sum(axis=1))
    peak = log_joint.max()
    log_evidence = peak + np.log(np.exp(log_joint - peak).sum() * cell)
    Sigma = result.posterior.covariance(K)
    log_q = multivariate_normal(result.posterior.mean, Sigma).logpdf(F)
    kl_to_posterior = np.sum(np.exp(log_q) * (log_q - (log_joint - log_evidence))) * cell
    assert result.value < log_evidence
    assert log_evidence - result.value == pytest.approx(kl_to_posterior, abs=1e-6)
    assert kl_to_posterior > 1e-4  # the probit posterior is not Gaussian: a real gap


def test_mixed_elbo_is_sum_of_parts_minus_one_kl():
    pairs = probit_pairs()
    items = np.eye(pairs.n_items)[[2, 7, 11]]
    mixed = MixedLikelihood([(PairwiseProbit(0.5), pairs.matrix(), pairs.y),
                             (PairwiseGaussian(0.3), items, [0.4, -0.6, 0.9])])
    result = VariationalGP(SquaredExponential(0.5, 1.0), mixed).fit(pairs.X).result
    K = SquaredExponential(0.5, 1.0)(pairs.X)
    mu, Sigma = result.posterior.mean, result.posterior.covariance(K)
    _, log_det_K = np.linalg.slogdet(K)
    _, log_det_S = np.linalg.slogdet(Sigma)
    kl = 0.5 * (np.trace(np.linalg.solve(K, Sigma)) + mu @ np.linalg.solve(K, mu)
                - K.shape[0] + log_det_K - log_det_S)
    assert result.kl == pytest.approx(kl, rel=1e-6)
    parts = []
    for likelihood, rows in zip(mixed.likelihoods, mixed.slices):
        M_part = mixed.M[rows]
        parts.append(likelihood.expected_log_likelihood(
            mixed.y[rows], M_part @ mu, np.einsum("ij,jk,ik->i", M_part, Sigma, M_part))[0].sum())
    np.testing.assert_allclose(result.part_expected_log_likelihoods, parts, rtol=1e-8)
    assert result.value == pytest.approx(sum(parts) - kl, rel=1e-8)


def test_mixed_with_one_part_equals_the_single_likelihood_model():
    pairs = probit_pairs()
    kernel = SquaredExponential(0.5, 1.0)
    single = VariationalGP(kernel, PairwiseProbit(0.5)).fit(pairs.X, pairs.y, pairs.matrix())
    mixed = VariationalGP(kernel, MixedLikelihood([(PairwiseProbit(0.5), pairs.matrix(),
                                                    pairs.y)])).fit(pairs.X)
    assert mixed.result.value == single.result.value
    np.testing.assert_array_equal(mixed.result.alpha, single.result.alpha)


def test_swapping_pair_rows_leaves_the_posterior_unchanged():
    pairs = probit_pairs()
    kernel = SquaredExponential(0.5, 1.0)
    fits = [VariationalGP(kernel, PairwiseProbit(0.5)).fit(c.X, c.y, c.matrix())
            for c in (pairs, pairs.swapped())]
    K = kernel(pairs.X)
    np.testing.assert_allclose(fits[0].posterior.mean, fits[1].posterior.mean, atol=1e-6)
    np.testing.assert_allclose(fits[0].posterior.covariance(K), fits[1].posterior.covariance(K),
                               atol=1e-6)
    assert fits[0].result.value == pytest.approx(fits[1].result.value, abs=1e-9)


def test_optimum_satisfies_the_fixed_point_conditions():
    pairs = probit_pairs()
    result = VariationalGP(SquaredExponential(0.5, 1.0), PairwiseProbit(0.5)).fit(
        pairs.X, pairs.y, pairs.matrix()).result
    _, d_mean, d_var = PairwiseProbit(0.5).expected_log_likelihood(pairs.y, result.z_mean,
                                                                   result.z_var)
    np.testing.assert_allclose(result.alpha, pairs.matrix().T @ d_mean, atol=1e-5)
    np.testing.assert_allclose(result.site_precision, -2.0 * d_var, rtol=1e-4)


@pytest.mark.parametrize("kl_weight", [1.0, 1.7])
def test_elbo_gradients_match_finite_differences(kl_weight):
    """Of the objective E - kl_weight KL (the ELBO at kl_weight = 1)."""
    pairs = probit_pairs(n=8, m=14)
    M, y, likelihood = pairs.matrix(), pairs.y, PairwiseProbit(0.5)
    kernel = SquaredExponential(0.5, 1.0)
    rng = np.random.default_rng(11)
    alpha, lam = rng.normal(0.0, 0.5, 8), rng.uniform(0.2, 2.0, 14)
    K, dK = kernel.gradient(pairs.X)
    at = variational_evidence(K, likelihood, alpha, lam, y, M, dK=dK, kl_weight=kl_weight)

    def objective(K_at, alpha_at, lam_at):
        return variational_evidence(K_at, likelihood, alpha_at, lam_at, y, M,
                                kl_weight=kl_weight).value

    h = 1e-6
    for index in range(8):
        step = np.zeros(8)
        step[index] = h
        fd = (objective(K, alpha + step, lam) - objective(K, alpha - step, lam)) / (2 * h)
        assert fd == pytest.approx(at.gradient_alpha[index], rel=1e-5, abs=1e-7)
    for index in range(14):
        step = np.zeros(14)
        step[index] = h
        fd = (objective(K, alpha, lam + step) - objective(K, alpha, lam - step)) / (2 * h)
        assert fd == pytest.approx(at.gradient_site_precision[index], rel=1e-5, abs=1e-7)
    for p in range(kernel.n_params):
        step = np.zeros(kernel.n_params)
        step[p] = h
        fd = (objective(kernel.with_theta(kernel.theta + step)(pairs.X), alpha, lam)
              - objective(kernel.with_theta(kernel.theta - step)(pairs.X), alpha, lam)) / (2 * h)
        assert fd == pytest.approx(at.gradient_kernel[p], rel=1e-5, abs=1e-7)


def test_probit_vgp_is_close_to_but_not_equal_to_laplace():
    """Both are Gaussian approximations of a skewed posterior: Laplace centres q on the
    posterior's mode with its curvature there, the VGP averages the likelihood over q, so they
    differ by a fraction of the posterior sd, not by round-off. Measured on this problem:
    largest mean difference 0.22 against posterior sds of 0.63 to 0.74, variances within
    0.008, ELBO 0.025 above Laplace's approximate evidence; the bounds below leave about
    1.5 to 4 times that room."""
    pairs = probit_pairs()
    kernel = SquaredExponential(0.5, 1.0)
    laplace = PreferenceGP(kernel, PairwiseProbit(0.5)).fit(pairs)
    vgp = VariationalGP(kernel, PairwiseProbit(0.5)).fit(pairs.X, pairs.y, pairs.matrix())
    mean_l, var_l = laplace.predict(pairs.X)
    mean_v, var_v = vgp.predict(pairs.X)
    difference = np.abs(mean_l - mean_v)
    assert 1e-3 < difference.max() < 0.5 * np.sqrt(var_v).min()
    np.testing.assert_allclose(var_v, var_l, atol=0.02)
    assert vgp.result.value == pytest.approx(laplace.log_evidence(), abs=0.1)


def test_warm_start_reaches_the_same_optimum():
    """From the optimum of a nearby kernel (as in MAP-II's evaluations). It does not save
    steps: the fixed-point phase converges linearly at a rate set by the problem (measured
    once: 19 steps warm against 18 cold here to the default tol, then one L-BFGS iteration
    each); a warm start pays off when the data grow by a row (next test)."""
    pairs = probit_pairs()
    M, y, likelihood = pairs.matrix(), pairs.y, PairwiseProbit(0.5)
    near = fit_variational(SquaredExponential(0.55, 1.0)(pairs.X), likelihood, y, M)
    K = SquaredExponential(0.5, 1.0)(pairs.X)
    cold = fit_variational(K, likelihood, y, M)
    warm = fit_variational(K, likelihood, y, M, alpha0=near.alpha,
                           site_precision0=near.site_precision)
    assert warm.value == pytest.approx(cold.value, abs=1e-9)
    np.testing.assert_allclose(warm.posterior.mean, cold.posterior.mean, atol=1e-5)
    assert warm.converged and cold.converged


# --------------------------------------------------------------------------------------------
# kl_weight: the lecture's bookkeeping trap
# --------------------------------------------------------------------------------------------

def test_kl_weight_one_is_the_elbo():
    pairs = probit_pairs()
    K, M = SE(pairs.X), pairs.matrix()
    plain = fit_variational(K, PairwiseProbit(0.5), pairs.y, M)
    weighted = fit_variational(K, PairwiseProbit(0.5), pairs.y, M, kl_weight=1.0)
    assert weighted.value == plain.value
    np.testing.assert_array_equal(weighted.alpha, plain.alpha)
    np.testing.assert_array_equal(weighted.site_precision, plain.site_precision)


def test_kl_weight_on_gaussian_data_is_regression_with_inflated_noise():
    """E log N(y; z, s^2) / beta - KL is maximised by the exact posterior for noise variance
    beta s^2: over-weighting the KL discounts every observation."""
    beta = 1.6
    exact = GPRegression(SE, beta * 0.09, noise_bounds="fixed").fit(X12, Y12)
    tight = GPRegression(SE, 0.09, noise_bounds="fixed").fit(X12, Y12)
    vgp = VariationalGP(SE, PairwiseGaussian(0.3), kl_weight=beta).fit(X12, Y12)
    X_test = np.linspace(-1.0, 6.0, 9)[:, None]
    mean, cov = vgp.predict(X_test, full_cov=True)
    mean_exact, cov_exact = exact.predict(X_test, full_cov=True)
    np.testing.assert_allclose(mean, mean_exact, atol=1e-7)
    np.testing.assert_allclose(cov, cov_exact, atol=1e-9)
    np.testing.assert_allclose(vgp.result.site_precision, 1.0 / (beta * 0.09), rtol=1e-9)
    # the true ELBO of this q is below the log evidence, which q at beta = 1 attains
    assert vgp.result.expected_log_likelihood - vgp.result.kl < tight.log_evidence() - 1e-3
    assert vgp.log_evidence() == pytest.approx(vgp.result.value)


def test_overweighted_kl_loosens_the_constraints():
    """E7.7: Bernoulli answers plus constraints with AEPsych's beta = (n + m) / n, and more.
    A larger weight pulls q toward the prior: the mean moves away from the constraints'
    targets, the variances at the constrained items grow, and the true ELBO falls."""
    X = np.linspace(0.0, 1.0, 12)[:, None]
    rng = np.random.default_rng(4)
    answers = (rng.uniform(size=10) < ndtr(3.0 * X[2:, 0] - 1.5)).astype(float)
    constraint_rows = np.eye(12)[:2]
    targets = np.array([-2.0, -2.0])
    mixed = MixedLikelihood([(BernoulliProbit(), np.eye(12)[2:], answers),
                             (GaussianConstraint([0.2, 0.2]), constraint_rows, targets)])
    kernel = SquaredExponential(0.4, 1.0)
    fits = [VariationalGP(kernel, mixed, kl_weight=beta).fit(X).result
            for beta in (1.0, 12 / 10, 2.0, 4.0)]
    miss = [np.abs(r.z_mean[10:] - targets).mean() for r in fits]
    spread = [r.z_var[10:].mean() for r in fits]
    elbo = [r.expected_log_likelihood - r.kl for r in fits]
    assert np.all(np.diff(miss) > 0) and np.all(np.diff(spread) > 0)
    assert np.all(np.diff(elbo) < 0)


# --------------------------------------------------------------------------------------------
# A warm start far out
# --------------------------------------------------------------------------------------------

def test_a_warm_start_far_out_falls_back_to_the_prior_mean_and_reaches_the_same_optimum():
    """Weights warm-started from another kernel can put K alpha far beyond anything the
    quadrature integrates over (an E7.1 MAP-II run did): the fit restarts its mean from the
    prior, keeps the sites, and reaches the cold fit's optimum."""
    pairs = probit_pairs()
    K, M = SE(pairs.X), pairs.matrix()
    cold = fit_variational(K, PairwiseProbit(0.5), pairs.y, M, tol=1e-10)
    far = fit_variational(K, PairwiseProbit(0.5), pairs.y, M, tol=1e-10,
                          alpha0=np.full(K.shape[0], 1e120),
                          site_precision0=cold.site_precision)
    assert far.value == pytest.approx(cold.value, abs=1e-7)
    np.testing.assert_allclose(K @ far.alpha, K @ cold.alpha, atol=1e-4)
