"""The trellis figures of the HMM unit: one panel of alpha, beta or gamma over (time, state),
and the trellis explorer's figure of three such panels.

:func:`plot_trellis` draws one (T, N) array on the axes it is given and returns them. The
explorer's figure (:func:`course_lib.widgets.hmm.trellis_figure`) is drawn here by
:func:`draw_trellis` from what :mod:`course_lib.hmm.inference` computed (the
:class:`~course_lib.hmm.inference.Posteriors` of the sequence and, when asked for, its
:class:`~course_lib.hmm.inference.ViterbiResult`), or by :func:`draw_impossible_trellis`
from the log-space forward pass and the library's explanation when ``P(O | lambda) = 0``;
nothing here runs a pass. Arrays follow course_lib.hmm.inference (rows are time steps:
``alpha[t, i]``): time on the x axis and states on the y axis, state 0 at the top. Numbers
written on coloured cells are black or white by the colour actually drawn
(:func:`.colour.text_colours`).
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle

from ..validation import as_float_array
from .colour import _text_colours
from .hmm import _names

__all__ = ["TRELLIS_MAX_LENGTH", "plot_trellis", "draw_trellis", "draw_impossible_trellis"]

#: The longest observation sequence the trellis explorer's figure
#: (:func:`course_lib.widgets.hmm.trellis_figure`) draws: at this length each of the three
#: panels still has a readable column per time step with its symbol written above it; numbers
#: are written only while they fit in their cells.
TRELLIS_MAX_LENGTH = 30

_CELL_FONTSIZE = 9
_TICK_FONTSIZE = 9
_CHAR_WIDTH = 0.6 / 72  # inches per character per point of font size (a typical average)


def _format(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits (scientific notation outside 1e-3..1e4)."""
    if value == 0:
        return "0"
    if not np.isfinite(value):
        return "-inf" if value < 0 else "inf"
    return f"{value:.{digits}g}" if 1e-3 <= abs(value) < 1e4 else f"{value:.{digits - 2}e}"


#: (font size, significant digits) tried in turn for the numbers in trellis cells
_CELL_STYLES = ((_CELL_FONTSIZE, 3), (_CELL_FONTSIZE - 1, 3), (_CELL_FONTSIZE - 1, 2),
                (_CELL_FONTSIZE - 2, 2))


def _text_width(text: str, fontsize: float) -> float:
    """Approximate width of ``text`` in inches."""
    return len(text) * fontsize * _CHAR_WIDTH


def _axes_size(ax) -> tuple[float, float]:
    """The axes' width and height in inches (before a constrained layout shrinks them a bit)."""
    box = ax.get_position()
    width, height = ax.figure.get_size_inches()
    return box.width * width, box.height * height


_TICK_STEPS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


def _thinned_ticks(T: int, cell_width: float, label_width: float) -> list[int]:
    """0-based positions of time labels: every step-th time t (1-based), step 1, 2, 5, 10, ...

    The smallest step whose labels are at least ``label_width`` (plus a gap) apart. With a step
    of 5 or more t = 1 is labelled too, so the start of the sequence is always marked.
    """
    step = next((s for s in _TICK_STEPS if s * cell_width >= label_width + 0.08), _TICK_STEPS[-1])
    if step == 1:
        return list(range(T))
    times = list(range(step, T + 1, step))
    if step >= 5 or not times:
        times = [1] + times
    return [t - 1 for t in times]


#: Probabilities computed in floating point may stray this far outside [0, 1].
_PROBABILITY_SLACK = 1e-9


def _log_values(values) -> np.ndarray:
    """Log values for the trellis: finite or -inf (log 0); NaN and +inf are refused."""
    return as_float_array(values, "values", ndim=2, allow_inf="-inf")


def _trellis_values(values, log_values: bool) -> tuple[np.ndarray, Normalize]:
    """``values`` checked, and the colour scale: 0..1 for probabilities, the finite range for
    logs (``-inf`` left out)."""
    if log_values:
        values = _log_values(values)
        finite = values[np.isfinite(values)]
        low, high = (finite.min(), finite.max()) if finite.size else (-1.0, 0.0)
        return values, Normalize(low - 1.0 if low == high else low, high)
    values = as_float_array(values, "values", ndim=2)
    if values.min() < -_PROBABILITY_SLACK or values.max() > 1 + _PROBABILITY_SLACK:
        raise ValueError(f"values: probabilities must lie in [0, 1], got "
                         f"[{values.min():.3g}, {values.max():.3g}] (pass log_values=True "
                         "for log-probabilities)")
    return values, Normalize(0.0, 1.0)


