"""The sparse variational bound, its fit and the model (course_lib.mixed.sparse_variational):
Wu et al.'s whitened SVGP with fixed inducing points, and SparseVariationalGP's MAP-II, learned
likelihood parameters, warm-started refits and the level-set acquisitions reading it.

Oracles: exact GP regression (Gaussian likelihood with Z = X: the bound is tight), the full-rank
VariationalGP of course_lib.mixed.variational (any likelihood with Z = X: the same family of q),
the optimum's monotonicity in nested inducing sets, dense-matrix formulas for the rows' moments
and the KL (scipy's slogdet), the likelihoods' own expectations for the ledger, finite
differences for every gradient, and a cold fit for a warm one. GPflow's SVGP is not an oracle for
the reason given in tests/mixed/test_variational.py (it needs TensorFlow). The inducing points'
own tests are in tests/mixed/test_inducing.py.
"""

import numpy as np
import pytest
from scipy.stats import norm

from course_lib.gp import GPRegression, LogNormal, SquaredExponential
from course_lib.mixed.levelset import global_mi
from course_lib.mixed.feedback_likelihoods import (BernoulliProbit, GaussianConstraint,
                                                   LikertConfidence)
from course_lib.mixed import MixedLikelihood
from course_lib.preference import PairwiseGaussian, PairwiseProbit
from course_lib.mixed.inducing import inducing_points
from course_lib.mixed.sparse_variational import (SparseVariationalGP, fit_sparse_variational,
                                               sparse_variational_evidence)
from course_lib.mixed.variational import VariationalGP
from numerics import finite_difference
from sparse_variational_data import SE, TIGHT, X12, Y12, detection_2d, probit_pairs

X_TEST = np.linspace(-1.0, 6.0, 9)[:, None]


# --------------------------------------------------------------------------------------------
# Oracles: exact regression and the full-rank variational GP
# --------------------------------------------------------------------------------------------

def test_gaussian_likelihood_with_z_at_the_data_is_exact_regression():
    exact = GPRegression(SE, 0.09, noise_bounds="fixed").fit(X12, Y12)
    sparse = SparseVariationalGP(SE, PairwiseGaussian(0.3), X12).fit(X12, Y12)
    mean, cov = sparse.predict(X_TEST, full_cov=True)
    mean_exact, cov_exact = exact.predict(X_TEST, full_cov=True)
    np.testing.assert_allclose(mean, mean_exact, atol=1e-8)
    np.testing.assert_allclose(cov, cov_exact, atol=1e-9)
    assert sparse.log_evidence() == pytest.approx(exact.log_evidence(), abs=1e-8)
    # at the optimum the envelope gradient is the gradient of the log evidence
    gradient = sparse.evidence(sparse.theta, eval_gradient=True).gradient
    np.testing.assert_allclose(gradient, exact.evidence(eval_gradient=True).gradient[:2],
                               rtol=1e-5)
    # a Gaussian likelihood is solved by one natural-gradient step
    assert sparse.result.n_iter <= 3


def test_z_at_the_items_equals_the_full_variational_gp_mixed():
    X, mixed, _ = detection_2d()
    kernel = SquaredExponential([0.4, 0.5], 1.5)
    full = VariationalGP(kernel, mixed).fit(X)
    sparse = SparseVariationalGP(kernel, mixed, X, **TIGHT).fit(X)
    assert sparse.result.value == pytest.approx(full.result.value, abs=1e-7)
    np.testing.assert_allclose(sparse.result.part_expected_log_likelihoods,
                               full.result.part_expected_log_likelihoods, atol=1e-5)
    assert sparse.result.kl == pytest.approx(full.result.kl, abs=1e-5)
    grid = np.random.default_rng(0).uniform(0.0, 1.0, (30, 2))
    for got, want in zip(sparse.predict(grid), full.predict(grid)):
        np.testing.assert_allclose(got, want, atol=2e-6)


