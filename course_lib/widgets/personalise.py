"""Unit 6: "personalise it yourself". Tune an equaliser by answering "which do you prefer?".

:func:`personalise_explorer` plays one short sound (a spoken sentence or a synthesised music
clip, :mod:`course_lib.stimuli`) through an equaliser at two settings A and B, loudness-matched,
and asks which the listener prefers and how much. Each answer updates a preference GP over the
band gains, which picks the next pair: the loop of J. B. Nielsen's hearing-aid studies (thesis,
DTU 2015, section 3.3; Nielsen, Nielsen & Larsen, IEEE/ACM TASLP 2015), in the course's
orientation (an answer y > 0.5 means the FIRST setting of the pair, here A, was preferred).

The loop is :class:`course_lib.simulators.personalisation.PersonalisationSession` (the session
that questions the listener, a person or a simulated one); this module wires its answer buttons,
players and sliders, and draws its maps with :mod:`course_lib.plotting.personalisation_session`.
"Answer for me" and "Run 10 steps" let the simulated listener answer; "show hidden preference"
reveals its IRF. The person at the keyboard can answer in either mode. Under the figure, every
time, how far to trust its "settled" verdict
(:func:`course_lib.simulators.personalisation.settling_trust`: rates measured with this
explorer's own rule, for its band count, on simulated listeners).
"""

from __future__ import annotations

import html
import textwrap

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from ..preference.acquisition import bivariate_ei
from ..plotting.personalisation_session import (plot_comparisons, plot_equaliser_curves,
                                                plot_session_marks, plot_setting_map,
                                                plot_convergence_measure)
from ..simulators.personalisation import (N_RANDOM, PersonalisationSession, hidden_listener,
                                          settling_trust)
from ..stimuli import CLIP_TRANSCRIPTS, CLIPS, wav_bytes
from ..validation import RngLike, as_float_array, as_positive_int, as_rng, check_choice
from .base import Explorer

__all__ = ["session_figure", "personalise_explorer"]

# "much better" on the slider is y = 0.5 + MAX_DEGREE (never exactly 0 or 1)
_MAX_DEGREE = 0.45
_MODES = ("audio", "simulated")


def _answer_from_buttons(choice: str, strength: float = 1.0) -> float:
    """The degree y in (0, 1) of an answer about the pair (A, B): ``choice`` "A" (A better),
    "B" or "same", ``strength`` in [0, 1] from "barely" to "much better":
    y = 0.5 +- MAX_DEGREE * strength (y > 0.5: A, the first setting, preferred)."""
    check_choice(choice, "choice", ("A", "B", "same"))
    strength = float(as_float_array(strength, "strength", ndim=0))
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength: expected a value in [0, 1], got {strength:g}")
    if choice == "same":
        return 0.5
    return 0.5 + (_MAX_DEGREE if choice == "A" else -_MAX_DEGREE) * strength


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
        self.transcript = W.HTML()
        super().__init__(render, controls, buttons, title)
        button_rows = [list(self.buttons.values())[:3], list(self.buttons.values())[3:]]
        for label, button in self.buttons.items():
            button.layout = W.Layout(width="auto")
            if label in ("A better", "B better"):
                button.style.button_color = {"A better": "#f6c7a5", "B better": "#d3d1ea"}[
                    label]
        players = W.HBox([W.HTML("<b>A</b>"), self.players["A"], W.HTML("<b>B</b>"),
                          self.players["B"]], layout=W.Layout(align_items="center"))
        rows = [W.HTML(f"<b>{title}</b>"), self.status, players, self.transcript,
                W.HBox(button_rows[0] + [controls["strength"]])]
        rest = [c for name, c in controls.items() if name != "strength"]
        rows.append(W.HBox(button_rows[1] + rest))
        self.widget = W.VBox(rows + [self.output, self._slider_names])
        self._sound_of = None

    def _update_sound(self) -> None:
        key = (self.controls["clip"].value, self.session.pair.tobytes())
        if key == self._sound_of:
            return
        for letter, version in zip("AB", self.session.versions(key[0])):
            self.players[letter].value = wav_bytes(version)
        self.transcript.value = (f"A and B play the same sound through two equaliser settings: "
                                 f"{html.escape(CLIP_TRANSCRIPTS[key[0]])}.")
        self._sound_of = key

    def refresh(self) -> None:
        self.status.value = _status(self.session)
        try:
            self._update_sound()
        except Exception as err:      # shown in the panel like a render error
            self._show_failed_update(err, "Sound")
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
    """Axis names, the frequencies of the equaliser curves, the bands' frequencies and how far
    to trust "settled" (read once: the committed result is large, a redraw follows every
    answer)."""
    names = tuple(f"{name} gain (dB)" for name in session.equaliser.names)
    return (names, np.geomspace(40, 8000, 200),
            [band.frequency for band in session.equaliser.bands],
            settling_trust(session.n_bands, n_random=session.n_random))


