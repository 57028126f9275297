"""Explorers of the HMM unit: built in-process, driven over their controls.

The trellis explorer's figure (trellis_figure) is tested here; the trellis panel itself
(plot_trellis) in tests/plotting/test_hmm_trellis.py, the unit's other figures in
tests/plotting/test_hmm.py."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_lib.hmm import inference as H  # noqa: E402
from course_lib.hmm.model import (WEATHER_MOOD_LONG_OBSERVATIONS,  # noqa: E402
                                  WEATHER_MOOD_OBSERVATIONS, random_hmm, weather_mood_hmm)
from course_lib.hmm.training import baum_welch  # noqa: E402
from course_lib.plotting import hmm_trellis as PT  # noqa: E402
from course_lib.widgets import hmm as WH  # noqa: E402
from numerics import assert_non_decreasing  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------------------- the trellis explorer's figure

def _cell_colours(ax, values):
    """The RGBA colour the trellis image draws for each (t, i)."""
    image = ax.images[0]
    return image.cmap(image.norm(values))


def _text_contrast_ok(ax, values):
    """Every number is white on a dark cell and black on a light one (as drawn)."""
    from course_lib.plotting.colour import _relative_luminance
    colours = _cell_colours(ax, values)
    for text in ax.texts:
        t, i = (int(round(v)) for v in text.get_position())
        dark = _relative_luminance(colours[t, i]) <= 0.179
        if text.get_color() != ("w" if dark else "k"):
            return False
    return True


def test_probabilities_share_a_fixed_scale_and_text_follows_the_drawn_colour():
    # uninformative moods: beta_4 = 1 (darkest) and small alphas (palest) in one figure
    model = weather_mood_hmm("uninformative")
    fig = WH.trellis_figure(model, "HHUH")
    post = H.posteriors(model, "HHUH")
    trellis_axes = trellis_panels(fig)
    assert len(trellis_axes) == 3
    for ax, values in zip(trellis_axes, (post.alpha, post.beta, post.gamma)):
        norm = ax.images[0].norm
        assert (norm.vmin, norm.vmax) == (0.0, 1.0)
        assert len(ax.texts) == values.size and _text_contrast_ok(ax, values)
    beta_texts = {t.get_text(): t.get_color() for t in trellis_axes[1].texts}
    assert beta_texts["1"] == "w" and beta_texts["0.125"] == "k"  # the bug: white on white
    # log panels span their own finite range, and say so
    fig = WH.trellis_figure(model, "HHUH", scale="log")
    trellis_axes = trellis_panels(fig)
    for ax, values in zip(trellis_axes, (post.log_alpha, post.log_beta, np.log(post.gamma))):
        norm = ax.images[0].norm
        assert norm.vmin == pytest.approx(values.min()) and norm.vmax == pytest.approx(values.max())
        assert _text_contrast_ok(ax, values)
    labels = [ax.get_ylabel() for ax in fig.axes if not ax.images]
    assert labels.count("log value (this panel's range)") == 3


def trellis_panels(fig):
    """The three trellis panels of a trellis_figure (not the colour bars)."""
    return [ax for ax in fig.axes if ax.images and ax.get_yticks().size and ax.child_axes]


def _overlaps(labels) -> bool:
    boxes = sorted((label.get_window_extent() for label in labels if label.get_text()),
                   key=lambda box: box.x0)
    return any(a.x1 > b.x0 for a, b in zip(boxes, boxes[1:]))


@pytest.mark.parametrize("length", [4, 8, 18, PT.TRELLIS_MAX_LENGTH])
@pytest.mark.parametrize("scale", ["probability", "log"])
def test_trellis_stays_readable_up_to_the_longest_input(length, scale):
    observations = (WEATHER_MOOD_LONG_OBSERVATIONS * 2)[:length]
    fig = WH.trellis_figure(weather_mood_hmm(), observations, scale=scale)
    fig.canvas.draw()
    trellis_axes = trellis_panels(fig)
    assert len(trellis_axes) == 3
    for ax in trellis_axes:
        assert not _overlaps(ax.get_xticklabels()), f"time ticks overlap at T = {length}"
        top = ax.child_axes[0]
        assert len([t for t in top.get_xticklabels() if t.get_text()]) == length
        assert not _overlaps(top.get_xticklabels()), f"symbols overlap at T = {length}"
        cell = ax.get_window_extent().width / length
        for text in ax.texts:  # written numbers fit inside their cells
            assert text.get_window_extent().width < cell, f"{text.get_text()!r} at T = {length}"
    if length >= 18:
        assert all(not ax.texts for ax in trellis_axes), "numbers written into narrow cells"
    with pytest.raises(ValueError, match=f"^observations: .*at most {PT.TRELLIS_MAX_LENGTH}"):
        WH.trellis_figure(weather_mood_hmm(), "H" * (PT.TRELLIS_MAX_LENGTH + 1))


def test_impossible_sequence_shows_the_library_explanation():
    model = weather_mood_hmm("fair-forever")
    fig = WH.trellis_figure(model, "HHUH")
    shown = " ".join(t.get_text().replace("\n", " ") for ax in fig.axes for t in ax.texts)
    explanation = H.explain_zero_probability(model, "HHUH", "beta, gamma and the Viterbi path")
    assert " ".join(explanation.split()) in " ".join(shown.split())
    assert "impossible" in fig._suptitle.get_text()


# ---------------------------------------------------------------------------- text parsing

def test_parse_and_format_round_trip():
    A = weather_mood_hmm().A
    np.testing.assert_array_equal(WH._parse_matrix(WH._format_matrix(A), "A"), A)
    np.testing.assert_array_equal(WH._parse_vector("0.4, 0.3 0.3", "pi"), [0.4, 0.3, 0.3])
    np.testing.assert_array_equal(WH._parse_matrix("1 0\n0 1", "A"), np.eye(2))
    with pytest.raises(ValueError, match="^pi: could not read"):
        WH._parse_vector("0.5 x", "pi")
    with pytest.raises(ValueError, match="^A: every row"):
        WH._parse_matrix("0.5 0.5; 1", "A")
    with pytest.raises(ValueError, match="^B: enter rows"):
        WH._parse_matrix(" ; ", "B")
    with pytest.raises(ValueError, match="^A: row 0 must sum"):
        WH._hmm_from_text("0.5 0.5", "0.5 0.6; 0.5 0.5", "1; 1")


def test_hmm_from_text_names():
    template = weather_mood_hmm()
    same = WH._hmm_from_text("0.4 0.3 0.3", WH._format_matrix(template.A),
                            WH._format_matrix(template.B), template)
    assert same.symbol_names == ("H", "U") and same.state_names == ("F", "C", "R")
    bigger = WH._hmm_from_text("1 0", "0.5 0.5; 0.5 0.5", "0.2 0.3 0.5; 0.1 0.1 0.8", template)
    assert bigger.symbol_names == ("A", "B", "C") and bigger.state_names == ("1", "2")


# ---------------------------------------------------------------------------- explorers

HALF_TYPED = [{"A": "0.8 0.2 0; 0.3 0.4"}, {"B": "0.9 0.1; 0.5"}, {"pi": "0.4 0.3"},
              {"pi": "0.4 0.3 0."}, {"A": "0.8 0.2 0; 0.3 0.4 0.3; 0 0.3 0."},
              {"observations": "HXH"}, {"observations": ""},
              {"observations": "H" * (PT.TRELLIS_MAX_LENGTH + 1)}]


def test_trellis_explorer_is_driven_and_refuses_half_typed_entries():
    explorer = WH.trellis_explorer()
    assert all(not c.continuous_update for c in explorer.controls.values()
               if hasattr(c, "continuous_update")), "text boxes must redraw on Enter only"
    # the harness checks three refusals end to end (redraws, then back to the defaults) ...
    assert exercise_explorer(explorer, error_settings=HALF_TYPED[::3]) >= 1 + 3 + 4 + 3 + 2
    values = explorer.values()
    # ... and every half-typed entry is refused with a one-line message naming its box
    for entry in HALF_TYPED:
        ((box, text),) = entry.items()
        with pytest.raises(WH.InputError, match=f"^{box}: ") as info:
            explorer.render(**{**values, box: text})
        assert "\n" not in str(info.value)
    assert values["observations"] == WEATHER_MOOD_OBSERVATIONS
    fig = explorer.render(**values)
    assert "log P(O) = -2.9046" in fig._suptitle.get_text()  # = log of the enumerated 0.05477
    # a half-typed matrix: one line in the panel, no traceback, no figure
    explorer.controls["A"].value = "0.8 0.2 0; 0.3 0.4"
    assert isinstance(explorer.last_error, WH.InputError)
    assert str(explorer.last_error) == "A: every row needs the same number of entries, got [3, 2]"
    explorer.controls["A"].value = WH._format_matrix(weather_mood_hmm().A)
    assert explorer.last_error is None


def test_trellis_explorer_suggestions_of_the_lecture():
    explorer = WH.trellis_explorer()
    values = explorer.values()
    uninformative = WH._format_matrix(weather_mood_hmm("uninformative").B)
    assert uninformative == "0.5 0.5; 0.5 0.5; 0.5 0.5"
    fig = explorer.render(**{**values, "B": uninformative})
    assert "Viterbi path" in fig._suptitle.get_text()
    fig = explorer.render(**{**values, "observations": WEATHER_MOOD_LONG_OBSERVATIONS,
                             "scale": "log"})
    assert "FFFFFFCRRRRRRCFFFF" in fig._suptitle.get_text()
    fair = weather_mood_hmm("fair-forever")
    typed = {name: WH._format_matrix(getattr(fair, name)) for name in ("pi", "A", "B")}
    assert typed == {"pi": "1 0 0", "A": "1 0 0; 0.3 0.4 0.3; 0 0.3 0.7",
                     "B": "1 0; 0.5 0.5; 0.2 0.8"}
    fig = explorer.render(**{**values, **typed})
    assert any("P(O | lambda) = 0" in t.get_text() for ax in fig.axes for t in ax.texts)
    with pytest.raises(TypeError, match="^model"):
        WH.trellis_explorer("weather")
    with pytest.raises(ValueError, match="^observations"):
        WH.trellis_explorer(observations="HXH")


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
    assert_non_decreasing(session.trace, what="the explorer's log-likelihood")
    np.testing.assert_allclose(session.trace[-1],
                               H.log_likelihoods(session.model, session.batch).sum())
    # the explorer's run is the library's Baum-Welch from the same start
    start = random_hmm(3, 2, rng=3)
    fit = baum_welch(start, session.batch, max_iter=11, tol=-np.inf)
    np.testing.assert_array_equal(session.trace, fit.log_likelihood_trace)
    explorer.controls["n_states"].value = 2  # a new setting restarts from a new model
    assert len(session.trace) == 1 and session.model.n_states == 2
    explorer.press("Restart")
    assert len(session.trace) == 1


def test_baum_welch_explorer_keeps_no_stale_state_after_an_error():
    # 25 symbols: a floor must be < 1/M = 0.04, so the explorer does not offer 0.05 ...
    rng = np.random.default_rng(0)
    seqs = list(rng.integers(0, 25, size=(6, 40)))
    explorer = WH.baum_welch_explorer(seqs, n_symbols=25)
    floor = explorer.controls["emission_floor"]
    assert 0.05 not in floor.options and 0.01 in floor.options
    # ... and when a refused value reaches the session anyway, nothing moves on without it
    floor.options = (*floor.options, 0.05)
    session = explorer.session
    floor.value = 0.01
    explorer.press("10 steps")
    trace, model = session.trace.copy(), session.model
    floor.value = 0.05
    assert isinstance(explorer.last_error, ValueError)
    assert str(explorer.last_error).startswith("emission_floor: must be < 1/M = 0.04")
    for _ in range(2):
        explorer.refresh()
        assert isinstance(explorer.last_error, ValueError)
    for label in ("Step", "10 steps", "Restart", "Step"):
        explorer.press(label)
        explorer.refresh()
        assert isinstance(explorer.last_error, ValueError), label
        assert session.model is model and np.array_equal(session.trace, trace), \
            f"{label}: the previous model moved on although the floor shown is refused"
    floor.value = 0.01  # back to a valid floor: after "Restart", a fresh run of that setting
    assert explorer.last_error is None and len(session.trace) == 1
    np.testing.assert_array_equal(session.model.B, random_hmm(3, 25, rng=0).B)
    explorer.press("Step")
    assert explorer.last_error is None and len(session.trace) == 2


def test_baum_welch_explorer_on_own_data():
    seqs = [np.array([0, 1, 2, 2, 1]), np.array([2, 2, 0])]
    explorer = WH.baum_welch_explorer(seqs, n_symbols=3)
    explorer.press("Step")
    assert explorer.last_error is None and len(explorer.session.trace) == 2
    with pytest.raises(ValueError, match="^n_symbols"):
        WH.baum_welch_explorer(seqs)
