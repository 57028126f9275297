"""Tests of course_lib.plotting.preference, Unit 6's figures: the committed learning curves of
Jensen et al. (2011), the exact posterior beside its Laplace and EP approximations, the Newton
path, negative curvature and the acquisition functions' picks."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.plotting.preference import (_LEARNING_CURVES, plot_acquisition,  # noqa: E402
                                            plot_curvature, plot_learning_curves,
                                            plot_posterior_1d, plot_posterior_2d)
from course_lib.preference import PairwiseBeta, laplace_mode, newton_path  # noqa: E402
from course_lib.preference.exact_posterior import grid_posterior, two_item_prior  # noqa: E402
from course_lib.results import load_result  # noqa: E402


def test_plot_learning_curves_draws_the_committed_means():
    result = load_result("jensen2011_learning_curves")
    levels = result["settings"]["noise_levels_nu_D"]
    fig, axes = plt.subplots(1, len(levels))
    plot_learning_curves(axes, result)
    mer = result["result"]["summary"]["mer"]
    for ax, nu in zip(axes, levels):
        assert len(ax.lines) == len(_LEARNING_CURVES)
        np.testing.assert_allclose(ax.lines[0].get_ydata(), mer[f"BR_noise/nu={nu}"]["mean"])
        np.testing.assert_allclose(ax.lines[3].get_ydata(), mer["BR_noise_free"]["mean"])
        np.testing.assert_allclose(ax.lines[0].get_xdata(), result["settings"]["m_values"])
    with pytest.raises(ValueError, match="^axes:"):
        plot_learning_curves(axes[:1], result)
    plt.close(fig)


def test_posterior_and_curvature_plots():
    K, M = two_item_prior(1.0, 0.0), np.array([[1.0, -1.0]])
    likelihood = PairwiseBeta(0.5, 30.0)
    grid = np.linspace(-3, 3, 41)
    exact = grid_posterior(K, M, likelihood, [0.6], (grid, grid))
    laplace = laplace_mode(K, M, likelihood, [0.6])
    fig, (ax_1, ax_2, ax_3) = plt.subplots(1, 3)
    plot_posterior_1d(ax_1, exact, laplace=(laplace.f_hat[0], laplace.covariance()[0, 0]),
                      ep=(0.1, 0.5), prior_var=1.0)
    np.testing.assert_allclose(ax_1.lines[0].get_ydata(), exact.marginal(0))
    assert [line.get_label().split(" ")[0] for line in ax_1.lines] == \
        ["exact", "Laplace", "EP", "prior"]
    path = newton_path(K, M, likelihood, [0.6])
    first, second = np.meshgrid(grid, grid, indexing="ij")
    z = (first - second).ravel()
    negative = (likelihood.terms(z, np.full(z.size, 0.6)).curvature < 0).reshape(first.shape)
    plot_posterior_2d(ax_2, exact, laplace_mean=laplace.f_hat, laplace_cov=laplace.covariance(),
                      path=path, negative=negative)
    assert len(ax_2.patches) == 2                      # the 1- and 2-sd ellipses
    path_line = [line for line in ax_2.lines if line.get_label() == "Newton path"][0]
    np.testing.assert_allclose(path_line.get_xdata(), [step.f[0] for step in path])
    plot_curvature(ax_3, grid, likelihood.terms(grid, np.full(grid.size, 0.6)).curvature)
    assert len(ax_3.patches) == 2                      # two bands of negative curvature
    plt.close(fig)


def test_plot_acquisition_marks_the_picks():
    x = np.linspace(0, 1, 11)
    fig, ax = plt.subplots()
    plot_acquisition(ax, x, {"uEI": x * (1 - x), "bEI": x ** 2}, incumbent=0.5,
                     picks={"uEI": 0.5, "bEI": 1.0})
    markers = [line for line in ax.lines if line.get_marker() == "v"]
    assert [(m.get_xdata()[0], m.get_ydata()[0]) for m in markers] == [(0.5, 0.25), (1.0, 1.0)]
    plt.close(fig)
