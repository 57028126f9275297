"""Unit 6: "personalise it yourself". Tune an equaliser by answering "which do you prefer?".

:func:`personalise_explorer` plays one short sound (a spoken sentence or a synthesised music
clip, :mod:`course_lib.stimuli`) through an equaliser at two settings A and B, loudness-matched,
and asks which the listener prefers and how much. Each answer updates a preference GP over the
band gains, which picks the next pair: the loop of J. B. Nielsen's hearing-aid studies (thesis,
DTU 2015, section 3.3; Nielsen, Nielsen & Larsen, IEEE/ACM TASLP 2015), in the course's
orientation (an answer y > 0.5 means the FIRST setting of the pair, here A, was preferred).

The loop (:class:`PersonalisationSession`), each step made of library calls:

1. a random start: ``n_random`` comparisons along a chain that begins at the flat setting
   (0 dB in every band) and visits distinct random grid settings, so the comparison graph is
   connected from the first answer (as :func:`course_lib.simulators.listeners.run_session`);
2. after every answer: the comparisons so far
   (:meth:`~course_lib.gp.comparisons.Comparisons.from_pairs`, degree answers) refitted by the
   warm-started Laplace posterior of :class:`~course_lib.gp.preference.PreferenceGP`; MAP-II
   (one L-BFGS-B run from the current hyper-parameters) at the end of the random start and
   after every ``optimise_every``-th answer after it;
3. the incumbent (:func:`~course_lib.gp.acquisition.incumbent`: the assessed setting of
   largest posterior mean) and bEI against it on the whole settings grid
   (:func:`~course_lib.gp.acquisition.bivariate_ei`); after the random start the next pair is
   {incumbent, a grid setting drawn with probability proportional to bEI} (Nielsen et al., 2-D: the
   rule ``"bei"`` of ``run_session``), shown in random order;
4. "settled?": the grid mean of bEI after every answer, its running mean over 4 answers
   (:func:`~course_lib.gp.ei_convergence.average_ei_path`) and the first answer from which it
   stays below :func:`~course_lib.gp.ei_convergence.settling_threshold` (0.02 here: 1 % of the
   utility's prior sd; :func:`~course_lib.gp.ei_convergence.settled_at`).

The model (:func:`_equaliser_model`) is Nielsen et al.'s
(:func:`~course_lib.simulators.listeners.hearing_aid_model`: Beta degree-of-preference likelihood,
kernel variance 4 fixed, half-Student-t priors) with the lengthscale prior moved to the equaliser's
axis, gains in dB on [-12, 12]: their 2-D axis [-20, 20] had no unit, ours has one. A level
change of 1-2 dB in one band is about the smallest a listener notices and a preference changes over
several dB, so each band's lengthscale starts at 5 dB (a fifth of the range) under a
half-Student-t(6, 30) prior on its square (prior median about 4.5 dB, a heavy tail up to the whole
range).

A simulated listener (``mode="simulated"``) answers with
:class:`~course_lib.simulators.listeners.SimulatedListener`: a hidden internal response drawn from
a GP over the gains (:class:`~course_lib.simulators.listeners.GPDrawResponse`) answered through a
Beta slider (:class:`~course_lib.gp.pairwise_likelihoods.PairwiseBeta`). "Answer for me" and
"Run 10 steps" let it answer; "show hidden preference" reveals its IRF. The person at the
keyboard can answer in either mode.
"""

from __future__ import annotations

import copy
import html

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from ..gp.acquisition import bivariate_ei, incumbent
from ..gp.comparisons import Comparisons
from ..gp.ei_convergence import average_ei_path, settled_at, settling_threshold
from ..gp.kernels import SquaredExponential
from ..gp.pairwise_likelihoods import PairwiseBeta
from ..gp.preference import PreferenceGP
from ..gp.preference_hyperparameters import OnSquare
from ..gp.priors import HalfStudentT
from ..linalg import NotPositiveDefiniteError
from ..plotting.personalisation_session import _plot_comparisons, _plot_equaliser_curves, \
    _plot_session_marks, _plot_setting_map, plot_settling
from ..simulators.listeners import GPDrawResponse, SimulatedListener, next_candidate, \
    hearing_aid_model, settings_grid
