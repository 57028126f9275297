"""Bad-input catalogue: preference data and likelihoods (Unit 6).

Families: "comparisons" (course_lib.preference.comparisons: indices, self-comparisons, answers outside
their kind's domain, duplicate items that make a self-comparison) and "likelihoods"
(course_lib.preference.likelihoods and its pairwise and rating families: parameters, answers outside a
likelihood's domain, lengths that do not match, negative predictive variances).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating, TruncatedGaussianRating, WarpedProbitRating

X3 = np.arange(3.0)
Z = np.array([-1.0, 0.0, 2.0])
BINARY = np.array([1.0, 0.0, 1.0])
PROBIT = PairwiseProbit(0.5)
GAUSSIAN = PairwiseGaussian(1.0)
BETA = PairwiseBeta(0.5, 10.0)
DEGREES = np.array([0.2, 0.5, 0.9])

CASES = [
    # ----- comparisons ------------------------------------------------------------------------
    BadInput("comparisons: self-comparison", lambda: Comparisons(X3, [0, 1], [1, 1], [1, 0]),
             ValueError, "second"),
    BadInput("comparisons: index beyond the items", lambda: Comparisons(X3, [0, 3], [1, 2], [1, 0]),
             ValueError, "first"),
    BadInput("comparisons: negative second index",
             lambda: Comparisons(X3, [0, 1], [1, -1], [1, 0]), ValueError, "second"),
    BadInput("comparisons: fractional index", lambda: Comparisons(X3, [0, 1.5], [1, 2], [1, 0]),
             ValueError, "first"),
    BadInput("comparisons: first and second of different lengths",
             lambda: Comparisons(X3, [0, 1], [1, 2, 0], [1, 0]), ValueError, "second"),
    BadInput("comparisons: one answer too few", lambda: Comparisons(X3, [0, 1], [1, 2], [1]),
             ValueError, "y"),
    BadInput("comparisons: binary answer 2", lambda: Comparisons(X3, [0, 1], [1, 2], [1, 2]),
             ValueError, "y"),
    BadInput("comparisons: binary answer -1 (the thesis's coding)",
             lambda: Comparisons(X3, [0, 1], [1, 2], [1, -1]), ValueError, "y"),
    BadInput("comparisons: degree above 1",
             lambda: Comparisons(X3, [0, 1], [1, 2], [0.3, 1.2], kind="pair-degree"),
             ValueError, "y"),
    BadInput("comparisons: NaN answer",
             lambda: Comparisons(X3, [0, 1], [1, 2], [0.3, np.nan], kind="pair-degree"),
             ValueError, "y"),
    BadInput("comparisons: unknown kind",
             lambda: Comparisons(X3, [0, 1], [1, 2], [1, 0], kind="binary"), ValueError, "kind"),
    BadInput("comparisons: pairs without second items",
             lambda: Comparisons(X3, [0, 1], None, [1, 0]), ValueError, "second"),
    BadInput("comparisons: ratings given second items",
             lambda: Comparisons(X3, [0, 1], [1, 2], [0.2, 0.4], kind="bounded"),
             ValueError, "second"),
    BadInput("comparisons: NaN in X", lambda: Comparisons([0.0, np.nan, 1.0], [0], [1], [1]),
             ValueError, "X"),
    BadInput("comparisons: string answers", lambda: Comparisons(X3, [0], [1], "yes"),
             TypeError, "y"),
    BadInput("comparisons: from_pairs with the same setting twice in a row",
             lambda: Comparisons.from_pairs([[0.0], [1.0]], [[1.0], [1.0 + 1e-10]], [1, 0]),
             ValueError, "X_second"),
    BadInput("comparisons: from_pairs with unequal row counts",
             lambda: Comparisons.from_pairs([[0.0], [1.0]], [[1.0]], [1, 0]),
             ValueError, "X_second"),
    BadInput("comparisons: from_pairs with mismatched dimensions",
             lambda: Comparisons.from_pairs([[0.0, 1.0]], [[1.0]], [1]), ValueError,
             "X_second"),
    BadInput("comparisons: negative tol",
             lambda: Comparisons.from_pairs([[0.0]], [[1.0]], [1], tol=-1.0), ValueError, "tol"),
    BadInput("comparisons: rating outside [0, 1]",
             lambda: Comparisons.from_ratings([[0.0], [1.0]], [0.5, 1.5]), ValueError, "y"),
    BadInput("comparisons: swapping ratings",
             lambda: Comparisons.from_ratings([[0.0]], [0.5]).swapped(), ValueError, "kind"),
    BadInput("comparisons: differences of the wrong length",
             lambda: Comparisons(X3, [0], [1], [1]).differences([1.0, 2.0]), ValueError, "f"),
    # ----- likelihoods ------------------------------------------------------------------------
    BadInput("likelihoods: zero noise_sd", lambda: PairwiseProbit(0.0), ValueError, "noise_sd"),
    BadInput("likelihoods: noise_sd as a string", lambda: PairwiseGaussian("1"), TypeError,
             "noise_sd"),
    BadInput("likelihoods: noise_sd outside its bounds",
             lambda: PairwiseProbit(5.0, noise_sd_bounds=(0.1, 1.0)), ValueError, "noise_sd"),
    BadInput("likelihoods: malformed bounds",
             lambda: PairwiseProbit(1.0, noise_sd_bounds=(1.0,)), ValueError, "noise_sd_bounds"),
    BadInput("likelihoods: probit answer 2", lambda: PROBIT.terms(Z, [1.0, 2.0, 0.0]),
             ValueError, "y"),
    BadInput("likelihoods: probit answer -1 (the thesis's coding)",
             lambda: PROBIT.log_likelihood(Z, [1.0, -1.0, 0.0]), ValueError, "y"),
    BadInput("likelihoods: y shorter than z", lambda: PROBIT.terms(Z, [1.0, 0.0]), ValueError,
             "y"),
    BadInput("likelihoods: NaN in z", lambda: GAUSSIAN.terms([0.0, np.nan, 1.0], Z), ValueError,
             "z"),
    BadInput("likelihoods: z as a matrix", lambda: GAUSSIAN.terms(np.zeros((3, 1)), Z),
             ValueError, "z"),
    BadInput("likelihoods: order 4", lambda: PROBIT.terms(Z, BINARY, order=4), ValueError,
             "order"),
    BadInput("likelihoods: theta of the wrong length",
             lambda: PROBIT.with_theta([0.0, 1.0]), ValueError, "theta"),
    BadInput("likelihoods: theta beyond float64's range",
             lambda: PROBIT.with_theta([500.0]), ValueError, "theta"),
    BadInput("likelihoods: negative predictive variance",
             lambda: PROBIT.predictive_mean([0.0, 1.0], [1.0, -0.1]), ValueError, "var"),
    BadInput("likelihoods: variance of the wrong length",
             lambda: GAUSSIAN.predictive_log_density([0.0], [0.0], [1.0, 2.0]), ValueError,
             "var"),
    BadInput("likelihoods: predictive answers of the wrong length",
             lambda: PROBIT.predictive_log_density([1.0], [0.0, 1.0], [1.0, 1.0]), ValueError,
             "y"),
    BadInput("likelihoods: infinite predictive mean",
             lambda: PROBIT.predictive_mean([np.inf], [1.0]), ValueError, "mean"),
    BadInput("likelihoods: expected log-likelihood with a bad answer",
             lambda: PROBIT.expected_log_likelihood([0.5], [0.0], [1.0]), ValueError, "y"),
    BadInput("likelihoods: zero concentration", lambda: PairwiseBeta(0.5, 0.0), ValueError,
             "concentration"),
    BadInput("likelihoods: negative concentration of a rating", lambda: BetaRating(-2.0),
             ValueError, "concentration"),
    BadInput("likelihoods: concentration outside its bounds",
             lambda: PairwiseBeta(0.5, 50.0, concentration_bounds=(1.0, 20.0)), ValueError,
             "concentration"),
    BadInput("likelihoods: clip of one half", lambda: PairwiseBeta(0.5, 10.0, clip=0.5),
             ValueError, "clip"),
    BadInput("likelihoods: clip as a string", lambda: BetaRating(5.0, clip="small"), TypeError,
             "clip"),
    BadInput("likelihoods: negative degree of preference",
             lambda: BETA.terms(Z, [0.2, -0.1, 0.5]), ValueError, "y"),
    BadInput("likelihoods: degree above 1", lambda: BETA.log_likelihood(Z, [0.2, 1.5, 0.5]),
             ValueError, "y"),
    BadInput("likelihoods: NaN degree", lambda: BETA.parameter_terms(Z, [0.2, np.nan, 0.5]),
             ValueError, "y"),
    BadInput("likelihoods: Beta theta with one entry", lambda: BETA.with_theta([0.0]),
             ValueError, "theta"),
    BadInput("likelihoods: rating of 2 on a [0, 1] scale",
             lambda: BetaRating(5.0).predictive_log_density([2.0], [0.0], [1.0]), ValueError,
             "y"),
    BadInput("likelihoods: negative truncated-Gaussian noise_sd",
             lambda: TruncatedGaussianRating(-0.1), ValueError, "noise_sd"),
    BadInput("likelihoods: truncated-Gaussian rating below 0",
             lambda: TruncatedGaussianRating(0.1).terms([0.0], [-0.2]), ValueError, "y"),
    BadInput("likelihoods: warped rating as a matrix",
             lambda: WarpedProbitRating(0.3).log_likelihood(Z, DEGREES[:, None]), ValueError,
             "y"),
    BadInput("likelihoods: expected log-likelihood with negative variance",
             lambda: BETA.expected_log_likelihood(DEGREES, Z, [1.0, -1.0, 1.0]), ValueError,
             "var"),
    BadInput("likelihoods: check_observations names the caller's argument",
             lambda: BETA.check_observations([0.3, 7.0], name="degrees"), ValueError,
             "degrees"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
