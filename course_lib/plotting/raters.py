"""Plots for Unit 5 (several raters per item, annotators of different reliability).

``plot_xxx(ax, ...) -> ax``; they draw results computed elsewhere
(:mod:`course_lib.raters.multi_rater`, :mod:`course_lib.metrics`) and compute nothing a test would
need. One-dimensional inputs are 1-D arrays or (n, 1) arrays. Colours used throughout the unit: the GP on the mean score (base,
"Av") orange, the joint model blue, the per-annotator model (MA) green, the per-region model
(MANH) red, the gold standard black.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator

from ..rater_data import RaterData
from ..metrics import check_scale
from ..validation import as_float_array, as_positive_float
from .colour import _series_linestyle, _series_marker, _text_colours
from .gp import _flat, plot_gp_posterior

__all__ = ["MODEL_COLOURS", "RATER_COLOURS", "plot_rater_scores", "plot_noise_profile",
           "plot_score_distribution", "plot_speedup", "plot_noise_table", "plot_regions",
           "plot_annotator_fit"]

MODEL_COLOURS = {"GOLD": "k", "base": "C1", "Av": "C1", "mean": "C1", "joint": "C0",
                 "repeated": "C0", "MA": "C2", "MANH": "C3"}
#: Raters and annotators get colours that no model uses: the course palette's other three and two
#: greys (the lighter still 3.3:1 on white), repeating after five, so
#: :func:`plot_rater_scores` gives each rater a marker too.
RATER_COLOURS = ("C4", "C5", "C6", "0.35", "0.55") * 2
#: Pale backgrounds for regions of the input space.
_REGION_COLOURS = ("#e8e8e8", "#fff2cc", "#dae8fc", "#f8cecc", "#d5e8d4", "#e1d5e7")


def _rater_data(data) -> RaterData:
    if not isinstance(data, RaterData):
        raise TypeError(f"data: expected a RaterData, got {type(data).__name__}")
    return data


def _plain_log_axis(ax, which: str) -> None:
    """Log scale on ``which`` ("x" or "y") with plain tick labels (0.1, 1, 10) and no minor
    ticks: mathtext labels and minor ticks were most of an explorer figure's drawing time."""
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def plot_rater_scores(ax, x, data: RaterData, *, offset: float = 0.15, show_means: bool = True,
                      rater_names=None, markersize: float = 4.0, alpha: float = 0.75):
    """Every label of ``data`` at its item's input ``x[item]``: one colour and marker per rater
    (up to ten raters; more are drawn grey), each rater shifted sideways by a small fraction of ``offset`` times the spacing so that tied scores stay
    visible; the item means as black bars (``show_means``)."""
    data = _rater_data(data)
    x = _flat(x, "x")
    if x.size != data.n_items:
        raise ValueError(f"x: expected one input per item ({data.n_items}), got {x.size}")
    span = np.ptp(x) if x.size > 1 else 1.0
    shift = offset * span / max(data.n_items, 1)
    names = (rater_names if rater_names is not None
             else [f"rater {r + 1}" for r in range(data.n_raters)])
    if len(names) != data.n_raters:
        raise ValueError(f"rater_names: expected {data.n_raters} names, got {len(names)}")
    for rater in range(data.n_raters):
        rows = data.raters == rater
        if not rows.any():
            continue
        centred = rater - (data.n_raters - 1) / 2
        ax.plot(x[data.items[rows]] + centred * shift, data.scores[rows], _series_marker(rater),
                ms=markersize, alpha=alpha, mec="0.25", mew=0.4,
                color=RATER_COLOURS[rater] if data.n_raters <= len(RATER_COLOURS) else "0.4",
                label=names[rater] if data.n_raters <= len(RATER_COLOURS) else None)
    if show_means:
        ax.plot(x, data.means, "_", color="k", ms=10, mew=2, label="mean of the raters")
    ax.set_xlabel("x")
    ax.set_ylabel("score")
    return ax


