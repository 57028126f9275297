"""Unit 4 explorers and plots: every control at its extremes, and the figures they draw."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.gp.kernels import SquaredExponential  # noqa: E402
from course_lib.gp.regression import GPRegression, log_marginal_likelihood_surface  # noqa: E402
from course_lib.plotting.gp import (plot_gp_posterior, plot_kernel_function,  # noqa: E402
                                    plot_lml_surface, plot_samples)
from course_lib.widgets.gp import (KERNEL_FAMILIES, conditioning_explorer,  # noqa: E402
                                   kernel_explorer, lml_surface_explorer, make_kernel,
                                   toy_regression_data)


@pytest.mark.parametrize("build", [kernel_explorer, conditioning_explorer, lml_surface_explorer])
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


def test_conditioning_explorer_title_reports_the_marginal_likelihood():
    X, y = toy_regression_data()
    fig = conditioning_explorer(X, y).render(noise_variance=0.04, lengthscale=1.0, variance=1.0,
                                             n_points=5)
    expected = GPRegression(SquaredExponential(1.0, 1.0), 0.04).fit(X[:5], y[:5])
    assert f"{expected.log_marginal_likelihood():.1f}" in fig.axes[0].get_title()
    plt.close(fig)


@pytest.mark.parametrize("family", KERNEL_FAMILIES)
def test_make_kernel_at_slider_extremes_is_valid(family):
    x = np.linspace(-5, 5, 40)[:, None]
    for ell in (0.1, 10.0):
        K = make_kernel(family, ell, 10.0)(x)
        assert np.linalg.eigvalsh(K).min() > -1e-8 * np.abs(K).max()


def test_make_kernel_rejects_unknown_family():
    with pytest.raises(ValueError, match="family"):
        make_kernel("cubic")


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
    surface = log_marginal_likelihood_surface(gp, "lengthscale", np.logspace(-1, 1, 6),
                                              "noise_variance", np.logspace(-3, 0, 5))
    plot_lml_surface(axes[3], surface, current=(1.0, 0.05))
    star = [line for line in axes[3].lines if line.get_marker() == "*"][0]
    assert (star.get_xdata()[0], star.get_ydata()[0]) == surface.best
    plt.close(fig)
