"""Observation models (likelihoods) on z = M f, for Laplace, EP and variational GPs.

Every likelihood here acts on ONE latent number per observation row k,

    z_k = (M f)_k = f(first_k) - f(second_k)     (pairs; orientation: course_lib.gp.comparisons)
    z_k = f(item_k)                              (single items: identity rows of M),

so the same code serves pairwise comparisons and single-item ratings, and a model needs only
``gradient = M^T g`` and ``W = M^T diag(w) M`` (never inverted: it is singular for pairs).

The interface (vectorised over rows; z, y of shape (m,))
--------------------------------------------------------
``terms(z, y, order=2) -> LikelihoodTerms``
    log p(y_k | z_k), its gradient d/dz, the curvature w = -d^2/dz^2 (may be NEGATIVE where the
    likelihood is not log-concave: PairwiseBeta, TruncatedGaussianRating, BetaRating) and with
    ``order=3`` the third derivative d^3/dz^3 (the implicit term of the Laplace evidence
    gradient).
``parameter_terms(z, y) -> (P, 3, m)``
    d/dtheta_p of (log p, gradient, curvature) for each log-parameter theta_p.
``theta``, ``bounds``, ``param_names``, ``with_theta(theta)``
    log-parameters as in ``course_lib.gp.kernels`` (immutable objects, log-bounds,
    ``<name>_bounds=(low, high)`` or ``"fixed"`` in the constructor).
``predictive_mean(mean, var)``, ``predictive_log_density(y, mean, var)``
    an observation's expected value (binary: P(y = 1)) and log density (binary: log P(y)) when
    z ~ N(mean, var), e.g. the Laplace predictive of a pair's difference. Closed form where one
    exists, otherwise Gauss-Hermite quadrature with ``GAUSS_HERMITE_NODES`` nodes.
``expected_log_likelihood(y, mean, var) -> (E log p, d/dmean, d/dvar)``
    E_{N(z; mean, var)} log p(y | z) and its derivatives (variational inference, Unit 7):
    d/dmean = E[d log p/dz] and d/dvar = E[d^2 log p/dz^2] / 2 (Price's and Bonnet's theorems).

The models (sigma = ``noise_sd``, Phi / phi the standard normal cdf / pdf)
---------------------------------------------------------------------------
=========================  ================  ===============================================
class                      y                 p(y | z)
=========================  ================  ===============================================
PairwiseGaussian           real difference   N(y; z, sigma^2)  (sigma: sd of the difference)
PairwiseProbit             0 / 1             P(y = 1) = Phi(z / (sqrt(2) sigma))  (Thurstone:
                                             each option evokes f + N(0, sigma^2))
PairwiseBeta               degree in [0, 1]  Beta(y; nu mu, nu (1 - mu)), mu = Phi(z/(sqrt2 sigma))
TruncatedGaussianRating    rating in [0, 1]  N(y; Phi(z), sigma^2) truncated to [0, 1]
BetaRating                 rating in [0, 1]  Beta(y; nu Phi(z), nu (1 - Phi(z)))
WarpedProbitRating         rating in [0, 1]  N(Phi^-1(y); z, sigma^2) / phi(Phi^-1(y))
=========================  ================  ===============================================

(J. B. Nielsen's thesis, DTU 2014/2015, sections 2.2 and 2.4; its Papers A and E. The thesis
writes pairs the other way round, see ``comparisons``; its printed Beta derivatives miss the
chain-rule factor 1/(sqrt(2) sigma) and its warped-GP density divides by Phi(Phi^-1(y)) = y
instead of the Jacobian phi(Phi^-1(y)); both are corrected here.)

Numerics: log Phi is ``log_ndtr``; the inverse Mills ratio phi(t)/Phi(t) is
sqrt(2/pi)/erfcx(-t/sqrt(2)) (no 0/0 in the far tail) and, below t = -12, its asymptotic series,
so curvature and third derivative keep full relative precision at z = -40 and beyond. Beta
likelihoods never form Gamma(alpha) for a vanishing shape alpha = nu Phi(t): they use
log Gamma(alpha) = log Gamma(1 + alpha) - log alpha with log alpha = log nu + log Phi(t), and
psi(alpha) = psi(1 + alpha) - 1/alpha with nu phi(t)/alpha = phi(t)/Phi(t), so the log density
and every derivative stay finite for every finite z.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erfcx, log_ndtr, logsumexp, ndtr

from ..validation import as_float_array, check_choice
from .kernels import DEFAULT_BOUNDS, check_log_parameters, check_parameter, log_bounds

__all__ = ["LikelihoodTerms", "Likelihood", "PairwiseGaussian", "PairwiseProbit",
           "GAUSS_HERMITE_NODES", "inverse_mills_ratio"]

LOG_2PI = float(np.log(2.0 * np.pi))
SQRT2 = float(np.sqrt(2.0))
# Gauss-Hermite nodes for expectations over N(mean, var) without a closed form. With 64 nodes
# the predictive densities and means of the smooth likelihoods here agree with adaptive
# quadrature (scipy.integrate.quad) to better than 1e-8 for var <= 4 (tests).
GAUSS_HERMITE_NODES = 64
_GH_X, _GH_W = np.polynomial.hermite.hermgauss(GAUSS_HERMITE_NODES)
_GH_LOG_W = np.log(_GH_W) - 0.5 * np.log(np.pi)  # weights of E over N(0, 1/2) scaled to sum 1


# --------------------------------------------------------------------------------------------
# log Phi and its derivatives, stable in both tails
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# The interface
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LikelihoodTerms:
    """Per-row derivatives of log p(y_k | z_k) in z_k, each of shape (m,)."""

    log_likelihood: np.ndarray   # log p(y_k | z_k)
    gradient: np.ndarray         # d log p / dz
    curvature: np.ndarray        # w = -d^2 log p / dz^2 (may be < 0: not log-concave)
    third: np.ndarray | None     # d^3 log p / dz^3 (order=3), else None


def _check_rows(values, name: str, m: int | None = None) -> np.ndarray:
    arr = as_float_array(values, name, ndim=1)
    if m is not None and arr.size != m:
        raise ValueError(f"{name}: expected {m} values (one per observation row), got {arr.size}")
    return arr


def _scale_parameter_terms(t, l_t, l_tt, l_ttt, scale, sign=1.0) -> np.ndarray:
    """d/du of (log p, gradient, curvature) when log p depends on u = log sigma only through
    t = sign * scale * z with scale proportional to 1/sigma (so dt/du = -t).

    gradient = sign * scale * l_t  ->  d/du = -sign * scale * (l_t + t l_tt)
    curvature = -scale^2 l_tt      ->  d/du = scale^2 (2 l_tt + t l_ttt)
    """
    return np.stack([-t * l_t, -sign * scale * (l_t + t * l_tt),
                     scale ** 2 * (2.0 * l_tt + t * l_ttt)])


class Likelihood:
    """Base class: log-parameter bookkeeping, argument checks and Gauss-Hermite expectations.

    A subclass sets ``observation_kind`` and ``_names``, calls ``_init_parameters`` in its
    constructor and implements
    ``_check_domain(y, name) -> y`` (values refused or clipped as documented),
    ``_derivatives(z, y, order) -> (log p, d/dz, d^2/dz^2, d^3/dz^3 or None)`` (elementwise,
    broadcasting), ``_parameter_terms(z, y) -> (P, 3, m)`` and ``_conditional_mean(z)``
    (E[y | z]); it may override the predictive and expectation methods with closed forms.
    """

    observation_kind = ""
    _names: tuple[str, ...] = ()

    def _init_parameters(self, values: dict, bounds: dict) -> None:
        checked = {name: check_parameter(values[name], name) for name in self._names}
        self._log_theta = np.log([checked[name] for name in self._names])
        self._log_bounds = np.vstack([log_bounds(bounds[name], np.array([checked[name]]), name)
                                      for name in self._names])

    # ----- parameters -------------------------------------------------------------------------
    @property
    def param_names(self) -> tuple[str, ...]:
        return self._names

    @property
    def n_params(self) -> int:
        return len(self._names)

    @property
    def theta(self) -> np.ndarray:
        """Log-parameters, in the order of ``param_names``."""
        return self._log_theta.copy()

    @property
    def bounds(self) -> np.ndarray:
        """Log-bounds, shape (n_params, 2)."""
        return self._log_bounds.copy()

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self._names, np.exp(self._log_theta).tolist()))

    def with_theta(self, theta) -> "Likelihood":
        """A copy with log-parameters ``theta`` (shape (n_params,))."""
        theta = as_float_array(theta, "theta", ndim=1, allow_empty=True)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta: expected shape ({self.n_params},) for parameters "
                             f"{self._names}, got {theta.shape}")
        check_log_parameters(theta, self._names)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._log_theta = theta.copy()
        return new

    def _param(self, name: str) -> float:
        return float(np.exp(self._log_theta[self._names.index(name)]))

    def __repr__(self) -> str:
        inside = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        return f"{type(self).__name__}({inside})"

    # ----- checks -----------------------------------------------------------------------------
    def check_observations(self, y, name: str = "y") -> np.ndarray:
        """``y`` as a 1-D float array in this likelihood's domain (errors name ``name``)."""
        return self._check_domain(as_float_array(y, name, ndim=1), name)

    def _check_zy(self, z, y):
        z = _check_rows(z, "z")
        return z, self._check_domain(_check_rows(y, "y", z.size), "y")

    def _check_gaussian(self, mean, var):
        mean = _check_rows(mean, "mean")
        var = _check_rows(var, "var", mean.size)
        if np.any(var < 0):
            raise ValueError(f"var: variances must be >= 0, row {int(np.argmax(var < 0))} has "
                             f"{var[var < 0][0]:g}")
        return mean, var

    # ----- derivatives ------------------------------------------------------------------------
    def terms(self, z, y, order: int = 2) -> LikelihoodTerms:
        """log p(y | z), gradient, curvature w = -d^2/dz^2 and (order=3) the third derivative."""
        check_choice(order, "order", (2, 3))
        z, y = self._check_zy(z, y)
        value, d1, d2, d3 = self._derivatives(z, y, order)
        return LikelihoodTerms(value, d1, -d2, d3)

    def log_likelihood(self, z, y) -> np.ndarray:
        """log p(y_k | z_k), shape (m,)."""
        z, y = self._check_zy(z, y)
        return self._log_density(z, y)

    def parameter_terms(self, z, y) -> np.ndarray:
        """d/dtheta_p (log-parameters) of (log p, gradient, curvature): shape (P, 3, m)."""
        z, y = self._check_zy(z, y)
        return self._parameter_terms(z, y)

    def _log_density(self, z, y):
        return self._derivatives(z, y, 1)[0]

    # ----- expectations over z ~ N(mean, var) ----------------------------------------------------
    @staticmethod
    def _nodes(mean, var) -> np.ndarray:
        """Gauss-Hermite abscissae z = mean + sqrt(2 var) x, shape (m, nodes)."""
        return mean[:, None] + np.sqrt(2.0 * var)[:, None] * _GH_X[None, :]

    def predictive_mean(self, mean, var) -> np.ndarray:
        """E[y] when z ~ N(mean, var) (binary answers: P(y = 1)), shape (m,)."""
        mean, var = self._check_gaussian(mean, var)
        return np.exp(logsumexp(_GH_LOG_W + np.log(self._conditional_mean(
            self._nodes(mean, var))), axis=1))

    def predictive_log_density(self, y, mean, var) -> np.ndarray:
        """log p(y_k) = log E[p(y_k | z)] when z ~ N(mean_k, var_k), shape (m,)."""
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        return logsumexp(_GH_LOG_W + self._log_density(self._nodes(mean, var), y[:, None]),
                         axis=1)

    def expected_log_likelihood(self, y, mean, var):
        """``(E log p(y | z), d/dmean, d/dvar)`` with z ~ N(mean, var), each of shape (m,)."""
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        value, d1, d2, _ = self._derivatives(self._nodes(mean, var), y[:, None], 2)
        weights = np.exp(_GH_LOG_W)
        return value @ weights, d1 @ weights, 0.5 * (d2 @ weights)


