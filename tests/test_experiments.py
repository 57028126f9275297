"""The committed experiment results stay true to the code: each test re-runs an experiment's
reduced version (a few of its seeds or splits) and compares every value with the committed full
result, checks that the committed summary is the summary of its own per-seed values, that the
settings are the script's, and that the source paper's numbers stand beside ours.

A failure here after a library change means a table in the course is stale: re-run the full
experiment (``python -m experiments.<name>``) and commit its result file.
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from scipy.stats import ttest_rel

from course_lib import data
from course_lib.results import RESULTS_DIR, available_results, load_result
from course_lib.significance import steiger_z1_star
from experiments import common, gilgonzalez2019_table1, gilgonzalez2019_toy, wong2024_table1_fluency
from experiments import gilgonzalez2019_table1_calibrated as table1_calibrated

EXPERIMENTS = {module.NAME: module for module in (gilgonzalez2019_toy, gilgonzalez2019_table1,
                                                  table1_calibrated, wong2024_table1_fluency)}
# settings that differ between a reduced and a full run by design
RUN_SIZE_SETTINGS = {"seeds", "splits"}


@pytest.fixture(scope="module", params=list(EXPERIMENTS))
def reduced_run(request):
    module = EXPERIMENTS[request.param]
    return module, common.reduced_against_committed(module)


def test_reduced_run_reproduces_the_committed_full_run(reduced_run):
    module, run = reduced_run
    assert not run.problems, (f"{module.NAME}: the reduced run differs from the committed "
                              f"result beyond its stated tolerance; re-run `python -m "
                              f"experiments.{module.NAME}` and commit its result:\n"
                              + "\n".join(run.problems[:20]))


def test_committed_settings_are_the_scripts(reduced_run):
    module, run = reduced_run
    problems = common.settings_problems(run.document["settings"], run.committed["settings"],
                                        RUN_SIZE_SETTINGS | {"models_in_reduced_run"})
    assert not problems, f"{module.NAME}:\n" + "\n".join(problems)


def test_readme_tables_are_the_committed_results():
    for name, module in EXPERIMENTS.items():
        assert common.readme_table(name) == module.format_table(load_result(name)), (
            f"experiments/{name}.md shows a stale table for {name}; print the committed one "
            f"with `python -m experiments.{name} --table` (a full run updates it)")


def test_committed_files_have_the_common_layout():
    assert set(EXPERIMENTS) <= set(available_results()), (
        f"missing committed results: {sorted(set(EXPERIMENTS) - set(available_results()))}")
    for name in EXPERIMENTS:
        document = load_result(name)
        for key in ("name", "title", "command", "created", "run_time_seconds",
                    "cpu_time_seconds", "settings", "environment", "result", "source",
                    "differences"):
            assert key in document, f"{name}: no {key!r} in the committed result"
        assert document["name"] == name
        for key in ("python", "numpy", "scipy", "scikit-learn", "course_lib_commit", "cores",
                    "blas"):
            assert document["environment"].get(key) is not None, (
                f"{name}: environment lacks {key!r}")
        assert len(document["differences"]) > 200, f"{name}: says too little about differences"


def test_every_committed_result_comes_from_committed_code_on_a_recorded_machine():
    """A result made with uncommitted edits cannot be traced to code, and one without the BLAS
    kernels and numba target cannot be judged against another machine's numbers."""
    problems = []
    for name in available_results():
        environment = load_result(name)["environment"]
        if environment.get("uncommitted_changes") is not False:
            problems.append(f"{name}: made with uncommitted changes "
                            f"({environment.get('uncommitted_changes')!r})")
        if not environment.get("course_lib_commit"):
            problems.append(f"{name}: no course_lib commit")
        blas = environment.get("blas") or []
        if not blas or any(not entry.get("architecture") for entry in blas):
            problems.append(f"{name}: BLAS architecture not recorded ({blas!r})")
        if not (environment.get("numba_target") or {}).get("cpu_name"):
            problems.append(f"{name}: numba target not recorded")
    assert not problems, ("re-run these experiments from a clean, committed tree "
                          "(`python -m experiments.<name>`) and commit their results:\n"
                          + "\n".join(problems))


# ----- Gil-González et al. (2019) toy ------------------------------------------------------------

