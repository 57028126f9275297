"""Float tolerances that hold on every machine, each for a stated reason.

A float result is reproducible only to round-off across machines: OpenBLAS picks its kernels at
run time (Haswell, Zen, Sandybridge, ... block and order their sums differently), numpy's SIMD
loops and numba's target CPU differ too, and so do numpy/scipy versions. So

* an exact property stays exact (integers, counts, shapes, symmetry by construction, the same
  call twice in one process);
* a float comparison is made within round-off of the quantity it compares, scaled by the
  quantity's size and, where the computation cancels or solves, by its conditioning
  (:func:`round_off`);
* a sequence that climbs or falls in exact arithmetic (EM's log-likelihood, Newton's psi, a
  bound over nested sets) may step the wrong way by round-off of its size, no more
  (:func:`assert_non_decreasing`, :func:`assert_non_increasing`).
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, stats

EPS = float(np.finfo(float).eps)

# A few hundred eps: the round-off of a short chain of BLAS/LAPACK operations on well-scaled
# data (sums of up to ~1e4 terms, a Cholesky solve of a well-conditioned matrix), measured
# across OpenBLAS's Prescott/Sandybridge/Haswell/Zen kernels with room to spare. Tests pass a
# scale that includes the conditioning when the computation cancels.
ROUND_OFF_EPS = 256


def round_off(scale, k: float = ROUND_OFF_EPS):
    """``k`` eps times |``scale``| (the magnitude involved, times the conditioning where terms
    cancel or a matrix is solved), elementwise: the tolerance for a float that differs from
    another only by round-off."""
    return k * EPS * np.abs(scale)


def _check_monotone(values, sign: float, k: float, scale, what: str) -> None:
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return
    scale = float(np.max(np.abs(values if scale is None else scale)))
    tol = round_off(scale, k)
    steps = sign * np.diff(values)
    worst = int(np.argmin(steps))
    direction = "fell" if sign > 0 else "rose"
    assert steps[worst] >= -tol, (
        f"{what} {direction} by {abs(steps[worst]):.3g} from step {worst} to {worst + 1}, beyond "
        f"round-off ({k:g} eps x {scale:.3g} = {tol:.3g}); values from step "
        f"{max(worst - 2, 0)}: {values[max(worst - 2, 0):worst + 4]}")


def assert_non_decreasing(values, *, k: float = ROUND_OFF_EPS, scale=None,
                          what: str = "the sequence") -> None:
    """Every step of ``values`` climbs, or falls by at most round-off: ``k`` eps times ``scale``
    (default: the largest |value|). A real decrease (a wrong update) is far larger."""
    _check_monotone(values, 1.0, k, scale, what)


def assert_non_increasing(values, *, k: float = ROUND_OFF_EPS, scale=None,
                          what: str = "the sequence") -> None:
    """Every step of ``values`` falls, or climbs by at most round-off (as
    :func:`assert_non_decreasing`)."""
    _check_monotone(values, -1.0, k, scale, what)


def assert_within(actual, desired, tol, *, what: str = "the values") -> None:
    """|actual - desired| <= tol elementwise, ``tol`` an array or a number (numpy's
    assert_allclose takes a number only)."""
    actual = np.asarray(actual, dtype=float)
    desired = np.asarray(desired, dtype=float)
    actual, desired, tol = np.broadcast_arrays(actual, desired, np.asarray(tol, dtype=float))
    excess = np.abs(actual - desired) - tol
    bad = ~(excess <= 0)
    if np.any(bad):
        i = tuple(int(j) for j in np.unravel_index(
            int(np.argmax(np.where(bad, np.nan_to_num(excess, nan=np.inf), -np.inf))),
            excess.shape))
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} differ beyond their tolerance; at {i}: "
            f"{actual[i]!r} vs {desired[i]!r}, tolerance {tol[i]:.3g}")


def adaptive_expectation(fun, mean, var, points=()):
    """E[fun(z)] for z ~ N(mean, var) by scipy's adaptive quadrature (the reference for the
    course's fixed rules), piecewise between ``points`` (where fun changes on a scale much finer
    than the sd)."""
    sd = np.sqrt(var)
    edges = np.unique(np.clip([mean - 12 * sd, *points, mean + 12 * sd],
                              mean - 12 * sd, mean + 12 * sd))
    return sum(integrate.quad(lambda z: fun(z) * stats.norm.pdf(z, mean, sd), a, b,
                              epsabs=1e-13, epsrel=1e-12, limit=200)[0]
               for a, b in zip(edges[:-1], edges[1:]))


def finite_difference(function, x, step=1e-5):
    """Central differences of a scalar ``function`` in every entry of ``x`` (any shape)."""
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[index] = step
        out[index] = (function(x + e) - function(x - e)) / (2 * step)
    return out
