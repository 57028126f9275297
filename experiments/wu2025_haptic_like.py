"""The haptic study of Wu et al. (2025, section 5.3, App. C): do confidence ratings help?

The paper's data (Driller 2024: 5 participants, 50 pairs of 3-D printed surfaces each, a choice
"which felt rougher" and a confidence rating 1 .. 9 mapped to 0 .. 2) are private. The subjects
here are substitutes built from the printed set-up
(:func:`course_lib.simulators.confidence_raters.haptic_like_subjects`): 5 subjects on a 2-D latent
over [0, 1]^2 (ours), 50 uniform pairs each, choices ~ Bernoulli(Phi(df)); subjects #1, #3, #4,
#5 rate 1 + 8 tanh|df| plus calibration noise (sd 0.75, 0.5, 1.0, 1.5 rating units); subject #2
rates by the paper's printed marginals (48 % nines, 84 % >= 7, none < 3) whatever the pair.

Per subject, ``N_SPLITS`` random orders of the 50 trials (``task_rng((subject, split),
"haptic/split")``); for each training size in (10, 20, 30) the first n trials train and the
remaining 50 - n test (the paper: 20 / 30 in the main text, sizes 10, 20, 30 in App. C). Two
models are fitted to the same training trials (:class:`course_lib.mixed.confidence.
ConfidencePreferenceGP`): ``preference`` (the choices alone, ``use_ratings=False``) and
``mixed`` (choices plus the Likert ratings). Both: zero mean, SE-ARD kernel with variance in
[1, 4] (the paper's box prior on the output scale, as hard bounds) and Gamma(3, 6) priors on the
lengthscales, MAP-II (one L-BFGS-B run from variance 2, lengthscales 0.5); Likert likelihood
with 3 levels, its two gaps learned by MAP-II with the kernel (as the paper), starting at (1, 1)
(cut points 0, 1, 2) under the weak prior of :func:`course_lib.mixed.confidence.gap_prior`, lapse
0.1 fixed (the paper's). Measured on the test trials: Brier score (the paper's eq. 3,
p = Phi(mu / sqrt(1 + v)) on the latent difference) and F1 of "the first was preferred"
(:func:`course_lib.metrics.brier_preference`, ``f1_preference``).

Budget rule (fixed before any outcome was seen): splits = min(20, floor(B / c)), with c the CPU
cost of one split (5 subjects x 3 sizes x 2 fits) measured on split 0 of subjects #1 and #2
before the full run, about 100 s, and B = 17 CPU-minutes, what the 2-core machine could give
this run before the session's end: 10 splits (the paper: 100). 20 splits, about 33 CPU-minutes,
are ``N_SPLITS = 20``.

Layout of ``result``: ``per_split: [{subject, split, n_train, preference: {brier, f1,
elbo, kernel}, mixed: {..., cut_points}}, ...]``; ``summary: {subject: {n_train: {brier, f1: {preference, mixed,
difference, difference_se, mixed_better_share}, verdict}}}``; ``subjects`` (each subject's
rating and level counts); ``claims`` (the paper's directions with our verdicts).
:func:`fit_and_score`, :func:`make_model` and :func:`summarise_pairs` are shared with the
gait-like experiment (``wu2025_gait_like``).
"""

from __future__ import annotations

import warnings

import numpy as np

from course_lib.gp import SquaredExponential
from course_lib.mixed.confidence import GAP_PRIOR_LOG_SD, ConfidencePreferenceGP
from course_lib.mixed.feedback_likelihoods import LikertConfidence
from course_lib.gp.priors import Gamma
from course_lib.linalg import JitterWarning
from course_lib.metrics import brier_preference, f1_preference
from course_lib.simulators.confidence_raters import (HAPTIC_NOISE_SD, OVERCONFIDENT_SUBJECT,
                                                     haptic_like_subjects)

from .common import REPLICATE_REASON, compare_replicates, compare_runs, run_experiment, task_rng

