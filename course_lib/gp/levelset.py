"""Level-set estimation (Unit 7, Wu et al. 2025 section 4.2): where is f below a threshold?

The target is the sublevel set {x : f(x) < threshold} of a latent f with a Gaussian posterior,
observed through Bernoulli probit answers y ~ Bernoulli(Phi(f(x))) (a detection task: the
75 % point of a psychometric function is the threshold Phi^-1(0.75) = 0.6745).

Bivariate normal CDF
    :func:`bvn_cdf` Phi_2(h, k; rho) = P(Z1 < h, Z2 < k) for standard normals with correlation
    rho. The work is done on the EXCESS over independence,

        delta(h, k; rho) = Phi_2(h, k; rho) - Phi(h) Phi(k),

    which the look-ahead needs as it is (P1 = Px + delta / p1, below) and which carries no
    cancellation. Three forms, by |rho|:

    * |rho| <= SERIES_MAX_RHO = 0.6: the tetrachoric series (K. Pearson 1900), Mehler's
      expansion of the bivariate density integrated over both arguments,

          delta = sum_{n >= 1} rho^n / n  g_{n-1}(h) g_{n-1}(k),
          g_m(x) = phi(x) He_m(x) / sqrt(m!)

      (He the probabilists' Hermite polynomials), g by the stable recursion
      g_m = (x g_{m-1} - sqrt(m - 1) g_{m-2}) / sqrt(m). Cramer's inequality
      |He_m(x)| exp(-x^2 / 4) <= 1.0865 sqrt(m!) bounds term n by c |rho|^n / n with
      c = 1.0865^2 exp(-(h^2 + k^2) / 4) / (2 pi), so the sum stops at the first N with
      c |rho|^(N+1) / ((N + 1)(1 - |rho|)) < 2^-53 (at most _SERIES_TERMS = 62 terms). For a
      candidate-reference pair it is a short polynomial in rho whose coefficients belong to the
      candidate (h) and to the reference (k) alone, computed once each: the acquisitions run it
      over all references of a candidate in one vectorised loop per term.
    * SERIES_MAX_RHO < |rho| < NEAR_ONE_RHO = 0.925: d Phi_2 / d rho is the bivariate density
      (Plackett 1954); with rho = sin t,

          delta = 1/(2 pi) int_0^{arcsin rho} exp(-(h^2 + k^2 - 2 h k sin t) / (2 cos^2 t)) dt

      by 20-point Gauss-Legendre (Drezner and Wesolowsky 1990; Genz 2004).
    * |rho| >= 0.925, rho > 0 (rho < 0 by delta(h, k; rho) = -delta(h, -k; -rho)): integrating
      the density from rho to 1 with x = sqrt(1 - r^2),

          Phi_2(h, k; rho) = Phi(min(h, k)) - J / (2 pi),
          J = int_0^a exp(-b^2 / (2 x^2)) exp(-h k / (1 + r)) / r dx,
          a = sqrt(1 - rho^2),  b = |h - k|,  r = sqrt(1 - x^2).

      exp(-hk / (1 + r)) / r = exp(-hk / 2) (1 + c1 x^2 + c2 x^4 + O(x^6)) with
      c1 = (4 - hk) / 8 and c2 = c1 (12 - hk) / 16. Against exp(-b^2 / (2 x^2)) the three
      leading terms integrate exactly, I_0 = a E(a) - b sqrt(2 pi) Phi(-b / a) and
      (2j + 1) I_j = a^(2j+1) E(a) - b^2 I_(j-1) (by parts; E(x) = exp(-b^2 / (2 x^2))), and
      only the smooth O(x^6) remainder goes to 20-point Gauss-Legendre (Genz 2004 splits the
      same way). At rho = 1, J = 0.

    In the quadratures h and k are clamped to +-40, where Phi(-40) underflows to 0 (no float64
    value changes); an infinite h or k gives delta = 0, i.e. the exact limits Phi(k), Phi(h)
    or 0. Accuracy: absolute, at float64 round-off (:func:`bvn_cdf`).

    ``bvn_cdf(..., method="owens_t")`` keeps the textbook form through Owen's T function
    (scipy.special.owens_t), the reference the tests and the benchmark compare against:

        Phi_2(h, k; rho) = [Phi(h) + Phi(k)] / 2 - T(h, a_h) - T(k, a_k) - beta,
        a_h = (k - rho h) / (h sqrt(1 - rho^2)),   a_k = (h - rho k) / (k sqrt(1 - rho^2)),

    with beta = 1/2 when h and k have opposite signs (or one is 0 and h + k < 0), else 0.
    At h = 0 the ratio a_h is infinite and T(0, +-inf) = +-1/4 is used in its place; at
    h = k = 0 the closed form 1/4 + arcsin(rho) / (2 pi) applies; at rho = +-1 the limits
    Phi(min(h, k)) and max(0, Phi(h) - Phi(-k)). 1 - rho^2 is formed as (1 - rho)(1 + rho) so
    that rho near +-1 keeps its digits.

Level-set probability and the look-ahead of one answer
    ``P(f(s) < threshold) = Phi((threshold - mu_s) / sd_s)``
    (:func:`course_lib.metrics.levelset_probability`;
    sd_s = 0 gives the indicator of mu_s < threshold, the F1 rule of Wu et al.'s appendix A).

    Ask a Bernoulli probit question y at a query x_q, with P(y = 1 | f) = Phi(f(x_q)). With
    the joint Gaussian posterior of (f(x_q), f(s)) (means mu_q, mu_s, variances v_q, v_s,
    covariance c), write y = 1 as -(f_q + e - mu_q) / sqrt(1 + v_q) < a_q with e ~ N(0, 1):

        p1 = P(y = 1) = Phi(a_q),          a_q = mu_q / sqrt(1 + v_q),
        Px = P(f_s < threshold) = Phi(b_s), b_s = (threshold - mu_s) / sqrt(v_s),
        P(y = 1, f_s < threshold) = Phi_2(a_q, b_s; rho),  rho = -c / (sqrt(v_s) sqrt(1 + v_q)),
        P1 = Phi_2 / p1 = Px + delta / p1,   P0 = (Px - Phi_2) / (1 - p1) = Px - delta / (1 - p1)

    (Wu et al. section 4.2 by way of Letham et al. 2022; the paper only names the acquisitions).
    These are exact for a Gaussian posterior: no refit is needed because conditioning on y is
    done on the Gaussian itself. What IS approximate is using the model's Gaussian posterior
    (Laplace / variational) in place of the true one, and, in a loop, that the model refitted
    after the answer would not be exactly this conditioned distribution. p1 P1 + (1 - p1) P0 =
    Px exactly (a martingale), so the expected SIGNED change of any sum of P's is zero.
    With delta = Phi_2 - p1 Px the complements 1 - P1 = (1 - Px) - delta / p1 and
    1 - P0 = (1 - Px) + delta / (1 - p1) are formed the same way, so no probability near 1 is
    subtracted from 1 before an entropy takes its logarithm.

Acquisitions over candidate queries (reference points s_1..s_S fixed, e.g. Sobol)
    * :func:`global_mi` (bits): sum_s [H(Px) - p1 H(P1) - (1 - p1) H(P0)], H the binary
      entropy (0 log 0 = 0; no clamping is needed).
    * :func:`eavc`: p1 |sum_s (Px - P1)| + (1 - p1) |sum_s (Px - P0)|, the expected absolute
      change of the estimated set's volume (in reference points). By the martingale both terms
      equal |sum_s (p1 Px - Phi_2)|, so EAVC = 2 |sum_s (p1 Px - Phi_2)| = 2 |sum_s delta|,
      computed without dividing by p1 or 1 - p1 [derived here].
    * :func:`bald_bernoulli` (bits): H(p1) - E_f[H(Phi(f_q))], the information of y about
      f(x_q) alone, the expectation by Gauss-Legendre quadrature (:func:`bald_bernoulli`).
    * :func:`straddle`: width * sd_q - |mu_q - threshold| (Bryan et al. 2005; width 1.96).

Choosing the next query
    :func:`propose` scores a candidate set (e.g. 1024 Sobol points) with one of the
    acquisitions above or a callable, takes the best candidate and polishes it by a short
    bounded Nelder-Mead run (never returning a worse point). The reference side of the
    look-ahead (marginals and whitened cross-kernels of the references) is computed once per
    call and shared by the candidates and every polish evaluation.

The candidate-reference covariances come from the model's posterior (a fitted course_lib GP
with ``kernel``, ``X_train`` and a :class:`LatentGaussian` ``posterior``) in batches of
candidates, so memory stays at about ``BATCH_ELEMENTS`` numbers per array whatever the sizes.
For each batch one compiled loop forms rho, delta, P1, P0 and the sums of global MI or EAVC
pair by pair without temporary arrays (bench/bench_levelset.py measures it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.optimize import minimize
from scipy.special import ndtr, owens_t, xlogy

from ..metrics import standardised_gap
from ..validation import as_bool, as_float_array, as_positive_float, check_choice
from .kernels import as_inputs
from .prediction import LatentGaussian

__all__ = ["bvn_cdf", "LevelSetLookahead", "lookahead_levelset",
           "global_mi", "eavc", "bald_bernoulli", "straddle", "propose", "Proposal",
           "ACQUISITIONS", "BATCH_ELEMENTS"]

# candidates x references per batch of the acquisitions (about 2 MB per float64 array)
BATCH_ELEMENTS = 2 ** 18


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

    ``h``, ``k`` and ``rho`` broadcast against each other; h and k may be +-inf (the CDF's
    limits), rho must lie in [-1, 1]. ``method="series"`` (default): Phi(h) Phi(k) plus the
    excess over independence by the tetrachoric series or Gauss-Legendre quadrature (module
    docstring), compiled with numba; measured per value, 140 ns against 650 ns for
    ``method="owens_t"`` at |rho| <= 0.3, 460 ns against 640 ns for rho uniform in [-1, 1]
    (where the quadratures dominate). ``method="owens_t"``: the textbook form through scipy's
    Owen's T function, kept as the reference the tests and bench/bench_levelset.py compare
    against.

    The error of both is ABSOLUTE, at float64 round-off (tests/gp/test_levelset.py): the two
    methods agree within 5e-16 on h, k in [-9, 9] (0 and +-1e-3 included) and rho up to
    +-(1 - 1e-12); both lie within 2e-16 of scipy's ``multivariate_normal.cdf`` (tolerance
    1e-14) for |rho| <= 0.999 and within 1.3e-15 at +-0.999999. Far in the lower tail the
    Owen's T form loses relative accuracy (about 1e-9 at values near 1e-13), as it subtracts
    terms of order Phi(h); the series form keeps Phi(h) Phi(k) to relative round-off and adds
    the excess with its absolute error.
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
SERIES_MAX_RHO = 0.6
# |rho| from which the quadrature runs from rho to 1 (the arcsine form turns sharp there)
NEAR_ONE_RHO = 0.925
# the series stops once its remaining terms are bounded by this (absolute)
_SERIES_TOL = 2.0 ** -53
# Cramer's inequality, |He_m(x)| exp(-x^2 / 4) <= 1.086435 sqrt(m!): term n of the series is
# at most _TERM_BOUND exp(-(h^2 + k^2) / 4) |rho|^n / n
_TERM_BOUND = 1.086435 ** 2 / (2.0 * np.pi)


def _series_cap() -> int:
    """Terms the series needs at |rho| = SERIES_MAX_RHO and h = k = 0 (the worst case)."""
    n = 1
    while (_TERM_BOUND * SERIES_MAX_RHO ** (n + 1) / ((n + 1) * (1.0 - SERIES_MAX_RHO))
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
    """The smallest N <= _SERIES_TERMS with bound |rho|^(N+1) / ((N+1)(1 - |rho|)) < _SERIES_TOL
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
    """delta for |rho| > SERIES_MAX_RHO and finite h, k."""
    h = min(max(h, -_CLAMP), _CLAMP)
    k = min(max(k, -_CLAMP), _CLAMP)
    if abs(rho) < NEAR_ONE_RHO:
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
    (then out is Phi_2, its two terms from the same Phi)."""
    coeff_h = np.empty(_SERIES_TERMS)
    coeff_k = np.empty(_SERIES_TERMS)
    for i in range(h.size):
        p_h, q_h = _phi_pair(h[i])
        p_k, q_k = _phi_pair(k[i])
        excess = 0.0  # +-inf: the limits Phi(k), Phi(h) or 0 are Phi(h) Phi(k) already
        if math.isfinite(h[i]) and math.isfinite(k[i]):
            if abs(rho[i]) <= SERIES_MAX_RHO:
                bound = _TERM_BOUND * math.exp(-0.25 * (h[i] * h[i] + k[i] * k[i]))
                n = _series_length(abs(rho[i]), bound)
                _hermite_coefficients(h[i], coeff_h, n)
                _hermite_coefficients(k[i], coeff_k, n)
                excess = _series(coeff_h, coeff_k, rho[i], n)
            else:
                excess = _quadrature_excess(h[i], k[i], rho[i], p_h, q_h, p_k, q_k)
        out[i] = excess + p_h * p_k if add_product else excess


# --------------------------------------------------------------------------------------------
# Level-set probability and the look-ahead
# --------------------------------------------------------------------------------------------

def _threshold(threshold) -> float:
    value = as_float_array(threshold, "threshold", ndim=0)
    return float(value)


def _variance(var, name: str) -> np.ndarray:
    var = as_float_array(var, name)
    if np.any(var < 0):
        raise ValueError(f"{name}: variances must be >= 0, got {var[var < 0].flat[0]:g}")
    return var


@dataclass(frozen=True)
class LevelSetLookahead:
    """What one Bernoulli probit answer at a query would do to P(f(s) < threshold).

    Arrays broadcast as the inputs of :func:`lookahead_levelset` (queries x references).
    p_one : P(y = 1) at the query. p_now : Px = P(f_s < threshold) now. p_if_one, p_if_zero :
    P1 and P0, the same after an answer y = 1 / y = 0. joint : Phi_2 = P(y = 1, f_s < threshold).
    """

    p_one: np.ndarray
    p_now: np.ndarray
    p_if_one: np.ndarray
    p_if_zero: np.ndarray
    joint: np.ndarray


def _lookahead(query_mean, query_var, ref_mean, ref_var, cross_cov, threshold):
    """The look-ahead on arrays already checked (module docstring)."""
    scale_q = np.sqrt(1.0 + query_var)
    h = query_mean / scale_q
    gap = standardised_gap(ref_mean, ref_var, threshold)
    sd_ref = np.sqrt(ref_var)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = -cross_cov / (sd_ref * scale_q)
    rho = np.clip(np.where(sd_ref > 0, rho, 0.0), -1.0, 1.0)
    h, gap, rho = np.broadcast_arrays(h, gap, rho)
    excess = _bvn_excess(h, gap, rho)
    p_one, p_now = ndtr(h), ndtr(gap)
    joint, p_if_one, p_if_zero = (np.empty(h.shape) for _ in range(3))
    _conditionals_elementwise(p_one.ravel(), ndtr(-h).ravel(), p_now.ravel(),
                              ndtr(-gap).ravel(), excess.ravel(), joint.ravel(),
                              p_if_one.ravel(), p_if_zero.ravel())
    return LevelSetLookahead(p_one, p_now, p_if_one, p_if_zero, joint)


@njit(cache=True)
def _conditionals(p_one, q_one, p_now, q_now, excess):
    """(excess, P1, 1 - P1, P0, 1 - P0) from p1 = P(y = 1), q1 = 1 - p1, Px, 1 - Px and the
    excess delta = Phi_2 - p1 Px, each complement formed without 1 - (a number near 1).
    delta is first kept inside the Frechet bounds max(0, p1 + Px - 1) <= Phi_2 <= min(p1, Px)
    against round-off, so P1 and P0 stay probabilities; p1 = 0 (or 1) leaves P1 (or P0) = Px."""
    excess = min(max(excess, -min(p_one * p_now, q_one * q_now)),
                 min(p_one * q_now, q_one * p_now))
    p_if_one, q_if_one, p_if_zero, q_if_zero = p_now, q_now, p_now, q_now
    if p_one > 0.0:
        p_if_one = min(max(p_now + excess / p_one, 0.0), 1.0)
        q_if_one = min(max(q_now - excess / p_one, 0.0), 1.0)
    if q_one > 0.0:
        p_if_zero = min(max(p_now - excess / q_one, 0.0), 1.0)
        q_if_zero = min(max(q_now + excess / q_one, 0.0), 1.0)
    return excess, p_if_one, q_if_one, p_if_zero, q_if_zero


@njit(cache=True)
def _conditionals_elementwise(p_one, q_one, p_now, q_now, excess, joint, p_if_one, p_if_zero):
    for i in range(p_one.size):
        clipped, p_if_one[i], _, p_if_zero[i], _ = _conditionals(p_one[i], q_one[i], p_now[i],
                                                                 q_now[i], excess[i])
        joint[i] = p_one[i] * p_now[i] + clipped


def lookahead_levelset(query_mean, query_var, ref_mean, ref_var, cross_cov, threshold
                       ) -> LevelSetLookahead:
    """Effect of a Bernoulli probit answer at a query on P(f(s) < threshold) (module docstring).

    ``query_mean``, ``query_var``: posterior mean and variance of f at the query (or queries);
    ``ref_mean``, ``ref_var``: the same at the reference points s; ``cross_cov``: their posterior
    covariance Cov(f(x_q), f(s)). All broadcast together, e.g. queries as a column (n_q, 1)
    and references as a row (n_s,) with ``cross_cov`` (n_q, n_s). A covariance beyond
    sqrt(query_var * ref_var) (more than round-off) is refused naming ``cross_cov``.
    """
    query_mean = as_float_array(query_mean, "query_mean")
    query_var = _variance(query_var, "query_var")
    ref_mean = as_float_array(ref_mean, "ref_mean")
    ref_var = _variance(ref_var, "ref_var")
    cross_cov = as_float_array(cross_cov, "cross_cov")
    threshold = _threshold(threshold)
    names = ("query_mean", "query_var", "ref_mean", "ref_var", "cross_cov")
    arrays = (query_mean, query_var, ref_mean, ref_var, cross_cov)
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise ValueError(f"cross_cov: the shapes of {', '.join(names)} "
                         f"({', '.join(str(a.shape) for a in arrays)}) do not broadcast "
                         "together") from None
    bound = np.sqrt(query_var * ref_var)
    if np.any(np.abs(cross_cov) > bound * (1.0 + 1e-8) + 1e-12):
        raise ValueError("cross_cov: a covariance exceeds sqrt(query_var * ref_var), so the "
                         "joint covariance is not positive semi-definite")
    return _lookahead(query_mean, query_var, ref_mean, ref_var, cross_cov, threshold)


# --------------------------------------------------------------------------------------------
# Acquisitions over candidates
# --------------------------------------------------------------------------------------------

def _fitted_posterior(model):
    """(kernel, X_train, posterior) of a fitted course_lib GP, or an error naming ``model``."""
    missing = [name for name in ("kernel", "X_train", "posterior") if not hasattr(model, name)]
    if missing:
        raise TypeError(f"model: expected a fitted course_lib GP (GPRegression, PreferenceGP, "
                        f"...) with kernel, X_train and posterior; {type(model).__name__} has "
                        f"no {', '.join(missing)}")
    if model.posterior is None:
        raise ValueError("model: not fitted yet; call fit before computing an acquisition")
    if not isinstance(model.posterior, LatentGaussian):
        raise TypeError(f"model: posterior must be a LatentGaussian, got "
                        f"{type(model.posterior).__name__}")
    return model.kernel, model.X_train, model.posterior


@dataclass(frozen=True)
class _Marginals:
    """Posterior means and variances at some points, with the whitened cross-kernels that give
    any covariance between two sets as k(A, B) - V_A^T V_B (+ U_A^T U_B)."""

    X: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    V: np.ndarray
    U: np.ndarray | None


def _marginals(kernel, X_train, posterior, X) -> _Marginals:
    K_cross = kernel(X_train, X)
    # LatentGaussian.predict returns only the variances; the covariances need its factors
    V, U = posterior.reduction_factors(K_cross)
    var = kernel.diag(X) - np.einsum("ij,ij->j", V, V)
    if U is not None:
        var += np.einsum("ij,ij->j", U, U)
    return _Marginals(X, K_cross.T @ posterior.alpha, np.maximum(var, 0.0), V, U)


@njit(cache=True)
def _hermite_table(x):
    """(len(x), _SERIES_TERMS): row i holds the series coefficients of x[i]."""
    table = np.empty((x.size, _SERIES_TERMS))
    for i in range(x.size):
        _hermite_coefficients(x[i], table[i], _SERIES_TERMS)
    return table


def _series_decay(x):
    """exp(-x^2 / 4), 0 at +-inf: each side's factor of the bound on the series' terms."""
    with np.errstate(over="ignore"):
        return np.exp(-0.25 * np.square(x))


@njit(cache=True)
def _entropy_bits(p, q):
    """Binary entropy in bits of (p, q = 1 - p), 0 log 0 = 0."""
    total = 0.0
    if p > 0.0:
        total -= p * math.log(p)
    if q > 0.0:
        total -= q * math.log(q)
    return total / math.log(2.0)


@njit(cache=True)
def _lookahead_sums(h, p_one, q_one, coeff_h, decay_h, scale_q, gap, p_now, q_now, coeff_gap,
                    decay_gap, sd_ref, cross, entropy, out):
    """For each candidate i (row of ``cross``): the sum over references of
    p1 H(P1) + (1 - p1) H(P0) (``entropy``) or of delta = Phi_2 - p1 Px (module docstring).

    Per candidate the series runs over all references at once (one short loop per term over a
    contiguous row, which the compiler vectorises), as many terms as the worst of its
    references needs; references with |rho| > SERIES_MAX_RHO take no series terms and get the
    quadrature instead. ``coeff_gap`` is term-major (_SERIES_TERMS, n_s)."""
    n_c, n_s = cross.shape
    rho = np.empty(n_s)
    power = np.empty(n_s)
    series = np.empty(n_s)
    largest_decay = 0.0
    for j in range(n_s):
        largest_decay = max(largest_decay, decay_gap[j])
    for i in range(n_c):
        largest_rho = 0.0
        for j in range(n_s):
            r = 0.0
            if sd_ref[j] > 0.0:
                r = min(max(-cross[i, j] / (sd_ref[j] * scale_q[i]), -1.0), 1.0)
            rho[j] = r
            if abs(r) <= SERIES_MAX_RHO:
                largest_rho = max(largest_rho, abs(r))
                power[j] = 1.0
            else:
                power[j] = 0.0
            series[j] = 0.0
        n = _series_length(largest_rho, _TERM_BOUND * decay_h[i] * largest_decay)
        for t in range(n):
            c = coeff_h[i, t]
            for j in range(n_s):
                power[j] *= rho[j]
                series[j] += c * power[j] * coeff_gap[t, j]
        total = 0.0
        p1, q1 = p_one[i], q_one[i]
        for j in range(n_s):
            excess = series[j]
            if abs(rho[j]) > SERIES_MAX_RHO and math.isfinite(gap[j]):
                excess = _quadrature_excess(h[i], gap[j], rho[j], p1, q1, p_now[j], q_now[j])
            excess, p_if_one, q_if_one, p_if_zero, q_if_zero = _conditionals(
                p1, q1, p_now[j], q_now[j], excess)
            if entropy:
                total += (p1 * _entropy_bits(p_if_one, q_if_one)
                          + q1 * _entropy_bits(p_if_zero, q_if_zero))
            else:
                total += excess
        out[i] = total


class _ReferenceLookahead:
    """The reference side of the look-ahead for one model, reference set and threshold,
    computed once so that many candidate sets (a polish step scores one point at a time) cost
    only their own marginals, cross-covariances and series coefficients."""

    def __init__(self, model, references, threshold):
        self.kernel, self.X_train, self.posterior = _fitted_posterior(model)
        self.references = as_inputs(references, "references", self.X_train.shape[1])
        threshold = _threshold(threshold)
        self.ref = _marginals(self.kernel, self.X_train, self.posterior, self.references)
        self.sd = np.sqrt(self.ref.var)
        self.gap = standardised_gap(self.ref.mean, self.ref.var, threshold)
        self.p_now, self.q_now = ndtr(self.gap), ndtr(-self.gap)
        self.coefficients = np.ascontiguousarray(_hermite_table(self.gap).T)
        self.decay = _series_decay(self.gap)
        self.entropy_now = float(np.sum(_binary_entropy_bits(self.p_now, self.q_now)))

    def batches(self, candidates):
        """Yield (slice of candidates, cross-covariances (batch, n_s), posterior means and
        variances at the batch)."""
        candidates = as_inputs(candidates, "candidates", self.X_train.shape[1])
        batch = max(1, BATCH_ELEMENTS // self.references.shape[0])
        for start in range(0, candidates.shape[0], batch):
            rows = slice(start, min(start + batch, candidates.shape[0]))
            query = _marginals(self.kernel, self.X_train, self.posterior, candidates[rows])
            cross = self.kernel(query.X, self.references) - query.V.T @ self.ref.V
            if query.U is not None:
                cross += query.U.T @ self.ref.U
            yield rows, cross, query.mean, query.var

    def sums(self, cross, query_mean, query_var, entropy: bool) -> np.ndarray:
        """:func:`_lookahead_sums` for one batch of candidates."""
        scale_q = np.sqrt(1.0 + query_var)
        h = query_mean / scale_q
        out = np.empty(h.size)
        _lookahead_sums(h, ndtr(h), ndtr(-h), _hermite_table(h), _series_decay(h), scale_q,
                        self.gap, self.p_now, self.q_now, self.coefficients, self.decay,
                        self.sd, cross, entropy, out)
        return out

    def _over_candidates(self, candidates, entropy: bool) -> np.ndarray:
        out = np.empty(_n_rows(candidates))
        for rows, cross, mean, var in self.batches(candidates):
            out[rows] = self.sums(cross, mean, var, entropy)
        return out

    def global_mi(self, candidates) -> np.ndarray:
        information = self.entropy_now - self._over_candidates(candidates, True)
        return np.maximum(information, 0.0)  # information is >= 0; round-off can dip below

    def eavc(self, candidates) -> np.ndarray:
        return 2.0 * np.abs(self._over_candidates(candidates, False))


def _n_rows(candidates) -> int:
    return as_inputs(candidates, "candidates").shape[0]


def _binary_entropy_bits(p, q):
    """Binary entropy in bits of arrays p and q = 1 - p (each passed at full accuracy)."""
    return -(xlogy(p, p) + xlogy(q, q)) / np.log(2.0)


def global_mi(model, candidates, references, threshold) -> np.ndarray:
    """Global mutual information (BITS) between a Bernoulli probit answer at each candidate and
    the level-set memberships of the references, summed over references (module docstring).

    ``model``: a fitted course_lib GP (its posterior of f); ``candidates`` (n_c, d) and
    ``references`` (n_s, d) inputs; ``threshold``: the level (e.g. Phi^-1(0.75)). Returns
    (n_c,); it grows with the number of references (divide by n_s for a per-point value).
    """
    _n_rows(candidates)
    return _ReferenceLookahead(model, references, threshold).global_mi(candidates)


def eavc(model, candidates, references, threshold) -> np.ndarray:
    """Expected absolute volume change of the estimated level set (in reference points) after a
    Bernoulli probit answer at each candidate: 2 |sum_s (p1 Px - Phi_2)| (module docstring).
    Arguments as :func:`global_mi`; returns (n_c,)."""
    _n_rows(candidates)
    return _ReferenceLookahead(model, references, threshold).eavc(candidates)


def _predictive(model, candidates):
    kernel, X_train, posterior = _fitted_posterior(model)
    candidates = as_inputs(candidates, "candidates", X_train.shape[1])
    mean, var = posterior.predict(kernel(X_train, candidates), kernel.diag(candidates))
    return mean, np.maximum(var, 0.0)


# E_f[H(Phi(f))]: Gauss-Legendre on the part of mean +- _BALD_WINDOW sd where |f| < _BALD_WINDOW
# (H(Phi(f)) < 1e-20 beyond |f| = 10); the integrand is smooth there
_BALD_WINDOW = 10.0
_BALD_X, _BALD_W = np.polynomial.legendre.leggauss(64)


def bald_bernoulli(model, candidates) -> np.ndarray:
    """BALD (BITS): the information a Bernoulli probit answer at each candidate carries about f,
    H(Phi(mu / sqrt(1 + v))) - E_{f ~ N(mu, v)}[H(Phi(f))] (module docstring). Returns (n_c,).
    The expectation is a 64-node Gauss-Legendre rule on the window where both the Gaussian and
    H(Phi(f)) are non-negligible (error below 1e-9 bits, checked against adaptive quadrature).
    """
    mean, var = _predictive(model, candidates)
    sd = np.sqrt(var)
    lo = np.maximum(mean - _BALD_WINDOW * sd, -_BALD_WINDOW)
    hi = np.minimum(mean + _BALD_WINDOW * sd, _BALD_WINDOW)
    half = np.maximum(hi - lo, 0.0) / 2.0
    f = (lo + hi)[:, None] / 2.0 + half[:, None] * _BALD_X[None, :]
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        density = np.exp(-0.5 * ((f - mean[:, None]) / sd[:, None]) ** 2) / (
            sd[:, None] * np.sqrt(2.0 * np.pi))
        expected = half * np.sum(_BALD_W * density * _binary_entropy_bits(ndtr(f), ndtr(-f)),
                                 axis=1)
    expected = np.where(sd > 0, np.where(half > 0, expected, 0.0),
                        _binary_entropy_bits(ndtr(mean), ndtr(-mean)))
    a = mean / np.sqrt(1.0 + var)
    marginal = _binary_entropy_bits(ndtr(a), ndtr(-a))
    return np.maximum(marginal - expected, 0.0)


def straddle(model, candidates, threshold, *, width: float = 1.96) -> np.ndarray:
    """Straddle score width * sd - |mean - threshold| at each candidate (Bryan et al. 2005):
    large where the posterior is unsure on which side of the threshold f lies. Returns (n_c,)."""
    width = as_positive_float(width, "width")
    threshold = _threshold(threshold)
    mean, var = _predictive(model, candidates)
    return width * np.sqrt(var) - np.abs(mean - threshold)


# --------------------------------------------------------------------------------------------
# Choosing the next query
# --------------------------------------------------------------------------------------------

ACQUISITIONS = ("global_mi", "eavc", "bald", "straddle")
# the polish: Nelder-Mead with at most POLISH_EVALUATIONS_PER_DIM * d acquisition evaluations,
# its first simplex one candidate spacing (box width / n_c^(1/d)) wide in each free coordinate
POLISH_EVALUATIONS_PER_DIM = 30


@dataclass(frozen=True)
class Proposal:
    """What :func:`propose` found (with ``return_scores=True``).

    x : (d,) the next query. value : the acquisition at x. scores : (n_c,) the acquisition over
    the candidates (the map a widget draws). best_candidate : index of the best candidate (the
    polish's start; x equals its row when ``polish=False`` or when the polish found nothing
    better). n_evaluations : acquisition evaluations the polish spent (0 without polish).
    """

    x: np.ndarray
    value: float
    scores: np.ndarray
    best_candidate: int
    n_evaluations: int


def _scorer(model, acquisition, references, threshold):
    """A function (n, d) points -> (n,) scores for ``acquisition`` on ``model``."""
    if callable(acquisition):
        def score(X):
            values = np.asarray(acquisition(model, X))
            if values.shape != (X.shape[0],) or not np.issubdtype(values.dtype, np.number) \
                    or np.iscomplexobj(values):
                raise ValueError(f"acquisition: a callable must return one real score per "
                                 f"candidate, shape ({X.shape[0]},); got {values.dtype} values "
                                 f"of shape {values.shape}")
            values = values.astype(np.float64)
            if np.any(np.isnan(values)):
                raise ValueError("acquisition: the callable returned NaN scores")
            return values
        return score
    if not isinstance(acquisition, str):
        raise TypeError(f"acquisition: expected one of {list(ACQUISITIONS)} or a callable "
                        f"(model, candidates) -> scores, got {type(acquisition).__name__}")
    check_choice(acquisition, "acquisition", ACQUISITIONS)
    needs = {"global_mi": ("references", "threshold"), "eavc": ("references", "threshold"),
             "straddle": ("threshold",), "bald": ()}[acquisition]
    given = {"references": references, "threshold": threshold}
    for name in needs:
        if given[name] is None:
            what = ("reference points (n_s, d), e.g. Sobol points in the box" if
                    name == "references" else "the level of the set (e.g. Phi^-1(0.75))")
            raise ValueError(f"{name}: the {acquisition!r} acquisition needs {what}")
    if acquisition == "bald":
        return lambda X: bald_bernoulli(model, X)
    if acquisition == "straddle":
        threshold = _threshold(threshold)
        return lambda X: straddle(model, X, threshold)
    look = _ReferenceLookahead(model, references, threshold)
    return look.global_mi if acquisition == "global_mi" else look.eavc


def _polish_box(bounds, candidates) -> np.ndarray:
    d = candidates.shape[1]
    if bounds is None:
        return np.column_stack([candidates.min(axis=0), candidates.max(axis=0)])
    bounds = as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape != (d, 2):
        raise ValueError(f"bounds: expected shape ({d}, 2) (low, high per input dimension), "
                         f"got {bounds.shape}")
    if np.any(bounds[:, 0] > bounds[:, 1]):
        raise ValueError("bounds: every low must be <= its high")
    outside = np.any((candidates < bounds[:, 0]) | (candidates > bounds[:, 1]), axis=1)
    if np.any(outside):
        raise ValueError(f"bounds: candidate {int(np.argmax(outside))} lies outside the box")
    return bounds


def propose(model, acquisition, *, candidates, references=None, threshold=None,
            polish: bool = True, bounds=None, return_scores: bool = False):
    """The next query of a level-set active-learning loop: the best of ``candidates`` under
    ``acquisition``, then (``polish``) a short local search from it.

    ``acquisition``: "global_mi", "eavc" (both need ``references`` and ``threshold``),
    "straddle" (needs ``threshold``), "bald", or a callable (model, candidates) -> (n_c,)
    scores (larger = better); arguments an acquisition does not use are ignored.
    ``candidates``: (n_c, d) points, e.g. 1024 Sobol points in the box. The polish is a
    bounded Nelder-Mead run on the acquisition (derivative-free: EAVC and straddle have kinks)
    from the best candidate, its first simplex one candidate spacing wide, at most
    ``POLISH_EVALUATIONS_PER_DIM * d`` evaluations, inside ``bounds`` ((d, 2); default the
    candidates' bounding box; a zero-width coordinate stays fixed). The result is never worse
    than the best candidate, and deterministic. Returns the (d,) point, or a :class:`Proposal`
    (point, its score, the candidates' scores) with ``return_scores=True``.
    """
    candidates = as_inputs(candidates, "candidates")
    polish = as_bool(polish, "polish")
    return_scores = as_bool(return_scores, "return_scores")
    box = _polish_box(bounds, candidates)
    score = _scorer(model, acquisition, references, threshold)
    scores = score(candidates)
    best = int(np.argmax(scores))
    x, value, n_evaluations = candidates[best].copy(), float(scores[best]), 0
    free = box[:, 1] > box[:, 0]
    if polish and np.any(free):
        x, value, n_evaluations = _polish(score, x, value, box, free, candidates.shape[0])
    if return_scores:
        return Proposal(x, value, scores, best, n_evaluations)
    return x


def _polish(score, x0, value0, box, free, n_candidates):
    """Bounded Nelder-Mead on the free coordinates from x0 (module constants); keeps x0 unless
    a strictly better point is found."""
    low, high = box[free, 0], box[free, 1]
    spacing = (high - low) / n_candidates ** (1.0 / free.sum())
    start = x0[free]
    # each vertex steps away from the nearer wall, so the first simplex lies inside the box
    step = np.where(start + spacing <= high, spacing, -spacing)
    simplex = np.vstack([start, start + np.diag(step)])

    def negative(z):
        x = x0.copy()
        x[free] = np.clip(z, low, high)
        return -float(score(x[None, :])[0])

    run = minimize(negative, start, method="Nelder-Mead", bounds=list(zip(low, high)),
                   options={"initial_simplex": simplex,
                            "maxfev": POLISH_EVALUATIONS_PER_DIM * x0.size,
                            "xatol": 1e-3 * float(spacing.min()), "fatol": np.inf})
    if -run.fun > value0:
        x = x0.copy()
        x[free] = np.clip(run.x, low, high)
        return x, float(-run.fun), int(run.nfev)
    return x0, value0, int(run.nfev)
