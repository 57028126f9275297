"""Why the norm ball defeats the "none" arm and why the pseudo-data arm's F1 falls (E7.1 / E7.1b).

Wu et al.'s level-set study (``wu2025_levelset``) gives, on the norm ball f = 2 ||x||, an
unconstrained arm ("none") that never finds the 75 % set and a pseudo-data arm whose F1 falls
during the active trials. Before its ordering (mixed > pseudo > none) is read as the paper's, this
script looks inside the committed sessions: it replays each one's model at the report trials
(10, 20, ..., 50 answers) from the queries and answers the committed result stores, and records
what the model believes and where the queries went.

The replay is exact, not a re-run: a session's kernel changes only at its MAP-II trials (the
10th answer and every 10th after it), which are the report trials, and every other fit starts
afresh from that kernel; so fitting the first n committed answers at each report trial n, with
the previous report trial's kernel, rebuilds the session's model there. The replayed F1 is
recorded beside the committed one (``f1_committed``) as the check.

Per session and report trial (``sessions[*].trials``): F1, the estimated set's volume (share of
the scoring points with posterior mean below the threshold) against the true one, precision and
recall, the posterior mean and sd of the latent at the origin (the centre of the ball, where the
truth is f = 0, P(yes) = 1/2), the largest P(f(x) < threshold) over the scoring points, the
kernel's hyper-parameters, and the share of "no" answers so far. Per session: the distance of
the active queries from the origin (10th, 50th, 90th percentile) and the share of them inside
the true set. ``summary`` averages these over the seeds per problem, acquisition, arm and trial.
``reference`` gives what the truth implies: the share of "no" answers a uniform trial would get,
in the whole box and inside the set.

Problem: ``norm_ball_2d`` (from ``wu2025_levelset``, every seed, arm and acquisition). The
reduced run replays seed 0.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy.special import ndtr
from scipy.stats import qmc

from course_lib.results import load_result
from course_lib.simulators.levelset_session import LevelSetSession
from course_lib.simulators.psychophysics import norm_ball_problem

from . import wu2025_levelset as levelset
from .common import REPLICATE_REASON, compare_replicates, run_experiment, task_rng

NAME = "wu2025_levelset_diagnosis"
# problem -> (the committed result it replays, its dimension). The 4-D ball's sessions
# (wu2025_levelset_4d) could be replayed the same way; they were not, for the machine's
# budget (a 4-D replay costs about as much as the 2-D one's twenty seeds).
SOURCES = {"norm_ball_2d": ("wu2025_levelset", 2)}
REDUCED_SEEDS = (0,)
N_REFERENCE = 2 ** 16
TOLERANCE = 1e-6
TOLERANCE_REASON = (
    "The reduced run replays seed 0's sessions exactly as the full run does (the same committed "
    "queries and answers, the same fits). " + REPLICATE_REASON)
NOT_COMPARED = ("cpu_seconds",)
TRIAL_FIELDS = ("f1", "estimated_volume", "precision", "recall", "mean_at_origin",
                "sd_at_origin", "largest_p_in_set", "no_share")


def _session(problem, name: str, entry: dict, n_test: int) -> LevelSetSession:
    """A session built exactly as ``run_levelset_session`` builds the committed one (its rng
    is the first of the two streams the committed run drew from the seed's key)."""
    session_seed = int(task_rng(entry["seed"], f"session/{name}").integers(2 ** 63, size=2)[0])
    return LevelSetSession(problem, arm=entry["arm"], acquisition=entry["acquisition"],
                           n_initial=levelset.N_INITIAL, n_candidates=levelset.N_CANDIDATES,
                           n_references=levelset.N_REFERENCES,
                           optimise_every=levelset.OPTIMISE_EVERY,
                           map_max_iter=levelset.MAP_MAX_ITER, polish=levelset.POLISH,
                           n_test=n_test, rng=session_seed)


def replay(problem, name: str, entry: dict, n_test: int) -> dict:
    """One committed session's model and queries at the report trials (module docstring)."""
    start = time.process_time()
    session = _session(problem, name, entry, n_test)
    U = qmc.Sobol(problem.dim, rng=0).random_base2(int(np.log2(n_test)))  # f1_levelset's points
    inside = problem.unit_latent(U) < session.threshold
    origin = problem.to_unit(np.zeros((1, problem.dim)))
    X_unit = problem.to_unit(np.array(entry["X"]))
    answers = np.array(entry["answers"], dtype=float)
    trials = []
    for n in levelset.REPORT_TRIALS:
        model, kernel, _ = session._fitted(X_unit[:n], answers[:n])
        session.kernel = kernel
        mean, var = model.predict(U)
        estimated = mean < session.threshold
        tp = int(np.sum(estimated & inside))
        fp, fn = int(np.sum(estimated & ~inside)), int(np.sum(~estimated & inside))
        mean_0, var_0 = model.predict(origin)
        trials.append({
            "n_trials": n, "f1": 2 * tp / (2 * tp + fp + fn),
            "f1_committed": entry["f1"][list(entry["n_trials"]).index(n)],
            "estimated_volume": float(estimated.mean()),
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn),
            "mean_at_origin": float(mean_0[0]), "sd_at_origin": float(np.sqrt(var_0[0])),
            "largest_p_in_set": float(ndtr((session.threshold - mean) / np.sqrt(var)).max()),
            "kernel": dict(zip(kernel.param_names, np.exp(kernel.theta).tolist())),
            "no_share": float(1.0 - answers[:n].mean())})
    active = np.array(entry["X"])[levelset.N_INITIAL:]
    distance = np.linalg.norm(active, axis=1)
    return {"seed": entry["seed"], "arm": entry["arm"], "acquisition": entry["acquisition"],
            "trials": trials,
            "query_distance_percentiles": np.percentile(distance, [10, 50, 90]).tolist(),
            "queries_in_true_set": float(np.mean(problem.in_level_set(active))),
            "cpu_seconds": time.process_time() - start}


