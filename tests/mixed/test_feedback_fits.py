"""The fits lecture 07 compares (course_lib.mixed.feedback_fits): the ELBO's ledger on chosen data
types and the KL's bookkeeping trap, and constraints of one sd in the sparse model."""

import numpy as np
import pytest
from mixed_data import CONSTRAINT_X, CONSTRAINT_Y, detection_problem, trials

from course_lib.mixed.feedback_fits import constraint_fit, ledger_fit
from course_lib.gp.kernels import Matern52, SquaredExponential
from course_lib.mixed import MixedLikelihood
from course_lib.mixed.inducing import inducing_points
from course_lib.mixed.variational import fit_variational
from bad_input import check_names_argument


def test_counting_the_kl_per_type_pulls_the_posterior_to_the_prior():
    X, parts = detection_problem()
    K = SquaredExponential(1.0, 1.0)(X)
    once = ledger_fit(X, parts, SquaredExponential(1.0, 1.0), [True, True])
    twice = ledger_fit(X, parts, SquaredExponential(1.0, 1.0), [True, True], kl_weight=2.0)
    assert twice.kl < once.kl, "a heavier KL should bring q closer to the prior"
    assert twice.expected_log_likelihood - twice.kl < once.value, "only the ELBO's own optimum maximises the ELBO"
    np.testing.assert_allclose(once.value, fit_variational(K, MixedLikelihood(parts)).value)



def test_tight_constraints_without_an_inducing_point_make_the_fit_rigid():
    X, answers = trials()
    kernel, sobol = Matern52(0.7, 2.0), inducing_points([[0.0, 2.0]], 4, rng=0)
    with_points = constraint_fit(X, answers, CONSTRAINT_X, CONSTRAINT_Y, kernel,
                                 np.vstack([sobol, CONSTRAINT_X]), 0.01)
    without = constraint_fit(X, answers, CONSTRAINT_X, CONSTRAINT_Y, kernel, sobol, 0.01)
    # without an inducing point there, the sparse model cannot meet a constraint of sd 0.01
    assert without.result.expected_log_likelihoods[1] < \
        with_points.result.expected_log_likelihoods[1] - 100
    sd_with = np.sqrt(with_points.predict(np.asarray(CONSTRAINT_X))[1])
    assert np.all(sd_with < 0.02), "an inducing point on a constraint takes its sd"



@pytest.mark.parametrize("call, name", [
    (lambda: ledger_fit(*detection_problem(), SquaredExponential(), [True]), "use"),
    (lambda: ledger_fit(*detection_problem(), SquaredExponential(), [False, False]), "use"),
    (lambda: constraint_fit(*trials(), CONSTRAINT_X, CONSTRAINT_Y, Matern52(), [[0.5]], -0.1),
     "constraint_sd"),
])
def test_bad_input_names_the_argument(call, name):
    check_names_argument(call, name)
