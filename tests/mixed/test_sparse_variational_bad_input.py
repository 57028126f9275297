"""Bad-input catalogue: course_lib.mixed.sparse_variational (fit_sparse_variational,
sparse_variational_evidence). Family "sparse_variational".

Decisions recorded here: a whitened square root S must be lower triangular with a positive
diagonal (the KL reads log S_ii), and a warm start or a given q(v) has one value per inducing
point. The checks of the inducing points, X and the likelihood are shared with the model
(tests/mixed/test_sparse_variational_model_bad_input.py).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.mixed.feedback_likelihoods import BernoulliProbit
from course_lib.mixed.sparse_variational import fit_sparse_variational, sparse_variational_evidence

X = np.array([[0.0, 0.0], [0.5, 1.0], [1.0, 0.2]])
Z = np.array([[0.2, 0.2], [0.8, 0.8]])
Y = [1.0, 0.0, 1.0]
SE = SquaredExponential(0.5, 1.0)
PROBIT = BernoulliProbit()


def fit(**changes):
    args = {"kernel": SE, "X": X, "inducing": Z, "likelihood": PROBIT, "y": Y} | changes
    return lambda: fit_sparse_variational(**args)


def elbo(**changes):
    args = {"kernel": SE, "X": X, "inducing": Z, "likelihood": PROBIT,
            "mean_whitened": np.zeros(2), "root_whitened": np.eye(2), "y": Y} | changes
    return lambda: sparse_variational_evidence(**args)


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
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
