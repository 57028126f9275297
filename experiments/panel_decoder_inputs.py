"""Does the word decoder help the pronunciation panel? Speaker-disjoint CV on the training split.

Issue 58 asks that the sentence score take the word decoder's verdicts in, as inputs of the
panel chosen by speaker-disjoint cross-validation on the training split. This script measures
whether they should, and changes nothing in the panel.

**Data.** The 2,500 training sentences of speechocean762 (125 speakers), the five experts'
sentence accuracy, the panel's 17 GOP features (``load_speechocean762("accuracy", "gop")``) and
six numbers per sentence from ``ReadingDecoder`` at its tuned settings
(``data/speechocean762/decoder_verdicts.csv``, ``tools/decode_speechocean762.py``; the data
README names the commit of the settings): the *verdicts* family (share of words heard as
written; words said other, left out, unclear) and the *margins* family (mean and minimum word
margin, nats per frame, each word's clipped to +-10).

**Protocol.** That of ``experiments/pronunciation_panel.py``, reused, not re-implemented: its
five folds of 25 training speakers (``training_folds``), its whitening with the fitting folds'
statistics and centring (``_inputs``), and the model it chose for the panel (the committed
``chosen``: GPR-MA) fitted by ML-II on each fold exactly as it fits it (``fit_panel``). The
feature sets (``FEATURE_SETS``): the GOP features alone (the panel's inputs when this ran), with
all six decoder numbers, and with each family alone. The inputs are PCA-whitened and the kernel
is isotropic, as the panel's: an added feature gets the same weight as a GOP component, which is
what "an input of the panel" means here. A decoder column constant on a fold's fitting sentences
(a verdict the decoder never gave there) is left out of that fold and named in its row
(``constant_columns_left_out``).

**Metrics**, on the out-of-fold predictions of all 2,500 training sentences: the PCC and RMSE
of the predictive mean against the experts' mean (the panel's sentence-accuracy numbers), and
the held-out log score the panel's model was chosen by. Each set's difference from the GOP
features alone gets a 95% percentile interval from ``N_BOOTSTRAP`` resamplings of the 125
training speakers (a speaker's sentences go together: they share a voice), drawn with
``task_rng(0, "bootstrap")``.

**The rule, fixed before the full run** (``RULE``): the decoder's numbers are recommended as
panel inputs only if, with all six added, the speaker-bootstrap 95% interval of the PCC gain
lies above 0 and the RMSE falls (its change's point estimate below 0). The single families are
reported, not used to decide (four sets compared on one rule would be a search).

**What followed.** The rule recommended them, so the panel now reads them:
``experiments/pronunciation_panel.py`` fits on ``load_speechocean762("accuracy", "gop+decoder")``,
the GOP features and the four decoder columns that vary on the training sentences (left out and
unclear never occur there), and its own cross-validation on those inputs repeats this script's
deciding set fold by fold.

The reduced run refits fold 0 of every feature set at its committed hyper-parameters (no
optimiser) and compares its held-out log score, PCC and RMSE with the committed ones, within
``experiments.pronunciation_panel``'s tolerance (the same arithmetic after the optimiser).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

from course_lib.data.speechocean762 import load_decoder_verdicts, load_speechocean762
from course_lib.metrics import rmse
from course_lib.pronunciation.panel import panel_predictive
from course_lib.results import load_result

from .common import compare_runs, run_experiment, task_rng
from .pronunciation_panel import (ASPECT, N_FOLDS, RELATIVE_TOLERANCE, TOLERANCE,
                                  TOLERANCE_REASON, _by_speaker, _inputs, _split, fit_panel,
                                  hyperparameters, log_scores, refit, restarts, training_folds)

NAME = "panel_decoder_inputs"
PANEL_EXPERIMENT = "pronunciation_panel"
# the 17 GOP features: the panel's inputs when this was measured (it reads the decoder's too now)
INPUTS = BASELINE = "gop"
VERDICTS = ("as_written_share", "n_said_other", "n_left_out", "n_unclear")
MARGINS = ("margin_mean", "margin_min")
# the decoder columns each set adds to the 17 GOP features
FEATURE_SETS = {BASELINE: (), "gop+decoder": VERDICTS + MARGINS, "gop+verdicts": VERDICTS,
                "gop+margins": MARGINS}
DECIDING_SET = "gop+decoder"
N_BOOTSTRAP = 2000
INTERVAL = 0.95
N_WORKERS = 2
# the commit of experiments/results/misread_readings.json whose tuned settings made the data
DECODER_SETTINGS_COMMIT = "1cc08c4"
RULE = ("recommend the decoder's six numbers as panel inputs only if, with all six added to "
        "the GOP features, the speaker-bootstrap 95% interval of the out-of-fold PCC gain lies "
        "above 0 and the out-of-fold RMSE falls; the single families are reported, not used "
        "to decide")
REDUCED_RUN = ("the folds; fold 0 of every feature set refitted at its committed "
               "hyper-parameters: held-out log score, PCC and RMSE")


# ----- data -------------------------------------------------------------------------------

def panel_with(columns: tuple[str, ...]):
    """The panel's data set with the decoder's ``columns`` beside the GOP features (training
    rows; the test rows, which no fold touches, are NaN there)."""
    panel = load_speechocean762(ASPECT, INPUTS)
    if not columns:
        return panel
    verdicts = load_decoder_verdicts()
    extra = np.full((len(panel), len(columns)), np.nan)
    extra[panel.train] = verdicts.features[np.ix_(panel.train, [verdicts.feature_names.index(c)
                                                                for c in columns])]
    return replace(panel, features=np.hstack([panel.features, extra]),
                   feature_names=panel.feature_names + columns)


def _fold_inputs(panel, fit_items, held_items):
    """``_inputs`` of the columns that vary on the fitting sentences, and the names of those
    left out: a column constant there (a verdict the decoder never gave) carries nothing, and
    the whitening refuses it."""
    varies = np.ptp(panel.features[fit_items], axis=0) > 0
    kept = replace(panel, features=panel.features[:, varies],
                   feature_names=tuple(np.asarray(panel.feature_names)[varies]))
    return (*_inputs(kept, fit_items, held_items),
            [name for name, v in zip(panel.feature_names, varies) if not v])


def _held_out(gp, X_held, held, centre: float) -> dict:
    predictive = panel_predictive(gp, X_held, centre, held.scale)
    own, _ = log_scores(predictive, held)
    return {"held_out_log_score": float(own.mean()),
            "pcc": float(np.corrcoef(predictive.mean, held.means)[0, 1]),
            "rmse": rmse(predictive.mean, held.means), "per_sentence": own,
            "mean": predictive.mean}


def _fold_task(task: tuple[int, str, str]) -> dict:
    """One feature set's fold fitted by ML-II and scored on its held-out speakers (a worker's
    job)."""
    fold, feature_set, model = task
    started, cpu_started = time.perf_counter(), time.process_time()
    panel = panel_with(FEATURE_SETS[feature_set])
    fit_items, held_items = _split(panel, training_folds(panel)[fold])
    X_fit, X_held, centred, centre, constant = _fold_inputs(panel, fit_items, held_items)
    gp, fit = fit_panel(model, X_fit, centred)
    return {"hyperparameters": hyperparameters(model, gp), "constant_columns_left_out": constant,
            "log_marginal_likelihood": fit.log_evidence, **restarts(fit),
            **_held_out(gp, X_held, panel.ratings.subset(held_items), centre),
            "seconds": time.perf_counter() - started,
            "cpu_seconds": time.process_time() - cpu_started}


# ----- the comparison ---------------------------------------------------------------------

def _weighted_pcc(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PCC of x and y under each row of ``weights`` (a resampling's sentence counts)."""
    total = weights.sum(axis=1, keepdims=True)
    dx = x - (weights @ x)[:, None] / total
    dy = y - (weights @ y)[:, None] / total
    return (np.sum(weights * dx * dy, axis=1)
            / np.sqrt(np.sum(weights * dx ** 2, axis=1) * np.sum(weights * dy ** 2, axis=1)))