def test_z_at_the_items_equals_the_full_variational_gp_pairs():
    X, M, y = probit_pairs()
    kernel = SquaredExponential(0.6, 1.2)
    full = VariationalGP(kernel, PairwiseProbit(0.7)).fit(X, y, M)
    sparse = SparseVariationalGP(kernel, PairwiseProbit(0.7), X, **TIGHT).fit(X, y, M)
    assert sparse.result.value == pytest.approx(full.result.value, abs=1e-7)
    for got, want in zip(sparse.predict(X_TEST, full_cov=True),
                         full.predict(X_TEST, full_cov=True)):
        np.testing.assert_allclose(got, want, atol=2e-6)


def test_kl_weight_is_regression_with_the_noise_scaled_by_beta():
    """The teaching device: maximising E - beta KL counts every datum 1 / beta times, and a
    Gaussian likelihood to the power 1 / beta is a Gaussian with beta times the variance."""
    beta = 3.0
    exact = GPRegression(SE, beta * 0.09, noise_bounds="fixed").fit(X12, Y12)
    result = fit_sparse_variational(SE, X12, X12, PairwiseGaussian(0.3), Y12, kl_weight=beta)
    predicted = result.posterior.predict(SE(X12, X_TEST), SE(X_TEST))
    for got, want in zip(predicted, exact.predict(X_TEST, full_cov=True)):
        np.testing.assert_allclose(got, want, atol=1e-8)
    assert result.value == pytest.approx(result.expected_log_likelihood - beta * result.kl)
    assert result.value == pytest.approx(result.expected_log_likelihood - beta * result.kl)
    # and its gradients are those of the objective
    m, S = random_q(12, 4)
    at = sparse_variational_evidence(SE, X12, X12, PairwiseGaussian(0.3), m, S, Y12, kl_weight=beta)
    for i, j in ((0, 0), (5, 2), (11, 11)):
        def along(t, i=i, j=j):
            moved = S.copy()
            moved[i, j] = t
            return sparse_variational_evidence(SE, X12, X12, PairwiseGaussian(0.3), m, moved, Y12,
                                           kl_weight=beta).value
        assert at.gradient_root[i, j] == pytest.approx(central_difference(along, S[i, j]),
                                                       rel=1e-6, abs=1e-7)

    def along_mean(t):
        return sparse_variational_evidence(SE, X12, X12, PairwiseGaussian(0.3), np.r_[t, m[1:]], S,
                                       Y12, kl_weight=beta).value
    assert at.gradient_mean[0] == pytest.approx(central_difference(along_mean, m[0]), rel=1e-6)


def test_elbo_grows_with_nested_inducing_sets_up_to_the_full_model():
    """q over a subset of Z is a q over Z (v's extra coordinates at the prior), so each
    optimum can only rise along nested sets, and none exceeds the full-rank model's."""
    X, mixed, constraints = detection_2d()
    kernel = SquaredExponential([0.3, 0.3], 1.5)
    full = VariationalGP(kernel, mixed).fit(X).result.value
    Z = inducing_points([[0.0, 1.0], [0.0, 1.0]], 32, include=constraints, rng=5)
    order = np.r_[32 + np.arange(8), np.arange(32)]  # constraints first, then Sobol points
    elbos = [SparseVariationalGP(kernel, mixed, Z[order[:p]], **TIGHT).fit(X).result.value
             for p in (2, 8, 16, 24, 40)]
    assert np.all(np.diff(elbos) >= -1e-8), elbos
    assert elbos[-1] <= full + 1e-8
    assert elbos[0] < elbos[-1] - 1.0  # two inducing points are far too few here


