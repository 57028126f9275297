"""Unit 4 explorers: every control at its extremes, and what they show (the figures' own
tests are in tests/plotting/test_gp.py)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.gp.kernels import SquaredExponential, make_kernel  # noqa: E402
from course_lib.gp.evidence_surface import log_evidence_surface  # noqa: E402
from course_lib.gp.regression import GPRegression  # noqa: E402
from course_lib.gp.toy_data import ambiguous_regression_data, toy_regression_data  # noqa: E402
from course_lib.linalg import sample_gaussian  # noqa: E402
from course_lib.widgets.gp import (conditioning_explorer, kernel_explorer,  # noqa: E402
                                   evidence_surface_explorer)
from tests.plotting.test_gp import _fixed_variance_gp  # noqa: E402


def ambiguous_surface_explorer():
    """As in lecture 4, section 6: the ambiguous data on the static figure's grid and depth."""
    return evidence_surface_explorer(*ambiguous_regression_data(),
                                     lengthscale_range=(0.1, 31.6), noise_range=(1e-3, 3.16),
                                     depth=12, levels=13)


@pytest.mark.parametrize("build", [kernel_explorer, conditioning_explorer,
                                   evidence_surface_explorer, ambiguous_surface_explorer])
def test_explorer_survives_every_control(build):
    explorer = build()
    # the kernel and conditioning explorers lost constrained layout, which drew each figure
    # twice (issue 71): at every setting the harness reaches, no label cut off, no overlap
    checked = exercise_explorer(explorer, check_layout=build in (kernel_explorer,
                                                                 conditioning_explorer))
    assert checked >= 1 + 2 * len(explorer.controls)


def test_kernel_and_conditioning_explorers_draw_the_librarys_numbers():
    """Their figures lost constrained layout (issue 71); what they draw is still the kernel,
    the same seeded prior samples and the posterior the library computes for the setting."""
    explorer = kernel_explorer()
    fig = explorer.render(family="Matern 3/2", lengthscale=0.5, variance=2.0)
    x = np.linspace(-5.0, 5.0, 150)
    kernel = make_kernel("Matern 3/2", 0.5, 2.0)
    np.testing.assert_array_equal(fig.axes[0].lines[0].get_ydata(),
                                  kernel(np.zeros((1, 1)), x[:, None])[0])
    samples = sample_gaussian(np.zeros(x.size), kernel(x[:, None]), 3,
                              rng=int(np.random.default_rng(0).integers(2 ** 63)))
    for line, sample in zip(fig.axes[1].lines, samples):
        np.testing.assert_array_equal(line.get_ydata(), sample)
    X, y = toy_regression_data()
    fig = conditioning_explorer(X, y).render(noise_variance=0.01, lengthscale=0.5, variance=2.0,
                                             n_points=7)
    x_test = np.linspace(X.min() - 1.0, X.max() + 1.0, 120)
    mean, _ = GPRegression(SquaredExponential(0.5, 2.0), 0.01, noise_bounds="fixed").fit(
        X[:7], y[:7]).predict(x_test[:, None])
    drawn = [line for line in fig.axes[0].lines if line.get_label() == "mean"][0]
    # the same K_* alpha whether or not the covariance is asked for: round-off only
    np.testing.assert_allclose(drawn.get_ydata(), mean, rtol=0, atol=1e-10)
    plt.close("all")


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
