"""GPR-MA / GPR-MANH (course_lib.raters.annotator_noise): evidence, gradients, EM, floor. The regions
(course_lib.raters.regions) are tested in test_annotator_regions.py.

Oracles: the Gaussian of all M labels at once (M x M covariance K[items][:, items] + diag of the
per-label noise), the joint multi-rater model of course_lib.raters.multi_rater (equal noise for every
annotator), closed-form posterior moments, and central finite differences for every gradient.
scikit-learn's GaussianProcessRegressor is in tests/reference/test_annotators_reference.py.
"""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from course_lib.gp import (LatentGaussian, LogNormal, SquaredExponential, gaussian_evidence,
                           log_evidence_surface)
from course_lib.rater_data import RaterData
from course_lib.raters import MultiRaterGP, joint_evidence, weighted_means
from course_lib.raters._noise_table import _AT_FLOOR_FACTOR, NOISE_FLOOR
from course_lib.raters.annotator_noise import AnnotatorNoiseGP, annotator_evidence
from course_lib.raters.regions import assign_regions
from course_lib.simulators.rater_scores import simulate_homogeneous, simulate_regions
from numerics import assert_non_decreasing, finite_difference

# Gil-González et al.'s region-wise variances: row = region, column = annotator; zero diagonal.
LAMBDA = np.array([[0.0, 0.65, 1.0], [0.25, 0.0, 0.75], [0.1, 0.75, 0.0]])


def annotator_toy_gold(X):
    return np.sin(2 * np.pi * X[:, 0]) * np.sin(6 * np.pi * X[:, 0])


def sparse_problem():
    """16 items, 4 annotators: 0 labels items 0-7, 3 items 8-15 (no item in common), 1 and 2
    overlap both with missing labels; 2 interleaved regions, every cell with >= 2 labels."""
    rng = np.random.default_rng(11)
    X = np.sort(rng.uniform(0, 1, 16))[:, None]
    labelled = {0: range(0, 8), 1: [0, 1, 2, 4, 5, 6, 9, 10, 11], 2: [3, 5, 7, 8, 12, 13, 15],
                3: range(8, 16)}
    items = np.concatenate([list(v) for v in labelled.values()])
    raters = np.concatenate([[r] * len(v) for r, v in labelled.items()])
    scores = np.sin(5 * X[items, 0]) + rng.normal(0, 0.3, items.size)
    data = RaterData.from_long(items, raters, scores, n_items=16, n_raters=4)
    regions = np.arange(16) % 2
    return X, data, regions


def annotator_model(regions, rng_seed=5):
    rng = np.random.default_rng(rng_seed)
    n_regions = 1 if regions is None else 2
    return AnnotatorNoiseGP(SquaredExponential(0.25, 1.3), 4, regions,
                            noise_variance=rng.uniform(0.05, 0.6, (n_regions, 4)))


MODELS = {"GPR-MA": None, "GPR-MANH": "interleaved"}


def fitted(name):
    X, data, regions = sparse_problem()
    return annotator_model(None if MODELS[name] is None else regions).fit(X, data), X, data


def per_label_noise(gp, data):
    return gp.noise_table_.ravel()[gp._label_cells(data)]


# ----- the evidence ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MODELS))
def test_evidence_equals_the_gaussian_of_all_labels(name):
    gp, X, data = fitted(name)
    K = gp.kernel(X)
    covariance = K[np.ix_(data.items, data.items)] + np.diag(per_label_noise(gp, data))
    brute = multivariate_normal(np.zeros(data.n_labels), covariance).logpdf(data.scores)
    result = gp.evidence()
    assert result.value == pytest.approx(brute, rel=1e-12, abs=1e-12)
    parts = result.data_fit + result.complexity + result.constant + result.spread_term
    assert parts == pytest.approx(result.value, rel=1e-13)
    weighted = weighted_means(data, per_label_noise(gp, data))
    assert result.spread_term == pytest.approx(weighted.constant, rel=1e-13)


