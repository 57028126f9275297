"""The preference GP (course_lib.preference.preference_gp): fit, prediction, preference probabilities,
MAP-II through GPRegression's restart loop, warm starts; and the cross-check against BoTorch.

Library cross-check: BoTorch's PairwiseGP needs torch, which the course does not depend on, so
its numbers were computed once in a throw-away environment by
tools/make_botorch_pairwise_reference.py and frozen in tests/reference/botorch_pairwise_gp.json
(versions recorded there: botorch 0.18.1, gpytorch 1.15.2, torch 2.13.0+cpu). Conventions:
BoTorch's Phi((f_winner - f_loser) / sqrt 2) is PairwiseProbit(noise_sd=1) with first = winner,
y = 1; its ScaleKernel(RBF) is SquaredExponential(lengthscale, variance=outputscale); its clamp of
z to [-3, 3] was disabled for the reference (and the clamped fit recorded, to show it matters).
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ndtr

from course_lib.gp import HalfStudentT, SquaredExponential
from course_lib.preference.comparisons import Comparisons, DisconnectedComparisonsWarning
from course_lib.preference.laplace import laplace_mode
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating
from course_lib.preference.preference_gp import PreferenceGP
from course_lib.preference.hyperparameters import OnSquare

from preference_data import connected_pairs

REFERENCE = json.loads((Path(__file__).parents[1] / "reference" / "botorch_pairwise_gp.json")
                       .read_text())


def listener(X):
    return np.sin(1.5 * X[:, 0]) + 0.5 * X[:, 1]


def simulated(rng, m=25, n_settings=12, kind="pair-binary"):
    """m comparisons among n_settings random 2-D settings, every setting in a chain first (so
    the comparison graph is connected)."""
    settings = rng.uniform(-2, 2, (n_settings, 2))
    first, second = connected_pairs(rng, n_settings, m)
    z = listener(settings[first]) - listener(settings[second])
    if kind == "pair-binary":
        y = (z + rng.standard_normal(z.size) > 0).astype(float)
    elif kind == "pair-degree":
        mu = 1.0 / (1.0 + np.exp(-z))
        y = rng.beta(8 * mu, 8 * (1 - mu))
    else:
        y = z + 0.3 * rng.standard_normal(z.size)
    return Comparisons(settings, first, second, y, kind=kind)


def fitted(kind="pair-binary", seed=0):
    likelihood = {"pair-binary": PairwiseProbit(0.8), "pair-degree": PairwiseBeta(0.6, 8.0),
                  "pair-difference": PairwiseGaussian(0.3)}[kind]
    comparisons = simulated(np.random.default_rng(seed), kind=kind)
    return PreferenceGP(SquaredExponential(1.0, 1.5), likelihood).fit(comparisons)


# ----- fit and predict ---------------------------------------------------------------------------
def test_fit_is_the_laplace_approximation_of_the_comparisons():
    gp = fitted()
    c = gp.comparisons
    direct = laplace_mode(gp.kernel(c.X), c.matrix(), gp.likelihood, c.y, tol=1e-12)
    np.testing.assert_allclose(gp.laplace.f_hat, direct.f_hat, atol=1e-9)
    assert gp.log_evidence() == pytest.approx(direct.log_evidence, abs=1e-9)
    mean, var = gp.predict(c.X)
    np.testing.assert_allclose(mean, direct.f_hat, atol=1e-9)
    np.testing.assert_allclose(var, np.diag(direct.covariance()), atol=1e-9)


def test_predict_difference_is_the_joint_predictive_of_the_pair():
    gp = fitted(seed=1)
    rng = np.random.default_rng(1)
    Xa, Xb = rng.uniform(-2, 2, (6, 2)), rng.uniform(-2, 2, (6, 2))
    mean, cov = gp.predict(np.vstack([Xa, Xb]), full_cov=True)
    d_mean, d_var = gp.predict_difference(Xa, Xb)
    np.testing.assert_allclose(d_mean, mean[:6] - mean[6:], atol=1e-12)
    expected = np.diag(cov)[:6] + np.diag(cov)[6:] - 2 * np.diag(cov[:6, 6:])
    np.testing.assert_allclose(d_var, expected, atol=1e-10)
    # the covariance term matters: near-by settings are strongly correlated
    assert np.all(d_var < np.diag(cov)[:6] + np.diag(cov)[6:])


@pytest.mark.parametrize("kind", ["pair-binary", "pair-degree", "pair-difference"])
def test_preference_probability_matches_monte_carlo(kind):
    """P(a preferred to b) against draws of (f(a), f(b)) from the joint Laplace predictive:
    probit and Beta E[Phi((f_a - f_b) / (sqrt 2 sigma))], Gaussian differences
    E[Phi((f_a - f_b) / sigma)]; within 4 Monte Carlo standard errors."""
    gp = fitted(kind, seed=2)
    rng = np.random.default_rng(2)
    Xa, Xb = rng.uniform(-2, 2, (5, 2)), rng.uniform(-2, 2, (5, 2))
    draws = gp.sample_posterior(np.vstack([Xa, Xb]), 40000, rng=rng)
    d = draws[:, :5] - draws[:, 5:]
    sigma = gp.likelihood.params["noise_sd"]
    scale = sigma if kind == "pair-difference" else np.sqrt(2) * sigma
    per_draw = ndtr(d / scale)
    estimate = per_draw.mean(axis=0)
    error = per_draw.std(axis=0) / np.sqrt(per_draw.shape[0])
    p = gp.preference_probability(Xa, Xb)
    assert np.all(np.abs(p - estimate) < 4 * error + 1e-4), (p, estimate, error)
    np.testing.assert_allclose(gp.preference_probability(Xb, Xa), 1 - p, atol=1e-12)


def test_beta_preference_probability_is_the_expected_answer_by_simulation():
    """For the degree of preference, the probability is the expected slider position: simulate
    answers y ~ Beta(nu mu, nu (1 - mu)) at posterior draws and average them."""
    gp = fitted("pair-degree", seed=3)
    rng = np.random.default_rng(3)
    Xa, Xb = rng.uniform(-2, 2, (3, 2)), rng.uniform(-2, 2, (3, 2))
    draws = gp.sample_posterior(np.vstack([Xa, Xb]), 40000, rng=rng)
    mu = ndtr((draws[:, :3] - draws[:, 3:]) / (np.sqrt(2) * gp.likelihood.params["noise_sd"]))
    nu = gp.likelihood.params["concentration"]
    answers = rng.beta(nu * mu, nu * (1 - mu))
    error = answers.std(axis=0) / np.sqrt(answers.shape[0])
    assert np.all(np.abs(gp.preference_probability(Xa, Xb) - answers.mean(axis=0))
                  < 4 * error)


@pytest.mark.parametrize("kind", ["pair-binary", "pair-degree", "pair-difference"])
def test_swapping_the_options_leaves_every_prediction_unchanged(kind):
    gp = fitted(kind, seed=4)
    mirror = PreferenceGP(gp.kernel, gp.likelihood).fit(gp.comparisons.swapped())
    rng = np.random.default_rng(4)
    Xa, Xb = rng.uniform(-2, 2, (7, 2)), rng.uniform(-2, 2, (7, 2))
    for a, b in zip(gp.predict(Xa, full_cov=True), mirror.predict(Xa, full_cov=True)):
        np.testing.assert_allclose(a, b, atol=1e-9)
    np.testing.assert_allclose(gp.preference_probability(Xa, Xb),
                               mirror.preference_probability(Xa, Xb), atol=1e-9)
    assert gp.log_evidence() == pytest.approx(mirror.log_evidence(), abs=1e-9)
    np.testing.assert_allclose(gp.evidence(gp.theta, eval_gradient=True).gradient,
                               mirror.evidence(gp.theta, eval_gradient=True).gradient,
                               atol=1e-7)


def test_duplicate_settings_are_one_item_and_a_disconnected_graph_still_fits():
    """The same setting presented twice is one item (Comparisons.from_pairs); two groups of
    settings compared only among themselves are reported, and the fit stays finite."""
    A = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0], [0.0, 0.0]])
    B = np.array([[1.0, 0.0], [2.0, 0.0], [6.0, 5.0], [2.0, 0.0]])
    with pytest.warns(DisconnectedComparisonsWarning):
        comparisons = Comparisons.from_pairs(A, B, [1, 1, 0, 1])
    assert comparisons.n_items == 5
    gp = PreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit()).fit(comparisons)
    mean, var = gp.predict(comparisons.X)
    assert np.all(np.isfinite(mean)) and np.all(var > 0)
    assert mean[0] > mean[1] > mean[2]          # 0 beat 1 and 2, 1 beat 2
    assert mean[3] < mean[4]                    # the other group: the second item won


def test_bounded_ratings_fit_through_identity_rows():
    """The same model takes single-item ratings (identity rows of M): the mode of a BetaRating
    fit equals the direct Laplace mode, and ratings near 1 pull the utility up."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, (10, 1))
    y = np.clip(0.5 + 0.4 * np.sin(X[:, 0]), 0.01, 0.99)
    ratings = Comparisons.from_ratings(X, y)
    gp = PreferenceGP(SquaredExponential(1.0, 1.0), BetaRating(20.0)).fit(ratings)
    direct = laplace_mode(gp.kernel(ratings.X), ratings.matrix(), gp.likelihood, ratings.y,
                          tol=1e-12)
    np.testing.assert_allclose(gp.laplace.f_hat, direct.f_hat, atol=1e-9)
    assert np.corrcoef(gp.predict(X)[0], y)[0, 1] > 0.9


