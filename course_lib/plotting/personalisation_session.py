"""Plots for the "personalise it yourself" explorer (Unit 6): maps over equaliser settings.

``plot_xxx(ax, ...) -> ax``; nothing here computes what a test would need. Two band gains (dB)
span a map: the posterior mean utility, its standard deviation or bEI drawn as an image
(:func:`plot_setting_map`), the comparisons made as segments between the two settings of each
pair (:func:`plot_comparisons`), the incumbent, the next pair and the hidden optimum as marks
(:func:`plot_session_marks`). For 3-4 bands the map is a slice through the incumbent: the
other bands held at its gains (the caller passes only the two shown coordinates).
:func:`plot_convergence_measure` draws the convergence measure against the number of answers
and :func:`plot_equaliser_curves` the frequency responses of the two settings being compared.
"""

from __future__ import annotations

import numpy as np

from matplotlib.collections import LineCollection
from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator

from ..validation import as_float_array, as_positive_float, check_length
from .colour import _series_linestyle
from .levelset import _grid_values

__all__ = ["plot_convergence_measure", "plot_setting_map", "plot_comparisons",
           "plot_session_marks", "plot_equaliser_curves"]

_PAIR_COLOURS = {"A": "#d95f02", "B": "#7570b3"}   # orange and purple: apart for colour-blind eyes
_INCUMBENT_COLOUR = "white"


def plot_setting_map(ax, axis_x, axis_y, values, *, cmap: str = "viridis",
                     label: str | None = None, vmin=None, vmax=None, colorbar: bool = True,
                     names: tuple[str, str] = ("band 1 gain (dB)", "band 2 gain (dB)")):
    """``values`` (len(axis_y), len(axis_x)) over two gain axes as an image, one cell per
    setting (cells centred on the settings), with a colour bar labelled ``label``."""
    axis_x, axis_y, values = _grid_values(axis_x, axis_y, values)
    half_x = 0.5 * (axis_x[1] - axis_x[0]) if axis_x.size > 1 else 0.5
    half_y = 0.5 * (axis_y[1] - axis_y[0]) if axis_y.size > 1 else 0.5
    image = ax.imshow(values, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto",
                      interpolation="nearest",
                      extent=(axis_x[0] - half_x, axis_x[-1] + half_x,
                              axis_y[0] - half_y, axis_y[-1] + half_y))
    ax.set_xlim(axis_x[0] - half_x, axis_x[-1] + half_x)   # fixed: later marks never rescale
    ax.set_ylim(axis_y[0] - half_y, axis_y[-1] + half_y)
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, fraction=0.08, pad=0.03)
        bar.ax.yaxis.set_major_locator(MaxNLocator(4))   # few ticks: quick to lay out
        bar.ax.tick_params(labelsize="x-small")
        if label:
            bar.set_label(label, fontsize="small")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(5, integer=True))
    ax.set_xlabel(names[0], fontsize="small")
    ax.set_ylabel(names[1], fontsize="small")
    ax.tick_params(labelsize="x-small")
    return ax


def plot_comparisons(ax, first, second, answers, *, colour: str = "0.85"):
    """One segment per comparison between its two settings ((m, 2) ``first`` and ``second``,
    the two shown coordinates) with a dot at the preferred end (answer > 0.5: first; < 0.5:
    second; 0.5: none)."""
    first = as_float_array(first, "first", ndim=2)
    second = as_float_array(second, "second", ndim=2)
    answers = as_float_array(answers, "answers", ndim=1)
    if not first.shape == second.shape == (answers.size, 2):
        raise ValueError(f"second: expected shape ({answers.size}, 2) like first, got "
                         f"{second.shape} and first {first.shape}")
    # one collection and one marker line for all comparisons: cheap to redraw after every answer
    ax.add_collection(LineCollection(np.stack([first, second], axis=1), colors=colour,
                                     linewidths=0.9, alpha=0.9, zorder=3))
    decided = answers != 0.5
    winners = np.where((answers > 0.5)[:, None], first, second)[decided]
    ax.plot(winners[:, 0], winners[:, 1], "o", ms=3.5, color=colour, mec="0.2", mew=0.5,
            zorder=4, label="preferred")
    return ax


