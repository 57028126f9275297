"""The Laplace approximation on z = M f (course_lib.preference.laplace).

Oracles: brute-force maximisation of the log posterior (scipy.optimize, with K^-1 formed
explicitly for these tiny well-conditioned problems); the exact Gaussian posterior and evidence
for the pairwise Gaussian likelihood (closed forms, thesis eqs. 2.44); the true posterior on a
dense grid for two and three items; central finite differences of the Laplace evidence for its
gradient (with the implicit term, and without it to show the term matters). BoTorch's
PairwiseGP is the library cross-check, in tests/preference/test_preference_gp.py (frozen values).
"""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import multivariate_normal

from course_lib.gp import SquaredExponential
from course_lib.preference.laplace import laplace_mode, newton_path
from course_lib.preference.laplace import InvalidLaplaceError
from course_lib.preference.likelihoods import Likelihood
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.linalg import JitterWarning
from numerics import assert_non_decreasing, round_off


def pairs_matrix(first, second, n):
    M = np.zeros((len(first), n))
    M[np.arange(len(first)), first] = 1.0
    M[np.arange(len(first)), second] = -1.0
    return M


def random_problem(rng, n=8, m=12, dim=2, lengthscale=0.9, variance=1.5):
    X = rng.uniform(-1.5, 1.5, (n, dim))
    first = rng.integers(0, n, m)
    second = (first + rng.integers(1, n, m)) % n
    kernel = SquaredExponential(lengthscale, variance)
    truth = np.sin(2 * X[:, 0]) + X[:, 1]
    return X, kernel, pairs_matrix(first, second, n), truth[first] - truth[second]


def binary_answers(rng, z):
    return (z + 0.5 * rng.standard_normal(z.size) > 0).astype(float)


def brute_force_mode(K, M, likelihood, y, start):
    """argmax of log p(y | M f) - 1/2 f^T K^-1 f by BFGS with the analytic gradient (the
    scipy run: x, and jac, the gradient where it stopped)."""
    K_inv = np.linalg.inv(K)

    def negative(f):
        terms = likelihood.terms(M @ f, y)
        return (-(terms.log_likelihood.sum() - 0.5 * f @ K_inv @ f),
                -(M.T @ terms.gradient - K_inv @ f))

    return minimize(negative, start, jac=True, method="BFGS", options={"gtol": 1e-10})


def assert_brute_force_finds(f_hat, K, M, likelihood, y, start):
    """BFGS from ``start`` ends at the mode f_hat. It stops (gtol, or stalled by round-off)
    where its gradient g is small, at a point that moves with the BLAS kernel: near the mode
    f - f_hat ~ H^-1 g, H = K^-1 + M^T W M the negative Hessian there, so the two agree within
    |g| / lambda_min(H) (4 times that allowed) plus round-off of f_hat."""
    run = brute_force_mode(K, M, likelihood, y, start)
    W = likelihood.terms(M @ f_hat, y).curvature
    H = np.linalg.inv(K) + M.T @ (W[:, None] * M)
    stopped = 4 * np.linalg.norm(run.jac) / np.linalg.eigvalsh(H).min()
    np.testing.assert_allclose(run.x, f_hat, rtol=0,
                               atol=stopped + round_off(np.linalg.cond(H) * np.abs(f_hat).max()))


# ----- the mode -------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["m x m", "n x n", "L_K"])
def test_probit_mode_equals_brute_force_optimisation(form):
    rng = np.random.default_rng(0)
    X, kernel, M, z = random_problem(rng)
    y = binary_answers(rng, z)
    K, likelihood = kernel(X), PairwiseProbit(0.8)
    result = laplace_mode(K, M, likelihood, y, form=form, tol=1e-12)
    assert result.converged and result.form == form
    assert_brute_force_finds(result.f_hat, K, M, likelihood, y, rng.standard_normal(X.shape[0]))
    # at the mode K^-1 f_hat = M^T g: the predictive weights need no K^-1
    np.testing.assert_allclose(result.alpha, M.T @ result.terms.gradient, atol=1e-9)
    np.testing.assert_allclose(K @ result.alpha, result.f_hat, atol=1e-12)


