"""Bad-input catalogue: several raters per item (Unit 5) and the score metrics.

Families: "raters" (course_lib.gp.multi_rater: the container, the joint evidence, the model, the
simulator) and "metrics" (course_lib.metrics: RMSE, rounded PCC/MSE, the discretised predictive,
the discrete KL). Data sets the issue names as awkward but valid (one label per rater, missing
labels, raters with no overlap) are accepted and tested in tests/gp/test_multi_rater.py; here are
the ones that must be refused.
"""

import numpy as np
import pytest

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.raters import MultiRaterGP, RaterData, joint_log_likelihood
from course_lib.metrics import (discrete_kl, discretised_log_predictive, rmse, round_scores,
                                rounded_pcc_mse)
from course_lib.simulators.rater_scores import simulate_integer_scores

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


CASES = [
    # ----- the container -------------------------------------------------------------------
    BadInput("raters: score above the scale",
             lambda: RaterData.from_matrix([[3, 11], [2, 4]], scale=(0, 10)), ValueError,
             "scores"),
    BadInput("raters: negative score on a 0-10 scale",
             lambda: RaterData.from_long([0, 1], [0, 0], [3, -1], scale=(0, 10)), ValueError,
             "scores"),
    BadInput("raters: fractional score on a scale",
             lambda: RaterData.from_long([0, 0], [0, 1], [3, 4.5], scale=(0, 10)), ValueError,
             "scores"),
    BadInput("raters: an (item, rater) pair given twice",
             lambda: RaterData.from_long([0, 0, 1], [1, 1, 0], [1, 2, 3]), ValueError, "raters"),
    BadInput("raters: an item between others without labels",
             lambda: RaterData.from_long([0, 0, 2], [0, 1, 0], [1, 2, 3], n_items=3),
             ValueError, "items"),
    BadInput("raters: an item index beyond the number of labels",
             lambda: RaterData.from_long([0, 5], [0, 0], [1, 2]), ValueError, "items"),
    BadInput("raters: more items declared than labels",
             lambda: RaterData.from_long([0], [0], [1.0], n_items=5), ValueError, "n_items"),
    BadInput("raters: n_items zero", lambda: RaterData.from_long([0], [0], [1.0], n_items=0),
             ValueError, "n_items"),
    BadInput("raters: n_raters not an integer",
             lambda: RaterData.from_long([0], [0], [1.0], n_raters=2.5), TypeError, "n_raters"),
    BadInput("raters: rater index beyond n_raters",
             lambda: RaterData.from_long([0, 1], [0, 3], [1, 2], n_raters=2), ValueError,
             "raters"),
    BadInput("raters: a rater id (not an index) of 10^12",
             lambda: RaterData.from_long([0, 1], [0, 10 ** 12], [1, 2]), ValueError, "raters"),
    BadInput("raters: NaN in items", lambda: RaterData.from_long([0, np.nan], [0, 1], [1, 2]),
             ValueError, "items"),
    BadInput("raters: items None", lambda: RaterData.from_long(None, [0], [1]), TypeError,
             "items"),
    BadInput("raters: negative item index",
             lambda: RaterData.from_long([0, -1], [0, 1], [1, 2]), ValueError, "items"),
    BadInput("raters: fractional rater index",
             lambda: RaterData.from_long([0, 0], [0, 0.5], [1, 2]), ValueError, "raters"),
    BadInput("raters: item index 1e300",
             lambda: RaterData.from_long([0, 1e300], [0, 0], [1, 2]), ValueError, "items"),
    BadInput("raters: fewer scores than labels",
             lambda: RaterData.from_long([0, 0, 1], [0, 1, 0], [1, 2]), ValueError, "scores"),
    BadInput("raters: NaN score in long format",
             lambda: RaterData.from_long([0, 1], [0, 0], [1, np.nan]), ValueError, "scores"),
    BadInput("raters: scores as text",
             lambda: RaterData.from_long([0, 1], [0, 0], ["good", "bad"]), TypeError, "scores"),
    BadInput("raters: ragged table", lambda: RaterData.from_matrix([[1, 2], [3]]), TypeError,
             "Y"),
    BadInput("raters: table of None", lambda: RaterData.from_matrix(None), TypeError, "Y"),
    BadInput("raters: complex table", lambda: RaterData.from_matrix([[1 + 1j, 2]]), TypeError,
             "Y"),
    BadInput("raters: table with inf", lambda: RaterData.from_matrix([[1, np.inf]]), ValueError,
             "Y"),
    BadInput("raters: one-dimensional table", lambda: RaterData.from_matrix([1, 2, 3]),
             ValueError, "Y"),
    BadInput("raters: a table row with no score",
             lambda: RaterData.from_matrix([[1, 2], [np.nan, np.nan]]), ValueError, "Y"),
    BadInput("raters: a table without any score",
             lambda: RaterData.from_matrix(np.full((2, 3), np.nan)), ValueError, "Y"),
    BadInput("raters: reversed scale", lambda: RaterData.from_matrix(TABLE, scale=(10, 0)),
             ValueError, "scale"),
    BadInput("raters: scale with a half score",
             lambda: RaterData.from_matrix(TABLE, scale=(0, 10.5)), TypeError, "scale"),
    BadInput("raters: scale as text", lambda: RaterData.from_matrix(TABLE, scale="0-10"),
             TypeError, "scale"),
    BadInput("raters: histograms without a scale",
             lambda: RaterData.from_matrix(TABLE).histograms(), ValueError, "scale"),
    BadInput("raters: subset with a repeated item", lambda: DATA.subset([1, 1]), ValueError,
             "items"),
    BadInput("raters: subset beyond the items", lambda: DATA.subset([0, 3]), ValueError,
             "items"),
    BadInput("raters: negative noise per label", lambda: DATA.weighted([1, 1, -1, 1, 1, 1]),
             ValueError, "noise_per_label"),
    BadInput("raters: zero noise per label", lambda: DATA.weighted([1, 1, 0, 1, 1, 1]),
             ValueError, "noise_per_label"),
    BadInput("raters: one noise per rater instead of per label", lambda: DATA.weighted([1, 1, 1]),
             ValueError, "noise_per_label"),
    # ----- the joint evidence ----------------------------------------------------------------
    BadInput("raters: K of the wrong shape", lambda: joint_log_likelihood(np.eye(4), DATA, 0.5),
             ValueError, "K"),
    BadInput("raters: K not symmetric",
             lambda: joint_log_likelihood(K + np.triu(np.ones((3, 3)), 1), DATA, 0.5),
             ValueError, "K"),
    BadInput("raters: K with NaN",
             lambda: joint_log_likelihood(np.where(np.eye(3) > 0, np.nan, K), DATA, 0.5),
             ValueError, "K"),
    BadInput("raters: dK of the wrong shape",
             lambda: joint_log_likelihood(K, DATA, 0.5, np.zeros((2, 4, 4))), ValueError, "dK"),
    BadInput("raters: dK as text", lambda: joint_log_likelihood(K, DATA, 0.5, "gradient"),
             TypeError, "dK"),
    BadInput("raters: dK with NaN",
             lambda: joint_log_likelihood(K, DATA, 0.5, np.full((1, 3, 3), np.nan)), ValueError,
             "dK"),
    BadInput("raters: negative noise variance", lambda: joint_log_likelihood(K, DATA, -0.5),
             ValueError, "noise_variance"),
    BadInput("raters: zero noise variance", lambda: joint_log_likelihood(K, DATA, 0.0),
             ValueError, "noise_variance"),
    BadInput("raters: scores table instead of RaterData",
             lambda: joint_log_likelihood(K, TABLE, 0.5), TypeError, "data"),
    BadInput("raters: include_spread_term as text",
             lambda: joint_log_likelihood(K, DATA, 0.5, include_spread_term="yes"), TypeError,
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
             lambda: fitted("repeated").marginal_likelihood(include_spread_term=False),
             ValueError, "include_spread_term"),
    BadInput("raters: theta of the wrong length",
             lambda: fitted().log_marginal_likelihood([0.0, 0.0]), ValueError, "theta"),
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
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


def test_scores_outside_the_scale_are_named_by_row():
    with pytest.raises(ValueError) as info:
        RaterData.from_long([0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [3, 11, 4, -2, 5], scale=(0, 10))
    assert "rows 1, 3" in str(info.value) and "0..10" in str(info.value), str(info.value)
    with pytest.raises(ValueError) as info:
        RaterData.from_long(np.repeat(np.arange(8), 2), np.tile([0, 1], 8), np.full(16, 12),
                            scale=(0, 10))
    assert "rows 0, 1, 2, 3, 4 and 11 more" in str(info.value), str(info.value)


def test_a_repeated_pair_and_an_unlabelled_item_are_named():
    with pytest.raises(ValueError, match="pair given again at row 2;"):
        RaterData.from_long([0, 1, 0], [1, 0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="no label for items 1, 3;"):
        RaterData.from_long([0, 2, 4, 4, 4], [0, 0, 0, 1, 2], [1, 2, 3, 4, 5], n_items=5)


def test_a_failed_call_leaves_the_model_as_it_was():
    gp = fitted("joint", zero_spread())
    theta = gp.theta.copy()
    with pytest.raises(ValueError):
        gp.optimise_hyperparameters(1, rng=0)
    np.testing.assert_array_equal(gp.theta, theta)
    assert gp.log_marginal_likelihood() == fitted("joint", zero_spread()).log_marginal_likelihood()
