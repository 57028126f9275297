"""Explorers of the HMM unit: the trellis (forward, backward, posteriors, Viterbi) and Baum-Welch.

* :func:`trellis_explorer`: edit pi, A, B (as text, rows separated by ``;``) and the
  observation string; see alpha, beta and gamma on the trellis with the Viterbi path
  (:func:`trellis_figure`, the figure it draws). A text box redraws when you press Enter or
  leave it; an entry that is not (yet) valid, such as a half-typed matrix, is reported in one
  line instead of a figure.
* :func:`baum_welch_explorer`: a Step button runs one re-estimation; the figure shows the
  log-likelihood trace and the current pi, A and B.

The compute lives in :mod:`course_lib.hmm.inference` and :mod:`course_lib.hmm.training` (the example
model and data in :mod:`course_lib.hmm.model`), the drawing in :mod:`course_lib.plotting.hmm` and
:mod:`course_lib.plotting.hmm_trellis`; this module only parses text, hands the model's results
to the figures and wires the controls.
"""

from __future__ import annotations

import string

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from ..hmm import inference as H
from ..hmm.model import (WEATHER_MOOD_OBSERVATIONS, DiscreteHMM, random_hmm, weather_mood_hmm,
                         weather_mood_sequences)
from ..hmm.training import BaumWelchStepper
from ..plotting.hmm import render_baum_welch
from ..plotting.hmm_trellis import (TRELLIS_MAX_LENGTH, draw_impossible_trellis,
                                    draw_trellis)
from ..validation import RngLike, as_bool, as_positive_int, check_choice
from .base import Explorer, InputError

__all__ = ["InputError", "trellis_figure", "trellis_explorer", "baum_welch_explorer"]

_TEXT_LAYOUT = W.Layout(width="330px")


# ------------------------------------------------------------------------------- text <-> arrays

def _parse_vector(text: str, name: str) -> np.ndarray:
    """Numbers separated by spaces or commas, e.g. ``"0.4 0.3 0.3"``."""
    if not isinstance(text, str):
        raise TypeError(f"{name}: expected text such as '0.5 0.5', got {type(text).__name__}")
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise ValueError(f"{name}: enter numbers separated by spaces, e.g. '0.5 0.5'")
    try:
        return np.array([float(tok) for tok in tokens])
    except ValueError:
        raise ValueError(f"{name}: could not read a number in {text!r}") from None


def _parse_matrix(text: str, name: str) -> np.ndarray:
    """Rows separated by ``;`` or new lines, entries by spaces: ``"0.9 0.1; 0.5 0.5"``."""
    if not isinstance(text, str):
        raise TypeError(f"{name}: expected text such as '0.9 0.1; 0.2 0.8', got "
                        f"{type(text).__name__}")
    rows = [row for row in text.replace("\n", ";").split(";") if row.strip()]
    if not rows:
        raise ValueError(f"{name}: enter rows separated by ';', e.g. '0.9 0.1; 0.2 0.8'")
    parsed = [_parse_vector(row, name) for row in rows]
    if len({len(r) for r in parsed}) > 1:
        raise ValueError(f"{name}: every row needs the same number of entries, "
                         f"got {[len(r) for r in parsed]}")
    return np.vstack(parsed)


def _format_matrix(matrix) -> str:
    """The inverse of :func:`_parse_matrix` (a 1-D array gives one row without ``;``)."""
    matrix = np.atleast_2d(matrix)
    return "; ".join(" ".join(f"{v:g}" for v in row) for row in matrix)


def _hmm_from_text(pi: str, A: str, B: str, template: DiscreteHMM | None = None) -> DiscreteHMM:
    """A validated :class:`~course_lib.hmm.model.DiscreteHMM` from the three text boxes.

    State and symbol names come from ``template`` when the sizes match (so ``"HHUH"`` still
    reads with the weather-mood B); otherwise states are named 1..N and symbols A, B, C, ...
    """
    pi_, A_, B_ = _parse_vector(pi, "pi"), _parse_matrix(A, "A"), _parse_matrix(B, "B")
    N, M = pi_.shape[0], B_.shape[1]
    if M > len(string.ascii_uppercase):
        raise ValueError(f"B: at most {len(string.ascii_uppercase)} symbols, got {M}")
    states = (template.state_names if template is not None and template.n_states == N
              and template.state_names is not None else tuple(str(i + 1) for i in range(N)))
    symbols = (template.symbol_names if template is not None and template.n_symbols == M
               and template.symbol_names is not None else tuple(string.ascii_uppercase[:M]))
    return DiscreteHMM(pi_, A_, B_, state_names=states, symbol_names=symbols)


