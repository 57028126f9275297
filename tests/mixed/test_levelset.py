"""Level-set estimation (course_lib.mixed.levelset): the look-ahead of a Bernoulli probit answer and
the acquisitions global MI and EAVC, each against scipy, a closed form or Monte Carlo;
the level-set and preference scores of course_lib.mixed.levelset_metrics and course_lib.metrics against
hand-worked values and scikit-learn."""

import warnings

import numpy as np
import pytest
from scipy.stats import norm, qmc
from sklearn.metrics import brier_score_loss, f1_score

from course_lib.gp import GPRegression, SquaredExponential
from course_lib.mixed import bivariate_normal as bivariate_normal
from course_lib.mixed import levelset
from course_lib.mixed.bivariate_normal import bvn_cdf
from course_lib.mixed.levelset import eavc, global_mi, lookahead_levelset
from course_lib.gp.prediction import LatentGaussian
from course_lib.mixed.levelset_metrics import brier_levelset, f1_levelset
from course_lib.metrics import brier_preference, f1_preference, levelset_probability

from levelset_data import (CANDIDATES, REFERENCES, THRESHOLD, entropy_bits, preference_model,
                           regression_model)


# --------------------------------------------------------------------------------------------
# Level-set probability and the look-ahead
# --------------------------------------------------------------------------------------------


def test_levelset_probability_closed_form_and_zero_variance():
    mean = np.array([-1.0, 0.2, 0.6745, 3.0])
    var = np.array([0.5, 2.0, 1.0, 0.1])
    np.testing.assert_allclose(levelset_probability(mean, var, THRESHOLD),
                               norm.cdf((THRESHOLD - mean) / np.sqrt(var)), rtol=1e-14)
    np.testing.assert_array_equal(levelset_probability([0.0, 1.0, 0.5], 0.0, 0.5), [1, 0, 0])


def _monte_carlo_lookahead(mq, vq, ms, vs, c, threshold, n, rng):
    f = rng.multivariate_normal([mq, ms], [[vq, c], [c, vs]], size=n)
    answer = f[:, 0] + rng.standard_normal(n) > 0  # y = 1 with probability Phi(f_q)
    below = f[:, 1] < threshold
    return answer.mean(), below[answer].mean(), below[~answer].mean()


@pytest.mark.parametrize("mq, vq, ms, vs, c", [(0.3, 0.8, 0.2, 1.1, 0.6),
                                               (-1.5, 0.3, 1.0, 0.5, -0.35),
                                               (0.9, 2.5, 0.6, 0.04, 0.3)])
def test_lookahead_matches_monte_carlo(mq, vq, ms, vs, c):
    look = lookahead_levelset(mq, vq, ms, vs, c, THRESHOLD)
    n = 1_000_000
    p_one, p1, p0 = _monte_carlo_lookahead(mq, vq, ms, vs, c, THRESHOLD, n,
                                           np.random.default_rng(1))
    # four binomial standard errors of each estimate
    assert abs(look.p_one - p_one) < 4 * np.sqrt(p_one * (1 - p_one) / n)
    assert abs(look.p_if_one - p1) < 4 * np.sqrt(p1 * (1 - p1) / (n * p_one))
    assert abs(look.p_if_zero - p0) < 4 * np.sqrt(p0 * (1 - p0) / (n * (1 - p_one)))
    # the martingale: the expected posterior probability is today's
    np.testing.assert_allclose(look.p_one * look.p_if_one + (1 - look.p_one) * look.p_if_zero,
                               look.p_now, rtol=1e-13)


def test_lookahead_limits_broadcast_and_certain_references():
    """A reference with zero variance keeps its indicator whatever the answer; an uncorrelated
    one keeps its probability; the shapes broadcast queries x references."""
    look = lookahead_levelset(np.array([[0.5], [-3.0]]), np.array([[1.0], [0.2]]),
                              np.array([0.0, 2.0, 0.3]), np.array([0.0, 0.0, 1.0]),
                              np.zeros((2, 3)), THRESHOLD)
    assert look.p_if_one.shape == (2, 3)
    np.testing.assert_array_equal(look.p_if_one[:, :2], [[1, 0], [1, 0]])
    np.testing.assert_array_equal(look.p_if_zero[:, :2], [[1, 0], [1, 0]])
    np.testing.assert_allclose(look.p_if_one[:, 2], look.p_now[:, 2], rtol=1e-14)
    np.testing.assert_allclose(look.p_if_zero[:, 2], look.p_now[:, 2], rtol=1e-14)


