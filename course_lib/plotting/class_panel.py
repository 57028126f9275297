"""The class figures of "the class as a panel" (issue 47), drawn from plain numbers: the class's
ratings beside the five experts and its comparisons, pooled and per student.

Five figure builders, each returning a :class:`ClassFigure` with a description written for it
from the numbers it draws (the class's data change from year to year, so no fixed text could
describe them; the JupyterLab alt text and the ``<details>`` beneath come from it, as for the
panel figure of :mod:`course_lib.plotting.pronunciation`):

* :func:`students_figure`: each student's bias against their noise, the experts beside them,
  and each student's correlation with the experts' mean;
* :func:`consensus_figure`: per clip, the class's consensus beside the experts' mean;
* :func:`reliability_figure`: how reliable a panel of k students is, with its band, against
  the experts' line;
* :func:`preferences_figure`: per pair, the shares of the three answers, and the pooled
  difference beside every student's own;
* :func:`held_out_figure`: the held-out log score of the class's model and a student's own by
  the number of answers.

They take arrays, names and numbers, never the model's types: the class panel's own code
(:func:`course_lib.class_panel.figures.class_figures`) reads the class's results and hands
them over, so drawing knows no model. Colours from the course's cycle (``plotting.colour``), and
every compared series has its own marker, line style or hatching too.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from course_lib.plotting.colour import _series_linestyle, _series_marker
from course_lib.plotting.describe import described_image_html
from course_lib.validation import check_length

__all__ = ["ClassFigure", "students_figure", "consensus_figure", "reliability_figure",
           "preferences_figure", "held_out_figure"]

_LABELLED = 30            # at most this many students or pairs get their names on an axis
_STUDENT, _EXPERT = "C0", "C3"


@dataclass(frozen=True)
class ClassFigure:
    """One class figure: its ``name`` ("students", "consensus", "reliability",
    "preferences", "held-out"), the matplotlib ``figure`` and its ``description`` (plain text,
    what it draws and what to take from it)."""

    name: str
    figure: Figure
    description: str

    def _repr_html_(self) -> str:
        """The figure as a PNG with its description as alt text and, beneath, in a closed
        ``<details>`` (a notebook shows it so; the text changes with the class's data)."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return described_image_html(buffer.getvalue(), self.description)


def _percent(level: float) -> str:
    return f"{100 * level:.0f} %"


def _arrays(n: int, per: str, **named) -> list[np.ndarray]:
    """Each named argument as a float array (NaN allowed: nothing to draw there) with one entry
    (or row) per ``per``, refused by name otherwise."""
    return [check_length(np.asarray(value, dtype=float), name, n, per)
            for name, value in named.items()]


# ----- ratings ------------------------------------------------------------------------------
def students_figure(pseudonyms: Sequence[str], bias, bias_interval, noise_variance,
                    noise_interval, correlation, correlation_interval, expert_bias,
                    expert_noise_variance, *, level: float, interval_names: tuple[str, str],
                    left_out: str = "") -> ClassFigure:
    """The informative students (one entry or row each, in the order of ``pseudonyms``). Left:
    each one's ``bias`` (x, with its ``bias_interval``, low and high) against their
    ``noise_variance`` (y, with its ``noise_interval``), the experts as squares. Right: each
    one's ``correlation`` with the experts' mean with its ``correlation_interval`` (NaN: not
    drawn), sorted (pseudonyms on the axis for a small class). ``level`` is the intervals'
    probability, ``interval_names`` name the bias's and the correlation's intervals in the
    description, ``left_out`` says who is not drawn ("; not shown: ..." or "")."""
    n = len(pseudonyms)
    bias, noise, rho = _arrays(n, "student", bias=bias, noise_variance=noise_variance,
                               correlation=correlation)
    bias_interval, noise_interval, rho_interval = _arrays(
        n, "student", bias_interval=bias_interval, noise_interval=noise_interval,
        correlation_interval=correlation_interval)
    expert_bias, expert_noise = _arrays(len(np.ravel(expert_bias)), "expert",
                                        expert_bias=expert_bias,
                                        expert_noise_variance=expert_noise_variance)
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1]})
    left.errorbar(bias, noise, xerr=np.abs(bias_interval.T - bias),
                  yerr=np.abs(noise_interval.T - noise), fmt="none", ecolor=_STUDENT,
                  alpha=0.35, lw=0.8)
    left.plot(bias, noise, ls="none", marker=_series_marker(0), color=_STUDENT,
              label=f"students ({n})")
    left.plot(expert_bias, expert_noise, ls="none", marker=_series_marker(1), color=_EXPERT,
              ms=8, label=f"experts ({expert_bias.size})")
    left.axvline(0.0, color="k", lw=0.8)
    left.set_xlabel("bias: points above the experts' mean (+ lenient, - strict)")
    left.set_ylabel("noise variance (points squared)")
    left.set_title(f"Level and steadiness, {level:.0%} intervals{left_out}", fontsize="medium")
    left.legend(loc="upper left", fontsize="small")
    _plot_correlations(right, list(pseudonyms), rho, rho_interval)
    return ClassFigure("students", fig, _describe_students(
        bias, noise, rho, expert_noise, interval_names, left_out))


