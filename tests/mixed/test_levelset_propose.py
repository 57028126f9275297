"""Choosing the next level-set query (course_lib.mixed.levelset_propose): without polish the best
candidate under each acquisition; the polish stays in the box, never loses, is deterministic and
finds a peak between candidates."""

import numpy as np
import pytest
from scipy.stats import qmc

from course_lib.mixed import levelset_propose
from course_lib.mixed.levelset import eavc, global_mi
from course_lib.mixed.levelset_propose import bald_bernoulli, straddle
from course_lib.mixed.levelset_propose import propose

from levelset_data import REFERENCES, THRESHOLD, preference_model, regression_model


SOBOL_CANDIDATES = qmc.scale(qmc.Sobol(2, rng=np.random.default_rng(8)).random(64), [-1, -1],
                             [1, 1])


@pytest.mark.parametrize("acquisition", ["global_mi", "eavc", "bald", "straddle"])
def test_propose_without_polish_is_the_best_candidate(acquisition):
    model = regression_model()
    found = propose(model, acquisition, candidates=SOBOL_CANDIDATES, references=REFERENCES,
                    threshold=THRESHOLD, polish=False, return_scores=True)
    direct = {"global_mi": lambda: global_mi(model, SOBOL_CANDIDATES, REFERENCES, THRESHOLD),
              "eavc": lambda: eavc(model, SOBOL_CANDIDATES, REFERENCES, THRESHOLD),
              "bald": lambda: bald_bernoulli(model, SOBOL_CANDIDATES),
              "straddle": lambda: straddle(model, SOBOL_CANDIDATES, THRESHOLD)}[acquisition]()
    np.testing.assert_array_equal(found.scores, direct)
    best = int(np.argmax(direct))
    assert found.best_candidate == best and found.n_evaluations == 0
    np.testing.assert_array_equal(found.x, SOBOL_CANDIDATES[best])
    assert found.value == direct[best]
    plain = propose(model, acquisition, candidates=SOBOL_CANDIDATES, references=REFERENCES,
                    threshold=THRESHOLD, polish=False)
    np.testing.assert_array_equal(plain, found.x)


@pytest.mark.parametrize("acquisition", ["global_mi", "eavc", "bald", "straddle"])
def test_propose_polish_stays_in_the_box_and_never_loses(acquisition):
    model = preference_model()
    box = np.column_stack([SOBOL_CANDIDATES.min(axis=0), SOBOL_CANDIDATES.max(axis=0)])
    found = propose(model, acquisition, candidates=SOBOL_CANDIDATES, references=REFERENCES,
                    threshold=THRESHOLD, return_scores=True)
    assert found.x.shape == (2,)
    assert np.all(found.x >= box[:, 0]) and np.all(found.x <= box[:, 1])
    assert found.value >= found.scores[found.best_candidate]
    assert 0 < found.n_evaluations <= levelset_propose._POLISH_EVALUATIONS_PER_DIM * 2
    # the reported value is the acquisition at the returned point
    again = propose(model, acquisition, candidates=found.x[None, :], references=REFERENCES,
                    threshold=THRESHOLD, polish=False, return_scores=True)
    np.testing.assert_allclose(again.value, found.value, rtol=1e-12)
    # deterministic
    np.testing.assert_array_equal(
        propose(model, acquisition, candidates=SOBOL_CANDIDATES, references=REFERENCES,
                threshold=THRESHOLD), found.x)


def test_propose_polish_finds_the_peak_between_candidates():
    """A callable with its peak off the candidates: the polish must get closer than the best
    candidate, stay inside explicit bounds, and keep a zero-width coordinate fixed."""
    peak = np.array([0.123, -0.456])

    def bump(model, X):
        return -np.sum((X - peak) ** 2, axis=1)

    found = propose(None, bump, candidates=SOBOL_CANDIDATES, return_scores=True)
    start = SOBOL_CANDIDATES[found.best_candidate]
    assert np.linalg.norm(found.x - peak) < 0.1 * np.linalg.norm(start - peak)
    assert found.value > found.scores[found.best_candidate]
    # the peak outside the box [-1, 0] x [0, 1]: the polish ends near its corner (0, 0)
    bounds = [[-1.0, 0.0], [0.0, 1.0]]
    inside = SOBOL_CANDIDATES[(SOBOL_CANDIDATES[:, 0] <= 0) & (SOBOL_CANDIDATES[:, 1] >= 0)]
    x = propose(None, bump, candidates=inside, bounds=bounds)
    assert -1.0 <= x[0] <= 0.0 and 0.0 <= x[1] <= 1.0
    assert np.linalg.norm(x) < 0.01, x
    flat = np.column_stack([SOBOL_CANDIDATES[:, 0], np.full(64, 0.5)])
    x = propose(None, bump, candidates=flat)
    assert x[1] == 0.5 and abs(x[0] - peak[0]) < 0.01