def plot_noise_profile(ax, noise, curves: Mapping[str, np.ndarray], *, true_noise=None,
                       true_label: str = "true σ²", depth: float = 20.0,
                       styles: Mapping[str, dict] | None = None, legend_loc: str = "lower center",
                       legend_fontsize="small"):
    """Log-likelihood curves against one rater's noise variance sigma^2 (log x axis), each
    drawn **relative to its own maximum** (so curves of very different size share one axis and
    what matters, where each peaks and how sharply, is visible); a dot marks each maximum.

    ``curves`` maps a label to values on the grid ``noise``; ``true_noise`` draws a grey
    vertical line labelled ``true_label``; the y axis shows the top ``depth`` nats. ``styles``
    maps labels to line keyword arguments; ``legend_loc`` and ``legend_fontsize`` place and size
    the legend.
    """
    noise = as_float_array(noise, "noise", ndim=1)
    if np.any(noise <= 0):
        raise ValueError("noise: the noise variances must be > 0 (log axis)")
    depth = as_positive_float(depth, "depth")
    styles = dict(styles or {})
    if not curves:
        raise ValueError("curves: expected at least one labelled curve")
    for index, (label, values) in enumerate(curves.items()):
        values = as_float_array(values, f"curves[{label!r}]", ndim=1)
        if values.shape != noise.shape:
            raise ValueError(f"curves: {label!r} has {values.size} values, the grid noise has "
                             f"{noise.size}")
        best = int(np.argmax(values))
        style = {"color": f"C{index}", "ls": _series_linestyle(index), "lw": 2} | \
            styles.get(label, {})
        line, = ax.plot(noise, values - values[best],
                        label=f"{label}: max at σ² = {noise[best]:.3g}", **style)
        ax.plot(noise[best], 0.0, "o", color=line.get_color(), ms=7)
    if true_noise is not None:
        ax.axvline(as_positive_float(true_noise, "true_noise"), color="0.5", ls=":", lw=1.5,
                   label=f"{true_label} = {true_noise:.3g}")
    _plain_log_axis(ax, "x")
    ax.set_ylim(-depth, 0.08 * depth)
    ax.set_xlabel("σ², noise variance of one rater")
    ax.set_ylabel("log-likelihood − its maximum")
    ax.legend(loc=legend_loc, fontsize=legend_fontsize, framealpha=0.9)
    return ax


