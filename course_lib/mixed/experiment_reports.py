"""The text lecture 07 prints of its reproduced experiments of Wu, Sanders, Letham & Guan 2025
(section 8; ``wu2025_*``): the source's claims, our table and the sentence that states its
message, for the level-set sessions and their diagnosis, the synthetic Likert study and the
haptic-like and gait-like subjects.

Unit 7 takes "feedback" in the source's sense: the kinds of answer a person gives (choices,
ratings, yes/no). :data:`REPORTS` maps each result's name to the functions that write its text,
in the order printed; :func:`course_lib.reports.report` reads it, so a lecture calls
``report(load_result(name))`` and never a report's function. Each function takes the committed
result and returns the text; a result that lacks a setting the text reads is refused by name. The
printed text names the paper by author and year.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

_WIDTH = 100
_MIXED_PAPER = "Wu et al. 2025"  # lecture 7's Sources give it in full
_LEVELSET_STEPS = ("mixed > pseudo", "pseudo > none")


def _fill(text: str, indent: str = "") -> str:
    return textwrap.fill(text, _WIDTH, subsequent_indent=indent)


def _require(result, name: str, keys: tuple[str, ...], what: str) -> dict:
    missing = [key for key in keys if key not in result.get("settings", {})]
    if missing or "source" not in result:
        raise ValueError(f"{name}: expected {what}, got {result.get('name', 'a result')!r} "
                         f"(no {', '.join(missing) or 'source'})")
    return result


def _source_claims(result) -> str:
    """The source paper's claims as the result records them, one 'Wu et al. 2025: ...'
    paragraph each."""
    return "\n".join(_fill(f"{_MIXED_PAPER}: " + claim, "    ")
                     for claim in result["source"].get("claims", []))


def _levelset_verdicts(result) -> dict:
    """{(problem, acquisition, step): verdict} of a level-set result (``wu2025_levelset``,
    ``wu2025_levelset_4d``, ``wu2025_passthrough``) for the paper's steps
    mixed > pseudo and pseudo > none."""
    _require(result, "result", ("report_trials", "arms"), "a level-set result")
    return {(problem, acquisition, step): summary["directions"][step]["verdict"]
            for problem, entry in result["result"].items()
            for acquisition, summary in entry["summary"].items() for step in _LEVELSET_STEPS}


def _levelset_report(result) -> str:
    """The paper's claims; per problem and acquisition, each arm's F1 after the last reported
    trial and the paired area differences of the paper's two steps with their verdicts; the
    sessions a library failure stopped; and how many problem-acquisition pairs each step holds
    in."""
    _require(result, "result", ("report_trials", "arms"), "a level-set result")
    settings = result["settings"]
    last = str(settings["report_trials"][-1])
    lines = [_source_claims(result), "",
             f"{len(settings['seeds'])} seeds per arm: {settings['n_initial']} quasi-random "
             f"trials, then {settings['n_active']} chosen by the acquisition; F1 on "
             f"{settings['n_test']} test points", "",
             f"{'problem':13s}{'acquisition':12s}{'F1 after ' + last + ' trials':23s}"
             f"{'mixed > pseudo':33s}pseudo > none",
             f"{'':25s}{'mixed / pseudo / none':23s}{'area difference: verdict':33s}"
             f"area difference: verdict"]
    failures = []
    for problem, entry in result["result"].items():
        for acquisition, summary in entry["summary"].items():
            f1 = " / ".join(f"{summary['arms'][arm]['f1_at'][last]['mean']:.3f}"
                            for arm in settings["arms"])
            steps = [f"{d['mean']:+.3f} ± {d['se']:.3f} {d['verdict']}"
                     for d in (summary["directions"][step] for step in _LEVELSET_STEPS)]
            lines.append(f"{problem:13s}{acquisition:12s}{f1:23s}{steps[0]:33s}{steps[1]}")
            failures += [f"{problem}, {acquisition}, {arm}: {stats['n_failed']} of "
                         f"{stats['n_failed'] + stats['n_seeds']} sessions failed"
                         for arm, stats in summary["arms"].items() if stats["n_failed"]]
    if failures:
        lines.append(_fill("left out (the directions pair the seeds where both sessions ran): "
                           + "; ".join(failures)))
    lines.append("")
    verdicts = _levelset_verdicts(result)
    for step in _LEVELSET_STEPS:
        chosen = {key: v for key, v in verdicts.items() if key[2] == step}
        holds = sum(v == "holds" for v in chosen.values())
        misses = [f"{p}, {a}: {v}" for (p, a, _), v in chosen.items() if v != "holds"]
        lines.append(_fill(f"Wu et al.'s step {step} holds in {holds} of {len(chosen)} "
                           f"problem-acquisition pairs"
                           + (f"; not in {'; '.join(misses)}" if misses else "") + "."))
    return "\n".join(lines)


def _change(before: float, after: float) -> str:
    return f"{'falls' if after < before else 'rises'} from {before:.3f} to {after:.3f}"


def _likert_synthetic_report(result) -> str:
    """Wu et al. 2025, section 5.2 (``wu2025_likert_synthetic``): the claims with our verdicts, the
    mean absolute error of Pr(x1 > x2) per region for both models, and the change the ratings
    make in each region."""
    _require(result, "result", ("n_seeds", "model"), "the wu2025_likert_synthetic result")
    summary = result["result"]["summary"]
    lines = [_source_claims(result),
             f"  (Likert cut points learned: "
             f"{result['settings']['model']['likert'].get('learned', 'not recorded')})"]
    for entry in result["result"]["claims"]:
        lines.append(_fill(f"  ours: {entry['claim']}: {entry['holds']}"
                           + (f" ({entry['ours']})" if "ours" in entry else ""), "      "))
    lines += ["", f"mean absolute error of Pr(x1 > x2), {result['settings']['n_seeds']} runs",
              f"{'region':12s}{'choices only':>14s}{'with ratings':>14s}{'difference':>20s}"]
    regions = {"mae": "whole map", "mae_corners": "corners", "mae_diagonal": "diagonal"}
    for key, region in regions.items():
        s = summary[key]
        lines.append(f"{region:12s}{s['preference']:>14.3f}{s['mixed']:>14.3f}"
                     f"{s['difference']:>+13.3f} ± {s['difference_se']:.3f}")
    moves = {key: _change(summary[key]["preference"], summary[key]["mixed"]) for key in regions}
    lines += ["", _fill(f"With the ratings the error in the corners {moves['mae_corners']}, "
                        f"near the diagonal it {moves['mae_diagonal']}, and over the whole map "
                        f"it {moves['mae']}.")]
    return "\n".join(lines)


def _haptic_cell_counts(result) -> dict:
    """Counts of the haptic-like study's verdicts (``wu2025_haptic_like``): for the
    calibrated subjects and for the over-confident one, how many subject-size-score cells are
    'mixed better', 'mixed worse', and how many there are."""
    _require(result, "result", ("training_sizes", "overconfident_subject"),
             "the wu2025_haptic_like result")
    overconfident = f"#{result['settings']['overconfident_subject']}"
    counts = {}
    for group, chosen in (("calibrated", lambda s: s != overconfident),
                          ("overconfident", lambda s: s == overconfident)):
        cells = [v for e in result["result"]["claims"] if chosen(e["subject"])
                 for v in e["verdicts"]]
        counts[group] = {"mixed better": cells.count("mixed better"),
                         "mixed worse": cells.count("mixed worse"), "cells": len(cells)}
    counts["overconfident_subject"] = overconfident
    return counts


def _haptic_report(result) -> str:
    """Wu et al. 2025, section 5.3 on simulated subjects (``wu2025_haptic_like``): per subject and
    training size the paired Brier and F1 differences (with ratings minus choices only) with
    their verdicts, the claims with ours, and the count of cells where the ratings help."""
    _require(result, "result", ("training_sizes", "overconfident_subject"),
             "the wu2025_haptic_like result")
    summary, sizes = result["result"]["summary"], result["settings"]["training_sizes"]
    lines = [_source_claims(result),
             f"  (Likert cut points learned: "
             f"{result['settings']['model']['likert'].get('learned', 'not recorded')})", "",
             f"{result['settings']['n_splits']} splits per subject and size; difference with "
             "ratings minus choices only, mean ± se",
             f"{'subject':9s}{'pairs':>6s}     {'Brier difference':40s}F1 difference"]
    for subject, by_size in summary.items():
        for size in map(str, sizes):
            cells = [f"{by_size[size][m]['difference']:+.3f} ± "
                     f"{by_size[size][m]['difference_se']:.3f}  "
                     f"{by_size[size][m]['verdict']:<20s}" for m in ("brier", "f1")]
            lines.append(f"{subject:9s}{size:>6s}     {cells[0]:<40s}{cells[1]:<40s}".rstrip())
    lines.append("")
    lines += [f"{entry['claim']}: {entry['holds']}" for entry in result["result"]["claims"]]
    counts = _haptic_cell_counts(result)
    calibrated, over = counts["calibrated"], counts["overconfident"]
    lines += ["", _fill(
        f"For the calibrated subjects the ratings help clearly in {calibrated['mixed better']} "
        f"of {calibrated['cells']} subject-size-score cells and hurt clearly in "
        f"{calibrated['mixed worse']}; for subject {counts['overconfident_subject']} they help "
        f"in {over['mixed better']} and hurt in {over['mixed worse']} of {over['cells']}.")]
    return "\n".join(lines)


def _gait_report(result) -> str:
    """Wu et al. 2025, section 5.4 on a simulated subject (``wu2025_gait_like``): per training size
    both models' Brier and F1 with the verdicts, and the claim with the count of cells that
    pass the two-standard-error rule and the share of splits on which the ratings help."""
    _require(result, "result", ("n_trials", "level_counts", "n_splits"),
             "the wu2025_gait_like result")
    settings, summary = result["settings"], result["result"]["summary"]
    lines = [_source_claims(result), "",
             f"{settings['n_trials']} trials, level counts "
             f"{' / '.join(map(str, settings['level_counts']))}; {settings['n_splits']} splits "
             "per size",
             f"{'pairs':>5s}   {'Brier: choices only / with ratings':44s}"
             f"F1: choices only / with ratings"]
    for size, entry in summary.items():
        row = "".join(f"{entry[m]['preference']:.3f} / {entry[m]['mixed']:.3f}  "
                      f"{entry[m]['verdict']:<27s}" for m in ("brier", "f1"))
        lines.append(f"{size:>5s}   {row}".rstrip())
    claim = result["result"]["claims"][0]
    better = [summary[size][m]["mixed_better_share"] for size in summary for m in ("brier", "f1")]
    on_splits = ("on every split of every cell" if min(better) == 1 else
                 f"on at least {min(better):.0%} of the splits in every cell")
    lines += ["", _fill(
        f"{claim['claim']}: {claim['holds']} ({claim['verdicts'].count('mixed better')} of "
        f"{len(claim['verdicts'])} size-score cells pass the two-standard-error rule; the model "
        f"with ratings is better {on_splits}).")]
    return "\n".join(lines)


def _levelset_diagnosis_report(result) -> str:
    """What the norm-ball sessions' models believed (``wu2025_levelset_diagnosis``): per
    problem, acquisition and arm at 10 / 30 / 50 trials the F1, the estimated set's volume
    against the true one, the posterior mean of f at the origin (truth 0) and the share of
    seeds whose estimated set is empty; and where the active queries went."""
    _require(result, "result", ("replays", "report_trials"),
             "the wu2025_levelset_diagnosis result")
    shown = ("10", "30", "50")
    lines = []
    for problem, entry in result["result"].items():
        reference = entry["reference"]
        lines += [f"{problem}: true set {reference['true_volume']:.3f} of the box; a uniform "
                  f"trial is answered 'no' with probability {reference['no_share_box']:.2f} "
                  f"({reference['no_share_in_set']:.2f} inside the set)",
                  f"{'':22s}{'after 10 / 30 / 50 trials':59s}active queries",
                  f"{'acquisition':12s}{'arm':8s}{'F1':20s}{'set volume':23s}"
                  f"{'mean f(0)':16s}median |x|  in set"]
        for acquisition, arms in entry["summary"].items():
            for arm, stats in arms.items():
                t = stats["trials"]
                f1 = " / ".join(f"{t[n]['f1']:.2f}" for n in shown)
                volume = " / ".join(f"{t[n]['estimated_volume']:.3f}" for n in shown)
                mean = " / ".join(f"{t[n]['mean_at_origin']:.2f}" for n in shown)
                lines.append(f"{acquisition:12s}{arm:8s}{f1:20s}{volume:23s}{mean:16s}"
                             f"{stats['median_query_distance']:>10.2f}  "
                             f"{stats['queries_in_true_set']:>6.2f}")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


#: The text of each of lecture 07's results, by the result's name, in the order printed.
REPORTS: dict[str, tuple[Callable[[dict], str], ...]] = {
    "wu2025_fig2": (_source_claims,),
    "wu2025_levelset": (_levelset_report,),
    "wu2025_levelset_4d": (_levelset_report,),
    "wu2025_passthrough": (_levelset_report,),
    "wu2025_levelset_diagnosis": (_levelset_diagnosis_report,),
    "wu2025_likert_synthetic": (_likert_synthetic_report,),
    "wu2025_haptic_like": (_haptic_report,),
    "wu2025_gait_like": (_gait_report,),
}