from ..stimuli import CLIPS, load_clip, loudness_matched, standard_equaliser, wav_bytes
from ..validation import RngLike, as_float_array, _as_positive_int, _as_rng, _check_choice
from .base import Explorer

__all__ = ["PersonalisationSession", "session_figure", "personalise_explorer"]

_GAIN_RANGE = (-12.0, 12.0)          # dB, every band
_GRID_STEP = {2: 1.0, 3: 2.0, 4: 3.0}  # dB between settings: 625, 2197 and 6561 settings
_DISPLAY_STEP = 1.0                  # dB between the cells of a drawn map
_LENGTHSCALE_START = 5.0             # dB (module docstring)
_LENGTHSCALE_SQUARED_SCALE = 30.0    # dB^2, scale of the half-Student-t(6, .) on lengthscale^2
# "much better" on the slider is y = 0.5 + MAX_DEGREE (never exactly 0 or 1)
_MAX_DEGREE = 0.45
# the simulated listener: IRF a GP draw over the gains, answers a Beta slider
_LISTENER_LENGTHSCALE, _LISTENER_VARIANCE = 6.0, 4.0
LISTENER_NOISE_SD, LISTENER_CONCENTRATION = 1.0, 8.0
_MODES = ("audio", "simulated")


def _equaliser_model(n_bands: int = 2) -> PreferenceGP:
    """The hearing-aid studies' preference GP for ``n_bands`` band gains in dB (module docstring):
    the Beta likelihood and priors of :func:`~course_lib.simulators.listeners.hearing_aid_model`, an SE-ARD
    kernel with variance 4 fixed and lengthscales from 5 dB under OnSquare(half-Student-t(6,
    30))."""
    n_bands = _as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    template = hearing_aid_model(n_bands, answers="degree")
    kernel = SquaredExponential(np.full(n_bands, _LENGTHSCALE_START), 4.0,
                                variance_bounds="fixed")
    priors = dict(template.priors)
    priors.update({f"lengthscale_{k}": OnSquare(HalfStudentT(6, _LENGTHSCALE_SQUARED_SCALE))
                   for k in range(n_bands)})
    return PreferenceGP(kernel, template.likelihood, priors)


def _hidden_listener(n_bands: int = 2, *, rng: RngLike = None) -> SimulatedListener:
    """A simulated listener over ``n_bands`` gains: its IRF a draw of an SE-kernel GP
    (lengthscale 6 dB, variance 4) anchored every 6 dB on [-12, 12], its answers a Beta slider
    (noise_sd 1, concentration 8). ``rng`` draws the IRF and then the listener's answers."""
    n_bands = _as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
    rng = _as_rng(rng)
    irf = GPDrawResponse(SquaredExponential(_LISTENER_LENGTHSCALE, _LISTENER_VARIANCE),
                         settings_grid(*_GAIN_RANGE, 6.0, n_bands), rng=rng)
    return SimulatedListener(irf, PairwiseBeta(LISTENER_NOISE_SD, LISTENER_CONCENTRATION),
                             rng=rng)


def _answer_from_buttons(choice: str, strength: float = 1.0) -> float:
    """The degree y in (0, 1) of an answer about the pair (A, B): ``choice`` "A" (A better),
    "B" or "same", ``strength`` in [0, 1] from "barely" to "much better":
    y = 0.5 +- MAX_DEGREE * strength (y > 0.5: A, the first setting, preferred)."""
    _check_choice(choice, "choice", ("A", "B", "same"))
    strength = float(as_float_array(strength, "strength", ndim=0))
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength: expected a value in [0, 1], got {strength:g}")
    if choice == "same":
        return 0.5
    return 0.5 + (_MAX_DEGREE if choice == "A" else -_MAX_DEGREE) * strength


