"""Frozen reference values from BoTorch's PairwiseGP for the course's Laplace preference GP.

BoTorch needs torch, which the course does not depend on, so this script runs ONCE in a
throw-away virtual environment and writes ``tests/reference/botorch_pairwise_gp.json``; the
tests (``tests/preference/test_preference_gp.py``) and ``bench/bench_preference.py`` read that file. It
imports neither course_lib nor anything of the course, only numpy, torch, gpytorch and botorch:

    python3 -m venv /tmp/botorchvenv
    /tmp/botorchvenv/bin/pip install torch==2.13.0      # the CPU build, 2.13.0+cpu
    /tmp/botorchvenv/bin/pip install botorch gpytorch   # botorch 0.18.1, gpytorch 1.15.2
    /tmp/botorchvenv/bin/python tools/make_botorch_pairwise_reference.py

What is recorded, per problem (inputs in the file, so both sides see the same numbers):
* ``utility``: f_MAP at the items, with BoTorch's clamp of z to [-3, 3] DISABLED (a subclass
  with a huge ``_zlim``): the clamp changes the model for confident data;
* ``utility_clamped``: the same with BoTorch's default clamp, to show what it changes;
* ``log_evidence``: ``PairwiseLaplaceMarginalLogLikelihood`` (no hyper-priors), i.e.
  sum log Phi(z / sqrt 2) - 1/2 f^T K^-1 f - 1/2 log det(I + K W) at the mode;
* ``gradient``: d log_evidence / d (log lengthscale, log outputscale) by autograd through
  BoTorch's two Newton steps at the mode (which carry the implicit dependence of the mode);
* ``test_mean``, ``test_variance``: the posterior of the utility at test inputs.
Conventions: BoTorch's probit is Phi((f_winner - f_loser) / sqrt 2) = the course's
PairwiseProbit(noise_sd=1) with first = winner, y = 1; its ScaleKernel(RBFKernel) is
outputscale * exp(-r^2 / (2 lengthscale^2)) = the course's SquaredExponential(lengthscale,
variance=outputscale). No jitter is added by BoTorch for these well-conditioned kernel matrices
(it adds 1e-6 only when a Cholesky fails); the script checks that.

Timing (``timing``): BoTorch's fit at fixed hyper-parameters (constructing PairwiseGP = finding
the Laplace mode; the default clamp on, as a user runs it) for the benchmark workloads of
``bench/bench_preference.py`` (a grid [-20, 20]^2 of step 1, 10 / 30 / 60 random comparisons
answered by a simulated listener), one thread, median of repeated runs after a warm-up.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import gpytorch  # noqa: E402
import botorch  # noqa: E402
from botorch.models.likelihoods.pairwise import PairwiseProbitLikelihood  # noqa: E402
from botorch.models.pairwise_gp import (PairwiseGP,  # noqa: E402
                                        PairwiseLaplaceMarginalLogLikelihood)
from gpytorch.kernels import RBFKernel, ScaleKernel  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "reference" / "botorch_pairwise_gp.json"
torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


class UnclampedProbit(PairwiseProbitLikelihood):
    """BoTorch's probit without its clamp of z to [-3, 3] (the exact model)."""

    _zlim = 1e300


def kernel(lengthscale, outputscale, dim):
    k = ScaleKernel(RBFKernel(ard_num_dims=dim))
    k.base_kernel.lengthscale = torch.full((1, dim), float(lengthscale))
    k.outputscale = torch.tensor(float(outputscale))
    return k


def fit(X, winners, losers, lengthscale, outputscale, clamp):
    comparisons = torch.tensor(np.column_stack([winners, losers]), dtype=torch.long)
    likelihood = PairwiseProbitLikelihood() if clamp else UnclampedProbit()
    np.random.seed(0)  # BoTorch's starting point draws from numpy's global generator
    return PairwiseGP(torch.tensor(X), comparisons, likelihood=likelihood,
                      covar_module=kernel(lengthscale, outputscale, X.shape[1]))


def evidence_and_gradient(model):
    """Laplace log evidence and its gradient in (log lengthscale, log outputscale)."""
    model.train()
    mll = PairwiseLaplaceMarginalLogLikelihood(model.likelihood, model)
    output = model(model.unconsolidated_datapoints)
    value = mll(output, model.unconsolidated_comparisons)
    covar = model.covar_module
    raws = [covar.base_kernel.raw_lengthscale, covar.raw_outputscale]
    grads = torch.autograd.grad(value, raws)
    naturals = [covar.base_kernel.lengthscale, covar.outputscale]
    gradient = []
    for raw, natural, grad, constraint in zip(
            raws, naturals, grads,
            [covar.base_kernel.raw_lengthscale_constraint, covar.raw_outputscale_constraint]):
        raw_leaf = raw.detach().clone().requires_grad_(True)
        transformed = constraint.transform(raw_leaf)
        (dnatural_draw,) = torch.autograd.grad(transformed.sum(), raw_leaf)
        # d/dlog theta = theta * d/dtheta = theta * (d/draw) / (dtheta/draw); all lengthscales
        # share one value here, so their derivatives add up (one isotropic lengthscale)
        per_entry = natural.detach() * grad / dnatural_draw
        gradient.append(float(per_entry.sum()))
    model.eval()
    return float(value.detach()), gradient


