"""The class figures of "the class as a panel" (issue 47): the class's ratings beside the five
experts (:mod:`course_lib.class_panel.ratings`) and its comparisons, pooled and per student
(:mod:`course_lib.class_panel.preferences`).

Five figures, each with a description written for it from the numbers it draws (the class's
data change from year to year, so no fixed text could describe them; the JupyterLab alt text
and the ``<details>`` beneath come from it, as for the panel figure of
:mod:`course_lib.plotting.pronunciation`):

* ``_students_figure``: each student's bias against their noise, the experts beside them,
  and each student's correlation with the experts' mean;
* ``_consensus_figure``: per clip, the class's consensus beside the experts' mean;
* ``_reliability_figure``: how reliable a panel of k students is, with its band, against
  the experts' line;
* ``_preferences_figure``: per pair, the shares of the three answers, and the pooled
  difference beside every student's own;
* ``_held_out_figure``: the held-out log score of the class's model and a student's own by
  the number of answers.

:func:`class_figures` draws those the results allow, each as a :class:`ClassFigure` (name,
figure, description). Colours from the course's cycle (``plotting.colour``), and every compared
series has its own marker, line style or hatching too.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from course_lib.class_panel.preferences import ClassPreferences
from course_lib.class_panel.feedback import check_class_results
from course_lib.class_panel.ratings import ClassRatings, interval_z
from course_lib.plotting.colour import _series_linestyle, _series_marker
from course_lib.plotting.describe import described_image_html

__all__ = ["ClassFigure", "class_figures"]

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


def class_figures(ratings: ClassRatings | None = None,
                  preferences: ClassPreferences | None = None) -> list[ClassFigure]:
    """Every class figure the results allow (three from ``ratings``, two from
    ``preferences``), each with its description."""
    check_class_results(ratings, preferences)
    drawn = []
    if ratings is not None:
        drawn += [ClassFigure("students", _students_figure(ratings), _describe_students(ratings)),
                  ClassFigure("consensus", _consensus_figure(ratings),
                              _describe_consensus(ratings)),
                  ClassFigure("reliability", _reliability_figure(ratings),
                              _describe_reliability(ratings))]
    if preferences is not None:
        drawn += [ClassFigure("preferences", _preferences_figure(preferences),
                              _describe_preferences(preferences)),
                  ClassFigure("held-out", _held_out_figure(preferences),
                              _describe_held_out(preferences))]
    return drawn


def _left_out(ratings: ClassRatings) -> str:
    """"; not shown: 2 with every score the same, 1 with too few scores" or ""."""
    parts = [f"{ratings.status.count(status)} {text}" for status, text in (
        ("no information", "with every score the same"), ("too few scores", "with too few scores"))
        if ratings.status.count(status)]
    return f"; not shown: {', '.join(parts)}" if parts else ""


# ----- ratings ------------------------------------------------------------------------------
def _students_figure(ratings: ClassRatings) -> Figure:
    """Left: each informative student's bias (x, with its interval) against their noise
    variance (y, with its interval), the experts as squares. Right: each student's correlation
    with the experts' mean with its interval, sorted (pseudonyms on the axis for a small
    class)."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1]})
    ok, z = ratings.informative, interval_z(ratings.level)
    bias, noise = ratings.bias[ok], ratings.noise_variance[ok]
    interval = ratings.noise_interval[ok]
    bias_interval = (ratings.bias_interval[ok] if ratings.bias_interval is not None else
                     bias[:, None] + np.outer(z * ratings.bias_se[ok], [-1.0, 1.0]))
    left.errorbar(bias, noise, xerr=np.abs(bias_interval.T - bias),
                  yerr=np.abs(interval.T - noise), fmt="none", ecolor=_STUDENT, alpha=0.35,
                  lw=0.8)
    left.plot(bias, noise, ls="none", marker=_series_marker(0), color=_STUDENT,
              label=f"students ({int(ok.sum())})")
    left.plot(ratings.expert_bias, ratings.expert_noise_variance, ls="none",
              marker=_series_marker(1), color=_EXPERT, ms=8,
              label=f"experts ({ratings.expert_bias.size})")
    left.axvline(0.0, color="k", lw=0.8)
    left.set_xlabel("bias: points above the experts' mean (+ lenient, - strict)")
    left.set_ylabel("noise variance (points squared)")
    left.set_title(f"Level and steadiness, {ratings.level:.0%} intervals{_left_out(ratings)}",
                   fontsize="medium")
    left.legend(loc="upper left", fontsize="small")
    _plot_correlations(right, ratings)
    return fig


