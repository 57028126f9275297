"""Unit 7 explorers: active learning of a detection threshold (Wu et al. 2025 section 4).

* :func:`levelset_explorer`: "be the observer" in 2-D. A level-set session
  (:class:`~course_lib.simulators.levelset_session.LevelSetSession`) proposes a stimulus; you
  answer yes or no (with the true P(yes) there shown, you can play the observer), or a simulated
  observer answers (:func:`~course_lib.simulators.psychophysics.simulate_answers`). Choose the
  problem (the psychometric discrimination function or the 2-D norm ball, Wu et al.'s section 4.4),
  the arm (constraints in the mixed likelihood, the same knowledge as pseudo-answers, or none) and
  the acquisition (global MI or EAVC). The figure: the posterior mean of the latent with the true
  (dashed) and the estimated (white) 75 % contour, P(f below the threshold), the acquisition
  over the map with the next query (magenta star), and F1 of the estimated set against the
  truth after every trial.
* the detection demo, a tone in noise you can listen to and answer, is
  :func:`course_lib.widgets.detection.detection_demo`; it keeps its session in this module's
  :class:`ExplorerState` and shows it in a :class:`LevelSetExplorer`.

Every step (refit, acquisition, next query, F1 against the truth) is the session's; this module
only keeps the explorer's state (the session, the next query and the maps drawn from the fitted
model) and swaps in a new state only after a whole step succeeded, so a failed step leaves it
unchanged. The sessions are smaller than Wu et al.'s (``_SESSION_OPTIONS``: 5 initial trials,
256 candidates and references, 2^12 points for F1) so that one step stays well under a second.
"""

from __future__ import annotations

import copy
import html

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from ..mixed.constraints import ARMS
from ..plotting.levelset import plot_contours, plot_f1_trace, plot_map, plot_trials
from ..simulators.explorer_sessions import seeded_session
from ..simulators.levelset_session import LevelSetMaps, levelset_maps
from ..simulators.psychophysics import (LevelSetProblem, norm_ball_problem, psychometric_problem,
                                        simulate_answers)
from ..stimuli import tone_in_noise, wav_bytes
from ..validation import RngLike, as_float_array, as_positive_int, as_rng, check_choice
from .base import Explorer

__all__ = ["ExplorerState", "simulated_state", "levelset_figure", "levelset_explorer"]

#: The 2-D problems of the explorer, by the name its dropdown shows.
_PROBLEMS = {"psychometric": psychometric_problem, "norm ball": lambda: norm_ball_problem(dim=2)}
# The acquisitions, dropdown name -> the session's name.
_ACQUISITIONS = {"global MI": "global_mi", "EAVC": "eavc"}
# the explorers' sessions: fewer initial trials than Wu et al.'s 10 (a student clicks them),
# 256 Sobol candidates and references (1024 each in the paper-sized experiments) and F1 on 2^12
# points: together with the maps one step stays well under a second on one laptop core
_SESSION_OPTIONS = {"n_initial": 5, "n_candidates": 256, "n_references": 256, "n_test": 2 ** 12}
_N_RUN = 10        # trials answered by "Run 10 trials"