def plot_session_marks(ax, *, incumbent=None, pair=None, optimum=None,
                       fontsize: str = "small"):
    """The incumbent (white star), the next pair (dots in the pair's colours, lettered A and B
    beside them) and
    the listener's hidden optimum (black-edged cross); each is a point with the two shown
    coordinates, ``pair`` a (2, 2) array (A, B), any of them None to leave it out."""
    if optimum is not None:
        ax.plot(*as_float_array(optimum, "optimum", ndim=1), "X", ms=10, color="#e7298a",
                mec="k", mew=0.8, zorder=6, label="hidden optimum")
    if incumbent is not None:
        ax.plot(*as_float_array(incumbent, "incumbent", ndim=1), "*", ms=14,
                color=_INCUMBENT_COLOUR, mec="k", mew=0.8, zorder=7, label="incumbent")
    if pair is not None:
        pair = as_float_array(pair, "pair", ndim=2)
        low, high = ax.get_ylim()
        for letter, point, side in zip("AB", pair, (-9, 9)):
            # above the point, or below it in the top quarter (clear of the title)
            offset = (side, -9 if point[1] > low + 0.75 * (high - low) else 9)
            colour = _PAIR_COLOURS[letter]
            ax.plot(*point, "o", ms=6, color=colour, mec="k", mew=0.7, zorder=8)
            # the letter beside the point, so an incumbent star under it stays visible
            ax.annotate(letter, point, xytext=offset, textcoords="offset points",
                        ha="center", va="center", fontsize=fontsize, fontweight="bold",
                        color="white", zorder=9,
                        bbox=dict(boxstyle="round,pad=0.15", fc=colour, ec="k", lw=0.5))
    return ax


def plot_convergence_measure(ax, measure, smoothed, *, threshold: float,
                             settled_at: int | None, n_random: int):
    """The convergence measure (grid mean of bEI after each answer, ``measure``: dots) and its
    running mean (``smoothed``: line) against the number of answers, the threshold (dashed),
    the random start (grey band) and the answer from which the session counts as settled
    (green line). Labelled in place rather than by a legend (a legend is slow to lay out, and
    this panel is redrawn after every answer)."""
    measure = as_float_array(measure, "measure", ndim=1, allow_empty=True)
    smoothed = check_length(as_float_array(smoothed, "smoothed", ndim=1, allow_empty=True),
                             "smoothed", measure.size, "measure")
    answers = np.arange(1, measure.size + 1)
    # a NaN threshold would draw no line at all, silently; settled_at refuses it too
    ax.axhline(as_positive_float(threshold, "threshold"), color="0.4", ls="--", lw=1)
    ax.axvspan(0.5, n_random + 0.5, color="0.9", lw=0)
    ax.text(0.7, 2e-4, "random\nstart", fontsize="xx-small", color="0.35")
    if measure.size:
        ax.semilogy(answers, np.maximum(measure, 1e-6), ".", color="C0", ms=4)
        ax.semilogy(answers, np.maximum(smoothed, 1e-6), "-", color="C0", lw=1.5)
    else:
        ax.set_yscale("log")
    if settled_at is not None:
        ax.axvline(settled_at + 1, color="C2", lw=1.5)
    ax.set_xlim(0.5, max(measure.size, n_random + 6) + 0.5)
    ax.set_ylim(1e-4, 10)
    ax.yaxis.set_major_locator(FixedLocator([1e-4, 1e-2, 1]))
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")   # plain text: no mathtext to parse
    ax.yaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax.set_xlabel("answers", fontsize="small")
    ax.tick_params(labelsize="x-small")
    return ax


def plot_equaliser_curves(ax, frequencies, responses_db: dict, *, band_frequencies=()):
    """Frequency responses in dB (``responses_db``: label -> values at ``frequencies`` Hz) on
    a log frequency axis, coloured by :data:`_PAIR_COLOURS` when the label starts with A or B,
    each in its own line style, and labelled above the axes (the first label highest); thin lines at the bands' centre or corner frequencies."""
    frequencies = as_float_array(frequencies, "frequencies", ndim=1)
    for f in band_frequencies:
        ax.axvline(f, color="0.85", lw=0.8, zorder=0)
    for k, (label, values) in enumerate(responses_db.items()):
        colour = _PAIR_COLOURS.get(label[:1], "0.3")
        values = as_float_array(values, "responses_db", ndim=1)
        ax.semilogx(frequencies, values, lw=2, color=colour, ls=_series_linestyle(k))
        ax.text(0.0, 1.03 + 0.13 * (len(responses_db) - 1 - k), label,
                transform=ax.transAxes, va="bottom", fontsize="small", color=colour,
                fontweight="bold")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_ylim(-14, 14)
    ax.set_xlim(frequencies[0], frequencies[-1])
    ax.xaxis.set_major_locator(FixedLocator([50, 100, 200, 500, 1000, 2000, 5000]))
    ax.xaxis.set_major_formatter(lambda f, _: f"{f / 1000:g}k" if f >= 1000 else f"{f:g}")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_locator(FixedLocator([-12, -6, 0, 6, 12]))
    ax.set_xlabel("frequency (Hz), gain (dB)", fontsize="small")
    ax.tick_params(labelsize="x-small")
    return ax
