"""Read the committed results of the experiments in the repository's ``experiments/`` folder.

Each script in ``experiments/`` reproduces one table or figure of a source paper and writes its
full run to ``experiments/results/<name>.json``: the settings, the library versions and machine
it ran on, the result itself (per seed or per split as well as summarised) and the source's
numbers beside ours. ``experiments/README.md`` documents every file's layout. Notebooks read a
result with :func:`load_result` instead of re-running an experiment that takes minutes::

    from course_lib.results import load_result
    toy = load_result("gilgonzalez2019_toy")
    toy["result"]["summary"]
    print(report(toy))      # the table the lecture shows, beside the source's numbers

The folder is found relative to this package, as :mod:`course_lib.data` finds ``data/``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parents[1] / "experiments" / "results"


def available_results() -> list[str]:
    """Sorted names of the committed results (the ``<name>`` of each ``<name>.json``)."""
    if not RESULTS_DIR.is_dir():
        return []
    return sorted(path.stem for path in RESULTS_DIR.glob("*.json"))


def load_result(name: str) -> dict:
    """The committed result ``experiments/results/<name>.json`` as a dict.

    ``name`` is the file's stem, e.g. ``"gilgonzalez2019_toy"``; :func:`available_results` lists
    them.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a result name (str) such as 'gilgonzalez2019_toy', got "
                        f"{type(name).__name__}")
    if not name or Path(name).name != name or name.endswith(".json"):
        raise ValueError(f"name: expected the bare name of a result (no folder, no '.json'), "
                         f"got {name!r}; available: {', '.join(available_results()) or 'none'}")
    path = RESULTS_DIR / f"{name}.json"
    if not path.is_file():
        available = ", ".join(available_results()) or "none"
        raise ValueError(f"name: there is no result {name!r} in {RESULTS_DIR}; available: "
                         f"{available}. A result is written by the full run of its script "
                         f"(see experiments/README.md).")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"name: the result file {path} for {name!r} is not valid JSON "
                         f"({err}); restore it with `git checkout` or re-run its script") from err


# ----- Unit 5: the reproduced tables of arXiv 2306.02719 and Gil-Gonzalez et al. 2019 --------
# (lecture 5 section 8; a table names its paper once, by author and year or by arXiv number, and
# tags that paper's rows 'paper')
# Each function takes its committed result (report() dispatches by the result's name) and returns
# the text table the lecture prints; the lecture keeps the message, this module the plumbing.

_ANNOTATOR_SCENARIOS = {"homogeneous_tau_variances": "homogeneous, τ as variances",
                       "homogeneous_tau_sds": "homogeneous, τ as sds",
                       "regions": "region-wise, Λ"}
_ANNOTATOR_MODELS = ("GOLD", "Av", "MA", "MANH_affinity", "MANH_kmeans")
# the papers as the printed tables cite them (lecture 5's Sources give them in full)
_ANNOTATOR_PAPER = "Gil-González et al. 2019"
_FLUENCY_PAPER = "arXiv 2306.02719"


def _annotator_toy_table(result) -> str:
    """The toy of Gil-Gonzalez, Alvarez & Orozco 2019 (``load_result("gilgonzalez2019_toy")``):
    RMSE x 100, mean ± sd over the seeds, per noise scenario and model; then affinity propagation's
    numbers of regions and the variances at the noise floor with Lambda."""
    summary = result["result"]["summary"]
    n_seeds = len(result["result"]["per_seed"])
    lines = [f"RMSE x 100, mean ± sd over {n_seeds} seeds",
             f"{'noise':28s}" + "".join(f"{name:>15s}" for name in _ANNOTATOR_MODELS)]
    for scenario, rows in summary.items():
        cells = [f"{rows[m]['rmse_x100_mean']:.1f} ± {rows[m]['rmse_x100_sd']:.1f}"
                 for m in _ANNOTATOR_MODELS]
        lines.append(f"{_ANNOTATOR_SCENARIOS[scenario]:28s}"
                     + "".join(f"{cell:>15s}" for cell in cells))
    counts = [seed["n_regions_affinity"] for seed in result["result"]["per_seed"]]
    floor = summary["regions"]
    lines += ["", f"affinity propagation: {min(counts)} to {max(counts)} regions (mean "
              f"{sum(counts) / len(counts):.1f}); noise floor "
              f"{result['settings']['noise_floor']:g}",
              f"variances at the floor with Lambda, mean per fit: MANH k-means "
              f"{floor['MANH_kmeans']['n_at_floor_mean']:.1f}, MANH affinity "
              f"{floor['MANH_affinity']['n_at_floor_mean']:.1f}"]
    return "\n".join(lines)