class ExplorerState:
    """One level-set session as an explorer holds it: the ``session`` (a
    :class:`~course_lib.simulators.levelset_session.LevelSetSession` with ``_SESSION_OPTIONS``), the
    next ``query`` (box units), the answered ``X`` / ``answers`` and the ``maps`` of the
    current model.

    :meth:`answer` and :meth:`answer_for_me` run their steps on a copy of the session and commit
    it only when every part (refits, next queries, maps) succeeded: an error leaves the state as
    it was. ``seed`` seeds the session and the simulated observer afresh at every
    :meth:`start_again`.
    """

    options = _SESSION_OPTIONS
    # the maps show the current model only: a run of answers draws them after its last step
    summarises_every_step = False

    def __init__(self, problem: LevelSetProblem, arm: str, acquisition: str, *, seed: int):
        self.problem = problem
        self.arm = check_choice(arm, "arm", ARMS)
        self.acquisition = check_choice(acquisition, "acquisition",
                                         tuple(_ACQUISITIONS.values()))
        self.seed = int(seed)
        self.start_again()

    def start_again(self) -> None:
        """Forget every answer: a new session from the same seed."""
        self.session, self.observer_rng = seeded_session(
            self.problem, self.arm, self.acquisition, seed=self.seed, options=self.options)
        self.query = np.asarray(self.session.next_query(), float)
        self.summary = self._summary(self.session, ())

    def _summary(self, session, previous):
        """What is drawn of a session beside its own history, given the summary before its
        last answer (``previous``): here the maps of its model alone."""
        return levelset_maps(session)

    @property
    def maps(self) -> LevelSetMaps:
        return self.summary

    @property
    def model(self):
        return self.session.model

    @property
    def X(self) -> np.ndarray:
        """The answered queries (t, d), box units."""
        return self.session.history["X"]

    @property
    def answers(self) -> np.ndarray:
        return self.session.history["answers"]

    def answer(self, y) -> None:
        """Record the answer ``y`` (1: yes, 0: no) at the current query, refit, and ask the
        session for the next query."""
        y = float(as_float_array(y, "y", ndim=0))
        if y not in (0.0, 1.0):
            raise ValueError(f"y: expected 1 (yes) or 0 (no), got {y:g}")
        self._steps(lambda query: y, 1)

    def answer_for_me(self, n: int = 1) -> None:
        """Let the simulated observer answer the next ``n`` queries (all of them, or none if a
        step fails)."""
        n = as_positive_int(n, "n")
        rng = copy.deepcopy(self.observer_rng)    # advanced only when every step succeeds
        self._steps(lambda query: float(simulate_answers(self.problem, query[None, :],
                                                         rng=rng)[0]), n)
        self.observer_rng = rng

    def _steps(self, answer_at, n: int) -> None:
        """``n`` steps, each answering ``answer_at(query)`` at the current query, refitting and
        asking for the next query, on a copy of the session; committed after the last."""
        session = copy.deepcopy(self.session)       # the committed session stays as it was
        query, summary = self.query, self.summary
        for step in range(n):
            session.observe(query, answer_at(query))
            query = np.asarray(session.next_query(), float)
            if self.summarises_every_step or step == n - 1:
                summary = self._summary(session, summary)
        # commit only after everything above succeeded
        self.session, self.query, self.summary = session, query, summary

    def true_p_yes(self, x) -> float:
        """The simulated observer's P(yes) at ``x``."""
        return float(self.problem.answer_probability(np.atleast_2d(x))[0])


def simulated_state(problem: str = "psychometric", arm: str = "mixed",
                    acquisition: str = "global MI", n_trials: int = 20, *,
                    rng: RngLike = 0) -> ExplorerState:
    """An :class:`ExplorerState` after ``n_trials`` answers of the simulated observer, for a
    static figure under an explorer: ``levelset_figure(simulated_state(...))``. ``problem``,
    ``arm`` and ``acquisition`` as the explorer's dropdowns; ``rng`` as the explorer's, so the
    same arguments give the explorer's state after "Run 10 trials" twice (n_trials = 20)."""
    check_choice(problem, "problem", tuple(_PROBLEMS))
    check_choice(arm, "arm", ARMS)
    check_choice(acquisition, "acquisition", tuple(_ACQUISITIONS))
    n_trials = as_positive_int(n_trials, "n_trials", minimum=0)
    state = ExplorerState(_PROBLEMS[problem](), arm, _ACQUISITIONS[acquisition], seed=_seed(rng))
    if n_trials:
        state.answer_for_me(n_trials)
    return state


class _States:
    """The explorer's states, one per setting of the session-defining controls (switching back
    to a setting finds its answers again); each new one seeded with ``seed``."""

    def __init__(self, make, seed: int):
        self._make, self._seed, self._states = make, seed, {}

    def get(self, *setting) -> ExplorerState:
        if setting not in self._states:
            self._states[setting] = self._make(*setting, self._seed)
        return self._states[setting]


