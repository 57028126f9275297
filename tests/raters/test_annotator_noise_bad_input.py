"""Bad-input catalogue: annotator noise models and simulators (course_lib.raters.annotator_noise)
and affinity propagation (course_lib.raters.affinity); the regions' cases are in
test_annotator_regions_bad_input.py.

Families: "annotators" and "affinity". The decision on scarce labels is here too: a noise
variance needs at least 2 labels, so an annotator with one label (GPR-MA, refused naming
``data``) or a (region, annotator) cell with one label (GPR-MANH, refused naming ``regions``)
is an error, not a variance silently collapsed to the floor.

GPR-MA on more items than fit a 2 GiB kernel matrix is refused naming ``X``; a kernel whose
matrices are negative definite naming ``kernel``.
"""

import numpy as np

from bad_input import BadInput, NegatedSE, check_case, parametrize
from course_lib.raters.affinity import _affinity_propagation, _negative_squared_distances
from course_lib.gp import SquaredExponential
from course_lib.rater_data import RaterData
from course_lib.raters.annotator_noise import AnnotatorNoiseGP, annotator_evidence
from course_lib.simulators.rater_scores import simulate_homogeneous, simulate_regions
from course_lib.linalg import NotPositiveDefiniteError

X = np.linspace(0, 1, 6)[:, None]
TABLE = np.array([[0.1, 0.2, 0.0], [0.3, 0.1, 0.2], [0.0, 0.5, 0.4],
                  [0.2, 0.2, 0.3], [0.5, 0.1, 0.1], [0.4, 0.3, 0.2]])
DATA = RaterData.from_matrix(TABLE)
REGIONS = np.array([0, 0, 0, 1, 1, 1])


def without(cells):
    """DATA with the labels at the given (item, annotator) cells removed."""
    table = TABLE.copy()
    table[tuple(np.array(cells).T)] = np.nan
    return RaterData.from_matrix(table)


# annotator 2 labels only item 0
ONE_LABEL = without([(i, 2) for i in range(1, 6)])
# annotator 1 labels region 1 (items 3-5) only once
SPARSE_CELL = without([(4, 1), (5, 1)])
SIMILARITY = _negative_squared_distances(np.arange(5.0))
SE = SquaredExponential(0.3)


def ma():
    return AnnotatorNoiseGP(SquaredExponential(0.3), 3)


def fitted():
    return ma().fit(X, DATA)


def with_nan(matrix):
    matrix = matrix.copy()
    matrix[1, 2] = np.nan
    return matrix


# 20000 items, one label each from one of two raters: valid data for an exact GP too large
MANY = RaterData.from_long(np.arange(20000), np.arange(20000) % 2, np.ones(20000))
RATINGS = RaterData.from_matrix([[2.0, 3.0], [7.0, np.nan], [5.0, 6.0], [np.nan, 9.0]])


