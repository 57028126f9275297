"""Bad-input catalogue: the cases of the Units 5-7 review (issue 20, section 4), with our own
inputs. Each family's prefix puts the case with its module's family in the catalogue count.

Decisions recorded here:

* "Which items / trials / raters" arguments share one rule
  (:func:`course_lib.validation.as_selection`): integer indices 0..n-1 or a boolean mask of
  length n; fractions, out-of-range indices, masks of another length and empty selections are
  refused by name. A mask is understood, never read as the indices 0 and 1.
* A numpy masked array is honoured where "missing" has a meaning (``RaterData.from_matrix``:
  masked = missing, as NaN) and refused by name everywhere else (its hidden numbers would be
  used silently).
* Nothing allocates a single array beyond 2 GiB (``validation._MAX_ARRAY_BYTES``): the argument
  that asked for it is named, with what to do instead (the sparse model, a coarser grid, fewer
  points).
* A level-set problem has one definition of its set, {P(yes) < Phi(threshold)}; its latent is
  checked on every call like a listener's utilities; constraints lie inside the box.
* Affinity propagation breaks exact ties deterministically (lower index wins) when the messages
  get stuck, and never advises a larger max_iter when more sweeps cannot help.
* ``_utterance_features`` CONVERTS int16 / int32 PCM by its full scale (the same features as the
  float clip); other integer types and boolean signals are refused.
* ``forced_choice_test`` reports which side won (``preferred``, ``personal_preferred``).
"""

import time
import warnings
from functools import partial
from unittest import mock

import numpy as np
import pytest

from bad_input import BadInput, RightAnswer, check_case, parametrize
from course_lib.raters.affinity import _affinity_propagation, _negative_squared_distances
from course_lib.data.fluency import frame_rms, _utterance_features
from course_lib.features import mfcc, mfcc_features
from course_lib.gp import GPRegression, SquaredExponential
from course_lib.preference import PairwiseProbit, PreferenceGP
from course_lib.raters import MultiRaterGP, RaterData
from course_lib.preference.acquisition import thompson_sample
from course_lib.raters.annotator_noise import AnnotatorNoiseGP
from course_lib.raters.regions import assign_regions
from course_lib.preference.comparisons import Comparisons
from course_lib.mixed.confidence import ConfidencePreferenceGP
from course_lib.preference.forced_choice import _two_tailed_p, forced_choice_test, forced_choice_threshold
from course_lib.mixed.feedback_likelihoods import BernoulliProbit
from course_lib.mixed.sparse_variational_gp import inducing_points
from course_lib.mixed.variational_gp import VariationalGP
from course_lib.linalg import NotPositiveDefiniteError
from course_lib.plotting import dtw as dtw_plots
from course_lib.plotting import gmm as gmm_plots
from course_lib.simulators.confidence_raters import haptic_like_subjects
from course_lib.simulators.levelset_session import LevelSetSession
from course_lib.simulators.listeners import SimulatedListener, next_candidate, run_session, \
    settings_grid
from course_lib.simulators.psychophysics import (LevelSetProblem, norm_ball_problem,
                                                 passthrough_problem, psychometric_problem)
from course_lib.stimuli import (_Equaliser, _peaking_biquad, _standard_equaliser,
                                _synthesised_music, _tone_in_noise, _wav_bytes)
from course_lib.simulators.confidence_raters import preference_scores

# every case here: the message STARTS with the argument's name (a message that merely mentions
# it, as "X: the kernel matrix of X ..." mentions the kernel, does not count)
Named = partial(BadInput, first=True)

SE = SquaredExponential(1.5, 1.0)
PROBIT = PairwiseProbit(0.5)


# ----- inputs ---------------------------------------------------------------------------------
def trials():
    return haptic_like_subjects(n_pairs=12, rng=7)[0]


RATINGS = RaterData.from_matrix([[2.0, 3.0], [7.0, np.nan], [5.0, 6.0], [np.nan, 9.0]])
# 20000 items, one label each from one of two raters: a valid data set for an exact GP too large
MANY = RaterData.from_long(np.arange(20000), np.arange(20000) % 2, np.ones(20000))


class NegatedSE(SquaredExponential):
    """Not a kernel: minus a squared exponential (its matrices are negative definite)."""

    def _K(self, X, Z):
        return -super()._K(X, Z)

    def _diag(self, X):
        return -super()._diag(X)