class LevelSetExplorer(Explorer):
    """An :class:`Explorer` with a status line above its buttons, and (for the detection demo)
    audio players that follow the state (``players``, never autoplaying). ``state()`` is the
    :class:`ExplorerState` of the current control values."""

    # each setting of the session controls keeps its own session (_States), which only the
    # buttons change: a setting shown before, with no press since, shows its figure again
    keeps_figures = True

    def __init__(self, states: _States, session_controls, status, render, controls, buttons,
                 title, players=None, sound_text: str = ""):
        self._states, self._session_controls, self._status = states, session_controls, status
        self.players = dict(players or {})
        self.status = W.HTML()
        # a step refits the model and scores every candidate (about half a second), ten steps
        # several seconds: each says so at once, in a live region, the buttons disabled meanwhile
        super().__init__(render, controls, buttons, title,
                         busy="Fitting the model and choosing the next stimulus…")
        for button in self.buttons.values():
            button.layout = W.Layout(width="auto")
        rows = [W.HTML(f"<b>{title}</b>"), self.status, self._busy_line]
        if self.players:
            rows.append(W.HBox([W.HBox([W.HTML(label), player],
                                       layout=W.Layout(align_items="center", margin="0 12px 0 0"))
                                for label, player in self.players.items()]))
            rows.append(W.HTML(html.escape(sound_text)))
        rows += [W.HBox(list(self.buttons.values())), W.HBox(list(self.controls.values())),
                 self.output, self._slider_names]
        self.widget = W.VBox(rows)
        self._sound_of = None

    def state(self) -> ExplorerState:
        values = self.values()
        return self._states.get(*(values[name] for name in self._session_controls))

    def update_sound(self) -> None:
        """Point the trial player at the current query's stimulus (only when it changed)."""
        if "this trial" not in self.players:
            return
        level = float(self.state().query[0])
        if level != self._sound_of:
            self.players["this trial"].value = wav_bytes(tone_in_noise(level)[0])
            self._sound_of = level

    def refresh(self) -> None:
        # a new setting of the session controls starts its session here: busy from the start
        with self._working(self._busy_text, moved=self._moved):
            try:
                self.status.value = self._status(self.state(), **self.values())
                self.update_sound()
            except Exception as err:      # shown in the panel like a render error
                self._show_failed_update(err, "Panel")
                return
            super().refresh()


def _dropdown(options, value, description, width="190px"):
    return W.Dropdown(options=options, value=value, description=description,
                      style={"description_width": "initial"}, layout=W.Layout(width=width))


def _seed(rng: RngLike) -> int:
    return int(as_rng(rng).integers(2 ** 31))


# ----- the 2-D explorer -----------------------------------------------------------------------

def levelset_figure(state: ExplorerState, *, show_truth: bool = True) -> Figure:
    """The 2-D explorer's figure for ``state``: the posterior mean with the estimated (white)
    and, with ``show_truth``, the true (dashed) threshold contour, the answers, constraints and
    next query; P(f < threshold); the acquisition map; F1 against the number of trials."""
    if not isinstance(state, ExplorerState) or not isinstance(state.summary, LevelSetMaps):
        raise TypeError(f"state: expected the ExplorerState of a 2-D explorer, got "
                        f"{type(state).__name__}")
    maps, problem = state.maps, state.problem
    fig = Figure(figsize=(9.6, 3.3))
    grid = fig.add_gridspec(1, 4, left=0.055, right=0.99, bottom=0.15, top=0.8, wspace=0.3,
                            width_ratios=[1, 1, 1, 1.05])
    ax_mean, ax_p, ax_acq, ax_f1 = (fig.add_subplot(grid[0, k]) for k in range(4))
    names = ("x1", "x2")
    ax_x, ax_y = maps.axis_x, maps.axis_y
    plot_map(ax_mean, ax_x, ax_y, maps.mean, cmap="viridis", names=names)
    plot_map(ax_p, ax_x, ax_y, maps.p_below, cmap="RdBu_r", vmin=0, vmax=1, names=names)
    top = float(maps.acquisition.max())
    plot_map(ax_acq, ax_x, ax_y, maps.acquisition, cmap="Greens", vmin=0,
             vmax=max(top, 1e-9), names=names)
    truth = maps.truth if show_truth else None
    for ax in (ax_mean, ax_p, ax_acq):
        plot_contours(ax, ax_x, ax_y, threshold=problem.threshold, true_latent=truth,
                      mean=maps.mean if state.model is not None else None)
        plot_trials(ax, state.X, state.answers,
                    constraints=problem.constraint_X if state.arm != "none" else None,
                    query=state.query)
    for ax in (ax_p, ax_acq):
        ax.set_ylabel("")
    t = state.answers.size
    ax_mean.set_title(f"posterior mean of f, {t} trials\n{maps.mean.min():+.1f} (dark) to "
                      f"{maps.mean.max():+.1f} (yellow)", fontsize="small")
    ax_p.set_title("P(f < threshold): red = below,\ni.e. P(yes) under 75 %", fontsize="small")
    rule = next(k for k, v in _ACQUISITIONS.items() if v == state.acquisition)
    ax_acq.set_title(f"{rule}" + (f", max {top:.3g}" if top > 0 else ": after a fit") +
                     "\n★ next query", fontsize="small")
    history = state.session.history
    f1 = history["f1"]
    plot_f1_trace(ax_f1, history["n_trials"], f1, n_initial=state.session.n_initial,
                  x_max=t + 5)
    last = f"{f1[-1]:.2f}" if f1.size else "-"
    ax_f1.set_title(f"F1 of the estimated set: {last}", fontsize="small")
    fig.text(0.055, 0.98, f"{problem.name}, arm '{state.arm}'. Dots: yes (filled), no (open); "
             "diamonds: constraints; white line: estimated 75 % contour"
             + ("; dashed: the true one" if show_truth else ""), va="top", fontsize="small")
    return fig


