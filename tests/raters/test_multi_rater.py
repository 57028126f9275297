"""Several raters per item (course_lib.raters.multi_rater): the joint model against the
repeated-input GP, the spread term (arXiv 2306.02719's g(Y)), ML-II of joint vs mean. The container
(course_lib.rater_data) is tested in tests/test_rater_data.py.

Notation as in the module: item i has R_i labels y_ir, mean ybar_i, M = sum R_i labels,
S = sum_i sum_r (y_ir - ybar_i)^2, one rater's noise sigma^2.
"""

import numpy as np
import pytest
from scipy import stats

from course_lib.gp import (GPRegression, LogNormal, Matern52, SquaredExponential,
                           gaussian_evidence)
from course_lib.rater_data import RaterData
from course_lib.raters import MultiRaterGP, joint_evidence, weighted_means
from course_lib.linalg import LOG_2PI
from course_lib.metrics import discrete_kl, discretised_log_predictive
from course_lib.simulators.rater_scores import simulate_integer_scores


# ----- panels ----------------------------------------------------------------------------------
def ragged_panel(seed=0):
    """14 items in 2-D scored by 6 raters: R_i from 1 to 5, labels missing, and two groups of
    raters that share no item (raters 0-2 score items 0-6, raters 3-5 items 7-13; items 0-6
    also get scores from raters 4-5 so some items reach R_i = 5). Real-valued scores."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (14, 2))
    truth = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    counts = [1, 2, 3, 4, 5, 5, 2, 1, 3, 2, 3, 1, 2, 3]
    items, raters = [], []
    for i, R in enumerate(counts):
        pool = [0, 1, 2, 4, 5] if i < 7 else [3, 4, 5]
        chosen = rng.choice(pool, size=min(R, len(pool)), replace=False)
        items += [i] * chosen.size
        raters += chosen.tolist()
    items, raters = np.array(items), np.array(raters)
    scores = truth[items] + 0.4 * rng.standard_normal(items.size)
    return X, RaterData.from_long(items, raters, scores)


def complete_panel(n_items=12, n_raters=5, seed=1, noise_sd=0.5):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n_items, 2))
    truth = np.cos(X[:, 0]) - 0.3 * X[:, 1]
    Y = truth[:, None] + noise_sd * rng.standard_normal((n_items, n_raters))
    return X, RaterData.from_matrix(Y)


def single_label_panel():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, (9, 2))
    return X, RaterData.from_long(np.arange(9), rng.integers(0, 3, 9), np.sin(X[:, 0]),
                                  n_raters=3)


PANELS = {"ragged (R_i 1..5, missing, no overlap)": ragged_panel,
          "complete (R = 5)": complete_panel,
          "one label per item": single_label_panel}
KERNELS = {"se": lambda: SquaredExponential(0.9, 1.3),
           "matern52_ard": lambda: Matern52([0.7, 1.4], 0.8)}


def repeated_evidence_by_brute_force(kernel, X, data, sigma2):
    """log N(all labels; 0, K[items, items] + sigma^2 I), written out with scipy."""
    K = kernel(X)[np.ix_(data.items, data.items)]
    return stats.multivariate_normal(np.zeros(data.n_labels),
                                     K + sigma2 * np.eye(data.n_labels)).logpdf(data.scores)


def test_ragged_panel_has_what_it_claims():
    X, data = ragged_panel()
    assert data.counts.min() == 1 and data.counts.max() == 5
    table = data.matrix()
    assert np.isnan(table).any()
    # raters 0-2 and rater 3 never score the same item
    assert not np.any(~np.isnan(table[:, :3]).any(axis=1) & ~np.isnan(table[:, 3]))


# ----- joint = repeated (same hyper-parameters) --------------------------------------------------
@pytest.mark.parametrize("kernel_name", list(KERNELS))
@pytest.mark.parametrize("panel", list(PANELS))
@pytest.mark.parametrize("sigma2", [0.05, 0.7])
def test_joint_equals_repeated_input_gp(panel, kernel_name, sigma2):
    X, data = PANELS[panel]()
    kernel = KERNELS[kernel_name]()
    joint = MultiRaterGP(kernel, sigma2, mode="joint").fit(X, data)
    repeated = MultiRaterGP(kernel, sigma2, mode="repeated").fit(X, data)
    assert repeated.X_train.shape[0] == data.n_labels and joint.X_train.shape[0] == data.n_items
    result = joint.evidence(eval_gradient=True)
    rep_result = repeated.evidence(eval_gradient=True)
    assert result.value == pytest.approx(rep_result.value, rel=1e-12, abs=1e-10)
    assert result.value == pytest.approx(
        repeated_evidence_by_brute_force(kernel, X, data, sigma2), rel=1e-10)
    np.testing.assert_allclose(result.gradient, rep_result.gradient, rtol=1e-9, atol=1e-10)
    X_test = np.vstack([X[:3] + 0.05, np.random.default_rng(5).uniform(-3, 3, (10, X.shape[1]))])
    for include_noise in (False, True):
        mean, var = joint.predict(X_test, include_noise=include_noise)
        rep_mean, rep_var = repeated.predict(X_test, include_noise=include_noise)
        np.testing.assert_allclose(mean, rep_mean, atol=1e-10)
        np.testing.assert_allclose(var, rep_var, atol=1e-10)
    _, cov = joint.predict(X_test, full_cov=True, include_noise=True)
    _, rep_cov = repeated.predict(X_test, full_cov=True, include_noise=True)
    np.testing.assert_allclose(cov, rep_cov, atol=1e-10)


def test_one_label_per_item_makes_all_three_models_one():
    # R_i = 1: S = 0, M = N, the spread term is 0 and sigma^2 / R_i = sigma^2 = sigma_base^2
    X, data = single_label_panel()
    kernel = SquaredExponential(0.8, 1.1)
    values = {mode: MultiRaterGP(kernel, 0.1, mode=mode).fit(X, data).log_evidence()
              for mode in ("mean", "joint", "repeated")}
    plain = GPRegression(kernel, 0.1).fit(X, data.scores[np.argsort(data.items)])
    assert values["mean"] == pytest.approx(plain.log_evidence(), rel=1e-12)
    assert values["joint"] == pytest.approx(values["mean"], rel=1e-12)
    assert values["repeated"] == pytest.approx(values["mean"], rel=1e-12)


def test_one_rater_prediction_adds_one_raters_noise():
    X, data = complete_panel()
    joint = MultiRaterGP(SquaredExponential(1.0, 1.0), 0.3, mode="joint").fit(X, data)
    mean_model = MultiRaterGP(SquaredExponential(1.0, 1.0), 0.06, mode="mean").fit(X, data)
    X_test = X[:4] + 0.1
    for gp, noise in ((joint, 0.3), (mean_model, 0.06)):
        _, latent = gp.predict(X_test)
        _, rater = gp.predict(X_test, include_noise=True)
        np.testing.assert_allclose(rater - latent, noise, rtol=1e-12)
    # with sigma_base^2 = sigma^2 / R the two GPs have the same latent posterior
    np.testing.assert_allclose(joint.predict(X_test)[0], mean_model.predict(X_test)[0],
                               rtol=1e-12)
    np.testing.assert_allclose(joint.predict(X_test)[1], mean_model.predict(X_test)[1],
                               rtol=1e-12)


def test_joint_evidence_is_the_gp_term_plus_the_spread_term():
    X, data = ragged_panel()
    kernel, sigma2 = SquaredExponential(0.9, 1.3), 0.3
    K, dK = kernel.gradient(X)
    result = joint_evidence(K, data, sigma2, dK)
    gp_term = gaussian_evidence(K, data.means, sigma2 / data.counts, dK)
    M, N, S = data.n_labels, data.n_items, data.within_ss
    spread = (-0.5 * (M - N) * np.log(2 * np.pi * sigma2) - 0.5 * np.log(data.counts).sum()
              - S / (2 * sigma2))
    assert result.spread_term == pytest.approx(spread, rel=1e-14)
    assert result.value == pytest.approx(gp_term.value + spread, rel=1e-14)
    assert result.gp_term.value == gp_term.value
    np.testing.assert_array_equal(result.gradient_kernel, gp_term.gradient_kernel)
    # d spread / d log sigma^2 = -(M - N)/2 + S / (2 sigma^2), shared out over the items
    assert result.gradient_log_noise.sum() == pytest.approx(
        gp_term.gradient_log_noise.sum() - 0.5 * (M - N) + S / (2 * sigma2), rel=1e-12)
    # the gradient in (kernel, log sigma^2): the one shared noise gets the items' sum
    np.testing.assert_array_equal(result.gradient, np.append(result.gradient_kernel,
                                                             result.gradient_log_noise.sum()))


# ----- the spread term and arXiv 2306.02719's factorisation --------------------------------------
def test_spread_term_is_seed_000s_log_g_for_equal_rater_counts():
    # eq. (4): g(Y) = N(eta; 0, sigma^2/R I) (2 pi sigma^2)^((2 - R) N / 2) R^-N, with
    # eta_i = the biased standard deviation of item i's R scores
    X, data = complete_panel(n_items=10, n_raters=4)
    R, N, sigma2 = 4, 10, 0.45
    eta = data.matrix().std(axis=1)  # ddof=0: the biased standard deviation
    log_g = (stats.norm(0.0, np.sqrt(sigma2 / R)).logpdf(eta).sum()
             + (2 - R) * N / 2 * np.log(2 * np.pi * sigma2) - N * np.log(R))
    result = joint_evidence(SquaredExponential(1.0)(X), data, sigma2)
    assert result.spread_term == pytest.approx(log_g, rel=1e-13)
    # digest A.2's closed form with S = R sum eta^2
    closed = (-(R - 1) * N / 2 * np.log(2 * np.pi * sigma2) - N / 2 * np.log(R)
              - R * np.sum(eta ** 2) / (2 * sigma2))
    assert result.spread_term == pytest.approx(closed, rel=1e-13)


@pytest.mark.parametrize("f", [-1.0, 0.3, 2.5])
def test_eq_3_factorises_one_item(f):
    # prod_r N(y_r; f, s2) = N(ybar; f, s2/R) N(eta; 0, s2/R) (2 pi s2)^((2 - R)/2) / R
    y, s2 = np.array([0.4, 1.9, -0.3, 1.1, 0.7]), 0.8
    R, ybar, eta = y.size, y.mean(), y.std()
    left = stats.norm(f, np.sqrt(s2)).logpdf(y).sum()
    right = (stats.norm(f, np.sqrt(s2 / R)).logpdf(ybar) + stats.norm(0, np.sqrt(s2 / R)).logpdf(eta)
             + (2 - R) / 2 * np.log(2 * np.pi * s2) - np.log(R))
    assert left == pytest.approx(right, rel=1e-13)
    # and the library's decomposition of the same item: gp term with K = 0 (f = 0 known)
    data = RaterData.from_long(np.zeros(R), np.arange(R), y - f)
    one = joint_evidence(np.zeros((1, 1)), data, s2)
    assert one.value == pytest.approx(stats.norm(0, np.sqrt(s2)).logpdf(y - f).sum(), rel=1e-12)


@pytest.mark.parametrize("panel", list(PANELS))
def test_without_the_spread_term_the_joint_model_is_the_gp_on_the_means(panel):
    X, data = PANELS[panel]()
    kernel, sigma2 = SquaredExponential(0.9, 1.3), 0.35
    joint = MultiRaterGP(kernel, sigma2, mode="joint").fit(X, data)
    no_spread = joint.evidence(eval_gradient=True, include_spread_term=False)
    expected = gaussian_evidence(kernel(X), data.means, sigma2 / data.counts,
                                 kernel.gradient(X)[1])
    assert no_spread.value == pytest.approx(expected.value, rel=1e-13)
    assert no_spread.spread_term == 0.0
    np.testing.assert_allclose(no_spread.gradient_log_noise, expected.gradient_log_noise,
                               rtol=1e-12)
    full = joint.evidence(include_spread_term=True)
    assert full.value - no_spread.value == pytest.approx(full.spread_term, rel=1e-12)


def test_without_the_spread_term_equal_counts_give_the_mean_model_with_sigma2_over_r():
    X, data = complete_panel(n_raters=5)
    kernel, sigma2 = SquaredExponential(0.9, 1.3), 0.35
    joint = MultiRaterGP(kernel, sigma2, mode="joint").fit(X, data)
    base = MultiRaterGP(kernel, sigma2 / 5, mode="mean").fit(X, data)
    no_spread = joint.evidence(eval_gradient=True, include_spread_term=False)
    mean_model = base.evidence(eval_gradient=True)
    value, grad = mean_model.value, mean_model.gradient
    assert no_spread.value == pytest.approx(value, rel=1e-13)  # exactly the mean model's
    np.testing.assert_allclose(no_spread.gradient_kernel, grad[:-1], rtol=1e-12)
    # d/d log sigma^2 = d/d log sigma_base^2 (sigma_base^2 = sigma^2 / R is a shift in log space)
    assert no_spread.gradient_log_noise.sum() == pytest.approx(grad[-1], rel=1e-12)
    # but the full evidence depends on sigma^2 through the spread term as well
    assert joint.log_evidence() != pytest.approx(value, rel=1e-3)


def test_repeated_model_cannot_leave_the_spread_term_out():
    X, data = complete_panel()
    repeated = MultiRaterGP(SquaredExponential(), 0.3, mode="repeated").fit(X, data)
    with pytest.raises(ValueError, match="include_spread_term"):
        repeated.evidence(include_spread_term=False)


# ----- gradients by finite differences -----------------------------------------------------------
PRIORS = {"lengthscale_0": LogNormal(0.0, 1.0), "noise_variance": LogNormal(-1.0, 1.5)}


@pytest.mark.parametrize("mode", ["joint", "mean", "repeated"])
def test_every_gradient_by_finite_differences(mode):
    X, data = ragged_panel()
    gp = MultiRaterGP(Matern52([0.7, 1.4], 0.8), 0.25, mode=mode, priors=PRIORS).fit(X, data)
    assert gp.param_names == ("variance", "lengthscale_0", "lengthscale_1", "noise_variance")
    theta = gp.theta
    grad = gp.evidence(theta, eval_gradient=True).gradient
    _, objective_grad = gp.negative_objective(theta)  # what L-BFGS-B sees (prior included)
    h = 1e-6
    for p, name in enumerate(gp.param_names):
        step = np.zeros_like(theta)
        step[p] = h
        fd = (gp.log_evidence(theta + step) - gp.log_evidence(theta - step)) / (2 * h)
        assert grad[p] == pytest.approx(fd, rel=1e-6, abs=1e-7), (mode, name)
        fd_objective = (gp.negative_objective(theta + step)[0]
                        - gp.negative_objective(theta - step)[0]) / (2 * h)
        assert objective_grad[p] == pytest.approx(fd_objective, rel=1e-6, abs=1e-7), (mode, name)


def test_per_item_noise_gradient_by_finite_differences():
    # gradient_log_noise[i]: item i's share, the derivative in a per-item log sigma_i^2
    # (the gp term's sigma_i^2 / R_i and the item's own spread term)
    X, data = ragged_panel()
    kernel = SquaredExponential(0.9, 1.3)
    K = kernel(X)
    result = joint_evidence(K, data, 0.3, kernel.gradient(X)[1])

    def per_item(log_noise):
        noise = np.exp(log_noise)
        gp = gaussian_evidence(K, data.means, noise / data.counts).value
        spread = np.sum(-0.5 * (data.counts - 1) * (LOG_2PI + log_noise)
                        - 0.5 * np.log(data.counts) - data.within_ss_per_item / (2 * noise))
        return gp + spread

    base = np.full(data.n_items, np.log(0.3))
    assert per_item(base) == pytest.approx(result.value, rel=1e-13)
    for i in (0, 4, 13):
        step = np.zeros(data.n_items)
        step[i] = 1e-6
        fd = (per_item(base + step) - per_item(base - step)) / 2e-6
        assert result.gradient_log_noise[i] == pytest.approx(fd, rel=1e-6, abs=1e-8)


# ----- ML-II: joint and repeated agree, joint and mean learn different noise ---------------------
def test_ml_ii_of_joint_and_repeated_land_on_the_same_hyperparameters():
    X, data = ragged_panel()
    fits = {}
    for mode in ("joint", "repeated"):
        gp = MultiRaterGP(SquaredExponential(1.0, 1.0), 0.5, mode=mode).fit(X, data)
        fits[mode] = gp.optimise_hyperparameters(n_restarts=2, rng=3)
    np.testing.assert_allclose(fits["joint"].theta, fits["repeated"].theta, atol=1e-4)
    assert fits["joint"].objective == pytest.approx(fits["repeated"].objective, rel=1e-8)


def simulated_panel(n_items, rng):
    """Five unbiased raters, whole scores 0..10 (noise sd 1.3), truth away from the ends."""
    X = rng.uniform(-2, 2, (n_items, 3))
    truth = 5.0 + 1.5 * np.sin(X[:, 0]) + X[:, 1] * np.cos(X[:, 2])
    data = simulate_integer_scores(truth, np.zeros(5), np.ones(5), np.full(5, 1.3), rng=rng)
    return X, data


def test_ml_ii_joint_learns_rater_noise_mean_learns_noise_of_the_mean_and_joint_kl_is_lower():
    rng = np.random.default_rng(11)
    X, data = simulated_panel(150, rng)
    X_test, test_data = simulated_panel(300, rng)
    centre = data.means.mean()  # zero prior mean: centre the scores, add the centre back
    centred = RaterData(data.items, data.raters, data.scores - centre)
    learned, kl = {}, {}
    for mode, start in (("joint", 1.0), ("mean", 0.2)):
        gp = MultiRaterGP(SquaredExponential(1.0, 1.0), start, mode=mode,
                          noise_bounds=(1e-3, 10.0)).fit(X, centred)
        gp.optimise_hyperparameters(n_restarts=3, rng=0)
        learned[mode] = gp.noise_variance
        mean, var = gp.predict(X_test, include_noise=True)  # one rater's score
        log_p = discretised_log_predictive(mean + centre, var, scale=(0, 10))
        kl[mode] = float(discrete_kl(test_data.histograms(), log_p).mean())
    # joint: sigma^2 ~ one rater's noise (1.3^2 = 1.69, plus about 1/12 from rounding);
    # mean: sigma_base^2 ~ sigma^2 / R plus whatever the GP does not fit
    assert 1.3 < learned["joint"] < 2.3, learned
    assert learned["joint"] / 5 * 0.8 < learned["mean"] < 0.5 * learned["joint"], learned
    assert kl["joint"] < 0.75 * kl["mean"], kl  # measured: see the closing report


# ----- zero spread ----------------------------------------------------------------------------
def zero_spread_panel():
    X = np.linspace(-2, 2, 8)[:, None]
    scores = np.round(3 * np.sin(X[:, 0]))
    return X, RaterData.from_matrix(np.repeat(scores[:, None], 3, axis=1))


@pytest.mark.parametrize("mode", ["joint", "repeated"])
def test_zero_spread_is_refused_by_ml_ii_unless_the_noise_is_held(mode):
    X, data = zero_spread_panel()
    assert data.within_ss == 0
    gp = MultiRaterGP(SquaredExponential(0.3, 1.0), 0.5, mode=mode).fit(X, data)
    # the evidence grows without bound as sigma^2 -> 0 (the spread term's -(M - N)/2 log sigma^2
    # wins over the GP term once K's smallest eigenvalue dominates): no maximum to find
    values = [gp.log_evidence(np.append(gp.theta[:-1], np.log(s2)))
              for s2 in (1e-2, 1e-4, 1e-8, 1e-12)]
    assert values[0] < values[1] < values[2] < values[3]
    assert values[3] - values[2] == pytest.approx(0.5 * (24 - 8) * np.log(1e4), rel=1e-3)
    with pytest.raises(ValueError, match="zero spread") as info:
        gp.optimise_hyperparameters(n_restarts=1, rng=0)
    assert str(info.value).startswith("data:")
    for held in (dict(priors={"noise_variance": LogNormal(np.log(0.5), 0.5)}),
                 dict(noise_bounds="fixed")):
        gp = MultiRaterGP(SquaredExponential(1.0, 1.0), 0.5, mode=mode, **held).fit(X, data)
        fit = gp.optimise_hyperparameters(n_restarts=1, rng=0)
        assert np.isfinite(fit.objective) and gp.noise_variance > 1e-3


def test_zero_spread_is_fine_for_the_mean_model():
    X, data = zero_spread_panel()
    gp = MultiRaterGP(SquaredExponential(1.0, 1.0), 0.5, mode="mean").fit(X, data)
    assert np.isfinite(gp.optimise_hyperparameters(n_restarts=1, rng=0).objective)


# ----- RaterData ----------------------------------------------------------------------------
def test_weighted_with_one_shared_noise_is_the_joint_models_split():
    X, data = ragged_panel()
    weighted = weighted_means(data, np.full(data.n_labels, 0.3))
    np.testing.assert_allclose(weighted.target, data.means, rtol=1e-13)
    np.testing.assert_allclose(weighted.noise, 0.3 / data.counts, rtol=1e-13)
    spread = joint_evidence(SquaredExponential()(X), data, 0.3).spread_term
    assert weighted.constant == pytest.approx(spread, rel=1e-13)