def _weighted_rmse(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.sqrt((weights @ (x - y) ** 2) / weights.sum(axis=1))


def speaker_resamplings(speakers: np.ndarray) -> np.ndarray:
    """(N_BOOTSTRAP, sentences) counts: how often each sentence enters a resampling of the
    speakers drawn with replacement (every sentence of a drawn speaker, as often as drawn)."""
    ids, index = np.unique(speakers, return_inverse=True)
    rng = task_rng(0, "bootstrap")
    counts = np.stack([np.bincount(rng.integers(0, ids.size, ids.size), minlength=ids.size)
                       for _ in range(N_BOOTSTRAP)])
    return counts[:, index].astype(float)


def _interval(values: np.ndarray) -> list[float]:
    tail = 100 * (1 - INTERVAL) / 2
    return [float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))]


def compare_sets(out_of_fold: dict, per_sentence: dict, truth: np.ndarray,
                 speakers: np.ndarray) -> dict:
    """Each set's out-of-fold PCC, RMSE and log score, and its difference from the baseline
    with speaker-bootstrap intervals."""
    weights = speaker_resamplings(speakers)
    base = out_of_fold[BASELINE]
    base_pcc, base_rmse = _weighted_pcc(weights, base, truth), _weighted_rmse(weights, base, truth)
    base_log = _by_speaker(per_sentence[BASELINE], speakers)
    ids, index = np.unique(speakers, return_inverse=True)
    table = {}
    for name, mean in out_of_fold.items():
        log_gain = _by_speaker(per_sentence[name], speakers) - base_log
        row = {"pcc": float(np.corrcoef(mean, truth)[0, 1]), "rmse": rmse(mean, truth),
               "log_score": float(_by_speaker(per_sentence[name], speakers).mean())}
        if name != BASELINE:
            row.update({
                "pcc_gain": row["pcc"] - float(np.corrcoef(base, truth)[0, 1]),
                "pcc_gain_interval": _interval(_weighted_pcc(weights, mean, truth) - base_pcc),
                "rmse_change": row["rmse"] - rmse(base, truth),
                "rmse_change_interval": _interval(_weighted_rmse(weights, mean, truth)
                                                  - base_rmse),
                "log_score_gain": float(log_gain.mean()),
                "log_score_gain_se": float(log_gain.std(ddof=1) / np.sqrt(log_gain.size))})
        table[name] = row
    deciding = table[DECIDING_SET]
    adopt = deciding["pcc_gain_interval"][0] > 0 and deciding["rmse_change"] < 0
    return {"table": table, "n_sentences": int(truth.size), "n_speakers": int(ids.size),
            "decision": {"set": DECIDING_SET, "recommend_as_panel_inputs": bool(adopt),
                         "rule": RULE}}


