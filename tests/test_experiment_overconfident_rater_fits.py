"""The over-confident rater's table of fits (experiments/overconfident_rater_fits.py) stays true
to the code and to lecture 07.

The reduced run refits the slider's starting value without the table and must agree with it
within the script's tolerance; the committed table must be the one lecture 07's explorer
accepts (same fingerprint) and hold a fit for every position of its noise slider at the
subject's own histogram, so that no slider move fits anything. A failure after a library change
means the table is stale: re-run ``python -m experiments.overconfident_rater_fits`` from a clean
tree and commit its result.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from course_lib.results import load_result
from course_lib.simulators import rating_noise
from experiments import common
from experiments import overconfident_rater_fits as experiment


def test_reduced_run_reproduces_the_committed_table():
    run = common.reduced_against_committed(experiment)
    assert not run.problems, ("the refitted slider start differs from the committed table beyond "
                              "its tolerance; re-run the full experiment:\n"
                              + "\n".join(run.problems[:20]))


def test_the_lecture_explorer_finds_every_slider_position_in_the_table(monkeypatch):
    table = load_result(experiment.NAME)["result"]["table"]
    monkeypatch.setattr(rating_noise, "preference_scores", lambda *args, **kwargs: pytest.fail(
        "a slider position is missing from the committed table (a fit was computed)"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # a fingerprint that differs warns
        study = experiment.study(fitted=table)
    counts = np.bincount(study.trials.levels.astype(int), minlength=3)
    for exponent in experiment.EXPONENTS:
        assert study.with_ratings(study.levels(counts, 10.0 ** exponent)).shape == (4, 2)


def test_lecture_07_passes_the_committed_table_to_its_explorer():
    cells = json.loads(open(common.REPOSITORY / "lectures" / "07_mixed_feedback.ipynb").read())
    sources = ["".join(cell["source"]) for cell in cells["cells"] if cell["cell_type"] == "code"]
    explorer = [source for source in sources if "rater_explorer(" in source]
    assert explorer and f'load_result("{experiment.NAME}")' in explorer[0]
    settings = load_result(experiment.NAME)["settings"]
    assert f"SEED = {settings['seed']}" in "".join(sources)
