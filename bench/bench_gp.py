"""Unit 4 benchmark: exact GP regression, course_lib.gp vs scikit-learn, single-threaded.

Workloads (d = 3 inputs, SE kernel, fixed hyper-parameters, same data for both):
1. fit + predict: N = 2000 training points, mean and standard deviation at 1000 test points
   (scikit-learn: ConstantKernel * RBF, alpha = noise, optimizer=None).           goal <= 1.1
2. the evidence (log marginal likelihood) + gradient, N = 1000, three log hyper-parameters
   (variance, lengthscale, noise): ours evidence(theta, eval_gradient=True) (scikit-learn:
   ConstantKernel * RBF + WhiteKernel, log_marginal_likelihood(theta, eval_gradient=True)).
                                                                                  goal <= 1.0

Timing rules (one thread, warm-up, alternating rounds, medians of the per-round ratios
ours / theirs): bench/harness.py. The sparse approximation's timing (N = 50 000, M = 200) is
bench/bench_gp_sparse.py; `make bench` runs both.
Run: .venv/bin/python bench/bench_gp.py [--repeats 7]
"""

import harness  # noqa: F401  (first: one thread before numpy loads)

import argparse  # noqa: E402

import numpy as np  # noqa: E402

from course_lib.gp.kernels import SquaredExponential  # noqa: E402
from course_lib.gp.regression import GPRegression  # noqa: E402

VARIANCE, LENGTHSCALE, NOISE = 1.5, 0.8, 0.05


def make_data(n, n_test, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 3))
    y = np.sin(X @ np.array([1.0, -0.7, 0.4])) + np.sqrt(NOISE) * rng.standard_normal(n)
    return X, y, rng.uniform(-2, 2, (n_test, 3))


def compare(name, ours, theirs, goal, repeats):
    return harness.compare(name, ours, theirs, repeats=repeats, goal=goal,
                           labels=("ours", "scikit-learn"))


def main(repeats):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    X, y, X_test = make_data(2000, 1000)

    def ours_fit_predict():
        gp = GPRegression(SquaredExponential(LENGTHSCALE, VARIANCE), NOISE).fit(X, y)
        return gp.predict(X_test)

    def sklearn_fit_predict():
        kernel = ConstantKernel(VARIANCE) * RBF(LENGTHSCALE)
        gp = GaussianProcessRegressor(kernel, alpha=NOISE, optimizer=None).fit(X, y)
        return gp.predict(X_test, return_std=True)

    mean, var = ours_fit_predict()
    sk_mean, sk_std = sklearn_fit_predict()
    assert np.allclose(mean, sk_mean, atol=1e-8) and np.allclose(np.sqrt(var), sk_std, atol=1e-7)
    compare("fit+predict N=2000 n*=1000", ours_fit_predict, sklearn_fit_predict, 1.1, repeats)

    X1, y1 = X[:1000], y[:1000]
    ours = GPRegression(SquaredExponential(LENGTHSCALE, VARIANCE), NOISE).fit(X1, y1)
    theirs = GaussianProcessRegressor(ConstantKernel(VARIANCE) * RBF(LENGTHSCALE)
                                      + WhiteKernel(NOISE), alpha=0.0, optimizer=None).fit(X1, y1)
    theta = ours.theta  # [log variance, log lengthscale, log noise], scikit-learn's order too
    assert np.allclose(theta, theirs.kernel_.theta)
    evidence = ours.evidence(theta, eval_gradient=True)
    sk_value, sk_grad = theirs.log_marginal_likelihood(theta, eval_gradient=True)
    assert np.isclose(evidence.value, sk_value, rtol=1e-9) and np.allclose(evidence.gradient,
                                                                           sk_grad, rtol=1e-6)
    compare("evidence+grad N=1000", lambda: ours.evidence(theta, eval_gradient=True),
            lambda: theirs.log_marginal_likelihood(theta, eval_gradient=True), 1.0, repeats)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with harness.one_thread():
        main(args.repeats)
