"""Plots for Unit 7's level-set explorers: where is a detection probability below 75 %?

``plot_xxx(ax, ...) -> ax``; nothing here computes what a test would need (the maps, the
contours' values and the F1 trace come from :mod:`course_lib.widgets.levelset`, which takes
them from the level-set session). Two stimulus dimensions span a map
(:func:`plot_map`: the posterior mean of the latent f, P(f below the threshold), an
acquisition); :func:`plot_contours` draws the true and the estimated threshold contour,
:func:`plot_trials` the answers (yes filled, no open), the constraints and the next query;
:func:`plot_f1_trace` the F1 score of the estimated set against the number of trials. For the
1-D detection demo, :func:`plot_detection_curve` draws the model's P(heard) against the level,
the answers as a rug at 0 and 1, the 75 % line and the threshold estimate.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..validation import as_float_array

__all__ = ["QUERY_COLOUR", "plot_map", "plot_contours", "plot_trials", "plot_f1_trace",
           "plot_detection_curve"]

_TRUE_COLOUR = "black"
_ESTIMATE_COLOUR = "white"
QUERY_COLOUR = "#e7298a"       # magenta: apart from viridis, RdBu and the greens
_YES_COLOUR, _NO_COLOUR = "#d95f02", "#1b9e77"   # orange and teal: apart for colour-blind eyes


def _grid_values(axis_x, axis_y, values):
    """A map's two axes and its values, checked: one row of ``values`` per ``axis_y`` point."""
    axis_x = as_float_array(axis_x, "axis_x", ndim=1)
    axis_y = as_float_array(axis_y, "axis_y", ndim=1)
    values = as_float_array(values, "values", ndim=2)
    if values.shape != (axis_y.size, axis_x.size):
        raise ValueError(f"values: expected shape ({axis_y.size}, {axis_x.size}) (rows follow "
                         f"axis_y), got {values.shape}")
    return axis_x, axis_y, values


def plot_map(ax, axis_x, axis_y, values, *, cmap: str = "viridis", vmin=None, vmax=None,
             names: tuple[str, str] = ("x1", "x2")):
    """``values`` (len(axis_y), len(axis_x)) on an evenly spaced grid as a smooth image over
    the box spanned by the two axes (bilinear between grid points), labelled ``names``."""
    axis_x, axis_y, values = _grid_values(axis_x, axis_y, values)
    ax.imshow(values, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto",
              interpolation="bilinear",
              extent=(axis_x[0], axis_x[-1], axis_y[0], axis_y[-1]))
    ax.set_xlim(axis_x[0], axis_x[-1])       # fixed: later marks never rescale the axes
    ax.set_ylim(axis_y[0], axis_y[-1])
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(4))
    ax.set_xlabel(names[0], fontsize="small")
    ax.set_ylabel(names[1], fontsize="small")
    ax.tick_params(labelsize="x-small")
    return ax


def plot_contours(ax, axis_x, axis_y, *, threshold: float, true_latent=None, mean=None):
    """The threshold contour of the true latent (black, dashed) and of the posterior mean (the
    estimated set's edge: white, solid), each a (len(axis_y), len(axis_x)) array or None.
    A field that never crosses the threshold on the grid draws nothing."""
    for field, colour, style in ((true_latent, _TRUE_COLOUR, "--"), (mean, _ESTIMATE_COLOUR, "-")):
        if field is None:
            continue
        axis_x, axis_y, field = _grid_values(axis_x, axis_y, field)
        if field.min() < threshold < field.max():
            ax.contour(axis_x, axis_y, field, levels=[threshold], colors=colour,
                       linestyles=style, linewidths=1.6, zorder=3)
    return ax


def plot_trials(ax, X, answers, *, constraints=None, query=None, size: float = 4.0):
    """The answered trials ``X`` (t, 2) with ``answers`` (t,) 0/1 (yes: filled orange dots, no:
    open teal circles), the constraint locations ``constraints`` (m, 2) as small grey
    diamonds, and the next ``query`` (2,) as a magenta star; any of them may be None/empty."""
    if constraints is not None and np.size(constraints):
        C = as_float_array(constraints, "constraints", ndim=2)
        ax.plot(C[:, 0], C[:, 1], "D", ms=size * 0.9, color="0.75", mec="k", mew=0.5,
                zorder=4, clip_on=False)
    if X is not None and np.size(X):
        X = as_float_array(X, "X", ndim=2)
        answers = as_float_array(answers, "answers", ndim=1)
        if answers.size != X.shape[0]:
            raise ValueError(f"answers: expected one answer per row of X ({X.shape[0]}), got "
                             f"{answers.size}")
        yes = answers == 1
        ax.plot(X[yes, 0], X[yes, 1], "o", ms=size, color=_YES_COLOUR, mec="k", mew=0.5,
                zorder=5, clip_on=False)
        ax.plot(X[~yes, 0], X[~yes, 1], "o", ms=size, mfc="none", mec=_NO_COLOUR, mew=1.3,
                zorder=5, clip_on=False)
    if query is not None:
        query = as_float_array(query, "query", ndim=1)
        ax.plot(query[0], query[1], "*", ms=size * 3.6, color=QUERY_COLOUR, mec="k", mew=0.8,
                zorder=6, clip_on=False)
    return ax