def _plot_correlations(ax, pseudonyms: list[str], rho: np.ndarray,
                       interval: np.ndarray) -> None:
    ok = np.flatnonzero(~np.isnan(rho))
    order = ok[np.argsort(rho[ok])]
    position = np.arange(order.size)
    rho, interval = rho[order], interval[order]
    has = ~np.isnan(interval[:, 0])
    ax.hlines(position[has], interval[has, 0], interval[has, 1], color=_STUDENT, alpha=0.5)
    ax.plot(rho, position, ls="none", marker=_series_marker(0), color=_STUDENT)
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel("correlation with the experts' mean")
    ax.set_title("Agreement with the experts", fontsize="medium")
    if 0 < order.size <= _LABELLED:
        ax.set_yticks(position, [pseudonyms[r] for r in order], fontsize="small")
    else:
        ax.set_ylabel("students, sorted")
        ax.set_yticks([])


def consensus_figure(expert_mean, consensus, consensus_interval, *, n_experts: int,
                     interval_name: str) -> ClassFigure:
    """Each clip (one entry each, drawn ordered by the experts' mean): the ``expert_mean``
    (squares) and the class's ``consensus`` (circles, with its ``consensus_interval``, low and
    high; NaN where no informative student scored the clip), the interval named
    ``interval_name`` in the legend and the description."""
    expert_mean = np.asarray(expert_mean, dtype=float)
    n = expert_mean.size
    consensus, interval = _arrays(n, "clip", consensus=consensus,
                                  consensus_interval=consensus_interval)
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.subplots()
    order = np.argsort(expert_mean, kind="stable")
    rank = np.arange(1, n + 1)
    consensus, interval = consensus[order], interval[order]
    ax.plot(rank, expert_mean[order], ls=_series_linestyle(1), marker=_series_marker(1),
            color=_EXPERT, label=f"the {n_experts} experts' mean")
    shown = ~np.isnan(consensus)
    ax.errorbar(rank[shown], consensus[shown], yerr=np.abs(interval[shown].T - consensus[shown]),
                ls=_series_linestyle(0), marker=_series_marker(0), color=_STUDENT, capsize=3,
                label=f"the class's consensus, {interval_name}")
    ax.set_xlabel("clip, ordered by the experts' mean")
    ax.set_ylabel("fluency score (0-10)")
    ax.set_ylim(-0.3, 10.3)
    ax.set_title("Each clip: the class beside the experts", fontsize="medium")
    ax.legend(loc="upper left", fontsize="small")
    return ClassFigure("consensus", fig, _describe_consensus(
        expert_mean, consensus[np.argsort(order)], interval_name))


def reliability_figure(k, reliability, band, *, experts: float, n_experts: int, level: float,
                       k_needed: int | None, verdict: str) -> ClassFigure:
    """The ``reliability`` of a panel of ``k`` students (line, with its ``band``, low and high:
    the credible band at ``level``) against the ``experts``' (dashed), the ``k_needed``
    (dotted, None when the class does not reach it) and the ``verdict`` in words as the
    title."""
    k = np.asarray(k, dtype=float)
    reliability, band = _arrays(k.size, "panel size k", reliability=reliability, band=band)
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    ax.axhline(experts, color=_EXPERT, ls=_series_linestyle(1),
               label=f"the {n_experts} experts ({experts:.2f})")
    if k.size:
        ax.fill_between(k, band[:, 0], band[:, 1], color=_STUDENT, alpha=0.25,
                        label=f"{level:.0%} credible band")
        ax.plot(k, reliability, color=_STUDENT, ls=_series_linestyle(0),
                marker=_series_marker(0) if k.size <= _LABELLED else None, label="k students")
    if k_needed is not None:
        ax.axvline(k_needed, color="k", ls=":", lw=1.2)
        ax.annotate(f"k = {k_needed}", (k_needed, 0.05), xytext=(4, 0),
                    textcoords="offset points")
    ax.set_xlim(0.5, max(k.size, 1) + 0.5)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("students in the panel (k)")
    ax.set_ylabel("reliability of their mean score")
    ax.set_title(verdict[0].upper() + verdict[1:], fontsize="medium", wrap=True)
    ax.legend(loc="lower right", fontsize="small")
    return ClassFigure("reliability", fig, _describe_reliability(
        reliability, experts, n_experts, level, k_needed, verdict))