# ------------------------------------------------------------------------------- trellis

def _trellis_observations(model, observations) -> np.ndarray:
    """``observations`` as symbols of ``model``, refused beyond :data:`TRELLIS_MAX_LENGTH`."""
    if not isinstance(model, DiscreteHMM):
        raise TypeError(f"model: expected a DiscreteHMM, got {type(model).__name__}")
    O = model.encode(observations)
    if O.shape[0] > TRELLIS_MAX_LENGTH:
        raise ValueError(f"observations: the trellis figure draws at most {TRELLIS_MAX_LENGTH} "
                         f"time steps, got {O.shape[0]} (for longer sequences use "
                         "course_lib.hmm.inference.posteriors and plot_posteriors)")
    return O


def trellis_figure(model: DiscreteHMM, observations, *, scale: str = "probability",
                   show_viterbi: bool = True) -> Figure:
    """Figure: alpha, beta and gamma of ``observations`` on the trellis, Viterbi path on each.

    ``model`` is a :class:`course_lib.hmm.model.DiscreteHMM`. ``scale="probability"`` colours and
    writes alpha_t(i), beta_t(i) and gamma_t(i) on the fixed scale 0..1; ``"log"`` their logs,
    each panel on its own range (what a long sequence needs, since alpha shrinks with t).
    Sequences longer than :data:`course_lib.plotting.hmm_trellis.TRELLIS_MAX_LENGTH` are refused
    (``ValueError`` naming ``observations``). When ``P(O | lambda) = 0`` the figure shows alpha
    (zero from the impossible step on) and the library's explanation
    (:func:`course_lib.hmm.inference.explain_zero_probability`) instead of failing.

    The numbers are the library's: :func:`course_lib.hmm.inference.posteriors` and
    :func:`course_lib.hmm.inference.viterbi` (:func:`course_lib.hmm.inference.forward_log` for
    an impossible sequence); :mod:`course_lib.plotting.hmm_trellis` draws them.
    """
    O = _trellis_observations(model, observations)
    check_choice(scale, "scale", ("probability", "log"))
    show_viterbi = as_bool(show_viterbi, "show_viterbi")
    log_scale = scale == "log"
    forward = H.forward_log(model, O)
    if forward.log_likelihood == -np.inf:
        explanation = H.explain_zero_probability(model, O, "beta, gamma and the Viterbi path")
        return draw_impossible_trellis(model, O, forward, explanation, log_scale=log_scale)
    best = H.viterbi(model, O) if show_viterbi else None
    return draw_trellis(model, O, H.posteriors(model, O), best, log_scale=log_scale)


def trellis_explorer(model: DiscreteHMM | None = None,
                     observations: str = WEATHER_MOOD_OBSERVATIONS) -> Explorer:
    """Explorer over the trellis; starts from the slides' weather-mood model and O = HHUH.

    Controls: ``observations`` (text, symbol names, at most
    :data:`course_lib.plotting.hmm_trellis.TRELLIS_MAX_LENGTH` of them), ``pi``, ``A``, ``B``
    (text, rows separated by ``;``), ``scale`` (probability or log) and ``viterbi`` (draw the
    best path); the figure is :func:`trellis_figure`. Text boxes redraw on Enter or when they
    lose focus.
    """
    template = weather_mood_hmm() if model is None else model
    if not isinstance(template, DiscreteHMM):
        raise TypeError(f"model: expected a DiscreteHMM, got {type(template).__name__}")
    _trellis_observations(template, observations)  # a bad starting string fails here, not later

    def text_box(value: str, description: str) -> W.Text:
        return W.Text(value=value, description=description, layout=_TEXT_LAYOUT,
                      continuous_update=False)

    controls = {
        "observations": text_box(observations, "O"),
        "pi": text_box(_format_matrix(template.pi), "pi"),
        "A": text_box(_format_matrix(template.A), "A"),
        "B": text_box(_format_matrix(template.B), "B"),
        "scale": W.Dropdown(options=["probability", "log"], value="probability",
                            description="numbers"),
        "viterbi": W.Checkbox(value=True, description="Viterbi path"),
    }

    def render(observations, pi, A, B, scale, viterbi):
        try:  # a half-typed entry is shown as one line naming its box, not a traceback
            typed = _hmm_from_text(pi, A, B, template)
            O = _trellis_observations(typed, observations.strip())
        except (ValueError, TypeError) as err:
            raise InputError(str(err)) from None
        return trellis_figure(typed, O, scale=scale, show_viterbi=viterbi)

    return Explorer(render, controls,
                    title="Forward, backward, posteriors and Viterbi on the trellis")