def _plot_correlations(ax, ratings: ClassRatings) -> None:
    ok = np.flatnonzero(ratings.informative & ~np.isnan(ratings.correlation))
    order = ok[np.argsort(ratings.correlation[ok])]
    position = np.arange(order.size)
    rho, interval = ratings.correlation[order], ratings.correlation_interval[order]
    has = ~np.isnan(interval[:, 0])
    ax.hlines(position[has], interval[has, 0], interval[has, 1], color=_STUDENT, alpha=0.5)
    ax.plot(rho, position, ls="none", marker=_series_marker(0), color=_STUDENT)
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel("correlation with the experts' mean")
    ax.set_title("Agreement with the experts", fontsize="medium")
    if 0 < order.size <= _LABELLED:
        ax.set_yticks(position, [ratings.pseudonyms[r] for r in order], fontsize="small")
    else:
        ax.set_ylabel("students, sorted")
        ax.set_yticks([])


def _consensus_figure(ratings: ClassRatings) -> Figure:
    """Each clip (ordered by the experts' mean): the experts' mean (squares) and the class's
    consensus (circles, with its interval)."""
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.subplots()
    order = np.argsort(ratings.expert_mean, kind="stable")
    rank = np.arange(1, order.size + 1)
    consensus, sd = ratings.consensus[order], ratings.consensus_sd[order]
    ax.plot(rank, ratings.expert_mean[order], ls=_series_linestyle(1),
            marker=_series_marker(1), color=_EXPERT,
            label=f"the {ratings.expert_bias.size} experts' mean")
    shown = ~np.isnan(consensus)
    if ratings.consensus_interval is not None:
        bars = np.abs(ratings.consensus_interval[order][shown].T - consensus[shown])
    else:                   # a ClassRatings built by hand: the normal approximation
        bars = interval_z(ratings.level) * sd[shown]
    ax.errorbar(rank[shown], consensus[shown], yerr=bars,
                ls=_series_linestyle(0), marker=_series_marker(0), color=_STUDENT, capsize=3,
                label=f"the class's consensus, {ratings.interval_name('consensus')}")
    ax.set_xlabel("clip, ordered by the experts' mean")
    ax.set_ylabel("fluency score (0-10)")
    ax.set_ylim(-0.3, 10.3)
    ax.set_title("Each clip: the class beside the experts", fontsize="medium")
    ax.legend(loc="upper left", fontsize="small")
    return fig


def _reliability_figure(ratings: ClassRatings) -> Figure:
    """The reliability of a panel of k students (line, with its 90 % Bayesian credible band from
    the posterior draws) against the experts' (dashed), and the k needed (dotted, when the class
    reaches it)."""
    rel = ratings.reliability
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    ax.axhline(rel.experts, color=_EXPERT, ls=_series_linestyle(1),
               label=f"the {rel.n_experts} experts ({rel.experts:.2f})")
    if rel.k.size:
        ax.fill_between(rel.k, rel.band[:, 0], rel.band[:, 1], color=_STUDENT, alpha=0.25,
                        label=f"{rel.level:.0%} credible band")
        ax.plot(rel.k, rel.reliability, color=_STUDENT, ls=_series_linestyle(0),
                marker=_series_marker(0) if rel.k.size <= _LABELLED else None,
                label="k students")
    if rel.k_needed is not None:
        ax.axvline(rel.k_needed, color="k", ls=":", lw=1.2)
        ax.annotate(f"k = {rel.k_needed}", (rel.k_needed, 0.05), xytext=(4, 0),
                    textcoords="offset points")
    ax.set_xlim(0.5, max(rel.k.size, 1) + 0.5)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("students in the panel (k)")
    ax.set_ylabel("reliability of their mean score")
    verdict = rel.verdict()
    ax.set_title(verdict[0].upper() + verdict[1:], fontsize="medium", wrap=True)
    ax.legend(loc="lower right", fontsize="small")
    return fig


