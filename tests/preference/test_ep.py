"""Expectation propagation for single-item ratings (course_lib.preference.ep) and PreferenceGP's
``inference="ep"``.

Oracles: the true posterior and evidence by brute-force integration on a dense grid (one and two
items); the exact Gaussian posterior and evidence for the Gaussian-in-f likelihoods
(PairwiseGaussian, WarpedProbitRating); finite differences for the model's evidence
gradient; and GPy
1.15's EP probit classification (a test extra, imported plainly: a missing GPy fails the run).
Conventions for GPy: its Bernoulli likelihood is P(y = 1 | f) = Phi(f), which is
PairwiseProbit(noise_sd = 1/sqrt(2)) on identity rows (Phi(z / (sqrt(2) sigma)) = Phi(z)); its
RBF(variance, lengthscale) is SquaredExponential(lengthscale, variance); its gradient is in the
natural parameters, ours in their logs (d/dlog p = p d/dp).
"""

import GPy
import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import multivariate_normal

from course_lib.gp import SquaredExponential
from course_lib.preference.comparisons import Comparisons
import course_lib.preference.ep as ep_module
from course_lib.preference.ep import expectation_propagation
from course_lib.preference.ep import ClippedSiteWarning, EPConvergenceError
from course_lib.preference.laplace import laplace_mode
from course_lib.preference import PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating, TruncatedGaussianRating, WarpedProbitRating
from course_lib.preference.preference_gp import PreferenceGP
from numerics import finite_difference

X2 = np.array([[0.0], [0.8]])
SE = SquaredExponential(1.0, 1.5)


def rows(item, n):
    """Identity rows of M for the items rated, one row per rating."""
    return np.eye(n)[np.asarray(item)]


def grid_posterior(K, item, likelihood, y, half=8.0, size=401):
    """Mean, covariance and log evidence of the true posterior by a Riemann sum over a grid
    of size^n points on [-half, half]^n (the integrand is smooth and negligible at the edges,
    so the sum converges far faster than the grid spacing suggests)."""
    axis = np.linspace(-half, half, size)
    n = K.shape[0]
    F = np.stack([g.ravel() for g in np.meshgrid(*([axis] * n), indexing="ij")], axis=1)
    log_joint = multivariate_normal(np.zeros(n), K).logpdf(F)
    for k, value in enumerate(y):
        log_joint += likelihood.log_likelihood(F[:, item[k]], np.full(F.shape[0], value))
    peak = log_joint.max()
    weights = np.exp(log_joint - peak)
    total = weights.sum()
    log_evidence = np.log(total) + peak + n * np.log(axis[1] - axis[0])
    weights /= total
    mean = weights @ F
    cov = (F - mean).T @ ((F - mean) * weights[:, None])
    return mean, cov, log_evidence


# ----- against the true posterior ---------------------------------------------------------------
@pytest.mark.parametrize("likelihood, answer", [(BetaRating(6.0), 0.93),
                                                (TruncatedGaussianRating(0.2), 0.97)])
def test_one_rating_of_one_item_is_matched_exactly(likelihood, answer):
    """With one site the cavity is the prior, so one moment-matching step gives q the true
    posterior's mean and variance, and log Z_EP is the true log evidence (to the quadrature's
    accuracy). Laplace centres on the mode, which an answer near the bound pulls away from
    the mean (the likelihood saturates on one side: a skewed posterior)."""
    K = SE(X2[:1])
    M, y = rows([0], 1), np.array([answer])
    ep = expectation_propagation(K, M, likelihood, y, tol=1e-12)
    mean, cov, log_evidence = grid_posterior(K, [0], likelihood, y, size=1601)
    np.testing.assert_allclose(ep.mean, mean, atol=1e-7)
    np.testing.assert_allclose(ep.covariance(), cov, atol=1e-7)
    assert ep.log_evidence == pytest.approx(log_evidence, abs=1e-7)
    laplace = laplace_mode(K, M, likelihood, y, tol=1e-12)
    assert np.abs(laplace.f_hat - mean).max() > 0.05
    assert abs(laplace.log_evidence - log_evidence) > 0.02