# ------------------------------------------------------------------------------- Baum-Welch

class _BaumWelchSession:
    """The state behind the Baum-Welch explorer: the data and a Baum-Welch stepper.

    The stepper is a :class:`course_lib.hmm.training.BaumWelchStepper`, the loop of ``baum_welch``.

    ``configure(seed, n_states, emission_floor)`` starts a new stepper from a random model when
    a setting changed; the new settings are stored only once the stepper exists, so a refused
    setting (e.g. a floor too large for M symbols) leaves the previous run intact and is
    refused again on every redraw or step. ``step(k)`` runs k re-estimations.
    """

    def __init__(self, sequences, n_symbols: int, true_model: DiscreteHMM | None = None,
                 symbol_names=None):
        self.n_symbols = as_positive_int(n_symbols, "n_symbols")
        self.batch = H.pack_sequences(sequences, self.n_symbols)
        self.true_model = true_model
        self.symbol_names = symbol_names
        self.reference = (None if true_model is None
                          else float(H.log_likelihoods(true_model, self.batch).sum()))
        self.settings = None
        self.stepper: BaumWelchStepper | None = None

    @property
    def model(self) -> DiscreteHMM:
        return self.stepper.hmm

    @property
    def trace(self) -> np.ndarray:
        return self.stepper.log_likelihood_trace

    def configure(self, seed: int, n_states: int, emission_floor: float) -> None:
        settings = (seed, n_states, emission_floor)
        if settings != self.settings:
            start = random_hmm(n_states, self.n_symbols, rng=seed)
            stepper = BaumWelchStepper(start.replace(symbol_names=self.symbol_names),
                                       self.batch, emission_floor=emission_floor)
            self.settings, self.stepper = settings, stepper

    def reset(self) -> None:
        """Start again from the random model of the current settings at the next configure."""
        self.settings = None

    def step(self, n_steps: int = 1) -> None:
        for _ in range(n_steps):
            self.stepper.step()

    def render(self):
        """Figure: the trace (with the true model's log-likelihood if known), pi, A and B."""
        return render_baum_welch(self.trace, self.model, reference=self.reference)


_EMISSION_FLOORS = (0.0, 0.001, 0.01, 0.05)


def baum_welch_explorer(sequences=None, n_symbols: int | None = None, *,
                        true_model: DiscreteHMM | None = None, n_sequences: int = 30,
                        length: int = 40, rng: RngLike = 0) -> Explorer:
    """Explorer stepping Baum-Welch by hand.

    By default the data are :func:`course_lib.hmm.model.weather_mood_sequences` (``n_sequences`` of
    ``length`` days, drawn with ``rng``), and the weather-mood model's log-likelihood is shown
    as a dashed line. Controls: ``seed`` of the random starting model, ``n_states``,
    ``emission_floor`` (the choices below 1/M). Buttons: "Step" (one re-estimation),
    "10 steps", "Restart".
    """
    symbol_names = None
    if sequences is None:
        true_model = weather_mood_hmm()
        sequences = weather_mood_sequences(n_sequences, length, rng=rng)
        n_symbols, symbol_names = true_model.n_symbols, true_model.symbol_names
    elif n_symbols is None:
        raise ValueError("n_symbols: give the number of symbols M of the sequences")
    session = _BaumWelchSession(sequences, n_symbols, true_model, symbol_names)
    # a floor must stay below 1/M (M floored entries would already sum to one)
    floors = [floor for floor in _EMISSION_FLOORS if floor * session.n_symbols < 1]
    controls = {
        "seed": W.IntSlider(value=0, min=0, max=9, description="init seed"),
        "n_states": W.IntSlider(value=3, min=2, max=5, description="states N"),
        "emission_floor": W.Dropdown(options=floors, value=0.0, description="floor"),
    }

    def step(n_steps):
        session.configure(**{name: c.value for name, c in controls.items()})
        session.step(n_steps)

    def render(seed, n_states, emission_floor):
        session.configure(seed, n_states, emission_floor)
        return session.render()

    buttons = {"Step": lambda: step(1), "10 steps": lambda: step(10),
               "Restart": session.reset}
    explorer = Explorer(render, controls, buttons=buttons, title="Baum-Welch, one step at a time")
    explorer.session = session  # for inspection in the notebook and tests
    return explorer
