"""Pairwise BALD (course_lib.preference.acquisition.pairwise_bald) and the "bald" query rule.

Oracles: the exact mutual information I(y; z) = H[y] - E_z H[y | z] by adaptive quadrature
(scipy.integrate.quad) and, for a fitted model, a Monte Carlo estimate of E[log p(y | z) -
log p(y)] from joint posterior draws of f at the two settings (so the difference's moments are
checked too). The probit value is Houlsby et al.'s approximation: it may sit below the exact
value by at most the largest gap between ln 2 exp(-t^2 / (pi ln 2)) and h(Phi(t)), which the
test computes on a dense grid (about 1.9e-3 nats) rather than taking it from the module.
Monte Carlo tolerances: 5 standard errors estimated from the same draws.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import log_ndtr, ndtr, xlogy

from course_lib.gp import SquaredExponential
from course_lib.preference.acquisition import pairwise_bald
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.preference.preference_gp import PreferenceGP
from course_lib.simulators.listeners import SimulatedListener, gp_draw_2d, settings_grid
from course_lib.simulators.personalisation_study import next_candidate, run_session

from preference_data import connected_pairs

LN2 = np.log(2.0)


def binary_entropy(p):
    """h(p) in nats, the textbook way (fine away from the tails the test visits)."""
    p = np.asarray(p, dtype=float)
    return -(xlogy(p, p) + xlogy(1 - p, 1 - p))


def worst_gap() -> float:
    """max_t [ln 2 exp(-t^2 / (pi ln 2)) - h(Phi(t))] on a dense grid (the bump lies above)."""
    t = np.linspace(-15, 15, 300_001)
    gap = LN2 * np.exp(-t ** 2 / (np.pi * LN2)) - binary_entropy(ndtr(t))
    assert gap.min() > -1e-12, "the Gaussian bump dips below h(Phi(t))"
    return float(gap.max())


GAP = worst_gap()


def exact_probit_mi(mean: float, var: float, noise_sd: float) -> float:
    """I(y; z) for P(y = 1 | z) = Phi(z / (sqrt 2 sigma)), z ~ N(mean, var), by quadrature."""
    scale = np.sqrt(2.0) * noise_sd
    marginal = binary_entropy(ndtr(mean / np.sqrt(scale ** 2 + var)))
    if var == 0:
        return float(marginal - binary_entropy(ndtr(mean / scale)))
    sd = np.sqrt(var)

    def integrand(z):
        density = np.exp(-0.5 * ((z - mean) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
        return binary_entropy(ndtr(z / scale)) * density

    # the integrand changes where |z| < a few link scales: tell quad where that is
    points = [p for p in (-3 * scale, 0.0, 3 * scale) if mean - 12 * sd < p < mean + 12 * sd]
    conditional, _ = quad(integrand, mean - 12 * sd, mean + 12 * sd, points=points or None,
                          epsabs=1e-13, epsrel=1e-11, limit=400)
    return float(marginal - conditional)


def model_with_moments(likelihood, mean, var):
    """A stand-in model whose predictive difference has the given moments (formula tests)."""
    mean, var = np.atleast_1d(mean).astype(float), np.atleast_1d(var).astype(float)
    return SimpleNamespace(kernel=None, X_train=np.zeros((1, 1)), posterior=object(),
                           likelihood=likelihood,
                           predict_difference=lambda first, second: (mean, var))


def fitted_model(likelihood, kind, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(8, 2))
    first, second = connected_pairs(rng, 8, 6)
    utility = np.sin(X[:, 0]) + 0.3 * X[:, 1]
    z = utility[first] - utility[second]
    if kind == "pair-binary":
        y = (z + rng.normal(0, 0.5, z.size) > 0).astype(float)
    else:
        y = z + rng.normal(0, 0.3, z.size)
    data = Comparisons(X, first, second, y, kind=kind)
    return PreferenceGP(SquaredExponential(1.0, 1.5), likelihood).fit(data)


# ----- the formula against the exact mutual information ---------------------------------------
@pytest.mark.parametrize("noise_sd", [0.1, 0.7, 3.0])
def test_probit_bald_is_within_the_bump_gap_below_the_exact_mutual_information(noise_sd):
    assert 1.8e-3 < GAP < 1.9e-3   # the bound the module docstring states, in nats
    means = np.array([0.0, 0.2, -0.5, 1.0, 2.5, -4.0, 0.0, 3.0, -0.1, 8.0])
    variances = np.array([1e-4, 0.05, 0.3, 1.0, 2.0, 5.0, 30.0, 50.0, 400.0, 1.0])
    for scale in (0.3, 1.0, 3.0):   # moments relative to the link scale
        m, v = scale * noise_sd * means, (scale * noise_sd) ** 2 * variances
        approx = _bald_of(PairwiseProbit(noise_sd), m, v)
        exact = np.array([exact_probit_mi(mi, vi, noise_sd) for mi, vi in zip(m, v)])
        shortfall = exact - approx
        assert np.all(shortfall >= -1e-9), f"above the exact value by {-shortfall.min():.2e}"
        assert np.all(shortfall <= GAP + 1e-9), f"below the exact value by {shortfall.max():.2e}"
        assert np.max(exact) > 0.1   # informative pairs are among the cases


def _bald_of(likelihood, mean, var):
    model = model_with_moments(likelihood, mean, var)
    pairs = np.zeros((np.size(mean), 1))
    return pairwise_bald(model, pairs, pairs)


def test_probit_bald_limits():
    sigma = 0.5
    # a pair the model is certain about (no posterior spread): no information (exact MI 0;
    # the approximation alone would be slightly negative there and is clipped)
    assert np.all(_bald_of(PairwiseProbit(sigma), [0.0, 0.3, -2.0], [0.0, 0.0, 0.0]) == 0.0)
    # a huge spread centred on 0: the answer is a fair coin that f decides, I -> ln 2
    assert _bald_of(PairwiseProbit(sigma), [0.0], [1e8])[0] == pytest.approx(LN2, abs=1e-4)
    # more spread at the same mean tells more; a mean far from 0 tells less
    values = _bald_of(PairwiseProbit(sigma), [0.0, 0.0, 0.0, 2.0, 4.0],
                      [0.1, 1.0, 10.0, 1.0, 1.0])
    assert values[0] < values[1] < values[2]
    assert values[1] > values[3] > values[4]


def test_probit_bald_is_finite_and_in_range_far_in_the_tails():
    means = np.array([-1e6, -40.0, 40.0, 1e6, 0.0, 0.0, 1e3])
    variances = np.array([1e-300, 1e-12, 1e-12, 1e-6, 1e-300, 1e300, 1e300])
    values = _bald_of(PairwiseProbit(0.01), means, variances)
    assert np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= LN2))
    assert values[:5] == pytest.approx(0.0, abs=1e-12)
    assert values[5] == pytest.approx(LN2, abs=1e-12)


def test_beta_bald_is_the_binary_thurstone_choice_at_the_same_noise():
    mean, var = np.array([0.0, 0.4, -1.5]), np.array([0.2, 1.0, 3.0])
    beta = _bald_of(PairwiseBeta(0.6, concentration=5.0), mean, var)
    probit = _bald_of(PairwiseProbit(0.6), mean, var)
    assert np.array_equal(beta, probit)


def test_gaussian_bald_is_the_exact_gaussian_channel_information():
    mean, var, sigma = np.array([0.0, 1.0, -2.0]), np.array([0.5, 2.0, 0.01]), 0.3
    values = _bald_of(PairwiseGaussian(sigma), mean, var)
    # I = H[y] - H[y | z] for y = z + eps, all Gaussian
    expected = 0.5 * np.log(2 * np.pi * np.e * (var + sigma ** 2)) \
        - 0.5 * np.log(2 * np.pi * np.e * sigma ** 2)
    assert np.allclose(values, expected, rtol=1e-13)


# ----- a fitted model against Monte Carlo --------------------------------------------------------
def test_probit_bald_of_a_fitted_model_matches_monte_carlo():
    sigma = 0.5
    model = fitted_model(PairwiseProbit(sigma), "pair-binary")
    rng = np.random.default_rng(1)
    pairs = [([0.0, 0.0], [2.0, 1.0]), ([-2.5, 1.0], [2.5, -1.0]), ([1.0, 0.0], [1.2, 0.1])]
    for a, b in pairs:
        a, b = np.array(a), np.array(b)
        f = model.sample_posterior(np.vstack([a, b]), 400_000, rng=rng)
        t = (f[:, 0] - f[:, 1]) / (np.sqrt(2.0) * sigma)
        y = rng.random(t.size) < ndtr(t)
        p_first = ndtr(t).mean()          # the answer's marginal, from the same draws
        log_conditional = np.where(y, log_ndtr(t), log_ndtr(-t))
        log_marginal = np.where(y, np.log(p_first), np.log1p(-p_first))
        sample = log_conditional - log_marginal
        estimate, se = sample.mean(), sample.std() / np.sqrt(sample.size)
        value = pairwise_bald(model, a[None, :], b[None, :])[0]
        assert value - 5 * se <= estimate <= value + GAP + 5 * se, (a, b, value, estimate, se)


def test_gaussian_bald_of_a_fitted_model_matches_monte_carlo():
    sigma = 0.3
    model = fitted_model(PairwiseGaussian(sigma), "pair-difference")
    rng = np.random.default_rng(2)
    a, b = np.array([-1.0, 2.0]), np.array([2.0, -2.5])
    f = model.sample_posterior(np.vstack([a, b]), 400_000, rng=rng)
    z = f[:, 0] - f[:, 1]
    y = z + rng.normal(0, sigma, z.size)
    m, v = z.mean(), z.var()
    sample = (-0.5 * ((y - z) / sigma) ** 2 - np.log(sigma)) \
        - (-0.5 * (y - m) ** 2 / (v + sigma ** 2) - 0.5 * np.log(v + sigma ** 2))
    estimate, se = sample.mean(), sample.std() / np.sqrt(sample.size)
    value = pairwise_bald(model, a[None, :], b[None, :])[0]
    assert abs(estimate - value) < 5 * se + 1e-3, (value, estimate, se)


# ----- vectorisation and symmetry ----------------------------------------------------------
def test_bald_is_symmetric_vectorised_and_broadcasts_one_row():
    model = fitted_model(PairwiseProbit(0.5), "pair-binary")
    rng = np.random.default_rng(3)
    A, B = rng.uniform(-3, 3, (6, 2)), rng.uniform(-3, 3, (6, 2))
    values = pairwise_bald(model, A, B)
    assert np.allclose(values, pairwise_bald(model, B, A), rtol=1e-12, atol=1e-15)
    one_by_one = [pairwise_bald(model, A[i:i + 1], B[i:i + 1])[0] for i in range(6)]
    assert np.allclose(values, one_by_one, rtol=1e-12, atol=1e-15)
    against_one = pairwise_bald(model, A[:1], B)
    assert np.allclose(against_one, pairwise_bald(model, np.repeat(A[:1], 6, axis=0), B))
    assert np.allclose(pairwise_bald(model, B, A[:1]), against_one)
    # a setting compared with itself: z = 0 surely, so no information
    assert pairwise_bald(model, A[:2], A[:2]) == pytest.approx(0.0, abs=1e-12)


# ----- the "bald" rule of the personalisation loop --------------------------------------------
def test_bald_rule_asks_the_most_informative_pair_with_the_incumbent():
    grid = settings_grid(-20, 20, 4, 2)
    model = PreferenceGP(SquaredExponential(8.0, 4.0), PairwiseProbit(0.5))
    listener = SimulatedListener(gp_draw_2d(rng=7), PairwiseProbit(0.5), rng=8)
    session = run_session(listener, model, grid, n_random=5, n_active=3, acquisition="bald",
                          optimise_every=None, n_forced=0, rng=9)
    gp = session.model
    x_best = session.incumbents[-1]
    pick, measure = next_candidate(gp, grid, x_best, "bald", np.zeros(grid.shape[0]), None,
                                   rng=0)
    values = pairwise_bald(gp, x_best[None, :], grid)
    others = ~np.all(grid == x_best, axis=1)
    assert others[pick] and values[pick] == np.max(values[others])
    assert measure == 0.0   # the convergence measure is still the grid mean of bEI
