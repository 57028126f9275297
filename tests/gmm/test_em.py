"""Tests for course_lib.gmm.em: E/M steps by hand, EM invariants, regularisation."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from course_lib.gmm.gaussian import fit_gaussian, gaussian_log_density
from course_lib.gmm.em import (average_log_likelihood, e_step, em_steps, m_step, predict,
                               predict_proba, score_samples)
from course_lib.gmm.mixture import ComponentCollapseWarning, CovariancePrior, GMMParams, sample_gmm
from course_lib.gmm.em import fit_gmm, initialise_gmm
from numerics import assert_non_decreasing

TRUE = GMMParams(np.array([0.5, 0.3, 0.2]),
                 np.array([[0.0, 0.0], [5.0, 1.0], [1.0, 6.0]]),
                 np.array([[[1.0, 0.5], [0.5, 1.0]], [[0.5, 0.0], [0.0, 2.0]],
                           [[1.0, -0.3], [-0.3, 0.4]]]), "full")


@pytest.fixture(scope="module")
def data():
    X, z = sample_gmm(TRUE, 3000, rng=0)
    return X, z


def test_e_step_matches_probability_space_by_hand():
    # 1-D, two components: gamma = pi_k N_k / sum, computed directly with scipy's pdf
    params = GMMParams(np.array([0.3, 0.7]), np.array([[0.0], [2.0]]),
                       np.array([[[1.0]], [[0.25]]]))
    X = np.array([[-1.0], [0.5], [1.0], [2.5]])
    joint = np.c_[0.3 * norm.pdf(X[:, 0], 0, 1), 0.7 * norm.pdf(X[:, 0], 2, 0.5)]
    gamma, ll = e_step(X, params)
    np.testing.assert_allclose(gamma, joint / joint.sum(1, keepdims=True), rtol=1e-12)
    assert ll == pytest.approx(np.log(joint.sum(1)).sum(), rel=1e-13)
    np.testing.assert_allclose(score_samples(X, params), np.log(joint.sum(1)), rtol=1e-13)
    np.testing.assert_array_equal(predict(X, params), [0, 0, 1, 1])


def test_e_step_in_log_space_survives_underflow():
    params = GMMParams(np.array([0.5, 0.5]), np.array([[0.0], [1.0]]),
                       np.array([[[0.01]], [[0.01]]]))
    X = np.array([[60.0]])
    with np.errstate(under="ignore"):   # the naive version: every density underflows to 0
        naive = 0.5 * norm.pdf(60.0, [0.0, 1.0], 0.1)
    assert np.all(naive == 0.0)
    gamma, ll = e_step(X, params)
    # gamma_2 / gamma_1 = exp((60^2 - 59^2) / (2 * 0.01)) is astronomically large
    np.testing.assert_allclose(gamma, [[0.0, 1.0]], atol=1e-300)
    assert np.isfinite(ll) and ll < -1e5


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
@pytest.mark.parametrize("offset", [1e8, -2e9])
def test_e_step_with_a_large_common_offset_gives_the_offset_free_answer(covariance_type, offset):
    # frames near 1e8: expanding (x - mu)^2 / s cancels catastrophically (responsibilities
    # off by 0.5); the E-step must give what it gives on the same points near 0
    X, _ = sample_gmm(TRUE, 400, rng=11)
    shifted = X + offset
    base = shifted - offset
    params = TRUE if covariance_type == "full" else GMMParams(
        TRUE.weights, TRUE.means, np.diagonal(TRUE.covariances, axis1=1, axis2=2).copy(),
        "diag")
    moved = GMMParams(params.weights, params.means + offset, params.covariances,
                      covariance_type)
    gamma, ll = e_step(shifted, moved)
    gamma0, ll0 = e_step(base, params)
    np.testing.assert_allclose(gamma, gamma0, atol=1e-6)
    assert ll == pytest.approx(ll0, rel=1e-8)
    fitted = fit_gmm(shifted, 3, covariance_type=covariance_type, init=moved, max_iter=20,
                     tol=0.0).params
    free = fit_gmm(base, 3, covariance_type=covariance_type, init=params, max_iter=20,
                   tol=0.0).params
    np.testing.assert_allclose(fitted.means - offset, free.means, atol=1e-5)
    np.testing.assert_allclose(fitted.covariances, free.covariances, rtol=1e-5, atol=1e-7)


def test_frame_whose_density_is_not_representable_is_refused():
    params = GMMParams(np.array([1.0]), np.zeros((1, 1)), np.array([[[1e-300]]]))
    with pytest.raises(ValueError, match="X: frame 1"):
        e_step(np.array([[0.0], [1e200]]), params)


def test_m_step_with_hard_assignments_is_per_class_ml(data):
    X, z = data
    gamma = np.eye(3)[z]
    for ct in ("full", "diag"):
        params = m_step(X, gamma, ct)
        for k in range(3):
            mu, Sigma = fit_gaussian(X[z == k], ct)
            np.testing.assert_allclose(params.means[k], mu, rtol=1e-12)
            np.testing.assert_allclose(params.covariances[k], Sigma, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(params.weights, np.bincount(z) / len(z))


def test_map_m_step_is_the_shrinkage_formula(data):
    X, z = data
    tau, psi = 7.0, np.array([2.0, 0.5])
    params = m_step(X, np.eye(3)[z], "full", prior=CovariancePrior(tau, psi))
    for k in range(3):
        Nk = np.sum(z == k)
        _, S = fit_gaussian(X[z == k])
        np.testing.assert_allclose(params.covariances[k], (Nk * S + tau * np.diag(psi)) /
                                   (Nk + tau), rtol=1e-10)


@pytest.mark.parametrize("covariance_type", ["full", "diag"])
@pytest.mark.parametrize("regulariser", [{}, {"variance_floor": 0.8},
                                         {"prior": CovariancePrior(50.0)}])
def test_em_objective_never_decreases(data, covariance_type, regulariser):
    X, _ = data
    result = fit_gmm(X[:1500], 4, covariance_type=covariance_type, init="random", max_iter=40,
                     tol=0.0, rng=1, **regulariser)
    assert result.n_iter == 40 and len(result.log_likelihood_trace) == 41
    assert_non_decreasing(result.objective_trace, what="EM's objective")
    if "prior" not in regulariser:
        np.testing.assert_array_equal(result.objective_trace, result.log_likelihood_trace)
    # the trace ends at the log-likelihood of the returned parameters
    assert result.log_likelihood == pytest.approx(e_step(X[:1500], result.params)[1], rel=1e-12)


def test_em_steps_is_the_loop_fit_gmm_drives(data):
    X, _ = data
    start = initialise_gmm(X[:600], 3, init="random", rng=3)
    for regulariser in ({}, {"variance_floor": 0.5}, {"prior": CovariancePrior(20.0)}):
        states = list(itertools.islice(em_steps(X[:600], start, **regulariser), 13))
        fitted = fit_gmm(X[:600], 3, init=start, max_iter=12, tol=0.0, **regulariser)
        np.testing.assert_allclose([s.log_likelihood for s in states],
                                   fitted.log_likelihood_trace, rtol=1e-12)
        np.testing.assert_allclose([s.objective for s in states], fitted.objective_trace,
                                   rtol=1e-12)
        np.testing.assert_allclose(states[-1].params.means, fitted.params.means, rtol=1e-12)
        np.testing.assert_allclose(states[-1].responsibilities, fitted.responsibilities,
                                   rtol=1e-12, atol=1e-300)
    # each state's responsibilities are the E-step of its parameters, and the next M-step
    # is m_step of them
    first, second = itertools.islice(em_steps(X[:600], start), 2)
    np.testing.assert_allclose(first.responsibilities, e_step(X[:600], start)[0])
    np.testing.assert_allclose(second.params.covariances,
                               m_step(X[:600], first.responsibilities).covariances, rtol=1e-12)


def test_variance_floor_is_active_and_respected(data):
    X, _ = data
    floor = np.array([0.9, 0.7])
    for ct in ("full", "diag"):
        params = fit_gmm(X, 3, covariance_type=ct, variance_floor=floor, rng=2).params
        for Sigma in params.full_covariances():
            # Sigma - diag(floor) is positive semi-definite, so every variance >= the floor
            assert np.linalg.eigvalsh(Sigma - np.diag(floor)).min() > -1e-10
        slack = [np.linalg.eigvalsh(S - np.diag(floor)).min() for S in params.full_covariances()]
        assert min(slack) < 1e-8                 # the floor binds somewhere


def test_full_floor_is_the_constrained_maximiser():
    # among covariances >= f I, the floored S maximises -log|Sigma| - tr(S Sigma^-1)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3)) * [3.0, 1.0, 0.2]
    S = np.cov(X.T, bias=True)
    f = 0.5
    floored = m_step(X, np.ones((400, 1)), "full", variance_floor=f).covariances[0]

    def q(Sigma):
        return -np.linalg.slogdet(Sigma)[1] - np.trace(np.linalg.solve(Sigma, S))

    for _ in range(20):
        A = rng.normal(size=(3, 3)) * 0.3
        candidate = floored + A @ A.T           # still feasible (>= floored >= f I)
        assert q(candidate) <= q(floored) + 1e-12
    assert q(S + f * np.eye(3)) <= q(floored)


def test_singular_case_unbounded_without_floor_finite_with_it():
    # a component sitting on one point: its density there grows without bound as sigma -> 0
    X = np.array([[0.0], [0.3], [-0.2], [0.5], [-0.4], [10.0]])
    lls = []
    for var in 10.0 ** -np.arange(1, 12, 2):
        params = GMMParams(np.array([0.8, 0.2]), np.array([[0.0], [10.0]]),
                           np.array([[[0.2]], [[var]]]))
        lls.append(e_step(X, params)[1])
    # by hand: dividing the variance by 100 multiplies N(10 | 10, var) by 10 (the other
    # points are negligible under that component), so l grows by log(10) each time, forever
    np.testing.assert_allclose(np.diff(lls), np.log(10.0), rtol=1e-9)
    start = GMMParams(np.array([0.8, 0.2]), np.array([[0.0], [10.0]]),
                      np.array([[[1.0]], [[1.0]]]))
    with pytest.warns(ComponentCollapseWarning):
        free = fit_gmm(X, 2, init=start, max_iter=10, tol=0.0)
    assert np.all(np.isfinite(free.log_likelihood_trace))
    # it collapsed onto the point (variance repaired to the tiny COLLAPSE_FLOOR * var(X))
    assert free.params.covariances[1, 0, 0] <= 1e-5 * X.var()
    floor = 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComponentCollapseWarning)
        floored = fit_gmm(X, 2, init=start, max_iter=10, tol=0.0, variance_floor=floor)
    # every component density is at most N(mu | mu, floor), so l <= N log of that bound
    bound = X.shape[0] * -0.5 * np.log(2 * np.pi * floor)
    assert np.all(np.isfinite(floored.log_likelihood_trace))
    assert floored.log_likelihood <= bound
    assert_non_decreasing(floored.log_likelihood_trace, what="the floored log-likelihood")
    assert free.log_likelihood > floored.log_likelihood


def test_empty_component_is_reseeded_without_nan():
    X = np.r_[np.random.default_rng(6).normal(size=(50, 2)), [[4.0, 4.0]]]
    gamma = np.c_[np.ones(51), np.zeros(51)]
    with pytest.warns(ComponentCollapseWarning):
        params = m_step(X, gamma, "full")
    assert np.all(np.isfinite(params.means)) and np.all(params.weights > 0)
    np.testing.assert_array_equal(params.means[1], [4.0, 4.0])  # the worst-explained frame


def test_scoring_sampling_and_posteriors_agree():
    X, z = sample_gmm(TRUE, 5000, rng=7)
    assert np.abs(np.bincount(z) / 5000 - TRUE.weights).max() < 0.02
    np.testing.assert_array_equal(X, sample_gmm(TRUE, 5000, rng=7)[0])
    # log p(x) by brute force over components
    dens = np.stack([np.exp(gaussian_log_density(X[:5], TRUE.means[k], TRUE.covariances[k]))
                     for k in range(3)], 1)
    np.testing.assert_allclose(score_samples(X[:5], TRUE), np.log(dens @ TRUE.weights),
                               rtol=1e-12)
    np.testing.assert_allclose(predict_proba(X, TRUE).sum(1), 1.0)
    assert average_log_likelihood(X, TRUE) == pytest.approx(score_samples(X, TRUE).mean())
    Xd, _ = sample_gmm(GMMParams(TRUE.weights, TRUE.means, np.ones((3, 2)) * 0.5, "diag"),
                       10, rng=0)
    assert Xd.shape == (10, 2)


SPD = np.array([[[1.0, 0.0], [0.0, 1.0]]])


@pytest.mark.parametrize("call, match", [
    (lambda X: fit_gmm(np.r_[X[:10], [[np.nan, 0.0]]], 2), "X"),
    (lambda X: fit_gmm(X[:2], 1), "X"),                                       # n <= d
    (lambda X: fit_gmm(np.r_[np.zeros((5, 2)), np.ones((5, 2))], 3), "n_components"),
    (lambda X: fit_gmm(X[:, 0], 2), "X"),                                     # wrong shape
    (lambda X: fit_gmm(X, 0), "n_components"),
    (lambda X: fit_gmm(X, 2, covariance_type="tied"), "covariance_type"),
    (lambda X: fit_gmm(X, 2, init="kmeans++"), "init"),
    (lambda X: fit_gmm(X, 2, variance_floor=-1.0), "variance_floor"),
    (lambda X: fit_gmm(X, 2, variance_floor=[1.0, 1.0, 1.0]), "variance_floor"),
    (lambda X: fit_gmm(X, 2, ridge=-1e-6), "ridge"),
    (lambda X: fit_gmm(np.c_[X[:, 0], np.ones(len(X))], 2), "X"),           # constant dim
    (lambda X: fit_gmm(X, 1, init=GMMParams(np.ones(1), np.zeros((1, 3)), np.eye(3)[None])),
     "init"),
    (lambda X: e_step(X[:, :1], GMMParams(np.ones(1), np.zeros((1, 2)), SPD)), "X"),
    (lambda X: m_step(X, np.ones((len(X) - 1, 1))), "responsibilities"),
    (lambda X: m_step(X, np.full((len(X), 2), 0.7)), "responsibilities"),
    (lambda X: fit_gmm(X, 2, prior=CovariancePrior(1.0, -1.0)), "prior.scale"),
])
def test_bad_input(data, call, match):
    with pytest.raises(ValueError, match=match):
        call(data[0])


def test_a_per_dimension_floor_with_a_zero_entry_floors_only_the_other_dimensions():
    rng = np.random.default_rng(0)
    X = np.column_stack([0.1 * rng.standard_normal(200), rng.standard_normal(200)])
    params = m_step(X, np.ones((200, 1)), "diag", variance_floor=[0.5, 0.0])
    assert params.covariances[0][0] == pytest.approx(0.5)                  # data variance ~0.01
    assert params.covariances[0][1] == pytest.approx(X[:, 1].var(), rel=0.05)  # not floored
    # the full-covariance floor works in the floor-whitened space: a zero entry is refused
    with pytest.raises(ValueError, match="variance_floor: with full covariances"):
        m_step(X, np.ones((200, 1)), "full", variance_floor=[0.5, 0.0])
