"""Wu et al.'s level-set test problems (course_lib.simulators.psychophysics) against the digest's
checked numbers: sublevel-set volumes, boundary probabilities, W's eigenvalues, the face
minima of the passthrough task and the constraint counts; the psychometric function against
AEPsych's way of writing it."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, logit, ndtri
from scipy.stats import norm, qmc

from course_lib.simulators.psychophysics import (_FALSE_ALARM_FLOOR, LISTENER_SPREAD,
                                                 LISTENER_U50, _PASSTHROUGH_BOUNDS, _PASSTHROUGH_W,
                                                 detection_problem,
                                                 LevelSetProblem, norm_ball_problem,
                                                 passthrough_problem, psychometric_problem,
                                                 simulate_answers)

PROBLEMS = {"psychometric": psychometric_problem, "norm2": lambda: norm_ball_problem(2),
            "norm4": lambda: norm_ball_problem(4), "passthrough": passthrough_problem}


def _sobol_box(problem, log2_n, seed=0):
    return problem.from_unit(qmc.Sobol(problem.dim, rng=seed).random_base2(log2_n))


@pytest.mark.parametrize("key, log2_n, volume, tol", [
    ("psychometric", 16, 0.0629, 5e-4), ("norm2", 16, 0.0893, 5e-4),
    ("norm4", 20, 0.0040, 5e-5), ("passthrough", 20, 0.0159, 5e-5)])
def test_sublevel_set_volumes_match_the_digest(key, log2_n, volume, tol):
    problem = PROBLEMS[key]()
    X = _sobol_box(problem, log2_n)
    share = np.mean(problem.in_level_set(X))
    assert share == pytest.approx(volume, abs=tol)
    # the same set from the probit-scale latent and the model's threshold, on cube coordinates
    U = problem.to_unit(X)
    np.testing.assert_array_equal(problem.unit_latent(U) < problem.threshold,
                                  problem.in_level_set(X))


def test_psychometric_function_equals_aepsychs_form():
    """AEPsych (novel_discrimination_testfun) writes it as 2 (x2 + 1) / c with
    c = 2 (0.05 + 0.4 (-1 + 0.2 x1)^2 x1^2)."""
    problem = psychometric_problem()
    X = np.random.default_rng(0).uniform(-1, 1, (500, 2))
    x1, x2 = X[:, 0], X[:, 1]
    aepsych = 2 * (x2 + 1) / (2 * (0.05 + 0.4 * (-1 + 0.2 * x1) ** 2 * x1 ** 2))
    np.testing.assert_allclose(problem.latent(X), aepsych, rtol=1e-13)


def test_psychometric_boundaries_and_constraints():
    problem = psychometric_problem()
    x1 = np.linspace(-1, 1, 20001)
    low = np.column_stack([x1, -np.ones_like(x1)])
    high = np.column_stack([x1, np.ones_like(x1)])
    np.testing.assert_array_equal(problem.answer_probability(low), 0.5)
    assert problem.latent(high).min() == pytest.approx(3.19, abs=5e-3)
    assert problem.answer_probability(high).min() >= 0.9993
    assert problem.constraint_X.shape == (20, 2)
    on_low = problem.constraint_X[:, 1] == -1
    assert on_low.sum() == 10 and np.all(problem.constraint_X[~on_low, 1] == 1)
    np.testing.assert_array_equal(problem.constraint_y[on_low], 0.0)
    np.testing.assert_allclose(problem.constraint_y[~on_low],
                               problem.latent(problem.constraint_X[~on_low]), rtol=1e-15)
    capped = psychometric_problem(constraint_cap=0.999)
    np.testing.assert_allclose(capped.constraint_y[~on_low], norm.ppf(0.999), rtol=1e-12)


@pytest.mark.parametrize("dim, count, corner", [(2, 21, 0.998), (4, 41, 0.99997)])
def test_norm_ball_constraints_and_boundary_probabilities(dim, count, corner):
    problem = norm_ball_problem(dim)
    C_X, C_y = problem.constraint_X, problem.constraint_y
    assert C_X.shape == (count, dim)
    np.testing.assert_array_equal(C_X[0], 0.0)
    assert C_y[0] == 0.0
    on_face = np.abs(C_X[1:]) == 1.0
    assert np.all(on_face.sum(axis=1) >= 1)
    for k in range(dim):          # 5 points on each of the 2 dim faces
        for side in (-1.0, 1.0):
            assert np.sum(C_X[1:, k] == side) == 5
    np.testing.assert_allclose(C_y, 2 * np.linalg.norm(C_X, axis=1), rtol=1e-15)
    centre = np.zeros((1, dim))
    centre[0, 0] = 1.0
    assert problem.answer_probability(centre)[0] == pytest.approx(0.977, abs=5e-4)
    digits = len(str(corner)) - 2           # as many decimals as the digest prints
    assert round(float(problem.answer_probability(np.ones((1, dim)))[0]), digits) == corner


def test_passthrough_ellipsoid_facts():
    np.testing.assert_allclose(np.linalg.eigvalsh(_PASSTHROUGH_W), [8.61e-4, 3.07e-3, 9.76e-3],
                               rtol=2e-3)
    problem = passthrough_problem()
    assert problem.link == "logistic"
    assert problem.link_threshold == pytest.approx(np.log(3), rel=1e-15)
    assert problem.threshold == pytest.approx(0.6745, abs=5e-5)
    # a probit model that used ln 3 would estimate {P < Phi(ln 3) = 0.864}: another set
    assert norm.cdf(np.log(3)) == pytest.approx(0.864, abs=5e-4)
    C_X, C_y = problem.constraint_X, problem.constraint_y
    assert C_X.shape == (21, 3)
    np.testing.assert_array_equal(C_X[0], 0.0)
    quad = np.einsum("ni,ij,nj->n", C_X, _PASSTHROUGH_W, C_X)
    np.testing.assert_allclose(C_y, norm.ppf(np.minimum(expit(quad), 0.999)), rtol=1e-12,
                               atol=1e-15)
    faces = [(0, -30.0), (0, 50.0), (1, 60.0), (2, 75.0)]
    for index, (dim, value) in enumerate(faces):
        np.testing.assert_array_equal(C_X[1 + 5 * index:6 + 5 * index, dim], value)
    assert np.all((C_X >= _PASSTHROUGH_BOUNDS[:, 0]) & (C_X <= _PASSTHROUGH_BOUNDS[:, 1]))


@pytest.mark.parametrize("dim, value, digest", [(0, -30.0, 0.958), (0, 50.0, 0.964),
                                                (1, 60.0, 0.9997), (2, 75.0, 1.0000)])
def test_passthrough_face_minimum_probabilities(dim, value, digest):
    """The smallest P(yes) on each far face: a convex quadratic on a box, minimised exactly.

    The digest's values are minima over 2^20 Sobol points of the face, which can only lie above
    the exact minimum: on x1 = -30 the minimum sits at the corner x2 = x3 = 0, where
    P = s(900 W_11) = 0.9573, and the sampled 0.9578 rounds to the digest's 0.958."""
    problem = passthrough_problem()
    free = [k for k in range(3) if k != dim]

    def quad(v):
        x = np.empty(3)
        x[dim], x[free] = value, v
        return x @ _PASSTHROUGH_W @ x, 2 * (_PASSTHROUGH_W @ x)[free]

    run = minimize(quad, _PASSTHROUGH_BOUNDS[free].mean(axis=1), jac=True, method="L-BFGS-B",
                   bounds=_PASSTHROUGH_BOUNDS[free])
    exact = float(expit(run.fun))
    digits = 3 if digest < 0.99 else 4
    assert exact <= digest + 0.5 * 10.0 ** -digits and digest - exact < 1e-3
    if value == -30.0:
        assert exact == pytest.approx(expit(900 * _PASSTHROUGH_W[0, 0]), rel=1e-9)
        assert round(exact, 4) == 0.9573
    # no Sobol point of the face goes below it, and the sampled minimum rounds to the digest's
    U = qmc.Sobol(3, rng=0).random_base2(20)
    X = _PASSTHROUGH_BOUNDS[:, 0] + U * np.ptp(_PASSTHROUGH_BOUNDS, axis=1)
    X[:, dim] = value
    sampled = problem.answer_probability(X).min()
    assert sampled >= exact - 1e-12 and round(float(sampled), digits) == digest


