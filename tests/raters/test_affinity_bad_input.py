"""Bad-input catalogue: affinity propagation on ties (course_lib.raters.affinity), family
"affinity" (its argument checks are in tests/raters/test_annotator_noise_bad_input.py).

Decisions recorded here: affinity propagation breaks exact ties deterministically (the lower index
wins) when the messages get stuck, and never advises a larger ``max_iter`` when more sweeps cannot
help (it advises ``damping``).
"""

import warnings
from unittest import mock

import numpy as np

from bad_input import RightAnswer, check_case, parametrize
from course_lib.raters.affinity import _affinity_propagation, _negative_squared_distances


def _two_clusters(result):
    np.testing.assert_array_equal(result.labels, [0, 0, 1, 1])
    np.testing.assert_array_equal(result.exemplars, [0, 2])
    assert result.converged and result.ties_broken


def _stuck_warning():
    S = _negative_squared_distances(np.array([0.0, 1.0, 10.0, 11.0]))
    with mock.patch("course_lib.raters.affinity._TIE_BREAK", 0.0), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _affinity_propagation(S)
    return [str(w.message) for w in caught]


def _advises_damping_not_max_iter(messages):
    assert len(messages) == 1, messages
    assert messages[0].startswith("damping:") and "max_iter" not in messages[0], messages


CASES = [
    RightAnswer("affinity: tied points 0, 1, 10, 11",
                lambda: _affinity_propagation(_negative_squared_distances(
                    np.array([0.0, 1.0, 10.0, 11.0]))), _two_clusters),
    RightAnswer("affinity: ties that stay unbroken advise damping, not max_iter",
                _stuck_warning, _advises_damping_not_max_iter),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
