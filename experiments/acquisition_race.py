"""Acquisition race on the 2-D simulated listeners of Nielsen et al. (2015): which rule wins?

The same listeners, model and loop as ``nielsen2015_personalisation.py``'s 2-D study (grid
[-20, 20]^2 with step 1; the model of Nielsen et al. (2015) with MAP-II after every fit; 10 random
comparisons, 30 active ones, 20 forced choices against (0, 0)); regular listeners 0-49 (a GP-draw
IRF each, Beta slider answers at noise_sd 1 and concentration 10). Only the rule that picks the
setting compared with the incumbent changes
(``course_lib.simulators.personalisation_study.run_session``):

* ``random`` -- a uniform grid setting;
* ``uei`` -- the argmax of univariate EI (the incumbent's value taken as fixed);
* ``bei-argmax`` -- the argmax of bivariate EI on the grid;
* ``bei`` -- a draw proportional to bEI on the grid (the Study 1 rule of Nielsen et al. 2015);
* ``thompson`` -- the argmax of one posterior draw on the grid;
* ``bald`` -- the grid setting whose pair with the incumbent has the largest mutual
  information between the answer and the utility (pairwise BALD, Houlsby et al. 2011): a rule
  for learning the whole utility, not for finding its maximum, shown for contrast.

Every rule sees the same listener (its IRF and its answer generator) and the same random
start (the session generator is keyed by listener, not by rule), so the comparison is paired.
``bei`` repeats ``nielsen2015_personalisation``'s 2-D sessions exactly (the test checks it).

Reported: the regret of the incumbent after every fit (mean and quantiles per rule); the
comparisons until the incumbent stops moving and until the grid mean of bEI stays below the
threshold; the forced-choice share; paired comparisons of each rule with ``bei`` and with
``random`` after 10, 20 and 30 active comparisons (mean and median difference of regret, its
standard error, how often each is better, Wilcoxon signed-rank p-value); the mean time of one
session per rule (wall clock on the shared machine; not compared by the reduced run).

Layout of ``result``: ``per_listener: {2d: [{group (the rule), index, regret, convergence,
incumbents, ei_settled_step, incumbent_settled_step, wins, ..., expected_significant}]}``
(the entries of ``nielsen2015_personalisation``); ``summary: {2d: {comparisons, groups: {<rule>:
...}}}`` (its summary per rule); ``paired: {2d: [{rule, reference, step, mean_difference,
standard_error, median_difference, n_better, n_worse, n_tied, wilcoxon_p}]}``;
``seconds_per_session: {<rule>: mean}``.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.stats import wilcoxon

from course_lib.preference.forced_choice import forced_choice_threshold

from . import nielsen2015_personalisation as personalisation
from .common import RESULTS_DIR, Z_REPLICATES, compare_replicates, run_experiment

NAME = "acquisition_race"
STUDY = "2d"
RULES = ("random", "uei", "bei-argmax", "bei", "thompson", "bald")
REFERENCES = ("bei", "random")
LISTENERS, REDUCED_LISTENERS = tuple(range(50)), (0,)
PAIRED_STEPS = (10, 20, 30)


def run_rule(rule: str, index: int, grid: np.ndarray) -> tuple[dict, float]:
    """Regular 2-D listener ``index`` of the experiment of Nielsen et al. (2015) under ``rule``,
    and the seconds its session took."""
    start = time.perf_counter()
    entry = personalisation.run_listener(STUDY, "regular", index, grid, acquisition=rule)
    entry["group"] = rule
    return entry, time.perf_counter() - start


def paired(per_listener: list[dict]) -> list[dict]:
    """Each rule against each reference on the same listeners, after PAIRED_STEPS active
    comparisons: regret differences rule - reference (negative: the rule did better)."""
    regret = {rule: {e["index"]: e["regret"] for e in per_listener if e["group"] == rule}
              for rule in RULES}
    out = []
    for reference in REFERENCES:
        for rule in RULES:
            if rule == reference:
                continue
            common = sorted(set(regret[rule]) & set(regret[reference]))
            for step in PAIRED_STEPS:
                d = np.array([regret[rule][i][step] - regret[reference][i][step]
                              for i in common])
                nonzero = d[d != 0]
                # Wilcoxon drops ties (zero differences); with none left there is no evidence
                p = float(wilcoxon(nonzero).pvalue) if nonzero.size else 1.0
                out.append({"rule": rule, "reference": reference, "step": step,
                            "n_listeners": int(d.size),
                            "mean_difference": float(d.mean()),
                            "standard_error": float(d.std(ddof=1) / np.sqrt(d.size))
                            if d.size > 1 else None,
                            "median_difference": float(np.median(d)),
                            "n_better": int(np.sum(d < 0)), "n_worse": int(np.sum(d > 0)),
                            "n_tied": int(np.sum(d == 0)), "wilcoxon_p": p})
    return out


def summarise(per_listener: dict) -> dict:
    entries = per_listener[STUDY]
    window = personalisation.STUDIES[STUDY]["smoothing_window"]
    groups = {rule: personalisation.summarise_group([e for e in entries if e["group"] == rule],
                                                    window)
              for rule in RULES}
    return {STUDY: {"comparisons": [personalisation.N_RANDOM + s
                                    for s in range(personalisation.N_ACTIVE + 1)],
                    "groups": groups}}


def run(reduced: bool) -> dict:
    listeners = REDUCED_LISTENERS if reduced else LISTENERS
    grid = personalisation.grid_of(STUDY)
    entries, seconds = [], {rule: [] for rule in RULES}
    for index in listeners:
        for rule in RULES:
            entry, elapsed = run_rule(rule, index, grid)
            entries.append(entry)
            seconds[rule].append(elapsed)
    per_listener = {STUDY: entries}
    settings = {
        "study": personalisation.STUDIES[STUDY], "rules": RULES, "references": REFERENCES,
        "listeners": list(listeners), "paired_steps": PAIRED_STEPS,
        "n_random": personalisation.N_RANDOM, "n_active": personalisation.N_ACTIVE,
        "n_forced": personalisation.N_FORCED, "level": personalisation.LEVEL,
        "significant_wins": forced_choice_threshold(personalisation.N_FORCED,
                                                    level=personalisation.LEVEL),
        "listener": {"likelihood": "PairwiseBeta", "noise_sd": personalisation.LISTENER_NOISE_SD,
                     "concentration": personalisation.LISTENER_CONCENTRATION},
        # as the committed run recorded it, when hearing_aid_model was named nielsen2015_model
        "model": "nielsen2015_model(2), MAP-II after every fit (as nielsen2015_personalisation)",
        "convergence_threshold": personalisation.CONVERGENCE_THRESHOLD,
        "paired_test": "Wilcoxon signed-rank test of the per-listener regret differences "
                       "(scipy.stats.wilcoxon, zero differences dropped; p = 1 when all are "
                       "zero); standard error of the mean difference with ddof 1",
        "figure": f"results/{NAME}.png",
        "tolerance_reason": personalisation.TOLERANCE_REASON, "z_replicates": Z_REPLICATES,
    }
    return {
        "title": "Acquisition race on the 2-D simulated listeners of Nielsen et al. (2015)",
        "settings": settings,
        "result": {"per_listener": per_listener, "summary": summarise(per_listener),
                   "paired": {STUDY: paired(entries)},
                   "seconds_per_session": {rule: float(np.mean(v)) for rule, v in
                                           seconds.items()}},
        "source": {
            "paper": "J. B. Nielsen's thesis (DTU 2014/2015), chapter 3 and Papers D, F, G, H",
            "numbers": None,
            "claims": [
                ("uEI ignores the correlation with the incumbent and tends to query at or next "
                "to it; bEI is zero there and less local (thesis 3.2-3.3)"),
                ("multinomial sampling of bEI adds exploration and avoids querying too close to "
                "the incumbent late in a session (Paper H, 2-D)"),
                ("active selection beat random selection at every tournament point (Paper F, "
                "absolute ratings)"),
                ("criteria aimed at learning the whole function (entropy, BALD) spend effort "
                "where the user's utility is low; optimisation needs EI (thesis ch. 3)"),
            ],
        },
        "differences": (
            "The thesis compares no acquisition rules on pairwise data with a known optimum; "
            "Paper F compares EI with random selection on absolute ratings of real users. This "
            "race is ours: simulated listeners with known IRFs, the regret of the incumbent as "
            "the measure, every rule under Paper H's 2-D model and loop. The thesis only "
            "mentions Thompson sampling and suggests BALD for the generalisation use case."),
    }


def format_table(document: dict) -> str:
    """The README's table: each rule's regret and its paired comparison with bEI multinomial."""
    result = document["result"]
    groups = result["summary"][STUDY]["groups"]
    against = {(p["rule"], p["step"]): p for p in result["paired"][STUDY]
               if p["reference"] == "bei"}
    rows = [("| rule | mean regret after 10 / 20 / 30 active | minus bEI multinomial after 30: "
            "mean ± se (better / worse / tied, Wilcoxon p) | incumbent settled, median "
            "comparisons | significantly prefer their setting | seconds per session |"),
            "|---|---|---|---|---|---|"]
    for rule in document["settings"]["rules"]:
        group = groups[rule]
        mean = group["regret"]["mean"]
        paired_30 = against.get((rule, PAIRED_STEPS[-1]))
        se = None if paired_30 is None else paired_30["standard_error"]
        versus = ("reference" if paired_30 is None else
                  f"{paired_30['mean_difference']:+.3f} ± "
                  + ("—" if se is None else f"{se:.3f}") + " "
                  f"({paired_30['n_better']} / {paired_30['n_worse']} / {paired_30['n_tied']}, "
                  f"p = {paired_30['wilcoxon_p']:.2g})")
        rows.append(f"| {rule} | " + " / ".join(f"{mean[s]:.3f}" for s in PAIRED_STEPS)
                    + f" | {versus} | "
                      f"{personalisation._maybe(group['incumbent_settled']['median_comparisons'])}"
                      " | "
                      f"{group['forced_choice']['n_significant_preferred']}/"
                      f"{group['n_listeners']} | "
                      f"{result['seconds_per_session'][rule]:.1f} |")
    return "\n".join(rows)


def select_for_comparison(reduced: dict, committed: dict) -> tuple[list, list]:
    """The reduced run's sessions against the same listener and rule of the full run."""
    by_key = {(e["group"], e["index"]): e for e in committed["per_listener"][STUDY]}
    ours = reduced["per_listener"][STUDY]
    return ours, [by_key.get((e["group"], e["index"])) for e in ours]


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    """Each session against the same listener and rule of the full run, within the spread of
    that rule's sessions (personalisation.TOLERANCE_REASON)."""
    return compare_replicates(reduced["per_listener"][STUDY], committed["per_listener"][STUDY],
                              key=("group", "index"), replicate="index",
                              skip=personalisation.NOT_COMPARED)


