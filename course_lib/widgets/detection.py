"""Unit 7 explorer: a detection task you can do (Wu et al. 2025 section 4, in one dimension).

:func:`detection_demo`: a 1 kHz tone in noise (:func:`~course_lib.stimuli.tone_in_noise`) at a
level in [0, 1] that the model chooses; you listen (no autoplay) and answer "heard it" or "did
not", or a simulated listener answers. The figure (:func:`detection_figure`): the model's
P(heard) curve with its 75 % threshold after every answer, the acquisition over the levels, and
the threshold estimate after each answer (:class:`DetectionState` keeps them). The session's
state, the buttons and the status line are those of the 2-D explorer
(:mod:`course_lib.widgets.levelset`).

What "level zero is never heard" means here. Wu et al.'s constraint f = 0 at zero intensity says
P(yes) = Phi(0) = 50 %: its tasks are two-alternative (which interval held the stimulus?), where
a stimulus that cannot be perceived still gets half the answers right by guessing. The demo is
a yes/no task: with no tone a listener should say "heard it" only by mistake (a false alarm),
so the same knowledge is P(heard | level 0) = the false-alarm floor, here 1 %
(:func:`course_lib.simulators.psychophysics.detection_problem`), a latent target
Phi^-1(0.01) = -2.33 with Wu et al.'s noise sd 0.2 |y| + 0.1
(:func:`~course_lib.mixed.constraints.constraint_sigma`; a-priori P(heard | 0) below about
10 %). Writing Wu et al.'s f(0) = 0 into a yes/no task would tell the model that silence is
"heard" half of the time, and drag its threshold estimate towards level zero.

How far to trust the estimate. Every estimate comes with an interval
(:func:`~course_lib.simulators.levelset_session.threshold_interval`, of the width z that
``experiments/detection_threshold_intervals.py`` set on simulated listeners) and with what that
experiment measured on other simulated listeners after as many answers: how often the interval
held their true threshold and the estimate's median error (``_threshold_report``), read from
its committed result.
"""

from __future__ import annotations

import html
import textwrap

import ipywidgets as W
from matplotlib.figure import Figure

from ..mixed.constraints import ARMS
from ..plotting.levelset import QUERY_COLOUR, plot_detection_curve
from ..stated_rates import fitted_state, stated_rate
from ..simulators.explorer_sessions import DETECTION_SESSION
from ..simulators.levelset_session import acquisition_curve, detection_curve, threshold_interval
from ..simulators.psychophysics import LISTENER_SPREAD, LISTENER_U50, detection_problem
from ..stimuli import (TONE_CLIP_DURATION, TONE_DURATION, TONE_FREQUENCY, tone_in_noise,
                       tone_snr_db, wav_bytes)
from ..validation import RngLike, check_choice
from .levelset import _ACQUISITIONS, ExplorerState, LevelSetExplorer, _dropdown, _seed, _States

__all__ = ["DetectionState", "detection_figure", "detection_demo"]

# what the two players hold, for a listener who cannot hear them (the trial's own level is the
# question, so the text does not say whether its tone is audible)
_DETECTION_SOUNDS = (f"Both players: {TONE_CLIP_DURATION:g} s of steady noise with a "
                     f"{TONE_FREQUENCY:.0f} Hz tone of {TONE_DURATION:g} s in its middle; in "
                     "'this trial' at the level asked (faint or absent at low levels), in the "
                     "example at level 1, clearly above the noise.")


class DetectionState(ExplorerState):
    """The demo's :class:`ExplorerState` (its session's options
    :data:`~course_lib.simulators.explorer_sessions.DETECTION_SESSION`): no maps; instead
    ``thresholds``, the 75 % threshold estimate after every fit (None while the model's curve
    never reaches 75 %), at ``n_trials`` answers. A real listener's truth is unknown: no F1."""

    options = DETECTION_SESSION
    summarises_every_step = True      # a threshold after every answer

    def _summary(self, session, previous):
        """The thresholds so far (``previous``), with the one of this session's model
        appended."""
        if session.model is None:
            return ()
        previous = previous if session.n_answers > self.options["n_initial"] else ()
        return (*previous, (session.n_answers,
                            detection_curve(session.model, self.problem.threshold)[-1]))

    @property
    def thresholds(self) -> list:
        """[(answers, threshold estimate or None)] after every fit."""
        return list(self.summary)

    def curve(self):
        """:func:`course_lib.simulators.levelset_session.detection_curve` of the current
        model."""
        return detection_curve(self.model, self.problem.threshold)

    @property
    def interval(self):
        """(low, high) of the current model at the committed width z
        (:func:`~course_lib.simulators.levelset_session.threshold_interval`); (None, None)
        before the first fit."""
        if self.model is None:
            return None, None
        z = fitted_state("detection.interval_rule")["z"]
        return threshold_interval(self.model, self.problem.threshold, z)