def test_constraint_inducing_point_lets_the_posterior_meet_the_constraint():
    """1-D toy (Wu et al. (2025) Fig. 2 in miniature, App. A's advice): Bernoulli answers of
    f = x^2 / 2 and a firm constraint f(0) = 0 (sd 0.03). With an inducing point at 0 the
    posterior at 0 is as sure as the constraint; from coarse Sobol points alone (the nearest at
    0.1) the part of f(0) they cannot explain keeps its prior variance, and the bound is
    worse."""
    rng = np.random.default_rng(2)
    trials = rng.uniform(-2.0, 2.0, 30)
    answers = (rng.uniform(size=30) < norm.cdf(0.5 * trials ** 2)).astype(float)
    X = np.r_[trials, 0.0][:, None]
    mixed = MixedLikelihood([(BernoulliProbit(), np.eye(31)[:30], answers),
                             (GaussianConstraint([0.03]), np.eye(31)[30:], [0.0])])
    kernel = SquaredExponential(0.7, 2.0)
    bounds = [[-2.0, 2.0]]
    with_point = SparseVariationalGP(kernel, mixed, inducing_points(bounds, 6, include=[[0.0]],
                                                                    rng=1)).fit(X)
    without = SparseVariationalGP(kernel, mixed, inducing_points(bounds, 6, rng=1)).fit(X)
    mean_with, var_with = with_point.predict([[0.0]])
    _, var_without = without.predict([[0.0]])
    assert abs(mean_with[0]) < 0.01 and np.sqrt(var_with[0]) < 0.031
    assert np.sqrt(var_without[0]) > 2.0 * np.sqrt(var_with[0])
    assert with_point.result.value > without.result.value


# --------------------------------------------------------------------------------------------
# The bound: ledger, moments, KL, gradients
# --------------------------------------------------------------------------------------------

def random_q(p, seed):
    rng = np.random.default_rng(seed)
    S = np.tril(0.2 * rng.standard_normal((p, p)), -1) + np.diag(rng.uniform(0.3, 0.9, p))
    return 0.5 * rng.standard_normal(p), S


def mixed_with_pairs():
    """Bernoulli answers, constraints and probit pairs on 15 items of a 2-D box."""
    rng = np.random.default_rng(3)
    X = rng.uniform(0.0, 1.0, (15, 2))
    pairs = np.zeros((4, 15))
    for k, (a, b) in enumerate([(0, 3), (4, 7), (8, 2), (11, 14)]):
        pairs[k, a], pairs[k, b] = 1.0, -1.0
    mixed = MixedLikelihood([
        (BernoulliProbit(), np.eye(15)[:10], (rng.uniform(size=10) < 0.5).astype(float)),
        (GaussianConstraint(np.full(5, 0.3)), np.eye(15)[10:], rng.standard_normal(5)),
        (PairwiseProbit(0.7), pairs, [1.0, 0.0, 1.0, 1.0])])
    return X, rng.uniform(0.0, 1.0, (6, 2)), mixed


def test_elbo_is_the_sum_of_the_parts_minus_one_kl_with_dense_moments():
    X, Z, mixed = mixed_with_pairs()
    kernel = SquaredExponential([0.4, 0.6], 1.3)
    m, S = random_q(6, 0)
    result = sparse_variational_evidence(kernel, X, Z, mixed, m, S)
    # dense: q(f) = N(K_XZ K_ZZ^-1 u_mean, K_XX - Q_XX + K_XZ K_ZZ^-1 cov_u K_ZZ^-1 K_ZX)
    K_ZZ, K_ZX, K_XX = kernel(Z), kernel(Z, X), kernel(X)
    L = np.linalg.cholesky(K_ZZ)
    P = np.linalg.solve(K_ZZ, K_ZX)                        # K_ZZ^-1 K_ZX
    cov_u = L @ S @ S.T @ L.T
    f_mean = P.T @ (L @ m)
    f_cov = K_XX - K_ZX.T @ P + P.T @ cov_u @ P
    M = mixed.M
    np.testing.assert_allclose(result.z_mean, M @ f_mean, atol=1e-10)
    np.testing.assert_allclose(result.z_var, np.diag(M @ f_cov @ M.T), atol=1e-10)
    Sigma = S @ S.T
    kl = 0.5 * (np.trace(Sigma) + m @ m - 6 - np.linalg.slogdet(Sigma)[1])
    assert result.kl == pytest.approx(kl, rel=1e-12)
    parts = [float(np.sum(lik.expected_log_likelihood(mixed.y[rows], result.z_mean[rows],
                                                      result.z_var[rows])[0]))
             for lik, rows in zip(mixed.likelihoods, mixed.slices)]
    np.testing.assert_allclose(result.expected_log_likelihoods, parts, rtol=1e-12)
    assert result.value == pytest.approx(sum(parts) - kl, rel=1e-12)
    # q_u of a model is the same Gaussian over f(Z)
    model = SparseVariationalGP(kernel, mixed, Z).fit(X)
    mean_u, cov_u = model.q_u()
    L_m, S_m = np.linalg.cholesky(K_ZZ), model.result.root_whitened
    np.testing.assert_allclose(mean_u, L_m @ model.result.mean_whitened, atol=1e-10)
    np.testing.assert_allclose(cov_u, L_m @ S_m @ S_m.T @ L_m.T, atol=1e-10)
    np.testing.assert_allclose(model.predict(Z, full_cov=True)[1], cov_u, atol=1e-8)