X5 = np.linspace(0.0, 2.0, 5)[:, None]


def fitted_preference(dim: int):
    X = np.random.default_rng(3).uniform(0, 80, (4, dim))
    return PreferenceGP(SquaredExponential(20.0, 1.0), PROBIT).fit(
        Comparisons(X, [0, 1, 2], [1, 2, 3], [1.0, 0.0, 1.0]))


def plane(X):
    return X[:, 0] - 0.5 * X[:, 1]


def session(grid, **options):
    return lambda: run_session(SimulatedListener(plane, PROBIT, rng=1),
                               PreferenceGP(SquaredExponential(2.0, 1.0), PROBIT), grid,
                               n_random=3, n_active=1, optimise_every=None, rng=2, **options)


def speech_like(rng_seed=5, sample_rate=16000):
    """Three noise bursts ("words") with silence between: a clip the VAD can segment."""
    rng = np.random.default_rng(rng_seed)
    x = np.zeros(int(1.6 * sample_rate))
    for start in (0.1, 0.6, 1.1):
        i = int(start * sample_rate)
        x[i:i + int(0.3 * sample_rate)] = 0.3 * rng.standard_normal(int(0.3 * sample_rate))
    return x


def int16_pcm(x):
    return np.round(x * 32767).astype(np.int16)


# ----- right answers --------------------------------------------------------------------------
def _mask_picks_those_trials(result):
    t, mask = result
    X, first, second = t.items(mask)
    np.testing.assert_array_equal(X, np.vstack([t.X_first[mask], t.X_second[mask]]))
    np.testing.assert_array_equal(first, np.arange(3))
    np.testing.assert_array_equal(second, np.arange(3, 6))


def _mask_trials():
    t = trials()
    mask = np.zeros(t.n_trials, dtype=bool)
    mask[[1, 4, 9]] = True
    return t, mask


def _same_ratings(pair):
    a, b = pair
    np.testing.assert_array_equal(a.matrix(), b.matrix())
    assert a.n_items == b.n_items and a.n_raters == b.n_raters


def _masked_table():
    Y = np.array([[2.0, 3.0], [7.0, -99.0], [5.0, 6.0], [-99.0, 9.0]])   # -99: nobody scored
    masked = np.ma.masked_array(Y, Y == -99.0)
    return RaterData.from_matrix(masked, scale=(0, 10)), RaterData.from_matrix(
        np.where(Y == -99.0, np.nan, Y), scale=(0, 10))


def _inside(problem):
    """in_level_set at 4000 random settings, after checking that it is the set the session
    scores (probit_latent < threshold)."""
    X = problem.from_unit(np.random.default_rng(11).uniform(size=(4000, problem.dim)))
    inside = problem.in_level_set(X)
    np.testing.assert_array_equal(inside, problem.probit_latent(X) < problem.threshold)
    return inside


def _thresholds_agree(problem):
    assert 0 < _inside(problem).mean() < 1


def _empty_set(problem):
    # the psychometric latent is >= 0 everywhere: {P(yes) < 1/2} is empty (the old
    # in_level_set kept the 75 % set, 6 % of the box, while the session scored this one)
    assert not _inside(problem).any()


def _same_problem(make, threshold, name):
    problem = make()
    return LevelSetProblem(name, problem.bounds, problem.latent, problem.link,
                           problem.constraint_X, problem.constraint_y, threshold=threshold)


def _two_clusters(result):
    np.testing.assert_array_equal(result.labels, [0, 0, 1, 1])
    np.testing.assert_array_equal(result.exemplars, [0, 2])
    assert result.converged and result.ties_broken


def _stuck_warning():
    S = _negative_squared_distances(np.array([0.0, 1.0, 10.0, 11.0]))
    with mock.patch("course_lib.raters.affinity._TIE_BREAK", 0.0), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _affinity_propagation(S)
    return [str(w.message) for w in caught]


def _advises_damping_not_max_iter(messages):
    assert len(messages) == 1, messages
    assert messages[0].startswith("damping:") and "max_iter" not in messages[0], messages


def _same_features(pair):
    a, b = pair
    np.testing.assert_array_equal(a, b)


def _baseline_won(test):
    assert test.significant and test.preferred == "baseline" and not test.personal_preferred
    assert "baseline" in str(test)


