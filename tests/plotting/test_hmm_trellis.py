"""The trellis figures (``plotting.hmm_trellis``): one panel of alpha, beta or gamma, and the
explorer's three panels drawn from the results the HMM package computed, so what they show is
exactly the results they are given (the explorer's figure end to end is in
tests/widgets/test_hmm.py)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.hmm import inference as H  # noqa: E402
from course_lib.hmm.model import weather_mood_hmm  # noqa: E402
from course_lib.plotting import hmm_trellis as PT  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_trellis_shows_values_and_path():
    model = weather_mood_hmm()
    post = H.posteriors(model, "HHUH")
    path = H.viterbi(model, "HHUH").path
    fig, ax = plt.subplots(figsize=(5, 3))
    assert PT.plot_trellis(ax, post.alpha, observations=model.encode("HHUH"), path=path,
                           state_names=model.state_names, symbol_names=model.symbol_names) is ax
    texts = [t.get_text() for t in ax.texts]
    assert "0.36" in texts and len(texts) == 12  # alpha_1(F) = 0.4 * 0.9, one number per cell
    assert len(ax.patches) == 4  # the path's cells are outlined
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "4"]
    top = ax.child_axes[0] if ax.child_axes else None
    assert top is not None and [t.get_text() for t in top.get_xticklabels()] == list("HHUH")
    # log values with -inf (an unreachable state) are drawn without warnings
    with np.errstate(divide="ignore"):
        log_vals = np.log(np.array([[1.0, 0.0], [0.5, 0.5]]))
    ax = PT.plot_trellis(plt.subplots()[1], log_vals, log_values=True)
    assert "-inf" in [t.get_text() for t in ax.texts]
    with pytest.raises(ValueError, match="^values"):
        PT.plot_trellis(ax, np.zeros(3))
    with pytest.raises(ValueError, match="^values: probabilities must lie in"):
        PT.plot_trellis(ax, np.log([[0.5, 0.5]]))
    with pytest.raises(ValueError, match=r"^values: contains NaN or \+inf"):
        PT.plot_trellis(ax, [[np.nan, 0.0]], log_values=True)


def _panels(fig):
    return [ax for ax in fig.axes if ax.images and ax.get_yticks().size and ax.child_axes]


def test_the_explorers_figure_draws_the_results_it_is_given():
    """Hand-made results (no pass could give them: gamma and alpha disagree) are drawn as given,
    so the figure computes none of its numbers."""
    model = weather_mood_hmm()
    O = model.encode("HU")
    log_alpha = np.log(np.full((2, 3), 0.25))
    log_beta = np.log(np.full((2, 3), 0.5))
    gamma = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    post = H.Posteriors(gamma, np.zeros((1, 3, 3)), log_alpha, log_beta, -1.5)
    best = H.ViterbiResult(np.array([0, 2]), -2.25, np.zeros((2, 3)), np.zeros((2, 3), int))
    fig = PT.draw_trellis(model, O, post, best)
    alpha_ax, beta_ax, gamma_ax = _panels(fig)
    np.testing.assert_array_equal(alpha_ax.images[0].get_array(), np.exp(log_alpha).T)
    np.testing.assert_array_equal(beta_ax.images[0].get_array(), np.exp(log_beta).T)
    np.testing.assert_array_equal(gamma_ax.images[0].get_array(), gamma.T)
    assert fig._suptitle.get_text() == ("log P(O) = -1.5000   P(O) = 0.2231   Viterbi path FR, "
                                        "log P(Q*, O) = -2.2500")
    fig = PT.draw_trellis(model, O, post, None, log_scale=True)
    np.testing.assert_allclose(_panels(fig)[2].images[0].get_array(), np.log(gamma).T)
    assert "Viterbi" not in fig._suptitle.get_text()
    assert all(ax.get_title().startswith("log ") for ax in _panels(fig))


def test_an_impossible_sequence_shows_alpha_and_the_explanation_it_is_given():
    model = weather_mood_hmm("fair-forever")
    forward = H.forward_log(model, "HHUH")
    fig = PT.draw_impossible_trellis(model, model.encode("HHUH"), forward, "told why")
    (alpha_ax,) = _panels(fig)
    np.testing.assert_array_equal(alpha_ax.images[0].get_array().filled(np.nan),
                                  np.exp(forward.log_alpha).T)
    assert "told why" in [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "impossible" in fig._suptitle.get_text()