def test_probit_latent_of_the_logistic_truth_keeps_its_tails():
    problem = passthrough_problem()
    X = np.array([[0.0, 0.0, 0.0], [10.0, 5.0, 3.0], [50.0, 0.0, 75.0], [-30.0, 60.0, 75.0]])
    quad = np.einsum("ni,ij,nj->n", X, _PASSTHROUGH_W, X)
    np.testing.assert_allclose(problem.probit_latent(X), norm.isf(expit(-quad)), rtol=1e-12)
    assert np.all(np.isfinite(problem.probit_latent(X)))
    np.testing.assert_allclose(problem.answer_probability(X), expit(quad), rtol=1e-15)
    assert logit(0.75) == pytest.approx(problem.link_threshold, rel=1e-15)


def test_unit_cube_scaling_round_trips():
    problem = passthrough_problem()
    U = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.375, 0.5, 0.2]])
    X = problem.from_unit(U)
    np.testing.assert_allclose(X[0], _PASSTHROUGH_BOUNDS[:, 0])
    np.testing.assert_allclose(X[1], _PASSTHROUGH_BOUNDS[:, 1])
    np.testing.assert_allclose(X[2], [0.0, 30.0, 15.0])
    np.testing.assert_allclose(problem.to_unit(X), U, atol=1e-15)
    np.testing.assert_allclose(problem.unit_constraint_X[0], [0.375, 0.0, 0.0])
    np.testing.assert_array_equal(problem.unit_bounds, [[0, 1]] * 3)


