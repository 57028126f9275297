"""Prior-knowledge constraints (course_lib.mixed.constraints): targets against scipy's normal
quantile, the noise heuristic against the paper's checked intervals, the pseudo-data rule, and
the mixed likelihood of a detection session against its parts and against closed-form GP
regression."""

import numpy as np
import pytest
from scipy.stats import norm

from course_lib.gp import SquaredExponential
from course_lib.mixed import VariationalGP
from course_lib.mixed.constraints import (_CHANCE_ANSWERS, Z_95, at_chance, constraint_sigma,
                                          constraints_from_probability, detection_likelihood,
                                          pseudo_data)
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, GaussianConstraint


def test_targets_are_the_probit_quantiles_clipped_at_the_cap():
    p = np.array([0.0, 1e-4, 0.3, 0.5, 0.75, 0.9772, 0.9995, 1.0])
    np.testing.assert_allclose(constraints_from_probability(p),
                               norm.ppf(np.clip(p, 0.001, 0.999)), rtol=1e-14, atol=1e-15)
    assert constraints_from_probability(1.0) == pytest.approx(3.090232306, abs=1e-9)
    assert constraints_from_probability(0.5) == 0.0
    np.testing.assert_allclose(constraints_from_probability([0.01, 0.99], cap=0.95),
                               norm.ppf([0.05, 0.95]), rtol=1e-14)
    # the floor mirrors the cap
    np.testing.assert_allclose(constraints_from_probability(p), -constraints_from_probability(1 - p),
                               atol=1e-12)


def test_sigma_is_the_seeds_heuristic_for_nonnegative_targets_and_positive_below():
    y = np.linspace(0.0, 3.0, 13)
    np.testing.assert_allclose(constraint_sigma(y), 0.2 * y + 0.1, rtol=1e-15)
    below = np.array([-0.4, -0.5, -0.6, -2.0])
    seeds = 0.2 * below + 0.1
    # the paper's heuristic gives a zero sd at -0.5 and a negative one below; the repair does not
    assert seeds[1] == pytest.approx(0.0, abs=1e-15) and np.all(seeds[2:] < 0)
    np.testing.assert_allclose(constraint_sigma(below), constraint_sigma(-below))
    assert np.all(constraint_sigma(below) >= 0.1)


@pytest.mark.parametrize("y, interval", [(0.0, (0.4223, 0.5777)), (2.0, (0.8461, 0.9986))])
def test_a_priori_intervals_match_the_seeds_checked_values(y, interval):
    sd = constraint_sigma(y)
    low, high = norm.cdf(y - Z_95 * sd), norm.cdf(y + Z_95 * sd)
    np.testing.assert_allclose([low, high], interval, atol=5e-5)
    # the paper prints them as [0.422, 0.578] and [0.846, 0.999]
    np.testing.assert_allclose(np.round([low, high], 3),
                               [(0.422, 0.578), (0.846, 0.999)][int(y > 0)], atol=1e-12)


def test_chance_rule_is_the_interval_that_contains_zero():
    edge = Z_95 * 0.1 / (1 - 0.2 * Z_95)    # |y| = 1.96 (0.2 |y| + 0.1)
    assert edge == pytest.approx(0.3224, abs=1e-4)
    y = np.array([-edge * 1.001, -edge * 0.999, 0.0, edge * 0.999, edge * 1.001, 2.0])
    np.testing.assert_array_equal(at_chance(y), [False, True, True, True, False, False])
    # the same rule written out from the interval
    sd = constraint_sigma(y)
    np.testing.assert_array_equal(at_chance(y), (y - Z_95 * sd <= 0) & (0 <= y + Z_95 * sd))


def test_pseudo_data_gives_five_and_five_at_chance_and_one_answer_elsewhere():
    locations = np.array([[0.0, -1.0], [0.5, -1.0], [0.0, 1.0], [0.3, 0.3]])
    targets = np.array([0.0, 0.1, 2.5, -1.5])
    X, answers = pseudo_data(locations, targets)
    assert X.shape == (2 * 2 * _CHANCE_ANSWERS + 2, 2)
    for row, (location, target) in enumerate(zip(locations, targets)):
        here = np.all(X == location, axis=1)
        if abs(target) < 0.3:
            assert here.sum() == 10 and answers[here].sum() == 5
        else:
            assert here.sum() == 1 and answers[here][0] == float(target > 0)
    # the paper's psychometric baseline: 10 chance + 10 near-100 % locations -> 110 answers
    X, answers = pseudo_data(np.zeros((20, 2)) + np.arange(20)[:, None],
                             np.r_[np.zeros(10), np.full(10, 3.0)])
    assert answers.size == 110 and answers.sum() == 50 + 10


def _data():
    X = np.array([[0.1, 0.2], [0.1, 0.2], [0.5, 0.5], [0.9, 0.1]])
    answers = np.array([1.0, 0.0, 1.0, 1.0])
    C_X = np.array([[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]])
    C_y = np.array([0.0, 2.0, 3.0])
    return X, answers, C_X, C_y


