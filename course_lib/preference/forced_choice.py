"""The final check of a personalised setting: an exact binomial test of forced choices.

Nielsen, Nielsen & Larsen (2015): after the session, k of n forced choices between the
personal setting and the baseline went to the personal one; an exact two-tailed binomial test
against chance (p = 1/2) says whether that preference is significant. A test of the result,
apart from the acquisitions of :mod:`course_lib.preference.acquisition` that found it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import binom

from ..validation import as_positive_float, as_positive_int

__all__ = ["ForcedChoiceTest", "forced_choice_test", "forced_choice_threshold"]

#: ``ForcedChoiceTest.preferred``: the side that won more of the forced choices
_PREFERRED_SIDES = ("personal", "baseline", "neither")


@dataclass(frozen=True)
class ForcedChoiceTest:
    """Exact two-tailed binomial test of ``wins`` out of ``n`` forced choices against 1/2.

    ``significant`` (p < level) holds in EITHER direction: 0 of 20 is as significant as 20 of
    20. ``preferred`` says which side won more choices ("personal" when wins > n / 2,
    "baseline" when wins < n / 2, "neither" at a tie), and ``personal_preferred`` is the
    verdict Nielsen et al. (2015) count: significant AND the personal setting ahead.
    ``str()`` says it in words.
    """

    wins: int
    n: int
    p_value: float
    level: float
    significant: bool
    preferred: str

    @property
    def personal_preferred(self) -> bool:
        """Significant, with the personal setting chosen more often than the baseline."""
        return self.significant and self.preferred == "personal"

    def __str__(self) -> str:
        verdict = (f"significantly preferred the {self.preferred} setting"
                   if self.significant else "no significant preference")
        return (f"{self.wins} of {self.n} choices for the personal setting: p = "
                f"{self.p_value:.3g} ({'<' if self.significant else '>='} {self.level:g}), "
                f"{verdict}")


def _two_tailed_p(k: int, n: int) -> float:
    """Two-tailed exact p-value of k successes in n fair trials: the probability of an outcome
    at least as far from n/2, i.e. 2 P(X >= max(k, n - k)) capped at 1 (the binomial(n, 1/2) is
    symmetric, so this is also the sum of all outcomes no more probable than k).
    Lecture 06, section 7 (The personalisation loop), "The final test"."""
    extreme = max(k, n - k)
    j = np.arange(extreme, n + 1)
    log_terms = gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1) - n * np.log(2.0)
    return float(min(1.0, 2.0 * np.exp(logsumexp(log_terms))))


def forced_choice_test(wins: int, n: int, *, level: float = 0.001) -> ForcedChoiceTest:
    """Did the listener prefer their personal setting to the baseline more often than chance?

    ``wins`` of ``n`` forced choices went to the personal setting; exact two-tailed binomial test
    against p = 1/2 (Nielsen et al.: 20 choices). ``significant`` is ``p_value < level`` in either
    direction, so read it with ``preferred`` (which side won) or use ``personal_preferred``: a
    listener who always chose the baseline is significant too, for the baseline. The p-value:
    :func:`_two_tailed_p`.
    """
    n = as_positive_int(n, "n")
    wins = as_positive_int(wins, "wins", minimum=0)
    if wins > n:
        raise ValueError(f"wins: must be <= n = {n}, got {wins}")
    level = as_positive_float(level, "level")
    if level >= 1:
        raise ValueError(f"level: must be < 1, got {level}")
    p_value = _two_tailed_p(wins, n)
    preferred = "personal" if 2 * wins > n else "baseline" if 2 * wins < n else "neither"
    return ForcedChoiceTest(wins, n, p_value, level, p_value < level, preferred)


def forced_choice_threshold(n: int, *, level: float = 0.001) -> int | None:
    """Smallest number of wins out of ``n`` that is significant at ``level`` (two-tailed, the
    personal setting ahead); None when even n out of n is not (e.g. n < 11 at level 0.001).

    That is the smallest k > n / 2 with 2 P(X >= k) < level, X ~ Binomial(n, 1/2). The
    inverse survival function gives it at once (``scipy.stats.binom.isf(level / 2, n, 1/2)``
    is the smallest j with P(X > j) <= level / 2, so k = j + 1); the exact p-value of
    :func:`forced_choice_test` then settles the boundary (strict ``<``, round-off), one or two
    steps at most, instead of trying every k from n / 2 up (minutes at n = 10^7)."""
    n = as_positive_int(n, "n")
    level = as_positive_float(level, "level")
    if level >= 1:
        raise ValueError(f"level: must be < 1, got {level}")
    k = max(int(binom.isf(level / 2.0, n, 0.5)) + 1, n // 2)
    while k - 1 >= n // 2 and _two_tailed_p(k - 1, n) < level:
        k -= 1
    while k <= n and _two_tailed_p(k, n) >= level:
        k += 1
    return k if k <= n else None
