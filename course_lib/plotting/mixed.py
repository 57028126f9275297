"""Plots for GPs that mix several kinds of feedback (Unit 7): ``plot_xxx(ax, ...) -> ax``.

* :func:`plot_elbo_ledger` -- the evidence lower bound as a ledger: one bar per data type's
  expected log-likelihood, one bar for minus the KL, and their sum;
* :func:`plot_latent_band` -- a latent function's posterior mean and a +-2 sd band over 1-D
  inputs, with the true function if known;
* :func:`plot_constraints` -- constraint pseudo-observations (target +-2 sd of their noise);
* :func:`plot_binary_answers` -- yes/no answers as ticks at the top and bottom of an axis;
* :func:`plot_likert_levels` -- P(level | z) of a confidence likelihood against
  z = f(first) - f(second), with its cut points;
* :func:`plot_levels_by_strength` -- the true strength |f(a) - f(b)| of every rated pair, one
  column per confidence level, with the levels' counts and a model's cut points;
* :func:`plot_paired_scores` -- one score of two models on the same splits, each split a line
  from the first model to the second, with their means.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import as_float_array, check_length
from .colour import _series_linestyle

__all__ = ["plot_elbo_ledger", "plot_latent_band", "plot_constraints", "plot_binary_answers",
           "plot_likert_levels", "plot_levels_by_strength", "plot_paired_scores"]

_KL_COLOUR = "0.55"
_ELBO_COLOUR = "k"


def plot_elbo_ledger(ax, names: Sequence[str], expected_log_likelihoods, kl: float, *,
                     kl_weight: float = 1.0, colours: Sequence[str] | None = None):
    """Bars: each data type's expected log-likelihood (``names``, ``expected_log_likelihoods``),
    then ``-kl_weight * kl`` and the objective, their sum. ``kl_weight`` 1 is the ELBO; any other
    value is labelled as a re-weighted KL. Each bar carries its value."""
    values = as_float_array(expected_log_likelihoods, "expected_log_likelihoods", ndim=1)
    if len(names) != values.size:
        raise ValueError(f"names: expected {values.size} names (one per expected "
                         f"log-likelihood), got {len(names)}")
    colours = list(colours) if colours is not None else [f"C{i}" for i in range(values.size)]
    kl_label = "− KL" if kl_weight == 1.0 else f"− {kl_weight:g} × KL"
    total = float(values.sum() - kl_weight * kl)
    labels = [f"E log p\n{name}" for name in names] + [kl_label,
                                                        "ELBO" if kl_weight == 1.0 else "objective"]
    heights = list(values) + [-kl_weight * kl, total]
    bar_colours = colours + [_KL_COLOUR, _ELBO_COLOUR]
    bars = ax.bar(range(len(heights)), heights, color=bar_colours, width=0.7)
    ax.axhline(0.0, color="0.3", lw=0.8)
    span = max(abs(h) for h in heights) or 1.0
    for bar, height in zip(bars, heights):
        offset = 0.02 * span * (1 if height >= 0 else -1)
        ax.text(bar.get_x() + bar.get_width() / 2, height + offset, f"{height:.1f}",
                ha="center", va="bottom" if height >= 0 else "top", fontsize="small")
    ax.set_xticks(range(len(heights)), labels, fontsize="small")
    ax.set_ylim(-1.2 * span, 0.25 * span if max(heights) <= 0 else 1.2 * span)
    ax.set_ylabel("nats")
    return ax


def plot_latent_band(ax, x, mean, var, *, truth=None, colour: str = "C0",
                     label: str = "posterior mean ± 2 sd"):
    """Posterior mean and a +-2 sd band of a latent over 1-D inputs ``x``; ``truth`` (same
    length) dashed in black."""
    x = as_float_array(x, "x")
    x = x[:, 0] if x.ndim == 2 else x
    mean = check_length(as_float_array(mean, "mean", ndim=1), "mean", x.size, "x")
    var = check_length(as_float_array(var, "var", ndim=1), "var", x.size, "x")
    sd = np.sqrt(np.maximum(var, 0.0))
    ax.fill_between(x, mean - 2 * sd, mean + 2 * sd, color=colour, alpha=0.2, lw=0)
    ax.plot(x, mean, color=colour, lw=2, label=label)
    if truth is not None:
        truth = check_length(as_float_array(truth, "truth", ndim=1), "truth", x.size, "x")
        ax.plot(x, truth, "k--", lw=1.2, label="true latent")
    ax.set_xlabel("x")
    ax.set_ylabel("latent f(x)")
    return ax


def plot_constraints(ax, x, targets, noise_sd, *, colour: str = "C3",
                     label: str = "constraint ± 2σ"):
    """Constraint pseudo-observations: ``targets`` at ``x`` with error bars of 2 ``noise_sd``."""
    x = as_float_array(x, "x")
    x = x[:, 0] if x.ndim == 2 else x
    targets = check_length(as_float_array(targets, "targets", ndim=1), "targets", x.size, "x")
    noise_sd = as_float_array(noise_sd, "noise_sd", ndim=(0, 1))
    if noise_sd.ndim:      # one sd for all, or one per constraint
        check_length(noise_sd, "noise_sd", x.size, "x")
    ax.errorbar(x, targets, yerr=2 * noise_sd, fmt="D", color=colour,
                ms=6, capsize=4, lw=1.5, label=label, zorder=5)
    return ax


def plot_binary_answers(ax, x, answers, *, colour: str = "C2", label: str = "yes / no answers"):
    """Yes/no answers at 1-D ``x``: ticks along the top of the axis for 1, the bottom for 0
    (axes coordinates, so they never move the data limits)."""
    x = as_float_array(x, "x")
    x = x[:, 0] if x.ndim == 2 else x
    answers = check_length(as_float_array(answers, "answers", ndim=1), "answers", x.size, "x")
    transform = ax.get_xaxis_transform()
    ax.plot(x[answers == 1], np.full(int(np.sum(answers == 1)), 0.97), "|", color=colour,
            ms=12, mew=1.5, transform=transform, label=label)
    ax.plot(x[answers == 0], np.full(int(np.sum(answers == 0)), 0.03), "|", color=colour,
            ms=12, mew=1.5, transform=transform)
    return ax


def plot_likert_levels(ax, z, probabilities, cut_points, *, cap: float | None = None):
    """P(level i | z) for every level (columns of ``probabilities``, shape (len(z), l)) against
    z; the cut points +-c_i as dotted lines and, if given, ``cap`` as a horizontal line."""
    z = as_float_array(z, "z", ndim=1)
    probabilities = as_float_array(probabilities, "probabilities", ndim=2)
    if probabilities.shape[0] != z.size:
        raise ValueError(f"probabilities: expected {z.size} rows (one per z), got "
                         f"{probabilities.shape[0]}")
    for level in range(probabilities.shape[1]):
        ax.plot(z, probabilities[:, level], lw=2, color=f"C{level}", ls=_series_linestyle(level),
                label=f"level {level}")
    for cut in as_float_array(cut_points, "cut_points", ndim=1)[1:]:
        for side in (-cut, cut):
            ax.axvline(side, color="0.6", lw=0.8, ls=":")
    if cap is not None:
        ax.axhline(cap, color="0.3", lw=1, ls="--", label=f"cap of the middle level {cap:.3f}")
    ax.set_xlabel("z = f(first) − f(second)")
    ax.set_ylabel("P(level | z)")
    ax.set_ylim(0, 1)
    return ax


# golden-ratio offsets: a deterministic spread of the points inside a level's column
_GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


def plot_levels_by_strength(ax, levels, strength, *, n_levels: int = 3,
                            level_names: Sequence[str] | None = None, cut_points=None):
    """Every pair's true ``strength`` |f(a) - f(b)| in the column of its confidence level
    0 .. ``n_levels`` - 1 (spread sideways so that equal values stay visible), each column
    labelled with its name and count; ``cut_points`` (a confidence likelihood's, from 0) as
    dotted lines: the strengths where that model expects the next level."""
    levels = as_float_array(levels, "levels", ndim=1)
    strength = as_float_array(strength, "strength", ndim=1)
    if strength.size != levels.size:
        raise ValueError(f"strength: expected one per level ({levels.size}), got "
                         f"{strength.size}")
    names = (list(level_names) if level_names is not None
             else [f"level {level}" for level in range(n_levels)])
    if len(names) != n_levels:
        raise ValueError(f"level_names: expected {n_levels} names, got {len(names)}")
    counts = np.bincount(levels.astype(int), minlength=n_levels)
    for level in range(n_levels):
        in_level = strength[levels == level]
        spread = (np.arange(in_level.size) * _GOLDEN) % 1.0 - 0.5
        ax.plot(level + 0.5 * spread, in_level, "o", color=f"C{level}", alpha=0.75, ms=5)
    if cut_points is not None:
        for index, cut in enumerate(as_float_array(cut_points, "cut_points", ndim=1)[1:]):
            ax.axhline(cut, color="0.5", lw=0.8, ls=":",
                       label="the model's cut points" if index == 0 else None)
    ax.set_xticks(range(n_levels), [f"{name}\n{count} pair{'' if count == 1 else 's'}"
                                    for name, count in zip(names, counts)], fontsize="small")
    ax.set_xlim(-0.6, n_levels - 0.4)
    ax.set_ylabel("true strength |f(a) − f(b)|")
    return ax


def plot_paired_scores(ax, first, second, *, names: Sequence[str] = ("choices only",
                                                                     "with ratings"),
                       ylabel: str = "score"):
    """One score of two models on the same splits: ``first`` and ``second`` (one value per
    split) as points at x = 0 and 1 joined per split, the means as wide black bars."""
    first = as_float_array(first, "first", ndim=1)
    second = as_float_array(second, "second", ndim=1)
    if second.size != first.size:
        raise ValueError(f"second: expected one score per split ({first.size}), got "
                         f"{second.size}")
    if len(names) != 2:
        raise ValueError(f"names: expected 2 names (the two models), got {len(names)}")
    for a, b in zip(first, second):
        ax.plot([0, 1], [a, b], "-", color="0.6", lw=1)
    ax.plot(np.zeros(first.size), first, "o", color="C7", ms=6)
    ax.plot(np.ones(second.size), second, "o", color="C3", ms=6)
    for x, values in ((0, first), (1, second)):
        ax.plot([x - 0.2, x + 0.2], [values.mean()] * 2, color="k", lw=3,
                solid_capstyle="butt")
    ax.set_xticks([0, 1], list(names))
    ax.set_xlim(-0.5, 1.5)
    ax.set_ylabel(ylabel)
    return ax
