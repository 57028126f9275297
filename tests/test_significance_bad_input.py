"""Bad-input catalogue: course_lib.significance (the paired tests of lecture 05)."""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.significance import (compare_correlations, paired_bootstrap,
                                     paired_cluster_bootstrap, resampled_t_test,
                                     steiger_z1_star)

REFERENCE = np.arange(12.0)
FIRST = REFERENCE + np.tile([0.5, -0.5, 1.0], 4)
SECOND = REFERENCE + np.tile([1.0, 0.0, -1.0], 4)
SPEAKERS = np.repeat(["a", "b", "c", "d"], 3)


def _pearson(reference, predictions):
    return float(np.corrcoef(reference, predictions)[0, 1])


def _cluster(clusters, **options):
    return lambda: paired_cluster_bootstrap(_pearson, REFERENCE, FIRST, SECOND, clusters,
                                            **options)


CASES = [
    BadInput("significance: cluster labels one short",
             _cluster(SPEAKERS[:-1]), ValueError, "clusters", first=True),
    BadInput("significance: cluster labels as a matrix",
             _cluster(SPEAKERS.reshape(3, 4)), ValueError, "clusters", first=True),
    BadInput("significance: a NaN cluster label",
             _cluster(np.r_[np.zeros(11), np.nan]), ValueError, "clusters", first=True),
    BadInput("significance: every item in one cluster",
             _cluster(np.zeros(12, int)), ValueError, "clusters", first=True),
    BadInput("significance: cluster labels that do not sort",
             _cluster(np.array([1, "a"] * 6, dtype=object)), TypeError, "clusters", first=True),
    BadInput("significance: cluster bootstrap statistic not a function",
             lambda: paired_cluster_bootstrap(0.5, REFERENCE, FIRST, SECOND, SPEAKERS),
             TypeError, "statistic", first=True),
    BadInput("significance: cluster bootstrap predictions one short",
             lambda: paired_cluster_bootstrap(_pearson, REFERENCE, FIRST, SECOND[:-1], SPEAKERS),
             ValueError, "second", first=True),
    BadInput("significance: too few resamples",
             _cluster(SPEAKERS, n_resamples=10), ValueError, "n_resamples", first=True),
    BadInput("significance: confidence of 95 meant as percent",
             _cluster(SPEAKERS, confidence=95), ValueError, "confidence", first=True),
    BadInput("significance: a string as rng",
             _cluster(SPEAKERS, rng="seed"), TypeError, "rng"),
    BadInput("significance: item bootstrap reference with a NaN",
             lambda: paired_bootstrap(_pearson, np.r_[REFERENCE[:-1], np.nan], FIRST, SECOND),
             ValueError, "reference", first=True),
    BadInput("significance: a constant model in compare_correlations",
             lambda: compare_correlations(REFERENCE, np.ones(12), SECOND), ValueError, "first",
             first=True),
    BadInput("significance: a correlation above one",
             lambda: steiger_z1_star(1.2, 0.5, 0.5, 30), ValueError, "r_jk", first=True),
    BadInput("significance: one split only",
             lambda: resampled_t_test([0.1], 70, 30), ValueError, "differences", first=True),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