# ----- preferences --------------------------------------------------------------------------
def _pair_labels(preferences: ClassPreferences) -> list[str]:
    return [f"{a + 1} vs {b + 1}" for a, b in preferences.pairs]


def _preferences_figure(preferences: ClassPreferences) -> Figure:
    """Per pair (rows, "first vs second" by setting number): left, the shares answering first,
    none and second (stacked, each with its own hatching); right, every student's own
    posterior mean difference (dots) and the pooled difference with its interval (diamond),
    with the pair's verdict ("agrees", "split", "no clear preference") written beside it."""
    P = preferences.pairs.shape[0]
    fig = Figure(figsize=(11, 0.9 + 0.32 * max(P, 6)), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [1, 1.4]})
    rows = np.arange(P)
    start = np.zeros(P)
    for k, (answer, colour, hatch) in enumerate((("first", "C0", None), ("none", "0.8", "//"),
                                                 ("second", "C1", ".."))):
        left.barh(rows, preferences.shares[:, k], left=start, color=colour, hatch=hatch,
                  edgecolor="white" if hatch is None else "0.3", label=answer)
        start = start + preferences.shares[:, k]
    left.set_xlim(0, 1)
    left.set_xlabel("share of the class's answers")
    left.set_yticks(rows, _pair_labels(preferences), fontsize="small")
    left.invert_yaxis()
    left.set_ylabel("pair of settings (first vs second)")
    left.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3, fontsize="small")
    _plot_differences(right, preferences)
    return fig


