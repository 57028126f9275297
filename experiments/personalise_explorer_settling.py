"""How far to trust the personalisation explorer's "settled": its own rule, on simulated listeners.

Unit 6's explorer (``course_lib.widgets.personalise``) shows after every answer whether the
session has "settled" and, beside the verdict, how often that verdict was right on simulated
listeners (``course_lib.simulators.personalisation.settling_trust``). This script measures those
rates with the explorer's own rule, grid and start, for every band count the explorer offers
(2, 3 and 4): each listener is the explorer's hidden listener
(:func:`~course_lib.simulators.personalisation.hidden_listener`: its IRF a GP draw over the
gains, its answers a Beta slider) answering a
:class:`~course_lib.simulators.personalisation.PersonalisationSession` built as the explorer
builds it (one generator for the listener and the session, ``N_RANDOM`` random comparisons
first, the band count's -12..12 dB grid, the grid mean of bEI smoothed over
``SETTLING_WINDOW`` answers against the session's threshold, MAP-II every 5 answers), answering
as "Answer for me" does, ``HORIZON`` times.

Measured per listener (comparisons counted as the explorer counts them, the random start
included): the comparison from which the smoothed measure stays below the threshold to
``HORIZON`` (``ei_settled``, None: not settled by then; as the verdict "settled from c" the
explorer shows after ``HORIZON`` answers), the comparison from which the incumbent (the best
setting so far) equals its value at ``HORIZON`` (``incumbent_settled``), the verdict the
explorer showed after ``COUNTS`` answers, the smoothed measure and the regret (the hidden
utility's maximum on the grid minus its value at the incumbent) then. Summarised per band
count: how many listeners settled, and how many had their incumbent stop moving, by each of
``COUNTS``, with exact (Clopper-Pearson) 95 % intervals; the trust sentence quotes those by
``SETTLED_BY`` comparisons. Counting unit: independent simulated listeners (listener i of a
band count draws everything from ``task_rng((n_bands, i), "explorer")``). Nothing is tuned:
the rule is the explorer's, fixed before this run, so every listener is held out.

These listeners answer as the model assumes (a smooth GP utility, Beta slider noise); a
person's answers need not, so the rates are a best case.
"""

from __future__ import annotations

import warnings

import numpy as np

from course_lib.linalg import JitterWarning
from course_lib.metrics import clopper_pearson_interval
from course_lib.results import load_result
from course_lib.simulators.personalisation import (N_RANDOM, SETTLING_WINDOW,
                                                   PersonalisationSession, hidden_listener)

from .common import REPLICATE_REASON, compare_replicates, run_experiment, task_rng

NAME = "personalise_explorer_settling"
BANDS = (2, 3, 4)
# 400 listeners per band count: an exact 95 % interval of at most +-5 points at any share
# (+-4.9 at 50 %); a session of 40 answers costs about 0.2-0.3 CPU-s
N_LISTENERS = 400
N_REDUCED = 10
SETTLED_BY = 30          # the count of comparisons the trust sentence quotes
HORIZON = 40             # answers per session: "settled" must hold from SETTLED_BY to here
COUNTS = (10, 20, 30, 40)
CONFIDENCE = 0.95
QUANTILES = (10, 25, 50, 75, 90)
TOLERANCE = None         # sequential sessions: compared per listener (compare_with_committed)
TOLERANCE_REASON = (
    "A reduced run repeats the full run's sessions for its listeners (every random number is "
    "keyed by band count and listener). " + REPLICATE_REASON + " The listeners of one band "
    "count are the replicates; 'not settled by the horizon' is compared as horizon + 1, so a "
    "flipped tie that moves a listener across it is judged by the same spread.")
# the old study-rule rates the explorer quoted before this experiment (nielsen2015_personalisation)
OLD_STUDY = "nielsen2015_personalisation"
DIFFERENCES = (
    "No source paper: the course's own measurement of its explorer. Nielsen et al. (2015) "
    "read convergence off the mean-bEI curve by eye and gave no threshold; the 0.02 (1 % of the "
    "utility's prior sd) is the course's. The listeners are the explorer's hidden listeners "
    "(GP utility with lengthscale 6 dB and variance 4, Beta slider with noise_sd 1 and "
    "concentration 8), close to what the model assumes (lengthscales from 5 dB, variance 4, "
    "Beta answers), so these rates are a best case for a person. 'Settled by c' needs the "
    "measure to stay settled to the horizon of 40 answers, as in nielsen2015_personalisation; "
    "what happens after 40 answers is not measured. That study's rates (10 random "
    "comparisons, no smoothing in 2-D, the mean bEI along ascent paths in 4-D, a -20..20 "
    "grid in 2-D and 0..80 dB in 4-D) are given beside ours under 'source'.")


