"""Bad-input catalogue: several raters per item (Unit 5) and the score metrics.

Families: "raters" (course_lib.raters.multi_rater: the joint evidence, the model, the simulator;
the container's cases are in tests/test_rater_data_bad_input.py) and "metrics" (course_lib.metrics: RMSE, rounded PCC/MSE, the discretised predictive,
the discrete KL). Data sets the issue names as awkward but valid (one label per rater, missing
labels, raters with no overlap) are accepted and tested in tests/raters/test_multi_rater.py; here are
the ones that must be refused.

An exact multi-rater GP on more items than fit a 2 GiB kernel matrix is refused naming ``X``; a
kernel whose matrices are negative definite naming ``kernel``.
"""

import numpy as np
import pytest

from bad_input import BadInput, NegatedSE, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.rater_data import RaterData
from course_lib.raters import MultiRaterGP, joint_evidence
from course_lib.metrics import (discrete_kl, discretised_log_predictive, rmse, round_scores,
                                rounded_pcc_mse)
from course_lib.simulators.rater_scores import simulate_integer_scores
from course_lib.linalg import NotPositiveDefiniteError

TABLE = np.array([[3.0, 4.0, np.nan], [5.0, np.nan, 6.0], [np.nan, 2.0, 8.0]])
DATA = RaterData.from_matrix(TABLE, scale=(0, 10))
X = np.array([[0.0], [1.0], [2.0]])
K = SquaredExponential(1.0)(X)
SE = SquaredExponential(1.0)
UNIFORM = np.full((2, 11), -np.log(11))


def fitted(mode="joint", data=DATA):
    return MultiRaterGP(SquaredExponential(1.0), 0.5, mode=mode).fit(X, data)


def zero_spread():
    return RaterData.from_matrix(np.array([[3.0, 3.0], [5.0, 5.0], [7.0, 7.0]]))


# 20000 items, one label each from one of two raters: valid data for an exact GP too large
MANY = RaterData.from_long(np.arange(20000), np.arange(20000) % 2, np.ones(20000))
RATINGS = RaterData.from_matrix([[2.0, 3.0], [7.0, np.nan], [5.0, 6.0], [np.nan, 9.0]])


