"""GPR-MA / GPR-MANH against scikit-learn's GaussianProcessRegressor on the flattened labels.

Every label is its own data point at its item's input, with its own noise variance passed as
scikit-learn's per-point ``alpha`` (added to the diagonal in fit, not part of theta, not added
to predictions). At fixed hyper-parameters (``optimizer=None``) scikit-learn's evidence of the
M labels must equal ours (computed on the N items through the precision-weighted means), its
kernel gradient must equal ours (the weighted means do not depend on the kernel), and its
predictions of the latent must equal ours.

Kernel conventions: our SquaredExponential(lengthscale, variance) is
``ConstantKernel(variance) * RBF(lengthscale)``; both order theta as (log variance,
log lengthscale). Matern 5/2 likewise with ``Matern(nu=2.5)``.
"""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process import kernels as skk

from course_lib.gp import Matern52, SquaredExponential
from course_lib.rater_data import RaterData
from course_lib.raters.annotator_noise import AnnotatorNoiseGP
from course_lib.raters.regions import assign_regions
from course_lib.simulators.rater_scores import simulate_regions

LAMBDA = np.array([[0.0, 0.65, 1.0], [0.25, 0.0, 0.75], [0.1, 0.75, 0.0]])


def toy_problem():
    """Gil-González et al.'s toy: 60 inputs, 3 annotators with region-wise noise (zero diagonal)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (60, 1))
    gold = np.sin(2 * np.pi * X[:, 0]) * np.sin(6 * np.pi * X[:, 0])
    regions = assign_regions(X, 3, rng=rng)
    return X, simulate_regions(gold, regions, LAMBDA, rng=rng), regions.labels


def sparse_problem():
    """2-D inputs, 4 annotators with missing labels, two annotators who share no item."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (30, 2))
    table = np.sin(2 * X[:, :1]) + X[:, 1:] + rng.normal(0, 0.4, (30, 4))
    table[15:, 0] = np.nan                  # annotator 0: first half only
    table[:15, 3] = np.nan                  # annotator 3: second half only
    table[rng.uniform(size=(30, 4)) < 0.25] = np.nan
    table[np.isnan(table).all(axis=1), 1] = 0.5
    return X, RaterData.from_matrix(table), (X[:, 0] > 0).astype(int)


CASES = {
    "toy, GPR-MA, SE": (toy_problem, False, lambda: SquaredExponential(0.1, 1.2),
                        lambda: skk.ConstantKernel(1.2) * skk.RBF(0.1)),
    "toy, GPR-MANH, SE": (toy_problem, True, lambda: SquaredExponential(0.1, 1.2),
                          lambda: skk.ConstantKernel(1.2) * skk.RBF(0.1)),
    "sparse 2-D, GPR-MA, Matern 5/2": (
        sparse_problem, False, lambda: Matern52([0.7, 1.4], 0.9),
        lambda: skk.ConstantKernel(0.9) * skk.Matern([0.7, 1.4], nu=2.5)),
    "sparse 2-D, GPR-MANH, SE": (sparse_problem, True, lambda: SquaredExponential(0.6, 0.8),
                                 lambda: skk.ConstantKernel(0.8) * skk.RBF(0.6)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_matches_sklearn_on_the_flattened_labels(case):
    problem, by_region, ours_kernel, sk_kernel = CASES[case]
    X, data, regions = problem()
    n_regions = 2 if problem is sparse_problem else 3
    shape = (n_regions if by_region else 1, data.n_raters)
    table = np.random.default_rng(2).uniform(0.01, 0.8, shape)
    gp = AnnotatorNoiseGP(ours_kernel(), data.n_raters, regions if by_region else None,
                          noise_variance=table).fit(X, data)
    noise_per_label = gp.noise_table_.ravel()[gp._label_cells(data)]
    theirs = GaussianProcessRegressor(sk_kernel(), alpha=noise_per_label, optimizer=None,
                                      normalize_y=False).fit(X[data.items], data.scores)

    evidence = gp.evidence(eval_gradient=True)
    value, grad = evidence.value, evidence.gradient
    sk_value, sk_grad = theirs.log_marginal_likelihood(theirs.kernel_.theta, eval_gradient=True)
    assert value == pytest.approx(sk_value, rel=1e-10)
    np.testing.assert_allclose(grad[:gp.kernel.n_params], sk_grad, rtol=1e-7, atol=1e-8)

    X_test = np.random.default_rng(3).uniform(X.min(), X.max(), (40, X.shape[1]))
    mean, var = gp.predict(X_test)
    sk_mean, sk_std = theirs.predict(X_test, return_std=True)
    np.testing.assert_allclose(mean, sk_mean, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(np.sqrt(var), sk_std, rtol=1e-6, atol=1e-7)
    _, cov = gp.predict(X_test, full_cov=True)
    _, sk_cov = theirs.predict(X_test, return_cov=True)
    np.testing.assert_allclose(cov, sk_cov, atol=1e-9)