# ----- the run ----------------------------------------------------------------------------

def _fold_fits(model: str) -> dict:
    tasks = [(fold, name, model) for name in FEATURE_SETS for fold in range(N_FOLDS)]
    with ProcessPoolExecutor(max_workers=min(N_WORKERS, os.cpu_count() or 1)) as pool:
        done = list(pool.map(_fold_task, tasks))
    return {(fold, name): entry for (fold, name, _), entry in zip(tasks, done)}


def _cross_validation(panel, folds, fits) -> tuple[dict, dict, dict]:
    """Per-fold rows, and each set's out-of-fold means and log scores in training order."""
    position = {item: k for k, item in enumerate(panel.train)}
    rows, out_of_fold, per_sentence = {}, {}, {}
    for name in FEATURE_SETS:
        mean, own = np.empty(len(panel.train)), np.empty(len(panel.train))
        rows[name] = []
        for k, fold in enumerate(folds):
            entry = fits[(k, name)]
            where = [position[i] for i in _split(panel, fold)[1]]
            mean[where], own[where] = entry["mean"], entry["per_sentence"]
            rows[name].append({key: value for key, value in entry.items()
                               if key not in ("per_sentence", "mean")})
        out_of_fold[name], per_sentence[name] = mean, own
    return rows, out_of_fold, per_sentence


def _reduced_fold(model: str, committed: dict) -> dict:
    """Fold 0 of every set at its committed hyper-parameters (no optimiser)."""
    out = {}
    for name, columns in FEATURE_SETS.items():
        panel = panel_with(columns)
        fit_items, held_items = _split(panel, training_folds(panel)[0])
        X_fit, X_held, centred, centre, _ = _fold_inputs(panel, fit_items, held_items)
        gp = refit(model, committed["folds_by_set"][name][0]["hyperparameters"], X_fit, centred)
        held = _held_out(gp, X_held, panel.ratings.subset(held_items), centre)
        out[name] = [{key: held[key] for key in ("held_out_log_score", "pcc", "rmse")}]
    return out


def run(reduced: bool) -> dict:
    panel = load_speechocean762(ASPECT, INPUTS)
    folds = training_folds(panel)
    # the reduced run refits the model this run chose, whatever the panel has chosen since
    if reduced:
        model = load_result(NAME)["result"]["model"]
    else:
        model = load_result(PANEL_EXPERIMENT)["result"]["chosen"]
    result = {"model": model, "folds": [fold.tolist() for fold in folds]}
    if reduced:
        result["folds_by_set"] = _reduced_fold(model, load_result(NAME)["result"])
    else:
        fits = _fold_fits(model)
        result["folds_by_set"], out_of_fold, per_sentence = _cross_validation(panel, folds, fits)
        train = panel.ratings.subset(panel.train)
        result["comparison"] = compare_sets(out_of_fold, per_sentence, train.means,
                                            np.asarray(panel.speakers)[panel.train])
        # the baseline is the panel's own CV: its folds should be pronunciation_panel's
        committed = load_result(PANEL_EXPERIMENT)["result"]["cross_validation"]["folds"][model]
        result["baseline_against_panel_cv"] = {
            "panel_held_out_log_scores": [row["held_out_log_score"] for row in committed],
            "ours": [row["held_out_log_score"] for row in result["folds_by_set"][BASELINE]]}
        result["worker_cpu_seconds"] = float(sum(entry["cpu_seconds"] for entry in fits.values()))
    return {"title": "The word decoder's verdicts as inputs of the pronunciation panel: "
                     "speaker-disjoint cross-validation on the training split",
            "settings": settings(), "result": result, "source": SOURCE,
            "differences": DIFFERENCES}


