"""The panel's GP (course_lib.pronunciation.panel_gp): its families at given hyper-parameters, what a fitted
one predicts of the experts (the noise of their mean, each expert's score), the intervals'
split-conformal calibration and the arguments each names. The panel scoring a recording with
the committed choice is tested in test_panel.py."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from bad_input import BadInput, check_case
from course_lib.pronunciation.panel_gp import calibrated_half_width, panel_model, panel_predictive
from course_lib.rater_data import RaterData
from course_lib.results import load_result


def _fitted_joint():
    X = np.linspace(0, 1, 6)[:, None]
    scores = np.arange(30, dtype=float).reshape(6, 5) % 3
    gp = panel_model("GP_joint", 0.5, 1.0, 0.5, 5)
    return gp.fit(X, RaterData.from_matrix(scores)), X


CASES = [
    BadInput("panel: an unknown model", lambda: panel_model("GP_repeat", 1.0, 1.0, 1.0, 5),
             ValueError, "name", first=True),
    BadInput("panel: GPR-MA with one noise for five experts",
             lambda: panel_model("GPR_MA", 1.0, 1.0, [1.0, 2.0], 5), ValueError,
             "noise_variance", first=True),
    BadInput("panel: a shared noise that is not positive",
             lambda: panel_model("GP_joint", 1.0, 1.0, -1.0, 5), ValueError, "noise_variance"),
    BadInput("panel: predictive of something that is not a panel model",
             lambda: panel_predictive("a GP", np.zeros((2, 1)), 0.0), TypeError, "gp",
             first=True),
    BadInput("panel: predictive of an unfitted model",
             lambda: panel_predictive(panel_model("GP_base", 1.0, 1.0, 1.0, 5),
                                      np.zeros((2, 1)), 0.0), ValueError, "gp", first=True),
    BadInput("panel: an interval of level 90 (a percentage)",
             lambda: panel_predictive(*_fitted_joint(), 0.0).interval(90), ValueError,
             "level", first=True),
    BadInput("panel: an interval of a negative width",
             lambda: panel_predictive(*_fitted_joint(), 0.0).interval(0.9, -1.0), ValueError,
             "half_width_sd", first=True),
    BadInput("panel: a 90% interval calibrated on five sentences",
             lambda: calibrated_half_width(np.zeros(5), np.zeros(5), np.ones(5), 0.9),
             ValueError, "truth", first=True),
]


def test_the_calibrated_half_width_is_the_conformal_order_statistic():
    # |errors| / sd of 1..99: the 90% interval must hold ceil(100 * 0.9) = 90 of them
    errors = np.arange(1.0, 100.0)
    assert calibrated_half_width(errors, 0.0, 4.0, 0.9) == 45.0   # the 90th, in sd of 2
    # Gaussian errors: the Gaussian's own quantile, within the order statistic's sampling
    # error (sd of the 0.9 quantile of |z| over 20,000 draws: about 0.015)
    rng = np.random.default_rng(0)
    z = rng.standard_normal(20000)
    assert abs(calibrated_half_width(z, 0.0, 1.0, 0.9) - norm.ppf(0.95)) < 0.05
    # and the panel draws the committed half-widths
    committed = load_result("pronunciation_panel")["result"]["panel"]["interval_half_width_sd"]
    assert set(committed) == {"0.5", "0.9"} and committed["0.5"] < committed["0.9"]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_bad_input_is_named(case):
    check_case(case)


def test_a_small_panel_gives_the_average_noise_of_its_experts():
    gp, X = _fitted_joint()
    predictive = panel_predictive(gp, X, 7.0)
    # GP_joint: one expert's noise s, the mean of five experts' noise s / 5
    np.testing.assert_allclose(predictive.mean_variance - predictive.latent_variance, 0.5 / 5)
    assert predictive.log_expert.shape == (6, 5, 11)
    np.testing.assert_allclose(predictive.log_expert[:, 0], predictive.log_one_expert)
