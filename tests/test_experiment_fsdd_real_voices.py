"""Real voices (experiments/fsdd_real_voices.py): the committed result stays true to the code,
keeps its speakers apart, and is what the README and its page (experiments/fsdd_real_voices.md)
state.

The reduced run repeats every recogniser for one held-out speaker on ten takes of each digit
(and one inner fold of the nested choice) and compares the predictions item by item with the
committed ones (the script's TOLERANCE: fits on other BLAS kernels may tip a near-tie item). A
failure after a library change means the result is stale: re-run
``python -m experiments.fsdd_real_voices`` from a clean tree and commit it.
"""

from __future__ import annotations

import numpy as np

from course_lib.data.fsdd import SPEAKERS
from course_lib.results import load_result
from experiments import common
from experiments import fsdd_real_voices as experiment

README = common.REPOSITORY / "README.md"


def test_reduced_run_reproduces_the_committed_predictions():
    run = common.reduced_against_committed(experiment)
    assert not run.problems, ("the reduced re-run differs from the committed result beyond its "
                              "tolerance; re-run the full experiment:\n"
                              + "\n".join(run.problems[:20]))


def test_the_committed_settings_are_the_scripts():
    committed = load_result(experiment.NAME)
    problems = common.settings_problems(experiment._settings(False), committed["settings"])
    assert not problems, problems
    assert committed["environment"]["uncommitted_changes"] is False


def test_no_test_speaker_trained_or_chose_anything():
    result = load_result(experiment.NAME)["result"]
    for speaker, choice in result["gmm_choices"].items():
        assert speaker not in choice["inner_speakers"]
        assert sorted(choice["inner_speakers"]) == sorted(set(SPEAKERS) - {speaker})
        assert list(choice["best"]) in [list(g) for g in experiment.GMM_GRID]
        assert choice["best"] == list(experiment.GMM_GRID[int(np.argmax(
            np.mean(choice["inner_accuracy"], axis=1)))])


def test_every_accuracy_is_its_counts_and_every_recording_is_tested():
    result = load_result(experiment.NAME)["result"]
    rows = [*result["synthetic_to_real"], *result["leave_one_speaker_out"]]
    digits = np.asarray(result["items"]["digit"])
    speakers = np.asarray(result["items"]["speaker"])
    for row in rows:
        predictions = np.asarray(row["predictions"])
        assert len(predictions) == 3000
        assert row["pooled"]["correct"] == int(np.sum(predictions == digits))
        for speaker, entry in row["per_speaker"].items():
            mine = speakers == speaker
            assert (entry["correct"], entry["total"]) == \
                (int(np.sum(predictions[mine] == digits[mine])), 500)
        assert np.trace(row["confusion"]) == row["pooled"]["correct"]
    dependent = result["speaker_dependent"]
    assert dependent["pooled"]["total"] == 6 * 10 * (50 - experiment.TEMPLATES_PER_DIGIT)


def test_the_readmes_state_the_committed_numbers():
    committed = load_result(experiment.NAME)
    assert common.readme_table(experiment.NAME) == experiment.format_table(committed)
    text = " ".join(README.read_text(encoding="utf-8").split())   # lines wrap anywhere
    best = committed["result"]["leave_one_speaker_out"][3]["pooled"]
    synthetic = committed["result"]["synthetic_to_real"]
    assert f"{best['correct']:,} of {best['total']:,}" in text
    low = min(row["pooled"]["rate"] for row in synthetic)
    high = max(row["pooled"]["rate"] for row in synthetic)
    assert f"{low:.2f}-{high:.2f}" in text
