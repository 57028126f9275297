"""The over-confident rater explorer of lecture 07, fitted ahead on every value of its noise slider.

The explorer (:func:`course_lib.widgets.mixed.rater_explorer`) deals the calibrated haptic-like
subject's confidence levels out again, ranked by the true strength plus noise of sd sigma, and
scores the preference model with those ratings on 4 fixed splits (20 training pairs, 30 test
pairs; Brier, Wu et al. 2025 eq. 3, and F1). A split's fit depends only on its training pairs'
levels, and the four fits of a new setting take about two seconds. This script makes them for
the subject's own histogram at all 41 positions of the slider (sigma = 10^-2 .. 10^2 in steps
of 0.1 in the exponent) with :class:`course_lib.simulators.rating_noise.RatingNoiseStudy`, and
commits the table that lecture 07 passes to the explorer, so that moving the slider draws at
once. A typed histogram of other counts is still fitted when asked.

The table is the explorer's own state, not a source's number: the source is empty, and the
reduced run refits the slider's starting value without the table and compares it with the table.

Run from the repository root: ``.venv/bin/python -m experiments.overconfident_rater_fits``
"""

from __future__ import annotations

import numpy as np

from course_lib.gp import SquaredExponential
from course_lib.simulators.confidence_raters import RATER_TOL, haptic_like_subjects
from course_lib.simulators.rating_noise import RatingNoiseStudy

from .common import run_experiment

NAME = "overconfident_rater_fits"
# lecture 07's settings (section 7): its SEED, the calibrated subject, its kernel and splits
SEED = 2027
LENGTHSCALE, VARIANCE = 0.3, 2.0
N_TRAIN, N_SPLITS = 20, 4
# the explorer's FloatLogSlider: exponents -2 .. 2 in steps of 0.1
EXPONENTS = np.round(np.arange(-20, 21) / 10, 1)
REDUCED_EXPONENTS = np.array([-1.0])   # where the slider starts (sigma = 0.1)
# The fits stop at RATER_TOL (1e-7 relative ELBO), where a Brier score is within about 1e-4 of
# the converged one (course_lib.simulators.confidence_raters); two machines' fits may stop on
# either side, so they agree within twice that, well below the 3 decimals the explorer prints.
TOLERANCE = 5e-4


def study(fitted=None) -> RatingNoiseStudy:
    return RatingNoiseStudy(haptic_like_subjects(rng=SEED)[0],
                            SquaredExponential(LENGTHSCALE, VARIANCE), n_train=N_TRAIN,
                            n_splits=N_SPLITS, tol=RATER_TOL, rng=SEED, fitted=fitted)


def run(reduced: bool) -> dict:
    fits = study()
    counts = np.bincount(fits.trials.levels.astype(int), minlength=3)
    exponents = REDUCED_EXPONENTS if reduced else EXPONENTS
    by_noise = {}
    for exponent in exponents:
        scores = fits.with_ratings(fits.levels(counts, 10.0 ** exponent))
        by_noise[f"{exponent:+.1f}"] = {"brier": scores[:, 0], "f1": scores[:, 1]}
    result = {"with_ratings_by_log10_noise_sd": by_noise,
              "choices_only": {"brier": fits.choices_only[:, 0], "f1": fits.choices_only[:, 1]},
              "n_distinct_fits": len(fits.table()["fits"])}
    if not reduced:
        result["table"] = fits.table()
    return {
        "title": "The over-confident rater explorer (lecture 07), fitted ahead on its noise "
                 "slider",
        "settings": {"subject": "haptic_like_subjects(rng=SEED)[0] (calibrated)", "seed": SEED,
                     "kernel": {"name": "SquaredExponential", "lengthscale": LENGTHSCALE,
                                "variance": VARIANCE},
                     "n_train": N_TRAIN, "n_splits": N_SPLITS, "tol": RATER_TOL,
                     "counts": counts, "log10_noise_sd": exponents},
        "result": result,
        "source": {"paper": "none: the explorer's own fits (Wu et al. 2025, section 5.1, is "
                            "the study the explorer varies)"},
        "differences": "Not a reproduction: the table holds the fits the explorer would make, "
                       "made ahead so that its slider answers at once. Its fingerprint ties it "
                       "to the subject, kernel, splits and tolerance; the explorer computes "
                       "any fit the table lacks, and ignores (with a warning) a table made for "
                       "other settings. The reduced run refits the slider's starting value "
                       "without the table.",
    }


def select_for_comparison(reduced: dict, committed: dict) -> tuple[dict, dict]:
    """The scores of both models (the results' other keys describe the run's size)."""
    keys = ("with_ratings_by_log10_noise_sd", "choices_only")
    return ({key: reduced[key] for key in keys}, {key: committed[key] for key in keys})


def main(argv=None):
    return run_experiment(NAME, __doc__.splitlines()[0], run, select_for_comparison, TOLERANCE,
                          argv)


if __name__ == "__main__":
    main()