def _plot_differences(ax, preferences: ClassPreferences) -> None:
    P = preferences.pairs.shape[0]
    fitted = preferences.individual_difference[preferences.fitted]
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, fitted.shape)  # fixed: a layout
    ax.plot(fitted.ravel(), (np.arange(P)[None, :] + jitter).ravel(), ls="none",
            marker=_series_marker(0), ms=3, color=_STUDENT, alpha=0.3,
            label=f"each student ({fitted.shape[0]})")
    half = interval_z(0.9) * preferences.pooled_difference_sd
    ax.errorbar(preferences.pooled_difference, np.arange(P), xerr=half, ls="none",
                marker=_series_marker(3), color="k", capsize=3,
                label="the class, 90 % credible interval")
    ax.axvline(0.0, color="k", lw=0.8)
    for j, verdict in enumerate(preferences.verdict):
        ax.annotate(verdict, (1.0, j), xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize="small",
                    fontweight="bold" if verdict == "split" else "normal")
    ax.set_xlabel("utility difference, first minus second (> 0: first preferred)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, fontsize="small")


def _held_out_figure(preferences: ClassPreferences) -> Figure:
    """The mean log score of a student's held-out answers (with its standard error) against
    the number of answers the models had from that student, for the class without them, them
    alone, and both."""
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    counts = preferences.held_out_counts
    for m, name in enumerate(preferences.held_out_models):
        shown = ~np.isnan(preferences.held_out_score[m])
        ax.errorbar(counts[shown], preferences.held_out_score[m, shown],
                    yerr=preferences.held_out_se[m, shown], capsize=3,
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
    return fig


# ----- descriptions -------------------------------------------------------------------------
def _describe_students(ratings: ClassRatings) -> str:
    ok = ratings.informative
    n_ok = int(ok.sum())
    if n_ok == 0:
        return ("Two empty panels: no student gave informative scores" + _left_out(ratings)
                + ".")
    bias, noise, rho = ratings.bias[ok], ratings.noise_variance[ok], ratings.correlation[ok]
    return (f"Left, a scatter of {n_ok} students as circles and the {ratings.expert_bias.size} "
            f"experts as squares: bias across (points above the experts' mean, from "
            f"{bias.min():+.1f} to {bias.max():+.1f} among the students) against noise "
            f"variance up (from {noise.min():.2f} to {noise.max():.2f}; the experts "
            f"{ratings.expert_noise_variance.min():.2f} to "
            f"{ratings.expert_noise_variance.max():.2f}), each student with faint "
            f"{ratings.interval_name('bias')} bars{_left_out(ratings)}. Right, each student's "
            f"correlation with the experts' mean as a dot with its "
            f"{ratings.interval_name('correlation')}, "
            f"sorted, from "
            f"{np.nanmin(rho):.2f} to {np.nanmax(rho):.2f} (median {np.nanmedian(rho):.2f}).")


def _describe_consensus(ratings: ClassRatings) -> str:
    shown = ~np.isnan(ratings.consensus)
    gap = ratings.consensus[shown] - ratings.expert_mean[shown]
    text = (f"{ratings.items.size} clips along the x axis, ordered by the experts' mean score; "
            f"squares joined by a dashed line give the experts' mean, circles joined by a solid "
            f"line the class's consensus with {ratings.interval_name('consensus')} bars, on the "
            f"0-10 "
            "scale.")
    if not shown.any():
        return text + " No informative student scored a clip, so only the experts are drawn."
    return text + (f" The class sits on average {gap.mean():+.1f} points from the experts "
                   f"(from {gap.min():+.1f} to {gap.max():+.1f} per clip).")


def _describe_reliability(ratings: ClassRatings) -> str:
    rel = ratings.reliability
    text = (f"Reliability of the mean score of a panel of k students (0 to 1, up) against k "
            f"(across); a dashed horizontal line marks the {rel.n_experts} experts' reliability "
            f"{rel.experts:.2f}.")
    if rel.k.size == 0:
        return text + " No student gave informative scores, so no curve is drawn."
    text += (f" A solid line rises from {rel.reliability[0]:.2f} at one student to "
             f"{rel.reliability[-1]:.2f} at {rel.k.size}, inside a shaded "
             f"{rel.level:.0%} band, a Bayesian credible band from draws of every noise.")
    if rel.k_needed is not None:
        text += f" A dotted vertical line marks k = {rel.k_needed}."
    return text + f" In words: {rel.verdict()}."


def _describe_preferences(preferences: ClassPreferences) -> str:
    P = preferences.pairs.shape[0]
    verdicts = {v: preferences.verdict.count(v) for v in ("agrees", "split",
                                                          "no clear preference")}
    split = [label for label, v in zip(_pair_labels(preferences), preferences.verdict)
             if v == "split"]
    text = (f"{P} pairs of equaliser settings, one per row (first vs second, by setting "
            "number). Left, stacked bars of the share of the class answering first (solid), "
            "none (hatched with slashes) and second (dotted). Right, each student's own utility "
            "difference as a faint dot and the pooled class's as a black diamond with its 90 % "
            "credible interval (the preference model's posterior); the verdict is written at "
            f"the right. The class agrees on {verdicts['agrees']} pairs, its tastes split on "
            f"{verdicts['split']} and {verdicts['no clear preference']} show no clear "
            "preference")
    return text + (f"; split: {', '.join(split)}." if split else ".")


def _describe_held_out(preferences: ClassPreferences) -> str:
    counts = preferences.held_out_counts
    if counts.size == 0:
        return "An empty panel: no student answered enough pairs for some to be held out."
    score = preferences.held_out_score
    parts = [f"{name} {score[m, 0]:.2f} at {counts[0]} and {score[m, -1]:.2f} at {counts[-1]}"
             for m, name in enumerate(preferences.held_out_models)
             if not np.isnan(score[m, 0]) and not np.isnan(score[m, -1])]
    return ("Mean log score of a student's held-out answers (up, higher is better) against the "
            f"number of answers the models had from that student (across, {counts[0]} to "
            f"{counts[-1]}, doubling), one line with error bars per model, each with its own "
            f"marker and line style: {'; '.join(parts)}.")
