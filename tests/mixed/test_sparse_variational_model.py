"""SparseVariationalGP as a model (course_lib.mixed.sparse_variational): the optimised ELBO's
gradient in the hyper-parameters (the envelope theorem), MAP-II, learned likelihood parameters,
refits warm-started on a growing data set, the inducing points, and the level-set acquisitions
reading the model.

Oracles: exact regression (a Gaussian likelihood with Z = X makes the bound tight), the
full-rank VariationalGP of course_lib.mixed.variational (the same family of q when Z = X), finite
differences, a cold fit, and the balance of a Sobol block.
"""

import numpy as np
import pytest

from course_lib.gp import GPRegression, LogNormal, SquaredExponential
from course_lib.mixed.levelset import global_mi
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, LikertConfidence
from course_lib.mixed.mixed_likelihood import MixedLikelihood
from course_lib.preference.pairwise_likelihoods import PairwiseGaussian, PairwiseProbit
from course_lib.mixed.inducing import inducing_points
from course_lib.mixed.sparse_variational import SparseVariationalGP
from course_lib.mixed.variational import VariationalGP
from numerics import finite_difference
from sparse_variational_data import SE, TIGHT, X12, Y12, detection_2d, probit_pairs


# --------------------------------------------------------------------------------------------
# MAP-II and learned likelihood parameters
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
# Warm starts, inducing points, level-set acquisitions
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


def test_inducing_points_are_sobol_points_in_the_box_then_the_included_rows():
    bounds = np.array([[-1.0, 3.0], [10.0, 11.0]])
    include = np.array([[0.0, 10.5], [2.0, 10.0]])
    Z = inducing_points(bounds, 16, include=include, rng=3)
    assert Z.shape == (18, 2)
    np.testing.assert_array_equal(Z[16:], include)
    assert np.all((Z[:16] >= bounds[:, 0]) & (Z[:16] <= bounds[:, 1]))
    # a Sobol block of 16 in 2-D puts exactly one point in each of the 4 x 4 cells
    cells = np.floor((Z[:16] - bounds[:, 0]) / (bounds[:, 1] - bounds[:, 0]) * 4).astype(int)
    assert len({tuple(cell) for cell in cells}) == 16
    np.testing.assert_array_equal(inducing_points(bounds, 16, rng=3), Z[:16])
    assert not np.allclose(inducing_points(bounds, 16, rng=4), Z[:16])
    assert inducing_points(bounds, 100, rng=0).shape == (100, 2)  # the paper's 100, no warning
    np.testing.assert_array_equal(inducing_points(bounds, 0, include=include), include)


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
