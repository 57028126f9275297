"""Word and phone scores on speechocean762 (experiments/word_phone_feedback.py) stay true to code.

The reduced run (the subset block: both sparse GPs fitted on 400 training sentences, measured on
every test phone and word) is re-run and compared with the committed full result on what is
stable (the script's compare_with_committed); the settings must be the script's, the README's
table and claims the committed numbers, GOPT's numbers must stand beside ours, and the model
``course_lib.pronunciation.word_scores.WordScoreModel()`` loads must be the one the full run
measured. A failure after a library change means the result is stale: re-run
``python -m experiments.word_phone_feedback`` and commit its result and table.
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.data.speechocean762 import load_speechocean762
from course_lib.pronunciation.word_scores import _PHONE_INPUTS, WordScoreModel
from course_lib.results import load_result
from experiments import common
from experiments import word_phone_feedback as experiment


@pytest.fixture(scope="module")
def reduced_run():
    """The reduced run: loading the corpus's judgements and every phone takes most of its
    10-20 s; the fit on 400 sentences a few seconds."""
    return common.reduced_against_committed(experiment)


@pytest.fixture(scope="module")
def committed():
    return load_result(experiment.NAME)


def test_reduced_run_reproduces_the_committed_subset_block(reduced_run):
    assert set(reduced_run.document["result"]) == {"subset"}
    assert not reduced_run.problems, ("the reduced run differs from the committed result beyond "
                                      "its tolerances; re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    assert not common.settings_problems(reduced_run.document["settings"],
                                        reduced_run.committed["settings"])


def test_readme_table_is_the_committed_result(committed):
    assert common.readme_table(experiment.NAME) == experiment.format_table(committed)


def test_gopts_numbers_stand_beside_ours_with_the_gap(committed):
    assert committed["source"] == common.to_json(experiment.SOURCE)
    full = committed["result"]["full"]
    assert full["gap_to_source"]["phone_pcc"] == pytest.approx(
        full["phone_pcc"] - experiment.SOURCE["phone_pcc"], abs=1e-12)
    assert full["gap_to_source"]["word_pcc"] == pytest.approx(
        full["word_pcc"] - experiment.SOURCE["word_accuracy_pcc"], abs=1e-12)


def test_the_verdicts_follow_from_the_committed_intervals(committed):
    result = committed["result"]
    for level in ("phone", "word"):
        test = result["full"]["against_baseline"][level]
        assert test["pcc_ours"] == result["full"][f"{level}_pcc"]
        low, high = test["interval_95"]
        assert low <= test["difference"] <= high
        assert test["n_speakers"] == 125
    cv = result["sentence_cv"]
    assert cv["rule"] == experiment.LIFT_RULE
    assert cv["lifts"] == (cv["KL_difference"]["interval_95"][1] < 0
                           and cv["PCC_difference"]["interval_95"][0] > 0)


def test_the_live_model_is_the_measured_one(committed):
    """WordScoreModel() reads the committed state: its test-phone and test-word PCC are the
    committed ones (the same arithmetic on the same numbers, so equal to round-off of a sum of
    some 45,000 products, far below the 1e-9 allowed)."""
    panel = load_speechocean762("accuracy", "gop")
    sentences, _ = experiment.labelled_sentences(panel)
    test = [int(i) for i in panel.test if i in sentences]
    metrics, _ = experiment.measured(WordScoreModel(), sentences, test)
    full = committed["result"]["full"]
    assert metrics["phone_pcc"] == pytest.approx(full["phone_pcc"], abs=1e-9)
    assert metrics["word_pcc"] == pytest.approx(full["word_pcc"], abs=1e-9)
    assert metrics["mispronounced"]["n_flagged"] == full["mispronounced"]["n_flagged"]


def _prose() -> str:
    section = (common.REPOSITORY / "experiments" / f"{experiment.NAME}.md").read_text(
        encoding="utf-8")
    return " ".join(section.split("<!-- /table -->", 1)[1].split())


def test_the_readmes_claims_are_the_committed_numbers(committed):
    result, prose = committed["result"], _prose()
    full, alignment, base = result["full"], result["alignment"], result["full"]["baseline"]

    def short(value: float, digits: int = 3) -> str:       # .438, as the prose writes it
        return f"{value:.{digits}f}".removeprefix("0")

    paired = alignment["same"] + alignment["different"]
    assert f"{paired:,} pair with a canonical phone" in prose
    assert f"{alignment['different'] / paired:.1%} of the paired phones" in prose
    assert f"{alignment['ours_alone']:,} of ours have no partner" in prose
    assert f"{alignment['canonical_alone']:,} canonical phones" in prose
    assert f"On the {full['n_test_phones']:,} scored test phones, phone PCC " \
           f"{full['phone_pcc']:.3f}; on the {full['n_test_words']:,} test words, word PCC " \
           f"{full['word_pcc']:.3f}" in prose
    gap = full["gap_to_source"]
    assert f"{-gap['phone_pcc']:.2f} below GOPT's phone PCC" in prose
    assert f"{-gap['word_pcc']:.3f} below its word accuracy PCC" in prose
    flagged = full["mispronounced"]
    rate = flagged["n_mispronounced"] / full["n_test_phones"]
    assert f"{rate:.1%} of the test phones are mispronounced" in prose
    assert (f"below {full['threshold']:.2f} finds half of them (recall "
            f"{short(flagged['recall'])}) at a precision of {short(flagged['precision'])}, six "
            "times the base rate") in prose
    assert 0.45 <= flagged["recall"] < 0.55 and 6 <= flagged["precision"] / rate < 7
    assert f"threshold reaches precision {short(base['mispronounced']['precision'])}" in prose
    assert (f"(phone PCC {short(base['phone_pcc'])}, word PCC {short(base['word_pcc'])})"
            in prose)
    tests = full["against_baseline"]
    assert (f"higher by {short(tests['phone']['difference'], 2)} (phones) and "
            f"{short(tests['word']['difference'], 2)} (words)") in prose
    assert all(tests[level]["p_value"] <= 1 / committed["settings"]["n_bootstrap"]
               for level in ("phone", "word")), "the prose says no resample reaches zero"
    lengths = result["model"]["phones"]["lengthscales"]
    assert _PHONE_INPUTS[int(np.argmin(lengths))] == "sentence_gop"
    assert _PHONE_INPUTS[int(np.argmax(lengths))] == "heard_share"
    cv = result["sentence_cv"]["models"]
    assert (f"PCC {short(cv['gop']['PCC'])} to {short(cv['gop+pooled']['PCC'])} and KL "
            f"{short(cv['gop']['KL'])} to {short(cv['gop+pooled']['KL'])}") in prose
    assert not result["sentence_cv"]["lifts"] and "do not lift GP_base" in prose
