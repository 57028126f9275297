"""The class's ratings beside the experts (``class_panel.score_model``).

Simulated classes stand in for a real one: a small panel with a known latent fluency over
three features, five experts of known noise, and students of known bias and noise scoring 20
of its sentences as whole numbers 0-10. The checks: the reliability formula against its closed
form and a simulation; the k needed covers the true k; the students' biases and noises come
back in order; a lenient but steady student is not called noisy; a student who gave every clip
the same score is "no information" without a warning, and keeps a bias interval unless that
score is an end of the scale; a lenient class shows in the consensus;
one real speechocean762 round end to end through the lead's Collection; bad input named.
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import spearmanr

from course_lib.class_panel.activities import RateActivity
from course_lib.class_panel.collect import Collection
from course_lib.class_panel.score_model import (ClassRatings, _reliability_of_mean,
                                                class_ratings_model)
from course_lib.data.speechocean762 import load_speechocean762
from course_lib.rater_data import RaterData

EXPERT_NOISE = 0.5
ROUNDING = 1.0 / 12.0       # whole-number scores add about 1/12 to every rater's variance


def fake_panel(seed: int, n_items: int = 160):
    """A panel with a known latent fluency f and five experts of noise EXPERT_NOISE."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n_items, 3))
    f = 5 + 1.5 * np.sin(1.5 * X[:, 0]) + 0.8 * X[:, 1]
    scores = np.clip(np.round(f[:, None] + rng.normal(0, np.sqrt(EXPERT_NOISE), (n_items, 5))),
                     0, 10)
    return SimpleNamespace(features=X, ratings=RaterData.from_matrix(scores, scale=(0, 10)),
                           train=np.arange(n_items), truth=f)


def fake_class(panel, seed: int, bias, noise, n_clips: int = 20):
    """(ratings, pseudonyms, items): students of the given bias and noise variance."""
    rng = np.random.default_rng(seed + 1000)
    bias, noise = np.asarray(bias, float), np.asarray(noise, float)
    items = rng.choice(panel.train, n_clips, replace=False)
    scores = np.clip(np.round(panel.truth[items][None, :] + bias[:, None] + np.sqrt(noise)[:, None]
                              * rng.standard_normal((bias.size, n_clips))), 0, 10)
    names = tuple(f"student-{k:03d}" for k in range(bias.size))
    return RaterData.from_matrix(scores.T, scale=(0, 10)), names, items


def random_class(panel, seed: int, n_students: int = 30):
    rng = np.random.default_rng(seed + 2000)
    bias, noise = rng.normal(0, 0.8, n_students), rng.uniform(0.5, 3.0, n_students)
    return fake_class(panel, seed, bias, noise), bias, noise


def fit(source, panel, **kwargs) -> ClassRatings:
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # no RuntimeWarning, no NaN warning leaks
        return class_ratings_model(source, panel, n_context=100, **kwargs)


def test_reliability_is_spearman_brown_and_the_reliability_of_a_mean():
    v, noise = 1.7, np.array([0.6, 1.1, 2.4, 3.0])
    k = np.arange(1, 9)
    one = v / (v + noise.mean())
    np.testing.assert_allclose(_reliability_of_mean(v, noise.mean(), k),
                               k * one / (1 + (k - 1) * one), rtol=1e-12)
    # simulation: the squared correlation of the plain mean of the four raters with the truth
    rng = np.random.default_rng(3)
    f = rng.normal(0, np.sqrt(v), 100_000)
    mean = f + (np.sqrt(noise)[:, None] * rng.standard_normal((4, f.size))).mean(axis=0)
    simulated = np.corrcoef(mean, f)[0, 1] ** 2
    assert simulated == pytest.approx(_reliability_of_mean(v, noise.mean(), 4), abs=0.01)