def test_toy_summary_is_the_summary_of_its_seeds():
    committed = load_result("gilgonzalez2019_toy")
    per_seed = committed["result"]["per_seed"]
    assert [entry["seed"] for entry in per_seed] == list(range(30))
    recomputed = common.to_json(gilgonzalez2019_toy.summarise(per_seed))
    problems = common.compare_runs(recomputed, committed["result"]["summary"], tol=1e-9, rtol=1e-12)
    assert not problems, "\n".join(problems)


def test_toy_states_its_floor_and_tau_readings():
    settings = load_result("gilgonzalez2019_toy")["settings"]
    assert settings["noise_floor"] == 1e-4
    assert settings["tau"] == [0.25, 0.5, 0.75]
    assert {"homogeneous_tau_variances", "homogeneous_tau_sds", "regions"} == set(
        settings["scenarios"])
    assert "tau as" in settings["figure"] and "standard deviations" in settings["figure"]
    # Lambda as printed in the paper (rows = regions, columns = annotators)
    assert settings["Lambda"] == [[0.0, 0.65, 1.0], [0.25, 0.0, 0.75], [0.1, 0.75, 0.0]]
    assert load_result("gilgonzalez2019_toy")["source"]["numbers"] is None  # a figure only


def test_toy_claims_of_the_readme_hold():
    summary = load_result("gilgonzalez2019_toy")["result"]["summary"]
    mean = {scenario: {model: row["rmse_x100_mean"] for model, row in rows.items()}
            for scenario, rows in summary.items()}
    regions = mean["regions"]
    assert regions["GOLD"] < regions["MANH_kmeans"] < regions["MANH_affinity"] \
        < regions["MA"] < regions["Av"], regions
    assert summary["regions"]["MANH_kmeans"]["n_at_floor_mean"] > 0
    for scenario in ("homogeneous_tau_variances", "homogeneous_tau_sds"):
        row = mean[scenario]
        assert row["MA"] < min(row["MANH_kmeans"], row["MANH_affinity"]) and \
            max(row["MANH_kmeans"], row["MANH_affinity"]) < row["Av"], (scenario, row)
    for model in ("Av", "MA", "MANH_affinity", "MANH_kmeans"):
        assert mean["homogeneous_tau_sds"][model] < mean["homogeneous_tau_variances"][model]


def test_toy_figure_is_a_legible_png():
    path = RESULTS_DIR / "gilgonzalez2019_toy.png"
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", header[16:24])
    assert width >= 1200 and height >= 800, f"{path} is only {width} x {height} pixels"


# ----- Gil-González et al. (2019) Table 1 --------------------------------------------------------

# Gil-González et al. (2019), Table 1, as printed (RMSE x 100 means), transcribed independently of
# the script
GIL_GONZALEZ_TABLE1_MEANS = {
    ("homogeneous", "Auto"): (35.40, 59.41, 70.30, 39.07, 37.93),
    ("homogeneous", "Concrete"): (40.05, 58.43, 71.89, 44.63, 43.92),
    ("homogeneous", "Housing"): (38.87, 56.85, 68.65, 38.96, 38.92),
    ("non_homogeneous", "Auto"): (35.40, 54.49, 67.52, 36.82, 36.42),
    ("non_homogeneous", "Concrete"): (40.05, 54.46, 84.60, 43.96, 42.28),
    ("non_homogeneous", "Housing"): (38.87, 54.62, 74.72, 45.56, 39.93),
}


def test_table1_has_the_seeds_numbers_beside_ours():
    committed = load_result("gilgonzalez2019_table1")
    table = committed["source"]["table"]
    for (part, row), means in GIL_GONZALEZ_TABLE1_MEANS.items():
        printed = tuple(table[part][row][model]["mean"]
                        for model in ("GOLD", "Av", "LMO", "MA", "MANH"))
        assert printed == means, f"Gil-González et al. {part} {row}: {printed} != {means}"
    for scenario, rows in committed["result"]["summary"].items():
        part = committed["source"]["scenario_to_table_part"][scenario]
        assert set(rows) == set(table[part]), f"{scenario}: rows differ from the paper's"
    assert "LMO" in committed["source"] and "MAP" in committed["source"]["LMO"]