def _threshold_report(state: DetectionState) -> str | None:
    """The estimate with its interval and how far to trust them: the committed held-out
    coverage (with its exact interval) and median error at this number of answers (at the most
    measured beyond it), and whether this arm and acquisition were the measured ones. None
    before the first fit."""
    if state.model is None:
        return None
    measured = stated_rate("detection.threshold_interval")
    settings, rows = measured.settings, measured.value
    rule = fitted_state("detection.interval_rule")
    n = min(state.answers.size, max(int(key) for key in rows))
    row = rows[str(n)]
    estimate = state.thresholds[-1][1]
    low, high = state.interval
    level = round(100 * rule["target"])
    said = ("no estimate yet (the curve does not cross 75 % between levels 0 and 1)"
            if estimate is None else f"threshold ≈ {estimate:.2f}")
    if low is not None:
        said += (f", {level}% interval {low:.2f}" + (" to beyond 1" if high is None
                                                     else f"-{high:.2f}"))
    c_low, c_high = row["coverage_interval"]
    after = (f"{n} answers" + (" (the most measured)" if n < state.answers.size else ""))
    trust = (f"How far to trust it: on {row['listeners']} simulated listeners after {after}, "
             f"the {level}% interval held the true threshold for {row['held']} "
             f"({row['coverage']:.0%}; 95% CI {c_low:.0%}-{c_high:.0%})")
    if row["median_abs_error"] is not None:
        trust += f", and half the estimates were within {row['median_abs_error']:.2f} of it"
    # said every time: a person lapses, guesses and drifts, which these listeners never do
    trust += (" (a best case: those listeners answer by a probit curve like the model's, "
              "without lapses or a drifting criterion)")
    if (state.arm, state.acquisition) != (settings["arm"], settings["acquisition"]):
        rule = next(k for k, v in _ACQUISITIONS.items() if v == settings["acquisition"])
        trust += f"; measured with arm '{settings['arm']}' and {rule} only, not this setting"
    return f"{said[0].upper()}{said[1:]}. {trust}."


def detection_figure(state: DetectionState, *, show_listener: bool = False) -> Figure:
    """The demo's figure: P(heard) against the level (the model's curve and band, the answers,
    the constraint at level 0, the 75 % line, the threshold estimate and the next level) and the
    threshold estimate after each answer; with ``show_listener`` the simulated listener's curve
    and threshold (dashed)."""
    if not isinstance(state, DetectionState):
        raise TypeError(f"state: expected a DetectionState, got {type(state).__name__}")
    levels, p_heard, low, high, estimate = state.curve()
    problem = state.problem
    fig = Figure(figsize=(9.6, 4.1))
    grid = fig.add_gridspec(2, 2, left=0.07, right=0.99, bottom=0.12, top=0.8, wspace=0.22,
                            hspace=0.12, width_ratios=[1.5, 1], height_ratios=[3, 1])
    ax_curve, ax_trace = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[:, 1])
    ax_acq = fig.add_subplot(grid[1, 0], sharex=ax_curve)
    true_p = problem.answer_probability(levels[:, None]) if show_listener else None
    plot_detection_curve(ax_curve, levels, p_heard, p_low=low, p_high=high,
                         threshold_level=estimate, true_p=true_p, X=state.X[:, 0],
                         answers=state.answers,
                         constraint_levels=problem.constraint_X[:, 0]
                         if state.arm != "none" else None, query=state.query[0])
    ax_curve.legend(loc="lower right", fontsize="x-small")
    ax_curve.tick_params(labelbottom=False)
    scores = acquisition_curve(state.session, levels)
    ax_acq.fill_between(levels, scores, color="C2", alpha=0.5, lw=0)
    ax_acq.axvline(state.query[0], color=QUERY_COLOUR, lw=1.5, ls="--")
    ax_acq.set_ylim(0, max(float(scores.max()), 1e-9) * 1.1)
    ax_acq.set_yticks([])
    rule = next(k for k, v in _ACQUISITIONS.items() if v == state.acquisition)
    ax_acq.set_ylabel(rule, fontsize="x-small")
    ax_acq.tick_params(labelsize="x-small")
    ax_acq.set_xlabel("tone level (0: noise only; 1: tone at "
                      f"{float(tone_snr_db(1.0)):.0f} dB re the noise)", fontsize="small")
    ax_curve.set_title(f"P(heard) after {state.answers.size} answers (dashed magenta: next "
                       f"level {state.query[0]:.2f})", fontsize="small")
    report = _threshold_report(state)
    if report is not None:
        fig.text(0.07, 0.985, textwrap.fill(report, 150), va="top", fontsize="small")
    known = [(n, value) for n, value in state.thresholds if value is not None]
    if known:
        n, values = zip(*known)
        ax_trace.plot(n, values, "o-", color="C0", ms=3.5, lw=1.2)
    if show_listener:
        true_level = LISTENER_U50 + LISTENER_SPREAD * problem.threshold
        ax_trace.axhline(true_level, color="k", ls="--", lw=1)
    ax_trace.set_xlim(0, max(10, state.answers.size + 1))
    ax_trace.set_ylim(0, 1)
    ax_trace.set_xlabel("answers", fontsize="small")
    ax_trace.set_ylabel("75 % threshold (level)", fontsize="small")
    ax_trace.tick_params(labelsize="x-small")
    ax_trace.grid(alpha=0.3)
    ax_trace.set_title("the threshold estimate after each answer", fontsize="small")
    return fig