@pytest.mark.parametrize("inference", ["laplace", "ep"])
def test_rating_predictions_match_monte_carlo(inference):
    """E[y] and log p(y) of new ratings average the likelihood over the posterior of f: checked
    against Monte Carlo over posterior draws (tolerance: 5 Monte Carlo standard errors)."""
    rng = np.random.default_rng(8)
    X = rng.uniform(-2, 2, (12, 1))
    y = np.clip(0.5 + 0.35 * np.sin(2 * X[:, 0]), 0.02, 0.98)
    gp = PreferenceGP(SquaredExponential(0.8, 1.0), BetaRating(15.0), inference=inference)
    gp.fit(Comparisons.from_ratings(X, y))
    X_test = np.array([[-1.0], [0.3], [2.5]])
    y_test = np.array([0.2, 0.7, 0.5])
    draws = gp.sample_posterior(X_test, 40000, rng=rng)
    conditional_means = np.stack([gp.likelihood.predictive_mean(f, np.zeros(3)) for f in draws])
    np.testing.assert_allclose(gp.predict_rating(X_test), conditional_means.mean(axis=0),
                               atol=5 * conditional_means.std(axis=0).max() / 200)
    densities = np.exp(np.stack([gp.likelihood.log_likelihood(f, y_test) for f in draws]))
    expected = np.log(densities.mean(axis=0))
    error = densities.std(axis=0) / (200 * densities.mean(axis=0))
    assert np.all(np.abs(gp.rating_log_density(X_test, y_test) - expected) < 5 * error + 1e-12)


