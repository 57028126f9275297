"""Bad-input catalogue: the sparse pairwise probit GP (course_lib.preference.sparse_preference).
Family "sparse_preference".

Decisions recorded here: only the probit likelihood is accepted (the closed-form integral over
a pair's conditional exists for it alone), refused naming ``likelihood``; coinciding
pseudo-inputs are refused at construction and nearly coinciding ones (K_bar singular without
jitter) at the fit, both naming ``pseudo_inputs``; degree or rating data are refused naming
``comparisons``.
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.gp import SquaredExponential
from course_lib.preference.comparisons import Comparisons
from course_lib.preference import PairwiseBeta, PairwiseProbit
from course_lib.preference.sparse_preference import SparsePreferenceGP

X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, -1.0]])
PAIRS = Comparisons(X, [0, 1], [1, 2], [1.0, 0.0])
DEGREES = Comparisons(X, [0, 1], [1, 2], [0.8, 0.3], kind="pair-degree")
PSEUDO = np.array([[0.0, 0.0], [2.0, 0.0]])


def sparse(pseudo=PSEUDO, **options):
    return SparsePreferenceGP(SquaredExponential(1.0, 1.0), PairwiseProbit(1.0), pseudo,
                              **options)


CASES = [
    BadInput("sparse_preference: a Beta likelihood",
             lambda: SparsePreferenceGP(SquaredExponential(), PairwiseBeta(), PSEUDO),
             TypeError, "likelihood"),
    BadInput("sparse_preference: a kernel given as text",
             lambda: SparsePreferenceGP("se", PairwiseProbit(), PSEUDO), TypeError, "kernel"),
    BadInput("sparse_preference: pseudo-inputs with NaN",
             lambda: sparse([[np.nan, 0.0], [1.0, 1.0]]), ValueError, "pseudo_inputs"),
    BadInput("sparse_preference: two equal pseudo-inputs",
             lambda: sparse([[1.0, 1.0], [1.0, 1.0]]), ValueError, "pseudo_inputs"),
    BadInput("sparse_preference: nearly equal pseudo-inputs without jitter",
             lambda: sparse([[1.0, 1.0], [1.0, 1.0 + 1e-12]], jitter=0.0).fit(PAIRS),
             ValueError, "pseudo_inputs"),
    BadInput("sparse_preference: negative jitter", lambda: sparse(jitter=-1e-8), ValueError,
             "jitter"),
    BadInput("sparse_preference: conditional_variance as text",
             lambda: sparse(conditional_variance="yes"), TypeError, "conditional_variance"),
    BadInput("sparse_preference: degree answers",
             lambda: sparse().fit(DEGREES), ValueError, "comparisons"),
    BadInput("sparse_preference: items with a different number of coordinates",
             lambda: sparse([[0.0], [1.0]]).fit(PAIRS), ValueError, "comparisons"),
    BadInput("sparse_preference: data that are not Comparisons",
             lambda: sparse().fit(X), TypeError, "comparisons"),
    BadInput("sparse_preference: evidence before fit",
             lambda: sparse().evidence(np.zeros(3), eval_gradient=True),
             ValueError, "self"),
    BadInput("sparse_preference: pseudo-input gradient at 3 coordinates",
             lambda: sparse().fit(PAIRS).evidence_pseudo_input_gradient(np.zeros((2, 3))),
             ValueError, "pseudo_inputs"),
    BadInput("sparse_preference: theta of the wrong length",
             lambda: sparse().fit(PAIRS).log_evidence(np.zeros(2)), ValueError,
             "theta"),
    BadInput("sparse_preference: max_iter 0 for the pseudo-inputs",
             lambda: sparse().fit(PAIRS).optimise_pseudo_inputs(max_iter=0), ValueError,
             "max_iter"),
    # far from every item, the pseudo-inputs leave the pairs' projected rows all zero: the
    # message named the internal matrix M before
    BadInput("sparse_preference: pseudo-inputs far from every item",
             lambda: sparse(np.array([[1e3, 0.0], [2e3, 0.0]])).fit(PAIRS), ValueError,
             "pseudo_inputs"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
