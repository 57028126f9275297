"""Bad-input catalogue: course_lib.mixed.confidence (family "confidence") and
course_lib.simulators.confidence_raters (family "confidence_raters").

Decisions recorded here: confidence levels are whole levels of the model's Likert likelihood and
one per comparison, refused naming ``confidence`` (not the MixedLikelihood part they would
become); choices must be binary; ``likert`` must be a LikertConfidence; the switch
``use_ratings`` is a bool. Simulated subjects refuse counts that do not add up to the trials,
ratings off the scale and negative strengths, naming the argument. Learning the cut points
(``learn_cut_points``, a bool) needs a likert whose gaps are free; a prior may name only the
kernel's parameters and the learned gaps ``part1.gap_<i>``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference import Comparisons
from course_lib.mixed.confidence import ConfidencePreferenceGP, preference_confidence_likelihood
from course_lib.mixed.feedback_likelihoods import LikertConfidence
from course_lib.mixed.feedback_likelihoods import OrdinalProbit
from course_lib.gp.priors import LogNormal
from course_lib.simulators.confidence_raters import (_calibrated_ratings, gait_like_subject,
                                                     _haptic_latent, haptic_like_subjects,
                                                     likert_synthetic_trials,
                                                     _overconfident_ratings, ranked_levels,
                                                     _rating_levels)

X = np.array([[0.0], [1.0], [2.0]])
FIRST, SECOND, CHOICES, LEVELS = [0, 1], [1, 2], [1.0, 0.0], [2.0, 0.0]
SE = SquaredExponential(1.0, 1.0)


def fit(**changes):
    args = {"X": X, "first": FIRST, "second": SECOND, "choices": CHOICES,
            "confidence": LEVELS} | changes
    return lambda: ConfidencePreferenceGP(SE).fit(**args)


def model(**changes):
    return lambda: ConfidencePreferenceGP(**({"kernel": SE} | changes))


def fitted():
    return ConfidencePreferenceGP(SE).fit(X, FIRST, SECOND, CHOICES, LEVELS)


CASES = [
    BadInput("confidence: a level of 3 on a 3-level scale", fit(confidence=[3.0, 0.0]),
             ValueError, "confidence"),
    BadInput("confidence: a fractional level", fit(confidence=[1.5, 0.0]), ValueError,
             "confidence"),
    BadInput("confidence: one level for two comparisons", fit(confidence=[1.0]), ValueError,
             "confidence"),
    BadInput("confidence: NaN level", fit(confidence=[np.nan, 0.0]), ValueError, "confidence"),
    BadInput("confidence: a choice of 2", fit(choices=[2.0, 0.0]), ValueError, "choices"),
    BadInput("confidence: an item compared with itself", fit(second=[0, 2]), ValueError,
             "second"),
    BadInput("confidence: an index beyond X", fit(first=[0, 5]), ValueError, "first"),
    BadInput("confidence: likert not a LikertConfidence", model(likert=OrdinalProbit(3)),
             TypeError, "likert"),
    BadInput("confidence: use_ratings a string", model(use_ratings="yes"), TypeError,
             "use_ratings"),
    BadInput("confidence: kernel a string", model(kernel="se"), TypeError, "kernel"),
    BadInput("confidence: learn_cut_points a string", model(learn_cut_points="yes"), TypeError,
             "learn_cut_points"),
    BadInput("confidence: learning cut points the likert fixes",
             model(likert=LikertConfidence(3, gap_bounds="fixed")), ValueError, "likert"),
    BadInput("confidence: a prior on a parameter the model does not have",
             model(priors={"part1.lapse": LogNormal()}), ValueError, "priors"),
    BadInput("confidence: a prior on the gaps when they are not learned",
             model(learn_cut_points=False, priors={"part1.gap_1": LogNormal()}), ValueError,
             "priors"),
    BadInput("confidence: a prior that is not a Prior",
             model(priors={"part1.gap_1": 1.0}), TypeError, "priors"),
    BadInput("confidence: comparisons not Comparisons",
             lambda: preference_confidence_likelihood("pairs", LEVELS), TypeError,
             "comparisons"),
    BadInput("confidence: comparisons of slider degrees",
             lambda: preference_confidence_likelihood(
                 Comparisons(X, FIRST, SECOND, [0.7, 0.2], kind="pair-degree"), LEVELS),
             ValueError, "comparisons"),
    BadInput("confidence: Xb with another row count",
             lambda: fitted().predict_difference(X[:2], X[:1]), ValueError, "Xb"),
    BadInput("confidence: Xa with two columns",
             lambda: fitted().preference_probability(np.zeros((2, 2)), X[:2]), ValueError,
             "Xa"),
    BadInput("confidence: predicting before fit",
             lambda: ConfidencePreferenceGP(SE).predict_difference(X, X), ValueError, "self"),
    # ----- course_lib.simulators.confidence_raters -----------------------------------------
    BadInput("confidence_raters: a rating of 10", lambda: _rating_levels([1, 10]), ValueError,
             "ratings"),
    BadInput("confidence_raters: levels that do not split the scale",
             lambda: _rating_levels([1, 2], n_levels=4), ValueError, "n_levels"),
    BadInput("confidence_raters: a negative strength",
             lambda: _calibrated_ratings([0.5, -0.1], 1.0), ValueError, "strength"),
    BadInput("confidence_raters: negative calibration noise",
             lambda: _calibrated_ratings([0.5], -1.0), ValueError, "noise_sd"),
    BadInput("confidence_raters: no trials", lambda: _overconfident_ratings(0), ValueError,
             "n_trials"),
    BadInput("confidence_raters: counts that miss trials",
             lambda: ranked_levels([0.1, 0.2, 0.3], [1, 1], 0.0), ValueError, "counts"),
    BadInput("confidence_raters: gait counts for another number of trials",
             lambda: gait_like_subject(n_trials=100, rng=0), ValueError, "counts"),
    BadInput("confidence_raters: haptic latent of 3-D stimuli",
             lambda: _haptic_latent(np.zeros((2, 3))), ValueError, "X"),
    BadInput("confidence_raters: n_pairs a float",
             lambda: haptic_like_subjects(n_pairs=2.5, rng=0), (TypeError, ValueError),
             "n_pairs"),
    BadInput("confidence_raters: an empty domain",
             lambda: likert_synthetic_trials(10, low=1.0, high=1.0, rng=0), ValueError, "high"),
    BadInput("confidence_raters: rng a string", lambda: likert_synthetic_trials(10, rng="x"),
             TypeError, "rng"),
    # finite bounds whose width overflows (numpy raised its own OverflowError)
    BadInput("confidence_raters: bounds at +-1e308",
             lambda: likert_synthetic_trials(10, low=-1e308, high=1e308, rng=0), ValueError,
             "high"),
    BadInput("confidence_raters: an infinite bound",
             lambda: likert_synthetic_trials(10, low=-np.inf, high=1.0, rng=0), ValueError,
             "low"),
    # ----- errors that named another argument ---------------------------------------------------
    BadInput("confidence: choices as text",
             lambda: ConfidencePreferenceGP(SquaredExponential(1.5, 1.0)).fit(
                 np.linspace(0.0, 2.0, 5)[:, None], [0, 1], [1, 2], ["first", "second"]),
             TypeError, "choices", first=True),
    BadInput("confidence: a choice of 0.5",
             lambda: ConfidencePreferenceGP(SquaredExponential(1.5, 1.0)).fit(
                 np.linspace(0.0, 2.0, 5)[:, None], [0, 1], [1, 2], [0.5, 1.0]),
             ValueError, "choices", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