def reference(problem) -> dict:
    """What the truth implies for uniform trials: the share of "no" answers in the box and in
    the 75 % set, and the true set's volume (2^16 Sobol points)."""
    X = problem.from_unit(qmc.Sobol(problem.dim, rng=0).random_base2(16))
    p_no = 1.0 - problem.answer_probability(X)
    inside = problem.in_level_set(X)
    return {"true_volume": float(inside.mean()), "no_share_box": float(p_no.mean()),
            "no_share_in_set": float(p_no[inside].mean()),
            "no_share_outside_set": float(p_no[~inside].mean())}


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def summarise(sessions: list[dict]) -> dict:
    """Per acquisition, arm and report trial: the means over the seeds (``empty_set_share``: the
    share of seeds whose estimated set is empty); per acquisition and arm: the query
    statistics' means."""
    out = {}
    for acquisition in levelset.ACQUISITIONS:
        out[acquisition] = {}
        for arm in levelset.ARMS:
            chosen = [s for s in sessions if s["arm"] == arm and s["acquisition"] == acquisition]
            by_trial = {}
            for k, n in enumerate(levelset.REPORT_TRIALS):
                rows = [s["trials"][k] for s in chosen]
                by_trial[str(n)] = {
                    **{field: _mean(r[field] for r in rows) for field in TRIAL_FIELDS},
                    "empty_set_share": float(np.mean([r["estimated_volume"] == 0
                                                      for r in rows])),
                    "signal_variance": _mean(r["kernel"]["se.variance"] for r in rows)}
            out[acquisition][arm] = {
                "n_seeds": len(chosen), "trials": by_trial,
                "median_query_distance": _mean(s["query_distance_percentiles"][1]
                                               for s in chosen),
                "queries_in_true_set": _mean(s["queries_in_true_set"] for s in chosen)}
    return out


def run(reduced: bool) -> dict:
    result = {}
    for name, (source, dim) in SOURCES.items():
        committed = load_result(source)
        problem = norm_ball_problem(dim)
        n_test = committed["settings"]["n_test"]
        entries = [s for s in committed["result"][name]["sessions"] if "failed" not in s
                   and (not reduced or s["seed"] in REDUCED_SEEDS)]
        sessions = [replay(problem, name, entry, n_test) for entry in entries]
        result[name] = {"source": source, "n_test": n_test, "reference": reference(problem),
                        "sessions": sessions}
        if not reduced:
            result[name]["summary"] = summarise(sessions)
    return {
        "title": "Wu et al. (2025), the norm ball: what the unconstrained and pseudo-data models "
                 "believe",
        "settings": {"replays": {name: source for name, (source, _) in SOURCES.items()},
                     "report_trials": levelset.REPORT_TRIALS,
                     "reduced_seeds": REDUCED_SEEDS, "tolerance": TOLERANCE,
                     "tolerance_reason": TOLERANCE_REASON},
        "result": result,
        "source": {"paper": levelset.SOURCE["paper"],
                   "numbers": {"threshold": "Phi^-1(0.75) = 0.6745",
                               "sublevel_volume_checked": {"norm_ball_2d": 0.0893},
                               "pseudo_data": "5 yes + 5 no at a 50 % location, one yes near "
                                              "100 %"},
                   "claims": levelset.SOURCE["claims"]},
        "differences": (
            "A diagnosis of our own runs, not a reproduction: the seed shows no model internals. "
            "It replays the committed 2-D norm-ball sessions of wu2025_levelset with their "
            "settings, listed there; the origin is where the norm ball's truth is "
            "f = 0 (P(yes) = 1/2), the place every arm's prior knowledge speaks about."),
    }


def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    return reduced, committed


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    problems = []
    for name, entry in reduced.items():
        if name not in committed:
            problems.append(f"{name}: missing in the committed result")
            continue
        problems += compare_replicates(entry["sessions"], committed[name]["sessions"],
                                       key=("seed", "arm", "acquisition"), replicate="seed",
                                       skip=NOT_COMPARED, path=f"{name}/")
    return problems


def format_table(document: dict) -> str:
    """Per problem, acquisition and arm at 10 / 30 / 50 trials: F1, the estimated set's
    volume, the posterior mean at the origin, the share of empty estimated sets; and where the
    active queries went."""
    shown = ("10", "30", "50")
    rows = ["| problem | acquisition | arm | F1 | estimated volume (true) | mean of f at the "
            "origin (truth 0, threshold 0.674) | empty estimated sets | share of answers "
            "'no' | active queries: median distance from the origin, share in the set |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name, entry in document["result"].items():
        true_volume = entry["reference"]["true_volume"]
        for acquisition, arms in entry["summary"].items():
            for arm, stats in arms.items():
                t = stats["trials"]

                def seq(field, fmt="{:.2f}"):
                    return " / ".join(fmt.format(t[n][field]) for n in shown)
                rows.append(
                    f"| {name} | {acquisition} | {arm} | {seq('f1')} | "
                    f"{seq('estimated_volume', '{:.3f}')} ({true_volume:.3f}) | "
                    f"{seq('mean_at_origin')} | {seq('empty_set_share')} | "
                    f"{seq('no_share')} | {stats['median_query_distance']:.2f}, "
                    f"{stats['queries_in_true_set']:.2f} |")
    return "\n".join(rows)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison, TOLERANCE,
                          argv, format_table=format_table, compare=compare_with_committed)


if __name__ == "__main__":
    main()