def test_three_forms_give_the_same_posterior_and_evidence():
    rng = np.random.default_rng(1)
    X, kernel, M, z = random_problem(rng, n=9, m=14)
    y = binary_answers(rng, z)
    K, likelihood = kernel(X), PairwiseProbit(0.6)
    first, *others = (laplace_mode(K, M, likelihood, y, form=form, tol=1e-13)
                      for form in ("m x m", "n x n", "L_K"))
    X_test = rng.uniform(-1.5, 1.5, (6, 2))
    for other in others:
        np.testing.assert_allclose(first.f_hat, other.f_hat, atol=1e-10)
        assert first.log_evidence == pytest.approx(other.log_evidence, abs=1e-10)
        assert first.log_det == pytest.approx(other.log_det, rel=1e-10)
        np.testing.assert_allclose(first.covariance(), other.covariance(), atol=1e-10)
        for full in (False, True):
            K_test = kernel(X_test) if full else kernel.diag(X_test)
            a = first.posterior.predict(kernel(X, X_test), K_test)
            b = other.posterior.predict(kernel(X, X_test), K_test)
            np.testing.assert_allclose(a[0], b[0], atol=1e-10)
            np.testing.assert_allclose(a[1], b[1], atol=1e-10)


def test_auto_form_picks_the_smaller_matrix():
    rng = np.random.default_rng(2)
    X, kernel, M, z = random_problem(rng, n=6, m=10)
    y = binary_answers(rng, z)
    assert laplace_mode(kernel(X), M, PairwiseProbit(), y).form == "n x n"
    assert laplace_mode(kernel(X), M[:5], PairwiseProbit(), y[:5]).form == "m x m"


def test_predictions_follow_the_two_equations():
    """m* = K*^T K^-1 f_hat, S* = K** - K*^T K^-1 K* + K*^T K^-1 Sigma K^-1 K* (dense)."""
    rng = np.random.default_rng(3)
    X, kernel, M, z = random_problem(rng)
    y = binary_answers(rng, z)
    K = kernel(X)
    X_test = rng.uniform(-1.5, 1.5, (5, 2))
    K_cross, K_test = kernel(X, X_test), kernel(X_test)
    for form in ("m x m", "n x n", "L_K"):
        result = laplace_mode(K, M, PairwiseProbit(), y, form=form, tol=1e-12)
        Sigma = result.covariance()
        # Sigma is the inverse of K^-1 + W (W never inverted)
        W = M.T @ np.diag(result.terms.curvature) @ M
        np.testing.assert_allclose(Sigma @ (np.linalg.inv(K) + W), np.eye(8), atol=1e-8)
        A = np.linalg.solve(K, K_cross)
        mean, cov = result.posterior.predict(K_cross, K_test)
        np.testing.assert_allclose(mean, A.T @ result.f_hat, atol=1e-8)
        np.testing.assert_allclose(cov, K_test - K_cross.T @ A + A.T @ Sigma @ A, atol=1e-8)
        # at the training items: f_hat and the diagonal of Sigma
        train_mean, train_var = result.posterior.predict(K, np.diag(K))
        np.testing.assert_allclose(train_mean, result.f_hat, atol=1e-10)
        np.testing.assert_allclose(train_var, np.diag(Sigma), atol=1e-10)


# ----- the Gaussian case is exact -------------------------------------------------------------
@pytest.mark.parametrize("m", [5, 15])
def test_pairwise_gaussian_gives_the_exact_posterior_and_evidence(m):
    """Thesis eq. 2.44: mu = K M^T (M K M^T + s^2 I)^-1 y, Sigma = K - K M^T (...)^-1 M K,
    log p(y) = log N(y | 0, M K M^T + s^2 I): Laplace is exact for a Gaussian likelihood."""
    rng = np.random.default_rng(4)
    X, kernel, M, z = random_problem(rng, n=8, m=m)
    noise_sd = 0.4
    y = z + noise_sd * rng.standard_normal(m)
    K = kernel(X)
    result = laplace_mode(K, M, PairwiseGaussian(noise_sd), y)
    S = M @ K @ M.T + noise_sd ** 2 * np.eye(m)
    np.testing.assert_allclose(result.f_hat, K @ M.T @ np.linalg.solve(S, y), atol=1e-10)
    np.testing.assert_allclose(result.covariance(), K - K @ M.T @ np.linalg.solve(S, M @ K),
                               atol=1e-10)
    assert result.log_evidence == pytest.approx(
        multivariate_normal(np.zeros(m), S).logpdf(y), abs=1e-9)
    assert result.n_iter <= 2   # a quadratic log posterior: one Newton step lands on the mode