def _write_numbers(ax, values, colours, norm, cell_width: float, annotate: bool | None) -> bool:
    """Write each value in its cell in the first style whose longest number fits (the first
    style when told to annotate); returns whether the numbers were written."""
    fitting = [(size, [[_format(v, digits) for v in row] for row in values])
               for size, digits in _CELL_STYLES]
    fitting = [(size, texts) for size, texts in fitting
               if cell_width >= _text_width("x" * max(map(len, sum(texts, []))), size) + 0.06]
    if annotate is None:
        annotate = bool(fitting)
    if annotate:
        size, texts = fitting[0] if fitting else (_CELL_FONTSIZE, [[_format(v) for v in row]
                                                                    for row in values])
        text_colour = np.where(np.isfinite(values), _text_colours(values, colours, norm), "k")
        T, N = values.shape
        for t in range(T):
            for i in range(N):
                ax.text(t, i, texts[t][i], ha="center", va="center", fontsize=size,
                        color=text_colour[t, i], zorder=3)
    return annotate


def _draw_path(ax, path, annotate: bool) -> None:
    """The path as a line through its cells, or outlined cells joined up when numbers are
    written (so the numbers stay clear)."""
    path = np.asarray(path)
    if annotate:
        for t, q in enumerate(path):
            ax.add_patch(Rectangle((t - 0.45, q - 0.45), 0.9, 0.9, fill=False,
                                   edgecolor="C3", lw=2, zorder=2))
        for t in range(len(path) - 1):
            ax.plot([t + 0.45, t + 0.55], [path[t], path[t + 1]], "-", color="C3",
                    lw=2, zorder=2)
    else:
        ax.plot(np.arange(len(path)), path, "-", color="C3", lw=2, alpha=0.6,
                zorder=2, label="Viterbi path")


def _write_symbols(ax, observations, symbol_names, T: int, cell_width: float, ticks) -> None:
    """The observed symbols above the T columns, every one in the largest font that fits its
    column; thinned to the time ticks only below 6 points."""
    observations = np.asarray(observations)
    symbols = [symbol_names[int(o)] if symbol_names is not None else str(int(o))
               for o in observations]
    longest = max(len(s) for s in symbols)
    fitting = [size for size in range(_TICK_FONTSIZE, 5, -1)
               if cell_width >= _text_width("x" * longest, size) + 0.02]
    size = fitting[0] if fitting else _TICK_FONTSIZE
    shown = range(T) if fitting else ticks
    top = ax.secondary_xaxis("top")
    top.set_xticks(list(shown), [symbols[t] for t in shown], fontsize=size)
    top.tick_params(length=0, pad=2)


def plot_trellis(ax, values, *, observations=None, path=None, state_names=None,
                 symbol_names=None, title: str | None = None, annotate: bool | None = None,
                 log_values: bool = False, cmap: str = "Blues", colorbar: bool = True,
                 cax=None):
    """The trellis: one cell per (state i, time t) showing ``values[t, i]`` (alpha, beta, gamma...).

    ``values`` is (T, N), rows are time steps. Probabilities (``log_values=False``) are coloured
    on the fixed scale 0..1, so panels can be compared and a tiny alpha looks pale; logs
    (``log_values=True``, ``-inf`` allowed and left white) span their own finite range, which
    the colour bar states. The numbers are written in the cells when they fit
    (``annotate=None``; 3 significant digits, or 2 and a smaller font when the cells are
    narrow), in black or white, whichever contrasts with the colour drawn below.
    ``observations`` label the columns from above (thinned when they do not fit), the time
    axis is thinned to readable ticks, and ``path`` (T,) states, e.g. the Viterbi path, is drawn
    as a line through its cells (outlined when the numbers are written). The colour bar takes
    room from ``ax``, or is drawn into ``cax`` when given.
    """
    values, norm = _trellis_values(values, log_values)
    T, N = values.shape
    colours = colormaps[cmap].with_extremes(bad="white")
    image = ax.imshow(np.ma.masked_invalid(values.T), aspect="auto", cmap=colours, norm=norm,
                      interpolation="nearest")
    width, _ = _axes_size(ax)
    cell_width = width / T
    annotate = _write_numbers(ax, values, colours, norm, cell_width, annotate)
    if path is not None:
        _draw_path(ax, path, annotate)
    ax.set_yticks(range(N), _names(state_names, N, "q="))
    ticks = _thinned_ticks(T, cell_width, _text_width(str(T), _TICK_FONTSIZE))
    ax.set_xticks(ticks, [str(t + 1) for t in ticks], fontsize=_TICK_FONTSIZE)
    ax.set_xlabel("time t")
    ax.set_ylabel("state")
    if observations is not None:
        _write_symbols(ax, observations, symbol_names, T, cell_width, ticks)
    if colorbar:
        bar = (ax.figure.colorbar(image, ax=ax, fraction=0.06, pad=0.02) if cax is None
               else ax.figure.colorbar(image, cax=cax))
        bar.set_label("log value (this panel's range)" if log_values else
                      "probability (fixed 0..1)", fontsize=8)
        bar.ax.tick_params(labelsize=8)
    if title:
        # above the symbols when they are written
        ax.set_title(title, fontsize=10,
                     pad=4 + 1.4 * _TICK_FONTSIZE if observations is not None else 6)
    return ax


