"""Bad-input catalogue: course_lib.mixed.variational (fit_variational, variational_evidence). Family
"variational".

Decisions recorded here: ``kl_weight`` must be positive. A single likelihood needs ``y`` (its
map ``M`` defaults to the identity); a MixedLikelihood carries its own, so passing ``y`` as well
is refused rather than silently ignored, and its parts must address K's items. Site precisions
must be positive (the parameterisation holds lambda > 0).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.mixed import MixedLikelihood
from course_lib.preference import PairwiseProbit
from course_lib.mixed.variational import fit_variational, variational_evidence

PROBIT = PairwiseProbit(1.0)
PAIR_M = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]])
GOOD = (PROBIT, PAIR_M, [1.0, 0.0])
K = SquaredExponential(1.0, 1.0)(np.array([[0.0], [1.0], [2.0]]))


def fit(**changes):
    args = {"K": K, "likelihood": PROBIT, "y": [1.0, 0.0], "M": PAIR_M} | changes
    return lambda: fit_variational(**args)


def elbo(**changes):
    args = {"K": K, "likelihood": PROBIT, "alpha": np.zeros(3),
            "site_precision": np.ones(2), "y": [1.0, 0.0], "M": PAIR_M} | changes
    return lambda: variational_evidence(**args)


CASES = [
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
    BadInput("variational: negative kl_weight", fit(kl_weight=-1.0), ValueError, "kl_weight"),
    BadInput("variational: NaN kl_weight", elbo(kl_weight=np.nan), ValueError, "kl_weight"),
    # the starts are checked before K is factorised: their error comes first
    BadInput("variational: alpha0 of the wrong length with a K that has no Cholesky factor",
             fit(K=-np.eye(3), alpha0=np.zeros(2)), ValueError, "alpha0"),
    BadInput("variational: a zero starting site precision with a K that has no Cholesky "
             "factor", fit(K=-np.eye(3), site_precision0=np.array([1.0, 0.0])), ValueError,
             "site_precision0"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