def plot_score_distribution(ax, counts, log_probabilities: Mapping[str, np.ndarray], *,
                            scale=(0, 10), kl: Mapping[str, float] | None = None,
                            styles: Mapping[str, dict] | None = None):
    """One item: the raters' histogram (grey bars, fraction of raters per whole score) and each
    model's discretised predictive distribution of one rater's score (lines with markers; from
    :func:`course_lib.metrics.discretised_log_predictive`). ``kl`` adds each model's
    KL(raters || model) to its legend entry."""
    low, high = check_scale(scale)
    scores = np.arange(low, high + 1)
    counts = as_float_array(counts, "counts", ndim=1)
    if counts.size != scores.size:
        raise ValueError(f"counts: expected one count per score {low}..{high} "
                         f"({scores.size}), got {counts.size}")
    if np.any(counts < 0) or counts.sum() <= 0:
        raise ValueError("counts: expected non-negative counts with at least one score")
    styles, kl = dict(styles or {}), dict(kl or {})
    for name in kl:
        if name not in log_probabilities:
            raise ValueError(f"kl: {name!r} is not one of the models {list(log_probabilities)}")
    ax.bar(scores, counts / counts.sum(), width=0.8, color="0.8", edgecolor="0.5",
           label=f"raters ({counts.sum():g})")
    for index, (name, log_p) in enumerate(log_probabilities.items()):
        log_p = as_float_array(log_p, f"log_probabilities[{name!r}]", ndim=1, allow_inf="-inf")
        if log_p.shape != scores.shape:
            raise ValueError(f"log_probabilities: {name!r} has {log_p.size} values, expected "
                             f"{scores.size}")
        label = name if name not in kl else f"{name}: KL = {kl[name]:.2f}"
        style = {"color": MODEL_COLOURS.get(name, f"C{index}"), "marker": _series_marker(index),
                 "lw": 2, "ms": 5} | styles.get(name, {})
        ax.plot(scores, np.exp(log_p), label=label, **style)
    ax.set_xticks(scores)
    ax.set_xlim(low - 0.6, high + 0.6)
    ax.set_xlabel("score")
    ax.set_ylabel("probability")
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_speedup(ax, n_raters, ratios: Mapping[str, np.ndarray], *, powers=(3,)):
    """Measured speed-ups (repeated model time / joint model time) against the number of raters
    R on log-log axes, one line per label of ``ratios``, with dashed guides R^p for each power
    in ``powers`` (R^3 is the flop ratio of the two Cholesky factorisations; at most four
    powers, each with its own line style)."""
    n_raters = as_float_array(n_raters, "n_raters", ndim=1)
    if len(powers) > 4:
        raise ValueError(f"powers: at most 4 guide lines, got {len(powers)}")
    if np.any(n_raters < 1):
        raise ValueError("n_raters: expected numbers of raters >= 1")
    for index, (label, values) in enumerate(ratios.items()):
        values = as_float_array(values, f"ratios[{label!r}]", ndim=1)
        if values.shape != n_raters.shape:
            raise ValueError(f"ratios: {label!r} has {values.size} values, expected one per "
                             f"number of raters ({n_raters.size})")
        ax.plot(n_raters, values, "-", marker=_series_marker(index), color=f"C{index}",
                label=label)
    grid = np.linspace(n_raters.min(), n_raters.max(), 50)
    for power, style in zip(powers, ("--", ":", "-.", (0, (5, 1, 1, 1)))):
        ax.plot(grid, grid ** power, ls=style, color="0.3", lw=1.2, label=f"R^{power:g}")
    ax.axhline(1.0, color="0.7", lw=0.8)
    _plain_log_axis(ax, "x")
    _plain_log_axis(ax, "y")
    ax.set_xticks(np.unique(n_raters))
    ax.set_xlabel("raters per item R")
    ax.set_ylabel("time repeated / time joint")
    ax.legend(loc="upper left", fontsize="small")
    return ax


def plot_noise_table(ax, learned, truth=None, at_floor=None, *, row_labels=None,
                     col_labels=None, cmap: str = "viridis", vmax: float | None = None):
    """A table of noise variances (rows = regions, columns = annotators) as coloured cells:
    each cell shows the learned value and, with ``truth``, the true one below it (beside it in
    brackets, smaller, for more than three rows); cells whose variance sits at the noise floor
    (``at_floor``, boolean, same shape) get a red frame."""
    learned = np.atleast_2d(as_float_array(learned, "learned"))
    if learned.ndim != 2:
        raise ValueError(f"learned: expected a (regions, annotators) table, got shape "
                         f"{learned.shape}")
    if truth is not None:
        truth = np.atleast_2d(as_float_array(truth, "truth"))
        if truth.shape != learned.shape:
            raise ValueError(f"truth: expected shape {learned.shape} like learned, got "
                             f"{truth.shape}")
    if at_floor is not None:
        at_floor = np.atleast_2d(np.asarray(at_floor))
        if at_floor.shape != learned.shape or at_floor.dtype != bool:
            raise ValueError(f"at_floor: expected a boolean table of shape {learned.shape}, "
                             f"got {at_floor.dtype} {at_floor.shape}")
    n_rows, n_cols = learned.shape
    row_labels = row_labels or [f"region {k + 1}" for k in range(n_rows)]
    col_labels = col_labels or [f"annotator {r + 1}" for r in range(n_cols)]
    if len(row_labels) != n_rows or len(col_labels) != n_cols:
        raise ValueError(f"row_labels, col_labels: expected {n_rows} and {n_cols} labels")
    top = vmax if vmax is not None else max(float(learned.max()),
                                            0.0 if truth is None else float(truth.max()), 1e-12)
    norm = Normalize(0.0, top)
    ax.imshow(learned, cmap=cmap, norm=norm, aspect="auto")
    colours = _text_colours(learned, cmap, norm)
    compact = n_rows > 3          # many rows: one line per cell, "learned (true)"
    for row in range(n_rows):
        for col in range(n_cols):
            text = f"{learned[row, col]:.2g}"
            if truth is not None:
                text += (f" ({truth[row, col]:.2g})" if compact
                         else f"\n(true {truth[row, col]:.2g})")
            ax.text(col, row, text, ha="center", va="center",
                    fontsize="x-small" if compact else "small", color=colours[row, col])
            if at_floor is not None and at_floor[row, col]:
                ax.add_patch(Rectangle((col - 0.47, row - 0.47), 0.94, 0.94, fill=False,
                                       edgecolor="C3", lw=2.5))
    ax.set_xticks(range(n_cols))
    ax.set_xticklabels(col_labels)
    ax.set_yticks(range(n_rows))
    ax.set_yticklabels(row_labels)
    ax.tick_params(length=0)
    return ax


