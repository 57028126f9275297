"""Unit 6's experiment E6.2 (Nielsen et al.'s (2011) sparse toy) stays true to its code.

The script draws no random numbers, so its reduced run is the whole computation without the
figure; it is re-run and compared value by value with the committed result within the script's
tolerances (``nielsen2011_sparse_toy.compare_with_committed``: the optimised pseudo-inputs through
their evidence, the verdicts by their word). The committed verdicts must be those of its
own numbers. A failure after a library change means the result is stale: re-run
``python -m experiments.nielsen2011_sparse_toy`` and commit its result file and figure.
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.results import RESULTS_DIR, load_result
from experiments import common
from experiments import nielsen2011_sparse_toy as sparse_toy


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(sparse_toy)


def test_reduced_run_reproduces_the_committed_result(reduced_run):
    assert not reduced_run.problems, ("the run differs from the committed result beyond its "
                                      "stated tolerances; re-run the experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    problems = common.settings_problems(reduced_run.document["settings"],
                                        reduced_run.committed["settings"])
    assert not problems, "\n".join(problems)


def test_committed_verdicts_come_from_its_own_numbers():
    committed = load_result(sparse_toy.NAME)
    models = committed["result"]["models"]
    assert common.to_json(sparse_toy.verdicts(models)) == committed["result"]["verdicts"]
    for claim in ("fixed pseudo-inputs fit poorly",
                  "optimised pseudo-inputs move and come close to the full model"):
        verdict = committed["result"]["verdicts"][claim]
        assert verdict.split(" (")[0] in ("holds", "partly", "does not hold"), verdict


def test_source_claims_stand_beside_ours_and_the_figure_exists():
    committed = load_result(sparse_toy.NAME)
    assert committed["source"]["numbers"] is None   # the paper's figure survives as text only
    assert len(committed["source"]["claims"]) == 3
    assert "noise_sd" in committed["differences"]
    assert (RESULTS_DIR / f"{sparse_toy.NAME}.png").stat().st_size > 10_000


def test_pairs_leave_out_exactly_the_ties_and_answer_the_rest_by_the_truth():
    X, midpoints, _ = sparse_toy.inputs()
    for points, n_kept in ((X, 114), (midpoints, 96)):
        a, b, y = sparse_toy.untied_pairs(points)
        truth = np.cos(points[:, 0])
        assert a.size == n_kept and np.all(a < b)
        assert np.array_equal(y == 1, truth[a] > truth[b])
        n = points.shape[0]
        kept = set(zip(a.tolist(), b.tolist()))
        ties = [(i, j) for i in range(n) for j in range(i + 1, n) if (i, j) not in kept]
        assert len(ties) == n * (n - 1) // 2 - n_kept
        assert all(abs(truth[i] - truth[j]) < 1e-12 for i, j in ties)
    # a perfect predictor scores zero, its negation one
    a, b, y = sparse_toy.untied_pairs(X)
    assert sparse_toy.error_rate(np.cos(X[:, 0]), a, b, y) == 0.0
    assert sparse_toy.error_rate(-np.cos(X[:, 0]), a, b, y) == 1.0