# --------------------------------------------------------------------------------------------
# Acquisitions
# --------------------------------------------------------------------------------------------

def _joint_draws(model, candidate, n, rng):
    """Draws of (f(candidate), f(references)) and an answer y at the candidate."""
    mean, cov = model.predict(np.vstack([candidate, REFERENCES]), full_cov=True)
    f = rng.multivariate_normal(mean, cov, size=n, method="eigh")
    answer = f[:, 0] + rng.standard_normal(n) > 0
    return f, answer


@pytest.mark.parametrize("make_model", [regression_model, preference_model])
def test_global_mi_and_eavc_match_monte_carlo(make_model):
    model = make_model()
    mi, volume = (global_mi(model, CANDIDATES, REFERENCES, THRESHOLD),
                  eavc(model, CANDIDATES, REFERENCES, THRESHOLD))
    n = 400_000
    rng = np.random.default_rng(6)
    for j, candidate in enumerate(CANDIDATES):
        f, answer = _joint_draws(model, candidate, n, rng)
        below = f[:, 1:] < THRESHOLD
        p_one = answer.mean()
        p_now, p1, p0 = below.mean(axis=0), below[answer].mean(axis=0), below[~answer].mean(
            axis=0)
        mc_mi = np.sum(entropy_bits(p_now) - p_one * entropy_bits(p1)
                       - (1 - p_one) * entropy_bits(p0))
        mc_volume = p_one * abs(np.sum(p_now - p1)) + (1 - p_one) * abs(np.sum(p_now - p0))
        # measured MC errors at this n: up to 2e-3 (MI) and 2.5e-3 (volume); values 0.001-0.4
        assert abs(mi[j] - mc_mi) < 0.006, (j, mi[j], mc_mi)
        assert abs(volume[j] - mc_volume) < 0.01, (j, volume[j], mc_volume)
    assert np.all(mi > 0) and np.all(volume > 0)


def _owens_t_acquisitions(model, candidates, references, threshold):
    """Global MI and EAVC as Wu et al. (2025) writes them, from the joint posterior and the Owen's T
    bivariate CDF (P1 = Phi_2 / p1, P0 = (Px - Phi_2) / (1 - p1), plain 1 - P), and rho."""
    mean, cov = model.predict(np.vstack([candidates, references]), full_cov=True)
    n_c, var = len(candidates), np.diag(cov)
    scale = np.sqrt(1 + var[:n_c, None])
    a, b = mean[:n_c, None] / scale, (threshold - mean[n_c:]) / np.sqrt(var[n_c:])
    rho = np.clip(-cov[:n_c, n_c:] / (np.sqrt(var[n_c:]) * scale), -1, 1)
    joint = bvn_cdf(a, b, rho, method="owens_t")
    p_one, p_now = norm.cdf(a), np.broadcast_to(norm.cdf(b), joint.shape)
    p1, p0 = joint / p_one, (p_now - joint) / (1 - p_one)
    p_one = p_one[:, 0]
    mi = (np.sum(entropy_bits(p_now), axis=1) - p_one * np.sum(entropy_bits(p1), axis=1)
          - (1 - p_one) * np.sum(entropy_bits(p0), axis=1))
    volume = (p_one * np.abs(np.sum(p_now - p1, axis=1))
              + (1 - p_one) * np.abs(np.sum(p_now - p0, axis=1)))
    return mi, volume, rho