def test_the_k_needed_covers_the_true_k():
    """Four simulated classes (seeds 0-3, not chosen) of 30 students; the true k is
    ceil(5 (class mean noise + 1/12) / (expert noise + 1/12)). A 90 % interval misses about
    one time in ten, so at least three of the four must cover it (a correct method fails this
    about one time in seventy)."""
    covered, points = 0, []
    for seed in range(4):
        panel = fake_panel(seed)
        source, _, noise = random_class(panel, seed)
        result = fit(source, panel, rng=seed)
        truth = int(np.ceil(5 * (noise.mean() + ROUNDING) / (EXPERT_NOISE + ROUNDING)))
        low, high = result.reliability.k_interval
        covered += low <= truth <= (high if high is not None else np.inf)
        points.append((result.reliability.k_needed, truth))
    assert covered >= 3, points
    assert all(abs(k - truth) <= 0.35 * truth for k, truth in points), points


def test_biases_and_noises_come_back_in_order():
    panel = fake_panel(10)
    source, bias, noise = random_class(panel, 10)
    result = fit(source, panel)
    assert result.status == ("ok",) * 30
    assert spearmanr(result.bias, bias).statistic > 0.85
    assert spearmanr(result.noise_variance, noise).statistic > 0.6
    assert np.all(result.bias_se > 0)
    assert np.all(result.noise_interval[:, 0] < result.noise_variance)
    assert np.all(result.noise_variance < result.noise_interval[:, 1])
    # the experts' own noise (0.5 + rounding) is found, and their offsets average zero
    assert np.mean(result.expert_noise_variance) == pytest.approx(EXPERT_NOISE + ROUNDING, rel=0.3)
    assert np.mean(result.expert_bias) == pytest.approx(0.0, abs=1e-8)


def test_a_lenient_but_steady_student_is_not_called_noisy():
    """GPR-MA on the raw scores would put a +3 offset into the noise variance (9 points^2);
    with the offset removed first, the student is the steadiest of the class."""
    panel = fake_panel(11)
    bias = np.r_[3.0, np.zeros(9)]
    noise = np.r_[0.3, np.full(9, 2.0)]
    result = fit(fake_class(panel, 11, bias, noise), panel)
    assert result.bias[0] == pytest.approx(3.0, abs=0.5)
    assert result.noise_variance[0] == result.noise_variance.min()
    assert result.correlation[0] == result.correlation.max()


def test_a_student_with_one_score_for_everything_is_no_information():
    panel = fake_panel(12)
    ratings, names, items = fake_class(panel, 12, np.zeros(6), np.full(6, 1.0))
    table = ratings.matrix()
    table[:, 1] = 7.0                               # every clip the same score
    table[2:, 2] = np.nan                           # two scores only
    result = fit((RaterData.from_matrix(table, scale=(0, 10)), names, items), panel)
    assert result.status[1] == "no information" and result.status[2] == "too few scores"
    assert result.informative.tolist() == [True, False, False, True, True, True]
    for field in ("noise_variance", "correlation"):
        assert np.isnan(getattr(result, field)[[1, 2]]).all()
        assert np.isfinite(getattr(result, field)[[0, 3, 4, 5]]).all()
    assert np.isfinite(result.bias).all()           # their level is still known
    # one score inside the scale: the bias keeps its posterior and interval
    assert np.isfinite(result.bias_se[[0, 1, 3, 4, 5]]).all() and np.isnan(result.bias_se[2])
    assert np.isfinite(result.bias_interval[[0, 1, 3, 4, 5]]).all()
    assert np.isnan(result.bias_interval[2]).all()
    assert result.reliability.k.size == 4           # only the informative ones
    assert np.isfinite(result.consensus).all()


