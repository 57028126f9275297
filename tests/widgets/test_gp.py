"""Unit 4 explorers and plots: every control at its extremes, and the figures they draw."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.gp.kernels import SquaredExponential  # noqa: E402
from course_lib.gp.evidence_surface import log_evidence_surface  # noqa: E402
from course_lib.gp.regression import GPRegression  # noqa: E402
from course_lib.plotting.gp import (plot_gp_posterior, plot_inducing_inputs,  # noqa: E402
                                    plot_kernel_function, plot_evidence_surface,
                                    plot_evidence_terms, plot_optimiser_runs, plot_samples,
                                    plot_timings)
from course_lib.gp.toy_data import ambiguous_regression_data, toy_regression_data  # noqa: E402
from course_lib.widgets.gp import (conditioning_explorer, kernel_explorer,  # noqa: E402
                                   evidence_surface_explorer)


def ambiguous_surface_explorer():
    """As in lecture 4, section 6: the ambiguous data on the static figure's grid and depth."""
    return evidence_surface_explorer(*ambiguous_regression_data(),
                                     lengthscale_range=(0.1, 31.6), noise_range=(1e-3, 3.16),
                                     depth=12, levels=13)


@pytest.mark.parametrize("build", [kernel_explorer, conditioning_explorer,
                                   evidence_surface_explorer, ambiguous_surface_explorer])
def test_explorer_survives_every_control(build):
    explorer = build()
    checked = exercise_explorer(explorer)
    assert checked >= 1 + 2 * len(explorer.controls)


def test_kernel_explorer_samples_move_with_the_lengthscale():
    explorer = kernel_explorer()
    short = explorer.render(family="squared exponential", lengthscale=0.1, variance=1.0)
    long = explorer.render(family="squared exponential", lengthscale=10.0, variance=1.0)
    # prior samples: rough for a short lengthscale, nearly flat for a long one
    rough = np.abs(np.diff(short.axes[1].lines[0].get_ydata())).mean()
    smooth = np.abs(np.diff(long.axes[1].lines[0].get_ydata())).mean()
    assert rough > 10 * smooth
    plt.close("all")


def test_conditioning_explorer_title_reports_the_evidence():
    X, y = toy_regression_data()
    fig = conditioning_explorer(X, y).render(noise_variance=0.04, lengthscale=1.0, variance=1.0,
                                             n_points=5)
    expected = GPRegression(SquaredExponential(1.0, 1.0), 0.04).fit(X[:5], y[:5])
    assert f"{expected.log_evidence():.1f}" in fig.axes[0].get_title()
    plt.close(fig)


def test_evidence_explorer_colours_resolve_the_requested_depth_on_its_grid():
    explorer = ambiguous_surface_explorer()
    slider = explorer.controls["lengthscale"]
    assert (10 ** slider.min, 10 ** slider.max) == pytest.approx((0.1, 31.6))
    fig = explorer.render(lengthscale=1.0, noise_variance=0.04, variance=1.0)
    contour = fig.axes[0].collections[0]
    assert contour.zmax - contour.zmin == pytest.approx(12.0)      # top 12 nats, not ~105
    # the star is the best point of the same grid, evaluated by course_lib
    X, y = ambiguous_regression_data()
    gp = GPRegression(SquaredExponential(1.0, 1.0), 0.04).fit(X, y)
    surface = log_evidence_surface(gp, "lengthscale", np.geomspace(0.1, 31.6, 40),
                                   "noise_variance", np.geomspace(1e-3, 3.16, 40))
    star = [line for line in fig.axes[0].lines if line.get_marker() == "*"][0]
    assert (star.get_xdata()[0], star.get_ydata()[0]) == pytest.approx(surface.best)
    assert contour.zmax == pytest.approx(surface.values.max())
    plt.close(fig)


def test_explorers_take_one_dimensional_inputs_as_a_vector_or_a_column():
    X, y = toy_regression_data(8)
    for build in (conditioning_explorer, evidence_surface_explorer):
        as_column = build(X, y).render(**build(X, y).values())
        as_vector = build(X[:, 0], y).render(**build(X, y).values())
        for a, b in zip(as_column.axes[0].lines, as_vector.axes[0].lines):
            np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
        plt.close("all")


def test_kernel_explorer_draws_depend_on_rng_only():
    values = dict(family="Matern 3/2", lengthscale=1.0, variance=1.0)
    draws = [kernel_explorer(rng=seed).render(**values).axes[1].lines[0].get_ydata()
             for seed in (3, 3, 4)]
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0], draws[2])
    plt.close("all")


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


def _fixed_variance_gp(X, y):
    kernel = SquaredExponential(1.0, 1.0, variance_bounds="fixed", lengthscale_bounds=(0.1, 30))
    return GPRegression(kernel, 0.01, noise_bounds=(1e-3, 3.0)).fit(X, y)


def test_ambiguous_data_has_a_short_and_a_long_explanation():
    X, y = ambiguous_regression_data()
    assert X.shape == (12, 1) and y.shape == (12,)
    gp = _fixed_variance_gp(X, y)
    fit = gp.optimise_hyperparameters(n_restarts=11, rng=1)
    ends = np.exp(fit.ends)                       # columns: variance, lengthscale, noise
    short, long = ends[ends[:, 1] < 2.0], ends[ends[:, 1] > 4.0]
    assert len(short) and len(long), "restarts should reach both local optima"
    assert long[:, 1].min() > 4 * short[:, 1].max()       # lengthscales far apart
    assert long[:, 2].min() > 4 * short[:, 2].max()       # and so are the noise levels
    # both are stationary points of the log evidence (free parameters only)
    for end in (short[0], long[0]):
        grad = gp.evidence(np.log(end), eval_gradient=True).gradient
        np.testing.assert_allclose(grad[1:], 0.0, atol=1e-3)
    values = fit.objectives
    assert 0 < values.max() - values[ends[:, 1] > 4.0].max() < 2.0  # comparable evidence


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
