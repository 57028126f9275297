"""Tests of course_lib.plotting.gp, Unit 4's figures: kernels, draws and posterior bands, the
evidence surface and its decomposition, optimiser runs, inducing inputs and timings, each
drawing the numbers the library computes."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.gp.evidence_surface import log_evidence_surface  # noqa: E402
from course_lib.gp.kernels import SquaredExponential  # noqa: E402
from course_lib.gp.regression import GPRegression  # noqa: E402
from course_lib.gp.toy_data import ambiguous_regression_data, toy_regression_data  # noqa: E402
from course_lib.plotting.gp import (plot_evidence_surface, plot_evidence_terms,  # noqa: E402
                                    plot_gp_posterior, plot_inducing_inputs,
                                    plot_kernel_function, plot_optimiser_runs, plot_samples,
                                    plot_timings)


def _fixed_variance_gp(X, y):
    kernel = SquaredExponential(1.0, 1.0, variance_bounds="fixed", lengthscale_bounds=(0.1, 30))
    return GPRegression(kernel, 0.01, noise_bounds=(1e-3, 3.0)).fit(X, y)


def test_plots_draw_what_they_promise():
    X, y = toy_regression_data(12)
    gp = GPRegression(SquaredExponential(1.0), 0.05).fit(X, y)
    x = np.linspace(-5, 5, 50)
    mean, var = gp.predict(x)
    fig, axes = plt.subplots(1, 4)
    plot_kernel_function(axes[0], gp.kernel, x)
    assert axes[0].lines[0].get_ydata().max() == pytest.approx(1.0, abs=1e-2)
    plot_samples(axes[1], x, gp.sample_prior(x, 4, rng=0))
    assert len(axes[1].lines) == 4
    plot_gp_posterior(axes[2], x, mean, var, X, y, samples=gp.sample_posterior(x, 2, rng=0),
                      noise_variance=0.05)
    assert len(axes[2].collections) == 2  # latent band and noisy band
    np.testing.assert_allclose(axes[2].lines[-1].get_ydata(), y)
    surface = log_evidence_surface(gp, "lengthscale", np.logspace(-1, 1, 6),
                                   "noise_variance", np.logspace(-3, 0, 5))
    plot_evidence_surface(axes[3], surface, current=(1.0, 0.05))
    star = [line for line in axes[3].lines if line.get_marker() == "*"][0]
    assert (star.get_xdata()[0], star.get_ydata()[0]) == surface.best
    plt.close(fig)


def test_plot_evidence_surface_depth_sets_the_floor_of_the_colour_scale():
    X, y = toy_regression_data(12)
    gp = GPRegression(SquaredExponential(1.0), 0.05).fit(X, y)
    surface = log_evidence_surface(gp, "lengthscale", np.logspace(-1, 1.5, 8),
                                   "noise_variance", np.logspace(-3, 0, 6))
    top = surface.values.max()
    assert surface.values.min() < top - 100.0   # the grid spans more than either floor
    fig, axes = plt.subplots(1, 2)
    for ax, depth in ((axes[0], None), (axes[1], 12.0)):
        plot_evidence_surface(ax, surface, **({} if depth is None else {"depth": depth}))
        contour = ax.collections[0]
        expected_floor = top - (100.0 if depth is None else depth)   # default keeps 100 nats
        assert contour.zmin == pytest.approx(expected_floor)
        assert contour.zmax == pytest.approx(top)
    for bad in (0.0, -5.0, np.inf):
        with pytest.raises(ValueError, match="depth"):
            plot_evidence_surface(axes[0], surface, depth=bad)
    with pytest.raises(TypeError, match="depth"):
        plot_evidence_surface(axes[0], surface, depth="12")
    plt.close(fig)


def test_plot_evidence_terms_draws_the_decomposition():
    X, y = toy_regression_data(15)
    gp = GPRegression(SquaredExponential(1.0), 0.05).fit(X, y)
    surface = log_evidence_surface(gp, "lengthscale", np.logspace(-1, 1, 9),
                                   "noise_variance", [0.01, 0.05])
    fig, ax = plt.subplots()
    plot_evidence_terms(ax, surface, row=1)
    fit_line, complexity_line, total_line, best_dot = ax.lines
    constant = -0.5 * len(y) * np.log(2 * np.pi)
    np.testing.assert_allclose(total_line.get_ydata(),
                               fit_line.get_ydata() + complexity_line.get_ydata() + constant)
    # the row is the one at noise 0.05: compare one point with a direct evaluation
    direct = GPRegression(SquaredExponential(surface.x_values[3]), 0.05).fit(X, y)
    assert total_line.get_ydata()[3] == pytest.approx(direct.log_evidence())
    assert best_dot.get_ydata()[0] == pytest.approx(surface.values[1].max())
    with pytest.raises(ValueError, match="row"):
        plot_evidence_terms(ax, surface, row=2)
    plt.close(fig)


def test_plot_optimiser_runs_marks_every_start_and_end():
    X, y = ambiguous_regression_data()
    fit = _fixed_variance_gp(X, y).optimise_hyperparameters(n_restarts=4, rng=0)
    fig, ax = plt.subplots()
    plot_optimiser_runs(ax, fit, "lengthscale", "noise_variance")
    assert len(ax.lines) == 3 * len(fit.ends) + 1           # path, start, end per run + ring
    ring = ax.lines[-1]
    best = np.exp(fit.ends[fit.best])
    assert (ring.get_xdata()[0], ring.get_ydata()[0]) == pytest.approx((best[1], best[2]))
    with pytest.raises(ValueError, match="x_name"):
        plot_optimiser_runs(ax, fit, "period", "noise_variance")
    plt.close(fig)


def test_plot_inducing_inputs_and_timings():
    fig, (ax_z, ax_t) = plt.subplots(1, 2)
    Z = np.array([[-1.0], [0.5], [2.0]])
    plot_inducing_inputs(ax_z, Z)
    np.testing.assert_allclose(ax_z.lines[0].get_xdata(), Z[:, 0])
    sizes, seconds = np.array([100.0, 200.0, 400.0]), np.array([0.01, 0.05, 0.4])
    plot_timings(ax_t, {"exact": (sizes, seconds), "sparse": (sizes, seconds / 10)},
                 slopes={"exact": 3})
    series, guide = ax_t.lines[0], ax_t.lines[1]
    np.testing.assert_allclose(series.get_ydata(), seconds)
    # the guide goes through the largest size with slope 3 on log-log axes
    assert guide.get_ydata()[-1] == pytest.approx(seconds[-1])
    slope = np.diff(np.log(guide.get_ydata())) / np.diff(np.log(sizes))
    np.testing.assert_allclose(slope, 3.0)
    assert len(ax_t.lines) == 3                              # no guide for "sparse"
    with pytest.raises(ValueError, match="seconds"):
        plot_timings(ax_t, {"exact": (sizes, seconds[:2])})
    with pytest.raises(ValueError, match="slopes"):
        plot_timings(ax_t, {"exact": (sizes, seconds)}, slopes={"sparse": 1})
    with pytest.raises(ValueError, match="Z"):
        plot_inducing_inputs(ax_z, [np.nan])
    plt.close(fig)
