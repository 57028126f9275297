"""Bad-input catalogue: regions of the input space for GPR-MANH
(course_lib.raters.regions), family "annotators"."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.raters.regions import assign_regions
from tests.raters.test_annotator_noise_bad_input import X, with_nan


CASES = [
    # ----- regions ------------------------------------------------------------------------
    BadInput("annotators: k-means regions without their number",
             lambda: assign_regions(X), ValueError, "n_regions"),
    BadInput("annotators: affinity regions with a number",
             lambda: assign_regions(X, 3, method="affinity"), ValueError, "n_regions"),
    BadInput("annotators: unknown region method",
             lambda: assign_regions(X, 3, method="spectral"), ValueError, "method"),
    BadInput("annotators: zero min_size", lambda: assign_regions(X, 2, min_size=0), ValueError,
             "min_size"),
    BadInput("annotators: NaN in the region inputs",
             lambda: assign_regions(with_nan(np.ones((4, 3))), 2), ValueError, "X"),
    BadInput("annotators: new points with the wrong number of columns",
             lambda: assign_regions(X, 2, rng=0).regions_of(np.ones((2, 3))), ValueError, "X"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
