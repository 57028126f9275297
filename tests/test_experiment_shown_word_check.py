"""The word and phone checks' measured rates (experiments/shown_word_check.py) stay true to
their code.

The reduced run re-scores the first held-out cells as the panel shows them and decodes the
first tuning cells, and must agree with the committed full run; the committed rates must be
the counts of its own per-reading flags, measured with the rule the panel applies. A failure
after a change of the scorer, the panel's word rule or the decoder means the rates every output
states are stale: re-run ``python -m experiments.shown_word_check`` from a clean tree.
"""

from __future__ import annotations

import pytest

from course_lib.results import load_result
from experiments import common
from experiments import misread_readings
from experiments import shown_word_check as experiment

COMMITTED = load_result(experiment.NAME)


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(experiment)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    assert not reduced_run.problems, ("the reduced run differs from the committed result; "
                                      "re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))
    assert reduced_run.document["result"]["block"]["held_out"], "the block scored no reading"


def test_committed_settings_are_the_scripts(reduced_run):
    assert not common.settings_problems(reduced_run.document["settings"],
                                        reduced_run.committed["settings"])


def test_the_committed_rates_count_the_committed_flags():
    """Recount every held-out share from the per-reading flags the full run kept."""
    result = COMMITTED["result"]
    manifest = misread_readings._tool().load_readings_manifest()
    held_out = [r for r in manifest["readings"] if r["half"] == "held_out"]
    scored = {entry["file"]: entry for entry in result["held_out_scored"]}
    assert set(scored) == {r["file"] for r in held_out}
    rates = experiment.reading_rates(held_out, [scored[r["file"]] for r in held_out])
    assert rates["word_check"] == result["word_check"]["held_out_readings"]
    assert rates["phone_check"] == result["phone_check"]["held_out_readings"]
    # named: one of the low words or not heard as written, never anything else
    for entry in result["held_out_scored"]:
        for named, low, unheard, n_phones, n_flagged in entry["words"]:
            assert named == (low or unheard) and 0 <= n_flagged <= n_phones


def test_the_committed_result_came_from_a_clean_tree():
    assert COMMITTED["environment"]["uncommitted_changes"] is False


def test_the_readme_table_is_the_committed_result():
    assert common.readme_table(experiment.NAME) == experiment.format_table(COMMITTED), (
        "experiments/shown_word_check.md shows a stale table; print the committed one with "
        "`python -m experiments.shown_word_check --table`")