def _detection_status(state: DetectionState, arm, acquisition, show_truth) -> str:
    level = float(state.query[0])
    snr = float(tone_snr_db(level))
    loudness = "no tone at all" if level == 0 else f"tone at {snr:.1f} dB re the noise"
    said = (f" The simulated listener hears it with probability "
            f"{state.true_p_yes(state.query):.2f}." if show_truth else "")
    report = _threshold_report(state)
    return (f"<b>Trial {state.answers.size + 1}</b>: level {level:.2f} ({html.escape(loudness)})."
            f" Play it (headphones help), then say whether you heard the tone.{said}"
            + ("" if report is None else f"<br>{html.escape(report)}"))


def detection_demo(arm: str = "mixed", acquisition: str = "global MI", *,
                   rng: RngLike = 0) -> LevelSetExplorer:
    """A detection task you can do (module docstring): a 1 kHz tone in noise at the level the
    model asks for; "Heard it" / "Did not"; "Answer for me" lets the simulated listener
    answer. ``arm``: "mixed" (the constraint "level 0 is heard only as a 1 % false alarm"),
    "pseudo" (the same as one pseudo-answer "not heard" at level 0) or "none";
    ``acquisition``: "global MI" or "EAVC"; ``rng`` seeds the session and the simulated
    listener. Two players (never autoplaying): this trial's sound and an example at level 1."""
    check_choice(arm, "arm", ARMS)
    check_choice(acquisition, "acquisition", tuple(_ACQUISITIONS))
    problem = detection_problem()
    states = _States(lambda a, q, seed: DetectionState(problem, a, _ACQUISITIONS[q], seed=seed),
                     _seed(rng))
    controls = {"arm": _dropdown(list(ARMS), arm, "arm", "140px"),
                "acquisition": _dropdown(list(_ACQUISITIONS), acquisition, "acquisition"),
                "show_truth": W.Checkbox(value=False, description="show the simulated listener",
                                         indent=False, layout=W.Layout(width="230px"))}

    def render(arm, acquisition, show_truth) -> Figure:
        return detection_figure(states.get(arm, acquisition), show_listener=show_truth)

    def act(step):
        return lambda: step(explorer.state())

    buttons = {"Heard it": act(lambda s: s.answer(1)), "Did not": act(lambda s: s.answer(0)),
               "Answer for me (simulated)": act(lambda s: s.answer_for_me()),
               "Start again": act(lambda s: s.start_again())}
    player = dict(format="wav", autoplay=False, loop=False, controls=True,
                  layout=W.Layout(width="260px"))
    players = {"this trial": W.Audio(value=b"", **player),
               "example, level 1": W.Audio(value=wav_bytes(tone_in_noise(1.0)[0]), **player)}
    explorer = LevelSetExplorer(states, ("arm", "acquisition"), _detection_status, render,
                                controls, buttons, "Did you hear the tone?", players=players,
                                sound_text=_DETECTION_SOUNDS)
    return explorer