def test_table1_summary_and_orderings_follow_from_the_splits():
    committed = load_result("gilgonzalez2019_table1")["result"]
    for dataset, entries in committed["per_split"].items():
        assert [entry["split"] for entry in entries] == list(range(30)), dataset
    summary = common.to_json(gilgonzalez2019_table1.summarise(committed["per_split"]))
    problems = common.compare_runs(summary, committed["summary"], tol=1e-9, rtol=1e-12)
    assert not problems, "\n".join(problems)
    assert common.to_json(gilgonzalez2019_table1.orderings(summary)) == committed["ordering"]


def test_table1_claims_of_the_readme_hold():
    committed = load_result("gilgonzalez2019_table1")
    ordering, summary = committed["result"]["ordering"], committed["result"]["summary"]
    assert all(row["MANH_affinity"]["holds"] for row in ordering["regions"].values())
    assert sum(row["MANH_kmeans"]["holds"] for row in ordering["regions"].values()) >= 3
    for scenario in ("homogeneous_tau_variances", "homogeneous_tau_sds"):
        assert not ordering[scenario]["Average"]["MANH_affinity"]["MANH <= MA"], scenario
        assert sum(row["MANH_affinity"]["MA < Av"] for row in ordering[scenario].values()) >= 3
    seed = committed["source"]["table"]
    for scenario, rows in summary.items():
        part = committed["source"]["scenario_to_table_part"][scenario]
        for label, row in rows.items():
            ours_gap = row["Av"]["mean"] - row["GOLD"]["mean"]
            seed_gap = seed[part][label]["Av"]["mean"] - seed[part][label]["GOLD"]["mean"]
            assert 0 < ours_gap < 7 and seed_gap > 14, (scenario, label, ours_gap, seed_gap)
            assert 1 < seed[part][label]["GOLD"]["mean"] - row["GOLD"]["mean"] < 7, label


# ----- Gil-González et al. (2019) Table 1a with calibrated annotators ----------------------------

def test_calibrated_annotators_follow_from_the_committed_calibration():
    committed = load_result("gilgonzalez2019_table1_calibrated")
    calibration = committed["result"]["calibration"]
    recomputed = common.to_json(table1_calibrated.calibrate(calibration["per_split"]))
    problems = common.compare_runs(recomputed, {key: calibration[key] for key in recomputed},
                                   tol=1e-9, rtol=1e-12)
    assert not problems, "\n".join(problems)
    assert tuple(calibration["annotator_variances"]) == table1_calibrated.ANNOTATOR_VARIANCES
    assert [entry["split"] for entries in calibration["per_split"].values()
            for entry in entries][:5] == list(table1_calibrated.CALIBRATION_SPLITS)
    assert not set(table1_calibrated.CALIBRATION_SPLITS) & set(table1_calibrated.SPLITS), \
        "the calibration must not use the reported splits"


def test_calibrated_summary_and_tests_follow_from_the_splits():
    committed = load_result("gilgonzalez2019_table1_calibrated")["result"]
    for dataset, entries in committed["per_split"].items():
        assert [entry["split"] for entry in entries] == list(range(30)), dataset
    recomputed = common.to_json(table1_calibrated.summarise(committed["per_split"]))
    problems = common.compare_runs(recomputed, {key: committed[key] for key in recomputed},
                                   tol=1e-9, rtol=1e-12)
    assert not problems, "\n".join(problems)


def test_calibrated_gold_is_table1s_gold():
    """The same splits and the same GOLD fits as gilgonzalez2019_table1: per split within 0.01
    RMSE x 100, its reduced run's tolerance (both results come from clean trees of different
    commits; a library change that moved GOLD would show here)."""
    calibrated = load_result("gilgonzalez2019_table1_calibrated")["result"]["per_split"]
    table1 = load_result("gilgonzalez2019_table1")["result"]["per_split"]
    for dataset, entries in calibrated.items():
        for ours, theirs in zip(entries, table1[dataset]):
            assert ours["split"] == theirs["split"]
            assert ours["rmse_x100"]["GOLD"] == pytest.approx(
                theirs["scenarios"]["regions"]["GOLD"]["rmse_x100"], abs=0.01), dataset


