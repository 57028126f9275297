"""Unit 6's committed experiment (E6.1, the learning curves of Jensen et al. 2011) stays true to
its code.

The reduced run (realisations 0 and 1, and the one-off ML-II fits of the fixed "ideal"
hyper-parameters) is re-run and compared with the committed full result on what is stable
(``jensen2011_learning_curves.compare_with_committed``: each realisation within the realisations'
spread; the ideal hyper-parameters through the objective they maximise). The committed summary and
claim verdicts must be those of its own per-realisation values. A failure after a library
change means the result is stale: re-run ``python -m experiments.jensen2011_learning_curves`` and
commit its result file and figure.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from course_lib.results import RESULTS_DIR, load_result
from course_lib.simulators.listeners import negated_griewank
from experiments import common
from experiments import jensen2011_learning_curves as learning_curves

RUN_SIZE_SETTINGS = {"realisations"}


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(learning_curves)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    ours, _ = learning_curves.select_for_comparison(reduced_run.document["result"],
                                            reduced_run.committed["result"])
    assert [entry["realisation"] for entry in ours] == list(learning_curves.REDUCED_REALISATIONS)
    assert not reduced_run.problems, ("the reduced run differs from the committed result beyond "
                                      "its stated tolerance; re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    ours, theirs = reduced_run.document["settings"], reduced_run.committed["settings"]
    ideal = learning_curves.ideal_problems(ours["ideal_hyperparameters"],
                                   theirs["ideal_hyperparameters"])
    assert not ideal, "ideal hyper-parameters differ:\n" + "\n".join(ideal)
    problems = common.settings_problems(ours, theirs,
                                        RUN_SIZE_SETTINGS | {"ideal_hyperparameters"})
    assert not problems, "\n".join(problems)
    assert theirs["realisations"] == list(learning_curves.REALISATIONS)


def test_committed_summary_and_verdicts_come_from_its_own_values():
    committed = load_result(learning_curves.NAME)
    recomputed = common.to_json(learning_curves.summarise(committed["result"]["per_realisation"]))
    problems = common.compare_runs(recomputed, committed["result"]["summary"],
                                   tol=1e-12, rtol=1e-12)
    assert not problems, "\n".join(problems[:20])
    verdicts = committed["result"]["summary"]["verdicts"]
    for nu in learning_curves.NOISE_LEVELS:
        for claim in ("CBR Ideal beats BR Noise", "CBR Ideal learns like BR NoiseFree",
                      "learning nu is only slightly worse than knowing it"):
            verdict = verdicts[f"nu={nu}: {claim}"]
            assert verdict.split(" (")[0] in ("holds", "partly", "does not hold"), verdict


def test_source_claims_stand_beside_ours_and_the_figure_exists():
    committed = load_result(learning_curves.NAME)
    assert committed["source"]["numbers"] is None  # the paper's curves survive as text only
    assert len(committed["source"]["claims"]) >= 2
    assert "CBR Noise" in committed["differences"]
    assert committed["settings"]["conditions"].keys() >= {"BR_noise", "CBR_ideal", "CBR_noise"}
    assert (RESULTS_DIR / f"{learning_curves.NAME}.png").stat().st_size > 10_000


def test_test_pairs_leave_out_exact_ties_and_score_the_truth_perfectly():
    _, midpoints = learning_curves.inputs()
    a, b, sign = learning_curves.test_pairs(midpoints)
    truth = negated_griewank(midpoints)
    assert np.all(sign == np.sign(truth[a] - truth[b])) and np.all(sign != 0)
    # mirror pairs (x, -x) are exact ties of the even function and are the ones left out
    n = midpoints.shape[0]
    assert a.size == n * (n - 1) // 2 - n // 2


def test_same_answers_feed_both_models():
    X, _ = learning_curves.inputs()
    first, second = learning_curves.random_pairs(50, common.task_rng(0, "pairs"))
    assert np.all(first != second)
    data = learning_curves.answers(X, first, second, 10, common.task_rng(0, "answers/nu=10"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        beta = learning_curves.training_data("CBR_ideal", data, X, first, second, 50)
        probit = learning_curves.training_data("BR_noise", data, X, first, second, 50)
    np.testing.assert_array_equal(probit.y, (beta.y > 0.5).astype(float))
    np.testing.assert_array_equal(beta.first, probit.first)
    np.testing.assert_array_equal(beta.second, probit.second)
