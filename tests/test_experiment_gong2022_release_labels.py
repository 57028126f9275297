"""The word model beside GOPT on the release's labels (experiments/gong2022_release_labels.py)
stays true to its code.

The reduced run (the first ten test speakers' items, no resampling) is re-run and compared with
the committed result within the script's tolerance; the settings must be the script's, the
page's table the committed one, the predictions the committed word model's (the mean label
gives word_phone_feedback's word PCC) and every claim of its page
(experiments/gong2022_release_labels.md) the committed numbers. A failure after a library or
data change means the result is stale: re-run
``python -m experiments.gong2022_release_labels`` from a clean tree and commit its result.
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.results import load_result
from experiments import common
from experiments import gong2022_release_labels as experiment


@pytest.fixture(scope="module")
def reduced_run():
    """Loading the corpus's judgements and every phone takes most of its 20-40 s."""
    return common.reduced_against_committed(experiment)


@pytest.fixture(scope="module")
def committed():
    return load_result(experiment.NAME)


def test_reduced_run_reproduces_the_committed_subset_block(reduced_run):
    assert set(reduced_run.document["result"]) == {"subset"}
    assert not reduced_run.problems, ("the reduced run differs from the committed result beyond "
                                      "its tolerance; re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_the_comparison_can_fail(reduced_run):
    subset = reduced_run.document["result"]["subset"]
    moved = {**subset, "word_accuracy_median": subset["word_accuracy_median"] + 1e-6}
    assert common.compare_runs(moved, reduced_run.committed["result"]["subset"],
                               tol=experiment.TOLERANCE)


def test_committed_settings_are_the_scripts(reduced_run, committed):
    assert not common.settings_problems(reduced_run.document["settings"], committed["settings"])
    assert committed["source"] == common.to_json(experiment.SOURCE)


def test_the_predictions_are_the_committed_word_models(committed):
    """On the experts' mean, the label word_phone_feedback scored, the rescored predictions give
    its committed word and phone PCC: nothing was refitted."""
    full, feedback = committed["result"]["full"], load_result("word_phone_feedback")
    ours = feedback["result"]["full"]
    # the same predictions in the same order: equal but for summation order
    assert full["word_accuracy_mean"]["pcc"] == pytest.approx(ours["word_pcc"], abs=1e-12)
    assert full["phone_mean"]["pcc"] == pytest.approx(ours["phone_pcc"], abs=1e-12)
    assert (full["n_words"], full["n_phones"]) == (ours["n_test_words"], ours["n_test_phones"])
    # the mean label's interval is the committed word model's own uncertainty
    assert full["word_accuracy_mean"]["interval_95"][0] < ours["word_pcc"] < \
        full["word_accuracy_mean"]["interval_95"][1]


def test_the_differences_follow_from_the_rows(committed):
    full = committed["result"]["full"]
    for name, column in experiment.GOPT_COLUMN.items():
        row = full[name]
        assert row["gopt"] == experiment.SOURCE[column]
        assert row["minus_gopt"] == pytest.approx(row["pcc"] - row["gopt"], abs=1e-12)
        assert np.allclose(row["minus_gopt_interval_95"],
                           np.subtract(row["interval_95"], row["gopt"]), rtol=0, atol=1e-12)
    change = full["median_minus_mean"]
    assert change["difference"] == pytest.approx(
        full["word_accuracy_median"]["pcc"] - full["word_accuracy_mean"]["pcc"], abs=1e-12)


def test_readme_table_and_claims_are_the_committed_result(committed):
    """The README's section says the word model is below GOPT on the release's labels and that
    the median label alone lowers its r: each interval lies below zero."""
    assert common.readme_table(experiment.NAME) == experiment.format_table(committed)
    full = committed["result"]["full"]
    for name in experiment.GOPT_COLUMN:
        assert full[name]["minus_gopt_interval_95"][1] < 0, name
    assert full["median_minus_mean"]["interval_95"][1] < 0
    page = (common.REPOSITORY / "experiments" / f"{experiment.NAME}.md").read_text(
        encoding="utf-8")
    section = " ".join(page.split())
    assert "our word model is below GOPT, not level with it" in section
    assert "every interval of the difference lies below zero" in section
    assert "The median label alone lowers our r" in section
    stated = (f'"{full["word_accuracy_mean"]["pcc"]:.3f} against '
              f'{full["word_accuracy_median"]["gopt"]:.3f}" compares two targets')
    stated = stated.replace("0.", ".")
    assert stated in section, stated
