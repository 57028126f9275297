"""One page per student (``class_panel.student_pages``), from hand-made results so every number on a
page is known: the words follow the numbers (lenient, strict, no clear lean), each number comes
with its range and how often such ranges held the truth, a student with no information or too
few scores is told so without a NaN, a page names no other student, :func:`beside_experts`
sets a listener alone beside each expert, and :func:`write_student_pages` writes one file per
pseudonym and refuses a folder holding anything it did not write, saying what it found. The
equaliser section is ``test_preference_page.py``'s, the trust sentences
``test_verdict_trust.py``'s."""

from __future__ import annotations

import os

import numpy as np
import pytest

from course_lib.class_panel.preference_page import _preferences_section
from course_lib.class_panel.score_model import MIN_CLASS_FOR_PRIOR, ClassRatings, Reliability
from course_lib.class_panel.student_pages import (_MARK, beside_experts, distance_interval,
                                                 student_page, write_student_pages)
from course_lib.class_panel.verdict_trust import _agreement_trust, counted_share
from course_lib.results import load_result

from .test_preference_page import PSEUDONYMS, made_preferences

NAMES = PSEUDONYMS + ("calm-lynx-42", "dusky-newt-03~3f2a")   # the first two compared too


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


def test_a_page_holds_the_scores_then_the_equaliser_section_and_no_other_name():
    page = student_page(NAMES[1], RATINGS, PREFERENCES)
    assert "strict: you score lower than the experts' mean" in page
    scores, choices = page.index("## Your fluency scores"), page.index("## Your equaliser")
    assert scores < choices and page[choices:].rstrip("\n") == \
        "\n".join(_preferences_section(PREFERENCES, 1)).rstrip("\n")
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


def test_the_distance_interval_is_the_estimate_give_or_take_z_standard_errors_above_0():
    low, high = distance_interval(RATINGS, 0)               # 1.3 +- 1.645 x 0.15
    assert np.isclose(low, 1.3 - 0.2467, atol=1e-4) and np.isclose(high, 1.3 + 0.2467,
                                                                   atol=1e-4)
    near = ClassRatings(**{**RATINGS.__dict__,
                           "mean_abs_difference": np.array([0.2, 1.6, 2.4, 1.0])})
    low, high = distance_interval(near, 0)                  # 0.2 - 0.25 is floored at 0
    assert low == 0.0 and np.isclose(high, 0.2 + 0.2467, atol=1e-4)


# ----- every number states how far to trust it, tied to the committed calibration run -------
MEASURED = load_result("class_panel_calibration")


def test_the_agreement_intervals_state_their_measured_coverage():
    """After the distance, with a correlation and without one (the sentence's own numbers are
    test_verdict_trust.py's)."""
    page = student_page(NAMES[0], RATINGS)
    assert ("1.3 points from the experts' mean (90 % approximate confidence interval: 1.1 to "
            f"1.5). {_agreement_trust()}") in page
    flat = ClassRatings(**{**RATINGS.__dict__, "correlation": np.array([np.nan, 0.42, np.nan,
                                                                        np.nan])})
    page = student_page(NAMES[0], flat)
    assert "so no correlation can be given. On average your score was 1.3 points" in page
    assert page.count(_agreement_trust()) == 1


def alone_line(m: int, n: int) -> str:
    """The trust line beside_experts must show for n scores, measured at m, from the committed
    result (its numbers, not the function's wording of them)."""
    measured = MEASURED["result"]["alone_summary"][str(m)]
    yours = "" if m == n else f" (you scored {n})"
    return (f"on {measured['listeners']:,} simulated listeners of known truth who each scored "
            f"{m} clips alone{yours}, 90 % Bayesian credible intervals like these held the true "
            f"noise for {counted_share(measured['noise_held'], measured['noise_intervals'])} "
            f"listeners who got one, and the true bias for "
            f"{counted_share(measured['bias_held'], measured['bias_intervals'])}")


def test_beside_the_experts_states_the_lone_listeners_coverage_for_as_many_scores():
    """The trust of the nearest measured count at or below the student's (the fewest measured
    when too few), every time, and a miss of 85-95 % said with its direction."""
    with_bias = ClassRatings(**{**RATINGS.__dict__, "bias_interval": np.array(
        [[0.8, 1.6], [-1.4, -0.4], [1.5, 2.7], [np.nan, np.nan]]), "n_scores": np.array(
        [20, 7, 20, 2])})
    measured = MEASURED["result"]["alone_summary"]
    for name, m, n in ((NAMES[0], 20, 20), (NAMES[1], 5, 7), (NAMES[3], 3, 2)):
        text = beside_experts(with_bias, name)
        assert alone_line(m, n) in text, text
        for quantity in ("noise", "bias"):
            count = measured[str(m)]
            held = count[f"{quantity}_held"] / count[f"{quantity}_intervals"]
            said = f"With {m} scores the {quantity} interval held the truth"
            assert (said in text) == (not 0.85 <= held <= 0.95), text


def test_beside_the_experts_refuses_a_class_with_a_prior_of_its_own():
    """A class of MIN_CLASS_FOR_PRIOR informative students has a prior of its own and is
    refused; one fewer reads each student as alone."""
    n = MIN_CLASS_FOR_PRIOR
    names = tuple(f"student-{k:02d}" for k in range(n))
    big = ClassRatings(**{**RATINGS.__dict__, "pseudonyms": names, "status": ("ok",) * n})
    with pytest.raises(ValueError, match=f"^ratings: a class of {n} informative students"):
        beside_experts(big, names[0])
    small = ClassRatings(**{**RATINGS.__dict__, "pseudonyms": names[:-1],
                            "status": ("ok",) * (n - 1),
                            "bias_interval": np.array([[0.8, 1.6]] * 4)})
    assert alone_line(20, 20) in beside_experts(small, names[0])


