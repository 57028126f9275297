"""Bad-input catalogue: the Laplace approximation (course_lib.preference.laplace) and the preference GP
(course_lib.preference.preference_gp). Families "laplace" and "preference".

Decisions recorded here: a saddle of the log posterior (K^-1 + W not positive definite where
Newton stops) is an error naming ``likelihood``, never hidden by jitter; comparisons of another
kind than the likelihood models are refused naming ``comparisons``; a warm start given both as
f0 and as alpha0 is refused naming ``alpha0``; a row of zeros in M (what a hand-built
comparison of an item with itself becomes) is refused naming ``M``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import HalfStudentT, SquaredExponential
from course_lib.preference.comparisons import Comparisons
from course_lib.preference.laplace import laplace_mode, newton_path
from course_lib.preference.laplace import InvalidLaplaceError
from course_lib.preference import PairwiseBeta, PairwiseGaussian, PairwiseProbit
from course_lib.preference.rating_likelihoods import BetaRating
from course_lib.preference.preference_gp import PreferenceGP
from tests.preference.test_laplace import SymmetricMixture

X = np.array([[0.0], [1.0], [2.0]])
SE = SquaredExponential(1.0, 1.0)
K = SE(X)
M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
Y = np.array([1.0, 0.0])
PROBIT = PairwiseProbit(1.0)
PAIRS = Comparisons(X, [0, 1], [1, 2], Y)
DEGREES = Comparisons(X, [0, 1], [1, 2], [0.7, 0.2], kind="pair-degree")


def laplace(**changes):
    args = {"K": K, "M": M, "likelihood": PROBIT, "y": Y} | changes
    return lambda: laplace_mode(**args)


def fitted():
    return PreferenceGP(SE, PROBIT).fit(PAIRS)


def rated():
    return PreferenceGP(SE, BetaRating(10.0)).fit(Comparisons.from_ratings(X, [0.2, 0.6, 0.9]))


def evidence_gradient(dK):
    return lambda: laplace_mode(K, M, PROBIT, Y).evidence_gradient(dK)


CASES = [
    # ----- laplace_mode ---------------------------------------------------------------------
    BadInput("laplace: K not square", laplace(K=np.ones((3, 2))), ValueError, "K"),
    BadInput("laplace: K with NaN", laplace(K=np.where(np.eye(3) > 0, np.nan, K)), ValueError,
             "K"),
    BadInput("laplace: K not symmetric", laplace(K=K + np.triu(np.ones((3, 3)), 1)),
             ValueError, "K"),
    BadInput("laplace: K as text", laplace(K="K"), TypeError, "K"),
    BadInput("laplace: M with a column too few", laplace(M=M[:, :2]), ValueError, "M"),
    BadInput("laplace: M one-dimensional", laplace(M=M[0]), ValueError, "M"),
    BadInput("laplace: M with inf", laplace(M=np.where(M == 1, np.inf, M)), ValueError, "M"),
    BadInput("laplace: M built by hand with a comparison of an item with itself",
             laplace(M=np.eye(3)[[0, 1]] - np.eye(3)[[1, 1]]), ValueError, "M", first=True),
    BadInput("laplace: Newton path on an M with a row of zeros",
             lambda: newton_path(K, np.array([[1.0, -1.0, 0.0], [0.0, 0.0, 0.0]]), PROBIT, Y),
             ValueError, "M", first=True),
    BadInput("laplace: y one answer short", laplace(y=Y[:1]), ValueError, "y"),
    BadInput("laplace: y of 0.5 for binary answers", laplace(y=np.array([0.5, 1.0])),
             ValueError, "y"),
    BadInput("laplace: y with NaN", laplace(y=np.array([np.nan, 1.0])), ValueError, "y"),
    BadInput("laplace: likelihood not a Likelihood", laplace(likelihood="probit"), TypeError,
             "likelihood"),
    BadInput("laplace: likelihood is a class, not an instance",
             laplace(likelihood=PairwiseProbit), TypeError, "likelihood"),
    BadInput("laplace: zero iterations", laplace(max_iter=0), ValueError, "max_iter"),
    BadInput("laplace: iteration cap as float", laplace(max_iter=10.0), TypeError, "max_iter"),
    BadInput("laplace: negative tolerance", laplace(tol=-1e-9), ValueError, "tol"),
    BadInput("laplace: zero tolerance", laplace(tol=0.0), ValueError, "tol"),
    BadInput("laplace: unknown form", laplace(form="cholesky"), ValueError, "form"),
    BadInput("laplace: f0 of the wrong length", laplace(f0=np.zeros(2)), ValueError, "f0"),
    BadInput("laplace: f0 with NaN", laplace(f0=np.array([0.0, np.nan, 0.0])), ValueError,
             "f0"),
    BadInput("laplace: alpha0 of the wrong length", laplace(alpha0=np.zeros(4)), ValueError,
             "alpha0"),
    BadInput("laplace: f0 and alpha0 both given",
             laplace(f0=np.zeros(3), alpha0=np.zeros(3)), ValueError, "alpha0"),
    BadInput("laplace: a saddle of the log posterior (no Laplace approximation)",
             laplace(K=SquaredExponential(1.0, 25.0)(np.array([[0.0], [3.0]])),
                     M=np.array([[1.0, -1.0]]), likelihood=SymmetricMixture(0.5),
                     y=np.array([3.0])), InvalidLaplaceError, "likelihood"),
    BadInput("laplace: degree of preference above 1",
             laplace(likelihood=PairwiseBeta(1.0, 5.0), y=np.array([0.3, 1.2])), ValueError,
             "y"),
    BadInput("laplace: Newton path with zero iterations",
             lambda: newton_path(K, M, PROBIT, Y, max_iter=0), ValueError, "max_iter"),
    BadInput("laplace: Newton path with y two answers long for one comparison",
             lambda: newton_path(K, M[:1], PROBIT, Y), ValueError, "y"),
    BadInput("laplace: evidence gradient with dK of the wrong size",
             evidence_gradient(np.zeros((2, 2, 2))), ValueError, "dK"),
    BadInput("laplace: evidence gradient with a 2-D dK", evidence_gradient(np.zeros((3, 3))),
             ValueError, "dK"),
    BadInput("laplace: evidence gradient with NaN in dK",
             evidence_gradient(np.full((1, 3, 3), np.nan)), ValueError, "dK"),
    # ----- PreferenceGP ---------------------------------------------------------------------
    BadInput("preference: kernel not a Kernel", lambda: PreferenceGP("se", PROBIT), TypeError,
             "kernel"),
    BadInput("preference: likelihood not a Likelihood", lambda: PreferenceGP(SE, "probit"),
             TypeError, "likelihood"),
    BadInput("preference: prior on an unknown parameter",
             lambda: PreferenceGP(SE, PROBIT, {"noise": HalfStudentT()}), ValueError, "priors"),
    BadInput("preference: prior that is not a Prior",
             lambda: PreferenceGP(SE, PROBIT, {"noise_sd": 3.0}), TypeError, "priors"),
    BadInput("preference: zero Newton steps",
             lambda: PreferenceGP(SE, PROBIT, newton_max_iter=0), ValueError,
             "newton_max_iter"),
    BadInput("preference: negative Newton tolerance",
             lambda: PreferenceGP(SE, PROBIT, newton_tol=-1.0), ValueError, "newton_tol"),
    BadInput("preference: fit on raw arrays", lambda: PreferenceGP(SE, PROBIT).fit(X), TypeError,
             "comparisons"),
    BadInput("preference: degrees fitted with a binary likelihood",
             lambda: PreferenceGP(SE, PROBIT).fit(DEGREES), ValueError, "comparisons"),
    BadInput("preference: binary answers fitted with a difference likelihood",
             lambda: PreferenceGP(SE, PairwiseGaussian()).fit(PAIRS), ValueError,
             "comparisons"),
    BadInput("preference: predict before fit", lambda: PreferenceGP(SE, PROBIT).predict(X),
             ValueError, "self"),
    BadInput("preference: optimise before fit",
             lambda: PreferenceGP(SE, PROBIT).optimise_hyperparameters(), ValueError, "self"),
    BadInput("preference: preference probability before fit",
             lambda: PreferenceGP(SE, PROBIT).preference_probability(X, X), ValueError, "self"),
    BadInput("preference: predict with two input columns for a 1-D model",
             lambda: fitted().predict(np.zeros((2, 2))), ValueError, "X_test"),
    BadInput("preference: predict with NaN", lambda: fitted().predict(np.array([[np.nan]])),
             ValueError, "X_test"),
    BadInput("preference: Xb with a row too few",
             lambda: fitted().preference_probability(X, X[:2]), ValueError, "Xb"),
    BadInput("preference: Xa with the wrong number of columns",
             lambda: fitted().preference_probability(np.zeros((3, 2)), X), ValueError, "Xa"),
    BadInput("preference: Xb with inf",
             lambda: fitted().predict_difference(X, np.full((3, 1), np.inf)), ValueError,
             "Xb"),
    BadInput("preference: theta of the wrong length",
             lambda: fitted().log_evidence(np.zeros(2)), ValueError, "theta"),
    BadInput("preference: theta beyond the parameter range",
             lambda: fitted().log_evidence(np.array([0.0, 0.0, 400.0])), ValueError,
             "theta"),
    BadInput("preference: zero restarts",
             lambda: fitted().optimise_hyperparameters(0), ValueError, "n_restarts"),
    BadInput("preference: rng as text",
             lambda: fitted().optimise_hyperparameters(2, rng="seed"), TypeError, "rng"),
    BadInput("preference: zero posterior samples",
             lambda: fitted().sample_posterior(X, 0), ValueError, "n_samples"),
    BadInput("preference: likelihood parameter named like a kernel parameter",
             lambda: PreferenceGP(SE, _ClashingLikelihood()), ValueError, "likelihood"),
    BadInput("preference: a rating predicted from a pairwise model",
             lambda: fitted().predict_rating(X), ValueError, "self"),
    BadInput("preference: a rating's density from a pairwise model",
             lambda: fitted().rating_log_density(X, [0.5, 0.5, 0.5]), ValueError, "self"),
    BadInput("preference: a rating above the scale",
             lambda: rated().rating_log_density(X, [0.5, 1.5, 0.5]), ValueError, "y"),
    BadInput("preference: one rating too few for the test inputs",
             lambda: rated().rating_log_density(X, [0.5, 0.5]), ValueError, "y"),
    BadInput("preference: rating test inputs of the wrong width",
             lambda: rated().predict_rating(np.ones((2, 3))), ValueError, "X_test"),
]


class _ClashingLikelihood(PairwiseProbit):
    """A probit whose parameter is called like the kernel's lengthscale."""

    _names = ("lengthscale",)

    def __init__(self):
        self._init_parameters({"lengthscale": 1.0}, {"lengthscale": (1e-5, 1e5)})

    def _scale(self):
        return 1.0 / (np.sqrt(2.0) * self._param("lengthscale"))


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
