"""log Phi(t) and its derivatives, stable in both tails, for every probit likelihood.

A probit likelihood needs log Phi(t) and its first three derivatives in t far into the lower
tail, where phi(t) / Phi(t) is 0 / 0 in floating point. They are apart from the likelihood
interface (``course_lib.preference.likelihoods``) because a student follows a likelihood's derivatives
without them: they are numerics, used alike by the pairwise, rating and feedback likelihoods and
by EP's probit moments.

log Phi is ``log_ndtr``; the inverse Mills ratio phi(t)/Phi(t) is sqrt(2/pi)/erfcx(-t/sqrt(2))
(no 0/0 in the far tail) and, below t = -12, the second and third derivatives come from the
asymptotic series of a(t) = t + phi(t)/Phi(t) (coefficients by the recurrence of
:func:`_tail_coefficients`), so curvature and third derivative keep full
relative precision at t = -40 and beyond.
"""

from __future__ import annotations

import numpy as np
from scipy.special import erfcx, log_ndtr

__all__ = ["inverse_mills_ratio", "log_ndtr_derivatives", "SQRT2"]

#: sqrt(2), the scale between a probit's noise sd and its link (Phi(z / (sqrt(2) sigma))).
SQRT2 = float(np.sqrt(2.0))


def _tail_coefficients(n_terms: int) -> np.ndarray:
    """c_k of the asymptotic series a(t) = t + phi(t)/Phi(t) ~ sum_k c_k t^-(2k-1), t -> -inf.

    a satisfies a' = 1 + t a - a^2 (from r' = -r (t + r) for r = phi/Phi); matching powers of t
    gives c_1 = -1 and c_{n+1} = -(2n - 1) c_n + sum_{i + j = n + 1} c_i c_j.
    """
    c = [-1.0]
    for n in range(1, n_terms):
        c.append(-(2 * n - 1) * c[n - 1] + sum(c[i] * c[n - 1 - i] for i in range(n)))
    return np.array(c)


# Below t = -12 the series (12 terms) is used: there r (t + r) - 1 cancels in the direct
# formula, while the truncated series agrees with it to 2e-10 (relative) at the switch.
_TAIL_SWITCH = -12.0
_TAIL_C = _tail_coefficients(12)
_TAIL_K = np.arange(1, _TAIL_C.size + 1)


def inverse_mills_ratio(t) -> np.ndarray:
    """r(t) = phi(t) / Phi(t) = d log Phi(t) / dt, finite for every t (r ~ -t as t -> -inf)."""
    t = np.asarray(t, dtype=float)
    with np.errstate(over="ignore"):  # erfcx overflows for t > 37: r is then 0 as it should be
        return np.sqrt(2.0 / np.pi) / erfcx(-t / SQRT2)


def log_ndtr_derivatives(t, order: int = 2):
    """``(log Phi(t), d/dt, d^2/dt^2, d^3/dt^3 or None)`` elementwise, stable for all t.

    d/dt = r (inverse Mills ratio), d^2/dt^2 = -r (t + r) in (-1, 0), d^3/dt^3 =
    r ((t + r)(t + 2 r) - 1). For t < -12 the last two come from the asymptotic series of
    a = t + r (:func:`_tail_coefficients`): d^2 = a' - 1 and d^3 = a''.
    """
    t = np.asarray(t, dtype=float)
    value = log_ndtr(t)
    r = inverse_mills_ratio(t)
    a = t + r
    d2 = -r * a
    d3 = r * (a * (a + r) - 1.0) if order >= 3 else None
    tail = t < _TAIL_SWITCH
    if np.any(tail):
        s = t[tail][..., None]
        c, k = _TAIL_C, _TAIL_K
        d2[tail] = np.sum(-(2 * k - 1) * c * s ** (-2.0 * k), axis=-1) - 1.0
        if d3 is not None:
            d3[tail] = np.sum((2 * k - 1) * (2 * k) * c * s ** (-2.0 * k - 1), axis=-1)
    return value, r, d2, d3


def _normal_pdf(t):
    return np.exp(-0.5 * t * t) / np.sqrt(2.0 * np.pi)