def central_difference(function, x, h=1e-6):
    return (function(x + h) - function(x - h)) / (2 * h)


def test_elbo_gradients_match_finite_differences():
    X, Z, mixed = mixed_with_pairs()
    kernel = SquaredExponential([0.4, 0.6], 1.3)
    m, S = random_q(6, 1)
    result = sparse_variational_evidence(kernel, X, Z, mixed, m, S, eval_gradient=True)

    def elbo(kernel=kernel, m=m, S=S):
        return sparse_variational_evidence(kernel, X, Z, mixed, m, S).value

    for p in range(kernel.n_params):
        def along(t, p=p):
            theta = kernel.theta.copy()
            theta[p] = t
            return elbo(kernel=kernel.with_theta(theta))
        assert result.gradient_kernel[p] == pytest.approx(
            central_difference(along, kernel.theta[p]), rel=1e-6, abs=1e-7)
    for i in range(6):
        def along(t, i=i):
            moved = m.copy()
            moved[i] = t
            return elbo(m=moved)
        assert result.gradient_mean[i] == pytest.approx(central_difference(along, m[i]),
                                                        rel=1e-6, abs=1e-7)
    for i, j in zip(*np.tril_indices(6)):
        def along(t, i=i, j=j):
            moved = S.copy()
            moved[i, j] = t
            return elbo(S=moved)
        assert result.gradient_root[i, j] == pytest.approx(central_difference(along, S[i, j]),
                                                           rel=1e-6, abs=1e-7)
    assert np.all(np.triu(result.gradient_root, 1) == 0)


def test_kernel_gradient_includes_the_jitter_of_k_zz():
    """Repeated inducing points: K_ZZ is singular and gets jitter j * mean(diag K_ZZ), which
    moves with the kernel's variance; the gradient still matches finite differences."""
    X, Z, mixed = mixed_with_pairs()
    Z = np.vstack([Z, Z[:2]])
    kernel = SquaredExponential([0.4, 0.6], 1.3)
    m, S = random_q(8, 2)
    with pytest.warns(Warning, match="jitter"):
        result = sparse_variational_evidence(kernel, X, Z, mixed, m, S, eval_gradient=True)
    for p in range(kernel.n_params):
        def along(t, p=p):
            theta = kernel.theta.copy()
            theta[p] = t
            with pytest.warns(Warning):
                return sparse_variational_evidence(kernel.with_theta(theta), X, Z, mixed, m,
                                               S).value
        assert result.gradient_kernel[p] == pytest.approx(
            central_difference(along, kernel.theta[p], 1e-5), rel=1e-5, abs=1e-6)