# ----- against the true posterior on a grid ---------------------------------------------------
def grid_posterior(K, M, likelihood, y, half_width, n_points):
    """Normalised true posterior on a regular grid over f (len(K) = 2 or 3 items)."""
    axis = np.linspace(-half_width, half_width, n_points)
    mesh = np.meshgrid(*([axis] * K.shape[0]), indexing="ij")
    F = np.stack([g.ravel() for g in mesh], axis=1)
    log_post = multivariate_normal(np.zeros(K.shape[0]), K).logpdf(F)
    Z = F @ M.T
    for k in range(M.shape[0]):
        log_post += likelihood.log_likelihood(Z[:, k], np.full(F.shape[0], y[k]))
    weights = np.exp(log_post - log_post.max())
    return F, weights / weights.sum()


@pytest.mark.parametrize("answers", [[1, 1, 0], [1], [1, 1, 1, 1, 1, 0, 1, 1]])
def test_two_items_laplace_moments_close_to_the_grid_posterior(answers):
    """The Laplace Gaussian is an approximation: for probit comparisons of two items its mean
    lies within 0.06 and its covariance entries within 0.01 of the true posterior's (grid of
    401 x 401 on [-7, 7]^2, quadrature error far below that); the mode itself is exact."""
    X = np.array([[0.0], [1.0]])
    K = SquaredExponential(1.0, 1.0)(X)
    y = np.array(answers, dtype=float)
    M = np.tile([1.0, -1.0], (y.size, 1))
    likelihood = PairwiseProbit(1.0)
    result = laplace_mode(K, M, likelihood, y, tol=1e-12)
    F, weights = grid_posterior(K, M, likelihood, y, 7.0, 401)
    mean = weights @ F
    cov = (F - mean).T @ ((F - mean) * weights[:, None])
    np.testing.assert_allclose(result.f_hat, mean, atol=0.06)
    np.testing.assert_allclose(result.covariance(), cov, atol=0.01)
    # the mode is not approximate: it matches brute-force optimisation
    assert_brute_force_finds(result.f_hat, K, M, likelihood, y, mean)
    # skew: the true mean lies further from 0 than the mode (the probit tail is one-sided)
    assert np.all(np.abs(mean) >= np.abs(result.f_hat))


def test_three_items_laplace_moments_close_to_the_grid_posterior():
    """Three items, four probit comparisons (3-D grid of 81^3 on [-5, 5]^3): mean within 0.06,
    covariance within 0.02 of the true posterior."""
    X = np.array([[0.0], [0.7], [1.6]])
    K = SquaredExponential(1.0, 1.0)(X)
    M = np.array([[1, -1, 0], [0, 1, -1], [1, 0, -1], [1, -1, 0]], dtype=float)
    y = np.array([1, 1, 1, 0], dtype=float)
    likelihood = PairwiseProbit(0.7)
    result = laplace_mode(K, M, likelihood, y, tol=1e-12)
    F, weights = grid_posterior(K, M, likelihood, y, 5.0, 81)
    mean = weights @ F
    cov = (F - mean).T @ ((F - mean) * weights[:, None])
    np.testing.assert_allclose(result.f_hat, mean, atol=0.06)
    np.testing.assert_allclose(result.covariance(), cov, atol=0.02)


# ----- orientation ----------------------------------------------------------------------------
def test_swapping_the_options_leaves_the_posterior_unchanged():
    """first <-> second (M -> -M) with y -> 1 - y is the same data."""
    rng = np.random.default_rng(5)
    X, kernel, M, z = random_problem(rng)
    y = binary_answers(rng, z)
    K = kernel(X)
    a = laplace_mode(K, M, PairwiseProbit(0.7), y, tol=1e-12)
    b = laplace_mode(K, -M, PairwiseProbit(0.7), 1.0 - y, tol=1e-12)
    np.testing.assert_allclose(a.f_hat, b.f_hat, atol=1e-12)
    np.testing.assert_allclose(a.covariance(), b.covariance(), atol=1e-12)
    assert a.log_evidence == pytest.approx(b.log_evidence, abs=1e-12)


