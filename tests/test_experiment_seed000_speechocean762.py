"""Seed 000's Table 1 on speechocean762's real panel stays true to its code.

The reduced run (the subset block's GP_base and GP_joint) is re-run and compared with the
committed full result within the script's tolerance; the settings must be the script's (and
seed000_table1's, since the protocol is shared), the README's table the committed one, and the
seed's numbers must stand beside ours. A failure after a library change means the result is
stale: re-run ``python -m experiments.seed000_speechocean762`` and commit its result and table.
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.results import load_result
from experiments import common
from experiments import seed000_speechocean762 as panel_experiment
from experiments import seed000_table1


@pytest.fixture(scope="module")
def reduced_run():
    return common.reduced_against_committed(panel_experiment)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    assert set(reduced_run.document["result"]["subset"]["models"]) == {"GP_base", "GP_joint"}
    assert not reduced_run.problems, ("the reduced run differs from the committed result beyond "
                                      "its tolerance; re-run the full experiment:\n"
                                      + "\n".join(reduced_run.problems[:20]))


def test_committed_settings_are_the_scripts_and_share_seed000_table1s_protocol(reduced_run):
    theirs = reduced_run.committed["settings"]
    assert not common.settings_problems(reduced_run.document["settings"], theirs)
    shared = ("initial", "lengthscale_bounds", "variance_bounds", "noise_bounds", "n_restarts",
              "models", "kernel")
    fluency = load_result("seed000_table1")["settings"]
    assert {key: theirs[key] for key in shared} == {key: fluency[key] for key in shared}


def test_readme_table_is_the_committed_result():
    assert common.readme_table(panel_experiment.NAME) == panel_experiment.format_table(
        load_result(panel_experiment.NAME))


def test_seed_numbers_stand_beside_ours():
    committed = load_result(panel_experiment.NAME)
    assert committed["source"]["table"] == common.to_json(seed000_table1.SOURCE_TABLE)
    assert committed["source"]["table"]["GP_joint"]["KL"] is None   # missing in the seed
    assert committed["source"]["significance"] == common.to_json(
        seed000_table1.SOURCE_SIGNIFICANCE)


def test_repeat_equals_joint_and_the_joint_model_wins_on_kl():
    result = load_result(panel_experiment.NAME)["result"]
    subset = result["subset"]
    # the same model and objective from the same starts: predictions agree far below the
    # 1/2-point rounding of the metrics
    assert subset["repeat_vs_joint"]["max_abs_mean_difference"] < 1e-3
    assert subset["models"]["GP_repeat"]["KL"] == pytest.approx(
        subset["models"]["GP_joint"]["KL"], abs=1e-3)
    block = result["all_training"]
    assert block["models"]["GP_joint"]["KL"] < block["models"]["GP_base"]["KL"]
    assert block["significance_joint_vs_base"]["KL"]["p_value"] < 0.001
    kl = np.array(block["models"]["GP_joint"]["KL_per_item"])
    assert kl.shape == (2500,) and np.isclose(kl.mean(), block["models"]["GP_joint"]["KL"])
