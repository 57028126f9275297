"""Level-set estimation (Unit 7, seed 003 section 4.2): where is f below a threshold?

The target is the sublevel set {x : f(x) < threshold} of a latent f with a Gaussian posterior,
observed through Bernoulli probit answers y ~ Bernoulli(Phi(f(x))) (a detection task: the
75 % point of a psychometric function is the threshold Phi^-1(0.75) = 0.6745).

Bivariate normal CDF
    :func:`bvn_cdf` Phi_2(h, k; rho) = P(Z1 < h, Z2 < k) for standard normals with correlation
    rho, through Owen's T function:

        Phi_2(h, k; rho) = [Phi(h) + Phi(k)] / 2 - T(h, a_h) - T(k, a_k) - beta,
        a_h = (k - rho h) / (h sqrt(1 - rho^2)),   a_k = (h - rho k) / (k sqrt(1 - rho^2)),

    with beta = 1/2 when h and k have opposite signs (or one is 0 and h + k < 0), else 0.
    At h = 0 the ratio a_h is infinite and T(0, +-inf) = +-1/4 is used in its place; at
    h = k = 0 the closed form 1/4 + arcsin(rho) / (2 pi) applies; at rho = +-1 the limits
    Phi(min(h, k)) and max(0, Phi(h) - Phi(-k)). 1 - rho^2 is formed as (1 - rho)(1 + rho) so
    that rho near +-1 keeps its digits.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, owens_t

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


def bvn_cdf(h, k, rho) -> np.ndarray:
    """Phi_2(h, k; rho) = P(Z1 < h, Z2 < k), (Z1, Z2) standard normal with correlation rho.

    ``h``, ``k`` and ``rho`` broadcast against each other; h and k may be +-inf (the CDF's
    limits), rho must lie in [-1, 1]. Owen's T form with the special cases of the module
    docstring. The error is ABSOLUTE, at float64 round-off (below 2e-16 against the closed forms
    at rho = 0 and +-1; below 1e-14 against scipy's ``multivariate_normal.cdf`` at tolerance
    1e-14, rho up to +-0.999999); far in the lower tail (values near 1e-13) the relative error
    grows to about 1e-9, as the formula subtracts terms of order Phi(h).
    """
    h = _real_array(h, "h")
    k = _real_array(k, "k")
    rho = _real_array(rho, "rho")
    if np.any(np.abs(rho) > 1):
        raise ValueError(f"rho: a correlation must lie in [-1, 1], got "
                         f"{rho[np.abs(rho) > 1].flat[0]:g}")
    h, k, rho = np.broadcast_arrays(h, k, rho)
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