@pytest.mark.parametrize("name", list(MODELS))
def test_predictions_equal_the_gp_on_every_label(name):
    gp, X, data = fitted(name)
    X_test = np.linspace(-0.1, 1.1, 25)[:, None]
    K = gp.kernel(X)
    every_label = LatentGaussian.from_noise(K[np.ix_(data.items, data.items)], data.scores,
                                            per_label_noise(gp, data))
    mean, var = every_label.predict(gp.kernel(X[data.items], X_test), gp.kernel.diag(X_test))
    ours_mean, ours_var = gp.predict(X_test)
    np.testing.assert_allclose(ours_mean, mean, atol=1e-12)
    np.testing.assert_allclose(ours_var, var, atol=1e-12)
    _, cov = every_label.predict(gp.kernel(X[data.items], X_test), gp.kernel(X_test))
    np.testing.assert_allclose(gp.predict(X_test, full_cov=True)[1], cov, atol=1e-12)


def test_function_and_model_agree():
    gp, X, data = fitted("GPR-MANH")
    K, dK = gp.kernel.gradient(X)
    result = annotator_evidence(K, data, gp.noise_table_.ravel(), gp._label_cells(data), dK)
    model = gp.evidence(eval_gradient=True)
    assert result.value == model.value
    np.testing.assert_array_equal(result.gradient_log_noise, model.gradient_log_noise)
    np.testing.assert_array_equal(model.gradient, np.concatenate([model.gradient_kernel,
                                                                  model.gradient_log_noise]))
    np.testing.assert_array_equal(result.gradient, model.gradient)


def test_equal_noise_is_the_joint_multi_rater_model():
    X, data, _ = sparse_problem()
    sigma2 = 0.17
    kernel = SquaredExponential(0.25, 1.3)
    gp = AnnotatorNoiseGP(kernel, 4, noise_variance=sigma2).fit(X, data)
    K, dK = kernel.gradient(X)
    joint = joint_evidence(K, data, sigma2, dK)
    ours = gp.evidence(eval_gradient=True)
    assert ours.value == pytest.approx(joint.value, rel=1e-12)
    # GP on the per-item mean with noise sigma^2 / R_i, plus the stated constant c(sigma^2)
    gp_on_means = gaussian_evidence(K, data.means, sigma2 / data.counts)
    assert ours.spread_term == pytest.approx(joint.spread_term, rel=1e-12)
    assert ours.value == pytest.approx(gp_on_means.value + joint.spread_term, rel=1e-12)
    np.testing.assert_allclose(ours.gradient_kernel, joint.gradient_kernel, rtol=1e-10)
    # one shared variance: its derivative is the sum over the annotators' derivatives
    assert ours.gradient_log_noise.sum() == pytest.approx(joint.gradient_log_noise.sum(),
                                                          rel=1e-9)
    joint_gp = MultiRaterGP(kernel, sigma2, mode="joint").fit(X, data)
    X_test = np.linspace(0, 1, 13)[:, None]
    for ours_part, joint_part in zip(gp.predict(X_test), joint_gp.predict(X_test)):
        np.testing.assert_allclose(ours_part, joint_part, atol=1e-12)


# ----- gradients ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MODELS))
def test_every_gradient_matches_finite_difference(name):
    gp, _, _ = fitted(name)
    theta = gp.theta
    grad = gp.evidence(eval_gradient=True).gradient
    numeric = finite_difference(gp.log_evidence, theta)
    assert grad.shape == (2 + gp.n_noise,)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)
    assert np.all(np.abs(grad[2:]) > 1e-3), "a noise gradient is too small to test anything"