# ----- hyper-parameters --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["pair-binary", "pair-degree"])
def test_model_evidence_gradient_matches_finite_differences(kind):
    gp = fitted(kind, seed=6)
    gp.kernel = SquaredExponential([0.8, 1.4], 1.5)
    gp.fit(gp.comparisons)
    theta = gp.theta
    evidence = gp.evidence(theta, eval_gradient=True)
    value, gradient = evidence.value, evidence.gradient
    step = 1e-5
    numeric = [(gp.log_evidence(theta + step * e) - gp.log_evidence(theta - step * e))
               / (2 * step) for e in np.eye(theta.size)]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)
    assert value == pytest.approx(gp.log_evidence(), abs=1e-8)


def thesis_model(likelihood):
    """Nielsen et al. (2015), study 1, in the course's conventions: variance 4 fixed,
    half-Student-t(6, 10) on the squared lengthscales and on noise_sd."""
    kernel = SquaredExponential([np.sqrt(5.0)] * 2, 4.0, variance_bounds="fixed")
    priors = {"lengthscale_0": OnSquare(HalfStudentT(6, 10.0)),
              "lengthscale_1": OnSquare(HalfStudentT(6, 10.0)),
              "noise_sd": HalfStudentT(6, 10.0)}
    return PreferenceGP(kernel, likelihood, priors)


def test_map_ii_with_the_thesis_priors_reaches_a_stationary_point():
    comparisons = simulated(np.random.default_rng(7), m=30)
    gp = thesis_model(PairwiseProbit(np.e)).fit(comparisons)
    start = gp.log_evidence() + gp.log_hyper_prior()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # the scale is pinned: no ridge warning
        fit = gp.optimise_hyperparameters(3, rng=0)
    assert fit.objective >= start
    assert fit.objective == pytest.approx(gp.log_evidence() + gp.log_hyper_prior()[0],
                                          abs=1e-6)
    gradient = gp.evidence(gp.theta, eval_gradient=True).gradient
    total = gradient + gp.log_hyper_prior()[1]
    free = gp.bounds[:, 0] < gp.bounds[:, 1]
    inside = free & (gp.theta > gp.bounds[:, 0] + 1e-3) & (gp.theta < gp.bounds[:, 1] - 1e-3)
    assert np.all(np.abs(total[inside]) < 1e-3), total
    assert gp.params["variance"] == pytest.approx(4.0)
    assert fit.starts.shape == (3, 4) and np.all(np.isfinite(fit.objectives))


