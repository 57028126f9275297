"""How far the personalisation explorer's "settled" holds
(experiments/personalise_explorer_settling.py) stays true to its code.

The reduced run (ten listeners per band count, 40 answers each: about 10 CPU-s) is re-run and
compared with the committed full result listener by listener, within the spread of the band
count's listeners (a flipped near-tie on another BLAS sends a session down another branch;
REPLICATE_REASON); the settings must be the script's, the rule measured the explorer's rule
today, the summary that of the committed listeners and the README's table the committed one.
"""

from __future__ import annotations

import pytest

from course_lib.results import load_result
from course_lib.simulators.personalisation import PersonalisationSession
from experiments import common
from experiments import personalise_explorer_settling as experiment


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(experiment)


@pytest.fixture(scope="module")
def committed():
    return load_result(experiment.NAME)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    listeners = reduced_run.document["result"]["listeners"]
    assert [(row["n_bands"], row["listener"]) for row in listeners] == [
        (n, i) for n in experiment.BANDS for i in range(experiment.N_REDUCED)]
    assert not reduced_run.problems, ("the reduced run differs from the committed result; "
                                      "re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    assert not common.settings_problems(reduced_run.document["settings"],
                                        reduced_run.committed["settings"],
                                        run_size_settings=("listeners_per_band_count",))


@pytest.mark.parametrize("n_bands", experiment.BANDS)
def test_the_rule_measured_is_the_explorers_rule_today(committed, n_bands):
    """A change of the explorer's grid, random start, smoothing or threshold makes the quoted
    rates another rule's: re-run the experiment."""
    rule = PersonalisationSession(n_bands, rng=0).settling_rule
    assert committed["settings"]["rules"][str(n_bands)] == common.to_json(rule)
    assert rule["n_random"] == 4 and rule["smoothing_window"] == 4
    assert rule["gain_range"] == [-12.0, 12.0]


def test_the_summary_is_that_of_the_committed_listeners(committed):
    listeners = committed["result"]["listeners"]
    assert [(row["n_bands"], row["listener"]) for row in listeners] == [
        (n, i) for n in experiment.BANDS for i in range(experiment.N_LISTENERS)]
    problems = common.compare_runs(common.to_json(experiment.summarise(listeners)),
                                   committed["result"]["summary"], tol=1e-12, rtol=1e-12)
    assert not problems, "\n".join(problems[:20])
    assert committed["environment"]["uncommitted_changes"] is False


def test_the_quoted_rates_are_within_five_points(committed):
    """The brief's precision: every quoted share's exact 95% interval within +-5 points."""
    by = str(committed["settings"]["settled_by"])
    for group in committed["result"]["summary"].values():
        for kind in ("ei_settled", "incumbent_settled"):
            share = group[kind]["share_by"][by]
            low, high = group[kind]["interval_by"][by]
            assert low <= share <= high and high - low <= 0.10 + 1e-9


def test_the_readme_table_is_the_committed_one(committed):
    assert common.readme_table(experiment.NAME) == experiment.format_table(committed)
