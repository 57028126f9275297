"""Tests of course_lib.plotting.gmm, Unit 2's figures: contours at the requested Mahalanobis
distance, responsibilities as mixed colours, traces, densities and model-selection curves
drawing the numbers they are given."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.gmm.clustering import assign_clusters  # noqa: E402
from course_lib.gmm.mixture import GMMParams  # noqa: E402
from course_lib.plotting.gmm import (component_colours, plot_bic,  # noqa: E402
                                     plot_distortion_trace, plot_gaussian_1d,
                                     plot_gaussian_contours, plot_gaussian_fit,
                                     plot_gmm_density_1d, plot_kmeans_state,
                                     plot_log_likelihood_trace, plot_loglik_trace,
                                     plot_model_selection, plot_responsibilities)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_contours_lie_at_the_requested_mahalanobis_distance():
    mean, cov = np.array([1.0, -1.0]), np.array([[2.0, 0.8], [0.8, 1.0]])
    fig, ax = plt.subplots()
    plot_gaussian_contours(ax, mean, cov, levels=(1.0, 2.5))
    for line, r in zip(ax.lines, (1.0, 2.5)):
        d = line.get_xydata() - mean
        maha = np.einsum("ni,ij,nj->n", d, np.linalg.inv(cov), d)
        np.testing.assert_allclose(maha, r ** 2, rtol=1e-10)
    with pytest.raises(ValueError, match="cov"):
        plot_gaussian_contours(ax, mean, np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_responsibility_colours_mix_component_colours():
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    resp = np.array([[1.0, 0.0], [0.5, 0.5]])
    params = GMMParams(np.array([0.5, 0.5]), X.copy(), np.ones((2, 2)), "diag")
    fig, ax = plt.subplots()
    plot_responsibilities(ax, X, resp, params)
    colours = ax.collections[0].get_facecolors()[:, :3]
    palette = component_colours(2)
    np.testing.assert_allclose(colours[0], palette[0])
    np.testing.assert_allclose(colours[1], palette.mean(0))
    assert len(ax.lines) == 2 * 2 + 2          # two contours and a mean marker per component


def test_other_plots_draw_their_data():
    fig, axes = plt.subplots(1, 5)
    plot_log_likelihood_trace(axes[0], [-10.0, -8.0, -7.5], n_items=2, item="point",
                              reference=-7.0)
    np.testing.assert_allclose(axes[0].lines[0].get_ydata(), [-5.0, -4.0, -3.75])
    np.testing.assert_allclose(axes[0].lines[1].get_ydata(), [-3.5, -3.5])  # on the same scale
    assert axes[0].get_ylabel() == "log-likelihood per point"
    assert axes[0].get_xlabel() == "EM iteration t"
    plot_gaussian_1d(axes[1], 0.0, 1.0, np.zeros(5))
    peak = axes[1].lines[0].get_ydata().max()
    assert peak == pytest.approx(1 / np.sqrt(2 * np.pi), rel=1e-3)
    params = GMMParams(np.array([0.5, 0.5]), np.array([[-1.0], [1.0]]),
                       np.array([[[0.25]], [[0.25]]]))
    plot_gmm_density_1d(axes[2], params, (-3.0, 3.0), samples=np.zeros(3))
    total = axes[2].lines[-1].get_ydata()
    parts = axes[2].lines[0].get_ydata() + axes[2].lines[1].get_ydata()
    np.testing.assert_allclose(total, parts, rtol=1e-12)
    plot_model_selection(axes[3], [1, 2, 4], [-3.0, -2.0, -1.5], [-3.1, -2.2, -2.4],
                         best_index=1, item="point")
    assert axes[3].lines[-1].get_xdata()[0] == 2
    assert axes[3].get_ylabel() == "log-likelihood per point"
    plot_bic(axes[4], [1, 2, 4], [30.0, 10.0, 12.0], best_index=1)
    np.testing.assert_allclose(axes[4].lines[0].get_ydata(), [30.0, 10.0, 12.0])
    assert axes[4].lines[-1].get_xdata()[0] == 2


def test_gaussian_fit_plot_draws_true_and_fitted_contours():
    samples = np.random.default_rng(0).normal(size=(50, 2))
    fig, ax = plt.subplots()
    plot_gaussian_fit(ax, samples, np.zeros(2), np.eye(2), np.ones(2), 4.0 * np.eye(2))
    assert len(ax.lines) == 3 + 2                     # 3 true and 2 fitted contours
    radius = np.linalg.norm(ax.lines[3].get_xydata() - 1.0, axis=1)
    np.testing.assert_allclose(radius, 2.0, rtol=1e-10)  # 1 sigma of the fit: radius 2


def test_kmeans_state_plot_colours_points_and_regions_by_nearest_centroid():
    X = np.array([[0.0, 0.0], [0.2, 0.1], [4.0, 4.0], [4.1, 3.9]])
    centroids = np.array([[0.1, 0.0], [4.0, 4.0]])
    labels, _ = assign_clusters(X, centroids)
    fig, ax = plt.subplots()
    plot_kmeans_state(ax, X, centroids, labels, previous=centroids + 1.0,
                      limits=((-1.0, 5.0), (-1.0, 5.0)))
    palette = component_colours(2)
    points = ax.collections[0].get_facecolors()[:, :3]
    np.testing.assert_allclose(points, palette[labels])
    image = ax.images[0].get_array()                  # (200, 200, 3), origin lower left
    np.testing.assert_allclose(image[0, 0], 0.25 * palette[0] + 0.75)
    np.testing.assert_allclose(image[-1, -1], 0.25 * palette[1] + 0.75)
    assert len(ax.texts) == 2                         # one arrow per moved centroid
    plot_distortion_trace(ax, [8.0, 4.0, 3.0], n_items=4)
    np.testing.assert_allclose(ax.lines[-1].get_ydata(), [2.0, 1.0, 0.75])


def test_the_old_name_of_the_trace_warns_and_draws_the_same():
    """plot_loglik_trace, kept one release for the lecture-02 exercises students hold."""
    fig, (old, new) = plt.subplots(1, 2)
    with pytest.warns(DeprecationWarning, match="plot_log_likelihood_trace"):
        plot_loglik_trace(old, [-10.0, -8.0], n_items=2, item="point")
    plot_log_likelihood_trace(new, [-10.0, -8.0], n_items=2, item="point")
    np.testing.assert_array_equal(old.lines[0].get_ydata(), new.lines[0].get_ydata())
    assert old.get_ylabel() == new.get_ylabel()
    plt.close(fig)