def test_calibrated_claims_of_the_readme_hold():
    committed = load_result("gilgonzalez2019_table1_calibrated")
    summary, tests = committed["result"]["summary"], committed["result"]["paired_tests"]
    for label in ("Auto", "Concrete", "Housing"):
        row = summary[label]
        assert row["GOLD"]["mean"] < row["MA"]["mean"] < row["Av"]["mean"], label
        assert row["MA"]["mean"] - row["GOLD"]["mean"] < 0.5 * (row["Av"]["mean"]
                                                                - row["GOLD"]["mean"]), label
        ma_av = tests[label]["MA - Av"]
        assert ma_av["mean_difference"] < 0 and ma_av["p_plain"] < 0.005, label
        # the correction for overlapping splits leaves MA's gain significant on Concrete only
        assert (ma_av["p_corrected"] < 0.05) == (label == "Concrete"), label
        for test in tests[label].values():
            assert test["p_corrected"] > test["p_plain"], label
    assert summary["Average"]["Av"]["mean"] - summary["Average"]["GOLD"]["mean"] > 10


# ----- arXiv 2306.02719 Table 1 ------------------------------------------------------------------

def test_fluency_table_has_no_invented_joint_numbers():
    source = load_result("wong2024_table1_fluency")["source"]["table"]
    assert source["GP_base"]["PCC"] == 0.710 and source["GP_base"]["KL"] == 3.10
    assert source["GP_repeat"]["MSE"] == 1.136 and source["GP_repeat"]["KL"] == 0.85
    assert source["GP_joint"]["inference_time_s"] == [138, 4]
    for metric in ("PCC", "MSE", "KL"):
        assert source["GP_joint"][metric] is None, (
            f"the paper prints no GP_joint {metric}; the committed result shows "
            f"{source['GP_joint'][metric]!r} as the paper's")


def test_fluency_claims_of_the_readme_hold():
    result = load_result("wong2024_table1_fluency")["result"]
    models = result["models"]
    assert models["GP_joint"]["MSE"] != models["GP_base"]["MSE"]
    assert result["joint_sigma2_over_R_vs_base"]["sigma2_base"] > \
        result["joint_sigma2_over_R_vs_base"]["sigma2_joint_over_mean_R"]
    ratios = result["time_ratios"]
    assert ratios["repeat_over_joint"]["fit_plus_predict_min"] > 10
    assert ratios["joint_over_base"]["fit_plus_predict_min"] < 3
    bias = result["bias_check"]
    assert bias["sigma2_difference"] == pytest.approx(bias["bias_variance_ddof1"], rel=0.2)
    assert np.max(np.abs(np.subtract(bias["estimated_biases"],
                                     bias["true_offsets_at_mean_truth"]))) < 0.3
    assert bias["KL_joint"] < bias["KL_debiased_mixture_over_raters"] < \
        bias["KL_debiased_no_offsets"]


def test_fluency_significance_is_recomputable_and_beside_the_seeds():
    committed = load_result("wong2024_table1_fluency")
    assert committed["source"]["significance"] == {"PCC": 0.065, "MSE": 0.036, "KL": "< 0.001"}
    tests = committed["result"]["significance_joint_vs_base"]
    models = committed["result"]["models"]
    kl = ttest_rel(models["GP_joint"]["KL_per_item"], models["GP_base"]["KL_per_item"])
    assert tests["KL"]["p_value"] == pytest.approx(kl.pvalue, rel=1e-9)
    pcc = tests["PCC"]
    assert pcc["r_base"] == pytest.approx(models["GP_base"]["PCC"], rel=1e-9)
    assert pcc["r_joint"] == pytest.approx(models["GP_joint"]["PCC"], rel=1e-9)
    z, p = steiger_z1_star(pcc["r_joint"], pcc["r_base"], pcc["r_base_joint"], tests["n_items"])
    assert (pcc["z1_star"], pcc["p_value"]) == pytest.approx((z, p), rel=1e-9)
    # the README's and the lecture's reading: as in the paper, only the KL gain is significant
    assert tests["KL"]["p_value"] < 0.001
    assert pcc["p_value"] > 0.05 and pcc["bootstrap_p_value"] > 0.05
    assert tests["MSE"]["p_value"] > 0.05