class PersonalisationSession:
    """The personalisation loop over equaliser settings, one answer at a time (module
    docstring).

    Parameters
    ----------
    n_bands : 2, 3 or 4 band gains (the equaliser of
        :func:`~course_lib.stimuli.standard_equaliser`), on the grid ``_GAIN_RANGE`` with spacing
        ``GRID_STEP[n_bands]``.
    listener : None or a :class:`~course_lib.simulators.listeners.SimulatedListener` with degree
        answers (needed by :meth:`answer_for_me`).
    n_random : comparisons of the random start; ``optimise_every``: MAP-II after every this
        many answers after the random start.
    rng : the session's randomness (random start, bEI draws, presentation order, MAP-II).

    State after ``t`` answers: ``pair`` (2, d) the settings A and B to compare next;
    ``comparisons`` the answers so far (None before the first), ``model`` the fitted
    PreferenceGP, ``incumbent`` its best assessed setting, ``grid_bei`` bEI on ``grid``,
    ``measures`` the grid mean of bEI after each answer. An answer that fails (bad ``y``, no
    posterior) leaves all of it unchanged.
    """

    def __init__(self, n_bands: int = 2, *, listener: SimulatedListener | None = None,
                 n_random: int = 4, optimise_every: int = 5, rng: RngLike = None):
        self.n_bands = _as_positive_int(n_bands, "n_bands", minimum=2, maximum=4)
        if listener is not None:
            if not isinstance(listener, SimulatedListener):
                raise TypeError(f"listener: expected None or a SimulatedListener, got "
                                f"{type(listener).__name__}")
            if listener.kind != "pair-degree":
                raise ValueError(f"listener: the session asks for degrees of preference, the "
                                 f"listener gives {listener.kind!r} answers")
        self.listener = listener
        self.n_random = _as_positive_int(n_random, "n_random")
        self.optimise_every = _as_positive_int(optimise_every, "optimise_every")
        self.rng = _as_rng(rng)
        self.equaliser = standard_equaliser(self.n_bands)
        self.grid = settings_grid(*_GAIN_RANGE, _GRID_STEP[self.n_bands], self.n_bands)
        self.bounds = np.tile(np.array(_GAIN_RANGE), (self.n_bands, 1))
        self.start_again()

    # ----- state ------------------------------------------------------------------------
    def start_again(self) -> None:
        """Forget every answer; a new random start (the listener, if any, stays)."""
        flat = np.zeros(self.n_bands)
        others = np.flatnonzero(np.any(self.grid != flat, axis=1))
        chain = self.grid[self.rng.choice(others, size=self.n_random, replace=False)]
        self._chain = np.vstack([flat, chain])
        self._firsts, self._seconds, self._answers = [], [], []
        self.comparisons = self.model = self.incumbent = self.grid_bei = None
        self.measures: list[float] = []
        self.n_failed_optimisations = 0
        self.pair = self._presented(self._chain[0], self._chain[1])

    def _presented(self, x, x_other) -> np.ndarray:
        """The two settings in random order (A, B): no position tells which is which."""
        return np.array([x, x_other] if self.rng.random() < 0.5 else [x_other, x])

    @property
    def n_answers(self) -> int:
        return len(self._answers)

    @property
    def in_random_start(self) -> bool:
        """True while the next pair still comes from the random start."""
        return self.n_answers < self.n_random

    @property
    def answers(self) -> np.ndarray:
        """The answers so far (y > 0.5: the first setting of the pair preferred)."""
        return np.array(self._answers)

    @property
    def asked(self) -> tuple[np.ndarray, np.ndarray]:
        """The (A, B) settings of every answered pair, (t, d) each."""
        shape = (self.n_answers, self.n_bands)
        return np.array(self._firsts).reshape(shape), np.array(self._seconds).reshape(shape)

    def settling(self) -> tuple[np.ndarray, int | None]:
        """The running mean of :attr:`measures` and the answer index (0-based) from which it
        stays below :attr:`settled_threshold` (None: not settled)."""
        if not self.measures:
            return np.zeros(0), None
        return (average_ei_path(self.measures),
                settled_at(self.measures, threshold=self.settled_threshold))

    @property
    def settled_threshold(self) -> float:
        """The level of "settled" (``settling_threshold`` of the model over the grid)."""
        model = self.model if self.model is not None else _equaliser_model(self.n_bands)
        return settling_threshold(model.kernel, self.grid)

    # ----- answers ----------------------------------------------------------------------
    def answer(self, y: float) -> None:
        """Record the answer ``y`` in [0, 1] about the current pair (A, B) (y > 0.5: A
        preferred, 0.5: no difference), refit, and choose the next pair."""
        y = float(as_float_array(y, "y", ndim=0))
        if not 0.0 <= y <= 1.0:
            raise ValueError(f"y: a degree of preference lies in [0, 1], got {y:g}")
        firsts = self._firsts + [self.pair[0]]
        seconds = self._seconds + [self.pair[1]]
        answers = self._answers + [y]
        data = Comparisons.from_pairs(np.array(firsts), np.array(seconds), answers,
                                      kind="pair-degree")
        model = _equaliser_model(self.n_bands) if self.model is None else \
            copy.deepcopy(self.model)        # the committed model stays as it was on failure
        model.fit(data)
        t = len(answers)
        failed = 0
        if t >= self.n_random and (t - self.n_random) % self.optimise_every == 0:
            try:
                model.optimise_hyperparameters(1, rng=self.rng)
            except NotPositiveDefiniteError:   # keep the hyper-parameters; count it
                failed = 1
                model.fit(data)
        _, x_best = incumbent(model)
        grid_bei = bivariate_ei(model, self.grid, x_best)
        if t < self.n_random:
            pair = self._presented(self._chain[t], self._chain[t + 1])
        else:
            pick, _ = next_candidate(model, self.grid, x_best, "bei", grid_bei, self.bounds,
                                     rng=self.rng)
            pair = self._presented(x_best, self.grid[pick])
        # commit only after everything above succeeded
        self._firsts, self._seconds, self._answers = firsts, seconds, answers
        self.comparisons, self.model, self.incumbent, self.grid_bei = data, model, x_best, \
            grid_bei
        self.measures.append(float(np.mean(grid_bei)))
        self.n_failed_optimisations += failed
        self.pair = pair

    def answer_for_me(self, n: int = 1) -> None:
        """Let the simulated listener answer the next ``n`` pairs."""
        if self.listener is None:
            raise ValueError("listener: this session has no simulated listener; answer with "
                             "answer(y) or start one with a listener")
        for _ in range(_as_positive_int(n, "n")):
            A, B = self.pair
            self.answer(float(self.listener.answer(A[None, :], B[None, :])[0]))

    # ----- what the explorer shows ------------------------------------------------------
    def versions(self, clip: str) -> tuple[np.ndarray, np.ndarray]:
        """The clip ``clip`` through the equaliser at A and at B, loudness-matched."""
        waveform = load_clip(clip)
        A, B = self.pair
        return tuple(loudness_matched(self.equaliser.apply(waveform, A),
                                      self.equaliser.apply(waveform, B)))

    def slice_settings(self, shown: tuple[int, int], through=None) -> tuple[np.ndarray, ...]:
        """Settings of a map over bands ``shown`` (every _DISPLAY_STEP dB) with the other bands
        held at ``through`` (default: the incumbent, or flat before any answer): the two axes
        and the (n_y * n_x, d) settings, rows following the second shown band."""
        i, j = shown
        through = np.zeros(self.n_bands) if through is None else np.asarray(through, float)
        axis = np.arange(_GAIN_RANGE[0], _GAIN_RANGE[1] + _DISPLAY_STEP / 2, _DISPLAY_STEP)
        gx, gy = np.meshgrid(axis, axis)          # rows: band j, columns: band i
        settings = np.tile(through, (gx.size, 1))
        settings[:, i], settings[:, j] = gx.ravel(), gy.ravel()
        return axis, axis, settings


