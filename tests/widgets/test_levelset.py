"""Unit 7's 2-D level-set explorer: its maps against the library's calls, the state after a failed
step, determinism, and the harness over every control and button (the detection demo, which shares
its state and explorer, is tested in test_detection.py; the plots in
tests/plotting/test_levelset.py)."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.special import ndtr  # noqa: E402
from widget_harness import exercise_explorer  # noqa: E402

from course_lib.mixed.levelset import eavc, global_mi  # noqa: E402
from course_lib.mixed.levelset_metrics import f1_levelset  # noqa: E402
from course_lib.metrics import levelset_probability  # noqa: E402
from course_lib.simulators import levelset_session as S  # noqa: E402
from course_lib.widgets import levelset as L  # noqa: E402
from course_lib.widgets.base import _figure_image  # noqa: E402


def png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=40)
    plt.close(fig)
    return buffer.getvalue()


def state_2d(problem="psychometric", arm="mixed", acquisition="global_mi", seed=0):
    return L.ExplorerState(L._PROBLEMS[problem](), arm, acquisition, seed=seed)


def snapshot(state):
    return (state.session, state.query.copy(), state.X.copy(), state.answers.copy(),
            state.summary, state.observer_rng.bit_generator.state)


# ----- the 2-D explorer's state -----------------------------------------------------------------

@pytest.mark.parametrize("acquisition", ["global_mi", "eavc"])
def test_maps_are_the_library_s_on_the_unit_square(acquisition):
    state = state_2d(acquisition=acquisition)
    state.answer_for_me(L._SESSION_OPTIONS["n_initial"] + 2)
    problem, model, maps = state.problem, state.model, state.maps
    gx, gy = np.meshgrid(maps.axis_x, maps.axis_y)
    points = np.column_stack([gx.ravel(), gy.ravel()])
    np.testing.assert_allclose(maps.axis_x, np.linspace(-1, 1, S._MAP_SIZE))
    unit = (points + 1) / 2
    mean, var = model.predict(unit)
    np.testing.assert_allclose(maps.mean.ravel(), mean)
    np.testing.assert_allclose(maps.p_below.ravel(),
                               levelset_probability(mean, var, problem.threshold))
    rule = global_mi if acquisition == "global_mi" else eavc
    np.testing.assert_allclose(maps.acquisition.ravel(),
                               rule(model, unit, state.session.references, problem.threshold),
                               rtol=1e-12)
    np.testing.assert_allclose(maps.truth.ravel(), problem.probit_latent(points))
    # the F1 trace drawn is the session's, against the truth on the unit square
    assert state.session.history["f1"][-1] == pytest.approx(f1_levelset(
        model, problem.unit_latent, problem.threshold, problem.unit_bounds,
        n_points=L._SESSION_OPTIONS["n_test"]))


def test_before_the_first_fit_the_maps_show_the_prior():
    state = state_2d("norm ball", "none")
    assert state.model is None
    np.testing.assert_array_equal(state.maps.mean, 0.0)
    prior_sd = np.sqrt(state.session.kernel.diag(np.zeros((1, 2)))[0])   # stationary
    np.testing.assert_allclose(state.maps.p_below, ndtr(state.problem.threshold / prior_sd))
    np.testing.assert_array_equal(state.maps.acquisition, 0.0)


def test_answers_are_recorded_at_the_asked_query_and_the_query_moves_on():
    state = state_2d("norm ball", "pseudo", "eavc")
    asked = []
    for y in (1, 0, 1):
        asked.append(state.query.copy())
        state.answer(y)
    np.testing.assert_array_equal(state.X, np.array(asked))
    np.testing.assert_array_equal(state.answers, [1, 0, 1])
    assert state.X.shape == (3, 2) and np.all(np.abs(state.X) <= 1)


def test_a_failed_step_leaves_the_state_as_it_was(monkeypatch):
    state = state_2d()
    state.answer(1)
    before = snapshot(state)

    def broken(*args, **kwargs):
        raise RuntimeError("acquisition failed")

    monkeypatch.setattr(L, "levelset_maps", broken)     # fails after the refit and next query
    with pytest.raises(RuntimeError, match="acquisition failed"):
        state.answer(0)
    after = snapshot(state)
    assert after[0] is before[0] and after[4] is before[4] and after[5] == before[5]
    for a, b in zip(before[1:4], after[1:4]):
        np.testing.assert_array_equal(a, b)
    # and the simulated observer's answer is not used up by a failed step
    with pytest.raises(RuntimeError, match="acquisition failed"):
        state.answer_for_me()
    assert snapshot(state)[5] == before[5] and state.answers.size == 1


def test_a_run_of_answers_is_one_answer_at_a_time_with_the_maps_drawn_once(monkeypatch):
    """"Run 10 trials" draws the maps of its last model only (they show the current model
    alone): the same answers, queries and maps as one press at a time, and a failure in any
    step leaves the state as it was before the press."""
    one_at_a_time, at_once = state_2d(), state_2d()
    for _ in range(8):
        one_at_a_time.answer_for_me()
    drawn = []

    def counted(session):
        drawn.append(session.n_answers)
        return S.levelset_maps(session)

    monkeypatch.setattr(L, "levelset_maps", counted)
    at_once.answer_for_me(8)
    assert drawn == [8], f"maps drawn after answers {drawn}, expected after the 8th only"
    for a, b in ((one_at_a_time.X, at_once.X), (one_at_a_time.answers, at_once.answers),
                 (one_at_a_time.query, at_once.query)):
        np.testing.assert_array_equal(a, b)
    for name in ("mean", "p_below", "acquisition"):
        np.testing.assert_array_equal(getattr(one_at_a_time.maps, name),
                                      getattr(at_once.maps, name))
    before = snapshot(at_once)
    def broken(session):
        raise RuntimeError("maps failed")

    monkeypatch.setattr(L, "levelset_maps", broken)     # after the third refit and query
    with pytest.raises(RuntimeError, match="maps failed"):
        at_once.answer_for_me(3)
    after = snapshot(at_once)
    assert after[0] is before[0] and after[4] is before[4] and after[5] == before[5]


@pytest.mark.parametrize("y", [0.5, 2, -1])
def test_an_answer_that_is_not_yes_or_no_is_refused_naming_y(y):
    state = state_2d()
    before = snapshot(state)
    with pytest.raises(ValueError, match=r"^y:"):
        state.answer(y)
    assert state.session is before[0] and state.answers.size == 0


def test_the_same_seed_gives_the_same_session_and_another_seed_another():
    runs = []
    for seed in (3, 3, 4):
        state = state_2d(seed=seed)
        state.answer_for_me(12)
        runs.append((state.X, state.answers))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert not np.array_equal(runs[0][0], runs[2][0])


def test_start_again_forgets_the_answers_and_repeats_the_first_query():
    state = state_2d()
    first = state.query.copy()
    state.answer_for_me(4)
    state.start_again()
    assert state.answers.size == 0 and state.X.shape == (0, 2) and state.model is None
    np.testing.assert_array_equal(state.query, first)


def test_the_simulated_observer_answers_from_the_problem_s_probability():
    state = state_2d("norm ball")
    state.answer_for_me(15)
    p = state.problem.answer_probability(state.X)
    # 15 answers, each yes with probability p: the log-likelihood of what was answered is far
    # above that of the opposite answers unless the observer ignores p
    ll = np.sum(np.where(state.answers == 1, np.log(p), np.log1p(-p)))
    flipped = np.sum(np.where(state.answers == 1, np.log1p(-p), np.log(p)))
    assert ll > flipped
    assert state.true_p_yes(state.X[0]) == pytest.approx(p[0])


def test_simulated_state_is_the_explorer_s_state_after_the_same_answers():
    state = L.simulated_state("norm ball", "pseudo", "EAVC", 7, rng=5)
    explorer = L.levelset_explorer("norm ball", "pseudo", "EAVC", rng=5)
    explorer.state().answer_for_me(7)
    np.testing.assert_array_equal(state.X, explorer.state().X)
    np.testing.assert_array_equal(state.answers, explorer.state().answers)
    assert png(L.levelset_figure(state)) == png(explorer.render(**explorer.values()))
    with pytest.raises(ValueError, match="^n_trials:"):
        L.simulated_state(n_trials=-1)


# ----- the 2-D explorer -------------------------------------------------------------------------

def test_levelset_explorer_survives_every_control_and_button():
    explorer = L.levelset_explorer()
    assert exercise_explorer(explorer, button_presses=1) > 10


def test_every_control_moves_the_figure():
    explorer = L.levelset_explorer()
    explorer.state().answer_for_me(8)           # past the initial trials: a fitted model
    default = png(explorer.render(**explorer.values()))
    changes = {"problem": "norm ball", "arm": "none", "acquisition": "EAVC",
               "show_truth": False}
    for name, value in changes.items():
        values = dict(explorer.values(), **{name: value})
        assert png(explorer.render(**values)) != default, f"{name} = {value!r} drew nothing new"


def test_buttons_answer_at_the_star_and_start_again_empties():
    explorer = L.levelset_explorer(rng=1)
    query = explorer.state().query.copy()
    explorer.press("Yes")
    assert explorer.last_error is None
    state = explorer.state()
    np.testing.assert_array_equal(state.X[-1], query)
    assert state.answers.tolist() == [1.0]
    explorer.press("No")
    assert state.answers.tolist() == [1.0, 0.0]
    explorer.press(f"Run {L._N_RUN} trials")
    assert state.answers.size == 2 + L._N_RUN
    explorer.press("Answer for me")
    assert state.answers.size == 3 + L._N_RUN
    explorer.press("Start again")
    assert explorer.state().answers.size == 0
    # the status line names the next query
    assert "Trial 1" in explorer.status.value


def test_switching_settings_keeps_each_setting_s_answers():
    explorer = L.levelset_explorer()
    explorer.press("Yes")
    explorer.controls["arm"].value = "pseudo"
    assert explorer.state().answers.size == 0 and explorer.state().arm == "pseudo"
    explorer.controls["arm"].value = "mixed"
    assert explorer.state().answers.tolist() == [1.0]


def test_a_failed_button_leaves_the_explorer_as_it_was(monkeypatch):
    explorer = L.levelset_explorer()
    explorer.press("Yes")
    before = png(explorer.render(**explorer.values()))
    monkeypatch.setattr(L, "levelset_maps", lambda *a, **k: 1 / 0)
    explorer.press("No")
    assert isinstance(explorer.last_error, ZeroDivisionError)
    assert explorer.state().answers.tolist() == [1.0]
    monkeypatch.undo()
    explorer.refresh()
    assert explorer.last_error is None
    assert png(explorer.render(**explorer.values())) == before


def test_bad_arguments_name_themselves():
    for call, name in ((lambda: L.levelset_explorer("ellipsoid"), "problem"),
                       (lambda: L.levelset_explorer(arm="both"), "arm"),
                       (lambda: L.levelset_explorer(acquisition="BALD"), "acquisition"),
                       (lambda: L.levelset_figure("state"), "state")):
        with pytest.raises((ValueError, TypeError), match=rf"^{name}:"):
            call()


# ----- timing of one interactive step (reported, never asserted) -------------------------------

def test_one_step_figure_is_a_png():
    explorer = L.levelset_explorer()
    explorer.press("Answer for me")
    image = _figure_image(explorer.render(**explorer.values()))
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n"
