"""The decoder-inputs experiment (experiments/panel_decoder_inputs.py) stays true to its code.

The reduced run refits fold 0 of every feature set at its committed hyper-parameters from the
committed data files (no corpus audio, no optimiser) and must agree with the committed full run
within the script's tolerance (that of experiments/pronunciation_panel.py: the same arithmetic
after the optimiser). The committed decision must follow from the committed table by the rule
fixed before the run, and the baseline's folds must be the panel's own cross-validation. A
failure after a library or data change means the result is stale: re-run
``python -m experiments.panel_decoder_inputs`` from a clean tree and commit its result.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from course_lib.results import load_result
from experiments import common
from experiments import panel_decoder_inputs as experiment


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(experiment)


@pytest.fixture(scope="module")
def committed():
    return load_result(experiment.NAME)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    assert set(reduced_run.document["result"]["folds_by_set"]) == set(experiment.FEATURE_SETS)
    assert not reduced_run.problems, ("the reduced run differs from the committed result beyond "
                                      "its tolerance; re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_the_comparison_can_fail(reduced_run):
    result = reduced_run.document["result"]
    rows = result["folds_by_set"][experiment.DECIDING_SET]
    # a PCC moved by 1e-4, far beyond the tolerance's 1e-8 + 1e-6 x 0.7
    changed = {**result, "folds_by_set": {**result["folds_by_set"], experiment.DECIDING_SET: [
        {**rows[0], "pcc": rows[0]["pcc"] + 1e-4}]}}
    problems = experiment.compare_with_committed(changed, reduced_run.committed["result"])
    assert problems and "pcc" in problems[0]


def test_committed_settings_are_the_scripts(reduced_run, committed):
    assert not common.settings_problems(reduced_run.document["settings"], committed["settings"])
    for key in ("name", "title", "command", "created", "run_time_seconds", "cpu_time_seconds",
                "settings", "environment", "result", "source", "differences"):
        assert key in committed, key


def test_the_decision_follows_the_stated_rule(committed):
    comparison = committed["result"]["comparison"]
    table = comparison["table"]
    assert list(table) == list(experiment.FEATURE_SETS)
    for name, row in table.items():
        if name == experiment.BASELINE:
            continue
        # the gains are differences of the table's own numbers (to rounding of a subtraction)
        assert row["pcc_gain"] == pytest.approx(row["pcc"] - table["gop"]["pcc"], abs=1e-12)
        assert row["rmse_change"] == pytest.approx(row["rmse"] - table["gop"]["rmse"],
                                                   abs=1e-12)
        low, high = row["pcc_gain_interval"]
        assert low < high
    deciding = table[experiment.DECIDING_SET]
    expected = deciding["pcc_gain_interval"][0] > 0 and deciding["rmse_change"] < 0
    assert comparison["decision"] == {"set": experiment.DECIDING_SET,
                                      "recommend_as_panel_inputs": expected,
                                      "rule": experiment.RULE}
    assert (comparison["n_sentences"], comparison["n_speakers"]) == (2500, 125)


def test_the_baseline_was_the_panels_own_cross_validation_and_the_deciding_set_is_now(committed):
    """When this ran, its GOP-alone folds were experiments/pronunciation_panel.py's: same folds,
    data, whitening, starts and restarts, so the same optima. L-BFGS-B stops on a relative
    change of about 2e-9 in an evidence of 1.6e4 nats, so two runs of one fit may stop a few
    1e-5 nats apart, which moves a held-out mean log score (about -1.7) by far less than 1e-4.
    The panel has since moved to the deciding set's inputs (the rule recommended them), so its
    own cross-validation of this model now repeats the deciding set's folds in the same way."""
    baseline = committed["result"]["baseline_against_panel_cv"]
    np.testing.assert_allclose(baseline["ours"], baseline["panel_held_out_log_scores"],
                               atol=1e-4)
    panel = load_result(experiment.PANEL_EXPERIMENT)["result"]
    assert committed["result"]["folds"] == panel["folds"]
    model = committed["result"]["model"]
    np.testing.assert_allclose(
        [row["held_out_log_score"]
         for row in committed["result"]["folds_by_set"][experiment.DECIDING_SET]],
        [row["held_out_log_score"] for row in panel["cross_validation"]["folds"][model]],
        atol=1e-4)


def test_speaker_resamplings_keep_a_speakers_sentences_together():
    speakers = np.array(["a", "a", "b", "c", "c", "c"])
    weights = experiment.speaker_resamplings(speakers)
    assert weights.shape == (experiment.N_BOOTSTRAP, 6)
    # a speaker drawn k times brings each of its sentences k times; 3 speakers drawn each time
    assert np.all(weights[:, 0] == weights[:, 1]) and np.all(weights[:, 3] == weights[:, 5])
    assert np.all(weights[:, [0, 2, 3]].sum(axis=1) == 3)


def test_the_weighted_pcc_is_numpys_on_the_repeated_sentences():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=7), rng.normal(size=7)
    counts = np.array([[1, 0, 2, 1, 3, 0, 1]], dtype=float)
    repeated = np.repeat(np.arange(7), counts[0].astype(int))
    # the same sums in another order: equal to a few ulps of a number near 1
    assert experiment._weighted_pcc(counts, x, y)[0] == pytest.approx(
        np.corrcoef(x[repeated], y[repeated])[0, 1], abs=1e-12)
    assert experiment._weighted_rmse(counts, x, y)[0] == pytest.approx(
        np.sqrt(np.mean((x[repeated] - y[repeated]) ** 2)), abs=1e-12)


def test_lecture_08_states_the_committed_gain(committed):
    """Section 4 says why the panel reads the decoder's numbers, in this result's numbers."""
    notebook = json.loads((Path(__file__).resolve().parents[1] / "lectures" /
                           "08_pronunciation.ipynb").read_text(encoding="utf-8"))
    text = " ".join("".join(next(cell["source"] for cell in notebook["cells"]
                                 if cell.get("id") == "u8-panel")).split())
    table = committed["result"]["comparison"]["table"]
    base, deciding = table[experiment.BASELINE], table[experiment.DECIDING_SET]
    low, high = deciding["pcc_gain_interval"]

    stated = (f"rose from {base['pcc']:.3f} to {deciding['pcc']:.3f} (95% interval of the gain "
              f"over resampled speakers, {low:+.3f} to {high:+.3f}) and the RMSE fell by "
              f"{-deciding['rmse_change']:.3f} points").replace("0.", ".")
    assert stated in text, stated
