"""Frozen reference values from AEPsych's level-set look-ahead acquisitions (Unit 7).

AEPsych 0.8.0 pins numpy < 2, scipy == 1.14.1 and botorch == 0.12.0, which the course's
environment cannot take, so this script runs ONCE in its own throw-away virtual environment and
writes ``tests/reference/aepsych_levelset.json``; the test
``tests/reference/test_levelset_reference.py`` reads that file. It imports nothing of the
course, only numpy, torch and aepsych:

    python3 -m venv /tmp/aepsychvenv
    /tmp/aepsychvenv/bin/pip install aepsych==0.8.0 torch==2.13.0   # the CPU build
    /tmp/aepsychvenv/bin/pip install torcheval   # aepsych.benchmark imports it, undeclared
    /tmp/aepsychvenv/bin/python tools/make_aepsych_levelset_reference.py

The posterior is FIXED and written into the file: the exact GP regression posterior (zero mean,
k = variance * exp(-|x - x'|^2 / (2 lengthscale^2)), Gaussian noise) of recorded training data,
computed here with numpy; AEPsych sees it through a minimal model object whose ``posterior``
returns those means and covariances (AEPsych's look-ahead reads nothing else of a model). What
is recorded:

* the posterior means and variances at the candidates and references, and every
  candidate-reference covariance (so the look-ahead itself can be compared without a model);
* ``lookahead_levelset_at_xstar``: Px, P1, P0 (candidates x references) and P(y = 1) at each
  candidate, for the latent threshold gamma = Phi^-1(target);
* ``GlobalMI`` (bits, summed over the references) and ``EAVC`` at every candidate, through
  AEPsych's acquisition classes with the references as their query set Xq;
* ``novel_discrimination_testfun`` at a grid of inputs (AEPsych's psychometric test function).

AEPsych's look-ahead adds eps = 1e-8 to three denominators (the reference sd, p1 and 1 - p1)
and evaluates the bivariate normal CDF with the Drezner-Wesolowsky/Genz rule it documents as
valid for |rho| <= 0.925; the script records the largest |rho| of the pairs (kept below that by
the choice of kernel variance: |rho| <= sqrt(v_q / (1 + v_q))).
"""

from __future__ import annotations

import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import torch
from aepsych.acquisition.lookahead import EAVC, GlobalMI
from aepsych.acquisition.lookahead_utils import lookahead_levelset_at_xstar
from aepsych.benchmark.test_functions import novel_discrimination_testfun
from scipy.stats import norm

OUT = Path(__file__).resolve().parents[1] / "tests" / "reference" / "aepsych_levelset.json"
torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def se_kernel(A, B, lengthscale, variance):
    d2 = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
    return variance * np.exp(-0.5 * d2 / lengthscale ** 2)


def regression_posterior(X_train, y_train, noise_variance, X, lengthscale, variance):
    """Exact GP regression posterior mean and covariance at the rows of X."""
    K = se_kernel(X_train, X_train, lengthscale, variance) + noise_variance * np.eye(len(y_train))
    L = np.linalg.cholesky(K)
    K_cross = se_kernel(X_train, X, lengthscale, variance)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y_train))
    V = np.linalg.solve(L, K_cross)
    return K_cross.T @ alpha, se_kernel(X, X, lengthscale, variance) - V.T @ V


class FixedGaussian:
    """A model that AEPsych's look-ahead can query: the points are indices into a fixed joint
    Gaussian (inputs of shape (..., n, 1) holding integer indices)."""

    def __init__(self, mean, cov):
        self.mean, self.cov = torch.tensor(mean), torch.tensor(cov)

    def posterior(self, X, posterior_transform=None):
        index = X[..., 0].long()
        mean = self.mean[index].unsqueeze(-1)
        cov = self.cov[index.unsqueeze(-1), index.unsqueeze(-2)]
        return SimpleNamespace(mean=mean, distribution=SimpleNamespace(covariance_matrix=cov))