def test_one_score_throughout_gets_a_bias_interval_inside_the_scale_and_a_reason_at_its_ends():
    """Inside the scale the interval sits around the plain mean difference from the experts'
    mean and narrows with more clips; all 10s or all 0s leave the bias without an upper (lower)
    limit, so no interval, and the plain mean difference stays. The informative students'
    numbers do not move: the class's prior of the noise is theirs alone."""
    panel = fake_panel(15)
    ratings, names, items = fake_class(panel, 15, np.zeros(16), np.full(16, 1.0), n_clips=24)
    table = ratings.matrix()
    table[2:, :4] = np.nan                          # four students with too few scores
    before = fit((RaterData.from_matrix(table, scale=(0, 10)), names, items), panel)
    table[:, 0], table[:, 1], table[:, 2] = 7.0, 10.0, 0.0
    table[:12, 3], table[12:, 3] = np.nan, 7.0     # the same score on half as many clips
    result = fit((RaterData.from_matrix(table, scale=(0, 10)), names, items), panel)
    assert result.status[:3] == ("no information",) * 3
    plain = 7.0 - panel.ratings.means[items]
    low, high = result.bias_interval[0]
    assert low < plain.mean() < high and low < result.bias[0] < high
    assert high - low < 2.0                         # an interval of the bias, not of a score
    assert np.diff(result.bias_interval[3])[0] > high - low     # 12 clips: wider than 24
    for r, score in ((1, 10.0), (2, 0.0)):
        assert np.isnan(result.bias_interval[r]).all() and np.isnan(result.bias_se[r])
        assert result.bias[r] == pytest.approx(np.mean(score - panel.ratings.means[items]))
    informative = result.informative
    assert informative[4:].all() and not informative[:4].any()
    # (to rounding: the students' table of (clip, score) pairs has grown)
    np.testing.assert_allclose(result.bias_interval[4:], before.bias_interval[4:], rtol=1e-9)
    np.testing.assert_allclose(result.noise_variance[4:], before.noise_variance[4:], rtol=1e-9)


def test_one_student_and_a_class_without_information_do_not_crash():
    panel = fake_panel(13)
    ratings, names, items = fake_class(panel, 13, [0.0], [1.0])
    alone = fit((ratings, names, items), panel)
    assert alone.reliability.k.tolist() == [1]
    band = alone.reliability.band[0]                # one student's posterior, not a point
    assert band[0] < alone.reliability.reliability[0] < band[1]
    assert alone.reliability.verdict().startswith("not reached within K = 1 student (")
    flat = RaterData.from_matrix(np.full((items.size, 1), 6.0), scale=(0, 10))
    silent = fit((flat, names, items), panel)
    assert silent.status == ("no information",)
    assert silent.reliability.k.size == 0 and silent.reliability.k_needed is None
    assert "no student gave informative scores" in silent.reliability.verdict()
    assert np.isnan(silent.consensus).all() and np.isfinite(silent.latent_mean).all()


def test_a_lenient_class_shows_in_its_consensus():
    panel = fake_panel(14)
    bias = np.full(20, 1.0)
    result = fit(fake_class(panel, 14, bias, np.full(20, 1.0)), panel)
    gap = result.consensus - result.expert_mean
    assert gap.mean() == pytest.approx(1.0, abs=0.3)
    assert np.corrcoef(result.consensus, result.expert_mean)[0, 1] > 0.9
    assert np.all(result.consensus_sd > 0) and np.all(result.n_class_scores == 20)


@pytest.fixture(scope="module")
def panel():
    return load_speechocean762("fluency")