def test_free_variance_and_noise_sd_without_priors_warn_of_the_ridge():
    gp = fitted(seed=8)
    with pytest.warns(UserWarning, match="variance and noise_sd are both free"):
        gp.optimise_hyperparameters(1)
    # along the ridge the evidence is exactly flat: scale f and sigma together
    theta = gp.theta.copy()
    moved = theta + np.array([2 * 0.3, 0.0, 0.3])     # log variance, log ell, log sigma
    assert gp.log_evidence(moved) == pytest.approx(gp.log_evidence(theta), abs=1e-8)


def test_warm_start_after_a_new_comparison_saves_newton_steps():
    """The interactive loop adds one comparison with a new setting: the refit starts from the
    old weights (old items) and 0 (the new one), and lands on the same mode as a cold fit."""
    rng = np.random.default_rng(9)
    comparisons = simulated(rng, m=30)
    gp = PreferenceGP(SquaredExponential(1.0, 1.5), PairwiseProbit(0.5)).fit(comparisons)
    new_setting = np.array([[0.3, -0.7]])
    X = np.vstack([comparisons.X, new_setting])
    grown = Comparisons(X, np.append(comparisons.first, X.shape[0] - 1),
                        np.append(comparisons.second, 0), np.append(comparisons.y, 1.0))
    gp.fit(grown)
    cold = laplace_mode(gp.kernel(X), grown.matrix(), gp.likelihood, grown.y, tol=1e-10)
    np.testing.assert_allclose(gp.laplace.f_hat, cold.f_hat, atol=1e-8)
    assert gp.laplace.n_iter < cold.n_iter


# ----- BoTorch -----------------------------------------------------------------------------------
@pytest.mark.parametrize("problem", REFERENCE["problems"], ids=lambda p: p["name"])
def test_botorch_pairwise_gp_frozen_values(problem):
    """f_MAP, Laplace evidence, its gradient in (log lengthscale, log outputscale) and the
    predictive utility at test inputs equal BoTorch's (clamp disabled) to 1e-7."""
    X = np.array(problem["X"])
    winners, losers = np.array(problem["winners"]), np.array(problem["losers"])
    comparisons = Comparisons(X, winners, losers, np.ones(winners.size))
    kernel = SquaredExponential(problem["lengthscale"], problem["outputscale"])
    gp = PreferenceGP(kernel, PairwiseProbit(1.0)).fit(comparisons)
    np.testing.assert_allclose(gp.laplace.f_hat, problem["utility"], atol=1e-7)
    assert gp.log_evidence() == pytest.approx(problem["log_evidence"], abs=1e-7)
    gradient = gp.evidence(gp.theta, eval_gradient=True).gradient
    # our order: log variance, log lengthscale, log noise_sd; BoTorch's: lengthscale, outputscale
    np.testing.assert_allclose(gradient[[1, 0]],
                               problem["gradient_log_lengthscale_log_outputscale"], atol=1e-7)
    mean, var = gp.predict(np.array(problem["X_test"]))
    np.testing.assert_allclose(mean, problem["test_mean"], atol=1e-7)
    np.testing.assert_allclose(var, problem["test_variance"], atol=1e-7)


def test_botorch_clamp_changes_the_map_for_confident_answers():
    """With |z| / sqrt 2 > 3 at the mode, BoTorch's default clamp moves f_MAP by more than
    1e-3 away from ours (which equals the unclamped one above): the clamp changes the model."""
    confident = [p for p in REFERENCE["problems"] if p["largest_abs_z_over_sqrt2"] > 3]
    assert confident
    for problem in confident:
        X = np.array(problem["X"])
        winners = np.array(problem["winners"])
        comparisons = Comparisons(X, winners, problem["losers"], np.ones(winners.size))
        kernel = SquaredExponential(problem["lengthscale"], problem["outputscale"])
        gp = PreferenceGP(kernel, PairwiseProbit(1.0)).fit(comparisons)
        z = comparisons.differences(gp.laplace.f_hat) / np.sqrt(2)
        assert np.abs(z).max() > 3
        assert np.abs(gp.laplace.f_hat - problem["utility_clamped"]).max() > 1e-3