def test_differentiating_the_gp_on_the_weighted_mean_alone_is_wrong():
    gp, X, data = fitted("GPR-MANH")
    K = gp.kernel(X)
    cells = gp._label_cells(data)
    P = gp.kernel.n_params
    frozen = weighted_means(data, per_label_noise(gp, data))

    def weighted(log_noise):
        return weighted_means(data, np.exp(log_noise)[cells])

    def gp_term(log_noise, target):
        return gaussian_evidence(K, target, weighted(log_noise).noise).value

    def naive(log_noise):  # yhat held at its current value: only Sigma and c move
        return gp_term(log_noise, frozen.target) + weighted(log_noise).constant

    log_noise = gp.theta[P:]
    naive_gradient = finite_difference(naive, log_noise)
    true_gradient = finite_difference(lambda u: gp.log_evidence(
        np.concatenate([gp.kernel.theta, u])), log_noise)
    fisher = gp.evidence(eval_gradient=True).gradient_log_noise
    np.testing.assert_allclose(fisher, true_gradient, rtol=1e-6, atol=1e-7)
    assert np.max(np.abs(naive_gradient - true_gradient)) > 0.1 * np.max(np.abs(true_gradient))
    # what the naive form misses is the path through the target: -alpha^T d yhat / d log s_j
    alpha = gp.posterior.alpha
    dtarget = np.stack([(weighted(log_noise + step).target - weighted(log_noise - step).target)
                        / 2e-5 for step in 1e-5 * np.eye(log_noise.size)])
    np.testing.assert_allclose(naive_gradient - dtarget @ alpha, true_gradient, rtol=1e-5,
                               atol=1e-6)


def test_objective_with_priors_matches_finite_difference():
    X, data, regions = sparse_problem()
    gp = AnnotatorNoiseGP(SquaredExponential(0.25, 1.3), 4, regions, noise_variance=0.3,
                          noise_priors=LogNormal(np.log(0.1), 1.0),
                          kernel_priors={"lengthscale": LogNormal(np.log(0.3), 0.5)}).fit(X, data)
    assert set(gp.priors) == set(gp.noise_names) | {"lengthscale"}
    theta = gp.theta
    value, grad = gp.negative_objective(theta)
    prior_value, _ = gp.log_hyper_prior(theta)
    assert value == pytest.approx(-(gp.log_evidence() + prior_value), rel=1e-12)
    numeric = finite_difference(lambda t: gp.negative_objective(t)[0], theta)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)


# ----- EM -----------------------------------------------------------------------------------

def dense_posterior(gp, X, data):
    """m and diag V of the latents at the items, conditioned on every label (M x M)."""
    K = gp.kernel(X)
    K_labels = K[:, data.items]
    gain = np.linalg.solve(K_labels[data.items] + np.diag(per_label_noise(gp, data)),
                           K_labels.T).T
    return gain @ data.scores, np.diag(K - gain @ K_labels.T)


@pytest.mark.parametrize("name", list(MODELS))
def test_em_step_is_the_closed_form_update(name):
    gp, X, data = fitted(name)
    m, v = dense_posterior(gp, X, data)
    expected = (data.scores - m[data.items]) ** 2 + v[data.items]
    cells = gp._label_cells(data)
    update = np.bincount(cells, weights=expected) / np.bincount(cells)
    np.testing.assert_allclose(gp.em_step().ravel(), update, rtol=1e-8)


@pytest.mark.parametrize("name", list(MODELS))
def test_em_never_lowers_the_evidence_and_its_fixed_point_is_stationary(name):
    gp, X, data = fitted(name)
    values = [gp.log_evidence()]
    for _ in range(3000):
        before = gp.noise_table_
        gp.em_step()
        values.append(gp.log_evidence())
        if np.max(np.abs(np.log(gp.noise_table_ / before))) < 1e-11:
            break
    # once EM has settled, consecutive evidences differ by the round-off of a Cholesky solve
    # with the labels' covariance, which scales with its condition number (~300 here)
    covariance = gp.kernel(X)[np.ix_(data.items, data.items)] + np.diag(per_label_noise(gp, data))
    assert_non_decreasing(values, scale=np.linalg.cond(covariance) * np.max(np.abs(values)),
                          what="the evidence over EM steps")
    assert values[-1] > values[0] + 0.1
    gradient = gp.evidence(eval_gradient=True).gradient_log_noise
    free = ~gp.at_floor_.ravel()
    assert free.any()
    np.testing.assert_allclose(gradient[free], 0.0, atol=1e-8)


