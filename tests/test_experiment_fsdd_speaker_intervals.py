"""Real voices by the speaker (experiments/fsdd_speaker_intervals.py): the committed intervals
over speakers and paired comparisons are what the committed predictions give, the interval the
lectures state held its level in simulation, and the reduced run agrees with the full one.

A failure of the reduced run after a library change means the result is stale: re-run
``python -m experiments.fsdd_speaker_intervals`` from a clean tree and commit it."""

from __future__ import annotations

import numpy as np

from course_lib.recognition import RECOGNISERS
from course_lib.results import load_result
from experiments import common
from experiments import fsdd_speaker_intervals as experiment


def test_reduced_run_agrees_with_the_committed_result():
    common.check_reduced_run(experiment)


def test_the_committed_settings_are_the_scripts():
    common.check_committed_settings(experiment)


def test_every_row_has_its_interval_over_speakers_and_it_is_wider():
    rows = load_result(experiment.NAME)["result"]["intervals"]
    assert [row["name"] for row in rows] == list(RECOGNISERS)
    for row in rows:
        low, high = row["interval_over_speakers"]
        takes_low, takes_high = row["interval_over_takes"]
        assert low <= takes_low and takes_high <= high and row["width_ratio"] > 4


def test_the_stated_interval_held_its_level_where_the_truth_is_known():
    coverage = load_result(experiment.NAME)["result"]["coverage"]
    for kind in ("synthetic_speakers", "fsdd_like"):
        for entry in coverage[kind].values():
            found = entry["coverage"]
            assert found["t over speakers"]["draws"] == experiment.DRAWS
            # the bar: at least 0.85 for a stated 95%
            assert found["t over speakers"]["coverage"] >= 0.85
    # the interval over takes does not answer the question about a new speaker
    assert all(entry["coverage"]["exact over takes"]["coverage"] < 0.5
               for entry in coverage["fsdd_like"].values())


def test_more_data_is_redrawn_over_all_six_folds():
    more = load_result(experiment.NAME)["result"]["more_data"]
    assert sorted(more["predictions"]) == sorted(load_result(experiment.REAL_VOICES)["result"]
                                                 ["speakers"])
    assert len(more["differences"]) == 6


def test_the_readmes_state_the_committed_interval_over_speakers():
    committed = load_result(experiment.NAME)
    assert common.readme_table(experiment.NAME) == experiment.format_table(committed)
    text = " ".join((common.REPOSITORY / "README.md").read_text(encoding="utf-8").split())
    best = next(row for row in committed["result"]["intervals"]
                if row["name"] == "real GMM, chosen")
    low, high = best["interval_over_speakers"]
    assert f"95% over speakers {low:.2f}-{high:.2f}" in text
    held = committed["result"]["coverage"]["fsdd_like"]["real GMM, chosen"]["coverage"]
    assert f"held the truth in {round(100 * held['t over speakers']['coverage'])}%" in text
    assert "adult men" in text
