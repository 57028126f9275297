"""The cost of repeating inputs: fit time of the joint model against the repeated-input GP.

Every one of R raters scores every one of N items. The joint model conditions on the N item
means (an N x N kernel matrix and its Cholesky factor); the repeated-input GP, the same model
(tests/raters/test_multi_rater.py), puts every label at its item's input (an NR x NR matrix). The
factorisation alone costs R^3 times as many flops, building the kernel matrix R^2 times as many.
This script times ``MultiRaterGP(...).fit(X, data)`` at fixed hyper-parameters (kernel matrix +
Cholesky) for both models over a grid of N and R, one BLAS thread, alternating joint and
repeated rounds after one warm-up call each, and writes ``experiments/results/repeat_cost.json``
for the lecture's "cost of repeating inputs" explorer, which plots the measured speed-up against
the R^3 curve.

Timings depend on the machine and on what else runs on it: the file records the machine, the
load average before and after the run and the median of ``repeats`` rounds. There is no reduced
run to compare with (times are not reproducible values); re-run the script to measure again.

Run from the repository root: ``.venv/bin/python -m experiments.repeat_cost``
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from course_lib.gp import SquaredExponential
from course_lib.rater_data import RaterData
from course_lib.raters import MultiRaterGP

from .common import REPOSITORY, write_result

NAME = "repeat_cost"
ITEMS = (50, 100, 200, 400)
RATERS = (1, 2, 3, 4, 5, 6, 8)
REPEATS = 9
N_DIMS, VARIANCE, LENGTHSCALE, NOISE = 3, 1.0, 1.2, 0.5


def panel(n_items: int, n_raters: int, rng: np.random.Generator):
    X = rng.uniform(-2, 2, (n_items, N_DIMS))
    truth = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2]
    scores = truth[:, None] + np.sqrt(NOISE) * rng.standard_normal((n_items, n_raters))
    return X, RaterData.from_matrix(scores)


def fit_times(n_items: int, n_raters: int, repeats: int) -> dict:
    """Median wall and CPU times of the two fits and the medians of the per-round ratios."""
    X, data = panel(n_items, n_raters, np.random.default_rng([n_items, n_raters]))
    fits = {mode: (lambda mode=mode: MultiRaterGP(SquaredExponential(LENGTHSCALE, VARIANCE),
                                                  NOISE, mode=mode).fit(X, data))
            for mode in ("joint", "repeated")}
    for fit in fits.values():
        fit()  # warm-up: first-touch memory, lazy imports
    wall = {mode: [] for mode in fits}
    cpu = {mode: [] for mode in fits}
    for _ in range(repeats):
        for mode, fit in fits.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            fit()
            wall[mode].append(time.perf_counter() - start)
            cpu[mode].append(time.process_time() - start_cpu)
    measured = {}
    for clock, times in (("", wall), ("_cpu", cpu)):
        measured["joint" + clock] = statistics.median(times["joint"])
        measured["repeated" + clock] = statistics.median(times["repeated"])
        measured["speedup" + clock] = statistics.median(
            r / j for r, j in zip(times["repeated"], times["joint"]))
    return measured


def run(items=ITEMS, raters=RATERS, repeats=REPEATS) -> dict:
    load_before = os.getloadavg()
    keys = ("joint", "repeated", "speedup", "joint_cpu", "repeated_cpu", "speedup_cpu")
    table = {key: np.zeros((len(items), len(raters))) for key in keys}
    with threadpool_limits(limits=1):
        for a, n_items in enumerate(items):
            for b, n_raters in enumerate(raters):
                measured = fit_times(n_items, n_raters, repeats)
                for key, value in measured.items():
                    table[key][a, b] = value
                print(f"N={n_items:4d} R={n_raters}: joint {measured['joint'] * 1e3:8.2f} ms, "
                      f"repeated {measured['repeated'] * 1e3:8.2f} ms, speed-up "
                      f"{measured['speedup']:6.1f} (CPU times {measured['speedup_cpu']:6.1f}; "
                      f"R^3 = {n_raters ** 3})")
    return {
        "title": "The cost of repeating inputs: fit time, joint model vs repeated-input GP",
        "settings": {
            "items": list(items), "raters": list(raters), "repeats": repeats,
            "timed": "MultiRaterGP(kernel, noise_variance, mode).fit(X, data) at fixed "
                     "hyper-parameters: kernel matrix + Cholesky (N x N joint, NR x NR repeated)",
            "design": "every rater scores every item; alternating joint/repeated rounds after "
                      "one warm-up call each; medians of the times and of the per-round ratios "
                      "repeated / joint, for wall-clock and for CPU time (single-threaded: a "
                      "busy shared machine disturbs the CPU time less)",
            "kernel": {"name": "SquaredExponential", "lengthscale": LENGTHSCALE,
                       "variance": VARIANCE},
            "noise_variance": NOISE, "input_dimensions": N_DIMS,
            "blas_threads": 1,
            "inputs": "uniform on [-2, 2]^3; scores sin(x0) + x1 x2 / 2 + N(0, noise), one "
                      "generator per (N, R) seeded with [N, R]",
            "load_average_before": list(load_before),
            "load_average_after": list(os.getloadavg()),
        },
        "result": {
            "joint_seconds": table["joint"], "repeated_seconds": table["repeated"],
            "speedup": table["speedup"],
            "joint_cpu_seconds": table["joint_cpu"], "repeated_cpu_seconds": table["repeated_cpu"],
            "speedup_cpu": table["speedup_cpu"],
            "flop_limit_factorisation": [r ** 3 for r in raters],
            "flop_limit_kernel": [r ** 2 for r in raters],
            "layout": "rows follow settings.items (N), columns settings.raters (R)",
        },
        "source": {
            "paper": "Multiple output samples per input in a single-output Gaussian process "
                     "(arXiv 2306.02719v2, 2024), Table 1, inference time",
            "inference_time_s": {"GP_base": [136, 3], "GP_repeat": [8476, 510],
                                 "GP_joint": [138, 4]},
            "speedup_repeat_over_joint": 61.4,
            "setting": "N = 2500 test utterances, R = 5 raters, 10 repetitions, NumPy "
                       "pseudo-inverse, 48-core Xeon Platinum 8268, time summed over threads",
        },
        "differences": (
            "The seed times inference on its whole test set with numpy's pseudo-inverse (an SVD) "
            "on 48 cores; we time the fit (kernel matrix + Cholesky) at fixed hyper-parameters "
            "with one BLAS thread on small N, where the kernel matrix (R^2 times the work) and "
            "fixed costs weigh more than the factorisation (R^3). bench/bench_raters.py measures "
            "N = 500..2500 at R = 5, including the gradient and prediction."),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(prog=f"python -m experiments.{NAME}",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    options = parser.parse_args(argv)
    start = time.perf_counter()
    document = run(repeats=options.repeats)
    elapsed = time.perf_counter() - start
    path = write_result(NAME, run_time_seconds=elapsed, **document)
    print(f"wrote {path.relative_to(REPOSITORY)} ({elapsed:.0f} s)")


if __name__ == "__main__":
    main()
