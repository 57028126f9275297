"""Unit 6 "personalise it yourself": the explorer's buttons, sound and maps against the session
and the library; the explorer under the widget harness. The session loop itself is tested in
tests/simulators/test_personalisation.py, the plots in
tests/plotting/test_personalisation_session.py."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.io import wavfile  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib import stimuli  # noqa: E402
from course_lib.metrics import clopper_pearson_interval  # noqa: E402
from course_lib.results import load_result  # noqa: E402
from course_lib.preference.acquisition import bivariate_ei  # noqa: E402
from course_lib.preference.ei_convergence import average_ei_path, settled_at  # noqa: E402
from course_lib.simulators.listeners import settings_grid  # noqa: E402
from course_lib.simulators import personalisation as S  # noqa: E402
from course_lib.widgets import personalise as P  # noqa: E402
from personalisation_data import new_session  # noqa: E402


# ----- the loop ---------------------------------------------------------------------------------

def test_the_maps_and_measures_are_the_library_s():
    session = new_session()
    session.answer_for_me(8)
    model = session.model
    np.testing.assert_allclose(session.grid_bei,
                               bivariate_ei(model, session.grid, session.incumbent))
    assert session.measures[-1] == pytest.approx(np.mean(session.grid_bei))
    smoothed, settled = session.settling()
    np.testing.assert_allclose(smoothed, average_ei_path(session.measures))
    assert settled == settled_at(session.measures, threshold=session.settled_threshold)
    assert session.settled_threshold == pytest.approx(0.02)   # the model's utility sd is 2
    # the figure's mean map is the model's prediction on the drawn slice
    fig = P.session_figure(session)
    _, _, settings = session.slice_settings((0, 1), session.incumbent)
    mean, _ = model.predict(settings)
    image = fig.axes[0].images[0].get_array()
    np.testing.assert_allclose(image, mean.reshape(image.shape))
    plt.close(fig)


@pytest.mark.parametrize("choice, strength, y", [("A", 1.0, 0.95), ("A", 0.0, 0.5),
                                                 ("B", 1.0, 0.05), ("B", 0.5, 0.275),
                                                 ("same", 0.9, 0.5)])
def test_buttons_map_to_degrees_with_A_as_the_first_setting(choice, strength, y):
    assert P._answer_from_buttons(choice, strength) == pytest.approx(y)


def test_answering_A_better_makes_the_model_prefer_A():
    """The orientation: the pair (A, B) is the comparison (first, second), and y > 0.5 means
    the first was preferred, so after "A much better" the model puts A above B."""
    for choice, sign in (("A", 1), ("B", -1)):
        session = new_session(listener=False)
        A, B = session.pair
        session.answer(P._answer_from_buttons(choice, 1.0))
        mean, _ = session.model.predict(np.array([A, B]))
        assert sign * (mean[0] - mean[1]) > 0
        p_first = session.model.preference_probability(A[None, :], B[None, :])[0]
        assert sign * (p_first - 0.5) > 0
        first, second = session.asked
        np.testing.assert_array_equal(first[0], A)
        np.testing.assert_array_equal(second[0], B)


@pytest.mark.parametrize("call, name", [
    (lambda: S.PersonalisationSession(5), "n_bands"),
    (lambda: S.PersonalisationSession(2, listener="me"), "listener"),
    (lambda: S.PersonalisationSession(2, n_random=0), "n_random"),
    (lambda: S.settling_trust(5), "n_bands"),
    (lambda: S.settling_trust(1), "n_bands"),
    (lambda: S.settling_trust("2"), "n_bands"),
    (lambda: S.settling_trust(2.0), "n_bands"),
    (lambda: S.settling_trust(2, n_random=0), "n_random"),
    (lambda: P._answer_from_buttons("C"), "choice"),
    (lambda: P._answer_from_buttons("A", 1.5), "strength"),
    (lambda: P.personalise_explorer("video"), "mode"),
    (lambda: P.personalise_explorer(bands=1), "bands"),
    (lambda: P.personalise_explorer(clip="song"), "clip"),
])
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises((ValueError, TypeError)) as caught:
        call()
    assert str(caught.value).startswith(name + ":"), str(caught.value)


# ----- how far to trust "settled" ---------------------------------------------------------------

@pytest.mark.parametrize("bands", [2, 3, 4])
def test_the_settled_verdict_states_its_measured_rates_before_any_answer(bands):
    """The explorer as it opens (nothing answered, nothing settled) shows, with its verdict,
    how often the measure settled, with the explorer's own rule for its band count, on the
    committed experiment's simulated listeners, and how often their best setting so far
    stopped moving, each count the committed result's."""
    explorer = P.personalise_explorer(bands=bands, rng=0)
    settling = explorer.render(**explorer.values()).axes[4]
    assert settling.get_title() == "mean bEI: not settled"
    (trust,) = [" ".join(text.get_text().split()) for text in settling.texts
                if text.get_text().startswith("How far to trust")]
    result = load_result("personalise_explorer_settling")
    group = result["result"]["summary"][str(bands)]
    n, by = group["n_listeners"], result["settings"]["settled_by"]
    assert f"of {n} simulated listeners tuning {bands} bands" in trust
    assert f"settled by comparison {by}," in trust
    for kind in ("ei_settled", "incumbent_settled"):
        k = group[kind]["count_by"][str(by)]
        low, high = clopper_pearson_interval(k, n)
        assert f"for {k} of {n} (95% interval {100 * low:.0f}-{100 * high:.0f}%)" in trust
    assert explorer.session.n_random == result["settings"]["rules"][str(bands)]["n_random"]
    assert "another start" not in trust
    assert trust == " ".join(S.settling_trust(bands).split())
    plt.close("all")


