"""One page per student (``class_panel.student_pages``), from hand-made results so every number on a
page is known: the words follow the numbers (lenient, strict, no clear lean), each number comes
with its range, a student with no information or too few scores is told so without a NaN, a
page names no other student, and :func:`write_student_pages` writes one file per pseudonym and
refuses a folder holding anything it did not write, saying what it found."""

from __future__ import annotations

import os

import numpy as np
import pytest

from course_lib.class_panel.student_pages import _MARK, student_page, write_student_pages
from course_lib.class_panel.preferences import ClassPreferences
from course_lib.class_panel.ratings import ClassRatings, Reliability

NAMES = ("amber-otter-07", "brisk-heron-11", "calm-lynx-42", "dusky-newt-03~3f2a")


def made_ratings() -> ClassRatings:
    """Four students: lenient, strict, one score for everything, two scores only."""
    nan = np.nan
    reliability = Reliability(
        k=np.arange(1, 3), reliability=np.array([0.5, 0.67]), band=np.array([[0.4, 0.6],
                                                                              [0.55, 0.75]]),
        experts=0.9, n_experts=5, latent_variance=1.5, class_noise=1.5, expert_noise=0.6,
        k_needed=None, k_interval=(11, 15), level=0.9, n_draws=2000)
    return ClassRatings(
        pseudonyms=NAMES, status=("ok", "ok", "no information", "too few scores"),
        n_scores=np.array([20, 20, 20, 2]), bias=np.array([1.2, -0.9, 2.1, 0.4]),
        bias_se=np.array([0.2, 0.25, 0.3, nan]), noise_variance=np.array([0.8, 2.2, nan, nan]),
        noise_interval=np.array([[0.5, 1.6], [1.4, 4.4], [nan, nan], [nan, nan]]),
        noise_at_floor=np.zeros(4, bool), correlation=np.array([0.81, 0.42, nan, nan]),
        correlation_interval=np.array([[0.62, 0.91], [0.05, 0.69], [nan, nan], [nan, nan]]),
        mean_abs_difference=np.array([1.3, 1.6, 2.4, 1.0]),
        mean_abs_difference_se=np.array([0.15, 0.2, 0.3, 0.5]),
        expert_noise_variance=np.array([0.5, 0.6, 0.7, 0.55, 0.65]),
        expert_bias=np.array([-0.3, 0.1, 0.2, 0.0, 0.0]), items=np.arange(20),
        expert_mean=np.linspace(2, 8, 20), consensus=np.linspace(2.5, 8.5, 20),
        consensus_sd=np.full(20, 0.3), n_class_scores=np.full(20, 2),
        latent_mean=np.linspace(2, 8, 20), latent_sd=np.full(20, 0.2),
        reliability=reliability, level=0.9, n_context=100, kernel="SquaredExponential()")


def made_preferences() -> ClassPreferences:
    """Four settings, six pairs; students 0 (every pair, against the class on pairs 0 and 5)
    and 1 (2 answers, on the class's side)."""
    settings = np.array([[-6.0, 0.0], [6.0, 0.0], [0.0, 6.0], [0.0, -6.0]])
    pairs = np.array([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])
    return ClassPreferences(
        pseudonyms=NAMES[:2], settings=settings, pairs=pairs,
        shares=np.tile([0.5, 0.2, 0.3], (6, 1)), n_answered=np.full(6, 2),
        pooled_difference=np.array([-2.0, 0.1, 0.0, 0.2, 0.1, 1.5]),
        pooled_difference_sd=np.full(6, 0.3),
        pooled_probability=np.array([0.001, 0.6, 0.5, 0.7, 0.6, 0.99]),
        pooled_utility=np.array([-1.0, 1.0, 0.0, 0.0]), pooled_utility_sd=np.full(4, 0.3),
        hyperparameters={"noise_sd": 2.0}, n_answers=np.array([6, 2]),
        individual_difference=np.array([[1.5, 0.2, 0.0, 0.0, 0.0, -1.0],
                                        [-0.5, 0.0, 0.0, 0.0, 0.0, 0.3]]),
        individual_difference_sd=np.full((2, 6), 0.8),
        individual_probability=np.array([[0.97, 0.6, 0.5, 0.5, 0.5, 0.1],
                                         [0.27, 0.5, 0.5, 0.5, 0.5, 0.65]]),
        individual_utility=np.array([[1.0, -0.5, 0.0, 0.1], [-0.2, 0.3, 0.0, 0.0]]),
        fitted=np.array([True, True]), spread=np.full(6, 0.5),
        spread_null_mean=np.full(6, 0.4), spread_null_sd=np.full(6, 0.1),
        split_t=np.array([9.0, 0.0, 0.0, 0.0, 0.0, 0.0]), split_threshold=3.5,
        verdict=("split",) + ("no clear preference",) * 4 + ("agrees",), n_permutations=10,
        held_out_counts=np.array([1, 2, 4]), held_out_models=("the class without you",
                                                              "you alone", "the class and you"),
        held_out_score=np.array([[0.5, 0.5, 0.5], [0.1, 0.15, 0.3], [0.5, 0.51, 0.52]]),
        held_out_se=np.full((3, 3), 0.05), held_out_students=np.full((3, 3), 12))