# ----- graph pathologies ----------------------------------------------------------------------
def test_disconnected_graph_fits_each_component_as_alone_when_the_prior_separates_them():
    """Two groups of items far apart (prior covariance between them ~ 0), compared only
    within each group: the joint fit equals the two separate fits, finite everywhere."""
    rng = np.random.default_rng(6)
    X = np.vstack([rng.uniform(0, 1, (4, 1)), 100.0 + rng.uniform(0, 1, (4, 1))])
    kernel = SquaredExponential(0.8, 1.0)
    M = pairs_matrix([0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7], 8)
    y = np.array([1, 0, 1, 1, 1, 0], dtype=float)
    K = kernel(X)
    joint = laplace_mode(K, M, PairwiseProbit(), y, tol=1e-12)
    assert joint.converged and np.all(np.isfinite(joint.f_hat))
    for items, rows in ((slice(0, 4), slice(0, 3)), (slice(4, 8), slice(3, 6))):
        alone = laplace_mode(K[items, items], M[rows, items], PairwiseProbit(), y[rows],
                             tol=1e-12)
        np.testing.assert_allclose(joint.f_hat[items], alone.f_hat, atol=1e-10)


def test_an_item_that_only_wins_stays_finite_thanks_to_the_prior():
    """Item 0 wins all 20 of its comparisons: the likelihood alone would push f_0 to +inf; the
    prior keeps the mode finite, and a wider prior lets it go further."""
    X = np.array([[0.0], [1.0], [2.0]])
    M = pairs_matrix([0] * 10 + [0] * 10, [1] * 10 + [2] * 10, 3)
    y = np.ones(20)
    modes = []
    for variance in (1.0, 100.0):
        K = SquaredExponential(1.0, variance)(X)
        result = laplace_mode(K, M, PairwiseProbit(), y, tol=1e-12)
        assert result.converged and np.all(np.isfinite(result.f_hat))
        assert_brute_force_finds(result.f_hat, K, M, PairwiseProbit(), y, np.zeros(3))
        modes.append(result.f_hat[0] - result.f_hat[1:].max())
    assert 0 < modes[0] < modes[1]