def _slice_options(names: tuple[str, ...]) -> list[tuple[str, tuple[int, int]]]:
    return [(f"{names[i]} × {names[j]}", (i, j))
            for i in range(len(names)) for j in range(i + 1, len(names))]


def _status(session: PersonalisationSession) -> str:
    t = session.n_answers + 1
    if session.in_random_start:
        phase = (f"random start ({session.n_answers} of {session.n_random} answered): the "
                 "pairs are random settings, so the model sees the whole range")
    else:
        phase = "one of A, B is the incumbent, the other drawn in proportion to bEI"
    return (f"<b>Comparison {t}</b>: play A and B, then say which you prefer and how much. "
            f"<i>{html.escape(phase)}</i>")


class PersonaliseExplorer(Explorer):
    """The :class:`Explorer` of :func:`personalise_explorer`, with two audio players, a
    status line and answer buttons. ``session`` is its :class:`PersonalisationSession`;
    ``players`` the A and B ``ipywidgets.Audio`` (never autoplaying)."""

    _ANSWER_ONLY = ("strength",)      # controls that change no figure
    _SOUND_ONLY = ("clip",)

    def __init__(self, session: PersonalisationSession, render, controls, buttons, title):
        self.session = session
        self.players = {letter: W.Audio(value=b"", format="wav", autoplay=False, loop=False,
                                        controls=True, layout=W.Layout(width="300px"))
                        for letter in "AB"}
        self.status = W.HTML()
        super().__init__(render, controls, buttons, title)
        button_rows = [list(self.buttons.values())[:3], list(self.buttons.values())[3:]]
        for label, button in self.buttons.items():
            button.layout = W.Layout(width="auto")
            if label in ("A better", "B better"):
                button.style.button_color = {"A better": "#f6c7a5", "B better": "#d3d1ea"}[
                    label]
        players = W.HBox([W.HTML("<b>A</b>"), self.players["A"], W.HTML("<b>B</b>"),
                          self.players["B"]], layout=W.Layout(align_items="center"))
        rows = [W.HTML(f"<b>{title}</b>"), self.status, players,
                W.HBox(button_rows[0] + [controls["strength"]])]
        rest = [c for name, c in controls.items() if name != "strength"]
        rows.append(W.HBox(button_rows[1] + rest))
        self.widget = W.VBox(rows + [self.output])
        self._sound_of = None

    def _update_sound(self) -> None:
        key = (self.controls["clip"].value, self.session.pair.tobytes())
        if key == self._sound_of:
            return
        for letter, version in zip("AB", self.session.versions(key[0])):
            self.players[letter].value = wav_bytes(version)
        self._sound_of = key

    def refresh(self) -> None:
        self.status.value = _status(self.session)
        try:
            self._update_sound()
        except Exception as err:      # shown in the panel like a render error
            self.last_error = err
            with self.output:
                self.output.clear_output(wait=True)
                print(f"Sound not updated: {err}")
            return
        super().refresh()

    def _on_change(self, change) -> None:
        name = next((n for n, c in self.controls.items() if c is change["owner"]), None)
        if name in self._ANSWER_ONLY:
            return
        if name in self._SOUND_ONLY:
            self.status.value = _status(self.session)
            self._update_sound()
            return
        self.refresh()