def run_listener(n_bands: int, index: int) -> dict:
    """Listener ``index`` of ``n_bands`` bands tuning the explorer's session for ``HORIZON``
    answers, as "Answer for me" answers (module docstring)."""
    rng = task_rng((n_bands, index), "explorer")
    listener = hidden_listener(n_bands, rng=rng)            # as personalise_explorer builds it
    session = PersonalisationSession(n_bands, listener=listener, n_random=N_RANDOM, rng=rng)
    utility = listener.irf(session.grid)
    best = float(utility.max())
    incumbents, at = [], {}
    with warnings.catch_warnings():
        # duplicated settings (the incumbent in many pairs) need a little jitter: expected
        warnings.simplefilter("ignore", JitterWarning)
        for t in range(1, HORIZON + 1):
            session.answer_for_me()
            incumbents.append(session.incumbent.copy())
            if t in COUNTS:
                smoothed, settled = session.settling()
                at[str(t)] = {"verdict": None if settled is None else settled + 1,
                              "smoothed_measure": float(smoothed[-1]),
                              "regret": best - float(listener.irf(session.incumbent[None, :])[0])}
    _, settled = session.settling()
    incumbents = np.array(incumbents)
    moved = np.flatnonzero(np.any(incumbents != incumbents[-1], axis=1))
    return {"n_bands": n_bands, "listener": index,
            "ei_settled": None if settled is None else settled + 1,
            "incumbent_settled": 1 if moved.size == 0 else int(moved[-1]) + 2,
            "at": at, "utility_range": float(np.ptp(utility)),
            "n_failed_optimisations": session.n_failed_optimisations}


def _interval(k: int, n: int) -> list[float]:
    return list(clopper_pearson_interval(k, n, CONFIDENCE))


def _by(values: list, n: int) -> dict:
    """How many of ``values`` (a comparison, None = not by the horizon) are <= each count."""
    counts = {str(c): sum(v is not None and v <= c for v in values) for c in COUNTS}
    return {"count_by": counts, "share_by": {c: k / n for c, k in counts.items()},
            "interval_by": {c: _interval(k, n) for c, k in counts.items()}}


def summarise(listeners: list[dict]) -> dict:
    """Per band count: settled and stopped-moving counts by each of ``COUNTS`` with their exact
    intervals, the verdicts shown and whether they held, the regret."""
    out = {}
    for n_bands in sorted({row["n_bands"] for row in listeners}):
        rows = [row for row in listeners if row["n_bands"] == n_bands]
        n = len(rows)
        ei = [row["ei_settled"] for row in rows]
        moved = [row["incumbent_settled"] for row in rows]
        settled_ei = [v for v in ei if v is not None]
        group = {"n_listeners": n,
                 "ei_settled": {**_by(ei, n), "n_not_settled": n - len(settled_ei),
                                "median_comparison": (float(np.median(settled_ei))
                                                      if settled_ei else None)},
                 "incumbent_settled": {**_by(moved, n),
                                       "median_comparison": float(np.median(moved))}}
        # of the listeners whose measure settled by c, how many had their incumbent stopped
        group["incumbent_settled_given_ei_settled"] = {
            str(c): {"count": sum(e is not None and e <= c and m <= c
                                  for e, m in zip(ei, moved)),
                     "of": sum(e is not None and e <= c for e in ei)} for c in COUNTS}
        # what the explorer showed after c answers, and whether it still held at the horizon
        shown = {}
        for c in COUNTS:
            verdicts = [row["at"][str(c)]["verdict"] for row in rows]
            k = sum(v is not None for v in verdicts)
            held = sum(v is not None and v == e for v, e in zip(verdicts, ei))
            shown[str(c)] = {"count": k, "share": k / n, "interval": _interval(k, n),
                             "held_to_horizon": held}
        group["verdict_shown"] = shown
        group["regret"] = {str(c): {str(q): float(np.percentile(
            [row["at"][str(c)]["regret"] for row in rows], q)) for q in QUANTILES}
            for c in COUNTS}
        by = str(SETTLED_BY)
        split = {"settled": [row["at"][by]["regret"] for row in rows
                             if row["ei_settled"] is not None and row["ei_settled"] <= SETTLED_BY],
                 "not_settled": [row["at"][by]["regret"] for row in rows
                                 if row["ei_settled"] is None or row["ei_settled"] > SETTLED_BY]}
        group[f"median_regret_at_{by}"] = {key: float(np.median(v)) if v else None
                                           for key, v in split.items()}
        group["median_utility_range"] = float(np.median([row["utility_range"] for row in rows]))
        group["n_failed_optimisations"] = int(sum(row["n_failed_optimisations"] for row in rows))
        out[str(n_bands)] = group
    return out


def old_study_rates() -> dict:
    """The rates the explorer quoted before (the study's rule, nielsen2015_personalisation's
    regular listeners by 30 comparisons, 10 of them random): 2-D for two bands, 4-D for three
    and four."""
    summary = load_result(OLD_STUDY)["result"]["summary"]
    out = {}
    for study in ("2d", "4d"):
        regular = summary[study]["groups"]["regular"]
        n = regular["n_listeners"]
        out[study] = {"n_listeners": n, **{
            kind: {"count": round(regular[kind]["share_by_30_comparisons"] * n),
                   "interval": _interval(round(regular[kind]["share_by_30_comparisons"] * n), n)}
            for kind in ("ei_settled", "incumbent_settled")}}
    return out