def test_coinciding_locations_share_an_item_and_rows_point_at_their_own_item():
    X, answers, C_X, C_y = _data()
    data = detection_likelihood(X, answers, constraint_X=C_X, constraint_y=C_y, arm="mixed")
    assert data.items.shape == (5, 2) and data.n_answers == 4
    mixed = data.likelihood
    assert isinstance(mixed.likelihoods[0], BernoulliProbit)
    assert isinstance(mixed.likelihoods[1], GaussianConstraint)
    np.testing.assert_allclose(mixed.likelihoods[1].noise_sd, constraint_sigma(C_y))
    rows = mixed.M @ data.items           # each row's location
    np.testing.assert_array_equal(rows, np.vstack([X, C_X]))
    np.testing.assert_array_equal(mixed.y, np.r_[answers, C_y])


def test_the_three_arms_share_the_real_answers_and_differ_only_in_the_constraints():
    X, answers, C_X, C_y = _data()
    arms = {arm: detection_likelihood(X, answers, constraint_X=C_X, constraint_y=C_y, arm=arm)
            for arm in ("mixed", "pseudo", "none")}
    P_X, P_answers = pseudo_data(C_X, C_y)
    for arm, data in arms.items():
        first = data.likelihood.slices[0]
        located = data.likelihood.M[first] @ data.items
        np.testing.assert_array_equal(located[:4], X)
        np.testing.assert_array_equal(data.likelihood.y[first][:4], answers)
    pseudo = arms["pseudo"].likelihood
    assert pseudo.n_parts == 1 and pseudo.n_rows == 4 + P_answers.size
    np.testing.assert_array_equal(pseudo.M @ arms["pseudo"].items, np.vstack([X, P_X]))
    np.testing.assert_array_equal(pseudo.y[4:], P_answers)
    assert arms["none"].likelihood.n_parts == 1 and arms["none"].likelihood.n_rows == 4
    assert arms["none"].items.shape[0] == 3


def test_mixed_expected_log_likelihood_is_the_sum_of_bernoulli_and_constraint_terms():
    X, answers, C_X, C_y = _data()
    data = detection_likelihood(X, answers, constraint_X=C_X, constraint_y=C_y, arm="mixed")
    rng = np.random.default_rng(3)
    mean, var = rng.normal(size=7), rng.uniform(0.1, 2.0, 7)
    total, d_mean, d_var = data.likelihood.expected_log_likelihood(mean, var)
    bern = BernoulliProbit().expected_log_likelihood(answers, mean[:4], var[:4])
    sd = constraint_sigma(C_y)
    gauss = norm.logpdf(C_y, mean[4:], sd) - var[4:] / (2 * sd ** 2)
    assert total == pytest.approx(bern[0].sum() + gauss.sum(), rel=1e-12)
    np.testing.assert_allclose(d_mean[4:], (C_y - mean[4:]) / sd ** 2, rtol=1e-12)


def test_constraints_alone_give_gp_regression_with_per_row_noise():
    """With only Gaussian constraints the variational posterior is exact regression:
    mean = K (K + diag(sd^2))^-1 y, in closed form."""
    C_X = np.array([[0.0, 0.0], [0.4, 0.1], [1.0, 1.0], [0.2, 0.9]])
    C_y = np.array([0.0, 0.5, 3.0, 1.0])
    data = detection_likelihood(np.zeros((0, 2)), [], constraint_X=C_X, constraint_y=C_y)
    kernel = SquaredExponential([0.5, 0.7], 2.0)
    gp = VariationalGP(kernel, data.likelihood).fit(data.items)
    test = np.array([[0.1, 0.1], [0.7, 0.3], [0.5, 0.5]])
    noise = np.diag(constraint_sigma(C_y) ** 2)
    K = kernel(C_X)
    expected_mean = kernel(test, C_X) @ np.linalg.solve(K + noise, C_y)
    expected_var = kernel.diag(test) - np.einsum(
        "ij,ji->i", kernel(test, C_X), np.linalg.solve(K + noise, kernel(C_X, test)))
    mean, var = gp.predict(test)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(var, expected_var, rtol=1e-6, atol=1e-9)


def test_pseudo_answers_at_chance_pull_the_posterior_towards_zero():
    C_X = np.array([[0.0, 0.0], [1.0, 1.0]])
    C_y = np.array([0.0, 3.0])
    kernel = SquaredExponential([0.3, 0.3], 2.0)
    X = np.array([[0.05, 0.0]])
    means = {}
    for arm in ("none", "pseudo"):
        data = detection_likelihood(X, [1.0], constraint_X=C_X, constraint_y=C_y, arm=arm)
        gp = VariationalGP(kernel, data.likelihood).fit(data.items)
        means[arm] = gp.predict(np.array([[0.0, 0.0]]))[0][0]
    # one yes near the origin pushes the unconstrained mean up; 5 yes + 5 no hold it near 0
    assert means["none"] > 0.3 and abs(means["pseudo"]) < 0.5 * means["none"]
