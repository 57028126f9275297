"""Unit 2 plots and explorers: plotted geometry, EM stepping state, and the widget harness."""

import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.gmm import GMMParams, e_step  # noqa: E402
from course_lib.plotting.gmm import (component_colours, plot_gaussian_1d,  # noqa: E402
                                     plot_gaussian_contours, plot_gmm_density_1d,
                                     plot_loglik_trace, plot_model_selection,
                                     plot_responsibilities)
from course_lib.widgets.gmm import (EMStepper, covariance_2d, demo_points,  # noqa: E402
                                    em_explorer, gaussian_explorer)
from widget_harness import exercise_explorer  # noqa: E402


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
    fig, axes = plt.subplots(1, 4)
    plot_loglik_trace(axes[0], [-10.0, -8.0, -7.5], per_frame=2)
    np.testing.assert_allclose(axes[0].lines[0].get_ydata(), [-5.0, -4.0, -3.75])
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
                         best_index=1)
    assert axes[3].lines[-1].get_xdata()[0] == 2


def test_em_stepper_extends_trace_and_recolours():
    stepper = EMStepper(demo_points(200, rng=1))
    stepper.reset(3, "full", 0.0, "random", seed=2)
    gamma0 = stepper.gamma.copy()
    for _ in range(5):
        stepper.step()
    assert len(stepper.trace) == 6
    assert np.all(np.diff(stepper.trace) >= -1e-9)
    assert not np.allclose(stepper.gamma, gamma0)
    np.testing.assert_allclose(stepper.gamma, e_step(stepper.X, stepper.params)[0])


def test_covariance_2d_by_hand():
    np.testing.assert_allclose(covariance_2d(2.0, 0.5, -0.5), [[4.0, -0.5], [-0.5, 0.25]])


def test_gaussian_explorer_harness_and_speed():
    explorer = gaussian_explorer()
    assert exercise_explorer(explorer) > 10
    t0 = time.perf_counter()
    plt.close(explorer.render(**explorer.values()))
    assert time.perf_counter() - t0 < 1.0     # generous: < 0.3 s on an idle machine


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
