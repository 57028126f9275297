"""Bad-input catalogue: course_lib.mixed.sparse_variational (fit_sparse_variational,
sparse_variational_evidence: family "sparse_variational"; the model SparseVariationalGP: family
"sparse_variational_gp").

Decisions recorded here: a whitened square root S must be lower triangular with a positive
diagonal (the KL reads log S_ii), and a warm start or a given q(v) has one value per inducing
point. The inducing points are checked when the model is built (shape, finite values, one
column per lengthscale of an ARD kernel); inputs X must have as many columns as the inducing
points, and the error names X (the inducing points were accepted first). A new likelihood passed
to ``fit`` must have the parameters the model learns (their values carry over). The cases of
inducing_points are in tests/mixed/test_inducing_bad_input.py.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import LogNormal, SquaredExponential
from course_lib.mixed.feedback_likelihoods import BernoulliProbit, LikertConfidence
from course_lib.mixed import MixedLikelihood
from course_lib.mixed.sparse_variational import (SparseVariationalGP, fit_sparse_variational,
                                               sparse_variational_evidence)

X = np.array([[0.0, 0.0], [0.5, 1.0], [1.0, 0.2]])
Z = np.array([[0.2, 0.2], [0.8, 0.8]])
Y = [1.0, 0.0, 1.0]
SE = SquaredExponential(0.5, 1.0)
PROBIT = BernoulliProbit()
LIKERT = LikertConfidence(3)


def fit(**changes):
    args = {"kernel": SE, "X": X, "inducing": Z, "likelihood": PROBIT, "y": Y} | changes
    return lambda: fit_sparse_variational(**args)


def elbo(**changes):
    args = {"kernel": SE, "X": X, "inducing": Z, "likelihood": PROBIT,
            "mean_whitened": np.zeros(2), "root_whitened": np.eye(2), "y": Y} | changes
    return lambda: sparse_variational_evidence(**args)


def model(**changes):
    args = {"kernel": SE, "likelihood": PROBIT, "inducing": Z} | changes
    return lambda: SparseVariationalGP(**args)


def model_fit(X_fit=X, **fit_args):
    return lambda: SparseVariationalGP(SE, PROBIT, Z).fit(X_fit, **fit_args)


CASES = [
    # ----- the functions ---------------------------------------------------------------------
    BadInput("sparse_variational: mean0 of the wrong length", fit(mean0=np.zeros(3)),
             ValueError, "mean0"),
    BadInput("sparse_variational: root0 not lower triangular", fit(root0=np.ones((2, 2))),
             ValueError, "root0"),
    BadInput("sparse_variational: eval_gradient not a bool", fit(eval_gradient=1), TypeError,
             "eval_gradient"),
    BadInput("sparse_variational: a root with a zero on its diagonal",
             elbo(root_whitened=np.diag([1.0, 0.0])), ValueError, "root_whitened"),
    BadInput("sparse_variational: a root of the wrong size", elbo(root_whitened=np.eye(3)),
             ValueError, "root_whitened"),
    BadInput("sparse_variational: NaN in the whitened mean",
             elbo(mean_whitened=np.array([0.0, np.nan])), ValueError, "mean_whitened"),
    # ----- the model ---------------------------------------------------------------------------
    BadInput("sparse_variational_gp: inducing points as a 3-D array",
             model(inducing=np.zeros((2, 2, 2))), ValueError, "inducing"),
    BadInput("sparse_variational_gp: NaN in the inducing points",
             model(inducing=np.array([[0.0, np.nan], [1.0, 1.0]])), ValueError, "inducing"),
    BadInput("sparse_variational_gp: no inducing points", model(inducing=np.empty((0, 2))),
             ValueError, "inducing"),
    BadInput("sparse_variational_gp: inducing points of the wrong dimension for an ARD kernel",
             model(kernel=SquaredExponential([0.5, 0.5, 0.5], 1.0)), ValueError, "inducing"),
    BadInput("sparse_variational_gp: X of another dimension than the inducing points",
             model_fit(X_fit=np.zeros((3, 3)), y=Y), ValueError, "X"),
    BadInput("sparse_variational_gp: kernel not a Kernel", model(kernel="rbf"), TypeError,
             "kernel"),
    BadInput("sparse_variational_gp: likelihood not a Likelihood", model(likelihood="probit"),
             TypeError, "likelihood"),
    BadInput("sparse_variational_gp: a prior on an unknown name",
             model(priors={"lapse": LogNormal(0.0, 1.0)}), ValueError, "priors"),
    BadInput("sparse_variational_gp: max_iter of 0", model(max_iter=0), ValueError, "max_iter"),
    BadInput("sparse_variational_gp: negative tol", model(tol=-1.0), ValueError, "tol"),
    BadInput("sparse_variational_gp: warm_start not a bool", model(warm_start="yes"), TypeError,
             "warm_start"),
    BadInput("sparse_variational_gp: learning an unknown likelihood parameter",
             model(learn_likelihood=["part0.gap_1"]), ValueError, "learn_likelihood"),
    BadInput("sparse_variational_gp: a kl_weight of 0", model(kl_weight=0.0), ValueError,
             "kl_weight"),
    BadInput("sparse_variational_gp: a new likelihood without the learned parameters",
             lambda: SparseVariationalGP(SE, LIKERT, Z, learn_likelihood="all").fit(
                 X, [0.0, 1.0, 2.0], likelihood=PROBIT), ValueError, "likelihood"),
    BadInput("sparse_variational_gp: fit without y", model_fit(), ValueError, "y"),
    BadInput("sparse_variational_gp: fit with y of the wrong length", model_fit(y=[1.0, 0.0]),
             ValueError, "y"),
    BadInput("sparse_variational_gp: a probit answer of 0.5", model_fit(y=[1.0, 0.5, 0.0]),
             ValueError, "y"),
    BadInput("sparse_variational_gp: M with the wrong shape", model_fit(y=Y, M=np.eye(2)),
             ValueError, "M"),
    BadInput("sparse_variational_gp: NaN in X", model_fit(X_fit=X * np.nan, y=Y), ValueError,
             "X"),
    BadInput("sparse_variational_gp: a MixedLikelihood on other items than X",
             model_fit(likelihood=MixedLikelihood([(PROBIT, np.eye(4), [1.0, 0.0, 1.0, 1.0])])),
             ValueError, "X"),
    BadInput("sparse_variational_gp: y given with a MixedLikelihood",
             model_fit(likelihood=MixedLikelihood([(PROBIT, np.eye(3), Y)]), y=Y), ValueError,
             "y"),
    BadInput("sparse_variational_gp: fit with a likelihood that is not one",
             model_fit(y=Y, likelihood="probit"), TypeError, "likelihood"),
    BadInput("sparse_variational_gp: predict before fit",
             lambda: SparseVariationalGP(SE, PROBIT, Z).predict(X), ValueError, "self"),
    BadInput("sparse_variational_gp: q_u before fit",
             lambda: SparseVariationalGP(SE, PROBIT, Z).q_u(), ValueError, "self"),
    BadInput("sparse_variational_gp: optimise before fit",
             lambda: SparseVariationalGP(SE, PROBIT, Z).optimise_hyperparameters(2, rng=0),
             ValueError, "self"),
    BadInput("sparse_variational_gp: predict at inputs of the wrong dimension",
             lambda: SparseVariationalGP(SE, PROBIT, Z).fit(X, Y).predict(np.zeros((2, 3))),
             ValueError, "X_test"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
