"""Recorded timing of AEPsych's level-set active-learning trial, for bench/bench_levelset.py.

AEPsych 0.8.0 pins numpy < 2, scipy == 1.14.1 and botorch == 0.12.0 and needs torch, none of
which the course's environment takes, so this script runs in the same throw-away virtual
environment as tools/make_aepsych_levelset_reference.py and writes
``bench/aepsych_levelset_timing.json``; bench/bench_levelset.py prints our trial beside it. It
imports nothing of the course:

    python3 -m venv /tmp/aepsychvenv
    /tmp/aepsychvenv/bin/pip install aepsych==0.8.0 torch==2.13.0   # the CPU build
    /tmp/aepsychvenv/bin/pip install torcheval   # aepsych.benchmark imports it, undeclared
    /tmp/aepsychvenv/bin/python tools/make_aepsych_levelset_timing.py [--repeats 5]

Workload: the one of bench/bench_levelset.py, rebuilt here from the same seeds (the file keeps
a fingerprint of the inputs, which the bench compares with its own): Wu et al.'s (2025) psychometric
function f(x1, x2) = (1 + x2) / (0.05 + 0.4 x1^2 (0.2 x1 - 1)^2) on [-1, 1]^2, seen by the
model on the unit square; 20 constraints (x1 at 10 even steps on x2 = -1 with target 0 and on
x2 = +1 with the true latent), noise sd 0.2 |y| + 0.1; 100 yes/no answers at scrambled Sobol
settings; 1024 candidates and 4096 references (scrambled Sobol); threshold Phi^-1(0.75).

AEPsych's GPClassificationModel takes constraint_locations / values / strengths in 0.8.0 (a
mixed variational ELBO with a fixed-noise Gaussian likelihood for the constraints, and the
constraint locations among the inducing points). The values are passed on the latent scale
(an explicit BernoulliLikelihood turns off AEPsych's probability-to-latent transform, which
would clip the targets to +-5) and the strengths as variances (0.2 |y| + 0.1)^2, as ours.
Everything runs in float64, one torch thread. The fits: median of ``--repeats`` after a
warm-up. The look-ahead takes about a minute per call on 1024 candidates (AEPsych asks the
model for the joint posterior of each candidate with all 4096 references, so the reference
side is recomputed for every candidate), so those calls are warmed up on the first 8
candidates and then timed ``--acquisition-repeats`` times (median).

What is timed:
* ``fit_default``: what an AEPsych strategy does after every answer with its default
  refit_every = 1: ``model.fit`` on the 100 answers (hyper-parameters reset to their priors'
  start, inducing points re-allocated: the 20 constraint locations plus greedy variance
  reduction up to ``inducing_size`` = 100, then L-BFGS-B on the ELBO with the priors over the
  variational parameters, the constant mean and the ARD kernel's lengthscales and outputscale);
* ``fit_update``: ``model.update`` (warm start of hyper-parameters, inducing points and
  variational parameters) of a model fitted to the first 99 answers, what a strategy with
  refit_every > 1 does between full refits;
* ``fit_update_fixed_kernel``: the same warm update with the course bench's kernel held fixed
  (SE-ARD lengthscales 0.5, outputscale 2, plus a constant kernel of variance 1, zero mean), so
  only the variational parameters move, as in our warm refit;
* ``fit_default_max_fit_time``: ``model.fit`` with ``max_fit_time`` set to half a second
  (AEPsych turns it into a cap on L-BFGS-B function evaluations);
* ``global_mi_candidates`` / ``eavc_candidates``: GlobalMI and EAVC with the references as
  their query set Xq, evaluated on the 1024 candidates in one call (no gradient);
* ``generator_global_mi``: AEPsych's default OptimizeAcqfGenerator (1024 raw Sobol samples,
  10 L-BFGS-B restarts with gradients) on GlobalMI with the same 4096 references.
The per-trial figure of AEPsych is ``fit_default + generator_global_mi``.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from aepsych.acquisition.lookahead import EAVC, GlobalMI  # noqa: E402
from aepsych.generators import OptimizeAcqfGenerator  # noqa: E402
from aepsych.models import GPClassificationModel  # noqa: E402
from gpytorch.kernels import ConstantKernel, RBFKernel, ScaleKernel  # noqa: E402
from gpytorch.likelihoods import BernoulliLikelihood  # noqa: E402
from gpytorch.means import ZeroMean  # noqa: E402
from scipy.special import ndtr, ndtri  # noqa: E402
from scipy.stats import qmc  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "bench" / "aepsych_levelset_timing.json"
torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

# the workload of bench/bench_levelset.py (same seeds and sizes)
SEED, N_TRIALS, N_CANDIDATES, N_REFERENCES = 2026, 100, 1024, 4096
TARGET = 0.75
MAX_FIT_TIME = 0.5


def psychometric_latent(X):
    x1, x2 = X[:, 0], X[:, 1]
    return (1.0 + x2) / (0.05 + 0.4 * x1 ** 2 * (0.2 * x1 - 1.0) ** 2)


def sobol(n, seed):
    return qmc.Sobol(2, seed=np.random.default_rng(seed)).random(n)


def workload():
    """Unit-square trials, answers, constraint locations and targets, candidates, references."""
    def to_box(U):
        return -1.0 + 2.0 * U

    trials = sobol(128, SEED)[:N_TRIALS]
    answers = (np.random.default_rng(SEED).random(N_TRIALS)
               < ndtr(psychometric_latent(to_box(trials)))).astype(float)
    x1 = np.linspace(-1.0, 1.0, 10)
    box_constraints = np.vstack([np.column_stack([x1, np.full(10, -1.0)]),
                                 np.column_stack([x1, np.full(10, 1.0)])])
    return {"trials": trials, "answers": answers,
            "constraint_X": (box_constraints + 1.0) / 2.0,
            "constraint_y": psychometric_latent(box_constraints),
            "candidates": sobol(N_CANDIDATES, SEED + 1),
            "references": sobol(N_REFERENCES, SEED + 2)}


def fingerprint(data):
    """Sums that identify the inputs (bench/bench_levelset.py computes the same)."""
    return {name: float(np.sum(value)) for name, value in data.items()}


def model(data, *, fixed_kernel=False, max_fit_time=None):
    y = data["constraint_y"]
    options = {}
    if fixed_kernel:
        se = ScaleKernel(RBFKernel(ard_num_dims=2))
        se.base_kernel.lengthscale = torch.full((1, 2), 0.5)
        se.outputscale = torch.tensor(2.0)
        offset = ConstantKernel()
        offset.constant = torch.tensor(1.0)
        kernel = se + offset
        for parameter in kernel.parameters():
            parameter.requires_grad_(False)
        options = {"covar_module": kernel, "mean_module": ZeroMean()}
    return GPClassificationModel(
        dim=2, likelihood=BernoulliLikelihood(),
        constraint_locations=torch.tensor(data["constraint_X"]),
        constraint_values=torch.tensor(y),
        constraint_strengths=torch.tensor((0.2 * np.abs(y) + 0.1) ** 2),
        max_fit_time=max_fit_time, **options)


def median_seconds(fn, repeats, warm_up=None):
    """Median wall and CPU seconds of ``repeats`` calls after one untimed call of ``warm_up``
    (default ``fn``), and the last result."""
    result = (warm_up or fn)()
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return {"wall": statistics.median(wall), "cpu": statistics.median(cpu)}, result


def main(repeats, acquisition_repeats):
    data = workload()
    X = torch.tensor(data["trials"])
    y = torch.tensor(data["answers"])
    candidates = torch.tensor(data["candidates"]).unsqueeze(-2)
    references = torch.tensor(data["references"])
    lb, ub = torch.zeros(2), torch.ones(2)
    timings = {}

    def fitted(template, n, warm_from=None):
        m = copy.deepcopy(template if warm_from is None else warm_from)
        if warm_from is None:
            m.fit(X[:n], y[:n])
        else:
            m.update(X[:n], y[:n])
        return m

    default = model(data)
    timings["fit_default"], fitted_default = median_seconds(
        lambda: fitted(default, N_TRIALS), repeats)
    before = fitted(default, N_TRIALS - 1)
    timings["fit_update"], _ = median_seconds(
        lambda: fitted(None, N_TRIALS, warm_from=before), repeats)
    fixed_before = fitted(model(data, fixed_kernel=True), N_TRIALS - 1)
    timings["fit_update_fixed_kernel"], _ = median_seconds(
        lambda: fitted(None, N_TRIALS, warm_from=fixed_before), repeats)
    capped = model(data, max_fit_time=MAX_FIT_TIME)
    timings["fit_default_max_fit_time"], _ = median_seconds(
        lambda: fitted(capped, N_TRIALS), repeats)

    fitted_default.eval()
    n_inducing = int(fitted_default.variational_strategy.inducing_points.shape[0])
    acquisitions = {name: cls(lb, ub, model=fitted_default, target=TARGET,
                              query_set_size=N_REFERENCES, Xq=references)
                    for name, cls in (("global_mi", GlobalMI), ("eavc", EAVC))}
    values = {}
    for name, acquisition in acquisitions.items():
        with torch.no_grad():
            timings[f"{name}_candidates"], value = median_seconds(
                lambda a=acquisition: a(candidates), acquisition_repeats,
                warm_up=lambda a=acquisition: a(candidates[:8]))
        values[name] = value
    generator = OptimizeAcqfGenerator(
        lb, ub, acqf=GlobalMI,
        acqf_kwargs={"lb": lb, "ub": ub, "target": TARGET, "query_set_size": N_REFERENCES,
                     "Xq": references})
    timings["generator_global_mi"], chosen = median_seconds(
        lambda: generator.gen(1, fitted_default), acquisition_repeats,
        warm_up=lambda: acquisitions["global_mi"](candidates[:8]))
    trial = {clock: timings["fit_default"][clock] + timings["generator_global_mi"][clock]
             for clock in ("wall", "cpu")}

    record = {
        "generated_by": "tools/make_aepsych_levelset_timing.py",
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "torch": torch.__version__,
                     **{name: metadata.version(name)
                        for name in ("aepsych", "botorch", "gpytorch", "scipy")}},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch threads "
                   f"{torch.get_num_threads()}, float64",
        "repeats": {"fits": repeats, "acquisitions": acquisition_repeats},
        "workload": {"n_trials": N_TRIALS, "n_constraints": int(data["constraint_y"].size),
                     "n_candidates": N_CANDIDATES, "n_references": N_REFERENCES,
                     "target": TARGET, "threshold": float(ndtri(TARGET)),
                     "n_inducing": n_inducing, "max_fit_time": MAX_FIT_TIME,
                     "fingerprint": fingerprint(data)},
        "seconds": timings,
        "trial_seconds": trial,
        "trial_is": "fit_default + generator_global_mi",
        "global_mi_best_candidate": data["candidates"][int(values["global_mi"].argmax())].tolist(),
        "global_mi_max_bits": float(values["global_mi"].max()),
        "eavc_max": float(values["eavc"].max()),
        "generator_choice": chosen.squeeze(0).tolist(),
    }
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT} ({sys.argv[0]})")
    for name, value in timings.items():
        print(f"{name:28s} {value['wall']:8.3f} s wall {value['cpu']:8.3f} s CPU")
    print(f"trial (fit_default + generator_global_mi) {trial['wall']:.3f} s wall; "
          f"{n_inducing} inducing points")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--acquisition-repeats", type=int, default=1)
    args = parser.parse_args()
    main(args.repeats, args.acquisition_repeats)