def test_simulated_answers_follow_the_answer_probability():
    problem = psychometric_problem()
    X = np.repeat(np.array([[0.0, -1.0], [0.5, -0.9], [0.0, 1.0]]), 20000, axis=0)
    answers = simulate_answers(problem, X, rng=4)
    assert set(np.unique(answers)) <= {0.0, 1.0}
    p = problem.answer_probability(X[::20000])
    rates = answers.reshape(3, -1).mean(axis=1)
    np.testing.assert_allclose(rates, p, atol=4 * np.sqrt(0.25 / 20000))
    np.testing.assert_array_equal(simulate_answers(problem, X[:50], rng=9),
                                  simulate_answers(problem, X[:50], rng=9))


def test_problem_is_frozen_and_its_arrays_read_only():
    problem = norm_ball_problem(2)
    with pytest.raises(AttributeError):
        problem.threshold = 1.0
    with pytest.raises(ValueError):
        problem.constraint_y[0] = 1.0
    assert isinstance(problem, LevelSetProblem)


def test_detection_problem_level_zero_is_the_false_alarm_floor():
    problem = detection_problem()
    assert problem.answer_probability([[0.0]])[0] == pytest.approx(_FALSE_ALARM_FLOOR)
    assert problem.constraint_y[0] == pytest.approx(ndtri(_FALSE_ALARM_FLOOR))
    np.testing.assert_array_equal(problem.constraint_X, [[0.0]])
    assert problem.threshold == pytest.approx(ndtri(0.75))
    # the listener's 75 % level, by the closed form of its probit curve
    u75 = LISTENER_U50 + LISTENER_SPREAD * ndtri(0.75)
    assert problem.answer_probability([[u75]])[0] == pytest.approx(0.75)


def test_another_detection_listener_keeps_the_models_constraint():
    problem = detection_problem(u50=0.6, false_alarms=0.04)
    assert problem.answer_probability([[0.0]])[0] == pytest.approx(0.04)
    assert problem.answer_probability([[0.6]])[0] == pytest.approx(0.5)
    # the model's knowledge stays "1 % at level 0", whatever this listener does
    assert problem.constraint_y[0] == pytest.approx(ndtri(_FALSE_ALARM_FLOOR))