# ----- the floor, Gil-González et al.'s Lambda ---------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_perfect_annotators_go_to_the_floor_and_are_reported(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (60, 1))
    regions = assign_regions(X, 3, rng=rng)
    data = simulate_regions(annotator_toy_gold(X), regions, LAMBDA, rng=rng)
    gp = AnnotatorNoiseGP(SquaredExponential(0.1, 1.0), 3, regions, noise_variance=0.3)
    gp.fit(X, data).optimise_hyperparameters(3, rng=rng)
    np.testing.assert_array_equal(gp.at_floor_, np.eye(3, dtype=bool))
    np.testing.assert_allclose(np.diag(gp.noise_table_), NOISE_FLOOR, rtol=_AT_FLOOR_FACTOR - 1)
    assert gp.floor_summary() == ("3 of 9 noise variances sit at the floor 0.0001: "
                                  "(region 0, annotator 0), (region 1, annotator 1), "
                                  "(region 2, annotator 2)")


def test_floor_summary_of_gpr_ma_names_annotators():
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 1, (40, 1))
    data = simulate_homogeneous(annotator_toy_gold(X), [0.0, 0.3, 0.5], rng=rng)
    gp = AnnotatorNoiseGP(SquaredExponential(0.1, 1.0), 3, noise_variance=0.3,
                          noise_floor=1e-3).fit(X, data)
    gp.optimise_hyperparameters(3, rng=rng)
    np.testing.assert_array_equal(gp.at_floor_, [[True, False, False]])
    assert gp.floor_summary() == ("1 of 3 noise variances sit at the floor 0.001: "
                                  "annotator 0")
    assert gp.noise_table_.shape == (1, 3)


def test_no_floor_without_a_perfect_annotator():
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 1, (40, 1))
    data = simulate_homogeneous(annotator_toy_gold(X), [0.25, 0.5, 0.75], rng=rng)
    gp = AnnotatorNoiseGP(SquaredExponential(0.1, 1.0), 3, noise_variance=0.3).fit(X, data)
    gp.optimise_hyperparameters(3, rng=rng)
    assert not gp.at_floor_.any()
    assert gp.floor_summary() == "no noise variance sits at the floor 0.0001"


def test_identical_annotators_sit_at_the_floor_not_at_zero():
    # no disagreement at all: the evidence grows as every variance shrinks, up to the floor
    X = np.linspace(0, 1, 12)[:, None]
    data = RaterData.from_matrix(np.tile(np.sin(4 * X), (1, 3)))
    gp = AnnotatorNoiseGP(SquaredExponential(0.3, 1.0), 3, noise_variance=0.3).fit(X, data)
    gp.optimise_hyperparameters(3, rng=0)
    assert gp.at_floor_.all()
    assert gp.floor_summary().startswith("3 of 3 noise variances sit at the floor 0.0001")
    assert np.isfinite(gp.log_evidence())


# ----- restarts -----------------------------------------------------------------------------