# ----- preferences --------------------------------------------------------------------------
def preferences_figure(pair_labels: Sequence[str], shares, individual_difference,
                       pooled_difference, pooled_interval, verdicts: Sequence[str], *,
                       level: float, trust: str = "") -> ClassFigure:
    """Per pair (rows, labelled "first vs second"): left, the ``shares`` answering first, none
    and second (three columns, stacked, each with its own hatching); right, every student's
    own posterior mean difference (``individual_difference``, a row per student, a column per
    pair) and the pooled difference with its ``pooled_interval`` (low and high, credible at
    ``level``; diamond), with the pair's verdict ("agrees", "tastes differ", "no clear preference")
    written beside it; ``trust``, how far the verdicts are to be trusted, ends the
    description."""
    P = len(pair_labels)
    shares, pooled, interval = _arrays(P, "pair", shares=shares,
                                       pooled_difference=pooled_difference,
                                       pooled_interval=pooled_interval)
    individual = np.asarray(individual_difference, dtype=float)
    verdicts = list(check_length(np.asarray(verdicts, dtype=object), "verdicts", P, "pair"))
    fig = Figure(figsize=(11, 0.9 + 0.32 * max(P, 6)), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [1, 1.4]})
    rows = np.arange(P)
    start = np.zeros(P)
    for j, (answer, colour, hatch) in enumerate((("first", "C0", None), ("none", "0.8", "//"),
                                                 ("second", "C1", ".."))):
        left.barh(rows, shares[:, j], left=start, color=colour, hatch=hatch,
                  edgecolor="white" if hatch is None else "0.3", label=answer)
        start = start + shares[:, j]
    left.set_xlim(0, 1)
    left.set_xlabel("share of the class's answers")
    left.set_yticks(rows, list(pair_labels), fontsize="small")
    left.invert_yaxis()
    left.set_ylabel("pair of settings (first vs second)")
    left.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3, fontsize="small")
    _plot_differences(right, individual, pooled, interval, verdicts, level)
    return ClassFigure("preferences", fig, " ".join(filter(None, (
        _describe_preferences(list(pair_labels), verdicts, level), trust))))