def test_a_session_with_another_random_start_says_the_rates_are_for_another():
    explorer = P.personalise_explorer(bands=2, n_random=6, rng=0)
    fig = explorer.render(**explorer.values())
    trust = " ".join(fig.axes[4].texts[-1].get_text().split())
    assert "4 random comparisons first (this session: 6, another start)" in trust
    assert trust == " ".join(S.settling_trust(2, n_random=6).split())
    plt.close("all")


# ----- sound ------------------------------------------------------------------------------------

def decode(blob):
    rate, samples = wavfile.read(io.BytesIO(blob))
    assert rate == stimuli._SAMPLE_RATE
    return samples / 32767.0


@pytest.mark.parametrize("clip", stimuli.CLIPS)
def test_the_two_versions_are_the_clip_through_the_equaliser_at_A_and_B_loudness_matched(clip):
    session = new_session(listener=False)
    session.answer(0.3)
    A, B = session.versions(clip)
    waveform = stimuli.load_clip(clip)
    for version, setting in zip((A, B), session.pair):
        filtered = session.equaliser.apply(waveform, setting)
        scale = version @ filtered / (filtered @ filtered)
        assert scale > 0
        np.testing.assert_allclose(version, scale * filtered, rtol=0, atol=1e-12)
    assert stimuli._rms(A) == pytest.approx(stimuli._rms(B), rel=1e-12)


def test_players_follow_the_pair_and_the_sound_choice_and_never_autoplay():
    explorer = P.personalise_explorer("simulated", 2, rng=0)
    explorer.refresh()
    for letter in "AB":
        assert explorer.players[letter].autoplay is False
        assert explorer.players[letter].format == "wav"
    np.testing.assert_allclose(decode(explorer.players["A"].value),
                               explorer.session.versions("speech")[0], atol=1 / 32767)
    explorer.controls["strength"].value = 0.8
    explorer.buttons["B better"].click()
    assert explorer.last_error is None
    assert explorer.session.answers[-1] == pytest.approx(0.5 - P._MAX_DEGREE * 0.8)
    np.testing.assert_allclose(decode(explorer.players["B"].value),
                               explorer.session.versions("speech")[1], atol=1 / 32767)
    assert "She sells sea shells" in explorer.transcript.value
    explorer.controls["clip"].value = "music"
    np.testing.assert_allclose(decode(explorer.players["A"].value),
                               explorer.session.versions("music")[0], atol=1 / 32767)
    assert "without words" in explorer.transcript.value   # the text follows the sound
    plt.close("all")


# ----- the explorer under the harness ----------------------------------------------------------

@pytest.mark.parametrize("mode, bands, presses", [("simulated", 2, 1), ("audio", 3, 1)])
def test_explorer_survives_every_control_and_button(mode, bands, presses):
    explorer = P.personalise_explorer(mode, bands, rng=1)
    checked = exercise_explorer(explorer, button_presses=presses)
    assert checked >= 1 + 2 * len(explorer.controls) + len(explorer.buttons)
    expected = {"A better", "B better", "No difference", "Start again"}
    if mode == "simulated":
        expected |= {"Answer for me", "Run 10 steps"}
    assert set(explorer.buttons) == expected