def plot_f1_trace(ax, n_trials, f1, *, n_initial: int = 0, x_max: int | None = None):
    """F1 of the estimated set after each trial (``n_trials`` and ``f1``, equal lengths; F1 in
    [0, 1]) as a line with dots, the initial (non-active) trials shaded grey."""
    n_trials = as_float_array(n_trials, "n_trials", ndim=1, allow_empty=True)
    f1 = as_float_array(f1, "f1", ndim=1, allow_empty=True)
    if n_trials.size != f1.size:
        raise ValueError(f"f1: expected one value per entry of n_trials ({n_trials.size}), got "
                         f"{f1.size}")
    right = max(x_max or 0, int(n_trials.max()) if n_trials.size else 0, n_initial + 10)
    if n_initial:
        ax.axvspan(0, n_initial, color="0.92", lw=0)
        ax.text(0.5, 0.03, "initial", fontsize="x-small", color="0.4")
    if f1.size:
        ax.plot(n_trials, f1, "-", color="C0", lw=1.5)
        ax.plot(n_trials[-1:], f1[-1:], "o", color="C0", ms=4)
    ax.set_xlim(0, right)
    ax.set_ylim(0, 1.02)
    ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(3))
    ax.set_xlabel("trials", fontsize="small")
    ax.tick_params(labelsize="x-small")
    ax.grid(alpha=0.3)
    return ax


def plot_detection_curve(ax, levels, p_heard, *, p_low=None, p_high=None, target: float = 0.75,
                         threshold_level=None, true_p=None, X=None, answers=None, query=None,
                         constraint_levels=None):
    """P(heard) against the level: the model's curve ``p_heard`` (blue) with a band from
    ``p_low`` to ``p_high``, the true curve ``true_p`` (black, dashed) when known, the
    ``target`` probability (grey line) and the threshold estimate ``threshold_level`` (blue
    vertical line), the answered levels ``X`` (t,) as a rug at 1 (heard) and 0 (not heard), the
    constraint levels as grey diamonds at 0 and the next ``query`` level as a magenta line."""
    levels = as_float_array(levels, "levels", ndim=1)
    p_heard = as_float_array(p_heard, "p_heard", ndim=1)
    if p_low is not None and p_high is not None:
        ax.fill_between(levels, as_float_array(p_low, "p_low", ndim=1),
                        as_float_array(p_high, "p_high", ndim=1), color="C0", alpha=0.18,
                        lw=0, label="95 % band of Phi(f)")
    if true_p is not None:
        ax.plot(levels, as_float_array(true_p, "true_p", ndim=1), "--", color=_TRUE_COLOUR,
                lw=1.2, label="simulated listener")
    ax.plot(levels, p_heard, color="C0", lw=2, label="model: Phi(posterior mean of f)")
    ax.axhline(target, color="0.5", lw=0.8, ls=":")
    if threshold_level is not None:
        ax.axvline(float(threshold_level), color="C0", lw=1.2)
    if X is not None and np.size(X):
        X = as_float_array(X, "X", ndim=1)
        answers = as_float_array(answers, "answers", ndim=1)
        if answers.size != X.size:
            raise ValueError(f"answers: expected one answer per level in X ({X.size}), got "
                             f"{answers.size}")
        yes = answers == 1
        ax.plot(X[yes], np.full(yes.sum(), 1.0), "|", ms=12, mew=1.6, color=_YES_COLOUR,
                clip_on=False, zorder=5)
        ax.plot(X[~yes], np.zeros((~yes).sum()), "|", ms=12, mew=1.6, color=_NO_COLOUR,
                clip_on=False, zorder=5)
    if constraint_levels is not None and np.size(constraint_levels):
        C = as_float_array(constraint_levels, "constraint_levels", ndim=1)
        ax.plot(C, np.zeros(C.size), "D", ms=6, color="0.75", mec="k", mew=0.6, clip_on=False,
                zorder=6)
    if query is not None:
        ax.axvline(float(query), color=QUERY_COLOUR, lw=1.5, ls="--")
    ax.set_xlim(levels[0], levels[-1])
    ax.set_ylim(-0.04, 1.04)
    ax.yaxis.set_major_locator(MaxNLocator(5))
    ax.set_ylabel("P(heard)", fontsize="small")
    ax.tick_params(labelsize="x-small")
    return ax