def _mean_sd(entry) -> str:
    if entry is None:
        return "—"
    if entry["sd"] is None:
        return f"{entry['mean']:.1f}"
    return f"{entry['mean']:.1f}±{entry['sd']:.1f}"


def _annotator_uci_table(result) -> str:
    """Table 1 of Gil-Gonzalez, Alvarez & Orozco 2019 (``load_result("gilgonzalez2019_table1")``):
    per scenario, our row (mean ± sd of RMSE x 100 over the splits) above the paper's row of the
    matching half of its table, and whether the row keeps the paper's ordering
    GOLD < MANH <= MA < Av (affinity / k-means)."""
    document = result
    summary, source = document["result"]["summary"], document["source"]
    ordering = document["result"]["ordering"]
    lines = []
    for scenario, rows in summary.items():
        part = source["scenario_to_table_part"][scenario]
        half = "a" if part == "homogeneous" else "b"
        lines += ["" if lines else None,
                  f"{_ANNOTATOR_SCENARIOS[scenario]} (paper: {_ANNOTATOR_PAPER}, Table "
                  f"1{half}); last column: "
                  "GOLD < MANH <= MA < Av holds (affinity / k-means MANH)",
                  f"{'':16s}" + "".join(f"{name:>14s}" for name in _ANNOTATOR_MODELS)
                  + f"{'LMO':>11s}"]
        for label, row in rows.items():
            order = ordering[scenario][label]
            holds = "/".join("yes" if order[m]["holds"] else "no"
                             for m in ("MANH_affinity", "MANH_kmeans"))
            lines.append(f"{label + ', ours':16s}"
                         + "".join(f"{_mean_sd(row[m]):>14s}" for m in _ANNOTATOR_MODELS)
                         + f"{'—':>11s}   {holds}")
            paper = source["table"][part][label]
            source_cells = [paper["GOLD"], paper["Av"], paper["MA"], paper["MANH"], None]
            lines.append(f"{label + ', paper':16s}"
                         + "".join(f"{_mean_sd(c):>14s}" for c in source_cells)
                         + f"{_mean_sd(paper['LMO']):>11s}")
    return "\n".join(line for line in lines if line is not None)


def _annotator_calibrated_table(result) -> str:
    """Table 1a of Gil-Gonzalez et al. 2019 with calibrated annotators
    (``load_result("gilgonzalez2019_table1_calibrated")``): the annotators' variances, our rows
    above the paper's with the Av - GOLD and MA - GOLD gaps, then per set the paired tests over the
    splits (plain and Nadeau-Bengio corrected)."""
    document = result
    outcome, paper = document["result"], document["source"]["table"]
    calibration = outcome["calibration"]
    variances = ", ".join(f"{v:g}" for v in calibration["annotator_variances"])
    models = ("GOLD", "Av", "MA")
    n_splits = len(next(iter(outcome["per_split"].values())))
    lines = [f"annotator noise variances ({variances}): the plain average carries "
             f"{calibration['average_noise_of_rounded']:.2f}, the precision-weighted mean "
             f"{calibration['weighted_noise_of_rounded']:.3f}",
             f"RMSE x 100, mean±sd over {n_splits} splits; paper: {_ANNOTATOR_PAPER}, "
             "Table 1a",
             f"{'':16s}" + "".join(f"{m:>12s}" for m in models)
             + f"{'Av - GOLD':>11s}{'MA - GOLD':>11s}"]
    for label, row in outcome["summary"].items():
        for who, cells in (("ours", row), ("paper", paper[label])):
            lines.append(f"{label + ', ' + who:16s}"
                         + "".join(f"{_mean_sd(cells[m]):>12s}" for m in models)
                         + f"{cells['Av']['mean'] - cells['GOLD']['mean']:11.1f}"
                         + f"{cells['MA']['mean'] - cells['GOLD']['mean']:11.1f}")
    lines += ["", f"paired tests over the {n_splits} splits: mean difference of RMSE x 100, "
              "p plain and p corrected for overlapping splits",
              f"{'':10s}{'difference':>12s}{'mean':>8s}{'p plain':>10s}{'p corrected':>13s}"]
    for label, pairs in outcome["paired_tests"].items():
        for index, (pair, test) in enumerate(pairs.items()):
            lines.append(f"{label if index == 0 else '':10s}{pair:>12s}"
                         f"{test['mean_difference']:+8.1f}{test['p_plain']:10.2g}"
                         f"{test['p_corrected']:13.2g}")
    return "\n".join(lines)


