"""Fitting hyper-parameters (course_lib.gp.optimise): the restarts end at a stationary point
that beats the start, MAP-II pulls towards its prior while fixed bounds hold, every restart is
counted with its iterations, and the objective L-BFGS-B sees has the gradient it reports (by
finite differences)."""

import numpy as np
import pytest

from course_lib.gp.kernels import SquaredExponential
from course_lib.gp.priors import LogNormal
from course_lib.gp.regression import GPRegression
from tests.gp.test_regression import X, Y


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