NAME = "wu2025_haptic_like"
N_PAIRS = 50
TRAINING_SIZES = (10, 20, 30)
N_SPLITS = 10        # the budget rule of the module docstring
REDUCED_SPLITS = {1: (0,), 2: (0,)}           # subject number -> splits of the reduced run
# One training size: the fits at 20 pairs run the same code on more trials (and cost more); each
# subject's calibrated / over-confident ratings are kept.
REDUCED_SIZES = (10,)
VARIANCE_BOUNDS = (1.0, 4.0)
LENGTHSCALE_BOUNDS = (0.01, 10.0)
LENGTHSCALE_PRIOR = (3.0, 6.0)
START_VARIANCE, START_LENGTHSCALE = 2.0, 0.5
LIKERT_GAPS, LIKERT_LAPSE = (1.0, 1.0), 0.1    # the gaps' start; the lapse is fixed
MAP_II_RESTARTS, MAP_II_MAX_ITER = 1, 30
INNER_TOL, INNER_MAX_ITER = 1e-7, 500
ARMS = ("preference", "mixed")
# a paired difference counts as a direction when it is more than two standard errors from 0
SE_FACTOR = 2.0
TOLERANCE = 1e-6
TOLERANCE_REASON = (
    "A reduced run repeats the full run's fits for the subjects, splits and sizes it selects "
    "(every random number is keyed by subject and split); the splits of one subject and size "
    "are the replicates. The subjects themselves (simulated once, no optimiser) must agree "
    "within 1e-6 + 1e-6 x |value|. " + REPLICATE_REASON + " Here "
    "the choices are MAP-II restarts and L-BFGS-B's end points on a flat posterior.")


def model_settings(learn_cut_points: bool = True) -> dict:
    likert = ({"levels": 3, "start_gaps": LIKERT_GAPS, "lapse": LIKERT_LAPSE,
               "learned": "gaps (MAP-II with the kernel); lapse fixed",
               "gap_prior": f"LogNormal(log(max_gap / 2) = log 1, {GAP_PRIOR_LOG_SD:g}) "
                            "(course_lib.mixed.confidence.gap_prior), gaps <= max_gap 2"}
              if learn_cut_points else
              {"levels": 3, "gaps": LIKERT_GAPS, "lapse": LIKERT_LAPSE, "learned": False})
    return {"kernel": "SE-ARD, zero mean", "variance_bounds": VARIANCE_BOUNDS,
            "lengthscale_bounds": LENGTHSCALE_BOUNDS,
            "lengthscale_prior": f"Gamma{LENGTHSCALE_PRIOR} (shape, rate)",
            "start": {"variance": START_VARIANCE, "lengthscale": START_LENGTHSCALE},
            "likert": likert,
            "map_ii": {"n_restarts": MAP_II_RESTARTS, "max_iter": MAP_II_MAX_ITER},
            "inner": {"tol": INNER_TOL, "max_iter": INNER_MAX_ITER},
            "preference_likelihood": "Phi(f(a) - f(b)) (PairwiseProbit, noise_sd 1/sqrt 2 "
                                     "fixed)"}


def make_model(dim: int, use_ratings: bool,
               learn_cut_points: bool = True) -> ConfidencePreferenceGP:
    """The paper's preference model (App. C) on ``dim`` unit-scaled inputs (module docstring);
    ``learn_cut_points=False`` keeps the Likert cut points at their start (0, 1, 2)."""
    kernel = SquaredExponential([START_LENGTHSCALE] * dim, START_VARIANCE,
                                lengthscale_bounds=LENGTHSCALE_BOUNDS,
                                variance_bounds=VARIANCE_BOUNDS)
    priors = {f"lengthscale_{i}": Gamma(*LENGTHSCALE_PRIOR) for i in range(dim)}
    return ConfidencePreferenceGP(kernel, likert=LikertConfidence(3, LIKERT_GAPS, LIKERT_LAPSE),
                                  use_ratings=use_ratings, learn_cut_points=learn_cut_points,
                                  priors=priors, tol=INNER_TOL, max_iter=INNER_MAX_ITER)


def fit_and_score(trials, train, test, use_ratings: bool,
                  learn_cut_points: bool = True) -> dict:
    """Fit one model to the ``train`` trials (MAP-II) and score it on the ``test`` trials."""
    X, first, second = trials.items(train)
    gp = make_model(X.shape[1], use_ratings, learn_cut_points)
    with warnings.catch_warnings():
        # items at random inputs can sit close together; the jitter is reported by the fit
        warnings.simplefilter("ignore", JitterWarning)
        gp.fit(X, first, second, trials.choices[train], trials.levels[train])
        gp.optimise_hyperparameters(MAP_II_RESTARTS, rng=0, max_iter=MAP_II_MAX_ITER)
        mean, var = gp.predict_difference(trials.X_first[test], trials.X_second[test])
    labels = trials.choices[test]
    scores = {"brier": brier_preference(mean, var, labels),
              "f1": f1_preference(mean, var, labels), "elbo": gp.result.value,
              "kernel": gp.kernel.params}
    learned = use_ratings and learn_cut_points
    return scores | ({"cut_points": gp.likert.cut_points} if learned else {})


