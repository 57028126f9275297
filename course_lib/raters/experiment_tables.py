"""The tables lecture 05 prints of its reproduced multi-rater experiments (section 8): the toy
and Table 1 of Gil-González, Álvarez & Orozco 2019 (``gilgonzalez2019_*``) and Table 1 of
arXiv 2306.02719 on the fluency set and on speechocean762's five experts (``wong2024_*``).

:data:`REPORTS` maps each result's name to the functions that write its tables, in the order
printed; :func:`course_lib.reports.report` reads it, so a lecture calls ``report(load_result(
name))`` and never a table's function. Each function takes the committed result and returns the
text table the lecture prints; the lecture keeps the message, this module the plumbing. A table
names its paper once, by author and year or by arXiv number, and tags that paper's rows 'paper'.
"""

from __future__ import annotations

from collections.abc import Callable

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


#: The table(s) of each of lecture 05's results, by the result's name, in the order printed.
REPORTS: dict[str, tuple[Callable[[dict], str], ...]] = {
    "gilgonzalez2019_toy": (_annotator_toy_table,),
    "gilgonzalez2019_table1": (_annotator_uci_table,),
    "gilgonzalez2019_table1_calibrated": (_annotator_calibrated_table,),
    "wong2024_table1_fluency": (_fluency_table, _fluency_timing_table),
    "wong2024_table1_speechocean762": (_speechocean762_table,),
}
