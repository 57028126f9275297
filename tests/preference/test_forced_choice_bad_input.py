"""Bad-input catalogue: the final forced-choice test (course_lib.preference.forced_choice). Family
"acquisition".

Decisions recorded here: a win count above n is refused naming ``wins``.

``forced_choice_test`` reports which side won (``preferred``, ``personal_preferred``), and the
smallest significant win count of 10^7 choices is exact and quick.
"""

import time

import pytest

from bad_input import BadInput, RightAnswer, check_case, parametrize
from course_lib.preference.forced_choice import (_two_tailed_p, forced_choice_test,
                                                 forced_choice_threshold)


def _baseline_won(test):
    assert test.significant and test.preferred == "baseline" and not test.personal_preferred
    assert "baseline" in str(test)


def _threshold_of_ten_million():
    start = time.perf_counter()
    k = forced_choice_threshold(10 ** 7)
    return k, time.perf_counter() - start


def _exact_and_quick(result):
    k, seconds = result
    n = 10 ** 7
    # the smallest significant win count, by the exact p-value on both sides of it
    assert _two_tailed_p(k, n) < 0.001 <= _two_tailed_p(k - 1, n), k
    assert seconds < 60, f"{seconds:.1f} s (the search over every k took minutes)"


CASES = [
    # ----- forced-choice test --------------------------------------------------------------
    BadInput("acquisition: forced choice more wins than trials",
             lambda: forced_choice_test(21, 20), ValueError, "wins"),
    BadInput("acquisition: forced choice negative wins", lambda: forced_choice_test(-1, 20),
             ValueError, "wins"),
    BadInput("acquisition: forced choice zero trials", lambda: forced_choice_test(0, 0),
             ValueError, "n"),
    BadInput("acquisition: forced choice wins as a float", lambda: forced_choice_test(18.0, 20),
             TypeError, "wins"),
    BadInput("acquisition: forced choice level above 1",
             lambda: forced_choice_test(18, 20, level=1.5), ValueError, "level"),
    BadInput("acquisition: forced choice level 0", lambda: forced_choice_test(18, 20, level=0.0),
             ValueError, "level"),
    BadInput("acquisition: forced-choice threshold n as a bool",
             lambda: forced_choice_threshold(True), TypeError, "n"),
    # ----- who won, and a large n ---------------------------------------------------------------
    RightAnswer("acquisition: 0 of 20 forced choices", lambda: forced_choice_test(0, 20),
                _baseline_won),
    RightAnswer("acquisition: 20 of 20 forced choices", lambda: forced_choice_test(20, 20),
                lambda t: (t.personal_preferred and t.preferred == "personal") or
                pytest.fail(str(t))),
    RightAnswer("acquisition: the significant win count of 10^7 forced choices",
                _threshold_of_ten_million, _exact_and_quick),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