def settings() -> dict:
    return {
        "data": f"load_speechocean762({ASPECT!r}, {INPUTS!r}) training split (2500 sentences, "
                "125 speakers), five experts' sentence accuracy; load_decoder_verdicts() "
                "(data/speechocean762/decoder_verdicts.csv, ReadingDecoder at the tuned "
                f"settings of experiments/results/misread_readings.json at "
                f"{DECODER_SETTINGS_COMMIT})",
        "feature_sets": {name: list(columns) for name, columns in FEATURE_SETS.items()},
        "model": "the committed choice of experiments/pronunciation_panel.py, fitted by its "
                 "fit_panel on each fold's fitting speakers (its whitening, centring, starts, "
                 "bounds and restarts)",
        "folds": "experiments.pronunciation_panel.training_folds (five folds of 25 training "
                 "speakers)",
        "n_folds": N_FOLDS, "n_bootstrap": N_BOOTSTRAP, "interval": INTERVAL,
        "bootstrap": "the 125 training speakers resampled with replacement, "
                     "task_rng(0, 'bootstrap'); percentile interval of the difference",
        "deciding_set": DECIDING_SET, "rule": RULE, "n_workers": N_WORKERS,
        "reduced_run": REDUCED_RUN, "tolerance": TOLERANCE,
        "relative_tolerance": RELATIVE_TOLERANCE, "tolerance_reason": TOLERANCE_REASON}


SOURCE = {
    "issue": "issue 58, point 3: decoding margins or completeness become inputs of the panel, "
             "chosen by speaker-disjoint cross-validation on the training split; the misread "
             "reading then scores below the right one in at least 90% of pairs",
    "panel_today": "experiments/results/pronunciation_panel.json (GOP features only)",
    "pairs_today": "experiments/results/misread_readings.json: the misread reading scored "
                   "below the right one in 59.4% of pairs (panel without the decoder)",
}
DIFFERENCES = (
    "No paper is reproduced here. The measurement is on the corpus's real learners, whose "
    "readings are mostly complete (the experts scored accuracy, not miscues), not on the "
    "synthetic misread readings of the pairs goal: it says whether the decoder's numbers "
    "predict the experts, not whether they order a misread reading below a right one.")


# ----- comparing a reduced run ------------------------------------------------------------

def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    folds = {name: [{key: rows[0][key] for key in ("held_out_log_score", "pcc", "rmse")}]
             for name, rows in committed["folds_by_set"].items()}
    return reduced, {"model": committed["model"], "folds": committed["folds"],
                     "folds_by_set": folds}


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    ours, theirs = select_for_comparison(reduced, committed)
    return compare_runs(ours, theirs, tol=TOLERANCE, rtol=RELATIVE_TOLERANCE)


def format_table(document: dict) -> str:
    comparison = document["result"]["comparison"]
    lines = ["| inputs | out-of-fold PCC | PCC gain (95% speaker CI) | RMSE | RMSE change "
             "(95% speaker CI) | log score gain (± se) |", "|---|---|---|---|---|---|"]
    for name, row in comparison["table"].items():
        if name == BASELINE:
            lines.append(f"| {name} (the panel today) | {row['pcc']:.3f} | | {row['rmse']:.3f} "
                         "| | |")
            continue
        low, high = row["pcc_gain_interval"]
        r_low, r_high = row["rmse_change_interval"]
        lines.append(f"| {name} | {row['pcc']:.3f} | {row['pcc_gain']:+.3f} ({low:+.3f}, "
                     f"{high:+.3f}) | {row['rmse']:.3f} | {row['rmse_change']:+.3f} "
                     f"({r_low:+.3f}, {r_high:+.3f}) | {row['log_score_gain']:+.4f} ± "
                     f"{row['log_score_gain_se']:.4f} |")
    decision = comparison["decision"]
    lines += ["", f"Decision ({decision['set']}): "
              + ("recommend as panel inputs" if decision["recommend_as_panel_inputs"]
                 else "do not add to the panel") + "."]
    return "\n".join(lines)


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison, TOLERANCE,
                          argv, format_table, RELATIVE_TOLERANCE, compare_with_committed)


if __name__ == "__main__":
    main()