def summarise_pairs(entries: list[dict]) -> dict:
    """Per metric: the arms' means, the mean paired difference mixed - preference, its standard
    error and the share of splits where mixed is better; a verdict per metric."""
    out = {}
    for metric, better in (("brier", -1.0), ("f1", 1.0)):
        pref = np.array([e["preference"][metric] for e in entries])
        mixed = np.array([e["mixed"][metric] for e in entries])
        difference = mixed - pref
        se = float(difference.std(ddof=1) / np.sqrt(difference.size)) if difference.size > 1 \
            else None
        mean = float(difference.mean())
        if se is None:
            verdict = "one split only"
        elif better * mean > SE_FACTOR * se:
            verdict = "mixed better"
        elif -better * mean > SE_FACTOR * se:
            verdict = "mixed worse"
        else:
            verdict = "no clear difference"
        out[metric] = {"preference": float(pref.mean()), "mixed": float(mixed.mean()),
                       "difference": mean, "difference_se": se,
                       "mixed_better_share": float(np.mean(better * difference > 0)),
                       "verdict": verdict}
    return out


def split_order(subject: int, split: int) -> np.ndarray:
    return task_rng((subject, split), "haptic/split").permutation(N_PAIRS)


def subjects():
    return haptic_like_subjects(n_pairs=N_PAIRS, rng=task_rng(0, "haptic/subjects"))


def run_split(trials, subject: int, split: int, n_train: int) -> dict:
    order = split_order(subject, split)
    train, test = order[:n_train], order[n_train:]
    entry = {"subject": subject, "split": split, "n_train": n_train}
    for arm in ARMS:
        entry[arm] = fit_and_score(trials, train, test, use_ratings=arm == "mixed")
    return entry


def summarise(per_split: list[dict]) -> dict:
    summary = {}
    for subject in sorted({e["subject"] for e in per_split}):
        summary[f"#{subject}"] = {
            str(n): summarise_pairs([e for e in per_split
                                     if e["subject"] == subject and e["n_train"] == n])
            for n in sorted({e["n_train"] for e in per_split if e["subject"] == subject})}
    return summary


def claims(summary: dict) -> list[dict]:
    """The paper's two directions, with our verdict per subject (every training size)."""
    out = []
    for name, by_size in summary.items():
        overconfident = name == f"#{OVERCONFIDENT_SUBJECT}"
        verdicts = [by_size[n][m]["verdict"] for n in by_size for m in ("brier", "f1")]
        if overconfident:
            claim = "mixing does not help the over-confident subject #2"
            holds = "holds" if "mixed better" not in verdicts else (
                "partly" if verdicts.count("mixed better") < len(verdicts) else "does not hold")
        else:
            claim = f"mixing improves Brier and F1 for calibrated subject {name}"
            better = verdicts.count("mixed better")
            holds = ("holds" if better == len(verdicts) else
                     "partly" if better > 0 and "mixed worse" not in verdicts else
                     "does not hold")
        out.append({"claim": claim, "subject": name, "verdicts": verdicts, "holds": holds})
    return out


def run(reduced: bool) -> dict:
    everyone = subjects()
    per_split = []
    for number, trials in enumerate(everyone, start=1):
        splits = REDUCED_SPLITS.get(number, ()) if reduced else range(N_SPLITS)
        for split in splits:
            for n_train in (REDUCED_SIZES if reduced else TRAINING_SIZES):
                per_split.append(run_split(trials, number, split, n_train))
    summary = summarise(per_split)
    subject_table = {t.name: {"rating_counts": np.bincount(t.ratings.astype(int),
                                                           minlength=10)[1:],
                              "level_counts": np.bincount(t.levels.astype(int), minlength=3),
                              "share_first_preferred": float(t.choices.mean())}
                     for t in everyone}
    settings = {
        "n_subjects": len(everyone), "n_pairs": N_PAIRS, "training_sizes": TRAINING_SIZES,
        "n_splits": N_SPLITS, "reduced": reduced,
        "budget_rule": "splits = min(20, floor(17 CPU-min / CPU cost of one split)); one "
                       "split (5 subjects x 3 sizes x 2 fits) measured at about 100 CPU-s",
        "reduced_selection": {"subjects_splits": REDUCED_SPLITS, "sizes": REDUCED_SIZES},
        "subjects": "course_lib.simulators.confidence_raters.haptic_like_subjects(n_pairs=50, "
                    "rng=task_rng(0, 'haptic/subjects'))",
        "calibration_noise_sd": HAPTIC_NOISE_SD,
        "overconfident_subject": OVERCONFIDENT_SUBJECT,
        "model": model_settings(),
        "verdict_rule": f"per subject, size and metric: 'mixed better' when the mean paired "
                        f"difference (mixed - preference) favours mixed by more than "
                        f"{SE_FACTOR:g} standard errors, 'mixed worse' the other way, else "
                        "'no clear difference'",
        "tolerance": TOLERANCE, "tolerance_reason": TOLERANCE_REASON,
    }
    return {
        "title": "Wu et al. (2025), haptic study (section 5.3) on simulated subjects: ratings or "
                 "not",
        "settings": settings,
        "result": {"per_split": per_split, "summary": summary, "subjects": subject_table,
                   "claims": claims(summary)},
        "source": {
            "paper": "K. Wu, C. Sanders, B. Letham, P. Guan, 'Mixed Likelihood Variational "
                     "Gaussian Processes' (seed 003), section 5.3, App. C, Figs. 5, 10, 11",
            "numbers": {"subjects": 5, "pairs_per_subject": 50, "train_test": [20, 30],
                        "training_sizes": [10, 20, 30], "splits": 100,
                        "subject_2_ratings": {"nines": 0.48, "at_least_7": 0.84,
                                              "below_3": 0.0},
                        "rating_scale": "1-9 mapped 1-3 -> 0, 4-6 -> 1, 7-9 -> 2"},
            "claims": ["the mixed model (with the Likert likelihood) improves Brier and F1 for "
                       "all subjects except subject #2", "subject #2 (48 % nines, 84 % >= 7, "
                       "none < 3) is over-confident: mixing does not help"],
            "outcomes": "figures only; no Brier or F1 value survives in the text",
        },
        "differences": DIFFERENCES,
    }