def run(reduced: bool) -> dict:
    size = N_REDUCED if reduced else N_LISTENERS
    listeners = [run_listener(n_bands, i) for n_bands in BANDS for i in range(size)]
    rules = {str(n_bands): PersonalisationSession(n_bands, n_random=N_RANDOM, rng=0).settling_rule
             for n_bands in BANDS}
    return {"title": __doc__.splitlines()[0],
            "settings": {"bands": list(BANDS), "listeners_per_band_count": size,
                         "settled_by": SETTLED_BY, "horizon": HORIZON, "counts": list(COUNTS),
                         "rules": rules, "smoothing_window": SETTLING_WINDOW,
                         "n_random": N_RANDOM,
                         "listener": "course_lib.simulators.personalisation.hidden_listener: "
                                     "IRF a GP draw (SE, lengthscale 6 dB, variance 4, anchors "
                                     "every 6 dB), Beta slider (noise_sd 1, concentration 8)",
                         "answers": "PersonalisationSession.answer_for_me, one per comparison",
                         "rng": "task_rng((n_bands, listener), 'explorer'), shared by the "
                                "listener and the session as in personalise_explorer",
                         "settled": "ei_settled: first comparison from which the measure, "
                                    "smoothed over smoothing_window answers, stays below the "
                                    "rule's threshold to the horizon (settled_at; None: not "
                                    "by the horizon); incumbent_settled: first comparison from "
                                    "which the incumbent equals its value at the horizon; "
                                    "comparisons count the random start",
                         "tuned": "nothing (the rule is the explorer's): every listener is "
                                  "held out",
                         "confidence": CONFIDENCE, "quantiles": list(QUANTILES),
                         "comparison": TOLERANCE_REASON},
            "result": {"listeners": listeners, "summary": summarise(listeners)},
            "source": {"what": "no source paper: the rates the explorer's trust sentence "
                               "quotes, measured with the explorer's rule; beside them the "
                               "rates it quoted before, from the study's rule",
                       "study_rule": old_study_rates()},
            "differences": DIFFERENCES}


def _never_as_after_horizon(rows: list[dict]) -> list[dict]:
    def fixed(value):
        if isinstance(value, dict):
            return {key: (HORIZON + 1 if key in ("ei_settled", "verdict") and item is None
                          else fixed(item)) for key, item in value.items()}
        return value
    return [fixed(row) for row in rows]


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    """The reduced run's listeners against the same listeners of the full run, each number
    within the spread of its band count's listeners (``TOLERANCE_REASON``)."""
    return compare_replicates(_never_as_after_horizon(reduced["listeners"]),
                              _never_as_after_horizon(committed["listeners"]),
                              key=("n_bands", "listener"), replicate="listener")


def _percent(k: int, n: int) -> str:
    low, high = clopper_pearson_interval(k, n, CONFIDENCE)
    return f"{k}/{n} = {k / n:.2f} ({low:.2f}-{high:.2f})"


def format_table(document: dict) -> str:
    """Per band count: settled by 10 / 20 / 30 comparisons, the incumbent stopped by 30, the
    verdict shown at 30 and how often it held; the study-rule rates quoted before beside."""
    summary, old = document["result"]["summary"], document["source"]["study_rule"]
    by = str(SETTLED_BY)
    lines = ["| bands | listeners | measure settled by 10 / 20 comparisons | measure settled by "
             f"{by} (95% exact interval) | best setting stopped moving by {by} | "
             f"\"settled\" shown at {by}, held to {HORIZON} | median regret at {by}: settled / "
             f"not (utility range) | quoted before (study's rule, 10 random first): settled; "
             "stopped |",
             "|---|---|---|---|---|---|---|---|"]
    for bands, group in summary.items():
        n = group["n_listeners"]
        ei, moved = group["ei_settled"]["count_by"], group["incumbent_settled"]["count_by"]
        shown = group["verdict_shown"][by]
        regret = group[f"median_regret_at_{by}"]
        study = old["2d" if bands == "2" else "4d"]
        m = study["n_listeners"]
        lines.append(
            f"| {bands} | {n} | {ei['10'] / n:.2f} / {ei['20'] / n:.2f} | "
            f"{_percent(ei[by], n)} | {_percent(moved[by], n)} | "
            f"{shown['count']}/{n}, {shown['held_to_horizon']}/{shown['count']} held | "
            + " / ".join("-" if regret[k] is None else f"{regret[k]:.2f}"
                         for k in ("settled", "not_settled"))
            + f" ({group['median_utility_range']:.2f}) | "
              f"{_percent(study['ei_settled']['count'], m)}; "
              f"{_percent(study['incumbent_settled']['count'], m)} |")
    return "\n".join(lines)


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, None, TOLERANCE, argv,
                          format_table, compare=compare_with_committed)


if __name__ == "__main__":
    main()
