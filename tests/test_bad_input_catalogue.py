"""The bad-input catalogue stays large and covers every public family of course_lib."""

import importlib
from pathlib import Path

import pytest
from bad_input import BadInput, RightAnswer, check_names_argument

TESTS = Path(__file__).parent
# each family's cases beside its tests: tests/preference/test_ep_bad_input.py next to tests/preference/test_ep.py
CATALOGUE_FILES = sorted(TESTS.rglob("test_*_bad_input.py"))
MINIMUM_CASES = 150
# Every family of public functions must be fed bad input somewhere in the catalogue.
FAMILIES = {"data", "dtw", "dtw_search", "term_discovery", "features", "gaussian", "gmm", "kmeans",
            "hmm", "vq",
            "recognition", "gp", "linalg", "checks", "widgets",
            # Unit 5
            "raters", "metrics", "annotators", "affinity",
            # Unit 6
            "comparisons", "likelihoods", "laplace", "preference", "acquisition", "listeners",
            "personalisation_study",
            "bald", "sparse_preference", "ep", "stimuli",
            # Unit 7
            "mixed_likelihood", "variational", "variational_gp", "feedback_likelihoods", "levelset",
            "sparse_variational", "sparse_variational_gp",
            "constraints", "psychophysics", "levelset_session", "levelset_model",
            "confidence", "confidence_raters"}


def _all_cases() -> list[BadInput | RightAnswer]:
    cases = []
    for path in CATALOGUE_FILES:
        module = ".".join(("tests", *path.relative_to(TESTS).with_suffix("").parts))  # as pytest names it
        cases.extend(importlib.import_module(module).CASES)
    return cases


def test_catalogue_is_large_and_ids_are_distinct():
    cases = _all_cases()
    ids = [c.case for c in cases]
    assert len(ids) == len(set(ids)), "two bad-input cases share an id"
    assert len(cases) >= MINIMUM_CASES, f"only {len(cases)} bad-input cases"


def test_every_family_is_covered():
    covered = {c.case.split(":")[0] for c in _all_cases()}
    assert FAMILIES <= covered, f"families without bad-input cases: {sorted(FAMILIES - covered)}"


def test_the_short_check_fails_on_a_wrong_name_or_no_error():
    def refuse(message):
        def call():
            raise ValueError(message)
        return call

    check_names_argument(refuse("x: must be finite"), "x")
    with pytest.raises(AssertionError):
        check_names_argument(refuse("must be finite, x"), "x")
    with pytest.raises(pytest.fail.Exception):
        check_names_argument(lambda: None, "x")