def test_fluency_repeat_equals_joint_and_kl_improves():
    result = load_result("wong2024_table1_fluency")["result"]
    models = result["models"]
    for metric in ("PCC", "MSE", "KL"):
        assert models["GP_repeat"][metric] == pytest.approx(models["GP_joint"][metric],
                                                            abs=1e-9), metric
    assert result["repeat_vs_joint"]["max_abs_mean_difference"] < 1e-8
    assert models["GP_joint"]["KL"] < models["GP_base"]["KL"]
    assert len(models["GP_joint"]["KL_per_item"]) == result["n_test_items"]
    assert np.mean(models["GP_joint"]["KL_per_item"]) == pytest.approx(
        models["GP_joint"]["KL"], rel=1e-12)


# ----- the helpers -------------------------------------------------------------------------

def test_load_result_names_the_missing_result_and_lists_the_others():
    with pytest.raises(ValueError, match=r"name: there is no result 'no_such_table'.*available: "
                                         r".*gilgonzalez2019_toy"):
        load_result("no_such_table")
    with pytest.raises(ValueError, match="name: expected the bare name"):
        load_result("results/gilgonzalez2019_toy.json")
    with pytest.raises(TypeError, match="name: expected a result name"):
        load_result(3)


def test_comparison_finds_a_changed_value_and_a_missing_seed():
    full = {"per_seed": [{"seed": 0, "rmse": 10.0}, {"seed": 1, "rmse": 12.0}]}
    assert common.compare_runs({"per_seed": [{"seed": 0, "rmse": 10.004}]},
                               {"per_seed": full["per_seed"][:1]}, tol=0.01) == []
    problems = common.compare_runs({"per_seed": [{"seed": 0, "rmse": 10.5}]},
                                   {"per_seed": full["per_seed"][:1]}, tol=0.01)
    assert problems == ["/per_seed[0]/rmse: reduced 10.5 vs full 10.0 (tol 0.01)"]
    assert common.compare_runs({"a": {"b": 1.0}}, {"a": None}, tol=1.0) != []
    assert common.compare_runs({"n": "MA"}, {"n": "MANH"}, tol=1.0) != []
    assert common.compare_runs({"x": 101.0}, {"x": 100.0}, tol=0.5, rtol=0.01) == []
    assert common.compare_runs({"x": 102.0}, {"x": 100.0}, tol=0.5, rtol=0.01) != []


def test_per_key_tolerances_widen_or_leave_out_a_key():
    full = {"fit": {"objective": 10.0, "theta": [1.0, 2.0], "nlpd": 50.0}}
    near = {"fit": {"objective": 10.0 + 5e-7, "theta": [1.1, 2.0], "nlpd": 50.5}}
    rules = {"theta": None, "nlpd": (0.0, 0.02), "objective": (1e-6, 0.0)}
    assert common.compare_runs(near, full, tol=0.0, tolerances=rules) == []
    far = {"fit": {"objective": 10.001, "theta": [1.1, 2.0], "nlpd": 52.0}}
    assert len(common.compare_runs(far, full, tol=0.0, tolerances=rules)) == 2


def test_replicates_are_compared_within_their_spread_and_constants_exactly():
    rng = np.random.default_rng(0)
    committed = [{"seed": s, "arm": arm, "f1": [0.5, float(v)], "won": bool(v > 0.7)}
                 for arm in ("mixed", "none") for s, v in enumerate(rng.uniform(0.6, 0.8, 30))]
    sd = np.std([e["f1"][1] for e in committed if e["arm"] == "mixed"], ddof=1)
    # seed 0 took another path (another draw of the same spread): no failure
    flipped = [{**committed[0], "f1": [0.5, committed[0]["f1"][1] + 3 * sd], "won": True}]
    assert common.compare_replicates(flipped, committed, key=("seed", "arm"),
                                     replicate="seed") == []
    # a change of method moves it by many of its spreads; a constant moves at all
    shifted = [{**committed[0], "f1": [0.5, committed[0]["f1"][1] + 10 * sd]}]
    problems = common.compare_replicates(shifted, committed, key=("seed", "arm"),
                                         replicate="seed")
    assert len(problems) == 1 and "/f1[1]" in problems[0] and "sd" in problems[0]
    moved = [{**committed[0], "f1": [0.5 + 1e-6, committed[0]["f1"][1]]}]
    assert len(common.compare_replicates(moved, committed, key=("seed", "arm"),
                                         replicate="seed")) == 1
    assert common.compare_replicates(moved, committed, key=("seed", "arm"), replicate="seed",
                                     skip=("f1",)) == []
    missing = [{**committed[0], "seed": 99}]
    assert "missing" in common.compare_replicates(missing, committed, key=("seed", "arm"),
                                                  replicate="seed")[0]


