"""The engine of the class panel's censored score model (``class_panel._censored_scores``): a
whole score stands for an interval of the latent score, open at the scale's ends, and the
experts' likelihood of a sentence is the integral over its level."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from course_lib.class_panel._censored_scores import (_experts_log_likelihood,
                                                     _log_score_probability, _score_counts)
from course_lib.rater_data import RaterData


def test_a_score_is_the_probability_of_its_interval_and_the_ends_are_censored():
    level, sd = 9.2, 0.8
    scores = np.arange(11)
    p = np.exp(_log_score_probability(scores, level, sd))
    # each probability is computed to round-off in log space (scipy's too); 1e-9 leaves room
    # for the cancellation in a difference of two cdfs
    # the intervals tile the real line: the eleven probabilities sum to one
    assert p.sum() == pytest.approx(1.0, rel=1e-12)
    assert p[10] == pytest.approx(norm.sf(9.5, level, sd), rel=1e-12)      # at least 9.5
    assert p[0] == pytest.approx(norm.cdf(0.5, level, sd), rel=1e-9)       # at most 0.5
    assert p[7] == pytest.approx(norm.cdf(7.5, level, sd) - norm.cdf(6.5, level, sd), rel=1e-9)


def test_score_counts_are_one_row_per_sentence_and_eleven_columns_per_expert():
    experts = RaterData.from_matrix(np.array([[7.0, 10.0], [0.0, 7.0]]), scale=(0, 10))
    counts = _score_counts(experts)
    assert counts.shape == (2, 2 * 11) and counts.sum() == 4
    assert counts[0, 7] == counts[0, 11 + 10] == counts[1, 0] == counts[1, 11 + 7] == 1


def test_the_experts_likelihood_is_the_integral_over_each_sentences_level():
    """The experts' model's marginal likelihood of one sentence, summed over its level grid,
    against scipy's adaptive quadrature of the same integrand: the grid's step (0.2) is small
    against the integrand's width (about 0.3 here), so they agree to 1e-6 relative."""
    experts = RaterData.from_matrix(np.array([[7.0, 8.0, 10.0, 9.0, 10.0]]), scale=(0, 10))
    offset = np.array([-0.3, 0.1, 0.2, -0.1])
    noise_sd = np.array([0.6, 0.7, 0.8, 0.9, 1.0])
    theta = np.concatenate([[6.0, np.log(2.0)], offset, np.log(noise_sd)])
    grid_value = _experts_log_likelihood(theta, _score_counts(experts), 5)[0]
    offsets = np.r_[offset, -offset.sum()]

    def integrand(level):
        p = 1.0
        for score, c, s in zip([7, 8, 10, 9, 10], offsets, noise_sd):
            upper = np.inf if score == 10 else score + 0.5
            p *= norm.cdf((upper - level - c) / s) - norm.cdf((score - 0.5 - level - c) / s)
        return p * norm.pdf(level, 6.0, 2.0)

    reference = np.log(quad(integrand, -4.0, 14.0, points=[8.0, 9.0, 10.0])[0])
    assert grid_value == pytest.approx(reference, rel=1e-6)