@pytest.mark.parametrize("likelihood, answers, item, tolerance", [
    (BetaRating(6.0), [0.93, 0.85], [0, 1], 1e-3),
    (BetaRating(3.0), [0.97, 0.9, 0.95], [0, 0, 1], 2e-3),
    (TruncatedGaussianRating(0.2), [0.95, 0.9], [0, 1], 2e-2),
    (TruncatedGaussianRating(0.1), [0.8, 0.7], [0, 1], 1e-2),
])
def test_two_items_moments_and_evidence_close_to_the_grid_posterior(likelihood, answers, item,
                                                                     tolerance):
    """Two items, two or three ratings near the upper bound (skewed posteriors). EP matches
    each site's tilted moments, not the joint posterior's, so it is close, not exact: mean,
    covariance entries and log evidence within ``tolerance`` of the truth (401 x 401 grid on
    [-8, 8]^2, whose own error is far smaller). The tolerance is looser for the truncated
    Gaussian, whose likelihood is flat in f where Phi(f) nears a bound, so its posterior is
    further from any Gaussian (measured: covariance off by 0.014 and 0.006, mean by 0.0015 and
    0.002; Beta: 3e-4 and 8e-4). Laplace's mode and evidence are at least five times further
    off, because the bounded likelihoods saturate towards the bound and the mode sits on the
    steep side of the mass."""
    K = SE(X2)
    item = np.array(item)
    y = np.array(answers)
    ep = expectation_propagation(K, rows(item, 2), likelihood, y, tol=1e-10)
    assert ep.n_clipped == 0
    mean, cov, log_evidence = grid_posterior(K, item, likelihood, y)
    ep_error = np.abs(ep.mean - mean).max()
    assert ep_error < tolerance
    np.testing.assert_allclose(ep.covariance(), cov, atol=tolerance)
    assert ep.log_evidence == pytest.approx(log_evidence, abs=tolerance)
    laplace = laplace_mode(K, rows(item, 2), likelihood, y, tol=1e-12)
    assert np.abs(laplace.f_hat - mean).max() > 5 * ep_error
    assert abs(laplace.log_evidence - log_evidence) > 5 * abs(ep.log_evidence - log_evidence)


def test_a_negative_site_precision_is_clipped_with_a_warning():
    """A truncated Gaussian is flat in f where Phi(f) is near a bound, so a rating of 0.6 of an
    item that other ratings put near 1 has a tilted distribution WIDER than its cavity: moment
    matching asks for a negative site precision. The site gets precision 0 (the tilted mean is
    still matched), with a ClippedSiteWarning; the posterior stays proper, and is still closer
    to the truth than Laplace's."""
    K = SE(X2)
    item, y = np.array([0, 1, 1]), np.array([0.95, 0.6, 0.9])
    likelihood = TruncatedGaussianRating(0.15)
    with pytest.warns(ClippedSiteWarning, match="row 1"):
        ep = expectation_propagation(K, rows(item, 2), likelihood, y, tol=1e-10)
    assert ep.n_clipped == 1 and ep.tau[1] == 0.0 and np.all(ep.tau >= 0)
    assert np.all(np.linalg.eigvalsh(ep.covariance()) > 0)
    mean, _, _ = grid_posterior(K, item, likelihood, y)
    laplace = laplace_mode(K, rows(item, 2), likelihood, y, tol=1e-12)
    assert np.abs(ep.mean - mean).max() < 0.25 * np.abs(laplace.f_hat - mean).max()


