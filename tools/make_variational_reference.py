"""Frozen reference values from GPyTorch for the course's variational GPs (Unit 7).

GPyTorch needs torch, which the course does not depend on, so this script runs ONCE in a
throw-away virtual environment and writes ``tests/reference/gpytorch_variational.json``; the
test ``tests/reference/test_variational_reference.py`` reads that file. It imports nothing of
the course, only numpy, torch and gpytorch:

    python3 -m venv /tmp/gpytorchvenv
    /tmp/gpytorchvenv/bin/pip install torch==2.13.0      # the CPU build, 2.13.0+cpu
    /tmp/gpytorchvenv/bin/pip install gpytorch==1.15.2
    /tmp/gpytorchvenv/bin/python tools/make_variational_reference.py

Everything is evaluated at FIXED parameters written into the file (inputs, answers, constraint
targets and noise sds, kernel, inducing points Z, whitened q(v) = N(m, S S^T)), so both sides
see the same numbers; nothing is optimised. What is recorded:

* ``link_error_log_normal_cdf``: GPyTorch's BernoulliLikelihood integrates
  gpytorch.functions.log_normal_cdf, a rational approximation of log Phi (for |z| < 0.2 and
  z < -1), not log Phi itself; its largest error against torch.special.log_ndtr on z in
  [-40, 10] is recorded, since it bounds how closely ANY exact implementation can agree;
* ``quadrature``: E log Phi((2y - 1) f) under f ~ N(mean, var) on a table of means and
  variances (sd up to 6), by BernoulliLikelihood.expected_log_prob (``gauss_hermite_<k>``)
  and by the same likelihood's Gauss-Hermite rule applied to the exact log_ndtr
  (``exact_link_gauss_hermite_<k>``), with settings.num_gauss_hermite_locs k = 20 (GPyTorch's
  default), 100 and 200 (the k-to-200 spread bounds the k-node error);
* per problem, for a sparse whitened variational GP (VariationalStrategy with
  learn_inducing_locations=False, CholeskyVariationalDistribution, ZeroMean):
  - the rows' moments under q (the model's output at the Bernoulli and the constraint inputs);
  - each row's expected log-likelihood: BernoulliLikelihood (20 / 100 / 200 nodes; and with
    the exact link) and
    FixedNoiseGaussianLikelihood (the constraints, one fixed noise variance per row, no
    learned extra noise; closed form);
  - the KL(q(v) || N(0, I)) of the strategy, and the mixed ELBO = sum of both parts' expected
    log-likelihoods - ONE KL (``elbo_mixed``: BernoulliLikelihood with 100 nodes;
    ``elbo_mixed_exact_link``: the exact link with 200 nodes);
  - VariationalELBO(likelihood, model, num_data=n_part) of each part on its own rows: GPyTorch
    returns sum E / num_batch - KL / num_data, i.e. (E_part - KL) / n_part here; adding
    n_part * value over the two parts counts the KL twice (the bookkeeping trap);
  - the predictive mean and variance of f at test inputs (eval mode).
* the "full-rank" problem has Z = every input, and S S^T = (I + L^T diag(lambda) L)^-1 for
  recorded site precisions lambda (K = L L^T): q(f) = N(L m, (K^-1 + diag lambda)^-1), the
  Opper-Archambeau form with alpha = L^-T m, so the course's full-rank bound can be evaluated
  at the same q.

Conventions: ScaleKernel(RBFKernel(ard_num_dims=d)) = outputscale * exp(-sum_k (x_k -
x'_k)^2 / (2 lengthscale_k^2)) = the course's SquaredExponential(lengthscale, variance=
outputscale). GPyTorch adds jitter_val (1e-6 for float64 by default) to K_ZZ and to the data
covariance; it is set to 0 here (the kernel matrices are well conditioned) so that both sides
use the same K; the script checks that the KL and the moments agree with numpy closed forms.
The variational strategy's one-time set-up (q reset to the prior plus noise, then converted
from unwhitened parameters) is switched off (``variational_params_initialized`` and
``updated_strategy`` set) before the whitened m and S are written, so they are used as given.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from math import erf, sqrt
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gpytorch
import numpy as np
import torch
from gpytorch import settings
from gpytorch.distributions import MultivariateNormal
from gpytorch.functions import log_normal_cdf
from gpytorch.kernels import RBFKernel, ScaleKernel
from gpytorch.likelihoods import BernoulliLikelihood, FixedNoiseGaussianLikelihood
from gpytorch.means import ZeroMean
from gpytorch.mlls import VariationalELBO
from gpytorch.models import ApproximateGP
from gpytorch.variational import CholeskyVariationalDistribution, VariationalStrategy
from linear_operator.operators import DiagLinearOperator

OUT = Path(__file__).resolve().parents[1] / "tests" / "reference" / "gpytorch_variational.json"
torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)
NODE_COUNTS = (20, 100, 200)


class WhitenedSVGP(ApproximateGP):
    def __init__(self, Z, lengthscale, outputscale):
        q = CholeskyVariationalDistribution(Z.shape[0])
        strategy = VariationalStrategy(self, torch.tensor(Z), q, learn_inducing_locations=False,
                                       jitter_val=0.0)
        super().__init__(strategy)
        self.mean_module = ZeroMean()
        self.covar_module = ScaleKernel(RBFKernel(ard_num_dims=Z.shape[1]))
        self.covar_module.base_kernel.lengthscale = torch.tensor([lengthscale])
        self.covar_module.outputscale = torch.tensor(float(outputscale))

    def forward(self, x):
        return MultivariateNormal(self.mean_module(x), self.covar_module(x))


def set_whitened_q(model, m, S):
    strategy = model.variational_strategy
    strategy.updated_strategy.fill_(True)  # m, S are already whitened: no conversion
    strategy.variational_params_initialized.fill_(1)  # and no reset to the prior on first use
    with torch.no_grad():
        strategy._variational_distribution.variational_mean.copy_(torch.tensor(m))
        strategy._variational_distribution.chol_variational_covar.copy_(torch.tensor(S))


def bernoulli(n_nodes):
    with settings.num_gauss_hermite_locs(n_nodes):  # read when the quadrature is built
        likelihood = BernoulliLikelihood()
    assert likelihood.quadrature.num_locs == n_nodes
    return likelihood


def bernoulli_expectations(y, dist):
    """{"<k>": BernoulliLikelihood's values, "exact_<k>": the same k-node rule on log_ndtr}."""
    sign = 2.0 * torch.tensor(y) - 1.0
    values = {}
    for k in NODE_COUNTS:
        likelihood = bernoulli(k)
        values[str(k)] = likelihood.expected_log_prob(torch.tensor(y), dist).detach().numpy()
        exact = likelihood.quadrature(lambda f: torch.special.log_ndtr(f * sign), dist)
        values[f"exact_{k}"] = exact.detach().numpy()
    return values


def link_error():
    """max |gpytorch.functions.log_normal_cdf - torch.special.log_ndtr| on a grid of z."""
    z = torch.linspace(-40.0, 10.0, 200001)
    return float((log_normal_cdf(z) - torch.special.log_ndtr(z)).abs().max())


def quadrature_table():
    means = np.array([-4.0, -1.5, 0.0, 0.7, 2.5, 5.0])
    sds = np.array([0.1, 1.0, 3.0, 6.0])
    mean, sd, y = (a.ravel() for a in np.meshgrid(means, sds, [0.0, 1.0], indexing="ij"))
    dist = MultivariateNormal(torch.tensor(mean), DiagLinearOperator(torch.tensor(sd ** 2)))
    values = bernoulli_expectations(y, dist)
    return {"mean": mean.tolist(), "var": (sd ** 2).tolist(), "y": y.tolist(),
            **{f"gauss_hermite_{k}": values[str(k)].tolist() for k in NODE_COUNTS},
            **{f"exact_link_gauss_hermite_{k}": values[f"exact_{k}"].tolist()
               for k in NODE_COUNTS}}


def numpy_kernel(A, B, lengthscale, outputscale):
    d = (A[:, None, :] - B[None, :, :]) / np.asarray(lengthscale)
    return outputscale * np.exp(-0.5 * np.sum(d ** 2, axis=-1))


def evaluate(name, X_b, y_b, X_g, y_g, noise_sd, Z, lengthscale, outputscale, m, S, X_test,
             site_precision=None):
    model = WhitenedSVGP(Z, lengthscale, outputscale)
    set_whitened_q(model, m, S)
    model.train()
    f_b, f_g = model(torch.tensor(X_b)), model(torch.tensor(X_g))
    expected_b = bernoulli_expectations(y_b, f_b)
    gaussian = FixedNoiseGaussianLikelihood(noise=torch.tensor(noise_sd ** 2),
                                            learn_additional_noise=False)
    expected_g = gaussian.expected_log_prob(torch.tensor(y_g), f_g).detach().numpy()
    kl = float(model.variational_strategy.kl_divergence().detach())

    # checks against numpy closed forms (the same q, no jitter)
    L = np.linalg.cholesky(numpy_kernel(Z, Z, lengthscale, outputscale))
    kl_closed = 0.5 * (np.sum(S ** 2) + m @ m - m.size) - np.sum(np.log(np.diag(S)))
    assert abs(kl - kl_closed) < 1e-10 * max(1.0, kl), (kl, kl_closed)
    A = np.linalg.solve(L, numpy_kernel(Z, X_b, lengthscale, outputscale))
    var_b = outputscale - np.sum(A ** 2, 0) + np.sum((S.T @ A) ** 2, 0)
    assert np.allclose(f_b.mean.detach().numpy(), A.T @ m, rtol=0, atol=1e-10)
    assert np.allclose(f_b.variance.detach().numpy(), var_b, rtol=0, atol=1e-10)

    elbo_b = VariationalELBO(bernoulli(100), model, num_data=y_b.size)(f_b, torch.tensor(y_b))
    elbo_g = VariationalELBO(gaussian, model, num_data=y_g.size)(f_g, torch.tensor(y_g))
    mixed = float(expected_b["100"].sum() + expected_g.sum()) - kl
    mixed_exact_link = float(expected_b["exact_200"].sum() + expected_g.sum()) - kl

    model.eval()
    with torch.no_grad():
        test = model(torch.tensor(X_test))
        test_mean, test_var = test.mean.numpy(), test.variance.numpy()
    record = {
        "name": name, "lengthscale": list(lengthscale), "outputscale": outputscale,
        "X_bernoulli": X_b.tolist(), "y_bernoulli": y_b.tolist(),
        "X_constraint": X_g.tolist(), "y_constraint": y_g.tolist(),
        "noise_sd_constraint": noise_sd.tolist(), "Z": Z.tolist(),
        "mean_whitened": m.tolist(), "root_whitened": S.tolist(), "X_test": X_test.tolist(),
        "bernoulli_mean": f_b.mean.detach().numpy().tolist(),
        "bernoulli_var": f_b.variance.detach().numpy().tolist(),
        "constraint_mean": f_g.mean.detach().numpy().tolist(),
        "constraint_var": f_g.variance.detach().numpy().tolist(),
        **{f"bernoulli_expected_gauss_hermite_{k}": expected_b[str(k)].tolist()
           for k in NODE_COUNTS},
        **{f"bernoulli_expected_exact_link_gauss_hermite_{k}": expected_b[f"exact_{k}"].tolist()
           for k in NODE_COUNTS},
        "constraint_expected": expected_g.tolist(),
        "kl": kl,
        "elbo_mixed": mixed,
        "elbo_mixed_exact_link": mixed_exact_link,
        "variational_elbo_bernoulli_per_datum": float(elbo_b.detach()),
        "variational_elbo_constraint_per_datum": float(elbo_g.detach()),
        "kl_counted_per_type": float(y_b.size * elbo_b.detach() + y_g.size * elbo_g.detach()),
        "test_mean": test_mean.tolist(), "test_var": test_var.tolist(),
    }
    if site_precision is not None:
        record["site_precision"] = site_precision.tolist()
    return record


def random_root(rng, p):
    """A lower-triangular S with a positive diagonal: a q(v) narrower than the prior."""
    S = np.tril(0.15 * rng.standard_normal((p, p)), -1)
    S[np.diag_indices(p)] = rng.uniform(0.25, 0.9, p)
    return S


def threshold_answers(rng, X):
    """Yes/no answers of a simulated observer, P(yes) = Phi(3 (x0 + x1 - 1))."""
    latent = 3.0 * (X[:, 0] + X[:, 1] - 1.0)
    p = np.array([0.5 * (1.0 + erf(v / sqrt(2.0))) for v in latent])
    return (rng.uniform(size=X.shape[0]) < p).astype(float)


def sparse_problem(rng):
    X_b = rng.uniform(0.0, 1.0, (40, 2))
    y_b = threshold_answers(rng, X_b)
    X_g = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [1.0, 1.0]])
    y_g = np.array([-2.0, -1.8, -1.8, 2.0])         # "never seen" near 0, "always" at (1, 1)
    noise_sd = np.array([0.3, 0.45, 0.45, 0.6])
    Z = np.vstack([rng.uniform(0.0, 1.0, (8, 2)), X_g])  # an inducing point on each constraint
    m = 0.8 * rng.standard_normal(Z.shape[0])
    S = random_root(rng, Z.shape[0])
    X_test = rng.uniform(-0.2, 1.2, (6, 2))
    return evaluate("sparse: 2-D, 40 yes/no + 4 constraints, 12 inducing points", X_b, y_b,
                    X_g, y_g, noise_sd, Z, (0.35, 0.5), 2.5, m, S, X_test)


