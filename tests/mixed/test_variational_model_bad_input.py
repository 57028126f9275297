"""Bad-input catalogue: course_lib.mixed.variational (VariationalGP). Family "variational_gp".

Decisions recorded here: likelihood parameters are learned only by name (``learn_likelihood``)
or as "all" free ones; naming one its likelihood fixes, or a prior on one that is not learned,
is refused. ``kl_weight`` must be positive. ``fit`` with a single likelihood needs ``y``;
predicting or optimising before ``fit`` is refused, naming ``self``.

A full-rank variational GP on more items than fit a 2 GiB matrix is refused naming ``X`` (the
sparse model is the one for that); a kernel whose matrices are negative definite naming
``kernel``.
"""

import numpy as np

from bad_input import BadInput, NegatedSE, check_case, parametrize
from course_lib.gp import LogNormal, SquaredExponential
from course_lib.preference import PairwiseProbit
from course_lib.mixed.variational import VariationalGP
from course_lib.linalg import NotPositiveDefiniteError
from course_lib.mixed.feedback_likelihoods import BernoulliProbit

PROBIT = PairwiseProbit(1.0)
PAIR_M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
X = np.array([[0.0], [1.0], [2.0]])
SE = SquaredExponential(1.0, 1.0)


def model(**changes):
    args = {"kernel": SE, "likelihood": PROBIT} | changes
    return lambda: VariationalGP(**args)


def model_fit(X_fit=X, **fit_args):
    return lambda: VariationalGP(SE, fit_args.pop("likelihood", PROBIT)).fit(X_fit, **fit_args)


CASES = [
    BadInput("variational_gp: kernel not a Kernel", model(kernel="rbf"), TypeError, "kernel"),
    BadInput("variational_gp: model likelihood not a Likelihood", model(likelihood=None),
             TypeError, "likelihood"),
    BadInput("variational_gp: a prior on an unknown name",
             model(priors={"noise_sd": LogNormal(0.0, 1.0)}), ValueError, "priors"),
    BadInput("variational_gp: model tol of 0", model(tol=0.0), ValueError, "tol"),
    BadInput("variational_gp: learn an unknown likelihood parameter",
             model(learn_likelihood=["part0.gap_1"]), ValueError, "learn_likelihood"),
    BadInput("variational_gp: learn a parameter its likelihood fixes",
             model(likelihood=PairwiseProbit(1.0, noise_sd_bounds="fixed"),
                   learn_likelihood=["part0.noise_sd"]), ValueError, "learn_likelihood"),
    BadInput("variational_gp: learn_likelihood a word other than 'all'",
             model(learn_likelihood="every"), ValueError, "learn_likelihood"),
    BadInput("variational_gp: learn_likelihood a number", model(learn_likelihood=3), TypeError,
             "learn_likelihood"),
    BadInput("variational_gp: a prior on a likelihood parameter that is not learned",
             model(priors={"part0.noise_sd": LogNormal(0.0, 1.0)}), ValueError, "priors"),
    BadInput("variational_gp: model kl_weight of 0", model(kl_weight=0.0), ValueError,
             "kl_weight"),
    BadInput("variational_gp: fit without y", model_fit(), ValueError, "y"),
    BadInput("variational_gp: fit with a probit answer of 0.5",
             model_fit(y=[1.0, 0.5], M=PAIR_M), ValueError, "y"),
    BadInput("variational_gp: NaN in X", model_fit(X_fit=X * np.nan, y=[1.0, 0.0], M=PAIR_M),
             ValueError, "X"),
    BadInput("variational_gp: predict before fit",
             lambda: VariationalGP(SE, PROBIT).predict(X), ValueError, "self"),
    BadInput("variational_gp: optimise before fit",
             lambda: VariationalGP(SE, PROBIT).optimise_hyperparameters(2, rng=0), ValueError,
             "self"),
    # ----- sizes and kernels that are not kernels -----------------------------------------------
    BadInput("variational: a full-rank variational GP on 20000 items",
             lambda: VariationalGP(SquaredExponential(1.5, 1.0), BernoulliProbit()).fit(
                 np.zeros((20000, 1)), np.ones(20000)), ValueError, "X", first=True),
    BadInput("variational: a kernel whose matrix is negative definite",
             lambda: VariationalGP(NegatedSE(1.0), BernoulliProbit()).fit(
                 np.linspace(0.0, 2.0, 5)[:, None], [1.0, 0.0, 1.0, 1.0, 0.0]),
             NotPositiveDefiniteError, "kernel", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
