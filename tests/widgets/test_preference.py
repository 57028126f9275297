"""Unit 6 explorers and plots: every control at its extremes, errors shown and recovered from,
and the numbers they draw equal to the library's (and the brute-force posterior to closed
forms)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.preference import PairwiseBeta, PairwiseProbit, laplace_mode, newton_path
from course_lib.plotting.preference import (_LEARNING_CURVES, plot_acquisition,  # noqa: E402
                                            plot_curvature, plot_learning_curves,
                                            plot_posterior_1d, plot_posterior_2d)
from course_lib.results import load_result  # noqa: E402
from course_lib.widgets import InputError  # noqa: E402
from course_lib.preference.exact_posterior import grid_posterior, two_item_prior  # noqa: E402
from course_lib.widgets.preference import (_MODELS, _answer_for, laplace_explorer,  # noqa: E402
                                           likelihood_explorer, _pairwise_likelihood)

PROBIT, BETA = _MODELS


# ------------------------------------------------------------------------------ explorers

def small_likelihood_explorer():
    return likelihood_explorer(n_grid=201)


def small_laplace_explorer():
    """Coarser grids than the lecture's (the same code paths)."""
    return laplace_explorer(n_grid=41)


@pytest.mark.parametrize("build", [small_likelihood_explorer, small_laplace_explorer])
def test_explorer_survives_every_control_and_refuses_a_binary_tie_and_nan(build):
    """A NaN answer (a slider set from code) is refused under both models, like a binary tie,
    and the defaults draw the first figure again afterwards."""
    explorer = build()
    checked = exercise_explorer(explorer, error_settings=[
        {"model": PROBIT, "answer": 0.5}, {"model": PROBIT, "answer": np.nan},
        {"model": BETA, "answer": np.nan}])
    assert checked >= 4 + 2 * len(explorer.controls)


@pytest.mark.parametrize("build", [small_likelihood_explorer, small_laplace_explorer])
def test_a_binary_tie_is_reported_naming_the_answer_then_recovered(build):
    explorer = build()
    explorer.controls["model"].value = PROBIT
    explorer.controls["answer"].value = 0.5
    assert isinstance(explorer.last_error, InputError)
    assert str(explorer.last_error).startswith("answer:")
    explorer.controls["model"].value = BETA          # 0.5 is a fine degree of preference
    assert explorer.last_error is None
    plt.close("all")


def test_likelihood_explorer_draws_the_library_terms_and_laplace():
    explorer = likelihood_explorer(n_grid=401)
    values = dict(model=BETA, answer=0.6, noise_sd=1.0, concentration=30.0, prior_sd=1.5)
    fig = explorer.render(**values)
    ax_l, ax_w, ax_p = fig.axes
    z = ax_w.lines[0].get_xdata()
    terms = PairwiseBeta(1.0, 30.0).terms(z, np.full(z.size, 0.6))
    np.testing.assert_allclose(ax_w.lines[0].get_ydata(), terms.curvature)
    np.testing.assert_allclose(ax_l.lines[0].get_ydata(), np.exp(terms.log_likelihood))
    assert terms.curvature.min() < 0, "nu = 30 and y = 0.6 should have negative curvature"
    assert len(ax_w.patches) >= 1, "the negative-curvature region should be shaded"
    laplace = laplace_mode([[2 * 1.5 ** 2]], [[1.0]], PairwiseBeta(1.0, 30.0), [0.6])
    labels = [line.get_label() for line in ax_p.lines]
    sd = np.sqrt(laplace.covariance()[0, 0])
    assert f"Laplace (mean {laplace.f_hat[0]:.2f}, sd {sd:.2f})" in labels
    plt.close(fig)


def test_likelihood_explorer_reads_the_slider_side_for_the_probit():
    explorer = likelihood_explorer(n_grid=201)
    second = explorer.render(model=PROBIT, answer=0.2, noise_sd=1.0, concentration=10.0,
                             prior_sd=1.0)
    first = explorer.render(model=PROBIT, answer=0.8, noise_sd=1.0, concentration=10.0,
                            prior_sd=1.0)
    z = first.axes[0].lines[0].get_xdata()
    p_first = first.axes[0].lines[0].get_ydata()
    p_second = second.axes[0].lines[0].get_ydata()
    np.testing.assert_allclose(p_first + p_second, 1.0, atol=1e-12)   # P(1 | z) + P(0 | z)
    assert p_first[z > 0].min() > 0.5 and "first preferred" in first.axes[0].get_title()
    plt.close("all")


def test_laplace_explorer_mode_does_not_depend_on_the_start_and_clipping_is_counted():
    explorer = laplace_explorer(n_grid=81)
    values = dict(model=BETA, answer=0.95, noise_sd=0.5, concentration=10.0, correlation=0.3)
    modes, titles = [], []
    for start in (-1.5, 0.0, 4.0):
        fig = explorer.render(start=start, **values)
        ax_2d = fig.axes[0]
        path_line = [line for line in ax_2d.lines if line.get_label() == "Newton path"][0]
        modes.append([path_line.get_xdata()[-1], path_line.get_ydata()[-1]])
        titles.append(ax_2d.get_title())
        plt.close(fig)
    np.testing.assert_allclose(modes, np.tile(modes[0], (3, 1)), atol=1e-6)
    K, M = two_item_prior(1.0, 0.3), np.array([[1.0, -1.0]])
    path = newton_path(K, M, PairwiseBeta(0.5, 10.0), [0.95], np.array([-0.75, 0.75]))
    n_clipped = sum(step.clipped for step in path)
    assert n_clipped > 0, "a start inside the negative band should need clipped weights"
    assert titles[0] == f"Newton: {len(path) - 1} steps, {n_clipped} with clipped w"


# ------------------------------------------------------------------------------ answers

@pytest.mark.parametrize("call, name", [
    (lambda: _pairwise_likelihood("logit", 1.0, 10.0), "model"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)


def test_answer_for_reads_degrees_and_sides():
    assert _answer_for(BETA, 0.37) == 0.37
    assert _answer_for(PROBIT, 0.51) == 1.0 and _answer_for(PROBIT, 0.2) == 0.0
    with pytest.raises(InputError, match="^answer:"):
        _answer_for(PROBIT, 0.5)
    assert isinstance(_pairwise_likelihood(PROBIT, 0.3, 5.0), PairwiseProbit)
    beta = _pairwise_likelihood(BETA, 0.3, 5.0)
    assert beta.params == pytest.approx({"noise_sd": 0.3, "concentration": 5.0})


# ------------------------------------------------------------------------------ plots

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