def main():
    rng = np.random.default_rng(20261123)
    lengthscale, variance, noise_variance = 0.5, 1.5, 0.05
    X_train = rng.uniform(-1.0, 1.0, (12, 2))
    y_train = 1.5 * X_train[:, 1] + np.sin(2.0 * X_train[:, 0]) + 0.2 * rng.standard_normal(12)
    candidates = rng.uniform(-1.2, 1.2, (16, 2))
    references = rng.uniform(-1.0, 1.0, (64, 2))
    target = 0.75
    gamma = float(norm.ppf(target))
    mean, cov = regression_posterior(X_train, y_train, noise_variance,
                                     np.vstack([candidates, references]), lengthscale, variance)
    n_c, n_s = len(candidates), len(references)
    model = FixedGaussian(mean, cov)
    cand_index = torch.arange(n_c, dtype=torch.float64).reshape(n_c, 1, 1)
    ref_index = torch.arange(n_c, n_c + n_s, dtype=torch.float64).reshape(n_s, 1)

    Px, P1, P0, py1 = lookahead_levelset_at_xstar(
        model=model, Xstar=cand_index, Xq=ref_index.expand(n_c, n_s, 1), gamma=gamma)
    bounds = (torch.zeros(1), torch.full((1,), float(n_c + n_s)))
    values = {}
    for name, cls in (("global_mi", GlobalMI), ("eavc", EAVC)):
        acquisition = cls(*bounds, model=model, target=target, query_set_size=n_s, Xq=ref_index)
        with torch.no_grad():
            values[name] = acquisition(cand_index).numpy().tolist()

    q_var, s_var = np.diag(cov)[:n_c], np.diag(cov)[n_c:]
    cross = cov[:n_c, n_c:]
    rho = -cross / (np.sqrt(s_var)[None, :] * np.sqrt(1.0 + q_var)[:, None])
    grid = np.array(np.meshgrid(np.linspace(-1, 1, 7), np.linspace(-1, 1, 5))).reshape(2, -1).T
    record = {
        "generated_by": "tools/make_aepsych_levelset_reference.py",
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "torch": torch.__version__,
                     **{name: metadata.version(name)
                        for name in ("aepsych", "botorch", "gpytorch", "scipy", "torcheval")}},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch threads "
                   f"{torch.get_num_threads()}, float64",
        "convention": "gamma = Phi^-1(target) is the latent threshold; P(y = 1 | f) = Phi(f); "
                      "Px = P(f(s) < gamma); GlobalMI in bits summed over references; EAVC in "
                      "reference points",
        "posterior": {"lengthscale": lengthscale, "variance": variance,
                      "noise_variance": noise_variance, "X_train": X_train.tolist(),
                      "y_train": y_train.tolist()},
        "candidates": candidates.tolist(), "references": references.tolist(),
        "target": target, "gamma": gamma,
        "candidate_mean": mean[:n_c].tolist(), "candidate_var": q_var.tolist(),
        "reference_mean": mean[n_c:].tolist(), "reference_var": s_var.tolist(),
        "cross_cov": cross.tolist(), "largest_abs_rho": float(np.abs(rho).max()),
        "p_one": py1.squeeze(-1).numpy().tolist(), "p_now": Px.numpy().tolist(),
        "p_if_one": P1.numpy().tolist(), "p_if_zero": P0.numpy().tolist(),
        "global_mi": values["global_mi"], "eavc": values["eavc"],
        "testfun_X": grid.tolist(),
        "novel_discrimination_testfun": novel_discrimination_testfun(
            torch.tensor(grid)).numpy().tolist(),
    }
    assert record["largest_abs_rho"] < 0.925, "outside AEPsych's bvn_cdf range"
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT} ({sys.argv[0]})")
    print("largest |rho|", record["largest_abs_rho"], "GlobalMI range",
          min(values["global_mi"]), max(values["global_mi"]), "EAVC range",
          min(values["eavc"]), max(values["eavc"]))


if __name__ == "__main__":
    main()
