"""Time the inducing-point (Titsias) approximation and compare it with the exact GP.

Run from the repository root:  .venv/bin/python bench/bench_gp_sparse.py

1. N = 50 000 synthetic 1-D points, M = 200 inducing inputs chosen at random from the data,
   SE kernel: the bound alone, the bound + its full gradient, and a hyper-parameter fit
   (L-BFGS-B, fixed Z) from a deliberately poor start. Median of several runs.
2. Where both run (N = 3000): the exact GP (course_lib.gp.regression.GPRegression) and the
   sparse GP with M = 200 at the same hyper-parameters, alternating: the evidence (log marginal
   likelihood) + gradient vs bound + gradient, predictions at 1000 points, and how close they
   are.

Timing rules (one thread, warm-up, alternating rounds, medians): bench/harness.py. Timings
are printed, never asserted.
"""

from __future__ import annotations

import harness  # noqa: F401  (first: one thread before numpy loads)

import statistics  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.gp.kernels import SquaredExponential  # noqa: E402
from course_lib.gp.regression import GPRegression  # noqa: E402
from course_lib.gp.sparse import select_inducing_inputs  # noqa: E402
from course_lib.gp.sparse import (collapsed_evidence, fit_sparse_gp,  # noqa: E402
                                  sparse_posterior)

SEED = 2026
N_BIG, N_SUBSET, M, N_TEST = 50_000, 3000, 200, 1000
NOISE = 0.04


def synthetic(n: int, rng: np.random.Generator):
    """A smooth curve on [0, 50] with noise variance 0.04."""
    X = rng.uniform(0.0, 50.0, (n, 1))
    f = np.sin(X[:, 0]) + 0.5 * np.sin(0.23 * X[:, 0])
    return X, f + np.sqrt(NOISE) * rng.standard_normal(n)


def main() -> None:
    rng = np.random.default_rng(SEED)
    kernel = SquaredExponential(lengthscale=1.0, variance=0.6)

    print(f"== sparse GP, N = {N_BIG}, M = {M} (SE kernel, 1 thread) ==")
    X, y = synthetic(N_BIG, rng)
    Z = select_inducing_inputs(X, M, rng=rng)
    t_bound, F = harness.median_time(lambda: collapsed_evidence(X, y, Z, kernel, NOISE).value,
                                     repeats=5)
    print(f"bound                      median {t_bound:7.3f} s   F = {F:.2f}")
    t_grad, _ = harness.median_time(
        lambda: collapsed_evidence(X, y, Z, kernel, NOISE, eval_gradient=True), repeats=5)
    print(f"bound + gradient (theta, s2, Z) median {t_grad:7.3f} s")
    start_kernel = SquaredExponential(lengthscale=4.0, variance=0.2)
    # the bound calls above warmed everything up; a fit is long, so no extra warm-up run
    t_fit, fitted = harness.median_time(lambda: fit_sparse_gp(X, y, Z, start_kernel, 0.5),
                                        repeats=3, warm_up=False)
    print(f"fit hyper-parameters, fixed Z  median {t_fit:7.3f} s   ({fitted.n_iter} L-BFGS-B "
          f"iterations; {fitted.message})")
    print(f"   -> {fitted.kernel!r}, noise_variance {fitted.noise_variance:.4f} (truth {NOISE}),"
          f" bound {fitted.log_evidence:.2f}")
    X_test = np.linspace(0.0, 50.0, N_TEST)[:, None]
    t_pred, _ = harness.median_time(lambda: fitted.predict(X_test), repeats=5)
    print(f"predict {N_TEST} points           median {t_pred:7.3f} s")

    print(f"\n== exact vs sparse where both run: N = {N_SUBSET}, M = {M}, same hyper-parameters ==")
    X_sub, y_sub = X[:N_SUBSET], y[:N_SUBSET]
    Z_sub = select_inducing_inputs(X_sub, M, rng=rng)
    exact = GPRegression(kernel, NOISE).fit(X_sub, y_sub)
    sparse = sparse_posterior(X_sub, y_sub, Z_sub, kernel, NOISE)
    times = harness.alternate({
        "exact evidence + gradient": lambda: GPRegression(kernel, NOISE).fit(X_sub, y_sub)
        .evidence(eval_gradient=True),
        "sparse bound + gradient": lambda: collapsed_evidence(X_sub, y_sub, Z_sub, kernel, NOISE,
                                                              eval_gradient=True),
        "exact fit + predict": lambda: GPRegression(kernel, NOISE).fit(X_sub, y_sub)
        .predict(X_test),
        "sparse fit + predict": lambda: sparse_posterior(X_sub, y_sub, Z_sub, kernel, NOISE)
        .predict(X_test),
    }, repeats=3)
    for name, values in times.items():
        print(f"{name:26s} median {statistics.median(values):7.3f} s")
    for what, sparse_name in (("evidence + gradient", "sparse bound + gradient"),
                              ("fit + predict", "sparse fit + predict")):
        ratio = harness.median_ratio(times[sparse_name], times[f"exact {what}"])
        harness.print_ratio(f"sparse/exact {what} (N={N_SUBSET})", ratio, goal=1.0)
    exact_mean, exact_var = exact.predict(X_test)
    mean, var = sparse.predict(X_test)
    log_evidence = exact.log_evidence()
    print(f"log evidence {log_evidence:.4f}, sparse bound {sparse.log_evidence:.4f} "
          f"(gap {log_evidence - sparse.log_evidence:.2e} nats, must be >= 0)")
    print(f"max |mean difference| {np.max(np.abs(mean - exact_mean)):.2e}, "
          f"max |variance difference| {np.max(np.abs(var - exact_var)):.2e} "
          f"(prior variance {kernel.variance})")


if __name__ == "__main__":
    with harness.one_thread():
        main()