def test_optimum_has_zero_gradient_and_the_fixed_point():
    X, Z, mixed = mixed_with_pairs()
    kernel = SquaredExponential([0.4, 0.6], 1.3)
    tol = 1e-15
    result = fit_sparse_variational(kernel, X, Z, mixed, tol=tol)
    assert result.converged
    # m = B d_mean and S S^T = (I + B diag(-2 d_var) B^T)^-1 = H^-1, B = L^-1 K_ZX M^T
    B = np.linalg.solve(np.linalg.cholesky(kernel(Z)), kernel(Z, X) @ mixed.M.T)
    _, d_mean, d_var = mixed.expected_log_likelihood(result.z_mean, result.z_var)
    H = np.eye(6) + (B * -2 * d_var) @ B.T
    # L-BFGS-B stops when a step changes the ELBO by less than tol relative: the gradient left
    # is up to about sqrt(2 lambda_max(H) tol |ELBO|) (1.3e-6 here; 2e-7 to 7e-7 measured on
    # four BLAS kernels), and the fixed-point equations are off by as much; 4 times that
    stopped = 4 * np.sqrt(2 * np.linalg.eigvalsh(H).max() * tol * abs(result.value))
    np.testing.assert_allclose(result.gradient_mean, 0.0, atol=stopped)
    np.testing.assert_allclose(result.gradient_root, 0.0, atol=stopped)
    np.testing.assert_allclose(result.mean_whitened, B @ d_mean, atol=stopped)
    S = result.root_whitened
    np.testing.assert_allclose(S @ S.T, np.linalg.inv(H), atol=stopped)


# --------------------------------------------------------------------------------------------
# The model: MAP-II and learned likelihood parameters
# --------------------------------------------------------------------------------------------

def test_optimised_elbo_gradient_in_theta_matches_finite_differences():
    X, mixed, constraints = detection_2d()
    Z = inducing_points([[0.0, 1.0], [0.0, 1.0]], 16, include=constraints, rng=4)
    model = SparseVariationalGP(SquaredExponential([0.4, 0.5], 1.5), mixed, Z, **TIGHT).fit(X)
    theta = model.theta
    evidence = model.evidence(theta, eval_gradient=True)
    value, gradient = evidence.value, evidence.gradient
    assert value == pytest.approx(model.result.value, abs=1e-9)
    fd = finite_difference(model.log_evidence, theta)
    for p, name in enumerate(model.param_names):
        assert gradient[p] == pytest.approx(fd[p], rel=1e-4, abs=1e-5), name


def test_map_ii_with_a_gaussian_likelihood_matches_exact_regression():
    priors = {"lengthscale": LogNormal(0.0, 1.0)}
    exact = GPRegression(SE, 0.09, noise_bounds="fixed", priors=priors).fit(X12, Y12)
    exact.optimise_hyperparameters(n_restarts=1)
    sparse = SparseVariationalGP(SE, PairwiseGaussian(0.3), X12, priors=priors).fit(X12, Y12)
    fit = sparse.optimise_hyperparameters(n_restarts=1)
    np.testing.assert_allclose(fit.theta, exact.theta[:2], atol=1e-4)  # its noise is fixed
    assert sparse.result.value == pytest.approx(exact.log_evidence(), abs=1e-6)


def preference_with_ratings():
    """Probit pairs and Likert confidence ratings of the same 12 pairs (Wu et al. (2025) section
    5)."""
    X, M, y = probit_pairs()
    M, y = M[:12], y[:12]
    strength = np.abs(M @ np.sin(2 * X[:, 0]))
    ratings = np.digitize(strength, [0.5, 1.2]).astype(float)
    return X, MixedLikelihood([(PairwiseProbit(1.0, noise_sd_bounds="fixed"), M, y),
                               (LikertConfidence(3, [0.6, 0.9]), M, ratings)])


def test_learned_likelihood_parameters_follow_the_full_model_layout_and_gradient():
    X, mixed = preference_with_ratings()
    kernel = SquaredExponential(0.6, 1.2)
    learn = ["part1.gap_1", "part1.gap_2"]
    sparse = SparseVariationalGP(kernel, mixed, X[::2], learn_likelihood=learn, **TIGHT).fit(X)
    full = VariationalGP(kernel, mixed, learn_likelihood=learn)
    assert sparse.param_names == full.param_names == ("variance", "lengthscale") + tuple(learn)
    np.testing.assert_allclose(sparse.theta, full.theta)
    np.testing.assert_allclose(sparse.bounds, full.bounds)
    theta = sparse.theta + np.array([0.1, -0.1, 0.2, -0.3])
    gradient = sparse.evidence(theta, eval_gradient=True).gradient
    fd = finite_difference(sparse.log_evidence, theta)
    for p, name in enumerate(sparse.param_names):
        assert gradient[p] == pytest.approx(fd[p], rel=1e-4, abs=1e-5), name
    assert np.all(gradient[2:] != 0)


