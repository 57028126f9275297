"""Unit 7's preference + confidence experiments (E7.3 Wu et al.'s synthetic Likert study, E7.4 the
haptic study and E7.5 the robot-gait study on simulated subjects) stay true to their code.

Each reduced run (a few seeds / splits / sizes of the full run) is re-run and compared value by
value with the committed full result within the script's tolerance; the committed summaries and
verdicts must be those of its own per-run values, the settings the script's, the README's table
the committed one, and the paper's set-up numbers and claims must stand beside ours. A failure
after a library change means a result is stale: re-run ``python -m experiments.<name>`` and
commit its result file (and figure).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr

from course_lib.results import RESULTS_DIR, load_result
from experiments import common
from experiments import wu2025_gait_like as gait
from experiments import wu2025_haptic_like as haptic
from experiments import wu2025_likert_synthetic as synthetic

MODULES = {"synthetic": synthetic, "haptic": haptic, "gait": gait}
# settings that differ between a reduced and a full run by design
RUN_SIZE_SETTINGS = {"reduced", "reduced_seeds", "reduced_selection"}


@pytest.fixture(scope="module", params=list(MODULES))
def reduced_run(request):
    module = MODULES[request.param]
    return module, common.reduced_against_committed(module)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    module, run = reduced_run
    assert not run.problems, ("the reduced run differs from the committed result beyond its "
                              "stated tolerance; re-run `python -m experiments."
                              f"{module.NAME}`:\n" + "\n".join(run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    _, run = reduced_run
    problems = common.settings_problems(run.document["settings"], run.committed["settings"],
                                        RUN_SIZE_SETTINGS)
    assert not problems, "\n".join(problems)
    assert run.committed["settings"]["reduced"] is False


@pytest.mark.parametrize("module", list(MODULES.values()), ids=list(MODULES))
def test_summary_claims_and_table_come_from_the_committed_values(module):
    committed = load_result(module.NAME)
    result = committed["result"]
    per_run = result["per_seed"] if module is synthetic else result["per_split"]
    summary = common.to_json(module.summarise(per_run))
    problems = common.compare_runs(summary, result["summary"], tol=1e-12, rtol=1e-12)
    assert not problems, "\n".join(problems[:20])
    assert common.to_json(module.claims(result["summary"])) == result["claims"]
    for claim in result["claims"]:
        assert claim["holds"] in ("holds", "partly", "does not hold", "no clear difference")
    assert common.readme_table(module.NAME) == module.format_table(committed)


def test_haptic_set_up_numbers_stand_beside_ours():
    committed = load_result(haptic.NAME)
    numbers = committed["source"]["numbers"]
    assert numbers["subject_2_ratings"] == {"nines": 0.48, "at_least_7": 0.84, "below_3": 0.0}
    assert "private" in committed["differences"]
    # the printed marginals hold in the simulated subject #2 the run used
    counts = committed["result"]["subjects"]["#2"]["rating_counts"]    # ratings 1 .. 9
    assert counts[8] == 24 and sum(counts[6:]) == 42 and sum(counts[:2]) == 0


def test_gait_set_up_numbers_stand_beside_ours():
    committed = load_result(gait.NAME)
    assert committed["source"]["numbers"]["confidence_counts"] == [218, 176, 78]
    assert "private" in committed["differences"]
    # the printed confidence counts hold in the simulated subject the run used
    assert committed["result"]["subject"]["level_counts"] == [218, 176, 78]


def test_the_figure_exists():
    assert (RESULTS_DIR / f"{synthetic.NAME}.png").stat().st_size > 10_000


def test_every_split_trains_and_tests_on_disjoint_trials_that_cover_the_subject():
    for subject in (1, 2):
        order = haptic.split_order(subject, 0)
        np.testing.assert_array_equal(np.sort(order), np.arange(haptic.N_PAIRS))
    # nested training sets: the n = 10 trials are the first of the n = 20 ones
    order = haptic.split_order(3, 1)
    assert set(order[:10]) < set(order[:20]) and not set(order[:20]) & set(order[20:])


def test_map_errors_of_the_truth_are_zero_and_regions_split_the_grid():
    x1, x2 = synthetic.grid()
    errors = synthetic.map_errors(ndtr(x1 - x2), x1, x2)
    assert errors["mae"] == 0 and errors["max_error"] == 0
    # a map that says 1/2 everywhere is under-confident in the corners
    flat = synthetic.map_errors(np.full(x1.size, 0.5), x1, x2)
    assert flat["confidence_error_corners"] < -0.4 and flat["max_error_region"] == "corner"


def test_synthetic_arms_learn_or_fix_the_cut_points_as_labelled():
    committed = load_result(synthetic.NAME)
    assert committed["settings"]["arms"]["mixed_fixed_cuts"].endswith("fixed at (0, 1, 2)")
    for entry in committed["result"]["per_seed"]:
        assert "cut_points" not in entry["mixed_fixed_cuts"]
        cuts = np.array(entry["mixed"]["cut_points"])
        # learned: ordered from 0, every gap within the Likert likelihood's bound of 2
        assert cuts[0] == 0 and np.all(np.diff(cuts) > 0) and np.all(np.diff(cuts) <= 2)
    # the learned arm differs from the fixed one: the cut points moved somewhere
    assert any(np.max(np.abs(np.array(e["mixed"]["cut_points"]) - [0, 1, 2])) > 0.05
               for e in committed["result"]["per_seed"])