def test_run_10_steps_answers_ten_times_and_start_again_empties_the_maps():
    explorer = P.personalise_explorer("simulated", 2, rng=0)
    explorer.buttons["Run 10 steps"].click()
    assert explorer.last_error is None and explorer.session.n_answers == 10
    fig = explorer.render(**explorer.values())
    assert "10 answers" in fig.axes[0].get_title()
    # the verdict keeps its measured rates after answers too
    assert fig.axes[4].texts[-1].get_text().split() == S.settling_trust(2).split()
    explorer.buttons["Start again"].click()
    fig = explorer.render(**explorer.values())
    assert "no answers yet" in fig.axes[0].get_title()
    plt.close("all")


def test_show_hidden_preference_draws_the_irf_and_its_optimum():
    explorer = P.personalise_explorer("simulated", 2, rng=0)
    explorer.session.answer_for_me(6)
    def drawn(show_truth):      # what the map shows (the explorer redraws one figure)
        ax = explorer.render(**(explorer.values() | {"show_truth": show_truth})).axes[0]
        return [line.get_label() for line in ax.lines], len(ax.collections)

    (hidden, n_hidden), (shown, n_shown) = drawn(True), drawn(False)
    assert "hidden optimum" in hidden and "hidden optimum" not in shown
    assert n_hidden > n_shown                    # the IRF's contours
    assert drawn(True) == (hidden, n_hidden)     # and back: nothing left over
    plt.close("all")


def test_slices_of_three_bands_hold_the_other_band_at_the_incumbent():
    explorer = P.personalise_explorer("simulated", 3, rng=0)
    session = explorer.session
    session.answer_for_me(6)
    fig = explorer.render(**(explorer.values() | {"shown": (0, 2)}))
    (note,) = fig.texts
    assert f"slice through the incumbent (mid {session.incumbent[1]:+.0f} dB)" in \
        note.get_text()
    _, _, settings = session.slice_settings((0, 2), session.incumbent)
    assert np.all(settings[:, 1] == session.incumbent[1])
    assert fig.axes[0].get_xlabel() == "bass gain (dB)"
    assert fig.axes[0].get_ylabel() == "treble gain (dB)"
    plt.close("all")


def test_slice_settings_cover_the_gain_range_every_db():
    session = new_session(4, listener=False)
    axis_x, axis_y, settings = session.slice_settings((1, 3), np.array([3.0, 0, -6, 0]))
    assert axis_x[0] == -12 and axis_x[-1] == 12 and axis_x.size == 25
    assert settings.shape == (625, 4)
    np.testing.assert_array_equal(np.unique(settings[:, 0]), [3.0])
    np.testing.assert_array_equal(np.unique(settings[:, 2]), [-6.0])
    # rows of a map follow the second band: settings[k] sits at (row k // 25, column k % 25)
    assert settings[26, 1] == axis_x[1] and settings[26, 3] == axis_y[1]
    assert settings_grid(-12, 12, 1, 2).shape[0] == settings.shape[0]


def png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=40)
    return buffer.getvalue()


@pytest.mark.parametrize("bands, shown", [(2, (0, 1)), (3, (1, 2))])
def test_redrawing_in_place_gives_the_picture_of_a_new_figure(bands, shown):
    """The explorer redraws one figure in place (cheaper than a new one); after a different
    state, the slice changed and the hidden preference shown and hidden, it must draw exactly
    what a new figure draws."""
    explorer = P.personalise_explorer("simulated", bands, rng=2)
    session = explorer.session
    values = explorer.values()
    explorer.render(**values)
    session.answer_for_me(7)
    if bands > 2:
        explorer.render(**(values | {"shown": (0, 1), "show_truth": True}))
        values = values | {"shown": shown}
    else:
        explorer.render(**(values | {"show_truth": True}))
    in_place = png(explorer.render(**values))
    assert in_place == png(P.session_figure(session, shown))
    plt.close("all")


def test_session_figure_checks_its_arguments():
    session = new_session(3)
    with pytest.raises(ValueError, match="^shown:"):
        P.session_figure(session, (0, 3))
    with pytest.raises(TypeError, match="^session:"):
        P.session_figure("session")
    session.answer_for_me(3)
    fig = P.session_figure(session, (1, 2), show_truth=True)
    assert fig.axes[0].get_xlabel() == "mid gain (dB)" and fig.axes[0].collections