def test_a_real_round_through_a_collection(panel):
    """The shipped twenty clips, a class of 12 around the experts' means (one at random), given
    as the lead's Collection with one clip nobody scored; the same as the tuple form."""
    rng = np.random.default_rng(5)
    items = tuple(clip.item for clip in panel.clips_to_rate())
    truth = panel.ratings.means[list(items)]
    scores = np.clip(np.round(truth[:, None] + rng.normal(0, 0.8, (20, 12))), 0, 10)
    scores[:, 11] = rng.integers(0, 11, 20)                   # answers at random
    scores[0, :] = np.nan                                     # clip 1: nobody scored it
    clips, raters = np.nonzero(~np.isnan(scores))
    names = tuple(f"p{k:02d}" for k in range(12))
    collection = Collection(folder="", rate=RateActivity(None, items), compare=None,
                            pseudonyms=names, rate_raters=names,
                            rate_labels=(clips, raters, scores[clips, raters]),
                            comparisons={}, rows=(), sheets=())
    result = class_ratings_model(collection, panel, n_context=60, rng=1)
    assert result.items.tolist() == list(items[1:])
    assert int(np.argmin(result.correlation)) == 11
    assert int(np.argmax(result.noise_variance)) == 11
    same = class_ratings_model((RaterData.from_matrix(scores[1:], scale=(0, 10)), names,
                                items[1:]), panel, n_context=60, rng=1)
    np.testing.assert_allclose(same.noise_variance, result.noise_variance)


def test_bad_input_is_named():
    panel = fake_panel(15)
    ratings, names, items = fake_class(panel, 15, np.zeros(3), np.ones(3))
    cases = [
        (dict(collection=[ratings, names, items]), TypeError, "^collection:"),
        (dict(collection=(ratings.matrix(), names, items)), TypeError, "^collection:"),
        (dict(collection=(ratings, names[:2], items)), ValueError, "^collection:"),
        (dict(collection=(ratings, ("a", "a", "b"), items)), ValueError, "^collection:"),
        (dict(collection=(ratings, names, items[:5])), ValueError, "^collection:"),
        (dict(collection=(ratings, names, items + 10_000)), ValueError, "^panel:"),
        (dict(panel=object()), TypeError, "^panel:"),
        (dict(n_context=0), ValueError, "^n_context:"),
        (dict(n_draws=10), ValueError, "^n_draws:"),
        (dict(rng="seed"), TypeError, "^rng:"),
    ]
    for change, error, message in cases:
        arguments = dict(collection=(ratings, names, items), panel=panel) | change
        with pytest.raises(error, match=message):
            class_ratings_model(arguments.pop("collection"), arguments.pop("panel"),
                                **arguments)
    empty = Collection(folder="", rate=None, compare=None, pseudonyms=(), rate_raters=(),
                       rate_labels=((), (), ()), comparisons={}, rows=(), sheets=())
    with pytest.raises(ValueError, match="^collection: holds no rating sheets"):
        class_ratings_model(empty, panel)


def test_a_lenient_student_whose_scores_stop_at_10_is_not_read_as_steady():
    """Issue 59's student: noise variance 2.35, bias +2 on a round whose experts' means are
    high. Read as exact, those scores looked steady
    (0.33); read as "at least 9.5" the interval holds the truth, and the flag is up (here 7 of
    20 scores are 10)."""
    panel = fake_panel(16)
    high = np.flatnonzero(panel.ratings.means >= 6.5)[:20]
    rng = np.random.default_rng(16)
    bias, noise = np.r_[2.0, rng.normal(0, 0.5, 11)], np.r_[2.35, rng.uniform(0.5, 2.0, 11)]
    means = panel.ratings.means[high]
    scores = np.clip(np.floor(means[:, None] + bias + np.sqrt(noise) *
                              rng.standard_normal((high.size, bias.size)) + 0.5), 0, 10)
    names = tuple(f"s{k:02d}" for k in range(bias.size))
    result = fit((RaterData.from_matrix(scores, scale=(0, 10)), names, high), panel)
    assert result.scores_at_ends[0] == np.sum((scores[:, 0] == 0) | (scores[:, 0] == 10)) >= 5
    assert result.at_scale_end[0]
    low, high_end = result.noise_interval[0]
    assert low <= 2.35 <= high_end and result.noise_variance[0] > 1.0
    assert result.bias_interval[0, 0] <= 2.0 <= result.bias_interval[0, 1]
    assert result.interval_name("noise") == "90 % Bayesian credible interval"
    assert "confidence" in result.interval_name("correlation")
    with pytest.raises(ValueError, match="^kind: "):
        result.interval_name("mood")