def _plot_differences(ax, individual: np.ndarray, pooled: np.ndarray, interval: np.ndarray,
                      verdicts: list[str], level: float) -> None:
    P = pooled.size
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, individual.shape)  # fixed: a layout
    ax.plot(individual.ravel(), (np.arange(P)[None, :] + jitter).ravel(), ls="none",
            marker=_series_marker(0), ms=3, color=_STUDENT, alpha=0.3,
            label=f"each student ({individual.shape[0]})")
    ax.errorbar(pooled, np.arange(P), xerr=np.abs(interval.T - pooled), ls="none",
                marker=_series_marker(3), color="k", capsize=3,
                label=f"the class, {_percent(level)} credible interval")
    ax.axvline(0.0, color="k", lw=0.8)
    for j, verdict in enumerate(verdicts):
        ax.annotate(verdict, (1.0, j), xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize="small",
                    fontweight="bold" if verdict == "tastes differ" else "normal")
    ax.set_xlabel("utility difference, first minus second (> 0: first preferred)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, fontsize="small")


def held_out_figure(counts, models: Sequence[str], score, se) -> ClassFigure:
    """The mean log ``score`` of a student's held-out answers (a row per model of ``models``, a
    column per entry of ``counts``; NaN: not drawn) with its standard error ``se`` against the
    number of answers the models had from that student."""
    counts = np.asarray(counts, dtype=int)
    score, se = (check_length(np.asarray(value, dtype=float), name, len(models), "model")
                 for name, value in (("score", score), ("se", se)))
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    for m, name in enumerate(models):
        shown = ~np.isnan(score[m])
        ax.errorbar(counts[shown], score[m, shown], yerr=se[m, shown], capsize=3,
                    ls=_series_linestyle(m), marker=_series_marker(m), color=f"C{m}",
                    label=name)
    if counts.size == 0:
        ax.text(0.5, 0.5, "no student answered enough pairs to hold some out",
                ha="center", va="center", transform=ax.transAxes)
    else:
        ax.set_xscale("log", base=2)
        ax.set_xticks(counts, [str(n) for n in counts])
        ax.legend(loc="lower right", fontsize="small")
    ax.set_xlabel("answers the models had from the student")
    ax.set_ylabel("mean log score of held-out answers")
    ax.set_title("Predicting a student's other answers (higher is better)", fontsize="medium")
    return ClassFigure("held-out", fig, _describe_held_out(counts, list(models), score))


# ----- descriptions -------------------------------------------------------------------------
def _describe_students(bias, noise, rho, expert_noise, interval_names, left_out) -> str:
    if bias.size == 0:
        return "Both sides are empty: no student gave informative scores" + left_out + "."
    bias_name, correlation_name = interval_names
    return (f"Left, a scatter of {bias.size} students as circles and the {expert_noise.size} "
            f"experts as squares: bias across (points above the experts' mean, from "
            f"{bias.min():+.1f} to {bias.max():+.1f} among the students) against noise "
            f"variance up (from {noise.min():.2f} to {noise.max():.2f}; the experts "
            f"{expert_noise.min():.2f} to {expert_noise.max():.2f}), each student with faint "
            f"{bias_name} bars{left_out}. Right, each student's correlation with the experts' "
            f"mean as a dot with its {correlation_name}, sorted, from "
            f"{np.nanmin(rho):.2f} to {np.nanmax(rho):.2f} (median {np.nanmedian(rho):.2f}).")


def _describe_consensus(expert_mean, consensus, interval_name) -> str:
    shown = ~np.isnan(consensus)
    gap = consensus[shown] - expert_mean[shown]
    text = (f"{expert_mean.size} clips along the x axis, ordered by the experts' mean score; "
            f"squares joined by a dashed line give the experts' mean, circles joined by a solid "
            f"line the class's consensus with {interval_name} bars, on the 0-10 scale.")
    if not shown.any():
        return text + " No informative student scored a clip, so only the experts are drawn."
    return text + (f" The class sits on average {gap.mean():+.1f} points from the experts "
                   f"(from {gap.min():+.1f} to {gap.max():+.1f} per clip).")


def _describe_reliability(reliability, experts, n_experts, level, k_needed, verdict) -> str:
    text = (f"Reliability of the mean score of a panel of k students (0 to 1, up) against k "
            f"(across); a dashed horizontal line marks the {n_experts} experts' reliability "
            f"{experts:.2f}.")
    if reliability.size == 0:
        return text + " No student gave informative scores, so no curve is drawn."
    text += (f" A solid line rises from {reliability[0]:.2f} at one student to "
             f"{reliability[-1]:.2f} at {reliability.size}, inside a shaded "
             f"{level:.0%} band, a Bayesian credible band from draws of every noise.")
    if k_needed is not None:
        text += f" A dotted vertical line marks k = {k_needed}."
    return text + f" In words: {verdict}."


def _describe_preferences(pair_labels: list[str], verdicts: list[str], level: float) -> str:
    counts = {v: verdicts.count(v) for v in ("agrees", "tastes differ", "no clear preference")}
    differ = [label for label, v in zip(pair_labels, verdicts) if v == "tastes differ"]
    text = (f"{len(pair_labels)} pairs of equaliser settings, one per row (first vs second, by "
            "setting number). Left, stacked bars of the share of the class answering first "
            "(solid), none (hatched with slashes) and second (dotted). Right, each student's own "
            "utility difference as a faint dot and the pooled class's as a black diamond with "
            f"its {_percent(level)} credible interval (the preference model's posterior); the "
            f"verdict is written at the right. The class agrees on {counts['agrees']} pairs, "
            f"its tastes differ on {counts['tastes differ']} and {counts['no clear preference']} "
            "show no clear preference")
    return text + (f"; tastes differ on: {', '.join(differ)}." if differ else ".")


def _describe_held_out(counts: np.ndarray, models: list[str], score: np.ndarray) -> str:
    if counts.size == 0:
        return "An empty figure: no student answered enough pairs for some to be held out."
    parts = [f"{name} {score[m, 0]:.2f} at {counts[0]} and {score[m, -1]:.2f} at {counts[-1]}"
             for m, name in enumerate(models)
             if not np.isnan(score[m, 0]) and not np.isnan(score[m, -1])]
    return ("Mean log score of a student's held-out answers (up, higher is better) against the "
            f"number of answers the models had from that student (across, {counts[0]} to "
            f"{counts[-1]}, doubling), one line with error bars per model, each with its own "
            f"marker and line style: {'; '.join(parts)}.")