# ----- the trellis explorer's figure -----------------------------------------------------------

_TITLES = ("alpha_t(i) = P(o_1..o_t, q_t=i)", "beta_t(i) = P(o_t+1..o_T | q_t=i)",
           "gamma_t(i) = P(q_t=i | O)")


def _trellis_layout():
    """The figure of three trellis panels, each with its colour bar: (figure, panels, bars).

    A fixed layout (no constrained layout): the explorer redraws this figure on every change.
    """
    fig = plt.figure(figsize=(11, 3.5))
    outer = fig.add_gridspec(1, 3, left=0.05, right=0.945, bottom=0.14, top=0.8, wspace=0.38)
    panels = [outer[k].subgridspec(1, 2, width_ratios=[1, 0.045], wspace=0.06) for k in range(3)]
    axes = [fig.add_subplot(panel[0]) for panel in panels]
    colour_bars = [fig.add_subplot(panel[1]) for panel in panels]
    return fig, axes, colour_bars


def _common(model, observations, log_scale: bool) -> dict:
    return dict(observations=observations, state_names=model.state_names,
                symbol_names=model.symbol_names, log_values=log_scale)


def draw_trellis(model, observations, posteriors, viterbi=None, *, log_scale: bool = False):
    """Figure: alpha, beta and gamma of ``posteriors`` (the
    :class:`~course_lib.hmm.inference.Posteriors` of ``observations``, symbols of ``model``) on
    the trellis, with the path of ``viterbi`` (a :class:`~course_lib.hmm.inference.ViterbiResult`
    or None) on each; probabilities on 0..1, or with ``log_scale`` their logs on each panel's
    own range. The title states log P(O) and the Viterbi path with its log-probability."""
    fig, axes, colour_bars = _trellis_layout()
    path = None if viterbi is None else viterbi.path
    with np.errstate(divide="ignore"):  # log 0 = -inf for impossible states
        log_gamma = np.log(posteriors.gamma)
    quantities = [(posteriors.log_alpha, posteriors.alpha), (posteriors.log_beta, posteriors.beta),
                  (log_gamma, posteriors.gamma)]
    prefix = "log " if log_scale else ""
    for ax, cax, title, (log_values, probabilities) in zip(axes, colour_bars, _TITLES,
                                                            quantities):
        plot_trellis(ax, log_values if log_scale else probabilities, path=path,
                     title=prefix + title, cax=cax, **_common(model, observations, log_scale))
    for ax in axes[1:]:
        ax.set_ylabel("")  # the rows are the states of the first panel
    log_likelihood = posteriors.log_likelihood
    summary = f"log P(O) = {log_likelihood:.4f}   P(O) = {np.exp(log_likelihood):.4g}"
    if path is not None:
        summary += (f"   Viterbi path {''.join(model.state_labels(path))}, "
                    f"log P(Q*, O) = {viterbi.log_probability:.4f}")
    fig.suptitle(summary, fontsize=10, y=0.98)
    return fig


def draw_impossible_trellis(model, observations, forward, explanation: str, *,
                            log_scale: bool = False):
    """Figure for a sequence with ``P(O | lambda) = 0``: alpha of ``forward`` (a
    :class:`~course_lib.hmm.inference.LogForward`; zero from the impossible step on) and
    ``explanation`` (:func:`course_lib.hmm.inference.explain_zero_probability`) beside it."""
    fig, axes, colour_bars = _trellis_layout()
    values = forward.log_alpha if log_scale else np.exp(forward.log_alpha)
    prefix = "log " if log_scale else ""
    plot_trellis(axes[0], values, title=prefix + _TITLES[0], cax=colour_bars[0],
                 **_common(model, observations, log_scale))
    for ax in axes[1:] + colour_bars[1:]:
        ax.axis("off")
    axes[1].text(0.0, 0.5, textwrap.fill(explanation, 70), va="center", fontsize=9,
                 transform=axes[1].transAxes)
    fig.suptitle("P(O | lambda) = 0: this observation sequence is impossible", fontsize=10,
                 y=0.98)
    return fig
