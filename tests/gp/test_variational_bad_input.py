"""Bad-input catalogue: course_lib.gp.variational (MixedLikelihood, fit_variational,
variational_elbo, VariationalGP). Family "variational".

Decisions recorded here: a part is a (likelihood, M, y) triple and errors name the part
(``parts[i]``); parts must address the same items (equal column counts); an all-zero row of M
observes nothing and is refused; answers outside a likelihood's domain are refused by that
likelihood, naming the part's ``y``. Likelihood parameters are learned only by name
(``learn_likelihood``) or as "all" free ones; naming one its likelihood fixes, or a prior on one
that is not learned, is refused. ``kl_weight`` must be positive. A single likelihood needs ``y``
(its map ``M`` defaults to the identity); a MixedLikelihood carries its own, so passing ``y`` as
well is refused rather than silently ignored. Site precisions must be positive (the
parameterisation holds lambda > 0).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import LogNormal, SquaredExponential
from course_lib.gp.pairwise_likelihoods import PairwiseGaussian, PairwiseProbit
from course_lib.gp.variational import (MixedLikelihood, VariationalGP, fit_variational,
                                       variational_elbo)

PROBIT = PairwiseProbit(1.0)
PAIR_M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
GOOD = (PROBIT, PAIR_M, [1.0, 0.0])


def mixed(*parts):
    return lambda: MixedLikelihood(list(parts))


def mixed_expectation(mean, var):
    return lambda: MixedLikelihood([GOOD]).expected_log_likelihood(mean, var)


X = np.array([[0.0], [1.0], [2.0]])
SE = SquaredExponential(1.0, 1.0)
K = SE(X)


def fit(**changes):
    args = {"K": K, "likelihood": PROBIT, "y": [1.0, 0.0], "M": PAIR_M} | changes
    return lambda: fit_variational(**args)


def elbo(**changes):
    args = {"K": K, "likelihood": PROBIT, "alpha": np.zeros(3),
            "site_precision": np.ones(2), "y": [1.0, 0.0], "M": PAIR_M} | changes
    return lambda: variational_elbo(**args)


def model(**changes):
    args = {"kernel": SE, "likelihood": PROBIT} | changes
    return lambda: VariationalGP(**args)


def model_fit(X_fit=X, **fit_args):
    return lambda: VariationalGP(SE, fit_args.pop("likelihood", PROBIT)).fit(X_fit, **fit_args)


CASES = [
    BadInput("variational: no parts", lambda: MixedLikelihood([]), TypeError, "parts"),
    BadInput("variational: parts not a list", lambda: MixedLikelihood(PROBIT), TypeError,
             "parts"),
    BadInput("variational: a part that is not a triple", mixed(GOOD, (PROBIT, PAIR_M)),
             TypeError, "parts[1]"),
    BadInput("variational: a part without a Likelihood", mixed(("probit", PAIR_M, [1, 0])),
             TypeError, "parts[0]"),
    BadInput("variational: parts with different item counts",
             mixed(GOOD, (PairwiseGaussian(1.0), np.eye(4), np.zeros(4))), ValueError,
             "parts[1]"),
    BadInput("variational: y and M of a part disagree", mixed((PROBIT, PAIR_M, [1.0])),
             ValueError, "parts[0]"),
    BadInput("variational: an all-zero row of M", mixed((PROBIT, np.zeros((1, 3)), [1.0])),
             ValueError, "parts[0]"),
    BadInput("variational: NaN in a part's M", mixed((PROBIT, PAIR_M * np.nan, [1.0, 0.0])),
             ValueError, "parts[0] M"),
    BadInput("variational: a probit answer of 2", mixed((PROBIT, PAIR_M, [1.0, 2.0])),
             ValueError, "parts[0] y"),
    BadInput("variational: mean of the wrong length", mixed_expectation(np.zeros(3), np.ones(2)),
             ValueError, "mean"),
    BadInput("variational: negative variance", mixed_expectation(np.zeros(2), [1.0, -1.0]),
             ValueError, "var"),
    # ----- fit_variational, variational_elbo ---------------------------------------------------
    BadInput("variational: K not symmetric", fit(K=np.triu(K)), ValueError, "K"),
    BadInput("variational: K a string", fit(K="K"), (TypeError, ValueError), "K"),
    BadInput("variational: M with the wrong number of columns", fit(M=PAIR_M[:, :2]),
             ValueError, "M"),
    BadInput("variational: y of the wrong length", fit(y=[1.0]), ValueError, "y"),
    BadInput("variational: a single likelihood without y", fit(y=None), ValueError, "y"),
    BadInput("variational: y given with a MixedLikelihood",
             fit(likelihood=MixedLikelihood([GOOD]), M=None), ValueError, "y"),
    BadInput("variational: a mixed part on other items than K",
             fit(likelihood=MixedLikelihood([(PROBIT, np.array([[1.0, -1.0]]), [1.0])]),
                 y=None, M=None), ValueError, "M"),
    BadInput("variational: not a likelihood", fit(likelihood="probit"), TypeError,
             "likelihood"),
    BadInput("variational: alpha0 of the wrong length", fit(alpha0=np.zeros(2)), ValueError,
             "alpha0"),
    BadInput("variational: a zero starting site precision",
             fit(site_precision0=np.array([1.0, 0.0])), ValueError, "site_precision0"),
    BadInput("variational: max_iter of 0", fit(max_iter=0), ValueError, "max_iter"),
    BadInput("variational: negative tol", fit(tol=-1e-9), ValueError, "tol"),
    BadInput("variational: a negative site precision",
             elbo(site_precision=np.array([1.0, -0.5])), ValueError, "site_precision"),
    BadInput("variational: alpha of the wrong length", elbo(alpha=np.zeros(4)), ValueError,
             "alpha"),
    BadInput("variational: with_theta of the wrong length",
             lambda: MixedLikelihood([GOOD]).with_theta([0.0, 0.0]), ValueError, "theta"),
    BadInput("variational: with_theta with a NaN",
             lambda: MixedLikelihood([GOOD]).with_theta([np.nan]), ValueError, "theta"),
    BadInput("variational: parameter gradient with too few rows",
             lambda: MixedLikelihood([GOOD]).expected_parameter_gradient([0.0], [1.0]),
             ValueError, "mean"),
    # ----- VariationalGP -----------------------------------------------------------------------
    BadInput("variational: kernel not a Kernel", model(kernel="rbf"), TypeError, "kernel"),
    BadInput("variational: model likelihood not a Likelihood", model(likelihood=None),
             TypeError, "likelihood"),
    BadInput("variational: a prior on an unknown name",
             model(priors={"noise_sd": LogNormal(0.0, 1.0)}), ValueError, "priors"),
    BadInput("variational: model tol of 0", model(tol=0.0), ValueError, "tol"),
    BadInput("variational: learn an unknown likelihood parameter",
             model(learn_likelihood=["part0.gap_1"]), ValueError, "learn_likelihood"),
    BadInput("variational: learn a parameter its likelihood fixes",
             model(likelihood=PairwiseProbit(1.0, noise_sd_bounds="fixed"),
                   learn_likelihood=["part0.noise_sd"]), ValueError, "learn_likelihood"),
    BadInput("variational: learn_likelihood a word other than 'all'",
             model(learn_likelihood="every"), ValueError, "learn_likelihood"),
    BadInput("variational: learn_likelihood a number", model(learn_likelihood=3), TypeError,
             "learn_likelihood"),
    BadInput("variational: a prior on a likelihood parameter that is not learned",
             model(priors={"part0.noise_sd": LogNormal(0.0, 1.0)}), ValueError, "priors"),
    BadInput("variational: model kl_weight of 0", model(kl_weight=0.0), ValueError,
             "kl_weight"),
    BadInput("variational: negative kl_weight", fit(kl_weight=-1.0), ValueError, "kl_weight"),
    BadInput("variational: NaN kl_weight", elbo(kl_weight=np.nan), ValueError, "kl_weight"),
    BadInput("variational: fit without y", model_fit(), ValueError, "y"),
    BadInput("variational: fit with a probit answer of 0.5",
             model_fit(y=[1.0, 0.5], M=PAIR_M), ValueError, "y"),
    BadInput("variational: NaN in X", model_fit(X_fit=X * np.nan, y=[1.0, 0.0], M=PAIR_M),
             ValueError, "X"),
    BadInput("variational: predict before fit",
             lambda: VariationalGP(SE, PROBIT).predict(X), ValueError, "self"),
    BadInput("variational: optimise before fit",
             lambda: VariationalGP(SE, PROBIT).optimise_hyperparameters(2, rng=0), ValueError,
             "self"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