def _threshold_of_ten_million():
    start = time.perf_counter()
    k = forced_choice_threshold(10 ** 7)
    return k, time.perf_counter() - start


def _exact_and_quick(result):
    k, seconds = result
    n = 10 ** 7
    # the smallest significant win count, by the exact p-value on both sides of it
    assert _two_tailed_p(k, n) < 0.001 <= _two_tailed_p(k - 1, n), k
    assert seconds < 60, f"{seconds:.1f} s (the search over every k took minutes)"


CASES = [
    # ----- one index rule for trials / items ------------------------------------------------
    RightAnswer("confidence_raters: trials as a boolean mask", _mask_trials,
                _mask_picks_those_trials),
    Named("confidence_raters: fractional trial indices",
             lambda: trials().items([0.7, 2.9]), ValueError, "trials"),
    Named("confidence_raters: a trial index equal to n_trials",
             lambda: trials().items([3, 12]), ValueError, "trials"),
    Named("confidence_raters: a negative trial index", lambda: trials().items([-1]),
             ValueError, "trials"),
    Named("confidence_raters: a trial mask one entry short",
             lambda: trials().items(np.ones(11, dtype=bool)), ValueError, "trials"),
    Named("confidence_raters: trials as text", lambda: trials().items("0:3"), TypeError,
             "trials"),
    RightAnswer("raters: subset by a boolean mask",
                lambda: (RATINGS.subset([False, True, True, False]), RATINGS.subset([1, 2])),
                _same_ratings),
    Named("raters: subset by a mask of the wrong length",
             lambda: RATINGS.subset([True, False]), ValueError, "items"),
    Named("raters: subset by fractional indices", lambda: RATINGS.subset([0.5, 2]),
             ValueError, "items"),
    Named("raters: subset by a mask selecting nothing",
             lambda: RATINGS.subset(np.zeros(4, dtype=bool)), ValueError, "items"),
    Named("widgets: a split with fractional trial indices",
             lambda: preference_scores(trials(), trials().levels, SE, [([0.5, 1.5], [2, 3])],
                                       use_ratings=False), ValueError, "splits[0][0]"),
    Named("widgets: a split's test trials beyond the subject's",
             lambda: preference_scores(trials(), trials().levels, SE, [([0, 1, 2], [40])],
                                       use_ratings=False), ValueError, "splits[0][1]"),
    # ----- masked arrays --------------------------------------------------------------------
    RightAnswer("raters: a masked table's masked scores are missing", _masked_table,
                _same_ratings),
    Named("raters: masked scores in long format",
             lambda: RaterData.from_long([0, 1], [0, 0],
                                         np.ma.masked_array([3.0, 4.0], [False, True])),
             TypeError, "scores"),
    # ----- sizes ----------------------------------------------------------------------------
    Named("gp: an exact GP on a million points",
             lambda: GPRegression(SE, 0.1).fit(np.linspace(0, 1, 10 ** 6), np.zeros(10 ** 6)),
             ValueError, "X"),
    Named("gp: a full predictive covariance at 30000 points",
             lambda: GPRegression(SE, 0.1).fit(X5, np.zeros(5)).predict(
                 np.linspace(0, 2, 30000), full_cov=True), ValueError, "X_test"),
    Named("raters: the multi-rater GP on 20000 items",
             lambda: MultiRaterGP(SE, 0.5).fit(np.zeros((20000, 1)), MANY), ValueError,
             "X"),
    Named("annotators: GPR-MA on 20000 items",
             lambda: AnnotatorNoiseGP(SE, 2).fit(np.zeros((20000, 1)), MANY), ValueError,
             "X"),
    Named("variational: a full-rank variational GP on 20000 items",
             lambda: VariationalGP(SE, BernoulliProbit()).fit(np.zeros((20000, 1)),
                                                              np.ones(20000)),
             ValueError, "X"),
    Named("acquisition: Thompson sampling on the 4-D study grid",
             lambda: thompson_sample(fitted_preference(4), settings_grid(0, 80, 5, 4), rng=0),
             ValueError, "X_grid"),
    Named("listeners: the 'thompson' rule on the 4-D study grid",
             lambda: run_session(SimulatedListener(lambda X: X.sum(axis=1), PROBIT, rng=1),
                                 PreferenceGP(SquaredExponential(20.0, 1.0), PROBIT),
                                 settings_grid(0, 80, 5, 4), acquisition="thompson", rng=0),
             ValueError, "grid"),
    Named("levelset_session: a billion Sobol candidates",
             lambda: LevelSetSession(norm_ball_problem(2), n_candidates=10 ** 9, rng=0),
             ValueError, "n_candidates"),
    Named("levelset_session: 2^40 test points",
             lambda: LevelSetSession(norm_ball_problem(2), n_test=2 ** 40, rng=0), ValueError,
             "n_test"),
    Named("sparse_variational_gp: 10^12 inducing points",
             lambda: inducing_points([[0.0, 1.0], [0.0, 1.0]], 10 ** 12, rng=0), ValueError,
             "n"),
    Named("stimuli: a tone in noise at 10^12 samples per second",
             lambda: _tone_in_noise(0.5, sample_rate=10 ** 12), ValueError, "sample_rate"),
    Named("stimuli: thirty years of music",
             lambda: _synthesised_music(30 * 365 * 86400.0), ValueError, "duration"),
    # ----- level sets -----------------------------------------------------------------------
    Named("psychophysics: a latent that is NaN in part of the box",
             lambda: LevelSetProblem("holey", [[0.0, 1.0]],
                                     lambda X: np.where(X[:, 0] > 0.8, np.nan, X[:, 0]),
                                     "probit", [[0.1]], [0.1]).answer_probability(
                 [[0.5], [0.9]]), ValueError, "latent"),
    Named("psychophysics: a latent that returns one number for every query",
             lambda: LevelSetProblem("flat", [[0.0, 1.0]], lambda X: 0.3, "probit", [[0.1]],
                                     [0.1]), ValueError, "latent"),
    Named("psychophysics: a latent that returns a row per column",
             lambda: LevelSetProblem("sideways", [[0.0, 1.0], [0.0, 1.0]],
                                     lambda X: X.sum(axis=0), "probit",
                                     [[0.1, 0.2], [0.3, 0.4]], [0.1, 0.2]),
             ValueError, "latent"),
    RightAnswer("psychophysics: threshold 0 and in_level_set agree (psychometric)",
                lambda: _same_problem(psychometric_problem, 0.0, "psychometric at 50 %"),
                _empty_set),
    RightAnswer("psychophysics: threshold 1 and in_level_set agree (norm ball)",
                lambda: _same_problem(norm_ball_problem, 1.0, "ball at 84 %"),
                _thresholds_agree),
    RightAnswer("psychophysics: threshold 1.5 and in_level_set agree (logistic)",
                lambda: _same_problem(passthrough_problem, 1.5, "passthrough at 93 %"),
                _thresholds_agree),
    Named("psychophysics: a constraint at 250 in the box [0, 100]",
             lambda: LevelSetProblem("far", [[0.0, 100.0]], lambda X: X[:, 0] / 50.0, "probit",
                                     [[250.0]], [1.0]), ValueError, "constraint_X"),
    Named("psychophysics: a NaN threshold",
             lambda: LevelSetProblem("nan", [[0.0, 1.0]], lambda X: X[:, 0], "probit", [[0.5]],
                                     [0.5], threshold=np.nan), ValueError, "threshold"),
    Named("levelset_session: a constraint below the box",
             lambda: LevelSetSession(bounds=[[0.0, 100.0], [0.0, 10.0]],
                                     constraint_X=[[50.0, -3.0]], constraint_y=[0.0], rng=0),
             ValueError, "constraint_X"),
    # ----- affinity propagation on ties -----------------------------------------------------
    RightAnswer("affinity: tied points 0, 1, 10, 11",
                lambda: _affinity_propagation(_negative_squared_distances(
                    np.array([0.0, 1.0, 10.0, 11.0]))), _two_clusters),
    RightAnswer("affinity: ties that stay unbroken advise damping, not max_iter",
                _stuck_warning, _advises_damping_not_max_iter),
    RightAnswer("annotators: affinity regions of tied points",
                lambda: assign_regions(np.array([[0.0], [1.0], [10.0], [11.0]]),
                                       method="affinity"),
                lambda regions: np.testing.assert_array_equal(regions.labels, [0, 0, 1, 1])),
    # ----- audio front ends -----------------------------------------------------------------
    Named("data: frame_rms with the sample rate in kHz",
             lambda: frame_rms(speech_like(), 16), ValueError, "sample_rate"),
    Named("data: _utterance_features with the sample rate in kHz",
             lambda: _utterance_features(speech_like(), 16, 3), ValueError, "sample_rate"),
    RightAnswer("data: _utterance_features of int16 PCM equal the float clip's",
                lambda: (_utterance_features(int16_pcm(speech_like()), 16000, 3),
                         _utterance_features(int16_pcm(speech_like()) / 32768.0, 16000, 3)),
                _same_features),
    Named("data: _utterance_features of 8-bit samples",
             lambda: _utterance_features((speech_like() * 100).astype(np.int8), 16000, 3),
             TypeError, "samples"),
    Named("data: frame_rms of a boolean signal",
             lambda: frame_rms(speech_like() > 0, 16000), TypeError, "samples"),
    Named("features: mfcc of a boolean signal",
             lambda: mfcc(speech_like() > 0.1, 16000), TypeError, "signal"),
    Named("features: the MFCC front end on a list of booleans",
             lambda: mfcc_features([True, False] * 4000, 16000), TypeError, "signal"),
    # ----- the forced-choice test -----------------------------------------------------------
    RightAnswer("acquisition: 0 of 20 forced choices", lambda: forced_choice_test(0, 20),
                _baseline_won),
    RightAnswer("acquisition: 20 of 20 forced choices", lambda: forced_choice_test(20, 20),
                lambda t: (t.personal_preferred and t.preferred == "personal") or
                pytest.fail(str(t))),
    RightAnswer("acquisition: the significant win count of 10^7 forced choices",
                _threshold_of_ten_million, _exact_and_quick),
    # ----- errors that named another argument -----------------------------------------------
    Named("confidence: choices as text",
             lambda: ConfidencePreferenceGP(SE).fit(X5, [0, 1], [1, 2], ["first", "second"]),
             TypeError, "choices"),
    Named("confidence: a choice of 0.5",
             lambda: ConfidencePreferenceGP(SE).fit(X5, [0, 1], [1, 2], [0.5, 1.0]),
             ValueError, "choices"),
    Named("annotators: more regions than points",
             lambda: assign_regions(X5, 7, rng=0), ValueError, "n_regions"),
    Named("annotators: a fractional number of regions",
             lambda: assign_regions(X5, 2.5, rng=0), TypeError, "n_regions"),
    Named("listeners: a grid of one setting repeated", session(np.ones((12, 2))), ValueError,
             "grid"),
    Named("listeners: a grid with one duplicated row",
             session(np.vstack([settings_grid(-2, 2, 1, 2), [[0.0, 1.0]]])), ValueError,
             "grid"),
    Named("stimuli: the 4-band equaliser at 8 kHz",
             lambda: _standard_equaliser(4, sample_rate=8000), ValueError, "sample_rate"),
    Named("stimuli: the 3-band equaliser at 8 kHz",
             lambda: _standard_equaliser(3, sample_rate=8000.0), ValueError, "sample_rate"),
    Named("gp: a kernel whose matrix is negative definite",
             lambda: GPRegression(NegatedSE(1.0), 0.1).fit(X5, np.zeros(5)),
             NotPositiveDefiniteError, "kernel"),
    Named("raters: a kernel whose matrix is negative definite",
             lambda: MultiRaterGP(NegatedSE(1.0), 0.5).fit(X5[:4], RATINGS),
             NotPositiveDefiniteError, "kernel"),
    Named("annotators: a kernel whose matrix is negative definite",
             lambda: AnnotatorNoiseGP(NegatedSE(1.0), 2).fit(X5[:4], RATINGS),
             NotPositiveDefiniteError, "kernel"),
    Named("variational: a kernel whose matrix is negative definite",
             lambda: VariationalGP(NegatedSE(1.0), BernoulliProbit()).fit(
                 X5, [1.0, 0.0, 1.0, 1.0, 0.0]), NotPositiveDefiniteError, "kernel"),
    # ----- raw errors that named nothing ----------------------------------------------------
    Named("listeners: next_candidate on an empty grid",
             lambda: next_candidate(fitted_preference(2), np.zeros((0, 2)), np.zeros(2), "bei",
                                    np.zeros(0), None, rng=0), ValueError, "grid"),
    Named("listeners: next_candidate on a grid holding only the incumbent",
             lambda: next_candidate(fitted_preference(2), np.full((1, 2), 4.0), np.full(2, 4.0),
                                    "random", np.zeros(1), None, rng=0), ValueError, "grid"),
    Named("listeners: next_candidate with bEI for another grid",
             lambda: next_candidate(fitted_preference(2), settings_grid(0, 4, 2, 2),
                                    np.zeros(2), "bei", np.zeros(4), None, rng=0), ValueError,
             "grid_bei"),
    Named("stimuli: a WAV file at 2^32 samples per second",
             lambda: _wav_bytes(np.zeros(8), sample_rate=2 ** 32), ValueError, "sample_rate"),
    Named("stimuli: an equaliser gain of 2e4 dB",
             lambda: _standard_equaliser(2).apply(np.zeros(64), [0.0, 2e4]), ValueError,
             "gains_db"),
    Named("stimuli: an equaliser gain of -1e5 dB in its response",
             lambda: _Equaliser(_standard_equaliser(3).bands).response([0.0, -1e5, 0.0], [100.0]),
             ValueError, "gains_db"),
    Named("stimuli: a peaking band of 1e4 dB", lambda: _peaking_biquad(1000.0, 1e4),
             ValueError, "gain_db"),
    # ----- plotting helpers (still open from Units 1-4) -------------------------------------
    Named("plotting: a ragged cost matrix",
             lambda: dtw_plots.plot_cost_matrix(None, [[1.0, 2.0], [3.0]]), TypeError, "matrix"),
    Named("plotting: a cost matrix with NaN",
             lambda: dtw_plots.plot_cost_matrix(None, [[1.0, np.nan]]), ValueError, "matrix"),
    Named("plotting: a warping path with three columns",
             lambda: dtw_plots.plot_alignment_path(None, np.zeros((4, 3))), ValueError, "path"),
    Named("plotting: a path beyond the sequences",
             lambda: dtw_plots.plot_frame_mapping(None, np.zeros(3), np.zeros(4),
                                                  [[0, 0], [1, 1], [5, 3]]),
             ValueError, "path"),
    Named("plotting: a boolean waveform",
             lambda: dtw_plots.plot_waveform(None, np.ones(100, dtype=bool), 16000), TypeError,
             "waveform"),
    Named("plotting: a waveform at sample rate 0",
             lambda: dtw_plots.plot_waveform(None, np.zeros(100), 0), ValueError,
             "sample_rate"),
    Named("plotting: a 3-D mean for 2-D contours",
             lambda: gmm_plots.plot_gaussian_contours(None, [0.0, 0.0, 0.0], np.eye(2)),
             ValueError, "mean"),
    Named("plotting: contours of a covariance that is not positive definite",
             lambda: gmm_plots.plot_gaussian_contours(None, [0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]]),
             ValueError, "cov"),
    Named("plotting: a negative variance for a 1-D density",
             lambda: gmm_plots.plot_gaussian_1d(None, 0.0, -1.0), ValueError, "var"),
    Named("plotting: responsibilities for another number of points",
             lambda: gmm_plots.plot_responsibilities(None, np.zeros((5, 2)), np.ones((4, 2))),
             ValueError, "resp"),
    Named("plotting: a log-likelihood trace with NaN",
             lambda: gmm_plots.plot_loglik_trace(None, [-3.0, np.nan]), ValueError, "trace"),
    Named("plotting: BIC for fewer candidates than K values",
             lambda: gmm_plots.plot_bic(None, [1, 2, 4], [10.0, 8.0]), ValueError, "bic"),
    Named("plotting: fractional K in model selection",
             lambda: gmm_plots.plot_model_selection(None, [1, 2.5], [0.0, 1.0], [0.0, 1.0]),
             ValueError, "n_components"),
    Named("plotting: k-means labels beyond the centroids",
             lambda: gmm_plots.plot_kmeans_state(None, np.zeros((3, 2)), np.ones((2, 2)),
                                                 [0, 1, 2]), ValueError, "labels"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)


def test_threshold_search_equals_the_exhaustive_search_for_small_n():
    """forced_choice_threshold (binom.isf, then the exact p-value at the boundary) gives what
    trying every k from n / 2 upwards gave, for n = 1..300 at four levels."""
    def exhaustive(n, level):
        for k in range(n // 2, n + 1):
            if _two_tailed_p(k, n) < level:
                return k
        return None

    for level in (0.05, 0.01, 0.005, 0.001):
        for n in range(1, 301):
            assert forced_choice_threshold(n, level=level) == exhaustive(n, level), (n, level)