def test_learned_cut_points_at_z_equal_x_give_the_full_models_objective_and_gradient():
    """Same theta layout, same bound and gradient as VariationalGP when Z = X, hence the same
    MAP-II; a short MAP-II run then moves the cut points, and a refit with a new likelihood
    (the same parameters, e.g. after one more trial) keeps the learned values."""
    X, mixed = preference_with_ratings()
    kernel = SquaredExponential(0.6, 1.2)
    learn = ["part1.gap_1", "part1.gap_2"]
    full = VariationalGP(kernel, mixed, learn_likelihood=learn).fit(X)
    sparse = SparseVariationalGP(kernel, mixed, X, learn_likelihood=learn, **TIGHT).fit(X)
    for shift in ([0.0, 0.0, 0.0, 0.0], [0.2, -0.1, -0.3, 0.4]):
        theta = full.theta + np.array(shift)
        ours, theirs = sparse.evidence(theta, True), full.evidence(theta, True)
        assert ours.value == pytest.approx(theirs.value, abs=1e-6)
        np.testing.assert_allclose(ours.gradient, theirs.gradient, rtol=1e-4, atol=1e-5)
    before = sparse.result.value
    fit = sparse.optimise_hyperparameters(n_restarts=1, max_iter=3)
    assert sparse.result.value > before
    np.testing.assert_allclose(sparse.likelihood.theta[1:3], fit.theta[2:])
    np.testing.assert_allclose(sparse.mixed.theta, sparse.likelihood.theta)
    sparse.fit(X, likelihood=preference_with_ratings()[1])
    np.testing.assert_allclose(sparse.likelihood.theta[1:3], fit.theta[2:])


# --------------------------------------------------------------------------------------------
# The model: warm starts, level-set acquisitions
# --------------------------------------------------------------------------------------------

def test_warm_start_after_one_more_trial_takes_fewer_iterations_to_the_same_optimum():
    X, mixed, constraints = detection_2d(n_trials=41)
    n = X.shape[0]
    rows = np.r_[np.arange(40), np.arange(41, n)]  # the first fit has not seen trial 40 yet
    before = MixedLikelihood([(BernoulliProbit(), np.eye(n - 1)[:40], mixed.y[:40]),
                              (mixed.likelihoods[1], np.eye(n - 1)[40:], mixed.y[41:])])
    Z = inducing_points([[0.0, 1.0], [0.0, 1.0]], 32, include=constraints, rng=6)
    kernel = SquaredExponential([0.3, 0.3], 1.5)
    model = SparseVariationalGP(kernel, before, Z).fit(X[rows])
    warm = model.fit(X, likelihood=mixed).result
    cold = SparseVariationalGP(kernel, mixed, Z).fit(X).result
    assert warm.n_iter < cold.n_iter
    assert warm.value == pytest.approx(cold.value, abs=1e-7)
    np.testing.assert_allclose(warm.mean_whitened, cold.mean_whitened, atol=1e-4)


def test_level_set_acquisitions_read_the_sparse_model_like_the_full_one():
    """global_mi reads kernel, X_train (= Z) and posterior; with Z = X it matches the full
    VGP's value."""
    X, mixed, _ = detection_2d()
    kernel = SquaredExponential([0.4, 0.5], 1.5)
    full = VariationalGP(kernel, mixed).fit(X)
    sparse = SparseVariationalGP(kernel, mixed, X, **TIGHT).fit(X)
    assert sparse.X_train is sparse.inducing and sparse.X_items.shape == X.shape
    rng = np.random.default_rng(9)
    candidates, references = rng.uniform(0, 1, (20, 2)), rng.uniform(0, 1, (64, 2))
    np.testing.assert_allclose(global_mi(sparse, candidates, references, 0.6745),
                               global_mi(full, candidates, references, 0.6745), atol=1e-5)
