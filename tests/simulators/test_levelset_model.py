"""The model a level-set session keeps of its observer (course_lib.simulators.levelset_model):
Wu et al.'s prior, one fit of each kind that leaves the model it warm-starts from unchanged, and
the threshold estimate along a level axis."""

import copy

import numpy as np
import pytest

from course_lib.simulators.levelset_model import _fit_model, _prior_kernel, _threshold_level
from course_lib.simulators.psychophysics import norm_ball_problem, simulate_answers


def test_prior_kernel_is_wu_et_als_on_the_unit_cube():
    kernel, priors = _prior_kernel(3)
    se, constant = kernel.k1, kernel.k2
    np.testing.assert_allclose(se.lengthscale, np.full(3, 0.5))   # the Gamma(3, 6) prior's mean
    assert se.variance == 2.0 and constant.variance == 1.0
    assert sorted(priors) == [f"se.lengthscale_{k}" for k in range(3)]
    # the signal variance kept in [1, 4], the constant's variance fixed
    bounds = dict(zip(kernel.param_names, np.exp(kernel.bounds)))
    np.testing.assert_allclose(bounds["se.variance"], [1.0, 4.0])
    assert bounds["constant.variance"][0] == bounds["constant.variance"][1]


def _data(n=12, seed=0):
    problem = norm_ball_problem(2)
    U = np.random.default_rng(seed).random((n, 2))
    answers = simulate_answers(problem, problem.from_unit(U), rng=seed)
    return problem, U, answers


@pytest.mark.parametrize("kind", ["full", "sparse"])
def test_a_fit_of_each_kind_predicts_and_a_refit_leaves_its_start_unchanged(kind):
    problem, U, answers = _data()
    constraints = (problem.unit_constraint_X, problem.constraint_y)
    kernel, priors = _prior_kernel(2)
    inducing = np.random.default_rng(1).random((16, 2))
    options = dict(constraints=constraints, arm="mixed", inducing=inducing, map_max_iter=3)
    first = _fit_model(kind, kernel, priors, U, answers, previous=None, optimise=False,
                       **options)
    mean, var = first.predict(U)
    assert mean.shape == var.shape == (U.shape[0],) and np.all(var > 0)
    kept = copy.deepcopy(first.theta)
    second = _fit_model(kind, first.kernel, priors, U, answers, previous=first, optimise=True,
                        **options)
    assert second is not first
    np.testing.assert_array_equal(first.theta, kept)   # MAP-II moved the new model only


def test_threshold_level_interpolates_the_first_crossing():
    levels = np.linspace(0, 1, 11)
    assert _threshold_level(levels, 4 * levels - 1, 0.6) == pytest.approx(0.4)
    assert _threshold_level(levels, np.full(11, -1.0), 0.6) is None     # never reached
    assert _threshold_level(levels, np.full(11, 2.0), 0.6) is None      # above everywhere
    with pytest.raises(ValueError, match="^mean:"):
        _threshold_level(levels, levels[:5], 0.6)