def test_settings_check_names_a_changed_or_missing_setting_but_not_a_run_size():
    assert common.settings_problems({"n": 3, "seeds": [0]}, {"n": 3, "seeds": [0, 1]},
                                    {"seeds"}) == []
    assert common.settings_problems({"n": 3}, {"n": 4}) == [
        "setting 'n': script 3, committed 4"]
    assert common.settings_problems({"n": 3}, {"n": 3, "k": 1}) == [
        "setting 'k': script None, committed 1"]


def test_settings_check_allows_last_bit_rounding_of_a_float_but_not_a_changed_value():
    grid = [0.02, 0.21971210866122357, 8.0]
    rounded_elsewhere = [0.02, 0.2197121086612236, 8.0]  # one ulp: another CPU's exp and log
    assert common.settings_problems({"grid": rounded_elsewhere}, {"grid": grid}) == []
    assert common.settings_problems({"grid": [0.02, 0.2197121087, 8.0]}, {"grid": grid})
    assert common.settings_problems({"grid": grid[:2]}, {"grid": grid})
    assert common.settings_problems({"flag": True}, {"flag": 1.0})
    assert common.settings_problems({"n": 1.0}, {"n": "1.0"})


def test_result_writer_refuses_nan_and_records_the_environment(tmp_path):
    with pytest.raises(ValueError, match=r"x\['rmse'\]\[1\]: nan is not a finite number"):
        common.to_json({"rmse": [1.0, float("nan")]}, "x")
    path = common.write_result("demo", title="demo", settings={"n": np.int64(3)},
                               result={"values": np.arange(3.0)}, source={"table": None},
                               differences="none", run_time_seconds=0.5, results_dir=tmp_path)
    document = json.loads(path.read_text())
    assert document["settings"] == {"n": 3} and document["result"] == {"values": [0.0, 1.0, 2.0]}
    assert document["environment"]["cores"] >= 1
    assert document["command"] == "python -m experiments.demo"


def test_the_result_writer_lists_its_checksum_and_vouches_for_no_other_file(tmp_path):
    def written(name, value):
        return common.write_result(name, title=name, settings={}, result={"value": value},
                                   source={}, differences="none", run_time_seconds=0.0,
                                   results_dir=tmp_path)

    def listed():
        return data._manifest_entries(tmp_path / data.MANIFEST)

    first, second = written("first", 1.0), written("second", 2.0)
    digest = {path.name: data._sha256_of(path) for path in (first, second)}
    assert listed() == {"first.json": digest["first.json"], "second.json": digest["second.json"]}
    # a damaged result stays refused when another is re-run ...
    first.write_text(first.read_text().replace("1.0", "7.0"))
    written("second", 3.0)
    assert listed() == {"first.json": digest["first.json"],
                        "second.json": data._sha256_of(second)}
    # ... until the tool lists every result as it now is, and drops those that are gone
    second.unlink()
    common.record_checksums(results_dir=tmp_path)
    assert listed() == {"first.json": data._sha256_of(first)}


def test_a_stale_result_names_the_command_that_re_runs_it(monkeypatch):
    from types import SimpleNamespace

    # every reduced run's first problem is the command (the tests print the problems)
    module = SimpleNamespace(NAME="wu2025_fig2", TOLERANCE=0.0,
                             run=lambda reduced: {"result": {"value": 1.0}},
                             select_for_comparison=lambda ours, theirs: (ours, theirs))
    monkeypatch.setattr(common, "load_result", lambda name: {"result": {"value": 2.0}})
    problems = common.reduced_against_committed(module).problems
    assert problems[0] == ("wu2025_fig2: re-run it with `python3 course.py experiments --run "
                           "wu2025_fig2` (a full run in a clean checkout of HEAD) and commit what "
                           "it brings back") and len(problems) > 1
    monkeypatch.setattr(common, "reduced_against_committed",
                        lambda _: common.ReducedRun({}, {}, [problems[0], "a number moved"]))
    with pytest.raises(AssertionError, match=r"wu2025_fig2: the reduced re-run differs.*\n.*"
                                             r"course\.py experiments --run wu2025_fig2.*\n"
                                             r"a number moved"):
        common.check_reduced_run(module)