DIFFERENCES = (
    "The subjects are simulated: Driller's (2024) haptic data are private. Our latent "
    "(3 (x1 - 1/2) + 0.8 x1 sin(2 pi x2) on [0, 1]^2), uniform random stimulus pairs and the "
    "calibration model (1 + 8 tanh|df| plus noise, rounded to 1..9) are our choices; subject "
    "#2's ratings follow the printed marginals (the split of the remaining 16 % over 3..8 is "
    f"ours). {N_SPLITS} random splits per subject and size instead of 100 (the budget rule "
    "of the script: every fit is a variational GP with MAP-II, on 2 cores shared by several "
    "jobs). The Likert cut points are learned with the kernel as in the seed, under a weak "
    "LogNormal(log 1, 1) prior on each gap (ours, from the seed's bound gap <= 2); lapse "
    "fixed at the seed's 0.1. Full-rank "
    "variational GP on the items instead of 100 Sobol inducing points on the pair space "
    "(the same model up to the inducing approximation). "
    f"MAP-II is one L-BFGS-B run of at most {MAP_II_MAX_ITER} "
    f"iterations, inner tolerance {INNER_TOL:g} (the ELBO to about 1e-3 nats). The box "
    "prior on the output scale is a hard bound [1, 4].")


def score_cells(entry: dict) -> str:
    """One summary entry's README cells: Brier and F1 (preference / mixed, the difference and
    its se) and the two verdicts (shared with wu2025_gait_like's table)."""
    cells = []
    for metric in ("brier", "f1"):
        e = entry[metric]
        se = "" if e["difference_se"] is None else f" +- {e['difference_se']:.3f}"
        cells.append(f"{e['preference']:.3f} / {e['mixed']:.3f} ({e['difference']:+.3f}{se})")
    return (f"{cells[0]} | {cells[1]} | {entry['brier']['verdict']}; "
            f"{entry['f1']['verdict']}")


def format_table(document: dict) -> str:
    rows = ["| subject | n train | Brier: preference / mixed (difference +- se) | "
            "F1: preference / mixed (difference +- se) | verdicts (Brier; F1) |",
            "|---|---|---|---|---|"]
    for name, by_size in document["result"]["summary"].items():
        for n, entry in by_size.items():
            rows.append(f"| {name} | {n} | {score_cells(entry)} |")
    return "\n".join(rows)


def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    """The reduced run's fits against the same subject, split and size of the full run."""
    by_key = {(e["subject"], e["split"], e["n_train"]): e for e in committed["per_split"]}
    ours = {"per_split": reduced["per_split"], "subjects": reduced["subjects"]}
    theirs = {"per_split": [by_key.get((e["subject"], e["split"], e["n_train"]))
                            for e in reduced["per_split"]],
              "subjects": committed["subjects"]}
    return ours, theirs


def compare_with_committed(reduced: dict, committed: dict) -> list[str]:
    """Each fit against the same subject, split and size of the full run, within the splits'
    spread; the simulated subjects within TOLERANCE."""
    ours, theirs = select_for_comparison(reduced, committed)
    return (compare_runs(ours["subjects"], theirs["subjects"], tol=TOLERANCE, rtol=TOLERANCE,
                         path="subjects")
            + compare_replicates(reduced["per_split"], committed["per_split"],
                                 key=("subject", "split", "n_train"), replicate="split"))


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison,
                          TOLERANCE, argv, format_table=format_table,
                          compare=compare_with_committed)


if __name__ == "__main__":
    main()
