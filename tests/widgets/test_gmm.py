"""Unit 2 plots and explorers: plotted geometry, stepping state, consistency after errors."""

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.gmm.em import e_step, em_steps  # noqa: E402
from course_lib.gmm.mixture import GMMParams, demo_mixture, sample_gmm  # noqa: E402
from course_lib.gmm.em import initialise_gmm  # noqa: E402
from course_lib.gmm.clustering import assign_clusters, initialise_centroids, kmeans  # noqa: E402
from course_lib.plotting.gmm import (component_colours, plot_bic,  # noqa: E402
                                     plot_distortion_trace, plot_gaussian_1d,
                                     plot_gaussian_contours, plot_gaussian_fit,
                                     plot_gmm_density_1d, plot_kmeans_state,
                                     plot_log_likelihood_trace, plot_loglik_trace,
                                     plot_model_selection, plot_responsibilities)
from course_lib.widgets.gmm import (_EMStepper, _KMeansStepper, em_explorer,  # noqa: E402
                                    gaussian_explorer, kmeans_explorer)
from numerics import assert_non_increasing  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def demo_points(n=300, seed=0):
    return sample_gmm(demo_mixture(), n, rng=seed)[0]


def few_distinct_points():
    """20 points on 4 distinct positions: K = 5 or more cannot be initialised."""
    return np.repeat(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0]]), 5, axis=0)


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


def test_em_stepper_drives_the_library_loop():
    X = demo_points(200, seed=1)
    stepper = _EMStepper(X)
    stepper.reset(3, rng=2)
    for _ in range(5):
        stepper.step()
    assert len(stepper.trace) == 6
    start = initialise_gmm(X, 3, init="random", rng=2)
    expected = list(itertools.islice(em_steps(X, start), 6))
    np.testing.assert_allclose(stepper.trace, [s.log_likelihood for s in expected], rtol=1e-12)
    np.testing.assert_allclose(stepper.params.means, expected[-1].params.means, rtol=1e-12)
    np.testing.assert_allclose(stepper.state.responsibilities, e_step(X, stepper.params)[0])


def test_kmeans_stepper_drives_the_library_loop():
    X = demo_points(200, seed=1)
    stepper = _KMeansStepper(X)
    stepper.reset(4, init="k-means++", rng=3)
    for _ in range(30):
        stepper.step()
    assert_non_increasing(stepper.distortions, what="the stepper's distortion")
    start = initialise_centroids(X, 4, init="k-means++", rng=3)
    converged = kmeans(X, 4, init=start, max_iter=100, tol=0.0)
    np.testing.assert_allclose(stepper.state.centroids, converged.centroids, rtol=1e-12)
    assert stepper.state.distortion == pytest.approx(converged.inertia, rel=1e-12)


def test_gaussian_explorer_harness():
    explorer = gaussian_explorer()
    assert exercise_explorer(explorer) > 10


def test_kmeans_explorer_harness_and_buttons():
    explorer = kmeans_explorer()
    assert exercise_explorer(explorer) > 10
    stepper = explorer.stepper
    explorer.press("Reset")
    assert len(stepper.states) == 1
    for _ in range(3):
        explorer.press("Step")
    assert explorer.last_error is None and len(stepper.states) == 4
    assert_non_increasing(stepper.distortions, what="the explorer's distortion")
    with pytest.raises(ValueError, match="X"):
        kmeans_explorer(np.zeros((10, 3)))


def test_em_explorer_harness_buttons_and_state():
    explorer = em_explorer()
    assert exercise_explorer(explorer) > 10
    stepper = explorer.stepper
    explorer.press("Reset")
    assert len(stepper.trace) == 1
    explorer.press("Step")
    explorer.press("Step")
    assert explorer.last_error is None and len(stepper.trace) == 3
    seed = explorer.controls["init_seed"].value
    explorer.press("New init")
    assert explorer.controls["init_seed"].value == (seed + 1) % 21
    assert len(stepper.trace) == 1              # a new start
    explorer.controls["n_components"].value = 6
    explorer.controls["variance_floor"].value = 0.0
    for _ in range(8):                           # many steps at K=6: never a NaN
        explorer.press("Step")
    assert np.all(np.isfinite(stepper.trace)) and explorer.last_error is None
    with pytest.raises(ValueError, match="X"):
        em_explorer(np.zeros((10, 3)))


@pytest.mark.parametrize("make, control", [(em_explorer, "n_components"),
                                           (kmeans_explorer, "n_clusters")])
def test_explorers_refuse_bad_settings_and_keep_a_consistent_state(make, control):
    # 4 distinct points: K = 5 cannot be initialised. Set it, redraw twice and press Step: each
    # must show the error (not the old model under the new K), then a valid K must draw again.
    explorer = make(few_distinct_points())
    explorer.refresh()
    shown_before = explorer.stepper.state
    explorer.controls[control].value = 5
    for _ in range(2):
        explorer.refresh()
        assert isinstance(explorer.last_error, ValueError)
        assert "n_c" in str(explorer.last_error)     # names n_components / n_clusters
    explorer.press("Step")
    assert isinstance(explorer.last_error, ValueError)
    # nothing was stepped or replaced behind the error: the stored model is still the K = 3 one
    assert explorer.stepper.state is shown_before
    assert explorer.stepper.settings[0] == 3
    explorer.controls[control].value = 4
    explorer.refresh()
    assert explorer.last_error is None
    assert len(explorer.stepper.state.params.means if control == "n_components"
               else explorer.stepper.state.centroids) == 4   # the displayed model has K = 4


def test_the_old_name_of_the_trace_warns_and_draws_the_same():
    """plot_loglik_trace, kept one release for the lecture-02 exercises students hold."""
    fig, (old, new) = plt.subplots(1, 2)
    with pytest.warns(DeprecationWarning, match="plot_log_likelihood_trace"):
        plot_loglik_trace(old, [-10.0, -8.0], n_items=2, item="point")
    plot_log_likelihood_trace(new, [-10.0, -8.0], n_items=2, item="point")
    np.testing.assert_array_equal(old.lines[0].get_ydata(), new.lines[0].get_ydata())
    assert old.get_ylabel() == new.get_ylabel()
    plt.close(fig)
