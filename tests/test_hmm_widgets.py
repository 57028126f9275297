"""Plots and explorers of the HMM unit: built in-process, driven over their controls."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib import hmm as H  # noqa: E402
from course_lib.plotting import hmm as P  # noqa: E402
from course_lib.widgets import hmm as WH  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------------------- plotting

def test_trellis_shows_values_and_path():
    model = H.weather_mood_hmm()
    post = H.posteriors(model, "HHUH")
    path = H.viterbi(model, "HHUH").path
    fig, ax = plt.subplots()
    assert P.plot_trellis(ax, post.alpha, observations=model.encode("HHUH"), path=path,
                          state_names=model.state_names, symbol_names=model.symbol_names) is ax
    texts = [t.get_text() for t in ax.texts]
    assert "0.36" in texts and len(texts) == 12  # alpha_1(F) = 0.4 * 0.9, one number per cell
    line = ax.lines[0]
    np.testing.assert_array_equal(line.get_ydata(), path)
    assert [t.get_text() for t in ax.get_xticklabels()][2] == "t=3\nU"
    # log values with -inf (an unreachable state) are drawn without warnings
    with np.errstate(divide="ignore"):
        log_vals = np.log(np.array([[1.0, 0.0], [0.5, 0.5]]))
    P.plot_trellis(plt.subplots()[1], log_vals, log_values=True, colour_by="global")
    P.plot_trellis(plt.subplots()[1], log_vals, log_values=True)
    with pytest.raises(ValueError, match="values"):
        P.plot_trellis(ax, np.zeros(3))
    with pytest.raises(ValueError, match="colour_by"):
        P.plot_trellis(ax, np.zeros((2, 2)), colour_by="rainbow")


def test_other_plots():
    rng = np.random.default_rng(0)
    model = H.random_hmm(3, 4, rng)
    states, symbols = H.sample(model, 300, rng)
    post = H.posteriors(model, symbols)
    fig, axes = plt.subplots(2, 3)
    P.plot_posteriors(axes[0, 0], post.gamma, true_states=states, path=H.viterbi(model, symbols).path)
    trace = H.baum_welch(H.random_hmm(3, 4, rng), [symbols], n_iter=5).log_likelihood_trace
    ax = P.plot_log_likelihood_trace(axes[0, 1], trace, reference=-400.0)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), trace)
    P.plot_hmm_parameters(axes[1], model)
    assert [t.get_text() for t in axes[1, 1].texts][0] == f"{model.A[0, 0]:.2f}"
    P.plot_state_diagram(axes[0, 2], H.weather_mood_hmm())
    # 7 transitions of the weather-mood A are non-zero: 7 probability labels
    assert len(axes[0, 2].texts) == 3 + 7
    P.plot_symbol_sequence(plt.subplots()[1], symbols[:50], states=states[:50])


# ---------------------------------------------------------------------------- text parsing

def test_parse_and_format_round_trip():
    A = H.weather_mood_hmm().A
    np.testing.assert_array_equal(WH.parse_matrix(WH.format_matrix(A), "A"), A)
    np.testing.assert_array_equal(WH.parse_vector("0.4, 0.3 0.3", "pi"), [0.4, 0.3, 0.3])
    np.testing.assert_array_equal(WH.parse_matrix("1 0\n0 1", "A"), np.eye(2))
    with pytest.raises(ValueError, match="^pi: could not read"):
        WH.parse_vector("0.5 x", "pi")
    with pytest.raises(ValueError, match="^A: every row"):
        WH.parse_matrix("0.5 0.5; 1", "A")
    with pytest.raises(ValueError, match="^B: enter rows"):
        WH.parse_matrix(" ; ", "B")
    with pytest.raises(ValueError, match="^A: row 0 must sum"):
        WH.hmm_from_text("0.5 0.5", "0.5 0.6; 0.5 0.5", "1; 1")


def test_hmm_from_text_names():
    template = H.weather_mood_hmm()
    same = WH.hmm_from_text("0.4 0.3 0.3", WH.format_matrix(template.A),
                            WH.format_matrix(template.B), template)
    assert same.symbol_names == ("H", "U") and same.state_names == ("F", "C", "R")
    bigger = WH.hmm_from_text("1 0", "0.5 0.5; 0.5 0.5", "0.2 0.3 0.5; 0.1 0.1 0.8", template)
    assert bigger.symbol_names == ("A", "B", "C") and bigger.state_names == ("1", "2")


# ---------------------------------------------------------------------------- explorers

def test_trellis_explorer_is_driven_without_errors():
    explorer = WH.trellis_explorer()
    assert exercise_explorer(explorer) >= 1 + 4 + 3 + 2
    values = explorer.values()
    assert values["observations"] == "HHUH"
    fig = explorer.render(**values)
    assert "log P(O) = -2.9046" in fig._suptitle.get_text()  # = log of the enumerated 0.05477
    # text values the harness cannot set: other strings, an impossible and a bad observation
    fig = explorer.render(**{**values, "observations": "UUUUUUUUUUUUUUUUUUUUUUUUU", "scale": "log"})
    assert len(fig.axes) >= 3
    impossible = {**values, "B": "1 0; 0.5 0.5; 0.2 0.8", "A": "1 0 0; 0.3 0.4 0.3; 0 0.3 0.7",
                  "pi": "1 0 0", "observations": "HU"}
    fig = explorer.render(**impossible)
    assert any("P(O | lambda) = 0" in t.get_text() for ax in fig.axes for t in ax.texts)
    with pytest.raises(ValueError, match="^observations"):
        explorer.render(**{**values, "observations": "HXH"})
    explorer.controls["observations"].value = "HXH"  # a typo is shown in the panel, not lost
    assert isinstance(explorer.last_error, ValueError)


def test_baum_welch_explorer_steps_increase_likelihood():
    explorer = WH.baum_welch_explorer(n_sequences=20, length=30)
    assert exercise_explorer(explorer) >= 1 + 3 * 3 + 3
    session = explorer.session
    explorer.controls["seed"].value = 3
    explorer.refresh()
    assert len(session.trace) == 1
    explorer.press("Step")
    explorer.press("10 steps")
    assert explorer.last_error is None and len(session.trace) == 12
    assert np.all(np.diff(session.trace) >= -1e-9)
    np.testing.assert_allclose(session.trace[-1],
                               H.log_likelihoods(session.model, session.batch).sum())
    explorer.controls["n_states"].value = 2  # a new setting restarts from a new model
    assert len(session.trace) == 1 and session.model.n_states == 2
    explorer.press("Restart")
    assert len(session.trace) == 1


def test_baum_welch_explorer_on_own_data():
    seqs = [np.array([0, 1, 2, 2, 1]), np.array([2, 2, 0])]
    explorer = WH.baum_welch_explorer(seqs, n_symbols=3)
    explorer.press("Step")
    assert explorer.last_error is None and len(explorer.session.trace) == 2
    with pytest.raises(ValueError, match="^n_symbols"):
        WH.baum_welch_explorer(seqs)


# ---------------------------------------------------------------------------- lecture figures

def test_chain_diagram_draws_each_transition_once():
    model = H.left_to_right_hmm(5, 3, self_loop=0.6, skip=0.1)
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
    model = H.weather_mood_hmm()
    _, symbols = H.sample(model, 1500, 0)
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