CASES = [
    # ----- the model ----------------------------------------------------------------------
    BadInput("annotators: kernel that is not a Kernel",
             lambda: AnnotatorNoiseGP("rbf", 3), TypeError, "kernel"),
    BadInput("annotators: zero annotators", lambda: AnnotatorNoiseGP(SE, 0), ValueError,
             "n_annotators"),
    BadInput("annotators: negative noise floor",
             lambda: AnnotatorNoiseGP(SE, 3, noise_floor=-1e-4), ValueError, "noise_floor"),
    BadInput("annotators: noise floor above the ceiling",
             lambda: AnnotatorNoiseGP(SE, 3, noise_floor=1e6), ValueError, "noise_floor"),
    BadInput("annotators: starting variance below the floor",
             lambda: AnnotatorNoiseGP(SE, 3, noise_variance=1e-6), ValueError, "noise_variance"),
    BadInput("annotators: variance table of the wrong shape",
             lambda: AnnotatorNoiseGP(SE, 3, REGIONS, noise_variance=np.ones((3, 3))),
             ValueError, "noise_variance"),
    BadInput("annotators: noise prior that is not a Prior",
             lambda: AnnotatorNoiseGP(SE, 3, noise_priors={"noise_variance[0]": 1.0}),
             TypeError, "noise_priors"),
    BadInput("annotators: kernel prior on an unknown parameter",
             lambda: AnnotatorNoiseGP(SE, 3, kernel_priors={"period": None}), ValueError,
             "kernel_priors"),
    BadInput("annotators: negative region index",
             lambda: AnnotatorNoiseGP(SE, 3, regions=[0, 1, -1, 0, 1, 1]), ValueError,
             "regions"),
    BadInput("annotators: regions of the wrong length",
             lambda: AnnotatorNoiseGP(SE, 3, regions=[0, 1, 0, 1]).fit(X, DATA), ValueError,
             "regions"),
    BadInput("annotators: data as a plain matrix", lambda: ma().fit(X, TABLE), TypeError,
             "data"),
    BadInput("annotators: data with more items than X", lambda: ma().fit(X[:4], DATA),
             ValueError, "data"),
    BadInput("annotators: data with fewer raters than n_annotators",
             lambda: AnnotatorNoiseGP(SE, 4).fit(X, DATA), ValueError, "data"),
    BadInput("annotators: one label per annotator", lambda: ma().fit(X, ONE_LABEL), ValueError,
             "data"),
    BadInput("annotators: a region cell with one label",
             lambda: AnnotatorNoiseGP(SE, 3, REGIONS).fit(X, SPARSE_CELL), ValueError,
             "regions"),
    BadInput("annotators: predict before fit", lambda: ma().predict(X), ValueError, "self"),
    BadInput("annotators: em_step before fit", lambda: ma().em_step(), ValueError, "self"),
    BadInput("annotators: test inputs with two columns",
             lambda: fitted().predict(np.ones((3, 2))), ValueError, "X_test"),
    BadInput("annotators: theta of the wrong length",
             lambda: fitted().log_evidence(np.zeros(3)), ValueError, "theta"),
    BadInput("annotators: zero restarts", lambda: fitted().optimise_hyperparameters(0),
             ValueError, "n_restarts"),
    BadInput("annotators: evidence with K of the wrong shape",
             lambda: annotator_evidence(np.eye(5), DATA, [0.1] * 3, DATA.raters),
             ValueError, "K"),
    BadInput("annotators: evidence with a noise cell out of range",
             lambda: annotator_evidence(SE(X), DATA, [0.1, 0.1], DATA.raters),
             ValueError, "groups"),
    BadInput("annotators: evidence with a zero noise variance",
             lambda: annotator_evidence(SE(X), DATA, [0.1, 0.0, 0.1], DATA.raters),
             ValueError, "noise_variances"),
    # ----- simulators ---------------------------------------------------------------------
    BadInput("annotators: negative simulated variance",
             lambda: simulate_homogeneous(np.zeros(4), [0.1, -0.2], rng=0), ValueError,
             "variances"),
    BadInput("annotators: NaN gold standard",
             lambda: simulate_homogeneous([0.0, np.nan], [0.1], rng=0), ValueError, "gold"),
    BadInput("annotators: region without a row of the variance table",
             lambda: simulate_regions(np.zeros(4), [0, 1, 2, 3], np.ones((3, 2)), rng=0),
             ValueError, "regions"),
    BadInput("annotators: simulated regions of the wrong length",
             lambda: simulate_regions(np.zeros(4), [0, 1], np.ones((2, 2)), rng=0), ValueError,
             "regions"),
    BadInput("annotators: variance table as a vector",
             lambda: simulate_regions(np.zeros(4), [0, 1, 0, 1], [0.1, 0.2], rng=0),
             ValueError, "variance_table"),
    # ----- affinity propagation -----------------------------------------------------------
    BadInput("affinity: NaN similarity", lambda: _affinity_propagation(with_nan(SIMILARITY)),
             ValueError, "similarity"),
    BadInput("affinity: similarity that is not square",
             lambda: _affinity_propagation(np.zeros((4, 5))), ValueError, "similarity"),
    BadInput("affinity: similarity as text", lambda: _affinity_propagation("near"), TypeError,
             "similarity"),
    BadInput("affinity: empty similarity", lambda: _affinity_propagation(np.zeros((0, 0))),
             ValueError, "similarity"),
    BadInput("affinity: damping 1", lambda: _affinity_propagation(SIMILARITY, damping=1.0),
             ValueError, "damping"),
    BadInput("affinity: damping below 0.5",
             lambda: _affinity_propagation(SIMILARITY, damping=0.3), ValueError, "damping"),
    BadInput("affinity: damping as text",
             lambda: _affinity_propagation(SIMILARITY, damping="half"), TypeError, "damping"),
    BadInput("affinity: preference of the wrong length",
             lambda: _affinity_propagation(SIMILARITY, preference=[-1.0, -2.0]), ValueError,
             "preference"),
    BadInput("affinity: NaN preference",
             lambda: _affinity_propagation(SIMILARITY, preference=np.nan), ValueError,
             "preference"),
    BadInput("affinity: zero sweeps", lambda: _affinity_propagation(SIMILARITY, max_iter=0),
             ValueError, "max_iter"),
    BadInput("affinity: zero convergence sweeps",
             lambda: _affinity_propagation(SIMILARITY, convergence_iter=0), ValueError,
             "convergence_iter"),
    BadInput("affinity: points with three axes",
             lambda: _negative_squared_distances(np.ones((2, 2, 2))), ValueError, "X"),
    # ----- sizes and kernels that are not kernels -----------------------------------------------
    BadInput("annotators: GPR-MA on 20000 items",
             lambda: AnnotatorNoiseGP(SquaredExponential(1.5, 1.0), 2).fit(
                 np.zeros((20000, 1)), MANY), ValueError, "X", first=True),
    BadInput("annotators: a kernel whose matrix is negative definite",
             lambda: AnnotatorNoiseGP(NegatedSE(1.0), 2).fit(
                 np.linspace(0.0, 2.0, 5)[:4, None], RATINGS),
             NotPositiveDefiniteError, "kernel", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
