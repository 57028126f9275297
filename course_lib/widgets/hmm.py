"""Explorers of the HMM unit: the trellis (forward, backward, posteriors, Viterbi) and Baum-Welch.

* :func:`trellis_explorer`: edit pi, A, B (as text, rows separated by ``;``) and the
  observation string; see alpha, beta and gamma on the trellis with the Viterbi path.
* :func:`baum_welch_explorer`: a Step button runs one re-estimation; the figure shows the
  log-likelihood trace and the current pi, A and B.

The compute lives in :mod:`course_lib.hmm`, the drawing in :mod:`course_lib.plotting.hmm`.
"""

from __future__ import annotations

import string

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np

from .. import hmm as H
from ..plotting.hmm import plot_hmm_parameters, plot_log_likelihood_trace, plot_trellis
from ..validation import RngLike, as_rng, check_choice
from .base import Explorer

__all__ = ["parse_vector", "parse_matrix", "format_matrix", "hmm_from_text",
           "render_trellis", "trellis_explorer", "BaumWelchSession", "baum_welch_explorer"]

_TEXT_LAYOUT = W.Layout(width="330px")


# ------------------------------------------------------------------------------- text <-> arrays

def parse_vector(text: str, name: str) -> np.ndarray:
    """Numbers separated by spaces or commas, e.g. ``"0.4 0.3 0.3"``."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise ValueError(f"{name}: enter numbers separated by spaces, e.g. '0.5 0.5'")
    try:
        return np.array([float(tok) for tok in tokens])
    except ValueError as err:
        raise ValueError(f"{name}: could not read a number in {text!r}") from err


def parse_matrix(text: str, name: str) -> np.ndarray:
    """Rows separated by ``;`` or new lines, entries by spaces: ``"0.9 0.1; 0.5 0.5"``."""
    rows = [row for row in text.replace("\n", ";").split(";") if row.strip()]
    if not rows:
        raise ValueError(f"{name}: enter rows separated by ';', e.g. '0.9 0.1; 0.2 0.8'")
    parsed = [parse_vector(row, name) for row in rows]
    if len({len(r) for r in parsed}) > 1:
        raise ValueError(f"{name}: every row needs the same number of entries, "
                         f"got {[len(r) for r in parsed]}")
    return np.vstack(parsed)


def format_matrix(matrix) -> str:
    """The inverse of :func:`parse_matrix` (a 1-D array gives one row without ``;``)."""
    matrix = np.atleast_2d(matrix)
    return "; ".join(" ".join(f"{v:g}" for v in row) for row in matrix)


def hmm_from_text(pi: str, A: str, B: str, template: H.DiscreteHMM | None = None) -> H.DiscreteHMM:
    """A validated :class:`~course_lib.hmm.DiscreteHMM` from the three text boxes.

    State and symbol names come from ``template`` when the sizes match (so ``"HHUH"`` still
    reads with the weather-mood B); otherwise states are named 1..N and symbols A, B, C, ...
    """
    pi_, A_, B_ = parse_vector(pi, "pi"), parse_matrix(A, "A"), parse_matrix(B, "B")
    N, M = pi_.shape[0], B_.shape[1]
    if M > len(string.ascii_uppercase):
        raise ValueError(f"B: at most {len(string.ascii_uppercase)} symbols, got {M}")
    states = (template.state_names if template is not None and template.n_states == N
              else tuple(str(i + 1) for i in range(N)))
    symbols = (template.symbol_names if template is not None and template.n_symbols == M
               and template.symbol_names is not None else tuple(string.ascii_uppercase[:M]))
    return H.DiscreteHMM(pi_, A_, B_, state_names=states, symbol_names=symbols)


# ------------------------------------------------------------------------------- trellis

def render_trellis(model: H.DiscreteHMM, observations, *, scale: str = "probability",
                   show_viterbi: bool = True):
    """Figure: alpha, beta and gamma on the trellis of ``observations``, Viterbi path on each.

    ``scale="probability"`` writes alpha_t(i), beta_t(i) and gamma_t(i); ``"log"`` writes
    their logs (what a long sequence needs). When ``P(O | lambda) = 0`` the figure says so
    (and shows alpha, all zero from the impossible step on) instead of failing.
    """
    check_choice(scale, "scale", ("probability", "log"))
    O = model.encode(observations)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.4), layout="constrained")
    common = dict(observations=O, state_names=model.state_names, symbol_names=model.symbol_names)
    log_scale = scale == "log"
    forward = H.forward_log(model, O)
    if forward.log_likelihood == -np.inf:
        values = forward.log_alpha if log_scale else np.exp(forward.log_alpha)
        plot_trellis(axes[0], values, title="alpha", log_values=log_scale, **common)
        for ax in axes[1:]:
            ax.axis("off")
        axes[1].text(0, 0.5, "P(O | lambda) = 0: some observation has zero probability in every\n"
                     "state the model can be in at that time, so log P(O) = -inf and\n"
                     "beta, gamma and the Viterbi path are undefined.", va="center", fontsize=10)
        return fig
    post = H.posteriors(model, O)
    path = H.viterbi(model, O) if show_viterbi else None
    with np.errstate(divide="ignore"):  # log 0 = -inf for impossible states
        log_gamma = np.log(post.gamma)
    quantities = [("alpha_t(i) = P(o_1..o_t, q_t=i)", post.log_alpha, post.alpha),
                  ("beta_t(i) = P(o_t+1..o_T | q_t=i)", post.log_beta, post.beta),
                  ("gamma_t(i) = P(q_t=i | O)", log_gamma, post.gamma)]
    for ax, (title, log_values, probabilities) in zip(axes, quantities):
        values = log_values if log_scale else probabilities
        plot_trellis(ax, values, path=None if path is None else path.path,
                     title=("log " if log_scale else "") + title, log_values=log_scale, **common)
    summary = f"log P(O) = {post.log_likelihood:.4f}   P(O) = {np.exp(post.log_likelihood):.4g}"
    if path is not None:
        best = "".join(model.state_labels(path.path)) if len(O) <= 40 else "..."
        summary += f"   Viterbi path {best}, log P(Q*, O) = {path.log_probability:.4f}"
    fig.suptitle(summary, fontsize=10)
    return fig


def trellis_explorer(model: H.DiscreteHMM | None = None, observations: str = "HHUH") -> Explorer:
    """Explorer over the trellis; starts from the slides' weather-mood model and O = HHUH.

    Controls: ``observations`` (text, symbol names), ``pi``, ``A``, ``B`` (text, rows separated
    by ``;``), ``scale`` (probability or log) and ``viterbi`` (draw the best path).
    """
    template = H.weather_mood_hmm() if model is None else model
    controls = {
        "observations": W.Text(value=observations, description="O", layout=_TEXT_LAYOUT),
        "pi": W.Text(value=format_matrix(template.pi), description="pi", layout=_TEXT_LAYOUT),
        "A": W.Text(value=format_matrix(template.A), description="A", layout=_TEXT_LAYOUT),
        "B": W.Text(value=format_matrix(template.B), description="B", layout=_TEXT_LAYOUT),
        "scale": W.Dropdown(options=["probability", "log"], value="probability",
                            description="numbers"),
        "viterbi": W.Checkbox(value=True, description="Viterbi path"),
    }

    def render(observations, pi, A, B, scale, viterbi):
        return render_trellis(hmm_from_text(pi, A, B, template), observations, scale=scale,
                              show_viterbi=viterbi)

    return Explorer(render, controls, title="Forward, backward, posteriors and Viterbi on the trellis")


# ------------------------------------------------------------------------------- Baum-Welch

class BaumWelchSession:
    """The state behind the Baum-Welch explorer: data, the current model and its trace.

    ``configure(seed, n_states, emission_floor)`` restarts from a random model when a setting
    changed; ``step(k)`` runs k re-estimations with :func:`course_lib.hmm.baum_welch_step`.
    ``trace[k] = log P(O | lambda_k)``.
    """

    def __init__(self, sequences, n_symbols: int, true_model: H.DiscreteHMM | None = None,
                 symbol_names=None):
        self.batch = H.pack_sequences(sequences, n_symbols)
        self.n_symbols = n_symbols
        self.true_model = true_model
        self.symbol_names = symbol_names
        self.settings = None
        self.model: H.DiscreteHMM | None = None
        self.trace: list[float] = []

    def configure(self, seed: int, n_states: int, emission_floor: float) -> None:
        settings = (seed, n_states, emission_floor)
        if settings != self.settings:
            self.settings = settings
            start = H.random_hmm(n_states, self.n_symbols, seed)
            self.model = start.replace(symbol_names=self.symbol_names)
            self.trace = [float(H.log_likelihoods(self.model, self.batch).sum())]

    def reset(self) -> None:
        self.settings = None

    def step(self, n_steps: int = 1) -> None:
        _, _, emission_floor = self.settings
        for _ in range(n_steps):
            self.model, _ = H.baum_welch_step(self.model, self.batch, emission_floor=emission_floor)
            self.trace.append(float(H.log_likelihoods(self.model, self.batch).sum()))

    def render(self):
        """Figure: the trace (with the true model's log-likelihood if known), pi, A and B."""
        fig = plt.figure(figsize=(13, 3.6), layout="constrained")
        grid = fig.add_gridspec(2, 3, height_ratios=[1, 4])
        ax_trace = fig.add_subplot(grid[:, 0])
        reference = (float(H.log_likelihoods(self.true_model, self.batch).sum())
                     if self.true_model is not None else None)
        plot_log_likelihood_trace(ax_trace, self.trace, reference=reference)
        axes = (fig.add_subplot(grid[0, 1:]), fig.add_subplot(grid[1, 1]),
                fig.add_subplot(grid[1, 2]))
        plot_hmm_parameters(axes, self.model)
        fig.suptitle(f"iteration {len(self.trace) - 1}: log P(O | lambda) = {self.trace[-1]:.3f}",
                     fontsize=10)
        return fig


def baum_welch_explorer(sequences=None, n_symbols: int | None = None, *,
                        true_model: H.DiscreteHMM | None = None, n_sequences: int = 30,
                        length: int = 40, rng: RngLike = 0) -> Explorer:
    """Explorer stepping Baum-Welch by hand.

    By default the data are ``n_sequences`` sequences of ``length`` moods sampled from the
    weather-mood model (drawn with ``rng``), whose log-likelihood is shown as a dashed line.
    Controls: ``seed`` of the random starting model, ``n_states``, ``emission_floor``.
    Buttons: "Step" (one re-estimation), "10 steps", "Restart".
    """
    symbol_names = None
    if sequences is None:
        true_model = H.weather_mood_hmm()
        sequences = H.sample_sequences(true_model, [length] * n_sequences, as_rng(rng)).symbols
        n_symbols, symbol_names = true_model.n_symbols, true_model.symbol_names
    elif n_symbols is None:
        raise ValueError("n_symbols: give the number of symbols M of the sequences")
    session = BaumWelchSession(sequences, n_symbols, true_model, symbol_names)
    controls = {
        "seed": W.IntSlider(value=0, min=0, max=9, description="init seed"),
        "n_states": W.IntSlider(value=3, min=2, max=5, description="states N"),
        "emission_floor": W.Dropdown(options=[0.0, 0.001, 0.01, 0.05], value=0.0,
                                     description="floor"),
    }

    def current():
        session.configure(**{name: c.value for name, c in controls.items()})

    def step(n_steps):
        current()
        session.step(n_steps)

    def render(seed, n_states, emission_floor):
        session.configure(seed, n_states, emission_floor)
        return session.render()

    buttons = {"Step": lambda: step(1), "10 steps": lambda: step(10),
               "Restart": session.reset}
    explorer = Explorer(render, controls, buttons=buttons, title="Baum-Welch, one step at a time")
    explorer.session = session  # for inspection in the notebook and tests
    return explorer