@pytest.mark.parametrize("likelihood", [PairwiseGaussian(0.4), WarpedProbitRating(0.4)])
def test_gaussian_in_f_likelihoods_give_the_exact_posterior_and_evidence(likelihood):
    """For a likelihood Gaussian in f the sites are exact after one undamped sweep: EP equals
    GP regression on the (warped) answers, repeated items included, and log Z_EP its log
    marginal likelihood (plus the warp's Jacobian, - sum log phi(Phi^-1(y)))."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (6, 1))
    K = SE(X)
    item = np.array([0, 1, 2, 3, 4, 5, 2, 2, 4])
    M = rows(item, 6)
    y = rng.uniform(0.05, 0.95, item.size)
    ep = expectation_propagation(K, M, likelihood, y, tol=1e-12)
    assert ep.n_iter == 2
    warped = isinstance(likelihood, WarpedProbitRating)
    target = ndtri(y) if warped else y
    noise = likelihood.params["noise_sd"] ** 2
    Sigma = np.linalg.inv(np.linalg.inv(K) + M.T @ M / noise)
    np.testing.assert_allclose(ep.covariance(), Sigma, atol=1e-10)
    np.testing.assert_allclose(ep.mean, Sigma @ M.T @ target / noise, atol=1e-10)
    evidence = multivariate_normal(np.zeros(item.size), M @ K @ M.T + noise * np.eye(item.size)
                                   ).logpdf(target)
    if warped:
        evidence -= np.sum(-0.5 * target ** 2 - 0.5 * np.log(2 * np.pi))
    assert ep.log_evidence == pytest.approx(evidence, abs=1e-10)


# ----- against GPy --------------------------------------------------------------------------------
def test_probit_classification_matches_gpy_ep():
    """GPy's EP on Bernoulli-probit classification (15 points in 2-D, converged to machine
    precision) and ours on identity rows: the same fixed point, so posterior means and
    variances (training and test points), log evidence and its kernel gradient agree to
    round-off level."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, (15, 2))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] + 0.5 * rng.standard_normal(15) > 0).astype(float)
    X_test = rng.uniform(-2, 2, (5, 2))
    model = GPy.core.GP(X, y[:, None], kernel=GPy.kern.RBF(2, variance=1.7, lengthscale=0.9),
                        likelihood=GPy.likelihoods.Bernoulli(),
                        inference_method=GPy.inference.latent_function_inference.EP(
                            epsilon=1e-16, max_iters=200))
    kernel = SquaredExponential(0.9, 1.7)
    K, dK = kernel.gradient(X)
    ep = expectation_propagation(K, np.eye(15), PairwiseProbit(1 / np.sqrt(2)), y, tol=1e-12)
    assert ep.log_evidence == pytest.approx(model.log_likelihood(), abs=1e-9)
    for inputs in (X, X_test):
        mean, var = ep.posterior.predict(kernel(X, inputs), kernel.diag(inputs))
        gpy_mean, gpy_var = model.predict_noiseless(inputs)
        np.testing.assert_allclose(mean, gpy_mean[:, 0], atol=1e-8)
        np.testing.assert_allclose(var, gpy_var[:, 0], atol=1e-8)
    assert kernel.param_names == ("variance", "lengthscale")
    gradient = ep.evidence_gradient(dK)[0] / np.exp(kernel.theta)
    np.testing.assert_allclose(gradient, model.gradient, rtol=1e-7)


# ----- the iteration ------------------------------------------------------------------------------
def ratings_problem(rng, n=10, repeats=3):
    X = rng.uniform(-2, 2, (n, 1))
    item = rng.integers(0, n, n * repeats)
    mu = 1 / (1 + np.exp(-2 * np.sin(2 * X[item, 0])))
    return SE(X), item, rng.beta(10 * mu, 10 * (1 - mu))


def test_row_order_does_not_change_the_posterior():
    """All sites are updated from the same posterior (parallel EP), so listing the ratings in
    another order gives the same posterior and evidence to round-off, and every site follows
    its row."""
    rng = np.random.default_rng(3)
    K, item, y = ratings_problem(rng)
    likelihood = BetaRating(10.0)
    ep = expectation_propagation(K, rows(item, 10), likelihood, y, tol=1e-10)
    order = rng.permutation(item.size)
    shuffled = expectation_propagation(K, rows(item[order], 10), likelihood, y[order],
                                       tol=1e-10)
    np.testing.assert_allclose(shuffled.mean, ep.mean, atol=1e-10)
    np.testing.assert_allclose(shuffled.variance, ep.variance, atol=1e-10)
    np.testing.assert_allclose(shuffled.tau, ep.tau[order], rtol=1e-8)
    assert shuffled.log_evidence == pytest.approx(ep.log_evidence, abs=1e-9)