def test_acquisitions_equal_the_owens_t_lookahead_in_every_regime_of_rho():
    """A posterior with variance up to 25 far from its data: candidates near or on references
    give |rho| up to ~0.98, so the series, the arcsine quadrature and the quadrature from
    rho = +-1 all take part (checked), and the compiled acquisitions must equal the paper's
    formulas evaluated through Owen's T."""
    rng = np.random.default_rng(9)
    X = rng.uniform(-1, 1, size=(6, 2))
    model = GPRegression(SquaredExponential(0.5, 25.0), noise_variance=0.3).fit(
        X, 3.0 * X[:, 0] + rng.standard_normal(6))
    candidates = np.vstack([rng.uniform(-3, 3, size=(12, 2)), X[:2]])
    references = np.vstack([candidates + 0.01 * rng.standard_normal(candidates.shape),
                            candidates, rng.uniform(-3, 3, size=(150, 2))])
    mi, volume, rho = _owens_t_acquisitions(model, candidates, references, THRESHOLD)
    magnitude = np.abs(rho)
    assert np.sum(magnitude <= bivariate_normal._SERIES_MAX_RHO) > 100
    assert np.sum((magnitude > bivariate_normal._SERIES_MAX_RHO)
                  & (magnitude < bivariate_normal._NEAR_ONE_RHO)) >= 5
    assert np.sum(magnitude >= bivariate_normal._NEAR_ONE_RHO) >= 5
    np.testing.assert_allclose(global_mi(model, candidates, references, THRESHOLD), mi,
                               rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(eavc(model, candidates, references, THRESHOLD), volume,
                               rtol=1e-9, atol=1e-11)


def test_acquisitions_with_nearly_certain_references():
    """Trap 4 of the design notes: references where the posterior is nearly certain (tiny
    noise, a reference on a data point: sd ~ 1e-5, |b_s| up to 3e5) must give finite scores
    that equal the Owen's T look-ahead, and no warnings."""
    X = np.array([[0.0, 0.0], [0.5, 0.5], [-0.5, 0.3]])
    model = GPRegression(SquaredExponential(0.6, 2.0), noise_variance=1e-10,
                         noise_bounds=(1e-12, 1.0)).fit(X, [3.0, -2.0, 0.6745])
    references = np.vstack([X, [[0.2, 0.2], [0.9, -0.7]]])
    candidates = np.array([[0.1, 0.1], [0.4, 0.6], [-0.9, 0.9]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mi = global_mi(model, candidates, references, THRESHOLD)
        volume = eavc(model, candidates, references, THRESHOLD)
    expected_mi, expected_volume, _ = _owens_t_acquisitions(model, candidates, references,
                                                            THRESHOLD)
    assert np.all(np.isfinite(mi)) and np.all(np.isfinite(volume))
    np.testing.assert_allclose(mi, expected_mi, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(volume, expected_volume, rtol=1e-9, atol=1e-12)


class _CovarianceFormModel:
    """A fitted model's stand-in whose posterior is in the covariance form, as a sparse
    variational GP's is: any covariance between two sets of points then needs both
    reduction factors, k(A, B) - V_A^T V_B + U_A^T U_B."""

    def __init__(self):
        rng = np.random.default_rng(11)
        self.kernel = SquaredExponential(0.6, 1.5)
        self.X_train = rng.uniform(-1, 1, size=(5, 2))
        K = self.kernel(self.X_train)
        A = rng.standard_normal((5, 5))
        self.posterior = LatentGaussian.from_mean_cov(K, rng.standard_normal(5),
                                                      0.3 * K + 0.05 * A @ A.T)

    def predict(self, X, full_cov):
        """Mean and full covariance at X, the only form _owens_t_acquisitions asks for."""
        assert full_cov
        return self.posterior.predict(self.kernel(self.X_train, X), self.kernel(X))


def test_acquisitions_of_a_covariance_form_posterior_equal_the_owens_t_lookahead():
    """The candidate-reference covariances of a covariance-form posterior add U_A^T U_B back:
    the compiled acquisitions must equal the Owen's T look-ahead on the dense joint covariance
    (same tolerance as above: two evaluations of one closed form)."""
    model = _CovarianceFormModel()
    assert model.posterior.reduction_factors(model.kernel(model.X_train, CANDIDATES))[1] \
        is not None
    mi, volume, _ = _owens_t_acquisitions(model, CANDIDATES, REFERENCES, THRESHOLD)
    np.testing.assert_allclose(global_mi(model, CANDIDATES, REFERENCES, THRESHOLD), mi,
                               rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(eavc(model, CANDIDATES, REFERENCES, THRESHOLD), volume,
                               rtol=1e-9, atol=1e-11)


def test_acquisitions_do_not_depend_on_the_batch_size(monkeypatch):
    model = regression_model()
    whole = (global_mi(model, CANDIDATES, REFERENCES, THRESHOLD),
             eavc(model, CANDIDATES, REFERENCES, THRESHOLD))
    monkeypatch.setattr(levelset, "_BATCH_ELEMENTS", 8)  # one candidate per batch
    batched = (global_mi(model, CANDIDATES, REFERENCES, THRESHOLD),
               eavc(model, CANDIDATES, REFERENCES, THRESHOLD))
    for a, b in zip(whole, batched):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_eavc_equals_the_expected_absolute_change_from_the_lookahead():
    """EAVC = p1 |sum(Px - P1)| + (1 - p1) |sum(Px - P0)| as the paper writes it."""
    model = preference_model()
    mean, cov = model.predict(np.vstack([CANDIDATES, REFERENCES]), full_cov=True)
    nc = CANDIDATES.shape[0]
    var = np.diag(cov)
    look = lookahead_levelset(mean[:nc, None], var[:nc, None], mean[nc:], var[nc:],
                              cov[:nc, nc:], THRESHOLD)
    p_one = look.p_one[:, 0]
    expected = (p_one * np.abs(np.sum(look.p_now - look.p_if_one, axis=1))
                + (1 - p_one) * np.abs(np.sum(look.p_now - look.p_if_zero, axis=1)))
    np.testing.assert_allclose(eavc(model, CANDIDATES, REFERENCES, THRESHOLD), expected,
                               rtol=1e-10)


# --------------------------------------------------------------------------------------------
# Metrics (course_lib.mixed.levelset_metrics, course_lib.metrics): level sets and preferences
# --------------------------------------------------------------------------------------------

def test_levelset_metrics_match_sklearn_on_the_same_sobol_points():
    model = regression_model()
    bounds = np.array([[-1.0, 1.0], [-1.0, 1.2]])
    truth = lambda X: 2.0 * np.linalg.norm(X, axis=1)  # noqa: E731
    n, seed = 2 ** 12, 11
    X = qmc.scale(qmc.Sobol(2, rng=np.random.default_rng(seed)).random(n), bounds[:, 0],
                  bounds[:, 1])
    inside = truth(X) < THRESHOLD
    mean, var = model.predict(X)
    probability = norm.cdf((THRESHOLD - mean) / np.sqrt(var))
    # four batches must give the points of one call
    kwargs = dict(n_points=n, batch_size=n // 4, rng=seed)
    assert np.isclose(f1_levelset(model, truth, THRESHOLD, bounds, **kwargs),
                      f1_score(inside, mean < THRESHOLD), rtol=1e-12)
    assert np.isclose(brier_levelset(model, truth, THRESHOLD, bounds, **kwargs),
                      brier_score_loss(inside, probability), rtol=1e-12)


def test_preference_metrics_hand_worked_and_against_sklearn():
    mean = np.array([1.0, -1.0, 0.5, 2.0])
    var = np.array([0.0, 3.0, 1.25, 1.0])
    labels = np.array([1, 1, 0, 1])
    # p = Phi(1), Phi(-1/2), Phi(1/3), Phi(sqrt 2): predictions 1, 0, 1, 1
    p = norm.cdf([1.0, -0.5, 1 / 3, np.sqrt(2.0)])
    hand = np.mean((p - labels) ** 2)
    assert np.isclose(brier_preference(mean, var, labels), hand, rtol=1e-14)
    assert np.isclose(brier_preference(mean, var, labels), brier_score_loss(labels, p),
                      rtol=1e-14)
    # TP = 2, FP = 1, FN = 1: F1 = 4 / 6
    assert np.isclose(f1_preference(mean, var, labels), 2 / 3, rtol=1e-14)
    rng = np.random.default_rng(12)
    mean, var = rng.normal(size=200), rng.uniform(0, 2, size=200)
    labels = rng.integers(0, 2, size=200)
    assert np.isclose(f1_preference(mean, var, labels), f1_score(labels, mean > 0), rtol=1e-14)
    assert np.isclose(brier_preference(mean, var, labels),
                      brier_score_loss(labels, norm.cdf(mean / np.sqrt(1 + var))), rtol=1e-14)