def test_restarts_start_from_current_em_and_equal_variances_and_keep_the_best():
    gp, _, _ = fitted("GPR-MANH")
    initial = gp.theta
    fit = gp.optimise_hyperparameters(5, rng=0)
    P = gp.kernel.n_params
    assert fit.starts.shape == (5, P + gp.n_noise)
    np.testing.assert_array_equal(fit.starts[0], initial)
    # run 2 starts at the EM fixed point of the initial state, run 3 at equal variances
    probe = fitted("GPR-MANH")[0]
    probe.refit_at(fit.starts[1])
    np.testing.assert_allclose(np.log(probe.em_step().ravel()), fit.starts[1][P:], atol=1e-3)
    np.testing.assert_array_equal(fit.starts[1][:P], initial[:P])
    assert np.ptp(fit.starts[2][P:]) == 0.0 and fit.starts[2][P] != initial[P]
    assert fit.best == int(np.argmax(fit.objectives))
    np.testing.assert_array_equal(gp.theta, fit.ends[fit.best])
    assert gp.log_evidence() == pytest.approx(fit.objective, rel=1e-12)
    assert fit.objective == fit.log_evidence == np.max(fit.objectives)
    one_run = fitted("GPR-MANH")[0].optimise_hyperparameters(1)
    assert one_run.starts.shape[0] == 1 and fit.objective >= one_run.objective - 1e-9


def test_optimised_gradient_vanishes_inside_the_bounds():
    gp, _, _ = fitted("GPR-MA")
    gp.optimise_hyperparameters(3, rng=0)
    grad = gp.evidence(eval_gradient=True).gradient
    bounds = gp.bounds
    inside = (gp.theta > bounds[:, 0] + 1e-6) & (gp.theta < bounds[:, 1] - 1e-6)
    np.testing.assert_allclose(grad[inside], 0.0, atol=1e-3)


def test_evidence_surface_over_a_noise_variance():
    gp, _, _ = fitted("GPR-MA")
    lengthscales, noises = [0.1, 0.25, 0.5], [0.05, 0.2]
    surface = log_evidence_surface(gp, "lengthscale", lengthscales, "noise_variance[1]", noises)
    theta = gp.theta
    for i, noise in enumerate(noises):
        for j, lengthscale in enumerate(lengthscales):
            theta[1], theta[2 + 1] = np.log(lengthscale), np.log(noise)
            assert surface.values[i, j] == pytest.approx(gp.log_evidence(theta), rel=1e-12)


# ----- construction -------------------------------------------------------------------------

def test_parameters_are_named_and_laid_out_as_the_table():
    _, _, regions = sparse_problem()
    table = np.arange(1.0, 9.0).reshape(2, 4) / 10
    gp = AnnotatorNoiseGP(SquaredExponential(), 4, regions, noise_variance=table)
    assert gp.param_names[2:4] == ("noise_variance[0,0]", "noise_variance[0,1]")
    assert gp.param_names[-1] == "noise_variance[1,3]"
    np.testing.assert_allclose(gp.noise_table_, table)
    np.testing.assert_allclose(gp.theta[2:], np.log(table.ravel()))
    np.testing.assert_allclose(gp.bounds[2:], np.tile(np.log([1e-4, 1e5]), (8, 1)))
    ma = AnnotatorNoiseGP(SquaredExponential(), 4, noise_variance=[0.1, 0.2, 0.3, 0.4])
    assert ma.param_names[2:] == tuple(f"noise_variance[{r}]" for r in range(4))
    assert "GPR-MANH, 2 regions" in repr(gp) and "GPR-MA" in repr(ma)


def test_regions_object_is_accepted():
    X, data, _ = sparse_problem()
    regions = assign_regions(X, 2, rng=0)
    gp = AnnotatorNoiseGP(SquaredExponential(0.25), 4, regions)
    np.testing.assert_array_equal(gp.regions, regions.labels)
    assert gp.n_regions == 2


def test_sample_posterior_draws_the_latent():
    gp, _, _ = fitted("GPR-MA")
    X_test = np.linspace(0, 1, 5)[:, None]
    draws = gp.sample_posterior(X_test, 4000, rng=0)
    mean, cov = gp.predict(X_test, full_cov=True)
    assert draws.shape == (4000, 5)
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=5 * np.sqrt(cov.diagonal().max()
                                                                          / 4000))