def draw_figure(document: dict, path) -> None:
    """The committed figure, drawn from the result file (as the lecture does)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from course_lib.plotting.personalisation_results import (
                                                             plot_paired_differences,
                                                             plot_regret,
                                                             plot_share_settled,
                                                             )

    fig, axes = plt.subplots(1, 4, figsize=(22, 5), constrained_layout=True)
    plot_regret(axes[0], document, STUDY, band=False)
    axes[0].set_title(f"mean regret, {len(document['settings']['listeners'])} listeners")
    plot_paired_differences(axes[1], document, STUDY, reference="bei")
    axes[1].set_title("paired: each rule minus bEI multinomial")
    plot_paired_differences(axes[2], document, STUDY, reference="random")
    axes[2].set_title("paired: each rule minus random")
    plot_share_settled(axes[3], document, STUDY, group="bei")
    axes[3].set_title("bEI multinomial: comparisons until settled")
    fig.suptitle("Acquisition race on the 2-D listeners of Nielsen et al. (2015) "
                 "(10 random + 30 active)")
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv=None):
    document = run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison,
                              argv=argv, format_table=format_table,
                              compare=compare_with_committed)
    if document is not None and document["settings"]["listeners"] == list(LISTENERS):
        from course_lib.results import load_result
        draw_figure(load_result(NAME), RESULTS_DIR / f"{NAME}.png")
    return document


if __name__ == "__main__":
    main()