def test_items_without_ratings_change_nothing_but_their_own_prediction():
    """An item in K that no row rates has no site: the rated item's posterior and the evidence
    are those of the problem without it, and its own mean and variance follow the GP
    conditional on the rated item (k_21 / k_11 and its variance formula)."""
    K = SE(np.array([[0.0], [1.0], [2.5]]))
    y = np.array([0.9, 0.75])
    likelihood = BetaRating(5.0)
    full = expectation_propagation(K, rows([0, 0], 3), likelihood, y, tol=1e-10)
    alone = expectation_propagation(K[:1, :1], rows([0, 0], 1), likelihood, y, tol=1e-10)
    assert full.log_evidence == pytest.approx(alone.log_evidence, abs=1e-10)
    np.testing.assert_allclose(full.mean[0], alone.mean[0], atol=1e-10)
    gain = K[1:, 0] / K[0, 0]
    np.testing.assert_allclose(full.mean[1:], gain * alone.mean[0], atol=1e-10)
    np.testing.assert_allclose(full.variance[1:], np.diag(K)[1:] - gain ** 2 * K[0, 0]
                               + gain ** 2 * alone.variance[0], atol=1e-10)


def test_warm_start_from_converged_sites_stops_after_one_sweep():
    rng = np.random.default_rng(4)
    K, item, y = ratings_problem(rng)
    likelihood = TruncatedGaussianRating(0.2)
    cold = expectation_propagation(K, rows(item, 10), likelihood, y, tol=1e-9)
    warm = expectation_propagation(K, rows(item, 10), likelihood, y, tol=1e-9,
                                   sites0=(cold.tau, cold.nu))
    assert cold.n_iter > 5 and warm.n_iter == 1
    np.testing.assert_allclose(warm.mean, cold.mean, atol=1e-8)
    assert warm.log_evidence == pytest.approx(cold.log_evidence, abs=1e-12)


def test_oscillating_sites_are_damped_into_convergence(monkeypatch):
    """Sharp probit labels (noise_sd 0.1) that a smooth function separates, on 50 close
    inputs: undamped parallel updates swing back and forth (with the damping held at 0, the
    sites still move by 1e-3 after 300 sweeps), so the damping grows until they settle, at the
    same fixed point as a run damped from the start."""
    rng = np.random.default_rng(2)
    X = np.sort(rng.uniform(-3, 3, (50, 1)), axis=0)
    y = (np.sin(2 * X[:, 0]) > 0).astype(float)
    K = SquaredExponential(1.0, 2.0)(X)
    likelihood = PairwiseProbit(0.1)
    adaptive = expectation_propagation(K, np.eye(50), likelihood, y, tol=1e-9)
    assert adaptive.damping > 0 and adaptive.n_iter < 100
    damped = expectation_propagation(K, np.eye(50), likelihood, y, tol=1e-9, damping=0.5)
    np.testing.assert_allclose(adaptive.mean, damped.mean, atol=1e-7)
    assert adaptive.log_evidence == pytest.approx(damped.log_evidence, abs=1e-10)
    monkeypatch.setattr(ep_module, "_MAX_DAMPING", 0.0)
    with pytest.raises(EPConvergenceError, match="max_iter"):
        expectation_propagation(K, np.eye(50), likelihood, y, tol=1e-9, max_iter=300)


# ----- PreferenceGP(inference="ep") ---------------------------------------------------------------
def bounded_ratings(seed, n=12):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 1))
    mu = 1 / (1 + np.exp(-2 * np.sin(1.5 * X[:, 0])))
    return Comparisons.from_ratings(X, rng.beta(15 * mu, 15 * (1 - mu)))


def test_preference_gp_with_ep_is_the_ep_posterior():
    ratings = bounded_ratings(5)
    gp = PreferenceGP(SE, BetaRating(15.0), inference="ep").fit(ratings)
    assert gp.laplace is None and gp.inference == "ep"
    direct = expectation_propagation(SE(ratings.X), ratings.matrix(), BetaRating(15.0),
                                     ratings.y, tol=gp.ep_tol)
    np.testing.assert_allclose(gp.ep.mean, direct.mean, atol=1e-12)
    assert gp.log_evidence() == pytest.approx(direct.log_evidence, abs=1e-12)
    X_test = np.linspace(-2.5, 2.5, 7)[:, None]
    mean, var = gp.predict(X_test)
    reference = direct.posterior.predict(SE(ratings.X, X_test), SE.diag(X_test))
    np.testing.assert_allclose(mean, reference[0], atol=1e-12)
    np.testing.assert_allclose(var, reference[1], atol=1e-12)
    # the default is still Laplace, which gives a different (mode-centred) posterior here
    laplace = PreferenceGP(SE, BetaRating(15.0)).fit(ratings)
    assert laplace.inference == "laplace" and laplace.ep is None
    assert np.abs(laplace.predict(X_test)[0] - mean).max() > 1e-3