# --------------------------------------------------------------------------------------------
# Pairs
# --------------------------------------------------------------------------------------------

class PairwiseGaussian(Likelihood):
    """An observed difference y = f(first) - f(second) + eps, eps ~ N(0, noise_sd^2).

    ``noise_sd`` is the sd of the observed DIFFERENCE (thesis eq. 2.40). Closed forms for
    everything: w = 1/sigma^2 (the posterior is exactly Gaussian), third derivative 0,
    predictive y ~ N(mean, sigma^2 + var).
    """

    observation_kind = "pair-difference"
    _names = ("noise_sd",)

    def __init__(self, noise_sd: float = 1.0, *, noise_sd_bounds=DEFAULT_BOUNDS):
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": noise_sd_bounds})

    def _check_domain(self, y, name):
        return y

    def _derivatives(self, z, y, order):
        variance = self._param("noise_sd") ** 2
        residual = y - z
        value = -0.5 * (LOG_2PI + np.log(variance) + residual ** 2 / variance)
        shape = np.broadcast(z, y).shape
        third = np.zeros(shape) if order >= 3 else None
        return value, residual / variance, np.full(shape, -1.0 / variance), third

    def _parameter_terms(self, z, y):
        variance = self._param("noise_sd") ** 2
        residual = y - z
        return np.stack([residual ** 2 / variance - 1.0, -2.0 * residual / variance,
                         np.full(z.shape, -2.0 / variance)])[None]

    def predictive_mean(self, mean, var):
        mean, _ = self._check_gaussian(mean, var)
        return mean.copy()

    def predictive_log_density(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        y = _check_rows(y, "y", mean.size)
        total = self._param("noise_sd") ** 2 + var
        return -0.5 * (LOG_2PI + np.log(total) + (y - mean) ** 2 / total)

    def expected_log_likelihood(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        y = _check_rows(y, "y", mean.size)
        variance = self._param("noise_sd") ** 2
        value = (-0.5 * (LOG_2PI + np.log(variance) + (y - mean) ** 2 / variance)
                 - 0.5 * var / variance)
        return value, (y - mean) / variance, np.full(mean.shape, -0.5 / variance)


class PairwiseProbit(Likelihood):
    """Thurstone's binary preference: P(y = 1 | z) = Phi(z / (sqrt(2) noise_sd)).

    y = 1: the first item was preferred (z = f(first) - f(second)); y = 0: the second. Each
    option evokes f + N(0, sigma^2) and the larger wins, so the difference has sd sqrt(2) sigma.
    With s = 2 y - 1, c = 1 / (sqrt(2) sigma) and t = s c z:

        log p = log Phi(t),  d/dz = s c r(t),  w = c^2 r (t + r)  in (0, c^2),
        d^3/dz^3 = s c^3 r ((t + r)(t + 2 r) - 1),      r = phi(t) / Phi(t).

    Log-concave (w > 0). Predictive: P(y = 1) = Phi(mean / sqrt(2 sigma^2 + var)) (closed form).
    Only z / sigma is identified: fix sigma or the kernel's variance (thesis section 2.4.1).
    """

    observation_kind = "pair-binary"
    _names = ("noise_sd",)

    def __init__(self, noise_sd: float = 1.0, *, noise_sd_bounds=DEFAULT_BOUNDS):
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": noise_sd_bounds})

    def _check_domain(self, y, name):
        bad = (y != 0) & (y != 1)
        if np.any(bad):
            raise ValueError(f"{name}: binary answers must be 0 or 1 (1 = the first item was "
                             f"preferred), row {int(np.argmax(bad))} has {y[bad][0]:g}")
        return y

    def _scale(self) -> float:
        return 1.0 / (SQRT2 * self._param("noise_sd"))

    def _derivatives(self, z, y, order):
        c, sign = self._scale(), 2.0 * y - 1.0
        value, l_t, l_tt, l_ttt = log_ndtr_derivatives(sign * c * z, order)
        third = None if l_ttt is None else sign * c ** 3 * l_ttt
        return value, sign * c * l_t, c ** 2 * l_tt, third

    def _log_density(self, z, y):
        return log_ndtr((2.0 * y - 1.0) * self._scale() * z)

    def _parameter_terms(self, z, y):
        c, sign = self._scale(), 2.0 * y - 1.0
        t = sign * c * z
        _, l_t, l_tt, l_ttt = log_ndtr_derivatives(t, 3)
        return _scale_parameter_terms(t, l_t, l_tt, l_ttt, c, sign)[None]

    def _total_sd(self, var):
        return np.sqrt(2.0 * self._param("noise_sd") ** 2 + var)

    def predictive_mean(self, mean, var):
        mean, var = self._check_gaussian(mean, var)
        return ndtr(mean / self._total_sd(var))

    def predictive_log_density(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        return log_ndtr((2.0 * y - 1.0) * mean / self._total_sd(var))

    def _conditional_mean(self, z):
        return ndtr(self._scale() * z)
