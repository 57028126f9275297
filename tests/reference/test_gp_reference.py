"""Exact GP regression against scikit-learn's GaussianProcessRegressor at fixed hyper-parameters.

Conventions (ours -> scikit-learn); each CASES entry is
(our kernel, scikit-learn kernel, X, y, gradient factor[, scikit-learn's theta order]):
* our ``variance`` (sigma_f^2, a variance) is ``ConstantKernel(constant_value=variance)``; both
  store log(variance) in theta, so gradients in log space agree entry by entry.
* our ``lengthscale`` is RBF / Matern / RationalQuadratic ``length_scale`` (a length, not squared).
* Periodic(lengthscale, period) is ``ExpSineSquared(length_scale, periodicity)`` (same formula in
  1-D: exp(-2 sin^2(pi d / p) / l^2); for d > 1 scikit-learn uses the Euclidean distance).
* Linear(1) + Constant(c) is ``DotProduct(sigma_0=sqrt(c))``; scikit-learn's theta entry is
  log sigma_0 = (1/2) log c, so its gradient is twice ours.
* White(v) is ``WhiteKernel(v)``.
* Observation noise: our ``noise_variance`` is scikit-learn's ``alpha`` (added to the diagonal in
  fit, NOT part of theta and NOT added to predicted variances), so scikit-learn's gradient has no
  noise entry; we compare the noise gradient through a WhiteKernel instead (then scikit-learn's
  predicted std includes the noise: compare with ``include_noise=True``).
* ``normalize_y=False`` (our prior mean is zero) and ``optimizer=None`` (fixed hyper-parameters).
"""

import numpy as np
import pytest
from sklearn import gaussian_process as sk_gp
from sklearn.gaussian_process import kernels as skk

from course_lib.gp.kernels import (  # noqa: E402
    Constant,
    Linear,
    Matern,
    Periodic,
    RationalQuadratic,
    SquaredExponential,
    White,
)
from course_lib.gp.regression import GPRegression  # noqa: E402

RNG = np.random.default_rng(42)
X1 = np.sort(RNG.uniform(-3, 3, (30, 1)), axis=0)
Y1 = np.sin(2 * X1[:, 0]) + 0.1 * RNG.standard_normal(30)
X3 = RNG.uniform(-2, 2, (40, 3))
Y3 = np.cos(X3 @ np.array([1.0, -0.5, 0.3])) + 0.1 * RNG.standard_normal(40)
NOISE = 0.05

