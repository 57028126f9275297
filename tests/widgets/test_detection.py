"""Unit 7's detection demo (course_lib.widgets.detection): its P(heard) curve and acquisition
strip against the library's calls, the level-zero constraint, the audio players, the harness
over every control and button, and the arguments it names."""

import html
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import ipywidgets as W  # noqa: E402
import pytest  # noqa: E402
from scipy.io import wavfile  # noqa: E402
from scipy.special import ndtr  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib import stimuli  # noqa: E402
from course_lib.results import load_result  # noqa: E402
from course_lib.mixed.levelset import eavc, global_mi  # noqa: E402
from course_lib.simulators import levelset_session as S  # noqa: E402
from course_lib.simulators.psychophysics import detection_problem, psychometric_problem  # noqa: E402
from course_lib.widgets import detection as L  # noqa: E402
from course_lib.widgets.levelset import ExplorerState  # noqa: E402


def png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=40)
    plt.close(fig)
    return buffer.getvalue()


def decode(wav: bytes) -> np.ndarray:
    rate, samples = wavfile.read(io.BytesIO(wav))
    assert rate == stimuli._SAMPLE_RATE
    return samples / 32767.0


def test_bad_arguments_name_themselves():
    state_2d = ExplorerState(psychometric_problem(), "mixed", "global_mi", seed=0)
    for call, name in ((lambda: L.detection_demo(arm="x"), "arm"),
                       (lambda: L.detection_figure(state_2d), "state")):
        with pytest.raises((ValueError, TypeError), match=rf"^{name}:"):
            call()


def test_detection_curve_is_the_predictive_probability_of_the_model():
    state = L.DetectionState(detection_problem(), "mixed", "global_mi", seed=0)
    state.answer_for_me(L.DETECTION_SESSION["n_initial"] + 3)
    levels, p, low, high, estimate = state.curve()
    mean, var = state.model.predict(levels[:, None])
    np.testing.assert_allclose(p, ndtr(mean))
    np.testing.assert_allclose(low, ndtr(mean - 1.96 * np.sqrt(var)))
    assert np.all(low <= p + 1e-12) and np.all(p <= high + 1e-12)
    # three answers past the start are enough for the curve to cross 75 %, at the estimate
    assert estimate is not None
    assert np.interp(estimate, levels, p) == pytest.approx(0.75, abs=0.01)
    assert [n for n, _ in state.thresholds] == [3, 4, 5, 6]
    assert state.thresholds[-1][1] == estimate


def test_the_acquisition_strip_is_the_session_s_acquisition_over_the_levels():
    for acquisition, rule in (("global_mi", global_mi), ("eavc", eavc)):
        state = L.DetectionState(detection_problem(), "mixed", acquisition, seed=2)
        levels = np.linspace(0, 1, 11)
        np.testing.assert_array_equal(S.acquisition_curve(state.session, levels), 0.0)
        state.answer_for_me(L.DETECTION_SESSION["n_initial"] + 2)
        np.testing.assert_allclose(
            S.acquisition_curve(state.session, levels),
            rule(state.model, levels[:, None], state.session.references,
                 state.problem.threshold))


def test_the_level_zero_constraint_pulls_p_heard_at_zero_down():
    with_constraint = L.DetectionState(detection_problem(), "mixed", "global_mi", seed=0)
    without = L.DetectionState(detection_problem(), "none", "global_mi", seed=0)
    for state in (with_constraint, without):
        for level_answer in (1, 1, 0, 1):
            state.answer(level_answer)
    p_zero = [state.curve()[1][0] for state in (with_constraint, without)]
    assert p_zero[0] < p_zero[1]
    assert p_zero[0] < 0.2


def test_detection_players_follow_the_query_and_never_autoplay():
    demo = L.detection_demo()
    demo.refresh()
    for player in demo.players.values():
        assert player.autoplay is False and player.format == "wav"
    level = float(demo.state().query[0])
    np.testing.assert_allclose(decode(demo.players["this trial"].value),
                               stimuli.tone_in_noise(level)[0], atol=1 / 32767)
    np.testing.assert_allclose(decode(demo.players["example, level 1"].value),
                               stimuli.tone_in_noise(1.0)[0], atol=1 / 32767)
    demo.press("Heard it")
    assert demo.last_error is None
    new_level = float(demo.state().query[0])
    assert new_level != level
    np.testing.assert_allclose(decode(demo.players["this trial"].value),
                               stimuli.tone_in_noise(new_level)[0], atol=1 / 32767)
    assert f"level {new_level:.2f}" in demo.status.value


def test_detection_demo_survives_every_control_and_button():
    demo = L.detection_demo()
    assert exercise_explorer(demo, button_presses=2) > 8


def test_detection_controls_move_the_figure_and_redraws_are_stable():
    demo = L.detection_demo()
    demo.state().answer_for_me(4)
    default = png(demo.render(**demo.values()))
    for name, value in {"arm": "none", "acquisition": "EAVC", "show_truth": True}.items():
        values = dict(demo.values(), **{name: value})
        assert png(demo.render(**values)) != default, f"{name} = {value!r} drew nothing new"
    assert png(demo.render(**demo.values())) == default


def test_the_players_say_what_they_hold():
    demo = L.detection_demo()
    texts = [w.value for w in demo.widget.children if isinstance(w, W.HTML)]
    said = next(text for text in texts if "Both players" in text)
    assert f"{stimuli.TONE_FREQUENCY:.0f} Hz tone" in said and "level 1" in said


def _trust_numbers(n: int) -> list[str]:
    """What the committed held-out table says after ``n`` answers, as the demo prints it."""
    document = load_result("detection_threshold_intervals")
    row = document["result"]["held_out"]["by_answers"][str(n)]
    low, high = row["coverage_interval"]
    return [f"on {row['listeners']} simulated listeners after {n} answers",
            f"held the true threshold for {row['held']} ({row['coverage']:.0%}; 95% CI "
            f"{low:.0%}-{high:.0%})",
            f"within {row['median_abs_error']:.2f} of it"]


def test_every_estimate_states_its_interval_and_the_committed_held_out_trust():
    demo = L.detection_demo()
    demo.refresh()
    assert "How far to trust" not in demo.status.value     # no fit yet: nothing is claimed
    # the default case after the lecture's session length, as a student gets there
    state = demo.state()
    state.answer_for_me(load_result("detection_threshold_intervals")["settings"]["tuned_at"])
    demo.refresh()
    n = state.answers.size
    z = load_result("detection_threshold_intervals")["result"]["interval_rule"]["z"]
    low, high = S.threshold_interval(state.model, state.problem.threshold, z)
    assert state.interval == (low, high)
    shown = {"status": html.unescape(demo.status.value),
             "figure": " ".join(L.detection_figure(state).texts[0].get_text().split())}
    for where, text in shown.items():
        assert f"Threshold ≈ {state.thresholds[-1][1]:.2f}, 90% interval {low:.2f}" in text, \
            where
        for number in _trust_numbers(n):
            assert number in text, (where, number)
        assert "not this setting" not in text


def test_another_arm_says_it_was_not_measured():
    state = L.DetectionState(detection_problem(), "none", "eavc", seed=0)
    state.answer_for_me(L.DETECTION_SESSION["n_initial"] + 1)
    text = L._threshold_report(state)
    assert "measured with arm 'mixed' and global MI only, not this setting" in text
    assert _trust_numbers(state.answers.size)[0] in text
