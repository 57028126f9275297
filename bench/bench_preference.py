"""Unit 6 benchmark: the Laplace fit of the preference GP, cold and warm, against BoTorch.

Workload (the interactive loop of Nielsen, Nielsen & Larsen 2015): settings on the grid [-20, 20]^2
with step 1, 10 / 30 / 60 random comparisons of two settings answered by a simulated probit
listener; SE kernel with lengthscale 8 and variance 4, PairwiseProbit(noise_sd=1), hyper-parameters
fixed.
The comparisons and BoTorch's fit times come from tests/reference/botorch_pairwise_gp.json,
written by tools/make_botorch_pairwise_reference.py in a throw-away environment with torch (the
course does not depend on torch): BoTorch's PairwiseGP built at fixed hyper-parameters (= its
Laplace mode: scipy fsolve from win counts, then two torch Newton steps), one thread, median of
15 after a warm-up. That figure is RECORDED, not timed alternately with ours (the harness's
rule cannot hold across two environments), so the ratio is only indicative.

Ours, one thread, median of ``--repeats`` after a warm-up (bench/harness.py):
* cold: a new PreferenceGP fitted to the m comparisons (kernel matrix, M, Newton from f = 0,
  the LatentGaussian);
* warm: the refit of the interactive loop, i.e. a model fitted to the first m - 1 comparisons
  then fitted to all m (Newton starts from the old weights, 0 for a new setting).

One step of the interactive loop (goal < 0.3 s on this machine, median of ``--repeats``):
the warm refit above after one more comparison, then bEI against the incumbent over the
whole 1681-point grid and its polish, i.e. ``maximise_acquisition(X_grid=grid)`` (one
predictive solve for the grid, then L-BFGS-B from the ``POLISH_STARTS`` best grid points).
Run: .venv/bin/python bench/bench_preference.py [--repeats 30]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.gp import SquaredExponential
from course_lib.preference import (Comparisons, DisconnectedComparisonsWarning, PairwiseProbit,
                                   PreferenceGP)
from course_lib.preference.acquisition import maximise_acquisition  # noqa: E402
from course_lib.simulators.listeners import settings_grid  # noqa: E402

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "reference" / \
    "botorch_pairwise_gp.json"
STEP_GOAL_SECONDS = 0.3
POLISH_STARTS = 3  # L-BFGS-B polishes from the best few grid points


def comparisons(X_first, X_second, y):
    with warnings.catch_warnings():   # random pairs on a big grid: many components, expected
        warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
        return Comparisons.from_pairs(X_first, X_second, y)


def bench_size(workload, setting, repeats):
    X_first, X_second = np.array(workload["X_first"]), np.array(workload["X_second"])
    y = np.array(workload["y"])
    m = y.size
    data, previous = comparisons(X_first, X_second, y), comparisons(X_first[:-1],
                                                                   X_second[:-1], y[:-1])

    def model():
        return PreferenceGP(SquaredExponential(setting["lengthscale"], setting["variance"]),
                            PairwiseProbit(setting["noise_sd"]))

    cold_model = model().fit(data)
    before = model().fit(previous)
    warm_model = copy.copy(before).fit(data)
    difference = np.abs(cold_model.laplace.f_hat - warm_model.laplace.f_hat).max()
    cold, _ = harness.median_time(lambda: model().fit(data), repeats)
    warm, _ = harness.median_time(lambda: copy.copy(before).fit(data), repeats)
    botorch = workload["botorch_fit_seconds"]
    print(f"m = {m} comparisons, n = {data.n_items} items ({cold_model.laplace.form} form): "
          f"cold {cold * 1e3:.2f} ms ({cold_model.laplace.n_iter} Newton steps), warm "
          f"{warm * 1e3:.2f} ms ({warm_model.laplace.n_iter} steps; modes agree to "
          f"{difference:.1e}), BoTorch recorded {botorch * 1e3:.2f} ms "
          f"(n = {workload['n_items']})")
    harness.print_ratio(f"laplace_fit_cold_vs_botorch_recorded m={m}", cold / botorch)
    harness.print_ratio(f"laplace_fit_warm_vs_cold m={m}", warm / cold)
    grid = settings_grid(-setting["grid_half_width"], setting["grid_half_width"],
                         setting["grid_step"], 2)
    bounds = np.column_stack([grid.min(axis=0), grid.max(axis=0)])

    def loop_step():
        fitted = copy.copy(before).fit(data)
        return maximise_acquisition(fitted, bounds, X_grid=grid, n_restarts=POLISH_STARTS)

    step, chosen = harness.median_time(loop_step, repeats)
    print(f"  one loop step on the {grid.shape[0]}-point grid: {step * 1e3:.1f} ms (refit + "
          f"bEI + polish from {POLISH_STARTS} grid points; next query {chosen.x})")
    harness.print_ratio(f"interactive_step_vs_goal m={m}", step / STEP_GOAL_SECONDS, goal=1.0)
    return {"m": m, "n": data.n_items, "cold": cold, "warm": warm, "botorch": botorch,
            "cold_steps": cold_model.laplace.n_iter, "warm_steps": warm_model.laplace.n_iter,
            "step": step, "grid": grid.shape[0]}


def main(repeats):
    reference = json.loads(REFERENCE.read_text())
    setting = reference["bench"]
    print(f"BoTorch figures recorded with {reference['versions']} on {reference['machine']}")
    rows = [bench_size(workload, setting, repeats) for workload in setting["timing"]]
    print("\n| m | n | ours cold | Newton steps | ours warm | steps | BoTorch (recorded) | "
          "cold / BoTorch |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['m']} | {r['n']} | {r['cold'] * 1e3:.2f} ms | {r['cold_steps']} | "
              f"{r['warm'] * 1e3:.2f} ms | {r['warm_steps']} | {r['botorch'] * 1e3:.2f} ms | "
              f"{r['cold'] / r['botorch']:.2f} |")
    print("\n| m | one interactive step (refit + bEI on the grid + polish) | goal |")
    print("|---|---|---|")
    for r in rows:
        print(f"| {r['m']} | {r['step'] * 1e3:.1f} ms ({r['grid']} grid points) | "
              f"< {STEP_GOAL_SECONDS * 1e3:.0f} ms |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    with harness.one_thread():
        main(args.repeats)