CASES = [
    # ----- the joint evidence ----------------------------------------------------------------
    BadInput("raters: K of the wrong shape", lambda: joint_evidence(np.eye(4), DATA, 0.5),
             ValueError, "K"),
    BadInput("raters: K not symmetric",
             lambda: joint_evidence(K + np.triu(np.ones((3, 3)), 1), DATA, 0.5),
             ValueError, "K"),
    BadInput("raters: K with NaN",
             lambda: joint_evidence(np.where(np.eye(3) > 0, np.nan, K), DATA, 0.5),
             ValueError, "K"),
    BadInput("raters: dK of the wrong shape",
             lambda: joint_evidence(K, DATA, 0.5, np.zeros((2, 4, 4))), ValueError, "dK"),
    BadInput("raters: dK as text", lambda: joint_evidence(K, DATA, 0.5, "gradient"),
             TypeError, "dK"),
    BadInput("raters: dK with NaN",
             lambda: joint_evidence(K, DATA, 0.5, np.full((1, 3, 3), np.nan)), ValueError,
             "dK"),
    BadInput("raters: negative noise variance", lambda: joint_evidence(K, DATA, -0.5),
             ValueError, "noise_variance"),
    BadInput("raters: zero noise variance", lambda: joint_evidence(K, DATA, 0.0),
             ValueError, "noise_variance"),
    BadInput("raters: scores table instead of RaterData",
             lambda: joint_evidence(K, TABLE, 0.5), TypeError, "data"),
    BadInput("raters: include_spread_term as text",
             lambda: joint_evidence(K, DATA, 0.5, include_spread_term="yes"), TypeError,
             "include_spread_term"),
    # ----- the model ---------------------------------------------------------------------------
    BadInput("raters: unknown mode", lambda: MultiRaterGP(SE, 0.5, mode="median"), ValueError,
             "mode"),
    BadInput("raters: model noise variance zero", lambda: MultiRaterGP(SE, 0.0), ValueError,
             "noise_variance"),
    BadInput("raters: model noise variance negative",
             lambda: MultiRaterGP(SE, -1.0, mode="mean"), ValueError, "noise_variance"),
    BadInput("raters: kernel not a Kernel", lambda: MultiRaterGP("se", 0.5), TypeError,
             "kernel"),
    BadInput("raters: fit on a scores table, not RaterData",
             lambda: MultiRaterGP(SE, 0.5).fit(X, TABLE), TypeError, "data"),
    BadInput("raters: X rows differ from the items",
             lambda: MultiRaterGP(SE, 0.5).fit(np.zeros((4, 1)), DATA), ValueError, "X"),
    BadInput("raters: X with NaN", lambda: MultiRaterGP(SE, 0.5).fit([[0.0], [np.nan], [1.0]],
                                                                      DATA),
             ValueError, "X"),
    BadInput("raters: zero spread in ML-II (joint)",
             lambda: fitted("joint", zero_spread()).optimise_hyperparameters(1, rng=0),
             ValueError, "data"),
    BadInput("raters: zero spread in ML-II (repeated)",
             lambda: fitted("repeated", zero_spread()).optimise_hyperparameters(1, rng=0),
             ValueError, "data"),
    BadInput("raters: repeated model without its spread term",
             lambda: fitted("repeated").evidence(include_spread_term=False),
             ValueError, "include_spread_term"),
    BadInput("raters: theta of the wrong length",
             lambda: fitted().log_evidence([0.0, 0.0]), ValueError, "theta"),
    BadInput("raters: predict at inputs of another dimension",
             lambda: fitted().predict(np.zeros((2, 3))), ValueError, "X_test"),
    # ----- simulated raters -----------------------------------------------------------------
    BadInput("raters: negative noise sd in the simulator",
             lambda: simulate_integer_scores([5.0], [0.0], [1.0], [-1.0], rng=0), ValueError,
             "noise_sd"),
    BadInput("raters: one slope for two raters",
             lambda: simulate_integer_scores([5.0], [0.0, 1.0], [1.0], [1.0, 1.0], rng=0),
             ValueError, "slope"),
    BadInput("raters: NaN truth",
             lambda: simulate_integer_scores([np.nan], [0.0], [1.0], [1.0], rng=0), ValueError,
             "truth"),
    BadInput("raters: simulator scale reversed",
             lambda: simulate_integer_scores([5.0], [0.0], [1.0], [1.0], scale=(5, 1), rng=0),
             ValueError, "scale"),
    BadInput("raters: simulator rng as text",
             lambda: simulate_integer_scores([5.0], [0.0], [1.0], [1.0], rng="seed"), TypeError,
             "rng"),
    # ----- metrics -------------------------------------------------------------------------------
    BadInput("metrics: zero predictive variance",
             lambda: discretised_log_predictive([5.0, 4.0], [1.0, 0.0]), ValueError, "variance"),
    BadInput("metrics: one variance for two means",
             lambda: discretised_log_predictive([5.0, 4.0], [1.0]), ValueError, "variance"),
    BadInput("metrics: NaN predictive mean",
             lambda: discretised_log_predictive([np.nan], [1.0]), ValueError, "mean"),
    BadInput("metrics: mean 1e160 sd from the scale",
             lambda: discretised_log_predictive([1e160], [1.0]), ValueError, "mean"),
    BadInput("metrics: predictive on a reversed scale",
             lambda: discretised_log_predictive([5.0], [1.0], scale=(10, 0)), ValueError,
             "scale"),
    BadInput("metrics: predictive on a scale of one number",
             lambda: discretised_log_predictive([5.0], [1.0], scale=10), TypeError, "scale"),
    BadInput("metrics: KL with histograms of another shape",
             lambda: discrete_kl(np.ones((2, 10)), UNIFORM), ValueError, "log_probabilities"),
    BadInput("metrics: KL with an empty histogram row",
             lambda: discrete_kl(np.vstack([np.ones(11), np.zeros(11)]), UNIFORM), ValueError,
             "reference"),
    BadInput("metrics: KL with negative counts",
             lambda: discrete_kl(np.vstack([np.ones(11), -np.ones(11)]), UNIFORM), ValueError,
             "reference"),
    BadInput("metrics: KL with a 1-D histogram", lambda: discrete_kl(np.ones(11), UNIFORM),
             ValueError, "reference"),
    BadInput("metrics: KL with NaN log-probabilities",
             lambda: discrete_kl(np.ones((2, 11)), np.where(UNIFORM > 0, 0, np.nan)), ValueError,
             "log_probabilities"),
    BadInput("metrics: KL with probabilities instead of their logs",
             lambda: discrete_kl(np.ones((2, 11)), np.exp(UNIFORM)), ValueError,
             "log_probabilities"),
    BadInput("metrics: PCC of constant predictions",
             lambda: rounded_pcc_mse([5.1, 4.9, 5.2], [3.0, 5.0, 7.0]), ValueError,
             "predictions"),
    BadInput("metrics: PCC of a constant reference",
             lambda: rounded_pcc_mse([3.0, 5.0, 7.0], [6.0, 6.2, 5.8]), ValueError, "reference"),
    BadInput("metrics: PCC of one item", lambda: rounded_pcc_mse([3.0], [3.0]), ValueError,
             "predictions"),
    BadInput("metrics: PCC of unequal lengths", lambda: rounded_pcc_mse([3.0, 4.0], [3.0]),
             ValueError, "predictions"),
    BadInput("metrics: RMSE of unequal lengths", lambda: rmse([1.0, 2.0, 3.0], [1.0, 2.0]),
             ValueError, "predictions"),
    BadInput("metrics: RMSE with a NaN reference", lambda: rmse([1.0, 2.0], [1.0, np.nan]),
             ValueError, "reference"),
    BadInput("metrics: RMSE of a difference beyond float64",
             lambda: rmse([1e308, 0.0], [-1e308, 0.0]), ValueError, "predictions"),
    BadInput("metrics: rounding None", lambda: round_scores(None), TypeError, "values"),
    # ----- sizes and kernels that are not kernels -----------------------------------------------
    BadInput("raters: the multi-rater GP on 20000 items",
             lambda: MultiRaterGP(SquaredExponential(1.5, 1.0), 0.5).fit(np.zeros((20000, 1)),
                                                                        MANY),
             ValueError, "X", first=True),
    BadInput("raters: a kernel whose matrix is negative definite",
             lambda: MultiRaterGP(NegatedSE(1.0), 0.5).fit(np.linspace(0.0, 2.0, 5)[:4, None],
                                                          RATINGS),
             NotPositiveDefiniteError, "kernel", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


def test_a_failed_call_leaves_the_model_as_it_was():
    gp = fitted("joint", zero_spread())
    theta = gp.theta.copy()
    with pytest.raises(ValueError):
        gp.optimise_hyperparameters(1, rng=0)
    np.testing.assert_array_equal(gp.theta, theta)
    assert gp.log_evidence() == fitted("joint", zero_spread()).log_evidence()