def _shown(value, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _fluency_table(result) -> str:
    """Table 1 of arXiv 2306.02719 on the fluency set (``load_result("wong2024_table1_fluency")``):
    PCC, MSE, KL and the learned noise per model, ours above the paper's ('—' where it prints
    nothing); GP_repeat against GP_joint; the significance tests of GP_joint against GP_base
    beside the paper's p-values; the rater offsets and what removing them does."""
    document = result
    models, source = document["result"]["models"], document["source"]["table"]
    lines = [f"{'':17s}{'PCC':>7s}{'MSE':>7s}{'KL':>7s}   learned noise   "
             f"(paper: {_FLUENCY_PAPER}, Table 1)"]
    for model in ("GP_base", "GP_repeat", "GP_joint"):
        row, paper = models[model], source[model]
        noise_name = "σ_base²" if model == "GP_base" else "σ²"
        lines.append(f"{model + ', ours':17s}{row['PCC']:7.3f}{row['MSE']:7.3f}"
                     f"{row['KL']:7.3f}   {noise_name} = {row['noise_variance']:.3f}")
        lines.append(f"{model + ', paper':17s}{_shown(paper['PCC'], 3):>7s}"
                     f"{_shown(paper['MSE'], 3):>7s}{_shown(paper['KL'], 2):>7s}")
    same = document["result"]["repeat_vs_joint"]
    lines += ["", f"repeat vs joint: largest difference of predictive means "
              f"{same['max_abs_mean_difference']:.1e}, of variances "
              f"{same['max_abs_variance_difference']:.1e}"]
    tests = document["result"].get("significance_joint_vs_base")
    if tests is not None:
        paper_p = document["source"]["significance"]
        pcc = tests["PCC"]
        lines += ["", f"joint vs base on {tests['n_items']} test items "
                  f"({tests['n_items_whose_rounded_prediction_differs']} rounded predictions "
                  f"differ); p-values ours (those of {_FLUENCY_PAPER})",
                  f"  PCC  Steiger's Z1* = {pcc['z1_star']:5.2f}   p = {pcc['p_value']:.2g} "
                  f"({paper_p['PCC']});  gain {pcc['r_joint'] - pcc['r_base']:+.3f}",
                  f"       paired bootstrap: 95% interval of the gain "
                  f"[{pcc['bootstrap_interval_95'][0]:+.3f}, "
                  f"{pcc['bootstrap_interval_95'][1]:+.3f}], p = {pcc['bootstrap_p_value']:.2g}"]
        for metric in ("MSE", "KL"):
            test = tests[metric]
            lines.append(f"  {metric:4s} paired t = {test['t']:5.2f}   p = "
                         f"{test['p_value']:.2g} ({paper_p[metric]});  change "
                         f"{test['mean_difference']:+.3f}")
    bias = document["result"]["bias_check"]
    lines += ["", "rater offsets (estimated) "
              + ", ".join(f"{b:+.2f}" for b in bias["estimated_biases"])
              + f"; their variance {bias['bias_variance_ddof1']:.2f}",
              f"σ² of the joint model {bias['sigma2_joint']:.2f}; with the offsets removed "
              f"{bias['sigma2_joint_debiased']:.2f}; test KL {bias['KL_joint']:.3f} -> "
              f"{bias['KL_debiased_mixture_over_raters']:.3f} (offsets removed, mixture over "
              "raters)"]
    return "\n".join(lines)


def _fluency_timing_table(result) -> str:
    """The times of arXiv 2306.02719's Table 1 on the fluency set: per model one ML-II run, the
    median fit and prediction (the paper's inference time beside them), and the ratios."""
    document = result
    models, source = document["result"]["models"], document["source"]["table"]
    ratios = document["result"]["time_ratios"]
    lines = []
    for model, row in models.items():
        timing, paper = row["timing_s"], source[model]["inference_time_s"]
        lines.append(f"{model:10s} ML-II {timing['optimise_hyperparameters']:7.2f} s   fit "
                     f"{1000 * timing['fit_at_learned_hyperparameters']:6.2f} ms   predict the "
                     f"test set {1000 * timing['predict_test_set']:5.2f} ms   ({_FLUENCY_PAPER}: "
                     f"{paper[0]} ± {paper[1]} s)")
    repeat = ratios["repeat_over_joint"]
    lines.append(f"repeat / joint: fit + predict {repeat['fit_plus_predict_median']:.0f}x, "
                 f"ML-II {repeat['optimise_hyperparameters']:.0f}x "
                 f"({_FLUENCY_PAPER}: {ratios['seed_repeat_over_joint']:.0f}x); joint / base "
                 f"{ratios['joint_over_base']['fit_plus_predict_median']:.2f}x "
                 f"({_FLUENCY_PAPER}: {ratios['seed_joint_over_base']:.2f}x)")
    return "\n".join(lines)


def _speechocean762_table(result) -> str:
    """Table 1 of arXiv 2306.02719 on speechocean762's five experts (``load_result(
    "wong2024_table1_speechocean762")``): per input set (fluency, GOP, both) our three models above
    the paper's, then the paired tests that lecture 05 reads (each model against GP_base on the
    same inputs, GP_base across input sets) with the direction of each change, and each expert's
    bias and GPR-MA noise variance on the GOP inputs."""
    document = result
    by_inputs, source = document["result"]["by_inputs"], document["source"]["table"]
    lines = [f"{'':22s}{'PCC':>7s}{'MSE':>7s}{'KL':>7s}   learned noise"]
    for inputs, block in by_inputs.items():
        for model, row in block["models"].items():
            noise = ("σ_r² = " + " / ".join(f"{v:.2f}" for v in row["noise_variance_per_expert"])
                     if model == "GPR_MA" else
                     f"{'σ_base²' if model == 'GP_base' else 'σ²'} = {row['noise_variance']:.3f}")
            lines.append(f"{inputs + ', ' + model:22s}{row['PCC']:7.3f}{row['MSE']:7.3f}"
                         f"{row['KL']:7.3f}   {noise}")
    for model in ("GP_base", "GP_repeat"):
        paper = source[model]
        lines.append(f"{'paper, ' + model:22s}{_shown(paper['PCC'], 3):>7s}"
                     f"{_shown(paper['MSE'], 3):>7s}{_shown(paper['KL'], 2):>7s}")
    paper_p = document["source"]["significance"]
    pairs = [(f"{inputs}: {model} vs GP_base", block["models"]["GP_base"],
              block["models"][model], block[key], inputs == "gop" and model == "GP_joint")
             for inputs, block in by_inputs.items()
             for model, key in (("GP_joint", "significance_joint_vs_base"),
                                ("GPR_MA", "significance_gpr_ma_vs_base"))]
    for name, tests in document["result"]["across_inputs"].items():
        second, first = name.removeprefix("GP_base ").split(" vs ")
        pairs.append((f"GP_base: {second} vs {first}", by_inputs[first]["models"]["GP_base"],
                      by_inputs[second]["models"]["GP_base"], tests, False))
    lines += ["", f"paired tests on the {by_inputs['gop']['n_test_items']} test sentences "
              f"(p; the paper's for GP_joint vs GP_base in brackets)"]
    for name, first, second, tests, with_paper in pairs:
        lines.append(name)
        for metric, lower_is_better, test_name in (("PCC", False, "Steiger's Z1*"),
                                                   ("MSE", True, "paired t"),
                                                   ("KL", True, "paired t")):
            a, b = first[metric], second[metric]
            verdict = "(better)" if (b < a) == lower_is_better else "(worse)"
            paper = f" ({paper_p[metric]})" if with_paper else ""
            lines.append(f"  {metric:4s}{a:7.3f} -> {b:6.3f} {verdict:9s}  {test_name:13s} "
                         f"p = {tests[metric]['p_value']:.2g}{paper}")
    gop = by_inputs["gop"]
    lines += ["", "expert (GOP inputs) " + "".join(f"{k + 1:>7d}" for k in range(5)),
              "bias                " + "".join(f"{b:+7.2f}" for b in gop["bias_per_expert"]),
              "GPR-MA noise        " + "".join(
                  f"{v:7.2f}" for v in gop["models"]["GPR_MA"]["noise_variance_per_expert"]),
              f"(GP_joint's one σ² = {gop['models']['GP_joint']['noise_variance']:.2f})"]
    subset = document["result"]["subset"]
    lines += ["", f"on {subset['n_train_items']} training sentences ({subset['inputs']} inputs): "
              "GP_repeat and GP_joint predict the same (largest difference "
              f"{subset['repeat_vs_joint']['max_abs_mean_difference']:.1e})"]
    return "\n".join(lines)


# ----- Unit 7: the reproduced experiments of Wu, Sanders, Letham & Guan 2025 (lecture 7 -------
# section 8; the printed text names the paper by author and year)
# Each function takes its committed result (through report()) and returns the text the lecture
# shows: the source's claims, our table and the sentence that states its message.


_WIDTH = 100
_MIXED_PAPER = "Wu et al. 2025"  # lecture 7's Sources give it in full
_LEVELSET_STEPS = ("mixed > pseudo", "pseudo > none")


def _fill(text: str, indent: str = "") -> str:
    return textwrap.fill(text, _WIDTH, subsequent_indent=indent)


def _require(result, name: str, keys: tuple[str, ...], what: str) -> dict:
    missing = [key for key in keys if key not in result.get("settings", {})]
    if missing or "source" not in result:
        raise ValueError(f"{name}: expected {what}, got {result.get('name', 'a result')!r} "
                         f"(no {', '.join(missing) or 'source'})")
    return result


def _source_claims(result) -> str:
    """The source paper's claims as the result records them, one 'Wu et al. 2025: ...'
    paragraph each."""
    return "\n".join(_fill(f"{_MIXED_PAPER}: " + claim, "    ")
                     for claim in result["source"].get("claims", []))


def _levelset_verdicts(result) -> dict:
    """{(problem, acquisition, step): verdict} of a level-set result (``wu2025_levelset``,
    ``wu2025_levelset_4d``, ``wu2025_passthrough``) for the paper's steps
    mixed > pseudo and pseudo > none."""
    _require(result, "result", ("report_trials", "arms"), "a level-set result")
    return {(problem, acquisition, step): summary["directions"][step]["verdict"]
            for problem, entry in result["result"].items()
            for acquisition, summary in entry["summary"].items() for step in _LEVELSET_STEPS}


def _levelset_report(result) -> str:
    """The paper's claims; per problem and acquisition, each arm's F1 after the last reported
    trial and the paired area differences of the paper's two steps with their verdicts; the
    sessions a library failure stopped; and how many problem-acquisition pairs each step holds
    in."""
    _require(result, "result", ("report_trials", "arms"), "a level-set result")
    settings = result["settings"]
    last = str(settings["report_trials"][-1])
    lines = [_source_claims(result), "",
             f"{len(settings['seeds'])} seeds per arm: {settings['n_initial']} quasi-random "
             f"trials, then {settings['n_active']} chosen by the acquisition; F1 on "
             f"{settings['n_test']} test points", "",
             f"{'problem':13s}{'acquisition':12s}{'F1 after ' + last + ' trials':23s}"
             f"{'mixed > pseudo':33s}pseudo > none",
             f"{'':25s}{'mixed / pseudo / none':23s}{'area difference: verdict':33s}"
             f"area difference: verdict"]
    failures = []
    for problem, entry in result["result"].items():
        for acquisition, summary in entry["summary"].items():
            f1 = " / ".join(f"{summary['arms'][arm]['f1_at'][last]['mean']:.3f}"
                            for arm in settings["arms"])
            steps = [f"{d['mean']:+.3f} ± {d['se']:.3f} {d['verdict']}"
                     for d in (summary["directions"][step] for step in _LEVELSET_STEPS)]
            lines.append(f"{problem:13s}{acquisition:12s}{f1:23s}{steps[0]:33s}{steps[1]}")
            failures += [f"{problem}, {acquisition}, {arm}: {stats['n_failed']} of "
                         f"{stats['n_failed'] + stats['n_seeds']} sessions failed"
                         for arm, stats in summary["arms"].items() if stats["n_failed"]]
    if failures:
        lines.append(_fill("left out (the directions pair the seeds where both sessions ran): "
                           + "; ".join(failures)))
    lines.append("")
    verdicts = _levelset_verdicts(result)
    for step in _LEVELSET_STEPS:
        chosen = {key: v for key, v in verdicts.items() if key[2] == step}
        holds = sum(v == "holds" for v in chosen.values())
        misses = [f"{p}, {a}: {v}" for (p, a, _), v in chosen.items() if v != "holds"]
        lines.append(_fill(f"Wu et al.'s step {step} holds in {holds} of {len(chosen)} "
                           f"problem-acquisition pairs"
                           + (f"; not in {'; '.join(misses)}" if misses else "") + "."))
    return "\n".join(lines)


def _change(before: float, after: float) -> str:
    return f"{'falls' if after < before else 'rises'} from {before:.3f} to {after:.3f}"


def _likert_synthetic_report(result) -> str:
    """Wu et al. 2025, section 5.2 (``wu2025_likert_synthetic``): the claims with our verdicts, the
    mean absolute error of Pr(x1 > x2) per region for both models, and the change the ratings
    make in each region."""
    _require(result, "result", ("n_seeds", "model"), "the wu2025_likert_synthetic result")
    summary = result["result"]["summary"]
    lines = [_source_claims(result),
             f"  (Likert cut points learned: "
             f"{result['settings']['model']['likert'].get('learned', 'not recorded')})"]
    for entry in result["result"]["claims"]:
        lines.append(_fill(f"  ours: {entry['claim']}: {entry['holds']}"
                           + (f" ({entry['ours']})" if "ours" in entry else ""), "      "))
    lines += ["", f"mean absolute error of Pr(x1 > x2), {result['settings']['n_seeds']} runs",
              f"{'region':12s}{'choices only':>14s}{'with ratings':>14s}{'difference':>20s}"]
    regions = {"mae": "whole map", "mae_corners": "corners", "mae_diagonal": "diagonal"}
    for key, region in regions.items():
        s = summary[key]
        lines.append(f"{region:12s}{s['preference']:>14.3f}{s['mixed']:>14.3f}"
                     f"{s['difference']:>+13.3f} ± {s['difference_se']:.3f}")
    moves = {key: _change(summary[key]["preference"], summary[key]["mixed"]) for key in regions}
    lines += ["", _fill(f"With the ratings the error in the corners {moves['mae_corners']}, "
                        f"near the diagonal it {moves['mae_diagonal']}, and over the whole map "
                        f"it {moves['mae']}.")]
    return "\n".join(lines)


def _haptic_cell_counts(result) -> dict:
    """Counts of the haptic-like study's verdicts (``wu2025_haptic_like``): for the
    calibrated subjects and for the over-confident one, how many subject-size-score cells are
    'mixed better', 'mixed worse', and how many there are."""
    _require(result, "result", ("training_sizes", "overconfident_subject"),
             "the wu2025_haptic_like result")
    overconfident = f"#{result['settings']['overconfident_subject']}"
    counts = {}
    for group, chosen in (("calibrated", lambda s: s != overconfident),
                          ("overconfident", lambda s: s == overconfident)):
        cells = [v for e in result["result"]["claims"] if chosen(e["subject"])
                 for v in e["verdicts"]]
        counts[group] = {"mixed better": cells.count("mixed better"),
                         "mixed worse": cells.count("mixed worse"), "cells": len(cells)}
    counts["overconfident_subject"] = overconfident
    return counts


def _haptic_report(result) -> str:
    """Wu et al. 2025, section 5.3 on simulated subjects (``wu2025_haptic_like``): per subject and
    training size the paired Brier and F1 differences (with ratings minus choices only) with
    their verdicts, the claims with ours, and the count of cells where the ratings help."""
    _require(result, "result", ("training_sizes", "overconfident_subject"),
             "the wu2025_haptic_like result")
    summary, sizes = result["result"]["summary"], result["settings"]["training_sizes"]
    lines = [_source_claims(result),
             f"  (Likert cut points learned: "
             f"{result['settings']['model']['likert'].get('learned', 'not recorded')})", "",
             f"{result['settings']['n_splits']} splits per subject and size; difference with "
             "ratings minus choices only, mean ± se",
             f"{'subject':9s}{'pairs':>6s}     {'Brier difference':40s}F1 difference"]
    for subject, by_size in summary.items():
        for size in map(str, sizes):
            cells = [f"{by_size[size][m]['difference']:+.3f} ± "
                     f"{by_size[size][m]['difference_se']:.3f}  "
                     f"{by_size[size][m]['verdict']:<20s}" for m in ("brier", "f1")]
            lines.append(f"{subject:9s}{size:>6s}     {cells[0]:<40s}{cells[1]:<40s}".rstrip())
    lines.append("")
    lines += [f"{entry['claim']}: {entry['holds']}" for entry in result["result"]["claims"]]
    counts = _haptic_cell_counts(result)
    calibrated, over = counts["calibrated"], counts["overconfident"]
    lines += ["", _fill(
        f"For the calibrated subjects the ratings help clearly in {calibrated['mixed better']} "
        f"of {calibrated['cells']} subject-size-score cells and hurt clearly in "
        f"{calibrated['mixed worse']}; for subject {counts['overconfident_subject']} they help "
        f"in {over['mixed better']} and hurt in {over['mixed worse']} of {over['cells']}.")]
    return "\n".join(lines)


def _gait_report(result) -> str:
    """Wu et al. 2025, section 5.4 on a simulated subject (``wu2025_gait_like``): per training size
    both models' Brier and F1 with the verdicts, and the claim with the count of cells that
    pass the two-standard-error rule and the share of splits on which the ratings help."""
    _require(result, "result", ("n_trials", "level_counts", "n_splits"),
             "the wu2025_gait_like result")
    settings, summary = result["settings"], result["result"]["summary"]
    lines = [_source_claims(result), "",
             f"{settings['n_trials']} trials, level counts "
             f"{' / '.join(map(str, settings['level_counts']))}; {settings['n_splits']} splits "
             "per size",
             f"{'pairs':>5s}   {'Brier: choices only / with ratings':44s}"
             f"F1: choices only / with ratings"]
    for size, entry in summary.items():
        row = "".join(f"{entry[m]['preference']:.3f} / {entry[m]['mixed']:.3f}  "
                      f"{entry[m]['verdict']:<27s}" for m in ("brier", "f1"))
        lines.append(f"{size:>5s}   {row}".rstrip())
    claim = result["result"]["claims"][0]
    better = [summary[size][m]["mixed_better_share"] for size in summary for m in ("brier", "f1")]
    on_splits = ("on every split of every cell" if min(better) == 1 else
                 f"on at least {min(better):.0%} of the splits in every cell")
    lines += ["", _fill(
        f"{claim['claim']}: {claim['holds']} ({claim['verdicts'].count('mixed better')} of "
        f"{len(claim['verdicts'])} size-score cells pass the two-standard-error rule; the model "
        f"with ratings is better {on_splits}).")]
    return "\n".join(lines)


def _levelset_diagnosis_report(result) -> str:
    """What the norm-ball sessions' models believed (``wu2025_levelset_diagnosis``): per
    problem, acquisition and arm at 10 / 30 / 50 trials the F1, the estimated set's volume
    against the true one, the posterior mean of f at the origin (truth 0) and the share of
    seeds whose estimated set is empty; and where the active queries went."""
    _require(result, "result", ("replays", "report_trials"),
             "the wu2025_levelset_diagnosis result")
    shown = ("10", "30", "50")
    lines = []
    for problem, entry in result["result"].items():
        reference = entry["reference"]
        lines += [f"{problem}: true set {reference['true_volume']:.3f} of the box; a uniform "
                  f"trial is answered 'no' with probability {reference['no_share_box']:.2f} "
                  f"({reference['no_share_in_set']:.2f} inside the set)",
                  f"{'':22s}{'after 10 / 30 / 50 trials':59s}active queries",
                  f"{'acquisition':12s}{'arm':8s}{'F1':20s}{'set volume':23s}"
                  f"{'mean f(0)':16s}median |x|  in set"]
        for acquisition, arms in entry["summary"].items():
            for arm, stats in arms.items():
                t = stats["trials"]
                f1 = " / ".join(f"{t[n]['f1']:.2f}" for n in shown)
                volume = " / ".join(f"{t[n]['estimated_volume']:.3f}" for n in shown)
                mean = " / ".join(f"{t[n]['mean_at_origin']:.2f}" for n in shown)
                lines.append(f"{acquisition:12s}{arm:8s}{f1:20s}{volume:23s}{mean:16s}"
                             f"{stats['median_query_distance']:>10.2f}  "
                             f"{stats['queries_in_true_set']:>6.2f}")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


_REPORTS = {
    "gilgonzalez2019_toy": (_annotator_toy_table,),
    "gilgonzalez2019_table1": (_annotator_uci_table,),
    "gilgonzalez2019_table1_calibrated": (_annotator_calibrated_table,),
    "wong2024_table1_fluency": (_fluency_table, _fluency_timing_table),
    "wong2024_table1_speechocean762": (_speechocean762_table,),
    "wu2025_fig2": (_source_claims,),
    "wu2025_levelset": (_levelset_report,),
    "wu2025_levelset_4d": (_levelset_report,),
    "wu2025_passthrough": (_levelset_report,),
    "wu2025_levelset_diagnosis": (_levelset_diagnosis_report,),
    "wu2025_likert_synthetic": (_likert_synthetic_report,),
    "wu2025_haptic_like": (_haptic_report,),
    "wu2025_gait_like": (_gait_report,),
}


def report(result) -> str:
    """The text a lecture prints for a committed result (``load_result(name)``): our table
    beside the source's numbers, the source's claims with our verdicts, and the sentence that
    states the message; tables of one result are separated by a blank line.

    Results with a report: the tables of Gil-Gonzalez, Alvarez & Orozco 2019 and of
    arXiv 2306.02719 (lecture 5 section 8) and the experiments of Wu, Sanders, Letham & Guan
    2025 (lecture 7 section 8); the other results are read field by field.
    """
    if not isinstance(result, dict) or not isinstance(result.get("result"), dict):
        raise TypeError(f"result: expected a committed result (load_result(name)), got "
                        f"{type(result).__name__}")
    parts = _REPORTS.get(result.get("name"))
    if parts is None:
        raise ValueError(f"result: there is no report for {result.get('name')!r}; reports "
                         f"exist for {', '.join(sorted(_REPORTS))}")
    return "\n\n".join(part(result) for part in parts)
