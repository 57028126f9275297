"""The final forced-choice test (course_lib.preference.forced_choice): exact two-tailed binomial p-values
against scipy.stats.binomtest, and the smallest significant number of wins."""

import pytest
from scipy.stats import binomtest

from course_lib.preference.forced_choice import (_two_tailed_p, forced_choice_test,
                                                 forced_choice_threshold)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 11, 20, 31, 100])
def test_forced_choice_p_values_match_scipy_binomtest(n):
    for wins in range(n + 1):
        reference = binomtest(wins, n, 0.5, alternative="two-sided").pvalue
        result = forced_choice_test(wins, n, level=0.05)
        assert result.p_value == pytest.approx(reference, rel=1e-10, abs=1e-300)
        assert result.significant == (reference < 0.05)


def test_forced_choice_threshold_18_of_20_at_one_in_a_thousand():
    assert forced_choice_test(18, 20).significant
    assert not forced_choice_test(17, 20).significant
    assert forced_choice_test(2, 20).significant           # two-tailed: the baseline winning
    assert forced_choice_threshold(20) == 18
    for n in (5, 11, 20, 30):
        for level in (0.05, 0.005, 0.001):
            expected = next((k for k in range(n + 1)
                             if k >= n / 2 and binomtest(k, n, 0.5).pvalue < level), None)
            assert forced_choice_threshold(n, level=level) == expected
    assert forced_choice_threshold(10) is None             # 10/10 gives p = 2^-9 > 0.001


def test_threshold_search_equals_the_exhaustive_search_for_small_n():
    """forced_choice_threshold (binom.isf, then the exact p-value at the boundary) gives what
    trying every k from n / 2 upwards gave, for n = 1..300 at four levels."""
    def exhaustive(n, level):
        for k in range(n // 2, n + 1):
            if _two_tailed_p(k, n) < level:
                return k
        return None

    for level in (0.05, 0.01, 0.005, 0.001):
        for n in range(1, 301):
            assert forced_choice_threshold(n, level=level) == exhaustive(n, level), (n, level)