def session_figure(session: PersonalisationSession, shown=(0, 1), *,
                   show_truth: bool = False) -> Figure:
    """The explorer's figure for ``session`` as a static picture (for the page under an
    explorer): maps over the bands ``shown`` (a slice through the incumbent for 3-4 bands),
    with the hidden listener's preference when ``show_truth``."""
    if not isinstance(session, PersonalisationSession):
        raise TypeError(f"session: expected a PersonalisationSession, got "
                        f"{type(session).__name__}")
    options = [pair for _, pair in _slice_options(session.equaliser.names)]
    if tuple(shown) not in options:
        raise ValueError(f"shown: expected two band indices from {options}, got {shown!r}")
    return _draw(session, tuple(shown), show_truth, *_figure_inputs(session))


def _figure_inputs(session: PersonalisationSession):
    """Axis names, the frequencies of the equaliser curves and the bands' frequencies."""
    names = tuple(f"{name} gain (dB)" for name in session.equaliser.names)
    return (names, np.geomspace(40, 8000, 200),
            [band.frequency for band in session.equaliser.bands])


def personalise_explorer(mode: str = "simulated", bands: int = 2, *, clip: str = "speech",
                         n_random: int = 4, rng: RngLike = 0) -> PersonaliseExplorer:
    """The "personalise it yourself" explorer (module docstring).

    ``mode``: "audio" (you answer) or "simulated" (also a hidden listener who can answer:
    "Answer for me", "Run 10 steps", and a checkbox that reveals its preference map);
    ``bands``: 2, 3 or 4 equaliser bands (for 3-4 the maps are slices through the incumbent,
    the bands chosen in a dropdown); ``clip``: "speech" or "music" to start with;
    ``n_random``: comparisons of the random start; ``rng``: seeds the hidden listener and the
    session, so a rendered page is the same on every run.
    """
    _check_choice(mode, "mode", _MODES)
    bands = _as_positive_int(bands, "bands", minimum=2, maximum=4)
    _check_choice(clip, "clip", CLIPS)
    rng = _as_rng(rng)
    listener = _hidden_listener(bands, rng=rng) if mode == "simulated" else None
    session = PersonalisationSession(bands, listener=listener, n_random=n_random, rng=rng)
    names = session.equaliser.names
    axis_names, frequencies, band_frequencies = _figure_inputs(session)

    controls = {"strength": W.FloatSlider(value=0.6, min=0.0, max=1.0, step=0.05,
                                          description="how much", readout=True,
                                          readout_format=".2f",
                                          continuous_update=False,
                                          style={"description_width": "initial"},
                                          layout=W.Layout(width="260px")),
                "clip": W.Dropdown(options=list(CLIPS), value=clip, description="sound",
                                   layout=W.Layout(width="170px"))}
    if bands > 2:
        options = _slice_options(names)
        controls["shown"] = W.Dropdown(options=options, value=options[-1][1],
                                       description="map", layout=W.Layout(width="230px"))
    if mode == "simulated":
        controls["show_truth"] = W.Checkbox(value=False, description="show hidden preference",
                                            indent=False)

    drawn = {}     # the figure, built at the first render and redrawn in place after it

    def render(strength=None, clip=None, shown=(0, 1), show_truth=False) -> Figure:
        drawn["figure"] = _draw(session, shown, show_truth, axis_names, frequencies,
                                band_frequencies, figure=drawn.get("figure"))
        return drawn["figure"]

    def say(choice):
        def act():
            session.answer(_answer_from_buttons(choice, explorer.controls["strength"].value))
        return act

    buttons = {"A better": say("A"), "B better": say("B"), "No difference": say("same")}
    if mode == "simulated":
        buttons["Answer for me"] = session.answer_for_me
        buttons["Run 10 steps"] = lambda: session.answer_for_me(10)
    buttons["Start again"] = session.start_again
    title = ("Personalise it yourself: which version do you prefer?" if mode == "audio" else
             "Be the listener (or let the hidden one answer)")
    explorer = PersonaliseExplorer(session, render, controls, buttons, title)
    return explorer


