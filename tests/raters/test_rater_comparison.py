"""The comparisons of Unit 5 (course_lib.raters.rater_comparison): models fitted to centred scores,
the joint evidence split over one noise variance, the four annotator models of one data set."""

import numpy as np
import pytest

from course_lib.raters.annotator_noise import AnnotatorNoiseGP
from course_lib.raters.regions import assign_regions
from course_lib.gp.kernels import SquaredExponential
from course_lib.raters.multi_rater import MultiRaterGP
from course_lib.raters.rater_comparison import (centre_scores, fit_annotator_models, fit_score_model,
                                                noise_profile, true_noise_table)
from course_lib.rater_data import RaterData
from course_lib.metrics import discretised_log_predictive
from course_lib.simulators.rater_scores import annotator_toy_data, toy_rater_data


def test_fit_score_model_centres_the_scores_and_adds_one_raters_noise():
    panel = toy_rater_data(25, 3, rng=1)
    fitted = fit_score_model(panel.X, panel.data, "joint", noise_variance=0.8, optimise=False)
    assert fitted.offset == pytest.approx(panel.data.means.mean())
    mean, var, noise = fitted.predict_one_rater(panel.X[:5])
    assert noise == pytest.approx(0.8)
    reference = MultiRaterGP(SquaredExponential(0.2, 4.0), 0.8, mode="joint").fit(
        panel.X, RaterData(panel.data.items, panel.data.raters,
                           panel.data.scores - fitted.offset))
    ref_mean, ref_var = reference.predict(panel.X[:5])
    np.testing.assert_allclose(mean, ref_mean + fitted.offset)
    np.testing.assert_allclose(var, ref_var)
    np.testing.assert_allclose(fitted.log_predictive(panel.X[:5]),
                               discretised_log_predictive(mean, var + 0.8))
    with pytest.raises(ValueError, match="mode"):
        fit_score_model(panel.X, panel.data, "median")
    with pytest.raises(TypeError, match="data"):
        fit_score_model(panel.X, panel.data.matrix(), "joint")


def test_centre_scores_subtracts_the_mean_of_the_item_means():
    data = RaterData.from_matrix([[1, 3, np.nan], [6, 8, 10]], scale=(0, 10))
    centred = centre_scores(data)
    assert data.means.mean() == pytest.approx(5.0)      # (2 + 8) / 2, not the mean of all labels
    np.testing.assert_allclose(centred.scores, data.scores - 5.0)
    np.testing.assert_array_equal(centred.items, data.items)
    assert centred.scale is None and centred.n_raters == 3
    with pytest.raises(TypeError, match="data"):
        centre_scores(data.matrix())


def test_noise_profile_splits_the_joint_evidence():
    panel = toy_rater_data(15, 3, rng=2)
    data = RaterData(panel.data.items, panel.data.raters, panel.data.scores - 5.0)
    K = SquaredExponential(0.3, 2.0)(panel.X)
    profile = noise_profile(K, data, [0.5, 1.0, 2.0])
    np.testing.assert_allclose(profile.total, profile.gp_term + profile.spread_term)
    model = MultiRaterGP(SquaredExponential(0.3, 2.0), 1.0, mode="repeated").fit(panel.X, data)
    assert profile.total[1] == pytest.approx(model.log_evidence())
    # the spread term in closed form at sigma^2 = 2
    M, N, S = data.n_labels, data.n_items, data.within_ss
    expected = -0.5 * (M - N) * np.log(2 * np.pi * 2.0) - 0.5 * N * np.log(3) - S / 4.0
    assert profile.spread_term[2] == pytest.approx(expected)


def test_true_noise_table_averages_lambda_over_each_model_region():
    true_labels = np.array([0, 0, 1, 1, 2, 2])
    table = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_allclose(true_noise_table(None, true_labels, table), [[2.0, 3.0]])
    np.testing.assert_allclose(true_noise_table(true_labels, true_labels, table), table)
    merged = np.array([0, 0, 0, 0, 1, 1])
    np.testing.assert_allclose(true_noise_table(merged, true_labels, table),
                               [[1.0, 2.0], [4.0, 5.0]])


def test_fit_annotator_models_matches_the_library_models():
    toy = annotator_toy_data(rng=7)
    models, regions = fit_annotator_models(toy.X, toy.data, toy.gold, 2, 1e-3, n_restarts=1,
                                           rng=0)
    assert regions.n_regions == 2 and np.all(np.diff(regions.centres[:, 0]) > 0)
    manh = models["MANH"]
    assert isinstance(manh, AnnotatorNoiseGP) and manh.noise_table_.shape == (2, 3)
    assert manh.noise_floor == 1e-3 and np.all(manh.noise_table_ >= 1e-3 * (1 - 1e-12))
    # the regions are k-means' partition, renumbered left to right
    direct = assign_regions(toy.X, 2, "kmeans", rng=np.random.default_rng(0), min_size=2)
    pairs = set(zip(direct.labels.tolist(), regions.labels.tolist()))
    assert len(pairs) == 2
    assert models["Av"].y_train == pytest.approx(toy.data.means)
    with pytest.raises(ValueError, match="noise_floor"):
        fit_annotator_models(toy.X, toy.data, toy.gold, noise_floor=0.0)
