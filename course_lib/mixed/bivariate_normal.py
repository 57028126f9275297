"""The bivariate normal CDF and its excess over independence, for the level-set look-ahead.

Phi_2(h, k; rho) = P(Z1 < h, Z2 < k) for standard normals Z1, Z2 with correlation rho. The work
is done on the EXCESS over independence,

    delta(h, k; rho) = Phi_2(h, k; rho) - Phi(h) Phi(k),

which the look-ahead of :mod:`course_lib.mixed.levelset` needs as it is and which carries no
cancellation. Three forms, by |rho|:

* |rho| <= _SERIES_MAX_RHO = 0.6: the tetrachoric series (K. Pearson 1900), Mehler's
  expansion of the bivariate density integrated over both arguments,

      delta = sum_{n >= 1} rho^n / n  g_{n-1}(h) g_{n-1}(k),
      g_m(x) = phi(x) He_m(x) / sqrt(m!)

  (He the probabilists' Hermite polynomials), g by the stable recursion
  g_m = (x g_{m-1} - sqrt(m - 1) g_{m-2}) / sqrt(m). Cramer's inequality |He_m(x)| exp(-x^2 / 4)
  <= 1.0865 sqrt(m!) bounds term n by c |rho|^n / n with c = 1.0865^2 exp(-(h^2 + k^2) / 4) /
  (2 pi), so the sum stops at the first N with c |rho|^(N+1) / ((N + 1)(1 - |rho|)) < 2^-53 (at
  most SERIES_TERMS = 62 terms). For a candidate-reference pair it is a short polynomial in rho
  whose coefficients belong to the candidate (h) and to the reference (k) alone, computed once
  each: the acquisitions run it over all references of a candidate in one vectorised loop per term.
* _SERIES_MAX_RHO < |rho| < _NEAR_ONE_RHO = 0.925: d Phi_2 / d rho is the bivariate density
  (Plackett 1954); with rho = sin t,

      delta = 1/(2 pi) int_0^{arcsin rho} exp(-(h^2 + k^2 - 2 h k sin t) / (2 cos^2 t)) dt

  by 20-point Gauss-Legendre (Drezner and Wesolowsky 1990; Genz 2004).
* |rho| >= 0.925, rho > 0 (rho < 0 by delta(h, k; rho) = -delta(h, -k; -rho)): integrating
  the density from rho to 1 with x = sqrt(1 - r^2),

      Phi_2(h, k; rho) = Phi(min(h, k)) - J / (2 pi),
      J = int_0^a exp(-b^2 / (2 x^2)) exp(-h k / (1 + r)) / r dx,
      a = sqrt(1 - rho^2),  b = |h - k|,  r = sqrt(1 - x^2).

  exp(-hk / (1 + r)) / r = exp(-hk / 2) (1 + c1 x^2 + c2 x^4 + O(x^6)) with c1 = (4 - hk) / 8
  and c2 = c1 (12 - hk) / 16. Against exp(-b^2 / (2 x^2)) the three leading terms integrate
  exactly, I_0 = a E(a) - b sqrt(2 pi) Phi(-b / a) and (2j + 1) I_j = a^(2j+1) E(a) - b^2 I_(j-1)
  (by parts; E(x) = exp(-b^2 / (2 x^2))), and only the smooth O(x^6) remainder goes to 20-point
  Gauss-Legendre (Genz 2004 splits the same way). At rho = 1, J = 0.

In the quadratures h and k are clamped to +-40, where Phi(-40) underflows to 0 (no float64 value
changes); an infinite h or k gives delta = 0, i.e. the exact limits Phi(k), Phi(h) or 0.
Accuracy: absolute, at float64 round-off (:func:`bvn_cdf`).

``bvn_cdf(..., method="owens_t")`` keeps the textbook form through Owen's T function
(scipy.special.owens_t), the reference the tests and the benchmark compare against:

    Phi_2(h, k; rho) = [Phi(h) + Phi(k)] / 2 - T(h, a_h) - T(k, a_k) - beta,
    a_h = (k - rho h) / (h sqrt(1 - rho^2)),   a_k = (h - rho k) / (k sqrt(1 - rho^2)),

with beta = 1/2 when h and k have opposite signs (or one is 0 and h + k < 0), else 0. At h = 0
the ratio a_h is infinite and T(0, +-inf) = +-1/4 is used in its place; at h = k = 0 the closed
form 1/4 + arcsin(rho) / (2 pi) applies; at rho = +-1 the limits Phi(min(h, k)) and
max(0, Phi(h) - Phi(-k)). 1 - rho^2 is formed as (1 - rho)(1 + rho) so that rho near +-1 keeps
its digits.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import ndtr, owens_t

from ..validation import check_choice

__all__ = ["bvn_cdf"]


def _real_array(x, name: str) -> np.ndarray:
    """``x`` as a float array; +-inf allowed (a limit of the CDF), NaN and non-numbers refused."""
    if x is None or isinstance(x, (str, bytes)) or np.iscomplexobj(x):
        raise TypeError(f"{name}: expected real numbers, got {type(x).__name__}")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}: expected real numbers (an array of equal-length rows), got "
                        f"{type(x).__name__}") from err
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name}: contains NaN")
    return arr


def _owens_t_term(h, k, rho, one_minus_rho2):
    """T(h, (k - rho h) / (h sqrt(1 - rho^2))), with T(0, +-inf) = +-1/4 at h = 0."""
    # k - rho h written as (k - h) + (1 - rho) h (rho > 0) or (k + h) - (1 + rho) h: near
    # rho = +-1 and k = +-h the plain form loses ~10 digits to the rounding of rho h
    numerator = np.where(rho > 0, (k - h) + (1.0 - rho) * h, (k + h) - (1.0 + rho) * h)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = numerator / (h * np.sqrt(one_minus_rho2))
    at_zero = h == 0
    # h = 0: the slope is +-inf with the sign of k - rho h = k (and of k alone decides)
    limit = np.where(k > 0, 0.25, np.where(k < 0, -0.25, 0.0))
    return np.where(at_zero, limit, owens_t(h, np.where(at_zero, 0.0, a)))


def bvn_cdf(h, k, rho, *, method: str = "series") -> np.ndarray:
    """Phi_2(h, k; rho) = P(Z1 < h, Z2 < k), (Z1, Z2) standard normal with correlation rho.

    ``h``, ``k`` and ``rho`` broadcast against each other; h and k may be +-inf (the CDF's limits),
    rho must lie in [-1, 1]. ``method="series"`` (default): Phi(h) Phi(k) plus the excess over
    independence by the tetrachoric series or Gauss-Legendre quadrature (module docstring),
    compiled with numba; measured per value, 140 ns against 650 ns for ``method="owens_t"`` at
    |rho| <= 0.3, 460 ns against 640 ns for rho uniform in [-1, 1] (where the quadratures
    dominate). ``method="owens_t"``: the textbook form through scipy's Owen's T function, kept
    as the reference the tests and bench/bench_levelset.py compare against.

    The error of both is ABSOLUTE, at float64 round-off (tests/mixed/test_bivariate_normal.py): the
    two methods agree within 5e-16 on h, k in [-9, 9] (0 and +-1e-3 included) and rho up to
    +-(1 - 1e-12); both lie within 2e-16 of scipy's ``multivariate_normal.cdf`` (tolerance 1e-14)
    for |rho| <= 0.999 and within 1.3e-15 at +-0.999999. Far in the lower tail the Owen's T form
    loses relative accuracy (about 1e-9 at values near 1e-13), as it subtracts terms of order
    Phi(h); the series form keeps Phi(h) Phi(k) to relative round-off and adds the excess with
    its absolute error.
    """
    check_choice(method, "method", ("series", "owens_t"))
    h, k, rho = _bvn_arguments(h, k, rho)
    if method == "owens_t":
        return _bvn_cdf_owens_t(h, k, rho)
    return np.clip(_bvn_excess(h, k, rho, add_product=True), 0.0, 1.0)


def _bvn_arguments(h, k, rho):
    h = _real_array(h, "h")
    k = _real_array(k, "k")
    rho = _real_array(rho, "rho")
    if np.any(np.abs(rho) > 1):
        raise ValueError(f"rho: a correlation must lie in [-1, 1], got "
                         f"{rho[np.abs(rho) > 1].flat[0]:g}")
    try:
        return np.broadcast_arrays(h, k, rho)
    except ValueError:
        raise ValueError(f"k: shapes of h {h.shape}, k {k.shape} and rho {rho.shape} do not "
                         "broadcast together") from None


def _bvn_excess(h, k, rho, add_product: bool = False) -> np.ndarray:
    """delta(h, k; rho) = Phi_2 - Phi(h) Phi(k) elementwise (Phi_2 with ``add_product``), on
    checked arrays of one shape."""
    out = np.empty(h.shape)
    _elementwise(np.ascontiguousarray(h, dtype=np.float64).ravel(),
                 np.ascontiguousarray(k, dtype=np.float64).ravel(),
                 np.ascontiguousarray(rho, dtype=np.float64).ravel(), out.ravel(), add_product)
    return out


def _bvn_cdf_owens_t(h, k, rho) -> np.ndarray:
    """The Owen's T form of the module docstring on checked arrays of one shape."""
    one_minus_rho2 = (1.0 - rho) * (1.0 + rho)
    # infinite bounds are replaced by finite stand-ins in the formula and set from the limits
    finite = np.isfinite(h) & np.isfinite(k)
    hf, kf = np.where(finite, h, 1.0), np.where(finite, k, 1.0)
    interior = finite & (one_minus_rho2 > 0)
    inner = np.where(interior, one_minus_rho2, 1.0)
    opposite = (hf * kf < 0) | ((hf * kf == 0) & (hf + kf < 0))
    value = (0.5 * (ndtr(hf) + ndtr(kf)) - _owens_t_term(hf, kf, rho, inner)
             - _owens_t_term(kf, hf, rho, inner) - np.where(opposite, 0.5, 0.0))
    both_zero = (hf == 0) & (kf == 0)
    value = np.where(both_zero, 0.25 + np.arcsin(rho) / (2.0 * np.pi), value)
    value = np.where(finite & (rho == 1), ndtr(np.minimum(hf, kf)), value)
    value = np.where(finite & (rho == -1), np.maximum(0.0, ndtr(hf) - ndtr(-kf)), value)
    # limits: an upper bound of -inf gives 0, one of +inf leaves the other margin
    value = np.where(np.isposinf(h) & ~np.isneginf(k), ndtr(k), value)
    value = np.where(np.isposinf(k) & ~np.isneginf(h), ndtr(h), value)
    value = np.where(np.isneginf(h) | np.isneginf(k), 0.0, value)
    return np.clip(value, 0.0, 1.0)


# ----- the excess over independence, compiled (module docstring) --------------------------
# |rho| up to which the tetrachoric series is used; beyond, Gauss-Legendre quadrature
_SERIES_MAX_RHO = 0.6
# |rho| from which the quadrature runs from rho to 1 (the arcsine form turns sharp there)
_NEAR_ONE_RHO = 0.925
# the series stops once its remaining terms are bounded by this (absolute)
_SERIES_TOL = 2.0 ** -53
# Cramer's inequality, |He_m(x)| exp(-x^2 / 4) <= 1.086435 sqrt(m!): term n of the series is
# at most _TERM_BOUND exp(-(h^2 + k^2) / 4) |rho|^n / n
_TERM_BOUND = 1.086435 ** 2 / (2.0 * np.pi)


def _series_cap() -> int:
    """Terms the series needs at |rho| = _SERIES_MAX_RHO and h = k = 0 (the worst case)."""
    n = 1
    while (_TERM_BOUND * _SERIES_MAX_RHO ** (n + 1) / ((n + 1) * (1.0 - _SERIES_MAX_RHO))
           >= _SERIES_TOL):
        n += 1
    return n


_SERIES_TERMS = _series_cap()
_ROOT = np.sqrt(np.arange(_SERIES_TERMS + 1.0))
_GL_X, _GL_W = np.polynomial.legendre.leggauss(20)
# beyond +-40 Phi underflows to 0 (or rounds to 1): clamping there changes no float64 value
_CLAMP = 40.0


@njit(cache=True)
def _phi_pair(x):
    """(Phi(x), Phi(-x)), each to full relative accuracy (the smaller one by erfc)."""
    if x < 0.0:
        p = 0.5 * math.erfc(-x / math.sqrt(2.0))
        return p, 1.0 - p
    q = 0.5 * math.erfc(x / math.sqrt(2.0))
    return 1.0 - q, q


@njit(cache=True)
def _hermite_coefficients(x, out, n):
    """out[i] = g_i(x) / sqrt(i + 1) for i < n, g_i(x) = phi(x) He_i(x) / sqrt(i!) by the
    three-term recursion; all zero at x = +-inf. Term i + 1 of the series is
    rho^(i+1) out_h[i] out_k[i]."""
    if not math.isfinite(x):
        out[:n] = 0.0
        return
    g_before, g = 0.0, math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    for i in range(n):
        out[i] = g / _ROOT[i + 1]
        g_before, g = g, (x * g - _ROOT[i] * g_before) / _ROOT[i + 1]


@njit(cache=True)
def _series_length(abs_rho, bound):
    """The smallest N <= SERIES_TERMS with bound |rho|^(N+1) / ((N+1)(1 - |rho|)) < _SERIES_TOL
    (``bound`` = _TERM_BOUND exp(-(h^2 + k^2) / 4), or a larger number)."""
    scale = bound / (1.0 - abs_rho)
    power = abs_rho
    n = 0
    while n < _SERIES_TERMS:
        n += 1
        power *= abs_rho
        if scale * power < _SERIES_TOL * (n + 1):
            break
    return n


@njit(cache=True)
def _arcsine_quadrature(h, k, rho):
    """delta = 1/(2 pi) int_0^{arcsin rho} exp(-(h^2 + k^2 - 2hk sin t) / (2 cos^2 t)) dt."""
    half = 0.5 * math.asin(rho)
    total = 0.0
    for i in range(_GL_X.size):
        s = math.sin(half * (_GL_X[i] + 1.0))
        total += _GL_W[i] * math.exp(-(h * h + k * k - 2.0 * h * k * s) / (2.0 * (1.0 - s * s)))
    return total * half / (2.0 * math.pi)


@njit(cache=True)
def _near_one_quadrature(h, k, rho, p_h, q_h, p_k, q_k):
    """delta for 0 < rho <= 1 from the limit at rho = 1 (module docstring); p_x = Phi(x),
    q_x = Phi(-x)."""
    # Phi(min(h, k)) - Phi(h) Phi(k) = min(p_h, p_k) Phi(-max(h, k))
    at_one = min(p_h, p_k) * (q_k if k >= h else q_h)
    a2 = (1.0 - rho) * (1.0 + rho)
    if a2 <= 0.0:
        return at_one
    a = math.sqrt(a2)
    b2 = (h - k) * (h - k)
    b = math.sqrt(b2)
    hk = h * k
    c1 = (4.0 - hk) / 8.0
    c2 = c1 * (12.0 - hk) / 16.0
    # the exact part, every term carrying e^{-hk/2}; b^2/a^2 + hk >= h^2 - hk + k^2 >= 0
    edge = math.exp(-0.5 * (b2 / a2 + hk))  # e^{-hk/2} E(a)
    # e^{-hk/2} b sqrt(2 pi) Phi(-b/a); below hk = -100 it is under e^{-150} (Mills' ratio)
    tail = 0.0
    if hk > -100.0:
        tail = b * math.sqrt(2.0 * math.pi) * _phi_pair(b / a)[1] * math.exp(-0.5 * hk)
    i0 = a * edge - tail
    i1 = (a2 * a * edge - b2 * i0) / 3.0
    i2 = (a2 * a2 * a * edge - b2 * i1) / 5.0
    exact = i0 + c1 * i1 + c2 * i2
    # the O(x^6) remainder; 1/(1 + r) = 1/2 + (1 - r)/(2 (1 + r)), 1 - r = x^2 / (1 + r)
    half = 0.5 * a
    remainder = 0.0
    for i in range(_GL_X.size):
        x = half * (_GL_X[i] + 1.0)
        x2 = x * x
        r = math.sqrt(1.0 - x2)
        weight = math.exp(-0.5 * (b2 / x2 + hk))
        factor = math.exp(-hk * x2 / (2.0 * (1.0 + r) * (1.0 + r))) / r
        remainder += _GL_W[i] * weight * (factor - (1.0 + c1 * x2 + c2 * x2 * x2))
    return at_one - (exact + half * remainder) / (2.0 * math.pi)


@njit(cache=True)
def _quadrature_excess(h, k, rho, p_h, q_h, p_k, q_k):
    """delta for |rho| > _SERIES_MAX_RHO and finite h, k."""
    h = min(max(h, -_CLAMP), _CLAMP)
    k = min(max(k, -_CLAMP), _CLAMP)
    if abs(rho) < _NEAR_ONE_RHO:
        return _arcsine_quadrature(h, k, rho)
    if rho > 0.0:
        return _near_one_quadrature(h, k, rho, p_h, q_h, p_k, q_k)
    # Phi_2(h, k; rho) = Phi(h) - Phi_2(h, -k; -rho), i.e. delta(h, k; rho) = -delta(h, -k; -rho)
    return -_near_one_quadrature(h, -k, -rho, p_h, q_h, q_k, p_k)


@njit(cache=True)
def _series(coeff_h, coeff_k, rho, n):
    """sum_{i < n} rho^(i+1) coeff_h[i] coeff_k[i]."""
    total, power = 0.0, 1.0
    for i in range(n):
        power *= rho
        total += power * coeff_h[i] * coeff_k[i]
    return total


@njit(cache=True)
def _elementwise(h, k, rho, out, add_product):
    """out[i] = delta(h[i], k[i]; rho[i]), plus Phi(h[i]) Phi(k[i]) with ``add_product``
    (then out is Phi_2, its two terms from the same Phi).
    Lecture 07, section 6 (Finding a threshold: level-set active learning): Phi_2."""
    coeff_h = np.empty(_SERIES_TERMS)
    coeff_k = np.empty(_SERIES_TERMS)
    for i in range(h.size):
        p_h, q_h = _phi_pair(h[i])
        p_k, q_k = _phi_pair(k[i])
        excess = 0.0  # +-inf: the limits Phi(k), Phi(h) or 0 are Phi(h) Phi(k) already
        if math.isfinite(h[i]) and math.isfinite(k[i]):
            if abs(rho[i]) <= _SERIES_MAX_RHO:
                bound = _TERM_BOUND * math.exp(-0.25 * (h[i] * h[i] + k[i] * k[i]))
                n = _series_length(abs(rho[i]), bound)
                _hermite_coefficients(h[i], coeff_h, n)
                _hermite_coefficients(k[i], coeff_k, n)
                excess = _series(coeff_h, coeff_k, rho[i], n)
            else:
                excess = _quadrature_excess(h[i], k[i], rho[i], p_h, q_h, p_k, q_k)
        out[i] = excess + p_h * p_k if add_product else excess