def test_duplicate_items_share_one_utility():
    """Items 0 and 1 are the same setting (K singular). The R forms need no Cholesky of K and
    put both at the utility of the consolidated item; the L_K form needs jitter and says so."""
    X = np.array([[0.0], [0.0], [1.0], [2.0]])
    kernel = SquaredExponential(1.0, 1.0)
    M = pairs_matrix([0, 1, 2], [2, 3, 3], 4)
    y = np.array([1.0, 1.0, 0.0])
    merged = laplace_mode(kernel(X[1:]), pairs_matrix([0, 0, 1], [1, 2, 2], 3),
                          PairwiseProbit(), y, tol=1e-12)
    for form in ("m x m", "n x n"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")    # no jitter
            result = laplace_mode(kernel(X), M, PairwiseProbit(), y, form=form, tol=1e-12)
        assert result.f_hat[0] == pytest.approx(result.f_hat[1], abs=1e-12)
        np.testing.assert_allclose(result.f_hat[1:], merged.f_hat, atol=1e-10)
        assert result.log_evidence == pytest.approx(merged.log_evidence, abs=1e-10)
    with pytest.warns(JitterWarning):
        jittered = laplace_mode(kernel(X), M, PairwiseProbit(), y, form="L_K", tol=1e-12)
    assert jittered.jitter > 0
    np.testing.assert_allclose(jittered.f_hat, result.f_hat, atol=1e-4)


# ----- warm starts and the iteration cap ------------------------------------------------------
def test_warm_starts_reach_the_same_mode_in_fewer_steps():
    rng = np.random.default_rng(7)
    X, kernel, M, z = random_problem(rng, n=10, m=20)
    y = binary_answers(rng, z)
    cold = laplace_mode(kernel(X), M, PairwiseProbit(), y, tol=1e-12)
    # hyper-parameters moved a little: start from the old weights, or the old latents
    K_new = kernel.with_theta(kernel.theta + 0.05)(X)
    reference = laplace_mode(K_new, M, PairwiseProbit(), y, tol=1e-12)
    by_alpha = laplace_mode(K_new, M, PairwiseProbit(), y, alpha0=cold.alpha, tol=1e-12)
    by_f = laplace_mode(K_new, M, PairwiseProbit(), y, f0=cold.f_hat, tol=1e-12)
    for warm in (by_alpha, by_f):
        np.testing.assert_allclose(warm.f_hat, reference.f_hat, atol=1e-9)
        assert warm.n_iter < reference.n_iter
    # a start worse than f = 0 is not taken
    silly = laplace_mode(K_new, M, PairwiseProbit(), y, alpha0=-50 * cold.alpha, tol=1e-12)
    assert silly.n_iter == reference.n_iter
    np.testing.assert_allclose(silly.f_hat, reference.f_hat, atol=1e-12)


def test_iteration_cap_is_reported():
    rng = np.random.default_rng(8)
    X, kernel, M, z = random_problem(rng, n=10, m=20)
    y = binary_answers(rng, z)
    capped = laplace_mode(kernel(X), M, PairwiseProbit(0.3), y, max_iter=1)
    assert capped.n_iter == 1 and not capped.converged


def test_newton_path_is_the_iteration_of_laplace_mode():
    """newton_path drives the same step function: it starts at f = 0 (psi of the prior mean),
    climbs monotonically, ends on laplace_mode's f_hat after as many steps, and its predicted
    gains shrink quadratically once full steps are taken."""
    rng = np.random.default_rng(15)
    X, kernel, M, z = random_problem(rng, n=10, m=20)
    y = binary_answers(rng, z)
    K = kernel(X)
    result = laplace_mode(K, M, PairwiseProbit(0.5), y, tol=1e-12)
    path = newton_path(K, M, PairwiseProbit(0.5), y, tol=1e-12)
    assert len(path) == result.n_iter + 1
    np.testing.assert_array_equal(path[0].f, np.zeros(10))
    np.testing.assert_allclose(path[-1].f, result.f_hat, atol=0)
    # climbs: each Armijo step gains; the last full step (gain below tol) may fall by round-off
    # of psi, which laplace_mode accepts too
    assert_non_decreasing([step.psi for step in path], what="Newton's psi")
    gains = np.array([step.predicted_gain for step in path[1:]])
    assert np.all(gains[2:] < gains[1:-1] ** 1.5)   # superlinear: gain_k+1 << gain_k
    assert not any(step.clipped for step in path)   # probit: log-concave
    # a Beta likelihood from far away: clipped steps first, then exact Newton
    rng = np.random.default_rng(14)   # the set-up of the bad-start test below
    X, kernel, M, likelihood, y = beta_problem(rng)
    far = 8.0 * rng.standard_normal(8)
    beta_path = newton_path(kernel(X), M, likelihood, y, f0=far, tol=1e-12)
    assert beta_path[1].clipped and not beta_path[-1].clipped


def dense_newton_point(K, M, likelihood, y, f, clip):
    """f_new = (K^-1 + W)^-1 (W f + M^T g) = K (I + W K)^-1 b at f (R&W eq. 3.18), densely;
    ``clip``: with the weights max(w, 0)."""
    terms = likelihood.terms(M @ f, y)
    w = np.maximum(terms.curvature, 0.0) if clip else terms.curvature
    W = M.T @ (w[:, None] * M)
    b = M.T @ (w * (M @ f) + terms.gradient)
    return K @ np.linalg.solve(np.eye(K.shape[0]) + W @ K, b), W


def dense_psi(K, M, likelihood, y, f):
    return likelihood.terms(M @ f, y).log_likelihood.sum() - 0.5 * f @ np.linalg.solve(K, f)


def test_predicted_gain_is_half_the_newton_decrement_and_the_stopping_rule_uses_it():
    """The first step from f = 0 predicts 1/2 grad psi^T (K^-1 + W)^-1 grad psi; Newton stops
    at the first step whose predicted gain is below tol (here tol = 1.5 x a gain on the way)."""
    rng = np.random.default_rng(15)
    X, kernel, M, z = random_problem(rng, n=10, m=20)
    y = binary_answers(rng, z)
    K, likelihood = kernel(X), PairwiseProbit(0.5)
    path = newton_path(K, M, likelihood, y, tol=1e-14)
    f_new, W = dense_newton_point(K, M, likelihood, y, np.zeros(10), clip=False)
    np.testing.assert_allclose(path[1].f, f_new, atol=1e-10)
    gradient = M.T @ likelihood.terms(np.zeros(20), y).gradient
    assert path[1].predicted_gain == pytest.approx(
        0.5 * gradient @ np.linalg.solve(np.linalg.inv(K) + W, gradient), rel=1e-8)
    gains = [step.predicted_gain for step in path[1:]]
    k = 4                                       # gains[k - 1] is the gain of step k
    assert gains[k - 2] > 1.5 * gains[k - 1] > 1e-4
    stopped = newton_path(K, M, likelihood, y, tol=1.5 * gains[k - 1])
    assert len(stopped) == k + 1
    assert laplace_mode(K, M, likelihood, y, tol=1.5 * gains[k - 1]).n_iter == k


def test_each_step_heads_for_the_newton_point_and_backtracks_by_armijo():
    """A Beta likelihood from far away: every step moves towards the Newton point of its start
    (of the clipped weights max(w, 0) where the step is clipped), by the largest of the sizes
    1, 1/2, 1/4, ... whose psi meets Armijo's condition psi_new >= psi + 1e-4 t slope, with the
    slope twice the predicted gain."""
    rng = np.random.default_rng(14)   # the set-up of the bad-start test below
    X, kernel, M, likelihood, y = beta_problem(rng)
    K = kernel(X)
    far = 8.0 * rng.standard_normal(8)
    path = newton_path(K, M, likelihood, y, f0=far, tol=1e-12)
    assert path[1].clipped and any(0 < step.step_size < 1 for step in path)
    for before, step in zip(path[:-1], path[1:]):
        full, _ = dense_newton_point(K, M, likelihood, y, before.f, clip=step.clipped)
        t = step.step_size
        np.testing.assert_allclose(step.f, before.f + t * (full - before.f),
                                   atol=1e-8 * (1 + np.abs(full).max()))
        slope = 2 * step.predicted_gain
        if 0 < t < 1:
            assert step.psi >= before.psi + 1e-4 * t * slope
            doubled = before.f + 2 * t * (full - before.f)
            assert dense_psi(K, M, likelihood, y, doubled) < before.psi + 1e-4 * 2 * t * slope


# ----- evidence gradient ------------------------------------------------------------------------
def evidence_fd(kernel, likelihood, X, M, y, step=1e-5):
    """Central differences of the Laplace log evidence in (kernel theta, likelihood theta)."""
    theta = np.concatenate([kernel.theta, likelihood.theta])
    P = kernel.n_params

    def evidence(t):
        return laplace_mode(kernel.with_theta(t[:P])(X), M, likelihood.with_theta(t[P:]), y,
                            tol=1e-14).log_evidence

    return np.array([(evidence(theta + step * e) - evidence(theta - step * e)) / (2 * step)
                     for e in np.eye(theta.size)])


@pytest.mark.parametrize("form", ["m x m", "n x n", "L_K"])
def test_probit_evidence_gradient_matches_finite_differences(form):
    rng = np.random.default_rng(9)
    X, _, M, z = random_problem(rng, n=8, m=12)
    kernel = SquaredExponential([0.7, 1.3], 1.5)   # ARD: three kernel parameters
    likelihood = PairwiseProbit(0.6)
    y = binary_answers(rng, z)
    K, dK = kernel.gradient(X)
    result = laplace_mode(K, M, likelihood, y, form=form, tol=1e-14)
    analytic = np.concatenate(result.evidence_gradient(dK))
    numeric = evidence_fd(kernel, likelihood, X, M, y)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-7)