def problem(name, rng, n_items, n_comparisons, dim, lengthscale, outputscale, n_test=5):
    X = rng.uniform(-1.5, 1.5, (n_items, dim))
    truth = np.sin(2.0 * X[:, 0]) + (X[:, 1] if dim > 1 else 0.0)
    first = rng.integers(0, n_items, n_comparisons)
    second = (first + rng.integers(1, n_items, n_comparisons)) % n_items
    noisy = truth[first] - truth[second] + 0.3 * rng.standard_normal(n_comparisons)
    winners = np.where(noisy > 0, first, second)
    losers = np.where(noisy > 0, second, first)
    X_test = rng.uniform(-1.5, 1.5, (n_test, dim))
    model = fit(X, winners, losers, lengthscale, outputscale, clamp=False)
    K = model.covar_module(torch.tensor(X)).to_dense().detach().numpy()
    assert np.allclose(model.covar.detach().numpy(), K, rtol=0, atol=1e-14), "jitter was added"
    assert model.datapoints.shape[0] == n_items, "BoTorch merged items"
    log_evidence, gradient = evidence_and_gradient(model)
    posterior = model.posterior(torch.tensor(X_test))
    clamped = fit(X, winners, losers, lengthscale, outputscale, clamp=True)
    utility = model.utility.detach().numpy()
    z = (utility[winners] - utility[losers]) / np.sqrt(2.0)
    return {
        "name": name, "X": X.tolist(), "winners": winners.tolist(), "losers": losers.tolist(),
        "lengthscale": lengthscale, "outputscale": outputscale, "X_test": X_test.tolist(),
        "utility": utility.tolist(),
        "utility_clamped": clamped.utility.detach().numpy().tolist(),
        "largest_abs_z_over_sqrt2": float(np.abs(z).max()),
        "log_evidence": log_evidence, "gradient_log_lengthscale_log_outputscale": gradient,
        "test_mean": posterior.mean.detach().numpy().ravel().tolist(),
        "test_variance": posterior.variance.detach().numpy().ravel().tolist(),
    }


# ----- benchmark workloads (shared with bench/bench_preference.py through this file) ----------
GRID_STEP, GRID_HALF_WIDTH = 1.0, 20.0
BENCH_SIZES = (10, 30, 60)
BENCH_LENGTHSCALE, BENCH_OUTPUTSCALE = 8.0, 4.0


def listener_utility(X):
    """A smooth internal response with its best setting at (6, -4)."""
    return 4.0 * np.exp(-((X[:, 0] - 6.0) ** 2 + (X[:, 1] + 4.0) ** 2) / (2 * 10.0 ** 2))


def bench_workload(rng, n_comparisons):
    """Random pairs of distinct grid settings, answered by a probit listener (sigma = 1)."""
    ticks = np.arange(-GRID_HALF_WIDTH, GRID_HALF_WIDTH + GRID_STEP / 2, GRID_STEP)
    grid = np.array(np.meshgrid(ticks, ticks)).reshape(2, -1).T
    picks = np.array([rng.choice(grid.shape[0], 2, replace=False) for _ in range(n_comparisons)])
    X_first, X_second = grid[picks[:, 0]], grid[picks[:, 1]]
    z = listener_utility(X_first) - listener_utility(X_second)
    y = (z + np.sqrt(2.0) * rng.standard_normal(n_comparisons) > 0).astype(float)
    return X_first, X_second, y


def botorch_fit_time(X_first, X_second, y, repeats):
    # BoTorch wants distinct datapoints and [winner, loser] index pairs
    points, index = np.unique(np.vstack([X_first, X_second]), axis=0, return_inverse=True)
    index = index.ravel()
    m = X_first.shape[0]
    first, second = index[:m], index[m:]
    winners = np.where(y == 1, first, second)
    losers = np.where(y == 1, second, first)
    run = lambda: fit(points, winners, losers, BENCH_LENGTHSCALE,  # noqa: E731
                      BENCH_OUTPUTSCALE, clamp=True)
    run()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), int(points.shape[0])


def main():
    rng = np.random.default_rng(20240611)
    problems = [problem("2-D, 10 items, 15 comparisons", rng, 10, 15, 2, 0.8, 2.0),
                problem("1-D, 6 items, 12 comparisons", rng, 6, 12, 1, 0.6, 1.0),
                problem("2-D, 12 items, 30 comparisons, confident (|z| > 3)", rng, 12, 30, 2,
                        1.0, 25.0)]
    bench_rng = np.random.default_rng(7)
    timing = []
    for m in BENCH_SIZES:
        X_first, X_second, y = bench_workload(bench_rng, m)
        seconds, n_items = botorch_fit_time(X_first, X_second, y, repeats=15)
        timing.append({"n_comparisons": m, "n_items": n_items, "X_first": X_first.tolist(),
                       "X_second": X_second.tolist(), "y": y.tolist(),
                       "botorch_fit_seconds": seconds})
    record = {
        "generated_by": "tools/make_botorch_pairwise_reference.py",
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "torch": torch.__version__, "gpytorch": gpytorch.__version__,
                     "botorch": botorch.__version__},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch threads "
                   f"{torch.get_num_threads()}",
        "convention": "BoTorch Phi((f_w - f_l)/sqrt 2) = course PairwiseProbit(noise_sd=1), "
                      "first = winner, y = 1; ScaleKernel(RBF) = SquaredExponential("
                      "lengthscale, variance=outputscale)",
        "problems": problems,
        "bench": {"lengthscale": BENCH_LENGTHSCALE, "variance": BENCH_OUTPUTSCALE,
                  "noise_sd": 1.0, "grid_step": GRID_STEP, "grid_half_width": GRID_HALF_WIDTH,
                  "timing": timing},
    }
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT} ({sys.argv[0]})")
    for p in problems:
        print(p["name"], "evidence", p["log_evidence"], "max |z|/sqrt2",
              p["largest_abs_z_over_sqrt2"])
    for t in timing:
        print(t["n_comparisons"], "comparisons,", t["n_items"], "items: BoTorch fit",
              f"{t['botorch_fit_seconds'] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
