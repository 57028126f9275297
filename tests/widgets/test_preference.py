"""Unit 6 explorers: every control at its extremes, errors shown and recovered from, and the
numbers they draw equal to the library's (their plots are tested in
tests/plotting/test_preference.py)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.preference import PairwiseBeta, PairwiseProbit, laplace_mode, newton_path
from course_lib.widgets import InputError  # noqa: E402
from course_lib.preference.exact_posterior import two_item_prior  # noqa: E402
from course_lib.widgets.preference import (_MODELS, _answer_for, laplace_explorer,  # noqa: E402
                                           likelihood_explorer, _pairwise_likelihood)
from bad_input import check_names_argument  # noqa: E402

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
    check_names_argument(call, name)


def test_answer_for_reads_degrees_and_sides():
    assert _answer_for(BETA, 0.37) == 0.37
    assert _answer_for(PROBIT, 0.51) == 1.0 and _answer_for(PROBIT, 0.2) == 0.0
    with pytest.raises(InputError, match="^answer:"):
        _answer_for(PROBIT, 0.5)
    assert isinstance(_pairwise_likelihood(PROBIT, 0.3, 5.0), PairwiseProbit)
    beta = _pairwise_likelihood(BETA, 0.3, 5.0)
    assert beta.params == pytest.approx({"noise_sd": 0.3, "concentration": 5.0})