def test_ratings_listed_in_another_order_give_the_same_predictions():
    ratings = bounded_ratings(6)
    order = np.random.default_rng(0).permutation(ratings.n_comparisons)
    shuffled = Comparisons.from_ratings(ratings.X[ratings.first[order]], ratings.y[order])
    X_test = np.linspace(-2.5, 2.5, 7)[:, None]
    a = PreferenceGP(SE, TruncatedGaussianRating(0.15), inference="ep").fit(ratings)
    b = PreferenceGP(SE, TruncatedGaussianRating(0.15), inference="ep").fit(shuffled)
    for left, right in zip(a.predict(X_test), b.predict(X_test)):
        np.testing.assert_allclose(left, right, atol=1e-8)


def test_preference_gp_ep_gradient_matches_finite_differences_and_map_ii_is_stationary():
    ratings = bounded_ratings(7)
    gp = PreferenceGP(SquaredExponential(1.0, 1.0), BetaRating(10.0), inference="ep",
                      ep_tol=1e-10).fit(ratings)
    theta = gp.theta
    evidence = gp.evidence(theta, eval_gradient=True)
    value, gradient = evidence.value, evidence.gradient
    assert value == pytest.approx(gp.log_evidence(), abs=1e-10)
    numeric = finite_difference(gp.log_evidence, theta)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)
    fit = gp.optimise_hyperparameters(1)
    assert fit.converged[0] and not np.allclose(fit.theta, theta)
    gradient = gp.evidence(gp.theta, eval_gradient=True).gradient
    inside = (gp.theta > gp.bounds[:, 0] + 1e-6) & (gp.theta < gp.bounds[:, 1] - 1e-6)
    assert np.abs(gradient[inside]).max() < 1e-3


def test_map_ii_by_ep_backs_off_where_ep_fails():
    """25 truncated-Gaussian ratings: from the default start the evidence gradient is steep
    in noise_sd, and L-BFGS-B's first trial point lands near its lower bound, where the
    likelihood is far too sharp for EP's quadrature and EP stalls. That point is taken to be
    far worse than the last one evaluated (an infinite value would make scipy's L-BFGS-B
    report convergence at the start), so the run backtracks and reaches a stationary point,
    near Laplace's MAP-II."""
    X = np.linspace(-3, 3, 25)[:, None]
    mu = 1 / (1 + np.exp(-2 * np.sin(1.5 * X[:, 0])))
    y = np.clip(mu + 0.1 * np.random.default_rng(0).standard_normal(25), 0, 1)
    ratings = Comparisons.from_ratings(X, y)
    gp = PreferenceGP(SquaredExponential(1.0, 1.0), TruncatedGaussianRating(0.2),
                      inference="ep").fit(ratings)
    start = gp.theta
    failures = []
    failed_objective = gp._failed_objective
    gp._failed_objective = lambda theta: (failures.append(theta), failed_objective(theta))[1]
    fit = gp.optimise_hyperparameters(1)
    assert len(failures) >= 1 and np.exp(failures[0][2]) < 1e-3   # noise_sd at the trial
    assert not np.allclose(fit.theta, start)
    gradient = gp.evidence(gp.theta, eval_gradient=True).gradient
    assert np.abs(gradient).max() < 1e-2
    laplace = PreferenceGP(SquaredExponential(1.0, 1.0), TruncatedGaussianRating(0.2))
    laplace.fit(ratings).optimise_hyperparameters(1)
    np.testing.assert_allclose(gp.theta, laplace.theta, atol=0.2)


def test_refitting_the_same_ratings_starts_from_the_previous_sites():
    ratings = bounded_ratings(8)
    gp = PreferenceGP(SE, BetaRating(15.0), inference="ep").fit(ratings)
    first = gp.ep.n_iter
    gp.fit(ratings)
    assert first > 3 and gp.ep.n_iter == 1
    gp.fit(bounded_ratings(8))              # new data (an equal copy here): a cold start
    assert gp.ep.n_iter == first
