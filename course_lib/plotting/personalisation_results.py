"""Plots of the personalisation experiments (Unit 6: the loop of Nielsen, Nielsen & Larsen 2015
and the acquisition race).

``plot_xxx(ax, result, study, ...) -> ax`` draw a committed result as
:func:`course_lib.results.load_result` returns it (``load_result("nielsen2015_personalisation")`` or
``load_result("acquisition_race")``); they compute nothing a test would need. Both files share
one layout (``experiments/nielsen2015_personalisation.md``)::

    result["settings"]                 n_random, convergence_threshold, significant_wins, ...
    result["result"]["summary"][study] {comparisons: [...], groups: {<group>: {regret:
                                        {mean, quantiles}, convergence: {median, quantiles},
                                        ...}}}
    result["result"]["per_listener"][study]  [{group, index, regret, wins, baseline_gap, ...}]
                                        one per listener (per listener and rule in the race)

``study`` is ``"2d"`` or ``"4d"``; a group is a kind of listener (``regular``,
``cannot_hear``, ``switches``, ``fatigue``, ``threshold``) in the personalisation result and an
acquisition rule in the race.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..validation import check_choice
from .colour import _COURSE_COLOURS, _series_linestyle, _series_marker

__all__ = [
    "plot_convergence",
    "plot_forced_choice",
    "plot_paired_differences",
    "plot_regret",
    "plot_share_settled",
]

_GROUP_COLOURS = {"regular": "C0", "cannot_hear": "C3", "switches": "C1", "fatigue": "C2",
                 "threshold": "C4", "random": "0.45", "uei": "C1", "bei": "C0",
                 "bei-argmax": "C5", "thompson": "C2", "bald": "C4", "bei-ascent": "C7"}
_GROUP_LABELS = {"regular": "regular", "cannot_hear": "cannot hear (subject 6)",
                "switches": "switches preference (subject 7)",
                "fatigue": "fatigue (subjects 11, 13)", "threshold": "matters above a threshold",
                "random": "random", "uei": "uEI argmax", "bei": "bEI multinomial",
                "bei-argmax": "bEI argmax", "thompson": "Thompson", "bald": "BALD",
                "bei-ascent": "bEI ascent (5 starts)"}
# the bars of each step differ in hatching as well as colour
_STEP_HATCHES = ("", "//", "..", "xx")


def _document(result) -> Mapping:
    if not isinstance(result, Mapping):
        raise TypeError(f"result: expected a committed result (a dict from "
                        f"course_lib.results.load_result), got {type(result).__name__}")
    if "result" not in result or "summary" not in result["result"] \
            or "per_listener" not in result["result"]:
        raise ValueError("result: not a personalisation result (no result.summary / "
                         "result.per_listener); load 'nielsen2015_personalisation' or "
                         "'acquisition_race'")
    return result


def _study(result, study: str) -> Mapping:
    summary = _document(result)["result"]["summary"]
    if study not in summary:
        raise ValueError(f"study: expected one of {sorted(summary)}, got {study!r}")
    return summary[study]


def _groups(summary: Mapping, groups) -> list[str]:
    available = list(summary["groups"])
    if groups is None:
        return available
    if isinstance(groups, str) or not isinstance(groups, Sequence):
        raise TypeError(f"groups: expected a sequence of group names, got "
                        f"{type(groups).__name__}")
    missing = [g for g in groups if g not in summary["groups"]]
    if missing:
        raise ValueError(f"groups: {missing} not in this result; available: {available}")
    return list(groups)


def _colour(group: str, index: int) -> str:
    return _GROUP_COLOURS.get(group, f"C{index % len(_COURSE_COLOURS)}")


def _random_start(ax, result) -> None:
    n_random = result["settings"].get("n_random")
    if n_random is not None:
        ax.axvline(n_random, color="0.7", lw=0.8, ls=":")


def plot_regret(ax, result, study: str = "2d", *, groups=None, which: str = "regret",
                band: bool = True):
    """Mean regret (true utility of the best setting minus that of the incumbent) against the
    number of comparisons, one line per group, with the band between the quartiles
    (``band``). ``which``: ``"regret"`` (in the IRF the listener was drawn with) or
    ``"heard_regret"`` (in the utility a pathological listener answers by at the end)."""
    summary = _study(result, study)
    check_choice(which, "which", ("regret", "heard_regret"))
    x = np.asarray(summary["comparisons"])
    for index, group in enumerate(_groups(summary, groups)):
        curve = summary["groups"][group].get(which)
        if curve is None:
            raise ValueError(f"which: group {group!r} has no {which!r} curve")
        colour = _colour(group, index)
        ax.plot(x, curve["mean"], color=colour, lw=1.8, ls=_series_linestyle(index),
                label=f"{_GROUP_LABELS.get(group, group)} "
                      f"(n = {summary['groups'][group]['n_listeners']})")
        if band:
            ax.fill_between(x, curve["quantiles"]["25"], curve["quantiles"]["75"],
                            color=colour, alpha=0.2, lw=0)
    _random_start(ax, result)
    ax.set_xlabel("comparisons (random start, then active)")
    ax.set_ylabel("regret, mean" + (" (band: quartiles)" if band else ""))
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return ax


def plot_convergence(ax, result, study: str = "2d", *, groups=None):
    """The convergence measure (Nielsen et al. 2015: grid mean of bEI, or the smoothed path mean
    in 4-D): median over the listeners of each group, quartile band, log scale, and the threshold
    below which a session counts as settled."""
    summary = _study(result, study)
    x = np.asarray(summary["comparisons"])
    floor = None
    for index, group in enumerate(_groups(summary, groups)):
        curve = summary["groups"][group].get("convergence")
        if curve is None:
            raise ValueError(f"groups: group {group!r} has no convergence curve")
        colour = _colour(group, index)
        median = np.asarray(curve["median"])
        ax.plot(x, median, color=colour, lw=1.8, ls=_series_linestyle(index),
                label=_GROUP_LABELS.get(group, group))
        ax.fill_between(x, curve["quantiles"]["25"], curve["quantiles"]["75"], color=colour,
                        alpha=0.15, lw=0)
        positive = median[median > 0]
        if positive.size:
            floor = positive.min() if floor is None else min(floor, positive.min())
    threshold = result["settings"].get("convergence_threshold")
    if threshold is not None:
        ax.axhline(threshold, color="k", lw=0.8, ls="--", label=f"threshold {threshold:g}")
    ax.set_yscale("log")
    if floor is not None:
        ax.set_ylim(bottom=max(floor / 3, 1e-8))
    _random_start(ax, result)
    ax.set_xlabel("comparisons (random start, then active)")
    ax.set_ylabel("convergence measure (mean bEI), median")
    ax.legend(fontsize=8)
    return ax


def plot_share_settled(ax, result, study: str = "2d", *, group: str = "regular"):
    """Share of a group's listeners settled by each number of comparisons: by the convergence
    measure (staying below the threshold to the end) and by the incumbent (no longer moving).
    A curve that ends below 1 leaves the rest never settled within the session."""
    summary = _study(result, study)
    if group not in summary["groups"]:
        raise ValueError(f"group: expected one of {list(summary['groups'])}, got {group!r}")
    entries = [e for e in result["result"]["per_listener"][study] if e["group"] == group]
    n_random = result["settings"]["n_random"]
    x = np.asarray(summary["comparisons"])
    for key, label, style in (("ei_settled_step", "convergence measure below threshold", "-"),
                              ("incumbent_settled_step", "incumbent stops moving", "--")):
        steps = [e[key] for e in entries]
        counts = np.array([n_random + s for s in steps if s is not None])
        share = np.array([np.sum(counts <= c) for c in x]) / max(len(steps), 1)
        ax.step(x, share, where="post", ls=style, color=_colour(group, 0), label=label)
    _random_start(ax, result)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("comparisons")
    ax.set_ylabel(f"share settled ({_GROUP_LABELS.get(group, group)}, n = {len(entries)})")
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_forced_choice(ax, result, study: str = "2d", *, groups=None):
    """Wins of the found setting in the forced choices against the baseline, per listener,
    against how much better the listener's true optimum is than the baseline (the baseline's
    regret): significance needs the dashed number of wins, which only listeners whose baseline
    is clearly worse than their optimum can reach."""
    summary = _study(result, study)
    settings = result["settings"]
    chosen = _groups(summary, groups)
    entries = result["result"]["per_listener"][study]
    rng = np.random.default_rng(0)  # fixed jitter so tied win counts stay visible
    for index, group in enumerate(chosen):
        rows = [e for e in entries if e["group"] == group]
        gap = np.array([e["baseline_gap"] for e in rows])
        wins = np.array([e["wins"] for e in rows], dtype=float)
        ax.scatter(gap, wins + rng.uniform(-0.2, 0.2, wins.size), s=12,
                   color=_colour(group, index), marker=_series_marker(index), alpha=0.7,
                   label=_GROUP_LABELS.get(group, group))
    needed = settings.get("significant_wins")
    if needed is not None:
        ax.axhline(needed - 0.5, color="k", lw=0.8, ls="--",
                   label=f">= {needed} wins: significant")
    ax.axhline(settings["n_forced"] / 2, color="0.6", lw=0.8, ls=":")
    ax.set_xlabel("baseline's regret (true optimum minus baseline)")
    ax.set_ylabel(f"wins of the found setting of {settings['n_forced']}")
    ax.legend(fontsize=8)
    return ax


def plot_paired_differences(ax, result, study: str = "2d", *, reference: str = "bei"):
    """The race's paired comparison: mean regret of each rule minus ``reference``'s on the same
    listeners after 10, 20 and 30 active comparisons, with +-2 standard errors; below zero the
    rule found better settings than the reference (no bar for a single listener)."""
    _study(result, study)
    paired = result["result"].get("paired", {}).get(study)
    if paired is None:
        raise ValueError("result: has no paired comparison (load 'acquisition_race')")
    rules = list(dict.fromkeys(p["rule"] for p in paired if p["reference"] == reference))
    if not rules:
        raise ValueError(f"reference: no paired comparison against {reference!r}; available: "
                         f"{sorted({p['reference'] for p in paired})}")
    steps = result["settings"]["paired_steps"]
    width = 0.8 / len(steps)
    for k, step in enumerate(steps):
        by_rule = {p["rule"]: p for p in paired
                   if p["reference"] == reference and p["step"] == step}
        rows = [by_rule[rule] for rule in rules]
        x = np.arange(len(rules)) + (k - (len(steps) - 1) / 2) * width
        ax.bar(x, [p["mean_difference"] for p in rows], width,
               yerr=[2 * (p["standard_error"] or 0.0) for p in rows], color=f"C{k}",
               hatch=_STEP_HATCHES[k % len(_STEP_HATCHES)], edgecolor="0.2", alpha=0.8,
               label=f"after {step} active", capsize=2)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(rules)))
    ax.set_xticklabels([_GROUP_LABELS.get(r, r) for r in rules], rotation=20, fontsize=8)
    ax.set_ylabel(f"regret minus {_GROUP_LABELS.get(reference, reference)}'s (mean, +-2 se)")
    ax.legend(fontsize=8)
    return ax
