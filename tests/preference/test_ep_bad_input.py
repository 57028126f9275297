"""Bad-input catalogue: expectation propagation (course_lib.preference.ep) and PreferenceGP's
``inference="ep"``. Family "ep".

Decisions recorded here: pairwise rows of M (and pairwise comparisons or a pairwise likelihood
in the model) are refused, naming ``M``, ``comparisons`` or ``inference``, because a two-item
term would need factorised sites (thesis footnote 4); answers outside [0, 1] are refused by the
bounded likelihoods (answers of exactly 0 or 1 are clipped, as under Laplace); EP that has not
converged within its cap is an :class:`EPConvergenceError` naming ``max_iter`` (``ep_max_iter``
in the model), and one whose sites stop settling above the tolerance one naming ``tol``
(``ep_tol``), never a silently unconverged posterior.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference.comparisons import Comparisons
from course_lib.preference.ep import expectation_propagation
from course_lib.preference.ep import EPConvergenceError
from course_lib.preference import PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating, TruncatedGaussianRating
from course_lib.preference.preference_gp import PreferenceGP

X = np.array([[0.0], [1.0], [2.0]])
SE = SquaredExponential(1.0, 1.0)
K = SE(X)
M = np.eye(3)[[0, 1, 2, 1]]
Y = np.array([0.8, 0.3, 0.6, 0.4])
BETA = BetaRating(10.0)
RATINGS = Comparisons.from_ratings(X[[0, 1, 2, 1]], Y)
PAIRS = Comparisons(X, [0, 1], [1, 2], [1.0, 0.0])
# ratings far sharper (noise_sd 1e-5) than the likelihoods' quadrature resolves: the sites
# keep moving by about 1e-3 (posterior units) from sweep to sweep and EP stalls
SHARP_X = np.linspace(-2, 2, 5)[:, None]
SHARP_SE = SquaredExponential(0.03, 8.0)
SHARP_Y = np.array([0.0, 0.2, 0.5, 0.9, 1.0])


def ep(**changes):
    args = {"K": K, "M": M, "likelihood": BETA, "y": Y} | changes
    return lambda: expectation_propagation(**args)


def model(**changes):
    args = {"kernel": SE, "likelihood": BETA, "inference": "ep"} | changes
    return lambda: PreferenceGP(**args)


def model_fit(comparisons, **changes):
    return lambda: model(**changes)().fit(comparisons)


CASES = [
    # ----- expectation_propagation ------------------------------------------------------------
    BadInput("ep: a pairwise row of M", ep(M=np.array([[1.0, -1.0, 0.0], [0, 0, 1], [0, 1, 0],
                                                       [1, 0, 0]])), ValueError, "M"),
    BadInput("ep: a row of M with a 2 in it", ep(M=2.0 * M), ValueError, "M"),
    BadInput("ep: an empty row of M", ep(M=np.vstack([M[:3], np.zeros(3)])), ValueError, "M"),
    BadInput("ep: M with a column too few", ep(M=M[:, :2]), ValueError, "M"),
    BadInput("ep: M with NaN", ep(M=np.where(M == 1, np.nan, M)), ValueError, "M"),
    BadInput("ep: K not square", ep(K=np.ones((3, 2))), ValueError, "K"),
    BadInput("ep: K with NaN", ep(K=np.where(np.eye(3) > 0, np.nan, K)), ValueError, "K"),
    BadInput("ep: K not symmetric", ep(K=K + np.triu(np.ones((3, 3)), 1)), ValueError, "K"),
    BadInput("ep: y above 1 for a Beta rating", ep(y=np.array([0.8, 1.2, 0.6, 0.4])),
             ValueError, "y"),
    BadInput("ep: y below 0 for a truncated Gaussian rating",
             ep(likelihood=TruncatedGaussianRating(0.1), y=np.array([0.8, -0.1, 0.6, 0.4])),
             ValueError, "y"),
    BadInput("ep: y with NaN", ep(y=np.array([0.8, np.nan, 0.6, 0.4])), ValueError, "y"),
    BadInput("ep: y one rating short", ep(y=Y[:3]), ValueError, "y"),
    BadInput("ep: y of 0.5 for binary labels", ep(likelihood=PairwiseProbit(1.0)), ValueError,
             "y"),
    BadInput("ep: likelihood not a Likelihood", ep(likelihood="beta"), TypeError, "likelihood"),
    BadInput("ep: damping of 1 (sites never move)", ep(damping=1.0), ValueError, "damping"),
    BadInput("ep: negative damping", ep(damping=-0.2), ValueError, "damping"),
    BadInput("ep: zero sweeps", ep(max_iter=0), ValueError, "max_iter"),
    BadInput("ep: not converged within max_iter", ep(max_iter=1), EPConvergenceError,
             "max_iter"),
    BadInput("ep: zero tolerance", ep(tol=0.0), ValueError, "tol"),
    BadInput("ep: stalled above tol (a likelihood too sharp for the quadrature)",
             ep(K=SHARP_SE(SHARP_X), M=np.eye(5), likelihood=TruncatedGaussianRating(1e-5),
                y=SHARP_Y), EPConvergenceError, "tol"),
    BadInput("ep: sites0 not a pair", ep(sites0=np.zeros(4)), TypeError, "sites0"),
    BadInput("ep: sites0 of the wrong length", ep(sites0=(np.zeros(3), np.zeros(3))),
             ValueError, "sites0"),
    BadInput("ep: sites0 with a negative precision",
             ep(sites0=(np.array([1.0, -1.0, 0.0, 0.0]), np.zeros(4))), ValueError, "sites0"),
    BadInput("ep: sites0 with NaN", ep(sites0=(np.zeros(4), np.full(4, np.nan))), ValueError,
             "sites0"),
    # ----- PreferenceGP(inference="ep") ----------------------------------------------------------
    BadInput("ep: unknown inference", model(inference="vb"), ValueError, "inference"),
    BadInput("ep: EP with a pairwise likelihood", model(likelihood=PairwiseProbit(1.0)),
             ValueError, "inference"),
    BadInput("ep: EP fit on pairwise comparisons", model_fit(PAIRS), ValueError, "comparisons"),
    BadInput("ep: zero EP sweeps in the model", model(ep_max_iter=0), ValueError, "ep_max_iter"),
    BadInput("ep: negative EP tolerance in the model", model(ep_tol=-1.0), ValueError, "ep_tol"),
    BadInput("ep: the model's EP not converged", model_fit(RATINGS, ep_max_iter=1),
             EPConvergenceError, "ep_max_iter"),
    BadInput("ep: the model's EP stalled",
             model_fit(Comparisons.from_ratings(SHARP_X, SHARP_Y), kernel=SHARP_SE,
                       likelihood=TruncatedGaussianRating(1e-5)), EPConvergenceError, "ep_tol"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