def _new_figure(n_bands: int) -> Figure:
    """The explorer's empty figure: three maps, the equaliser curves above the settling plot.
    A plain Figure (not pyplot's), so closing it after a PNG is made leaves it usable."""
    # 960 px wide at 100 dpi: JupyterLab's output area beside the file browser on a
    # 1366-px laptop screen shows it unscaled
    fig = Figure(figsize=(9.6, 3.9))
    top = 0.86 if n_bands == 2 else 0.81      # 3-4 bands: a line on the slice above
    # the empty fourth column leaves room for the tick labels of the right-hand panels
    grid = fig.add_gridspec(2, 5, left=0.06, right=0.99, bottom=0.12, top=top, wspace=0.12,
                            hspace=0.95, width_ratios=[1, 1, 1, 0.22, 0.95])
    for k in range(3):
        fig.add_subplot(grid[:, k])
    fig.add_subplot(grid[0, 4])
    fig.add_subplot(grid[1, 4])
    return fig


def _cleared(fig: Figure) -> Figure:
    """``fig`` without the artists of the previous state: the axes, their ticks and labels stay
    (building them is most of the cost of a new figure; a redraw follows every answer)."""
    for ax in fig.axes:
        for artist in [*ax.images, *ax.lines, *ax.collections, *ax.patches, *ax.texts]:
            artist.remove()
    for text in list(fig.texts):
        text.remove()
    return fig