def test_dropping_the_implicit_term_fails_the_finite_difference_check():
    """Trap: f_hat depends on theta. Without d log q / d f_hat . d f_hat / d theta the gradient
    is off by far more than the finite-difference error (which is below 1e-7 here)."""
    rng = np.random.default_rng(10)
    X, kernel, M, z = random_problem(rng, n=8, m=12)
    likelihood = PairwiseProbit(0.6)
    y = binary_answers(rng, z)
    K, dK = kernel.gradient(X)
    result = laplace_mode(K, M, likelihood, y, tol=1e-14)
    numeric = evidence_fd(kernel, likelihood, X, M, y)
    with_term = np.concatenate(result.evidence_gradient(dK))
    without = np.concatenate(result.evidence_gradient(dK, implicit=False))
    assert np.max(np.abs(with_term - numeric)) < 1e-6
    assert np.max(np.abs(without - numeric)) > 1e-2


def test_gaussian_evidence_gradient_matches_finite_differences():
    """Third derivative 0: the implicit term vanishes and the gradient is the exact one."""
    rng = np.random.default_rng(11)
    X, kernel, M, z = random_problem(rng, n=8, m=12)
    likelihood = PairwiseGaussian(0.5)
    y = z + 0.5 * rng.standard_normal(z.size)
    K, dK = kernel.gradient(X)
    result = laplace_mode(K, M, likelihood, y, tol=1e-14)
    analytic = np.concatenate(result.evidence_gradient(dK))
    np.testing.assert_allclose(analytic, evidence_fd(kernel, likelihood, X, M, y), rtol=1e-6,
                               atol=1e-7)
    np.testing.assert_allclose(analytic,
                               np.concatenate(result.evidence_gradient(dK, implicit=False)),
                               atol=1e-12)