def personalise_explorer(mode: str = "simulated", bands: int = 2, *, clip: str = "speech",
                         n_random: int = N_RANDOM, rng: RngLike = 0) -> PersonaliseExplorer:
    """The "personalise it yourself" explorer (module docstring).

    ``mode``: "audio" (you answer) or "simulated" (also a hidden listener who can answer:
    "Answer for me", "Run 10 steps", and a checkbox that reveals its preference map);
    ``bands``: 2, 3 or 4 equaliser bands (for 3-4 the maps are slices through the incumbent,
    the bands chosen in a dropdown); ``clip``: "speech" or "music" to start with;
    ``n_random``: comparisons of the random start; ``rng``: seeds the hidden listener and the
    session, so a rendered page is the same on every run.
    """
    check_choice(mode, "mode", _MODES)
    bands = as_positive_int(bands, "bands", minimum=2, maximum=4)
    check_choice(clip, "clip", CLIPS)
    rng = as_rng(rng)
    listener = hidden_listener(bands, rng=rng) if mode == "simulated" else None
    session = PersonalisationSession(bands, listener=listener, n_random=n_random, rng=rng)
    names = session.equaliser.names
    axis_names, frequencies, band_frequencies, trust = _figure_inputs(session)

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
                                band_frequencies, trust, figure=drawn.get("figure"))
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
    """The explorer's empty figure: three maps, the equaliser curves above the settling plot,
    and room beneath for how far to trust "settled". A plain Figure (not pyplot's), so closing
    it after a PNG is made leaves it usable."""
    # 960 px wide at 100 dpi: JupyterLab's output area beside the file browser on a
    # 1366-px laptop screen shows it unscaled
    fig = Figure(figsize=(9.6, 4.3))
    top = 0.87 if n_bands == 2 else 0.83      # 3-4 bands: a line on the slice above
    # the empty fourth column leaves room for the tick labels of the right-hand panels
    grid = fig.add_gridspec(2, 5, left=0.06, right=0.99, bottom=0.2, top=top, wspace=0.12,
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


def _draw(session, shown, show_truth, axis_names, frequencies, band_frequencies, trust, *,
          figure: Figure | None = None) -> Figure:
    """The explorer's figure: posterior mean, sd and bEI over two bands (a slice through the
    incumbent for 3-4 bands) with comparisons, incumbent and next pair; the two settings'
    equaliser curves; the settling measure with its verdict, and beneath the figure ``trust``,
    how far to trust the verdict. Drawn into ``figure`` (cleared first) when given.
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
    plot_setting_map(ax_mean, axis_x, axis_y, mean, cmap="viridis", vmin=low,
                     vmax=max(float(mean.max()), low + 1e-3), colorbar=False, names=names)
    plot_setting_map(ax_sd, axis_x, axis_y, sd, cmap="magma", vmin=0, vmax=2.0,
                     colorbar=False, names=names)
    plot_setting_map(ax_bei, axis_x, axis_y, bei, cmap="Greens", vmin=0,
                     vmax=max(float(bei.max()), 1e-3), colorbar=False, names=names)
    first, second = session.asked
    if session.n_answers and session.n_bands == 2:
        plot_comparisons(ax_mean, first[:, [i, j]], second[:, [i, j]], session.answers)
    for ax in (ax_mean, ax_sd, ax_bei):
        plot_session_marks(ax, **marks)
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
    plot_equaliser_curves(ax_eq, frequencies, curves, band_frequencies=band_frequencies)
    smoothed, settled = session.settling()
    plot_convergence_measure(ax_settle, np.array(session.measures), smoothed,
                             threshold=session.settled_threshold, settled_at=settled,
                             n_random=session.n_random)
    verdict = ("mean bEI: not settled" if settled is None else
               f"mean bEI: settled from {settled + 1}")
    if session.n_failed_optimisations:
        verdict += f"\n({session.n_failed_optimisations} MAP-II runs failed)"
    ax_settle.set_title(verdict, fontsize="small")
    # held by the settling panel (placed in figure coordinates), so the figure's description
    # reads it with the verdict; the width below the maps holds it in two lines
    ax_settle.text(0.06, 0.015, textwrap.fill(trust, 165), transform=fig.transFigure,
                   va="bottom", fontsize="x-small")
    return fig


def _db(response) -> np.ndarray:
    return 20 * np.log10(np.abs(response))


def _gains_text(setting) -> str:
    return "(" + ", ".join(f"{g:+.0f}" for g in setting) + ") dB"