CASES = {
    "se_iso_3d": (SquaredExponential(0.9, 1.7), skk.ConstantKernel(1.7) * skk.RBF(0.9), X3, Y3, 1),
    "se_ard_3d": (SquaredExponential([0.5, 1.0, 2.0], 0.8),
                  skk.ConstantKernel(0.8) * skk.RBF([0.5, 1.0, 2.0]), X3, Y3, 1),
    "matern12": (Matern(0.5, 0.7, 1.3), skk.ConstantKernel(1.3) * skk.Matern(0.7, nu=0.5),
                 X1, Y1, 1),
    "matern32": (Matern(1.5, 0.7, 1.3), skk.ConstantKernel(1.3) * skk.Matern(0.7, nu=1.5),
                 X3, Y3, 1),
    "matern52_ard": (Matern(2.5, [0.6, 1.2, 0.9], 1.1),
                     skk.ConstantKernel(1.1) * skk.Matern([0.6, 1.2, 0.9], nu=2.5), X3, Y3, 1),
    "rq": (RationalQuadratic(0.8, 1.2, alpha=1.7),
           skk.ConstantKernel(1.2) * skk.RationalQuadratic(0.8, alpha=1.7), X3, Y3, 1, [0, 2, 1]),
    "periodic_1d": (Periodic(0.9, period=2.5, variance=1.4),
                    skk.ConstantKernel(1.4) * skk.ExpSineSquared(0.9, periodicity=2.5), X1, Y1, 1),
    "linear_plus_constant": (Linear(1.0, variance_bounds="fixed") + Constant(0.3),
                             skk.DotProduct(sigma_0=np.sqrt(0.3)), X3, Y3, 2),
    # ExpSineSquared has no variance of its own: our periodic variance is held fixed at 1
    "composite": (SquaredExponential(1.1, 2.0) * Periodic(1.3, 2.0, variance_bounds="fixed")
                  + RationalQuadratic(0.5, 0.4),
                  skk.ConstantKernel(2.0) * skk.RBF(1.1) * skk.ExpSineSquared(1.3, 2.0)
                  + skk.ConstantKernel(0.4) * skk.RationalQuadratic(0.5, 1.0), X1, Y1, 1,
                  [0, 1, 2, 3, 4, 6, 5]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_matches_sklearn_at_fixed_hyperparameters(case):
    ours_kernel, sk_kernel, X, y, grad_factor, *order = CASES[case]
    ours = GPRegression(ours_kernel, NOISE).fit(X, y)
    theirs = sk_gp.GaussianProcessRegressor(sk_kernel, alpha=NOISE, optimizer=None,
                                            normalize_y=False).fit(X, y)
    X_test = np.vstack([X[:5] + 0.1, RNG.uniform(-3, 3, (20, X.shape[1]))])
    mean, var = ours.predict(X_test)
    sk_mean, sk_std = theirs.predict(X_test, return_std=True)
    np.testing.assert_allclose(mean, sk_mean, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(np.sqrt(var), sk_std, rtol=1e-7, atol=1e-8)
    _, cov = ours.predict(X_test, full_cov=True)
    _, sk_cov = theirs.predict(X_test, return_cov=True)
    np.testing.assert_allclose(cov, sk_cov, atol=1e-10)
    evidence = ours.evidence(eval_gradient=True)
    value, grad = evidence.value, evidence.gradient
    sk_value, sk_grad = theirs.log_marginal_likelihood(theirs.kernel_.theta, eval_gradient=True)
    assert value == pytest.approx(sk_value, rel=1e-10)
    # ours: kernel log-parameters then log noise; scikit-learn: kernel theta only (alpha fixed),
    # without fixed parameters, operands left to right but each kernel's own parameters sorted
    # alphabetically (RationalQuadratic: alpha before length_scale): the optional last entry of
    # a case reorders ours; the factor converts DotProduct's log sigma_0 to our log variance.
    free = ~np.isclose(ours.kernel.bounds[:, 0], ours.kernel.bounds[:, 1])
    ours_grad = grad[:-1][free] * grad_factor
    if order:
        ours_grad = ours_grad[order[0]]
    np.testing.assert_allclose(ours_grad, sk_grad, rtol=1e-7, atol=1e-9)


def test_noise_gradient_matches_sklearn_white_kernel():
    # noise as a learnable WhiteKernel in scikit-learn (theta: log c, log ell, log noise), alpha=0
    ours = GPRegression(SquaredExponential(0.9, 1.7), NOISE).fit(X3, Y3)
    sk_kernel = skk.ConstantKernel(1.7) * skk.RBF(0.9) + skk.WhiteKernel(NOISE)
    theirs = sk_gp.GaussianProcessRegressor(sk_kernel, alpha=0.0, optimizer=None).fit(X3, Y3)
    evidence = ours.evidence(eval_gradient=True)
    value, grad = evidence.value, evidence.gradient
    sk_value, sk_grad = theirs.log_marginal_likelihood(theirs.kernel_.theta, eval_gradient=True)
    assert value == pytest.approx(sk_value, rel=1e-10)
    np.testing.assert_allclose(grad, sk_grad, rtol=1e-8)
    # with a WhiteKernel, scikit-learn's predicted std is that of y* (noise included)
    _, var = ours.predict(X3[:7], include_noise=True)
    np.testing.assert_allclose(np.sqrt(var), theirs.predict(X3[:7], return_std=True)[1], rtol=1e-7)
    # and our White kernel is the same object as scikit-learn's
    ours_white = GPRegression(SquaredExponential(0.9, 1.7) + White(NOISE), 0.0).fit(X3, Y3)
    assert ours_white.log_evidence() == pytest.approx(sk_value, rel=1e-10)


def test_optimised_evidence_is_at_least_sklearns():
    # both start from the same point with restarts; ours must reach an optimum as good
    kernel = SquaredExponential(1.0, 1.0, lengthscale_bounds=(1e-2, 1e2),
                                variance_bounds=(1e-2, 1e2))
    ours = GPRegression(kernel, 0.1, noise_bounds=(1e-5, 10.0)).fit(X1, Y1)
    # our n_restarts counts every run (the first from the initial theta); scikit-learn's
    # n_restarts_optimizer counts the runs after the first: 3 runs each
    fit = ours.optimise_hyperparameters(n_restarts=3, rng=0)
    assert fit.ends.shape[0] == 3
    sk_kernel = (skk.ConstantKernel(1.0, (1e-2, 1e2)) * skk.RBF(1.0, (1e-2, 1e2))
                 + skk.WhiteKernel(0.1, (1e-5, 10.0)))
    theirs = sk_gp.GaussianProcessRegressor(sk_kernel, alpha=0.0, n_restarts_optimizer=2,
                                            random_state=0).fit(X1, Y1)
    assert fit.objective >= theirs.log_marginal_likelihood_value_ - 1e-6