# ----- a likelihood that is not log-concave: PairwiseBeta -------------------------------------
def beta_problem(rng, n=8, m=14):
    X, kernel, M, z = random_problem(rng, n=n, m=m)
    likelihood = PairwiseBeta(0.5, 12.0)
    mu = 1.0 / (1.0 + np.exp(-z))
    y = rng.beta(12.0 * mu, 12.0 * (1.0 - mu))
    return X, kernel, M, likelihood, y


def test_beta_mode_equals_brute_force_and_gradient_matches_finite_differences():
    rng = np.random.default_rng(12)
    X, kernel, M, likelihood, y = beta_problem(rng)
    K, dK = kernel.gradient(X)
    result = laplace_mode(K, M, likelihood, y, tol=1e-14)
    assert result.converged
    assert_brute_force_finds(result.f_hat, K, M, likelihood, y, np.zeros(X.shape[0]))
    analytic = np.concatenate(result.evidence_gradient(dK))
    numeric = evidence_fd(kernel, likelihood, X, M, y)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_beta_answers_of_exactly_zero_and_one_are_clipped_not_infinite():
    rng = np.random.default_rng(13)
    X, kernel, M, likelihood, y = beta_problem(rng)
    y[:3] = [0.0, 1.0, 0.5]
    result = laplace_mode(kernel(X), M, likelihood, y, tol=1e-12)
    assert result.converged and np.isfinite(result.log_evidence)
    assert np.all(np.isfinite(result.f_hat))


def test_beta_negative_curvature_is_handled_from_a_bad_start():
    """Started far out where some w < 0 and K^-1 + W is indefinite, Newton takes clipped-weight
    steps uphill and ends on the same mode as from f = 0 (where it is positive definite)."""
    rng = np.random.default_rng(14)
    X, kernel, M, likelihood, y = beta_problem(rng)
    K = kernel(X)
    reference = laplace_mode(K, M, likelihood, y, tol=1e-12)
    far = 8.0 * rng.standard_normal(X.shape[0])
    start_w = likelihood.terms(M @ far, y).curvature
    assert np.any(start_w < 0)
    K_inv_plus_W = np.linalg.inv(K) + M.T @ np.diag(start_w) @ M
    assert np.linalg.eigvalsh(K_inv_plus_W)[0] < 0
    result = laplace_mode(K, M, likelihood, y, f0=far, tol=1e-12)
    assert result.n_clipped >= 1 and result.converged
    np.testing.assert_allclose(result.f_hat, reference.f_hat, atol=1e-6)