def _draw(session, shown, show_truth, axis_names, frequencies, band_frequencies, *,
          figure: Figure | None = None) -> Figure:
    """The explorer's figure: posterior mean, sd and bEI over two bands (a slice through the
    incumbent for 3-4 bands) with comparisons, incumbent and next pair; the two settings'
    equaliser curves; the settling measure. Drawn into ``figure`` (cleared first) when given.
    No colour bars: each title gives its map's range (three colour-bar axes took a third of
    the redraw time)."""
    i, j = shown
    fig = _new_figure(session.n_bands) if figure is None else _cleared(figure)
    ax_mean, ax_sd, ax_bei, ax_eq, ax_settle = fig.axes
    names = (axis_names[i], axis_names[j])
    through = session.incumbent
    axis_x, axis_y, settings = session.slice_settings((i, j), through)
    shape = (axis_y.size, axis_x.size)
    marks = dict(pair=session.pair[:, [i, j]])
    if session.model is None:     # the prior: mean 0, sd 2 (kernel variance 4), no bEI yet
        mean, sd, bei = np.zeros(shape), np.full(shape, 2.0), np.zeros(shape)
    else:
        m, v = session.model.predict(settings)
        mean, sd = m.reshape(shape), np.sqrt(np.maximum(v, 0)).reshape(shape)
        bei = bivariate_ei(session.model, settings, session.incumbent).reshape(shape)
        marks["incumbent"] = session.incumbent[[i, j]]
    if show_truth and session.listener is not None:
        truth = session.listener.irf(settings).reshape(shape)
        ax_mean.contour(axis_x, axis_y, truth, levels=6, colors="k", linewidths=0.7,
                        alpha=0.6, zorder=2)
        optimum = session.grid[np.argmax(session.listener.irf(session.grid))]
        others = [k for k in range(session.n_bands) if k not in (i, j)]
        if np.allclose(optimum[others], settings[0, others]):   # in this slice
            marks["optimum"] = optimum[[i, j]]
    low = float(mean.min())
    _plot_setting_map(ax_mean, axis_x, axis_y, mean, cmap="viridis", vmin=low,
                     vmax=max(float(mean.max()), low + 1e-3), colorbar=False, names=names)
    _plot_setting_map(ax_sd, axis_x, axis_y, sd, cmap="magma", vmin=0, vmax=2.0,
                     colorbar=False, names=names)
    _plot_setting_map(ax_bei, axis_x, axis_y, bei, cmap="Greens", vmin=0,
                     vmax=max(float(bei.max()), 1e-3), colorbar=False, names=names)
    first, second = session.asked
    if session.n_answers and session.n_bands == 2:
        _plot_comparisons(ax_mean, first[:, [i, j]], second[:, [i, j]], session.answers)
    for ax in (ax_mean, ax_sd, ax_bei):
        _plot_session_marks(ax, **marks)
    for ax in (ax_sd, ax_bei):       # the same axes as the mean map's, labelled once
        ax.set_ylabel("")
        ax.tick_params(labelleft=False)
    n = session.n_answers
    head = (f"utility after {n} answers\n{mean.min():+.2f} (dark) to {mean.max():+.2f} "
            "(yellow)") if n else "no answers yet: the prior\nmean 0 everywhere"
    if session.n_bands > 2:
        others = [k for k in range(session.n_bands) if k not in (i, j)]
        at = "the incumbent" if through is not None else "the flat setting"
        fixed = ", ".join(f"{axis_names[k].split(' gain')[0]} {settings[0, k]:+.0f} dB"
                          for k in others)
        fig.text(0.06, 0.99, f"Maps: a slice through {at} ({fixed}); A and B are drawn at "
                 "their gains in the two bands shown.", va="top", fontsize="small")
    ax_mean.set_title(head, fontsize="small")
    ax_sd.set_title(f"posterior sd, {sd.min():.2f} to {sd.max():.2f}\n(black 0, light 2: "
                    "the prior)", fontsize="small")
    ax_bei.set_title("bEI against the incumbent (★)\n" + (
        f"0 (white) to {bei.max():.3f} (green)" if n else "after the first answer"),
        fontsize="small")
    A, B = session.pair
    curves = {f"A {_gains_text(A)}": _db(session.equaliser.response(A, frequencies)),
              f"B {_gains_text(B)}": _db(session.equaliser.response(B, frequencies))}
    _plot_equaliser_curves(ax_eq, frequencies, curves, band_frequencies=band_frequencies)
    smoothed, settled = session.settling()
    plot_settling(ax_settle, np.array(session.measures), smoothed,
                  threshold=session.settled_threshold, settled_at=settled, n_random=session.n_random)
    verdict = ("mean bEI: not settled" if settled is None else
               f"mean bEI: settled from {settled + 1}")
    if session.n_failed_optimisations:
        verdict += f"\n({session.n_failed_optimisations} MAP-II runs failed)"
    ax_settle.set_title(verdict, fontsize="small")
    return fig


def _db(response) -> np.ndarray:
    return 20 * np.log10(np.abs(response))


def _gains_text(setting) -> str:
    return "(" + ", ".join(f"{g:+.0f}" for g in setting) + ") dB"