RATINGS, PREFERENCES = made_ratings(), made_preferences()


def others_absent(page: str, mine: str) -> bool:
    return not any(name in page for name in NAMES if name != mine)


def test_a_lenient_steady_student_reads_their_numbers_with_their_ranges():
    page = student_page(NAMES[0], RATINGS, PREFERENCES)
    assert page.startswith(_MARK + "\n# Your place in the class panel: amber-otter-07")
    # by hand, no bias_interval: the normal approximation +- 1.645 sd, 1.2 +- 0.33
    assert "**Your level (bias): +1.2 points** (90 % Bayesian credible interval: +0.9 to " \
        "+1.5), lenient" in page
    assert "**Your noise: 0.80 points squared** (90 % Bayesian credible interval: 0.50 to " \
        "1.60)" in page
    assert "Half the class is below 1.50; the 5 experts range from 0.50 to 0.70" in page
    assert "correlation 0.81 (90 % approximate confidence interval (Fisher's z): 0.62 to " \
        "0.91)" in page
    assert "1.3 points from the experts' mean (90 % approximate confidence interval: 1.1 to " \
        "1.5)" in page
    assert others_absent(page, NAMES[0]) and "nan" not in page.lower()
    assert "sure of" not in page and "end of the scale" not in page


def test_the_preference_section_names_the_settings_and_where_the_student_differs():
    page = student_page(NAMES[0], RATINGS, PREFERENCES)
    assert "You answered 6 of the 6 pairs." in page
    assert "Your favourite: setting 1 (bass -6 dB, treble +0 dB); the class's is setting 2 " \
           "(bass +6 dB, treble +0 dB)." in page
    assert "On 2 pairs you lean clearly the other way from the class:" in page
    assert "you prefer setting 1 (bass -6 dB, treble +0 dB) (97 % sure), the class as a whole " \
           "leans to setting 2 (bass +6 dB, treble +0 dB) (more than 99 % sure) (on this pair " \
           "the class's tastes split)." in page
    assert "you prefer setting 4 (bass +0 dB, treble -6 dB) (90 % sure), the class as a whole " \
           "leans to setting 3 (bass +0 dB, treble +6 dB) (99 % sure)." in page
    assert "With only" not in page


def test_a_student_with_two_answers_is_told_the_class_predicts_them_better():
    page = student_page(NAMES[1], RATINGS, PREFERENCES)
    assert "strict: you score lower than the experts' mean" in page
    assert "Your favourite (a guess from 2 answers): setting 2" in page
    assert "On no pair do you and the class lean clearly opposite ways." in page
    assert "for students with 2 answers, the class's model predicted their other answers " \
           "better than their own answers did" in page
    assert others_absent(page, NAMES[1])


def test_no_information_and_too_few_scores_are_said_as_such_without_a_nan():
    silent = student_page(NAMES[2], RATINGS, PREFERENCES)
    assert "You gave every clip the same score" in silent
    # the bias still comes with its range (0.3 x z_0.95 = 0.49 either side)
    assert "**Your level (bias): +2.1 points** (90 % Bayesian credible interval: +1.6 to " \
           "+2.6), lenient" in silent
    assert "Your noise" not in silent and "correlation" not in silent
    assert "You handed in no comparison sheet" in silent
    few = student_page(NAMES[3], RATINGS)
    assert "You scored 2 of the 20 clips" in few and "too few" in few
    assert "Your equaliser choices" not in few
    for page in (silent, few):
        assert "nan" not in page.lower()


def test_the_models_own_bias_interval_and_the_end_of_the_scale_are_shown():
    ratings = ClassRatings(**{**made_ratings().__dict__,
                              "bias_interval": np.array([[-0.1, 2.0], [-1.5, -0.4],
                                                         [np.nan] * 2, [np.nan] * 2]),
                              "scores_at_ends": np.array([9, 0, 0, 0]),
                              "at_scale_end": np.array([True, False, False, False])})
    page = student_page(NAMES[0], ratings)
    # the interval holds 0, so no lean, whatever the estimate
    assert "(90 % Bayesian credible interval: -0.1 to +2.0), no clear lean" in page
    assert "**Scores at the end of the scale**: 9 of your 20 scores were 0 or 10" in page
    assert "end of the scale" not in student_page(NAMES[1], ratings)