@pytest.mark.parametrize("answers", [[0.999, 0.5], [0.99, 0.99, 0.3]])
def test_beta_mode_with_negative_curvature_is_a_valid_laplace_point(answers):
    """Two items: a decisive answer and an indifferent (or contrary) one. At the mode the
    indifferent answer has w < 0 (the Beta likelihood is not log-concave), yet K^-1 + W is
    positive definite there, so the Laplace approximation exists (the L_K form): its mode equals
    brute force, its evidence gradient passes finite differences, and its moments lie within
    0.03 (mean) and 0.005 (covariance) of the true posterior's on a 401 x 401 grid."""
    X = np.array([[0.0], [1.0]])
    kernel = SquaredExponential(1.0, 1.0)
    K, dK = kernel.gradient(X)
    y = np.array(answers)
    M = np.tile([1.0, -1.0], (y.size, 1))
    likelihood = PairwiseBeta(1.0, 30.0)
    result = laplace_mode(K, M, likelihood, y, tol=1e-14)
    assert result.form == "L_K" and np.any(result.terms.curvature < 0)
    assert np.all(np.linalg.eigvalsh(np.linalg.inv(result.covariance())) > 0)
    F, weights = grid_posterior(K, M, likelihood, y, 7.0, 401)
    mean = weights @ F
    cov = (F - mean).T @ ((F - mean) * weights[:, None])
    assert_brute_force_finds(result.f_hat, K, M, likelihood, y, mean)
    np.testing.assert_allclose(result.f_hat, mean, atol=0.03)
    np.testing.assert_allclose(result.covariance(), cov, atol=0.005)
    np.testing.assert_allclose(np.concatenate(result.evidence_gradient(dK)),
                               evidence_fd(kernel, likelihood, X, M, y), rtol=1e-6, atol=1e-7)


class SymmetricMixture(Likelihood):
    """p(y | z) = (N(y; z, s^2) + N(y; -z, s^2)) / 2: bimodal in z, so z = 0 is a saddle of the
    posterior when y is far from 0 (a test double for the invalid-Laplace error)."""

    observation_kind = "pair-difference"
    _names = ("noise_sd",)

    def __init__(self, noise_sd=0.5):
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": "fixed"})

    def _check_domain(self, y, name):
        return y

    def _derivatives(self, z, y, order):
        s2 = self._param("noise_sd") ** 2
        a, b = -(y - z) ** 2 / (2 * s2), -(y + z) ** 2 / (2 * s2)
        top = np.maximum(a, b)
        pa, pb = np.exp(a - top), np.exp(b - top)
        value = top + np.log(0.5 * (pa + pb)) - 0.5 * np.log(2 * np.pi * s2)
        ra, rb = pa / (pa + pb), pb / (pa + pb)
        da, db = (y - z) / s2, -(y + z) / s2            # d a / dz, d b / dz
        d1 = ra * da + rb * db
        d2 = ra * (da ** 2 - 1 / s2) + rb * (db ** 2 - 1 / s2) - d1 ** 2
        d3 = (ra * (da ** 3 - 3 * da / s2) + rb * (db ** 3 - 3 * db / s2)
              - 3 * d1 * (d2 + d1 ** 2) + 2 * d1 ** 3) if order >= 3 else None
        return value, d1, d2, d3

    def _parameter_terms(self, z, y):
        return np.zeros((1, 3, z.size))


def test_a_saddle_is_refused_loudly_not_hidden_by_jitter():
    X = np.array([[0.0], [3.0]])
    K = SquaredExponential(1.0, 25.0)(X)
    M = np.array([[1.0, -1.0]])
    y = np.array([3.0])
    likelihood = SymmetricMixture(0.5)
    with pytest.raises(InvalidLaplaceError, match="likelihood: K\\^-1 \\+ W is not positive"):
        laplace_mode(K, M, likelihood, y)   # f = 0 is stationary, by symmetry, and a saddle
    # started off the saddle, Newton climbs to one of the two peaks, a valid Laplace point
    result = laplace_mode(K, M, likelihood, y, f0=np.array([0.5, -0.5]), tol=1e-12)
    assert result.converged and result.z_hat[0] == pytest.approx(3.0, abs=0.2)
    assert np.all(np.linalg.eigvalsh(np.linalg.inv(result.covariance())) > 0)
