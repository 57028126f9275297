"""Bad-input catalogue: regions of the input space for GPR-MANH
(course_lib.raters.regions), family "annotators".

Decisions recorded here: affinity regions of tied points are deterministic (the ties broken as
in course_lib.raters.affinity); the number of regions is a whole number no larger than the
number of points (``n_regions``).
"""

import numpy as np

from bad_input import BadInput, RightAnswer, check_case, parametrize
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
    # ----- ties and the number of regions -------------------------------------------------------
    RightAnswer("annotators: affinity regions of tied points",
                lambda: assign_regions(np.array([[0.0], [1.0], [10.0], [11.0]]),
                                       method="affinity"),
                lambda regions: np.testing.assert_array_equal(regions.labels, [0, 0, 1, 1])),
    BadInput("annotators: more regions than points",
             lambda: assign_regions(np.linspace(0.0, 2.0, 5)[:, None], 7, rng=0), ValueError,
             "n_regions", first=True),
    BadInput("annotators: a fractional number of regions",
             lambda: assign_regions(np.linspace(0.0, 2.0, 5)[:, None], 2.5, rng=0), TypeError,
             "n_regions", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
