"""Bad-input catalogue: the pruned DTW searches and their lower bounds (course_lib.dtw.search).

Each case calls a public function wrongly; it must raise the stated error with a message that
names the user's argument (see tests/bad_input.py).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.dtw.search import lb_keogh, lb_kim, nearest_templates, subsequence_search
from course_lib.dtw.step_patterns import StepPattern

X = np.random.default_rng(0).normal(size=(10, 3))
Y = np.random.default_rng(1).normal(size=(12, 3))
LONG = np.random.default_rng(2).normal(size=(30, 3))
CUSTOM = StepPattern("diagonal only", (((1, 1), ((0, 0, 1.0),)),), start_weight=1.0,
                     normalisation="none")

CASES = [
    # --- lb_kim ---------------------------------------------------------------------------------
    BadInput("dtw_search: lb_kim with NaN in x", lambda: lb_kim(np.full((3, 3), np.nan), Y),
             ValueError, "x"),
    BadInput("dtw_search: lb_kim with y of another dimension", lambda: lb_kim(X, Y[:, :2]),
             ValueError, "y"),
    BadInput("dtw_search: lb_kim with gaussian_nll costs",
             lambda: lb_kim(X, Y, metric="gaussian_nll"), ValueError, "metric"),
    BadInput("dtw_search: lb_kim with an unknown metric", lambda: lb_kim(X, Y, metric="L1"),
             ValueError, "metric"),
    BadInput("dtw_search: lb_kim with an unknown step pattern",
             lambda: lb_kim(X, Y, step_pattern="symmetric3"), ValueError, "step_pattern"),
    # --- lb_keogh -------------------------------------------------------------------------------
    BadInput("dtw_search: lb_keogh without a band", lambda: lb_keogh(X, Y), TypeError, "band"),
    BadInput("dtw_search: lb_keogh with a negative band", lambda: lb_keogh(X, Y, band=-1),
             ValueError, "band"),
    BadInput("dtw_search: lb_keogh with a fractional band", lambda: lb_keogh(X, Y, band=2.5),
             TypeError, "band"),
    BadInput("dtw_search: lb_keogh with cosine costs",
             lambda: lb_keogh(X, Y, band=2, metric="cosine"), ValueError, "metric"),
    BadInput("dtw_search: lb_keogh with a custom step pattern",
             lambda: lb_keogh(X, Y, band=2, step_pattern=CUSTOM), ValueError, "step_pattern"),
    BadInput("dtw_search: lb_keogh with an empty y", lambda: lb_keogh(X, np.zeros((0, 3)), band=2),
             ValueError, "y"),
    # --- nearest_templates ----------------------------------------------------------------------
    BadInput("dtw_search: nearest_templates with one sequence instead of a list",
             lambda: nearest_templates(X, [Y], band=2), TypeError, "queries"),
    BadInput("dtw_search: nearest_templates with no templates",
             lambda: nearest_templates([X], [], band=2), ValueError, "templates"),
    BadInput("dtw_search: nearest_templates with templates of another dimension",
             lambda: nearest_templates([X], [Y[:, :2]], band=2), ValueError, "templates"),
    BadInput("dtw_search: nearest_templates without a band",
             lambda: nearest_templates([X], [Y]), TypeError, "band"),
    BadInput("dtw_search: nearest_templates with a band given as text",
             lambda: nearest_templates([X], [Y], band="5"), TypeError, "band"),
    BadInput("dtw_search: nearest_templates bounds with a custom step pattern",
             lambda: nearest_templates([X], [Y], band=2, step_pattern=CUSTOM), ValueError,
             "step_pattern"),
    BadInput("dtw_search: nearest_templates bounds with cosine costs",
             lambda: nearest_templates([X], [Y], band=2, metric="cosine"), ValueError, "metric"),
    BadInput("dtw_search: nearest_templates with gaussian_nll costs",
             lambda: nearest_templates([X], [Y], band=2, metric="gaussian_nll",
                                       lower_bounds=False), ValueError, "metric"),
    BadInput("dtw_search: nearest_templates with lower_bounds as text",
             lambda: nearest_templates([X], [Y], band=2, lower_bounds="yes"), TypeError,
             "lower_bounds"),
    BadInput("dtw_search: nearest_templates with early_abandon as a number",
             lambda: nearest_templates([X], [Y], band=2, early_abandon=1), TypeError,
             "early_abandon"),
    BadInput("dtw_search: nearest_templates with more leading features than there are",
             lambda: nearest_templates([X], [Y], band=2, leading_features=4), ValueError,
             "leading_features"),
    BadInput("dtw_search: nearest_templates with zero leading features",
             lambda: nearest_templates([X], [Y], band=2, leading_features=0), ValueError,
             "leading_features"),
    BadInput("dtw_search: nearest_templates with leading features and cosine costs",
             lambda: nearest_templates([X], [Y], band=2, metric="cosine", lower_bounds=False,
                                       leading_features=2), ValueError, "leading_features"),
    BadInput("dtw_search: nearest_templates with an unknown on_no_path",
             lambda: nearest_templates([X], [Y], band=2, on_no_path="skip"), ValueError,
             "on_no_path"),
    BadInput("dtw_search: nearest_templates with parallel as text",
             lambda: nearest_templates([X], [Y], band=2, parallel="no"), TypeError, "parallel"),
    # --- subsequence_search ---------------------------------------------------------------------
    BadInput("dtw_search: subsequence_search with a 3-D query",
             lambda: subsequence_search(np.zeros((2, 3, 4)), [LONG]), ValueError, "query"),
    BadInput("dtw_search: subsequence_search with one reference instead of a list",
             lambda: subsequence_search(X, LONG), TypeError, "references"),
    BadInput("dtw_search: subsequence_search with a reference shorter than the query",
             lambda: subsequence_search(LONG, [LONG, X]), ValueError, "references[1]"),
    BadInput("dtw_search: subsequence_search with zero best matches",
             lambda: subsequence_search(X, [LONG], n_best=0), ValueError, "n_best"),
    BadInput("dtw_search: subsequence_search with a span-normalised step pattern",
             lambda: subsequence_search(X, [LONG], step_pattern="symmetric2"), ValueError,
             "step_pattern"),
    BadInput("dtw_search: subsequence_search with gaussian_nll costs",
             lambda: subsequence_search(X, [LONG], metric="gaussian_nll"), ValueError, "metric"),
    BadInput("dtw_search: subsequence_search with early_abandon as text",
             lambda: subsequence_search(X, [LONG], early_abandon="yes"), TypeError,
             "early_abandon"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