def _levelset_status(state: ExplorerState, problem, arm, acquisition, show_truth) -> str:
    x = ", ".join(f"{v:+.2f}" for v in state.query)
    said = (f" The simulated observer says yes there with probability "
            f"{state.true_p_yes(state.query):.2f}." if show_truth else "")
    return (f"<b>Trial {state.answers.size + 1}</b>: the model asks at x = ({x}).{said} "
            "Answer as the observer, or let the simulated one answer.")


def levelset_explorer(problem: str = "psychometric", arm: str = "mixed",
                      acquisition: str = "global MI", *, rng: RngLike = 0) -> LevelSetExplorer:
    """Be the observer of a 2-D level-set experiment (module docstring).

    ``problem``: "psychometric" or "norm ball"; ``arm``: "mixed", "pseudo" or "none";
    ``acquisition``: "global MI" or "EAVC" (the starting values of the dropdowns); ``rng``
    seeds every session and the simulated observer, so a rendered page is the same on every run.
    Buttons: "Yes" / "No" (your answer at the star), "Answer for me", "Run 10 trials",
    "Start again".
    """
    check_choice(problem, "problem", tuple(_PROBLEMS))
    check_choice(arm, "arm", ARMS)
    check_choice(acquisition, "acquisition", tuple(_ACQUISITIONS))
    problems = {name: make() for name, make in _PROBLEMS.items()}
    states = _States(lambda p, a, q, seed: ExplorerState(problems[p], a, _ACQUISITIONS[q],
                                                         seed=seed), _seed(rng))
    controls = {"problem": _dropdown(list(_PROBLEMS), problem, "problem"),
                "arm": _dropdown(list(ARMS), arm, "arm", "140px"),
                "acquisition": _dropdown(list(_ACQUISITIONS), acquisition, "acquisition"),
                "show_truth": W.Checkbox(value=True, description="show truth", indent=False,
                                         layout=W.Layout(width="120px"))}
    session_controls = ("problem", "arm", "acquisition")

    def render(problem, arm, acquisition, show_truth) -> Figure:
        return levelset_figure(states.get(problem, arm, acquisition), show_truth=show_truth)

    def act(step):
        return lambda: step(explorer.state())

    buttons = {"Yes": act(lambda s: s.answer(1)), "No": act(lambda s: s.answer(0)),
               "Answer for me": act(lambda s: s.answer_for_me()),
               f"Run {_N_RUN} trials": act(lambda s: s.answer_for_me(_N_RUN)),
               "Start again": act(lambda s: s.start_again())}
    explorer = LevelSetExplorer(states, session_controls, _levelset_status, render, controls,
                                buttons, "Be the observer: where is P(yes) below 75 %?")
    return explorer