def test_one_score_throughout_at_an_end_of_the_scale_says_why_the_bias_has_no_interval():
    ratings = ClassRatings(**{**made_ratings().__dict__,
                              "bias_interval": np.array([[-0.1, 2.0], [-1.5, -0.4],
                                                         [np.nan] * 2, [np.nan] * 2]),
                              "scores_at_ends": np.array([0, 0, 20, 0]),
                              "at_scale_end": np.array([False, False, True, False])})
    page = student_page(NAMES[2], ratings)
    assert "You gave every clip the same score" in page
    assert "**Your level (bias): no interval can be given.**" in page
    assert 'a 10 only "at least 9.5"' in page and "set no limit" in page
    assert "Read as exact scores, they sat +2.1 points from the experts' mean" in page
    assert "nan" not in page.lower()


def test_a_comparison_sheet_with_no_information_is_told_so():
    preferences = ClassPreferences(**{**made_preferences().__dict__,
                                      "status": ("no information", "ok")})
    page = student_page(NAMES[0], None, preferences)
    assert "You gave the same answer (always the first, or always the second version as " \
           "played) to every pair" in page and "say nothing about which setting" in page
    assert "Your favourite" not in page and "lean clearly" not in page
    assert "Your favourite (a guess from 2 answers)" in student_page(NAMES[1], None,
                                                                     preferences)


def test_no_clear_lean_within_the_range():
    ratings = made_ratings()
    ratings.bias[0] = 0.2                                       # within 1.645 * 0.2
    assert "no clear lean" in student_page(NAMES[0], ratings)


def test_pages_are_written_one_per_pseudonym_and_rewritten_safely(tmp_path):
    folder = tmp_path / "pages"
    paths = write_student_pages(folder, RATINGS, PREFERENCES)
    assert sorted(p.name for p in paths) == sorted(f"{name}.md" for name in NAMES)
    assert all(p.read_text(encoding="utf-8") == student_page(p.stem, RATINGS, PREFERENCES)
               for p in paths)
    again = write_student_pages(folder, RATINGS, pseudonyms=[NAMES[0]])   # its own pages
    assert [p.name for p in again] == [f"{NAMES[0]}.md"]
    assert "Your equaliser choices" not in again[0].read_text(encoding="utf-8")


def test_a_folder_with_anything_else_is_refused_and_left_as_it_was(tmp_path):
    write_student_pages(tmp_path, RATINGS)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    edited = tmp_path / f"{NAMES[1]}.md"
    edited.write_text("my own notes\n", encoding="utf-8")        # a page edited by hand
    (tmp_path / "grades.csv").write_text("x\n", encoding="utf-8")
    with pytest.raises(ValueError,
                       match=r"^folder: .* holds brisk-heron-11\.md, grades\.csv, which"):
        write_student_pages(tmp_path, RATINGS, PREFERENCES)
    assert edited.read_text(encoding="utf-8") == "my own notes\n"
    assert {p.name for p in tmp_path.iterdir()} == set(before) | {"grades.csv"}
    for name, content in before.items():
        if name != edited.name:
            assert (tmp_path / name).read_bytes() == content


def test_a_link_to_elsewhere_is_never_written_through(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(_MARK + "\nsomeone else's\n", encoding="utf-8")
    folder = tmp_path / "pages"
    folder.mkdir()
    os.symlink(outside, folder / f"{NAMES[0]}.md")
    with pytest.raises(ValueError, match="^folder: .*amber-otter-07.md"):
        write_student_pages(folder, RATINGS)
    assert outside.read_text(encoding="utf-8") == _MARK + "\nsomeone else's\n"


def test_bad_input_is_named(tmp_path):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    cases = [
        (lambda: student_page(NAMES[0], "ratings"), TypeError, "^ratings:"),
        (lambda: student_page(NAMES[0], None, RATINGS), TypeError, "^preferences:"),
        (lambda: student_page(NAMES[0]), ValueError, "^ratings:"),
        (lambda: student_page(7, RATINGS), TypeError, "^pseudonym:"),
        (lambda: student_page("eager-ibis-99", RATINGS), ValueError, "^pseudonym:"),
        (lambda: write_student_pages(tmp_path / "a-file", RATINGS), ValueError, "^folder:"),
        (lambda: write_student_pages(tmp_path / "new", RATINGS, pseudonyms="x"), TypeError,
         "^pseudonyms:"),
        (lambda: write_student_pages(tmp_path / "new", RATINGS, pseudonyms=["eager-ibis-99"]),
         ValueError, "^pseudonyms:"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    assert not (tmp_path / "new").exists()


def test_a_pseudonym_that_cannot_name_a_file_or_that_differs_only_in_case(tmp_path):
    ratings = made_ratings()
    for odd, message in ((("../up", "ok-name", "c", "d"), "cannot name a file"),
                         (("Amber", "amber", "c", "d"), "differ only in case")):
        changed = ClassRatings(**{**ratings.__dict__, "pseudonyms": odd})
        with pytest.raises(ValueError, match=f"^pseudonyms: .*{message}"):
            write_student_pages(tmp_path / "pages", changed)
        assert not (tmp_path / "pages").exists()
