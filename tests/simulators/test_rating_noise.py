"""course_lib.simulators.rating_noise: the over-confident rater study and its table of fits.

A study read from another's table must give the very rows the other computed (a table is a
cache, never a different answer) and compute nothing for them; a table made for other settings
is refused with a warning, and the study then fits as if it had none.
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.gp.kernels import SquaredExponential
from course_lib.simulators import rating_noise
from course_lib.simulators.confidence_raters import haptic_like_subjects, preference_scores
from course_lib.simulators.rating_noise import RatingNoiseStudy

SETTINGS = [("3 5 8", 0.01), ("3 5 8", 100.0), ("0 2 14", 1.0)]


def small_study(rng=4, fitted=None):
    return RatingNoiseStudy(haptic_like_subjects(n_pairs=16, rng=11)[0],
                            SquaredExponential(0.3, 2.0), n_train=8, n_splits=2, rng=rng,
                            fitted=fitted)


@pytest.fixture(scope="module")
def fitted_study():
    study = small_study()
    rows = {setting: study.with_ratings(study.levels(np.array(setting[0].split(), float),
                                                     setting[1]))
            for setting in SETTINGS}
    return study, rows


def _refuse_to_fit(*args, **kwargs):
    raise AssertionError("a fit in the table was computed again")


def test_a_study_scores_the_levels_it_deals_with_the_library(fitted_study):
    study, rows = fitted_study
    counts, noise_sd = SETTINGS[1]
    levels = study.levels(np.array(counts.split(), float), noise_sd)
    assert np.bincount(levels.astype(int), minlength=3).tolist() == [3, 5, 8]
    expected = preference_scores(study.trials, levels, study.kernel, study.splits,
                                 use_ratings=True, likert=study.likert, tol=study.tol)
    np.testing.assert_array_equal(rows[SETTINGS[1]], expected)


def test_a_study_from_a_table_answers_its_settings_without_fitting(fitted_study, monkeypatch):
    study, rows = fitted_study
    table = study.table()
    assert len(table["fits"]) <= len(SETTINGS) * len(study.splits)
    monkeypatch.setattr(rating_noise, "preference_scores", _refuse_to_fit)
    again = small_study(fitted=table)
    np.testing.assert_array_equal(again.choices_only, study.choices_only)
    for (counts, noise_sd), expected in rows.items():
        levels = again.levels(np.array(counts.split(), float), noise_sd)
        np.testing.assert_array_equal(again.with_ratings(levels), expected)


def test_a_table_of_other_settings_is_ignored_with_a_warning(fitted_study):
    study, rows = fitted_study
    with pytest.warns(UserWarning, match="^fitted: the table was made for other"):
        other = small_study(rng=5, fitted=study.table())
    assert other.fingerprint != study.fingerprint
    assert other.table()["fits"] == [], "no fit of the other table may be kept"
    fresh = small_study(rng=5)
    np.testing.assert_array_equal(other.choices_only, fresh.choices_only)


@pytest.mark.parametrize("fitted", [{"fits": []}, [1, 2, 3], "table"])
def test_what_is_not_a_table_is_refused_by_name(fitted):
    with pytest.raises(ValueError, match="^fitted: expected a table"):
        small_study(fitted=fitted)
