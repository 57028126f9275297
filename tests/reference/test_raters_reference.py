"""The multi-rater GP against scikit-learn's GaussianProcessRegressor at fixed hyper-parameters.

Two oracles from one reference library:
* the joint model = scikit-learn on the item means ybar with per-item noise ``alpha = sigma^2 /
  R_i`` (predictions equal; its log marginal likelihood plus the spread term c(sigma^2) equals
  the joint evidence; kernel gradients equal);
* the repeated model = scikit-learn on the flattened labels (every label a data point at its
  item's input) with ``alpha = sigma^2``: same evidence and predictions, and then the joint model
  equals it too.

Conventions (ours -> scikit-learn):
* ``SquaredExponential(lengthscale, variance)`` is ``ConstantKernel(variance) * RBF(lengthscale)``:
  RBF's ``length_scale`` is a length (not squared, exp(-d^2 / (2 l^2)) in both), and
  ConstantKernel's ``constant_value`` is a variance (sigma_f^2, not sigma_f). Both store log
  values in ``theta`` in the order (variance, lengthscale), so gradients compare entry by entry.
* Our ``noise_variance`` is one rater's sigma^2; scikit-learn's ``alpha`` is added to the
  diagonal in fit only: it is not a hyper-parameter (no gradient entry) and is not added to
  predicted standard deviations, so we compare latent predictions (``include_noise=False``).
* ``normalize_y=False`` (zero prior mean in both) and ``optimizer=None`` (fixed hyper-parameters).
"""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from course_lib.gp import SquaredExponential
from course_lib.rater_data import RaterData
from course_lib.raters import MultiRaterGP, joint_evidence

VARIANCE, LENGTHSCALE = 1.4, 0.8


def panel(seed):
    """20 items in 3-D, 5 raters, each item scored by 1 to 5 of them (missing labels)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (20, 3))
    truth = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2]
    Y = truth[:, None] + 0.5 * rng.standard_normal((20, 5))
    counts = rng.integers(1, 6, 20)
    for i, R in enumerate(counts):
        Y[i, rng.permutation(5)[R:]] = np.nan
    return X, RaterData.from_matrix(Y), rng.uniform(-2.5, 2.5, (15, 3))


def ours(mode, noise):
    return MultiRaterGP(SquaredExponential(LENGTHSCALE, VARIANCE), noise, mode=mode)


def theirs(alpha):
    return GaussianProcessRegressor(ConstantKernel(VARIANCE) * RBF(LENGTHSCALE), alpha=alpha,
                                    optimizer=None, normalize_y=False)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("sigma2", [0.1, 0.6])
def test_joint_model_is_sklearn_on_the_means_with_noise_sigma2_over_r(seed, sigma2):
    X, data, X_test = panel(seed)
    assert data.counts.min() < data.counts.max()  # varying numbers of raters
    joint = ours("joint", sigma2).fit(X, data)
    sk = theirs(sigma2 / data.counts).fit(X, data.means)
    mean, var = joint.predict(X_test)
    sk_mean, sk_std = sk.predict(X_test, return_std=True)
    np.testing.assert_allclose(mean, sk_mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.sqrt(var), sk_std, rtol=1e-8, atol=1e-10)
    _, cov = joint.predict(X_test, full_cov=True)
    np.testing.assert_allclose(cov, sk.predict(X_test, return_cov=True)[1], atol=1e-10)
    result = joint.evidence(eval_gradient=True)
    sk_value, sk_grad = sk.log_marginal_likelihood(sk.kernel_.theta, eval_gradient=True)
    assert result.value == pytest.approx(sk_value + result.spread_term, rel=1e-11)
    assert result.gp_term.value == pytest.approx(sk_value, rel=1e-11)
    np.testing.assert_allclose(result.gradient_kernel, sk_grad, rtol=1e-8, atol=1e-10)
    # the same through the function API, from scikit-learn's kernel matrix
    K = sk.kernel_(X)
    assert joint_evidence(K, data, sigma2).value == pytest.approx(result.value, rel=1e-11)


@pytest.mark.parametrize("seed", [0, 1])
def test_repeated_model_is_sklearn_on_the_flattened_labels(seed):
    X, data, X_test = panel(seed)
    sigma2 = 0.3
    repeated = ours("repeated", sigma2).fit(X, data)
    joint = ours("joint", sigma2).fit(X, data)
    sk = theirs(sigma2).fit(X[data.items], data.scores)  # M = sum R_i rows
    sk_value, sk_grad = sk.log_marginal_likelihood(sk.kernel_.theta, eval_gradient=True)
    for model in (repeated, joint):
        evidence = model.evidence(eval_gradient=True)
        assert evidence.value == pytest.approx(sk_value, rel=1e-11)
        np.testing.assert_allclose(evidence.gradient[:-1], sk_grad, rtol=1e-8, atol=1e-10)
        mean, var = model.predict(X_test)
        sk_mean, sk_std = sk.predict(X_test, return_std=True)
        np.testing.assert_allclose(mean, sk_mean, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(np.sqrt(var), sk_std, rtol=1e-7, atol=1e-9)