def plot_regions(ax, x, regions):
    """Shade the stretches of a one-dimensional input axis by region (pale colours of
    ``_REGION_COLOURS``): each input ``x`` (sorted or not) carries a region index, and
    consecutive inputs of one region form a band that reaches halfway to the next input."""
    x = _flat(x, "x")
    regions = np.asarray(regions)
    if regions.shape != x.shape or not np.issubdtype(regions.dtype, np.integer):
        raise ValueError(f"regions: expected one integer region per input ({x.size}), got "
                         f"{regions.dtype} {regions.shape}")
    order = np.argsort(x)
    xs, rs = x[order], regions[order]
    edges = np.concatenate([[xs[0]], (xs[1:] + xs[:-1]) / 2, [xs[-1]]])
    start = 0
    for index in range(1, xs.size + 1):
        if index == xs.size or rs[index] != rs[start]:
            ax.axvspan(edges[start], edges[index], lw=0, zorder=0,
                       color=_REGION_COLOURS[rs[start] % len(_REGION_COLOURS)])
            start = index
    return ax


def plot_annotator_fit(ax, x_test, mean, var, *, gold=None, X=None, data: RaterData | None = None,
                       regions=None, color: str = "C0", n_sigma: float = 2.0):
    """The posterior of the latent gold standard on one-dimensional test inputs (mean and
    +-``n_sigma`` sd band, :func:`course_lib.plotting.gp.plot_gp_posterior`), the gold standard
    on the same inputs (black dashed), every annotator's labels at the training inputs ``X``
    (one colour per annotator) and the regions of the training inputs shaded."""
    x_test = _flat(x_test, "x_test")
    if regions is not None:
        if X is None:
            raise ValueError("X: the regions belong to the training inputs X; pass X as well")
        plot_regions(ax, X, regions)
    plot_gp_posterior(ax, x_test, mean, var, color=color, n_sigma=n_sigma)
    if gold is not None:
        gold = as_float_array(gold, "gold", ndim=1)
        if gold.shape != x_test.shape:
            raise ValueError(f"gold: expected one value per test input ({x_test.size}), got "
                             f"{gold.size}")
        ax.plot(x_test, gold, "k--", lw=1.2, label="gold")
    if data is not None:
        if X is None:
            raise ValueError("X: the labels in data belong to the training inputs X; pass X")
        plot_rater_scores(ax, X, data, show_means=False, markersize=3,
                          rater_names=[f"annotator {r + 1}" for r in range(data.n_raters)])
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    return ax