def full_rank_problem(rng):
    """Z = every input; S from site precisions so that q has the Opper-Archambeau form."""
    lengthscale, outputscale = (0.6, 0.8), 1.7
    X_b = rng.uniform(0.0, 1.0, (9, 2))
    y_b = threshold_answers(rng, X_b)
    X_g = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    y_g = np.array([-2.0, 2.0, 0.1])
    noise_sd = np.array([0.25, 0.5, 0.8])
    Z = np.vstack([X_b, X_g])
    L = np.linalg.cholesky(numpy_kernel(Z, Z, lengthscale, outputscale))
    site_precision = rng.uniform(0.2, 2.0, Z.shape[0])
    precision = np.eye(Z.shape[0]) + L.T @ (site_precision[:, None] * L)
    S = np.linalg.cholesky(np.linalg.inv(precision))
    m = 0.7 * rng.standard_normal(Z.shape[0])
    X_test = rng.uniform(-0.2, 1.2, (5, 2))
    return evaluate("full rank: 2-D, 9 yes/no + 3 constraints, Z = all inputs", X_b, y_b, X_g,
                    y_g, noise_sd, Z, lengthscale, outputscale, m, S, X_test,
                    site_precision=site_precision)


def main():
    rng = np.random.default_rng(20261122)
    record = {
        "generated_by": "tools/make_variational_reference.py",
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "torch": torch.__version__, "gpytorch": gpytorch.__version__},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch threads "
                   f"{torch.get_num_threads()}, float64",
        "convention": "ScaleKernel(RBFKernel(ard)) = SquaredExponential(lengthscale, "
                      "variance=outputscale); BernoulliLikelihood = BernoulliProbit (y in "
                      "{0, 1}); FixedNoiseGaussianLikelihood(noise = sd^2) = "
                      "GaussianConstraint(sd); whitened u = L v, q(v) = N(m, S S^T); "
                      "jitter_val = 0",
        "link_error_log_normal_cdf": link_error(),
        "quadrature": quadrature_table(),
        "problems": [sparse_problem(rng), full_rank_problem(rng)],
    }
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT} ({sys.argv[0]})")
    table = record["quadrature"]
    for k in (20, 100):
        spread = np.max(np.abs(np.subtract(table[f"gauss_hermite_{k}"],
                                           table["gauss_hermite_200"])))
        print(f"quadrature table: max |GH{k} - GH200| = {spread:.3e}")
    for p in record["problems"]:
        print(p["name"], "KL", p["kl"], "ELBO", p["elbo_mixed"],
              "KL twice", p["kl_counted_per_type"])


if __name__ == "__main__":
    main()
