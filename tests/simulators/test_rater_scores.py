"""Simulated raters (course_lib.simulators.rater_scores): whole scores with the stated bias, slope
and noise, rounded and clipped; continuous labels with noise by annotator and by region; the two
toy problems of Unit 5."""

import numpy as np
import pytest

from course_lib.simulators.rater_scores import (ANNOTATOR_TOY_LAMBDA, annotator_toy_data,
                                                annotator_toy_gold, simulate_homogeneous,
                                                simulate_integer_scores, simulate_regions,
                                                toy_rater_data, toy_truth)


def test_simulated_scores_have_the_stated_bias_slope_and_noise():
    rng = np.random.default_rng(0)
    truth = rng.uniform(3, 7, 20_000)
    bias, slope, sd = np.array([0.0, 0.5, -1.0]), np.array([1.0, 0.8, 1.2]), \
        np.array([0.3, 0.6, 0.9])
    data = simulate_integer_scores(truth, bias, slope, sd, scale=(0, 10), rng=1)
    assert data.n_items == truth.size and data.n_raters == 3
    np.testing.assert_array_equal(data.counts, 3)  # complete
    assert data.scale == (0, 10)
    assert np.all(data.scores == np.round(data.scores))
    assert data.scores.min() >= 0 and data.scores.max() <= 10
    residual = data.matrix() - (slope * truth[:, None] + bias)
    # rounding adds a nearly uniform error on [-1/2, 1/2]: variance sd^2 + 1/12
    np.testing.assert_allclose(residual.mean(axis=0), 0.0, atol=0.02)
    np.testing.assert_allclose(residual.var(axis=0), sd ** 2 + 1 / 12, rtol=0.05)
    again = simulate_integer_scores(truth, bias, slope, sd, rng=1)
    np.testing.assert_array_equal(again.scores, data.scores)
    other = simulate_integer_scores(truth, bias, slope, sd, rng=2)
    assert not np.array_equal(other.scores, data.scores)


def test_simulated_scores_round_half_up_and_clip_to_the_scale():
    truth = np.array([2.5, 3.5, -4.0, 12.0, 0.49])
    data = simulate_integer_scores(truth, [0.0], [1.0], [0.0], scale=(0, 10), rng=0)
    np.testing.assert_array_equal(data.matrix()[:, 0], [3, 4, 0, 10, 0])


def test_simulated_labels_have_the_stated_noise():
    gold = np.linspace(-1, 1, 4000)
    data = simulate_homogeneous(gold, [0.25, 1.0, 0.0], rng=0)
    assert data.n_labels == 3 * 4000 and data.n_raters == 3 and data.scale is None
    errors = data.matrix() - gold[:, None]
    np.testing.assert_allclose(errors[:, :2].var(axis=0), [0.25, 1.0], rtol=0.1)
    np.testing.assert_array_equal(errors[:, 2], 0.0)


def test_region_simulation_uses_each_items_row():
    gold = np.zeros(3000)
    regions = np.repeat([0, 1, 2], 1000)
    data = simulate_regions(gold, regions, ANNOTATOR_TOY_LAMBDA, rng=1)
    errors = data.matrix()
    for region in range(3):
        rows = errors[regions == region]
        np.testing.assert_allclose(rows.var(axis=0), ANNOTATOR_TOY_LAMBDA[region], rtol=0.15,
                                   atol=1e-12)
        assert np.all(rows[:, region] == 0.0)


def test_equal_rows_give_the_homogeneous_simulation():
    gold = np.linspace(0, 1, 30)
    variances = np.array([0.1, 0.2, 0.3])
    regions = np.arange(30) % 3
    homogeneous = simulate_homogeneous(gold, variances, rng=2)
    by_region = simulate_regions(gold, regions, np.tile(variances, (3, 1)), rng=2)
    np.testing.assert_array_equal(homogeneous.matrix(), by_region.matrix())


def test_toy_rater_data_is_a_complete_panel_with_shared_rater_biases():
    panel = toy_rater_data(30, 4, noise_sd=0.0, bias_sd=1.0, n_test=6, rng=3)
    assert panel.X.shape == (30, 1) and panel.X_test.shape == (6, 1)
    assert panel.data.n_labels == 30 * 4 and panel.test.n_labels == 6 * 4
    assert np.all(np.diff(panel.X[:, 0]) >= 0)
    np.testing.assert_allclose(panel.truth, toy_truth(panel.X[:, 0]))
    # without noise, rater r scores round(truth + b_r): within 1/2 of one offset per rater,
    # the same offset on the training and the test utterances
    scores = np.vstack([panel.data.matrix(), panel.test.matrix()])
    offsets = scores - np.concatenate([panel.truth, panel.truth_test])[:, None]
    offsets[(scores == 0) | (scores == 10)] = np.nan          # clipped scores say less
    spread = np.nanmax(offsets, axis=0) - np.nanmin(offsets, axis=0)
    assert np.all(spread <= 1.0 + 1e-12)
    assert np.ptp(np.nanmean(offsets, axis=0)) > 0.5            # the raters differ
    # same seed, another noise level: the same inputs and biases
    again = toy_rater_data(30, 4, noise_sd=2.0, bias_sd=1.0, n_test=6, rng=3)
    np.testing.assert_array_equal(again.X, panel.X)
    assert toy_rater_data(30, 4, rng=3).test is None
    with pytest.raises(ValueError, match="noise_sd"):
        toy_rater_data(noise_sd=-1.0)
    with pytest.raises(ValueError, match="n_test"):
        toy_rater_data(n_test=-2)


def test_annotator_toy_regions_run_left_to_right_and_carry_lambda():
    toy = annotator_toy_data(rng=4)
    assert toy.X.shape == (60, 1) and toy.X_test.shape == (600, 1)
    np.testing.assert_allclose(toy.gold, annotator_toy_gold(toy.X[:, 0]))
    assert np.all(np.diff(toy.regions.centres[:, 0]) > 0)
    assert np.all(np.diff(toy.regions.labels) >= 0)           # sorted inputs, ordered regions
    # the perfect annotator of each region labels it exactly
    matrix = toy.data.matrix()
    for region in range(3):
        rows = toy.regions.labels == region
        np.testing.assert_allclose(matrix[rows, region], toy.gold[rows])
        assert np.all(matrix[rows, (region + 1) % 3] != toy.gold[rows])
    with pytest.raises(ValueError, match="variance_table"):
        annotator_toy_data([[-1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="n_items"):
        annotator_toy_data(n_items=4)
