"""Unit 5 benchmark: the joint multi-rater GP against the repeated-input GP and scikit-learn.

R = 5 raters score each of N items (N = 500, 1000, 2500; d = 3 inputs, SE kernel, fixed
hyper-parameters, every rater scores every item: M = 5N labels). The joint model works with the
N x N kernel matrix of the items, the repeated model with the M x M matrix of the labels (every
label a data point at its item's input). They are the same model (tests/raters/test_multi_rater.py);
the limits of the speed-up are the flop ratios R^3 = 125 (Cholesky, inverse), R^2 = 25 (kernel
matrices and every other pass over an M x M array) and R = 5 (cross-kernel of the prediction).

Workloads, each a speed-up = time(repeated) / time(joint) from interleaved rounds:
(a) log marginal likelihood + gradient (3 log hyper-parameters)   goal >= 50 at N = 500
(b) fit at fixed hyper-parameters (kernel matrix + Cholesky)      goal >= 50 at N = 500,
                                                                 reported as a share of 125
(c) fit + predict mean and variance at 1000 test points          goal >= 50 at N >= 1000,
                                                                 with the largest difference
(d) scikit-learn's GaussianProcessRegressor on the flattened labels (alpha = sigma^2: the
    repeated model in a reference library) against our joint model: fit + predict, and
    log marginal likelihood + gradient (scikit-learn's theta: log variance, log lengthscale).

Feasibility: at N = 2500 the repeated model's matrices are 12,500 x 12,500 (1.25 GB each). A
workload runs only if the machine has the memory it needs (measured peaks: about 9 such matrices
for (a), 5 for (c), 11 for scikit-learn's gradient); otherwise it is reported as skipped. Big
sizes get fewer rounds (``--repeats`` at N = 500, scaled by 500 / N, at least 1) and no
warm-up round above N = 1000 (plain numpy and LAPACK: nothing to compile or cache).
Timing rules (one thread, alternating rounds, medians of the per-round ratios): bench/harness.py.
Run: .venv/bin/python bench/bench_raters.py [--repeats 5] [--sizes 500 1000 2500]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402
import statistics  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.gp import SquaredExponential
from course_lib.rater_data import RaterData
from course_lib.raters import MultiRaterGP

N_RATERS, N_DIMS, N_TEST = 5, 3, 1000
VARIANCE, LENGTHSCALE, NOISE = 1.0, 1.2, 0.5
FLOP_LIMIT = N_RATERS ** 3
# peak memory of the repeated model's workloads, in M x M float64 matrices (measured)
MATRICES_NEEDED = {"lml": 9, "fit": 4, "fit_predict": 5, "sklearn_fit_predict": 5,
                   "sklearn_lml": 11}


def make_panel(n_items, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n_items, N_DIMS))
    truth = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2]
    scores = truth[:, None] + np.sqrt(NOISE) * rng.standard_normal((n_items, N_RATERS))
    return X, RaterData.from_matrix(scores), rng.uniform(-2, 2, (N_TEST, N_DIMS))


def model(mode):
    return MultiRaterGP(SquaredExponential(LENGTHSCALE, VARIANCE), NOISE, mode=mode)


def available_bytes():
    with open("/proc/meminfo") as info:
        fields = dict(line.split(":", 1) for line in info)
    return int(fields["MemAvailable"].split()[0]) * 1024


def feasible(workload, n_labels):
    need = MATRICES_NEEDED[workload] * n_labels ** 2 * 8
    have = available_bytes()
    if need > 0.8 * have:
        print(f"  {workload}: skipped, needs about {need / 1e9:.1f} GB, {have / 1e9:.1f} GB "
              "available")
        return False
    return True


def speedup(name, joint, slow, repeats, warm_up, slow_label="repeated", goal=None):
    """Median of the per-round ratios time(slow) / time(joint); prints both clocks."""
    wall, cpu = harness.alternate_clocks({"joint": joint, slow_label: slow}, repeats,
                                         warm_up=warm_up)
    ratio = harness.median_ratio(wall[slow_label], wall["joint"])
    print(f"  {name}: joint median {_seconds(statistics.median(wall['joint']))}, {slow_label} "
          f"median {_seconds(statistics.median(wall[slow_label]))} ({repeats} alternating "
          f"rounds{'' if warm_up else ', no warm-up'}; ratio of CPU times "
          f"{harness.median_ratio(cpu[slow_label], cpu['joint']):.1f})")
    suffix = "" if goal is None else f" (goal >= {goal})"
    print(f"speed-up {name}: {ratio:.1f}{suffix}")
    return ratio


def _seconds(value):
    return f"{value * 1e3:.1f} ms" if value < 1.0 else f"{value:.2f} s"


def bench_size(n_items, repeats, warm_up):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    X, data, X_test = make_panel(n_items)
    M = data.n_labels
    print(f"N = {n_items} items, R = {N_RATERS}, M = {M} labels ({M * M * 8 / 1e9:.2f} GB per "
          f"M x M matrix), {repeats} round(s)")
    row = {"N": n_items}
    joint, repeated = model("joint").fit(X, data), model("repeated").fit(X, data)

    if feasible("lml", M):
        ours, theirs = joint.evidence(eval_gradient=True), repeated.evidence(eval_gradient=True)
        assert np.isclose(ours.value, theirs.value, rtol=1e-9) and np.allclose(
            ours.gradient, theirs.gradient, rtol=1e-6)
        row["lml"] = speedup(f"lml+grad N={n_items}",
                             lambda: joint.evidence(eval_gradient=True),
                             lambda: repeated.evidence(eval_gradient=True),
                             repeats, warm_up, goal=50 if n_items == 500 else None)
    del repeated

    if feasible("fit", M):
        row["fit"] = speedup(f"fit N={n_items}", lambda: model("joint").fit(X, data),
                             lambda: model("repeated").fit(X, data), repeats, warm_up,
                             goal=50 if n_items == 500 else None)
        print(f"  fit N={n_items}: {row['fit'] / FLOP_LIMIT:.2f} of the flop limit "
              f"R^3 = {FLOP_LIMIT}")

    if feasible("fit_predict", M):
        mean, var = model("joint").fit(X, data).predict(X_test)
        rep_mean, rep_var = model("repeated").fit(X, data).predict(X_test)
        row["mean_difference"] = float(np.abs(mean - rep_mean).max())
        row["var_difference"] = float(np.abs(var - rep_var).max())
        print(f"  fit+predict N={n_items}: largest |difference| of the predictions: mean "
              f"{row['mean_difference']:.1e}, variance {row['var_difference']:.1e}")
        row["fit_predict"] = speedup(
            f"fit+predict N={n_items} n*={N_TEST}",
            lambda: model("joint").fit(X, data).predict(X_test),
            lambda: model("repeated").fit(X, data).predict(X_test), repeats, warm_up,
            goal=50 if n_items >= 1000 else None)

    def sklearn_model():
        return GaussianProcessRegressor(ConstantKernel(VARIANCE) * RBF(LENGTHSCALE),
                                        alpha=NOISE, optimizer=None)

    if feasible("sklearn_fit_predict", M):
        sk_mean, sk_std = sklearn_model().fit(X[data.items], data.scores).predict(
            X_test, return_std=True)
        mean, var = model("joint").fit(X, data).predict(X_test)
        assert np.allclose(mean, sk_mean, atol=1e-6) and np.allclose(np.sqrt(var), sk_std,
                                                                      atol=1e-6)
        row["sklearn_fit_predict"] = speedup(
            f"scikit-learn on the labels vs joint, fit+predict N={n_items}",
            lambda: model("joint").fit(X, data).predict(X_test),
            lambda: sklearn_model().fit(X[data.items], data.scores).predict(X_test,
                                                                          return_std=True),
            repeats, warm_up, slow_label="scikit-learn")

    if feasible("sklearn_lml", M):
        theirs = sklearn_model().fit(X[data.items], data.scores)
        theta = theirs.kernel_.theta  # log variance, log lengthscale: our kernel's order
        sk_value, sk_grad = theirs.log_marginal_likelihood(theta, eval_gradient=True)
        ours = joint.evidence(eval_gradient=True)
        assert np.isclose(ours.value, sk_value, rtol=1e-9) and np.allclose(
            ours.gradient[:-1], sk_grad, rtol=1e-6)
        row["sklearn_lml"] = speedup(
            f"scikit-learn on the labels vs joint, lml+grad N={n_items}",
            lambda: joint.evidence(eval_gradient=True),
            lambda: theirs.log_marginal_likelihood(theta, eval_gradient=True), repeats,
            warm_up, slow_label="scikit-learn")
    return row


def print_table(rows):
    columns = [("lml", "lml+grad"), ("fit", "fit"), ("fit_share", "fit / 125"),
               ("fit_predict", "fit+predict"), ("mean_difference", "max |d mean|"),
               ("var_difference", "max |d var|"), ("sklearn_fit_predict", "sklearn fit+pred"),
               ("sklearn_lml", "sklearn lml+grad")]
    print("\nspeed-ups of the joint model (time of the other / time of joint; '-' = skipped)")
    print("| N | " + " | ".join(title for _, title in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for row in rows:
        if "fit" in row:
            row["fit_share"] = row["fit"] / FLOP_LIMIT
        cells = []
        for key, _ in columns:
            value = row.get(key)
            cells.append("-" if value is None else
                         f"{value:.1e}" if key.endswith("difference") else f"{value:.2f}"
                         if key == "fit_share" else f"{value:.1f}")
        print(f"| {row['N']} | " + " | ".join(cells) + " |")


def main(sizes, repeats):
    rows = []
    for n_items in sizes:
        rounds = max(1, round(repeats * 500 / n_items))
        rows.append(bench_size(n_items, rounds, warm_up=n_items <= 1000))
    print_table(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2500])
    args = parser.parse_args()
    with harness.one_thread():
        main(args.sizes, args.repeats)
