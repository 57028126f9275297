"""Tests of course_lib.plotting.hmm, Unit 3's figures: posteriors, parameters and state
diagrams, the chain of a left-to-right model, a Viterbi segmentation, where the unscaled forward
pass underflows, and a grid of accuracies (the trellis panel is tested in test_hmm_trellis.py)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.hmm import inference as H  # noqa: E402
from course_lib.hmm.model import (left_to_right_hmm, random_hmm, sample,  # noqa: E402
                                  weather_mood_hmm)
from course_lib.hmm.training import baum_welch  # noqa: E402
from course_lib.plotting import hmm as P  # noqa: E402
from course_lib.plotting.gmm import plot_log_likelihood_trace  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_other_plots():
    rng = np.random.default_rng(0)
    model = random_hmm(3, 4, rng=rng)
    states, symbols = sample(model, 300, rng=rng)
    post = H.posteriors(model, symbols)
    fig, axes = plt.subplots(2, 3)
    P.plot_posteriors(axes[0, 0], post.gamma, true_states=states, path=H.viterbi(model, symbols).path)
    trace = baum_welch(random_hmm(3, 4, rng=rng), [symbols], max_iter=5).log_likelihood_trace
    # Baum-Welch is EM: its trace is Unit 2's figure, the one the explorer draws
    ax = plot_log_likelihood_trace(axes[0, 1], trace, reference=-400.0, algorithm="Baum-Welch")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), trace)
    assert ax.get_xlabel() == "Baum-Welch iteration t" and ax.get_ylabel() == "log-likelihood"
    assert P.plot_log_likelihood_trace is plot_log_likelihood_trace
    P.plot_hmm_parameters(axes[1], model)
    assert [t.get_text() for t in axes[1, 1].texts][0] == f"{model.A[0, 0]:.2f}"
    P.plot_state_diagram(axes[0, 2], weather_mood_hmm())
    # 7 transitions of the weather-mood A are non-zero: 7 probability labels
    assert len(axes[0, 2].texts) == 3 + 7
    P.plot_symbol_sequence(plt.subplots()[1], symbols[:50], states=states[:50])


def test_chain_diagram_draws_each_transition_once():
    model = left_to_right_hmm(5, 3, self_loop=0.6, skip=0.1)
    ax = P.plot_chain_diagram(plt.subplots()[1], model)
    labels = [t.get_text() for t in ax.texts]
    # 5 state names + 1 "start" + one label per non-zero a_ij (counted independently of A's layout:
    # 5 self-loops, 4 moves to the next state, 3 skips)
    assert len(labels) == 5 + 1 + 5 + 4 + 3
    assert labels.count("0.10") == 3 and labels.count("1.00") == 1 and "start" in labels
    # a backward move and a split initial distribution are drawn too
    A = np.array(model.A)
    A[3] = [0.2, 0.0, 0.0, 0.5, 0.3]
    other = model.replace(A=A, pi=[0.5, 0.5, 0, 0, 0])
    labels = [t.get_text() for t in P.plot_chain_diagram(plt.subplots()[1], other).texts]
    assert labels.count("0.50") >= 2 + 1 and "0.20" in labels


def test_viterbi_segmentation_marks_state_changes():
    features = np.arange(24.0).reshape(8, 3)
    path = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    ax = P.plot_viterbi_segmentation(plt.subplots()[1], features, path)
    boundaries = sorted(line.get_xdata()[0] for line in ax.lines)
    assert boundaries == [2.5, 4.5]  # the state changes before frames 3 and 5
    assert [t.get_text() for t in ax.texts] == ["q=0", "q=1", "q=2"]
    with pytest.raises(ValueError, match="^path"):
        P.plot_viterbi_segmentation(ax, features, path[:-1])
    with pytest.raises(ValueError, match="^features"):
        P.plot_viterbi_segmentation(ax, features[0], path)


def test_forward_underflow_plot_shows_where_alpha_vanishes():
    model = weather_mood_hmm()
    _, symbols = sample(model, 1500, rng=0)
    naive, scaled = H.forward_unscaled(model, symbols), H.forward_scaled(model, symbols)
    ax = P.plot_forward_underflow(plt.subplots()[1], naive, scaled)
    exact_line, naive_line = ax.lines[0], ax.lines[1]
    np.testing.assert_allclose(exact_line.get_ydata()[-1], scaled.log_likelihood / np.log(10))
    first_zero = int(np.flatnonzero(naive.alpha.sum(axis=1) == 0)[0]) + 1
    assert len(naive_line.get_xdata()) == first_zero - 1  # drawn up to the last positive alpha
    # the two curves agree where the naive one exists
    np.testing.assert_allclose(naive_line.get_ydata()[:50], exact_line.get_ydata()[:50],
                               rtol=1e-10)
    assert any(f"t = {first_zero}" in t.get_text() for t in ax.texts)
    with pytest.raises(ValueError, match="^scaled"):
        P.plot_forward_underflow(ax, naive, H.forward_scaled(model, symbols[:10]))


def test_accuracy_grid_outlines_best_cell():
    acc = np.array([[0.9, 0.95], [0.97, 0.93], [0.91, 0.92]])
    ax = P.plot_accuracy_grid(plt.subplots()[1], acc, [16, 32, 64], [3, 5], best=(1, 0))
    assert [t.get_text() for t in ax.texts][2] == "0.970"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["K=16", "K=32", "K=64"]
    outline = ax.patches[-1]
    assert outline.get_xy() == (0 - 0.48, 1 - 0.48)
    with pytest.raises(ValueError, match="^row_values"):
        P.plot_accuracy_grid(ax, acc, [16, 32], [3, 5])
