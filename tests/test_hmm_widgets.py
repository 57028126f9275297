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
