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
    exists, otherwise numerical integration (below).
``expected_log_likelihood(y, mean, var) -> (E log p, d/dmean, d/dvar)``
    E_{N(z; mean, var)} log p(y | z) and its derivatives (variational inference, Unit 7):
    d/dmean = E[d log p/dz] and d/dvar = E[d^2 log p/dz^2] / 2 (Price's and Bonnet's theorems;
    a likelihood with kinks adds their point masses, see LikertConfidence).
``expected_parameter_gradient(y, mean, var) -> (P, m)``
    E[d log p/dtheta_p]: the gradient of the expected log-likelihood in the log-parameters.

Integrals over z ~ N(mean, var) without a closed form come from ``course_lib.gp.quadrature``
(composite Gauss-Legendre with panel edges where the integrand has structure). A likelihood
tells it where to look: ``_link_scale()`` (the width in z over which its link changes),
``_likelihood_centre(y)`` (roughly where p(y | z) peaks in z, for likelihoods that are not
log-concave), ``_kinks()`` (where log p has a kink in z, LikertConfidence) and
``_smooth_in_z`` (smooth everywhere: narrow rows may take Gauss-Hermite).

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
BernoulliProbit            0 / 1, one item   P(y = 1) = Phi(z)  (PairwiseProbit, sigma = 1/sqrt2)
GaussianConstraint         latent target     N(y; z, sigma_k^2), a fixed sigma_k per row
LikertConfidence           level 0 .. l - 1  softmax of -distance of |z| to each level's
                                             interval, with a lapse (Wu et al. 2025, eq. 2)
OrdinalProbit              level 0 .. K - 1  Phi(b_{y+1} - z) - Phi(b_y - z)  (cumulative probit)
=========================  ================  ===============================================

(J. B. Nielsen's thesis, DTU 2014/2015, sections 2.2 and 2.3; B. S. Jensen, J. B. Nielsen and
J. Larsen, "Efficient preference learning with pairwise continuous observations and Gaussian
processes", IEEE MLSP 2011, and "Bounded Gaussian process regression", IEEE MLSP 2013; K. Wu,
C. Sanders, B. Letham and P. Guan, "Mixed likelihood variational Gaussian processes", preprint
2025. The thesis writes pairs the other way round, see ``comparisons``; its printed Beta
derivatives miss the chain-rule factor 1/(sqrt(2) sigma) and its warped-GP density divides by
Phi(Phi^-1(y)) = y instead of the Jacobian phi(Phi^-1(y)); both are corrected here.)

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
from scipy.special import erf, erfcx, gammaln, log_ndtr, ndtr, ndtri, polygamma, psi

from ..validation import as_float_array, check_choice
from . import quadrature
from .parameters import DEFAULT_BOUNDS, LogParameters, check_parameter

__all__ = ["LikelihoodTerms", "Likelihood", "PairwiseGaussian", "PairwiseProbit", "PairwiseBeta",
           "TruncatedGaussianRating", "BetaRating", "WarpedProbitRating",
           "BernoulliProbit", "GaussianConstraint", "LikertConfidence", "OrdinalProbit",
           "DEFAULT_CLIP", "inverse_mills_ratio", "log_ndtr_derivatives"]

LOG_2PI = float(np.log(2.0 * np.pi))
SQRT2 = float(np.sqrt(2.0))


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


class Likelihood(LogParameters):
    """Base class: argument checks and expectations over N(mean, var); the log-parameters
    are held as :class:`~course_lib.gp.parameters.LogParameters` (``theta``, ``bounds``,
    ``with_theta``).

    A subclass sets ``observation_kind`` and ``_names``, calls ``_init_parameters`` in its
    constructor and implements
    ``_check_domain(y, name) -> y`` (values refused or clipped as documented),
    ``_derivatives(z, y, order) -> (log p, d/dz, d^2/dz^2, d^3/dz^3 or None)`` (elementwise,
    broadcasting), ``_parameter_terms(z, y) -> (P, 3, m)`` and ``_conditional_mean(z)``
    (E[y | z]); it may override the predictive and expectation methods with closed forms, and
    tells the quadrature where to look: ``_link_scale()`` (the width in z over which the link
    changes, default 1) and ``_likelihood_centre(y)`` (roughly where p(y | z) peaks in z, for
    likelihoods that are not log-concave; default None).
    """

    observation_kind = ""

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
    def predictive_mean(self, mean, var) -> np.ndarray:
        """E[y] when z ~ N(mean, var) (binary answers: P(y = 1)), shape (m,); E[y | z]
        integrated by :func:`course_lib.gp.quadrature.expectation` unless a subclass has a
        closed form."""
        mean, var = self._check_gaussian(mean, var)
        result = self._conditional_mean(mean)
        spread = var > 0
        if np.any(spread):
            result[spread] = self._expectation(lambda z, row: self._conditional_mean(z),
                                               mean[spread], var[spread])
        return result

    def predictive_log_density(self, y, mean, var) -> np.ndarray:
        """log p(y_k) = log E[p(y_k | z)] when z ~ N(mean_k, var_k), shape (m,).

        By :func:`course_lib.gp.quadrature.log_expectation`, with windows around the mode of
        p(y | z) N(z; mean, var) and around the likelihood's own bump (a likelihood that is not
        log-concave gives the integrand two bumps), both found by Newton's method; summed in
        log space, so a density far below 1e-308 is still exact. ``var = 0`` gives
        log p(y | mean).
        """
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        result = self._log_density(mean, y)
        spread = var > 0
        if np.any(spread):
            y, mean, var = y[spread], mean[spread], var[spread]
            windows = [self._window(y, mean.copy(), mean, 1.0 / var)]
            centre = self._likelihood_centre(y)
            if centre is not None:
                windows.append(self._window(y, centre, mean, np.zeros_like(var)))
            result[spread] = quadrature.log_expectation(
                lambda z, row: self._log_density(z, y[row, None]), mean, var, windows=windows,
                link_scale=self._link_scale(), kinks=self._kinks())
        return result

    def expected_parameter_gradient(self, y, mean, var) -> np.ndarray:
        """E[d log p(y | z) / d theta_p] with z ~ N(mean, var): shape (n_params, m), the
        gradient of :meth:`expected_log_likelihood`'s value in the log-parameters (for learning
        a likelihood's parameters on a variational bound). log p is continuous in theta, so
        the derivative passes under the integral even where the likelihood has kinks."""
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        if self.n_params == 0:
            return np.zeros((0, mean.size))
        result = self._parameter_terms(mean, y)[:, 0, :].copy()
        spread = var > 0
        if np.any(spread):
            y_spread = y[spread]
            sums = self._expectation(
                lambda z, row: tuple(self._parameter_terms(z, y_spread[row, None])[:, 0]),
                mean[spread], var[spread])
            result[:, spread] = np.reshape(sums, (self.n_params, -1))
        return result

    def expected_log_likelihood(self, y, mean, var):
        """``(E log p(y | z), d/dmean, d/dvar)`` with z ~ N(mean, var), each of shape (m,).

        d/dmean = E[d log p/dz] and d/dvar = E[d^2 log p/dz^2] / 2 (Price's and Bonnet's
        theorems), all three by
        :func:`course_lib.gp.quadrature.expectation`."""
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        value, d1, d2, _ = self._derivatives(mean, y, 2)
        d2 = 0.5 * d2
        spread = var > 0
        if np.any(spread):
            y_spread = y[spread]

            def integrand(z, row):
                terms = self._derivatives(z, y_spread[row, None], 2)
                return terms[0], terms[1], 0.5 * terms[2]

            value[spread], d1[spread], d2[spread] = self._expectation(integrand, mean[spread],
                                                                      var[spread])
        return value, d1, d2

    # ----- where the quadrature looks (course_lib.gp.quadrature) --------------------------------
    # a log-likelihood that is smooth in z everywhere (no kinks, bumps or plateaus) lets narrow
    # rows take Gauss-Hermite
    _smooth_in_z = False

    def _link_scale(self) -> float:
        """The width in z over which the likelihood's link changes (where the integrand of
        a predictive density can have structure away from its mode)."""
        return 1.0

    def _likelihood_centre(self, y):
        """Where p(y | z) peaks as a function of z, roughly (None: not known)."""
        return None

    def _kinks(self) -> tuple[float, ...]:
        """Values of z where log p(y | z) has a kink (a jump in its derivative): the
        quadrature puts panel edges there, since Gauss-Legendre converges slowly across one."""
        return ()

    def _expectation(self, fun, mean, var):
        """:func:`course_lib.gp.quadrature.expectation` told where this likelihood changes."""
        return quadrature.expectation(fun, mean, var, link_scale=self._link_scale(),
                                      kinks=self._kinks(), smooth=self._smooth_in_z)

    def _window(self, y, start, mean, precision):
        """:func:`course_lib.gp.quadrature.newton_window` on log p(y | z) from ``start``."""
        return quadrature.newton_window(lambda z: self._log_density(z, y),
                                        lambda z: self._derivatives(z, y, 2)[1:3], start, mean,
                                        precision, self._link_scale())


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

    def _link_scale(self):
        return self._param("noise_sd")

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
    Only z / sigma is identified: fix sigma or the kernel's variance (Nielsen, Nielsen & Larsen
    2015, eq. 25, fix the kernel's sigma_f = 4).
    """

    observation_kind = "pair-binary"
    _names = ("noise_sd",)
    _smooth_in_z = True

    def __init__(self, noise_sd: float = 1.0, *, noise_sd_bounds=DEFAULT_BOUNDS):
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": noise_sd_bounds})

    def _check_domain(self, y, name):
        return _check_binary(y, name, "1 = the first item was preferred")

    def _scale(self) -> float:
        return 1.0 / (SQRT2 * self._param("noise_sd"))

    def _link_scale(self):
        return SQRT2 * self._param("noise_sd")

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


def _check_binary(y, name: str, meaning: str) -> np.ndarray:
    """Refuse answers other than 0 and 1; ``meaning`` says what 1 means."""
    bad = (y != 0) & (y != 1)
    if np.any(bad):
        raise ValueError(f"{name}: binary answers must be 0 or 1 ({meaning}), row "
                         f"{int(np.argmax(bad))} has {y[bad][0]:g}")
    return y


# --------------------------------------------------------------------------------------------
# Beta likelihoods (degree of preference, bounded ratings): shared algebra in t
# --------------------------------------------------------------------------------------------

# Answers closer than this to 0 or 1 are moved to it (log y, log(1 - y) and Phi^-1(y) are
# infinite at the ends): finer than any slider's resolution, so real answers are untouched,
# while an answer of exactly 0 or 1 gets a finite, very strong, log density. A power of two
# (2^-20 = 9.5e-7), so 1 - clip is exact and the answers y and 1 - y clip symmetrically.
DEFAULT_CLIP = 2.0 ** -20


def _check_unit_interval(y, name: str, clip: float | None) -> np.ndarray:
    """Refuse answers outside [0, 1]; move those within ``clip`` of an end to the clip."""
    bad = (y < 0) | (y > 1)
    if np.any(bad):
        raise ValueError(f"{name}: answers must lie in [0, 1], row {int(np.argmax(bad))} has "
                         f"{y[bad][0]:g}")
    return y if clip is None else np.clip(y, clip, 1.0 - clip)


def _check_clip(clip) -> float:
    clip = float(as_float_array(clip, "clip", ndim=0))
    if not 0.0 < clip < 0.5:
        raise ValueError(f"clip: expected a small number in (0, 0.5), got {clip:g}")
    return clip


def _normal_pdf(t):
    return np.exp(-0.5 * t * t) / np.sqrt(2.0 * np.pi)


class _BetaInT:
    """log Beta(y; nu Phi(t), nu (1 - Phi(t))) and its derivatives in t and in log nu.

    alpha = nu Phi(t), beta = nu Phi(-t), A = d alpha/dt = nu phi(t) (= -d beta/dt),
    H = log y - log(1 - y) - psi(1 + alpha) + psi(1 + beta), S1 = psi'(1 + alpha) +
    psi'(1 + beta), r = phi/Phi (inverse Mills ratio), q(s) = r(s)(s + r(s)), D3 = d^3 log Phi:

        l     = log G(nu) - log G(1 + alpha) + log alpha - log G(1 + beta) + log beta
                + (alpha - 1) log y + (beta - 1) log(1 - y)
        l_t   = A H + r(t) - r(-t)
        l_tt  = -t A H - A^2 S1 - q(t) - q(-t)
        l_ttt = A H (t^2 - 1) + 3 t A^2 S1 - A^3 (psi''(1 + alpha) - psi''(1 + beta))
                + D3(t) - D3(-t)

    These are the textbook forms (thesis; Jensen, Nielsen & Larsen 2013: l_t = nu phi (log y -
    log(1 - y) - psi(alpha) + psi(beta))) rewritten with psi(a) = psi(1 + a) - 1/a and
    Gamma(a) = Gamma(1 + a) / a, so the poles at alpha -> 0 or beta -> 0 cancel analytically
    (nu phi / alpha = r).
    """

    def __init__(self, t, y, nu, order):
        self.t, self.nu, self.order = t, nu, order
        self.log_y, self.log_1my = np.log(y), np.log1p(-y)
        self.log_alpha, self.log_beta = np.log(nu) + log_ndtr(t), np.log(nu) + log_ndtr(-t)
        self.alpha, self.beta = np.exp(self.log_alpha), np.exp(self.log_beta)

    def log_density(self):
        return (gammaln(self.nu) - gammaln(1.0 + self.alpha) + self.log_alpha
                - gammaln(1.0 + self.beta) + self.log_beta
                + (self.alpha - 1.0) * self.log_y + (self.beta - 1.0) * self.log_1my)

    def _slopes(self):
        """A, H, S1 (class docstring); computed only when a derivative is asked for."""
        if not hasattr(self, "A"):
            self.A = self.nu * _normal_pdf(self.t)
            self.H = (self.log_y - self.log_1my - psi(1.0 + self.alpha)
                      + psi(1.0 + self.beta))
            self.S1 = polygamma(1, 1.0 + self.alpha) + polygamma(1, 1.0 + self.beta)
        return self.A, self.H, self.S1

    def derivatives(self):
        t = self.t
        A, H, S1 = self._slopes()
        _, r_t, d2_t, d3_t = log_ndtr_derivatives(t, self.order)
        _, r_m, d2_m, d3_m = log_ndtr_derivatives(-t, self.order)
        l_t = A * H + r_t - r_m
        l_tt = -t * A * H - A * A * S1 + d2_t + d2_m
        l_ttt = None
        if self.order >= 3:
            S2 = polygamma(2, 1.0 + self.alpha) - polygamma(2, 1.0 + self.beta)
            l_ttt = A * H * (t * t - 1.0) + 3.0 * t * A * A * S1 - A ** 3 * S2 + d3_t - d3_m
        return self.log_density(), l_t, l_tt, l_ttt

    def log_nu_terms(self):
        """d/dlog nu of (l, l_t, l_tt)."""
        t, a, b = self.t, self.alpha, self.beta
        A, H, _ = self._slopes()
        dH = -a * polygamma(1, 1.0 + a) + b * polygamma(1, 1.0 + b)
        dl = (self.nu * psi(self.nu) - a * psi(1.0 + a) - b * psi(1.0 + b) + 2.0
              + a * self.log_y + b * self.log_1my)
        dl_t = A * (H + dH)
        dl_tt = (-t * A * (H + dH) - 2.0 * A * A * self._slopes()[2]
                 - A * A * (a * polygamma(2, 1.0 + a) + b * polygamma(2, 1.0 + b)))
        return dl, dl_t, dl_tt


class PairwiseBeta(Likelihood):
    """Degree of preference y in [0, 1]: y ~ Beta(nu mu, nu (1 - mu)), mu = Phi(z/(sqrt(2) sigma)).

    y > 0.5: the first item was preferred (z = f(first) - f(second)); the mean answer is mu and
    its variance mu (1 - mu) / (nu + 1), so ``concentration`` nu measures how consistently the
    slider is placed. J. B. Nielsen's thesis eqs. 2.59-2.61; Jensen, Nielsen & Larsen 2011
    (with its orientation reversed and its derivatives corrected: the chain-rule factor
    1/(sqrt(2) sigma) was missing).

    NOT log-concave in z: the curvature w = -d^2 log p/dz^2 is negative where |z| is large
    against an answer near 0.5 (the -t A H term), so Newton's method needs damping (Laplace)
    and the Laplace covariance is valid only where K^-1 + W is positive definite at the mode.

    Answers within ``clip`` (default ``DEFAULT_CLIP`` = 2^-20, about 1e-6) of 0 or 1 are read as
    clip or 1 - clip (the thesis does not say what it did). The shapes alpha = nu mu and
    beta = nu (1 - mu) vanish as |z| grows; the algebra of :class:`_BetaInT` keeps every value
    and derivative finite. Predictive mean E[y] = Phi(mean / sqrt(2 sigma^2 + var)) (closed
    form); predictive density by quadrature (``course_lib.gp.quadrature``).
    """

    observation_kind = "pair-degree"
    _names = ("noise_sd", "concentration")

    def __init__(self, noise_sd: float = 1.0, concentration: float = 10.0, *,
                 noise_sd_bounds=DEFAULT_BOUNDS, concentration_bounds=DEFAULT_BOUNDS,
                 clip: float = DEFAULT_CLIP):
        self.clip = _check_clip(clip)
        self._init_parameters({"noise_sd": noise_sd, "concentration": concentration},
                              {"noise_sd": noise_sd_bounds,
                               "concentration": concentration_bounds})

    def _check_domain(self, y, name):
        return _check_unit_interval(y, name, self.clip)

    def _scale(self) -> float:
        return 1.0 / (SQRT2 * self._param("noise_sd"))

    def _beta(self, z, y, order):
        return _BetaInT(self._scale() * z, y, self._param("concentration"), order)

    def _link_scale(self):
        return SQRT2 * self._param("noise_sd")

    def _likelihood_centre(self, y):
        return SQRT2 * self._param("noise_sd") * ndtri(y)

    def _derivatives(self, z, y, order):
        c = self._scale()
        value, l_t, l_tt, l_ttt = self._beta(z, y, order).derivatives()
        return value, c * l_t, c * c * l_tt, None if l_ttt is None else c ** 3 * l_ttt

    def _log_density(self, z, y):
        return self._beta(z, y, 2).log_density()

    def _parameter_terms(self, z, y):
        c = self._scale()
        beta = self._beta(z, y, 3)
        _, l_t, l_tt, l_ttt = beta.derivatives()
        dl, dl_t, dl_tt = beta.log_nu_terms()
        return np.stack([_scale_parameter_terms(beta.t, l_t, l_tt, l_ttt, c),
                         np.stack([dl, c * dl_t, -c * c * dl_tt])])

    def predictive_mean(self, mean, var):
        mean, var = self._check_gaussian(mean, var)
        return ndtr(mean / np.sqrt(2.0 * self._param("noise_sd") ** 2 + var))

    def _conditional_mean(self, z):
        return ndtr(self._scale() * z)


# --------------------------------------------------------------------------------------------
# Bounded ratings of single items (identity rows of M): z = f(item)
# --------------------------------------------------------------------------------------------

class BetaRating(Likelihood):
    """A rating y in [0, 1] of one item: y ~ Beta(nu Phi(z), nu (1 - Phi(z))) (thesis
    eqs. 2.36-2.37; "GP-BE" of Jensen, Nielsen & Larsen 2013). The mean rating is Phi(z); not
    log-concave (as :class:`PairwiseBeta`, of which it is the case t = z). Answers within
    ``clip`` of 0 or 1 are moved to the clip. Predictive mean E[y] = Phi(mean / sqrt(1 + var));
    predictive density by quadrature.
    """

    observation_kind = "bounded"
    _names = ("concentration",)

    def __init__(self, concentration: float = 10.0, *, concentration_bounds=DEFAULT_BOUNDS,
                 clip: float = DEFAULT_CLIP):
        self.clip = _check_clip(clip)
        self._init_parameters({"concentration": concentration},
                              {"concentration": concentration_bounds})

    def _check_domain(self, y, name):
        return _check_unit_interval(y, name, self.clip)

    def _derivatives(self, z, y, order):
        return _BetaInT(z, y, self._param("concentration"), order).derivatives()

    def _log_density(self, z, y):
        return _BetaInT(z, y, self._param("concentration"), 2).log_density()

    def _likelihood_centre(self, y):
        return ndtri(y)

    def _parameter_terms(self, z, y):
        dl, dl_t, dl_tt = _BetaInT(z, y, self._param("concentration"), 2).log_nu_terms()
        return np.stack([dl, dl_t, -dl_tt])[None]

    def predictive_mean(self, mean, var):
        mean, var = self._check_gaussian(mean, var)
        return ndtr(mean / np.sqrt(1.0 + var))

    def _conditional_mean(self, z):
        return ndtr(z)


class TruncatedGaussianRating(Likelihood):
    """A rating y in [0, 1] of one item: N(y; m, sigma^2) truncated to [0, 1], with its MODE
    m = Phi(z) (thesis eq. 2.35; "GP-TG" of Jensen, Nielsen & Larsen 2013; ``noise_sd`` sigma
    is the sd before truncation, the paper's 1/nu).

    With a = -m/sigma, b = (1 - m)/sigma, x = (y - m)/sigma, D = Phi(b) - Phi(a) and
    k_j = (b^j phi(b) - a^j phi(a)) / D:

        log p = -x^2/2 - log sigma - log sqrt(2 pi) - log D
        d/dm = (x + k_0)/sigma = (y - E[y | m]) / sigma^2,   E[y | m] = m - sigma k_0
        d^2/dm^2 = -(1 - k_1 - k_0^2) / sigma^2 = -Var[y | m] / sigma^4
        d^3/dm^3 = (k_2 - k_0 + 3 k_0 k_1 + 2 k_0^3) / sigma^3

    and the chain rule through m = Phi(z) (m' = phi, m'' = -z phi, m''' = (z^2 - 1) phi). The
    m'' term makes the curvature negative for some (z, y): not log-concave. D never cancels:
    a < 0 < b, so D = (erf(b/sqrt2) + erf(-a/sqrt2)) / 2 adds two positive numbers, and
    1 - m is computed as Phi(-z). Conditional and predictive means and the predictive density
    by quadrature (``course_lib.gp.quadrature``).
    """

    observation_kind = "bounded"
    _names = ("noise_sd",)

    def __init__(self, noise_sd: float = 0.1, *, noise_sd_bounds=DEFAULT_BOUNDS):
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": noise_sd_bounds})

    def _check_domain(self, y, name):
        return _check_unit_interval(y, name, None)

    def _likelihood_centre(self, y):
        return ndtri(np.clip(y, DEFAULT_CLIP, 1.0 - DEFAULT_CLIP))

    def _pieces(self, z, y):
        s = self._param("noise_sd")
        m, m_c = ndtr(z), ndtr(-z)
        a, b, x = -m / s, m_c / s, (y - m) / s
        D = 0.5 * (erf(b / SQRT2) + erf(-a / SQRT2))
        phi_a, phi_b = _normal_pdf(a), _normal_pdf(b)
        k = [(b ** j * phi_b - a ** j * phi_a) / D for j in range(4)]
        return s, x, D, k

    def _in_m(self, z, y):
        """(log p, l_m, l_mm, l_mmm) and the pieces."""
        s, x, D, k = self._pieces(z, y)
        value = -0.5 * x * x - np.log(s) - 0.5 * LOG_2PI - np.log(D)
        l_m = (x + k[0]) / s
        l_mm = -(1.0 - k[1] - k[0] ** 2) / s ** 2
        l_mmm = (k[2] - k[0] + 3.0 * k[0] * k[1] + 2.0 * k[0] ** 3) / s ** 3
        return value, l_m, l_mm, l_mmm, (s, x, k)

    def _derivatives(self, z, y, order):
        value, l_m, l_mm, l_mmm, _ = self._in_m(z, y)
        phi = _normal_pdf(z)
        dm, ddm, dddm = phi, -z * phi, (z * z - 1.0) * phi
        l_z = l_m * dm
        l_zz = l_mm * dm * dm + l_m * ddm
        l_zzz = (l_mmm * dm ** 3 + 3.0 * l_mm * dm * ddm + l_m * dddm) if order >= 3 else None
        return value, l_z, l_zz, l_zzz

    def _log_density(self, z, y):
        s, x, D, _ = self._pieces(z, y)
        return -0.5 * x * x - np.log(s) - 0.5 * LOG_2PI - np.log(D)

    def _parameter_terms(self, z, y):
        # d/dlog sigma at fixed m, using dk_j/dlog sigma = -j k_j + k_{j+2} + k_j k_1
        _, _, _, _, (s, x, k) = self._in_m(z, y)
        phi = _normal_pdf(z)
        dm, ddm = phi, -z * phi
        k0, k1, k2, k3 = k
        dl = x * x - 1.0 + k1
        dl_m = (k2 + k0 * k1 - k0 - 2.0 * x) / s
        dl_mm = (2.0 - 3.0 * k1 - 2.0 * k0 ** 2 + k3 + k1 ** 2 + 2.0 * k0 * k2
                 + 2.0 * k0 ** 2 * k1) / s ** 2
        return np.stack([dl, dl_m * dm, -(dl_mm * dm * dm + dl_m * ddm)])[None]

    def _conditional_mean(self, z):
        s, _, _, k = self._pieces(z, 0.0)
        return ndtr(z) - s * k[0]


class WarpedProbitRating(Likelihood):
    """A rating y in [0, 1] of one item through a fixed probit warp: Phi^-1(y) = z + eps,
    eps ~ N(0, noise_sd^2), so

        p(y | z) = N(Phi^-1(y); z, sigma^2) / phi(Phi^-1(y)),

    the Gaussian density of the warped rating times the Jacobian d Phi^-1(y)/dy =
    1/phi(Phi^-1(y)). (Thesis eq. 2.39 and Jensen, Nielsen & Larsen 2013 print
    Phi(Phi^-1(y)) = y in the denominator; the official erratum to the 2013 paper corrects it
    to the pdf phi, which is what makes the density integrate to one over y.) The Jacobian
    does not depend on z or sigma, so the latent posterior is exactly GP regression on
    Phi^-1(y); it matters when densities of different models are compared (NLPD). Answers
    within ``clip`` of 0 or 1 are moved to the clip (Phi^-1(0) = -inf). Closed forms:
    E[y] = Phi(mean / sqrt(1 + sigma^2 + var)) and
    log p(y) = log N(Phi^-1(y); mean, sigma^2 + var) - log phi(Phi^-1(y)).
    """

    observation_kind = "bounded"
    _names = ("noise_sd",)

    def __init__(self, noise_sd: float = 0.3, *, noise_sd_bounds=DEFAULT_BOUNDS,
                 clip: float = DEFAULT_CLIP):
        self.clip = _check_clip(clip)
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": noise_sd_bounds})

    def _check_domain(self, y, name):
        return _check_unit_interval(y, name, self.clip)

    def _derivatives(self, z, y, order):
        variance = self._param("noise_sd") ** 2
        w = ndtri(y)
        residual = w - z
        # log N(w; z, s^2) - log phi(w): the log sqrt(2 pi) terms cancel
        value = -0.5 * residual ** 2 / variance - 0.5 * np.log(variance) + 0.5 * w * w
        shape = np.broadcast(z, y).shape
        third = np.zeros(shape) if order >= 3 else None
        return value, residual / variance, np.full(shape, -1.0 / variance), third

    def _parameter_terms(self, z, y):
        variance = self._param("noise_sd") ** 2
        residual = ndtri(y) - z
        return np.stack([residual ** 2 / variance - 1.0, -2.0 * residual / variance,
                         np.full(z.shape, -2.0 / variance)])[None]

    def predictive_mean(self, mean, var):
        mean, var = self._check_gaussian(mean, var)
        return ndtr(mean / np.sqrt(1.0 + self._param("noise_sd") ** 2 + var))

    def predictive_log_density(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        w = ndtri(self._check_domain(_check_rows(y, "y", mean.size), "y"))
        total = self._param("noise_sd") ** 2 + var
        return -0.5 * (np.log(total) + (w - mean) ** 2 / total) + 0.5 * w * w

    def expected_log_likelihood(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        w = ndtri(self._check_domain(_check_rows(y, "y", mean.size), "y"))
        variance = self._param("noise_sd") ** 2
        value = (-0.5 * ((w - mean) ** 2 + var) / variance - 0.5 * np.log(variance)
                 + 0.5 * w * w)
        return value, (w - mean) / variance, np.full(mean.shape, -0.5 / variance)

    def _conditional_mean(self, z):
        return ndtr(z / np.sqrt(1.0 + self._param("noise_sd") ** 2))


# --------------------------------------------------------------------------------------------
# Single-item feedback for mixed-likelihood variational GPs (Unit 7; Wu et al. 2025)
# --------------------------------------------------------------------------------------------

class BernoulliProbit(PairwiseProbit):
    """A yes/no answer about ONE item (detection, classification): P(y = 1 | z) = Phi(z), with
    z = f(item) (identity rows of M; the convention of Wu et al. 2025 and of GPyTorch's Bernoulli
    likelihood).

    This is :class:`PairwiseProbit` with its ``noise_sd`` fixed at 1/sqrt(2), since
    Phi(z / (sqrt(2) sigma)) = Phi(z) there: every derivative, the closed-form predictive
    P(y = 1) = Phi(mean / sqrt(1 + var)) and the expectations come from that class. It is a class
    of its own only so the scale cannot drift (the latent's scale is the kernel's; a free
    ``noise_sd`` would not be identified) and so its answers are described as single-item
    answers. ``noise_sd`` stays in ``param_names`` with equal (fixed) bounds.
    """

    observation_kind = "single-binary"

    def __init__(self):
        self._init_parameters({"noise_sd": 1.0 / SQRT2}, {"noise_sd": "fixed"})

    def _check_domain(self, y, name):
        return _check_binary(y, name, "1 = yes / detected")

    def __repr__(self) -> str:
        return "BernoulliProbit()"


def _no_parameters(likelihood: Likelihood) -> None:
    """Set up an empty log-parameter vector (a likelihood with nothing to learn)."""
    likelihood._log_theta = np.zeros(0)
    likelihood._log_bounds = np.zeros((0, 2))


class GaussianConstraint(Likelihood):
    """Soft constraints on the latent as pseudo-observations: y_k = z_k + N(0, noise_sd_k^2) with
    a FIXED noise sd per row (Wu et al. 2025, section 4.3: the value the latent is believed to
    take at a location, and how firmly). Typically on identity rows (z = f(item)).

    ``noise_sd`` is a 1-D array with one positive sd per row, so the object belongs to one set of
    rows: every method checks that it gets that many. Closed forms throughout:

        log p = log N(y; z, s^2),   E log p = log N(y; mean, s^2) - var / (2 s^2),
        d/dmean = (y - mean) / s^2,  d/dvar = -1 / (2 s^2),  p(y) = N(y; mean, s^2 + var).

    Nothing is learned (no log-parameters).
    """

    observation_kind = "single-latent"
    _names = ()

    def __init__(self, noise_sd):
        sd = as_float_array(noise_sd, "noise_sd", ndim=1)
        if np.any(sd <= 0):
            raise ValueError(f"noise_sd: every sd must be > 0, row {int(np.argmax(sd <= 0))} "
                             f"has {sd[sd <= 0][0]:g}")
        self.noise_sd = sd
        _no_parameters(self)

    def __repr__(self) -> str:
        return f"GaussianConstraint(noise_sd=<{self.noise_sd.size} rows>)"

    def _variance(self, m: int) -> np.ndarray:
        if m != self.noise_sd.size:
            raise ValueError(f"noise_sd: this likelihood has {self.noise_sd.size} rows (one sd "
                             f"each), but got {m} observation rows")
        return self.noise_sd ** 2

    def _check_domain(self, y, name):
        return y

    def _derivatives(self, z, y, order):
        variance = self._variance(z.size)
        residual = y - z
        value = -0.5 * (LOG_2PI + np.log(variance) + residual ** 2 / variance)
        third = np.zeros(z.shape) if order >= 3 else None
        return value, residual / variance, -1.0 / variance, third

    def _parameter_terms(self, z, y):
        return np.zeros((0, 3, z.size))

    def _conditional_mean(self, z):
        return z

    def predictive_mean(self, mean, var):
        mean, _ = self._check_gaussian(mean, var)
        self._variance(mean.size)
        return mean.copy()

    def predictive_log_density(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        y = _check_rows(y, "y", mean.size)
        total = self._variance(mean.size) + var
        return -0.5 * (LOG_2PI + np.log(total) + (y - mean) ** 2 / total)

    def expected_log_likelihood(self, y, mean, var):
        mean, var = self._check_gaussian(mean, var)
        y = _check_rows(y, "y", mean.size)
        variance = self._variance(mean.size)
        value = -0.5 * (LOG_2PI + np.log(variance) + ((y - mean) ** 2 + var) / variance)
        return value, (y - mean) / variance, -0.5 / variance


# --------------------------------------------------------------------------------------------
# Confidence ratings of pairs (Wu et al. 2025, eq. 2): z = f(first) - f(second)
# --------------------------------------------------------------------------------------------

def _check_levels(y, name: str, n_levels: int) -> np.ndarray:
    """Refuse ratings that are not whole levels 0 .. n_levels - 1, naming the first bad row."""
    bad = (y != np.round(y)) | (y < 0) | (y > n_levels - 1)
    if np.any(bad):
        raise ValueError(f"{name}: ratings must be whole levels 0 .. {n_levels - 1}, "
                         f"row {int(np.argmax(bad))} has {y[bad][0]:g}")
    return y


class LikertConfidence(Likelihood):
    """How strongly a preference was felt, rated on ``n_levels`` levels y = 0 (weakest) .. l - 1,
    as a function of the strength a = |z| = |f(first) - f(second)| only (Wu et al. 2025, eq. 2,
    with labels from 0 as in its experiments; the sign of z is the preference's business).

    Level i covers the interval [c_i, c_{i+1}) of a, with cut points c_0 = 0 < c_1 < ... <
    c_{l-1} and c_l = inf. With dist_i(a) the distance from a to that interval (0 inside it,
    growing with slope 1 outside),

        p_i(a) = exp(-dist_i) / sum_j exp(-dist_j),   P(y = i | z) = (1 - lapse) p_i + lapse / l.

    Log-parameters: the gaps g_i = c_{i+1} - c_i (``gap_1`` .. ``gap_{l-1}``), bounded above by
    ``max_gap`` (2 in the paper, where Phi(2) = 0.98 caps how much more preferred one level is
    than the next), and ``lapse`` (0.1 and fixed in the paper). The paper (appendix B) writes
    c_{i+1} = c_i + max_gap sigmoid(eta_i) and optimises eta freely; here the same constraint is
    a log-bound, like every other parameter of the package (``theta``, ``bounds``).

    log P(y | z) has kinks at z = 0 and z = +-c_i (dist is piecewise linear): smooth between
    them, but its derivative jumps at them, so the expectations over
    z ~ N(mean, var) put panel edges at every kink (:meth:`_kinks`); plain Gauss-Hermite with 20
    nodes errs by up to 0.016 nats there. At z = 0 the gradient is taken as 0 (the average of
    the two one-sided slopes). Between kinks, with s_j = d dist_j / da in {-1, 0, 1}, means E,
    variances and third central moments kappa_3 under p, g = d log p_y / da = E[s] - s_y,
    g' = -Var(s), g'' = kappa_3(s), and rho = (1 - lapse) p_y / P(y):

        d log P / da = rho g,   d^2 log P / da^2 = rho g' + rho (1 - rho) g^2.
    """

    observation_kind = "pair-confidence"

    def __init__(self, n_levels: int = 3, gaps=None, lapse: float = 0.1, *,
                 max_gap: float = 2.0, gap_bounds=None, lapse_bounds="fixed"):
        if isinstance(n_levels, bool) or not isinstance(n_levels, (int, np.integer)) \
                or n_levels < 2:
            raise ValueError(f"n_levels: expected an integer >= 2, got {n_levels!r}")
        self.n_levels = int(n_levels)
        self.max_gap = check_parameter(max_gap, "max_gap")
        gaps = np.full(self.n_levels - 1, 0.5 * self.max_gap) if gaps is None \
            else as_float_array(gaps, "gaps", ndim=1)
        if gaps.size != self.n_levels - 1:
            raise ValueError(f"gaps: {self.n_levels} levels need {self.n_levels - 1} gaps between "
                             f"cut points, got {gaps.size}")
        if np.any(gaps <= 0) or np.any(gaps > self.max_gap):
            bad = int(np.argmax((gaps <= 0) | (gaps > self.max_gap)))
            raise ValueError(f"gaps: each gap must lie in (0, max_gap = {self.max_gap:g}], gap "
                             f"{bad} is {gaps[bad]:g}")
        lapse = check_parameter(lapse, "lapse")
        if lapse >= 1:
            raise ValueError(f"lapse: a lapse rate must lie in (0, 1), got {lapse:g}")
        if gap_bounds is None:
            gap_bounds = (min(1e-3 * self.max_gap, float(gaps.min())), self.max_gap)
        elif not isinstance(gap_bounds, str) and float(np.max(gap_bounds)) > self.max_gap:
            raise ValueError(f"gap_bounds: the upper bound may not exceed max_gap = "
                             f"{self.max_gap:g}, got {gap_bounds!r}")
        if not isinstance(lapse_bounds, str) and float(np.max(lapse_bounds)) >= 1:
            raise ValueError(f"lapse_bounds: a lapse rate lies below 1, got {lapse_bounds!r}")
        gap_names = tuple(f"gap_{i + 1}" for i in range(self.n_levels - 1))
        self._names = gap_names + ("lapse",)
        self._init_parameters(dict(zip(gap_names, gaps.tolist())) | {"lapse": lapse},
                              dict.fromkeys(gap_names, gap_bounds) | {"lapse": lapse_bounds})

    @property
    def cut_points(self) -> np.ndarray:
        """(c_0 = 0, c_1, ..., c_{l-1}): the lower end of each level's interval of |z|."""
        return np.concatenate([[0.0], np.cumsum(np.exp(self._log_theta[:-1]))])

    def _check_domain(self, y, name):
        return _check_levels(y, name, self.n_levels)

    def _kinks(self):
        cuts = self.cut_points
        return tuple(np.concatenate([-cuts[1:], cuts]))

    def _levels(self, z):
        """Per level (last axis): slope s_j = d dist_j / da, below / above the interval, and
        log p_j, for a = |z|."""
        cuts = self.cut_points
        a = np.abs(z)[..., None]
        upper = np.append(cuts[1:], np.inf)
        below, above = a < cuts, a > upper
        dist = np.where(below, cuts - a, 0.0) + np.where(above, a - upper, 0.0)
        log_p = -dist - np.logaddexp.reduce(-dist, axis=-1, keepdims=True)
        return below, above, above.astype(float) - below, log_p

    def _mixture(self, log_p_y):
        """log P(y | z) and rho = (1 - lapse) p_y / P(y | z)."""
        lapse = self._param("lapse")
        lapsed = np.log1p(-lapse) + log_p_y
        log_q = np.logaddexp(lapsed, np.log(lapse / self.n_levels))
        return log_q, np.exp(lapsed - log_q)

    def _pieces(self, z, y):
        below, above, slope, log_p = self._levels(z)
        p = np.exp(log_p)
        level = np.broadcast_to(y, z.shape).astype(np.int64)[..., None]
        mu = np.sum(p * slope, axis=-1)
        centred = slope - mu[..., None]
        g = mu - np.take_along_axis(slope, level, -1)[..., 0]
        log_q, rho = self._mixture(np.take_along_axis(log_p, level, -1)[..., 0])
        return below, above, p, level, centred, g, log_q, rho

    def _derivatives(self, z, y, order):
        _, _, p, _, centred, g, log_q, rho = self._pieces(z, y)
        g1 = -np.sum(p * centred ** 2, axis=-1)
        sign = np.sign(z)
        d1 = rho * g
        d2 = rho * g1 + rho * (1.0 - rho) * g * g
        d3 = None
        if order >= 3:
            g2 = np.sum(p * centred ** 3, axis=-1)
            rho1 = rho * (1.0 - rho) * g
            d3 = sign * (rho1 * g1 + rho * g2 + rho1 * (1.0 - 2.0 * rho) * g * g
                         + 2.0 * rho * (1.0 - rho) * g * g1)
        return log_q, sign * d1, d2, d3

    def _log_density(self, z, y):
        _, _, _, log_p = self._levels(z)
        level = np.broadcast_to(y, z.shape).astype(np.int64)[..., None]
        return self._mixture(np.take_along_axis(log_p, level, -1)[..., 0])[0]

    def _parameter_terms(self, z, y):
        below, above, p, level, centred, g, _, rho = self._pieces(z, y)
        g1 = -np.sum(p * centred ** 2, axis=-1)
        sign = np.sign(z)

        def through(d_log_p, d_rho, d_g, d_g1):
            """d/dtheta of (log P, d log P/dz, curvature) from those of log p_y, rho, g, g'."""
            d_l1 = d_rho * g + rho * d_g
            d_l2 = (d_rho * g1 + rho * d_g1 + d_rho * (1.0 - 2.0 * rho) * g * g
                    + 2.0 * rho * (1.0 - rho) * g * d_g)
            return np.stack([rho * d_log_p, sign * d_l1, -d_l2])

        out = []
        levels = np.arange(self.n_levels)
        for k, gap in enumerate(np.exp(self._log_theta[:-1])):
            # raising gap k moves every cut point c_i with i > k: d dist_j / d log gap_k
            delta = gap * (np.where(levels > k, below, 0.0) - np.where(levels >= k, above, 0.0))
            mean_delta = np.sum(p * delta, axis=-1)
            d_log_p = mean_delta - np.take_along_axis(delta, level, -1)[..., 0]
            d_g = -np.sum(p * centred * delta, axis=-1)
            d_g1 = np.sum(p * (centred ** 2 + g1[..., None]) * delta, axis=-1)
            out.append(through(d_log_p, rho * (1.0 - rho) * d_log_p, d_g, d_g1))
        # lapse (log-parameter u = log lapse): d log P / du = (1 - rho) - rho lapse / (1 - lapse)
        lapse = self._param("lapse")
        d_log_q = (1.0 - rho) - rho * lapse / (1.0 - lapse)
        d_rho = rho * (-lapse / (1.0 - lapse) - d_log_q)
        zero = np.zeros_like(rho)
        lapse_terms = through(zero, d_rho, zero, zero)
        lapse_terms[0] = d_log_q
        out.append(lapse_terms)
        return np.stack(out)

    def expected_log_likelihood(self, y, mean, var):
        """``(E log P(y | z), d/dmean, d/dvar)``, z ~ N(mean, var), by the composite rule with
        panel edges at the kinks.

        d/dvar = E[d^2 log P/dz^2] / 2 holds for smooth likelihoods only: here d log P/dz jumps
        by J_k at each kink z_k, whose second derivative is then J_k times a point mass, so
        d/dvar = (E[smooth second derivative] + sum_k J_k N(z_k; mean, var)) / 2. (Without
        the point masses, d/dvar is wrong wherever the Gaussian sits on a kink, e.g. a pair
        with mean 0: the fixed point lambda = -2 d/dvar of a variational GP would be wrong.)
        With var = 0 the point masses are left out (d/dvar is unbounded on a kink).
        """
        value, d_mean, d_var = super().expected_log_likelihood(y, mean, var)
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(_check_rows(y, "y", mean.size), "y")
        spread = var > 0
        for kink in self._kinks():
            sides = [np.full(mean.size, np.nextafter(kink, limit)) for limit in (np.inf, -np.inf)]
            jump = self._derivatives(sides[0], y, 2)[1] - self._derivatives(sides[1], y, 2)[1]
            d_var[spread] += 0.5 * jump[spread] * np.exp(
                -0.5 * (kink - mean[spread]) ** 2 / var[spread]) / np.sqrt(
                2.0 * np.pi * var[spread])
        return value, d_mean, d_var

    def _conditional_mean(self, z):
        """E[y | z]: the expected level."""
        _, _, _, log_p = self._levels(z)
        lapse = self._param("lapse")
        q = (1.0 - lapse) * np.exp(log_p) + lapse / self.n_levels
        return q @ np.arange(self.n_levels, dtype=float)


# --------------------------------------------------------------------------------------------
# Ordinal ratings of single items (cumulative probit): z = f(item)
# --------------------------------------------------------------------------------------------

def _log_interval_probability(low, high):
    """log(Phi(high) - Phi(low)) for low < high (either may be infinite), without cancellation:
    in whichever tail both ends lie, or as 1 - both tails when the interval holds 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lower_tail = log_ndtr(high) + np.log(-np.expm1(log_ndtr(low) - log_ndtr(high)))
        upper_tail = log_ndtr(-low) + np.log(-np.expm1(log_ndtr(-high) - log_ndtr(-low)))
        middle = np.log1p(-(ndtr(low) + ndtr(-high)))
    return np.where(high <= 0, lower_tail, np.where(low >= 0, upper_tail, middle))


class OrdinalProbit(Likelihood):
    """An absolute rating of ONE item on ``n_levels`` ordered levels y = 0 .. K - 1 (cumulative
    probit; AEPsych's ordinal likelihood, which Wu et al. 2025 mention but do not use):

        P(y = k | z) = Phi(b_{k+1} - z) - Phi(b_k - z),   b_0 = -inf < b_1 = 0 < ... < b_K = inf.

    The first threshold is fixed at 0 (a GP with zero mean then places the boundary between
    levels 0 and 1 at f = 0); the others are b_{k+1} = b_k + gap_k with log-parameters
    ``gap_1`` .. ``gap_{K-2}``. There is no noise scale: it would only rescale f and the gaps,
    which the kernel's variance and the gaps already do. With two levels this is
    :class:`BernoulliProbit` (P(y = 1) = Phi(z)).

    With l = b_y - z, u = b_{y+1} - z, P = Phi(u) - Phi(l) and r_l = phi(l)/P, r_u = phi(u)/P
    (0 at an infinite end):

        d log P/dz = r_l - r_u,   d^2 log P/dz^2 = l r_l - u r_u - (r_l - r_u)^2  (< 0:
        log-concave), and the third derivative from the partials of log P in (l, u).

    log P is formed in the tail that holds the interval (:func:`_log_interval_probability`), so
    it stays finite far beyond where P underflows.
    """

    observation_kind = "single-ordinal"

    def __init__(self, n_levels: int = 5, gaps=None, *, gap_bounds=DEFAULT_BOUNDS):
        if isinstance(n_levels, bool) or not isinstance(n_levels, (int, np.integer)) \
                or n_levels < 2:
            raise ValueError(f"n_levels: expected an integer >= 2, got {n_levels!r}")
        self.n_levels = int(n_levels)
        gaps = np.ones(self.n_levels - 2) if gaps is None \
            else as_float_array(gaps, "gaps", ndim=1, allow_empty=True)
        if gaps.size != self.n_levels - 2:
            raise ValueError(f"gaps: {self.n_levels} levels need {self.n_levels - 2} gaps between "
                             f"their {self.n_levels - 1} thresholds, got {gaps.size}")
        self._names = tuple(f"gap_{i + 1}" for i in range(self.n_levels - 2))
        if self._names:
            self._init_parameters(dict(zip(self._names, gaps.tolist())),
                                  dict.fromkeys(self._names, gap_bounds))
        else:
            _no_parameters(self)

    @property
    def thresholds(self) -> np.ndarray:
        """(b_1 = 0, b_2, ..., b_{K-1}): the boundaries between neighbouring levels."""
        return np.concatenate([[0.0], np.cumsum(np.exp(self._log_theta))])

    def _check_domain(self, y, name):
        return _check_levels(y, name, self.n_levels)

    def _ends(self, z, y):
        """l = b_y - z and u = b_{y+1} - z (+-inf at the outer levels)."""
        edges = np.concatenate([[-np.inf], self.thresholds, [np.inf]])
        level = np.broadcast_to(y, np.shape(z)).astype(np.int64)
        return edges[level] - z, edges[level + 1] - z

    def _partials(self, z, y):
        """log P and its partials in (l, u) up to third order; infinite ends contribute 0."""
        low, high = self._ends(z, y)
        log_p = _log_interval_probability(low, high)
        finite_low, finite_high = np.isfinite(low), np.isfinite(high)
        low, high = np.where(finite_low, low, 0.0), np.where(finite_high, high, 0.0)
        r_l = np.exp(np.where(finite_low, -0.5 * low * low - 0.5 * LOG_2PI - log_p, -np.inf))
        r_u = np.exp(np.where(finite_high, -0.5 * high * high - 0.5 * LOG_2PI - log_p, -np.inf))
        f_ll, f_uu = low * r_l - r_l ** 2, -high * r_u - r_u ** 2
        f_lll = r_l - r_l * (low - 2 * r_l) * (low - r_l)
        f_uuu = -r_u + r_u * (high + 2 * r_u) * (high + r_u)
        # the outer levels are log Phi of one end: there the tail-safe derivatives of log Phi
        # (the formulas above cancel once r ~ -t, as for the probit)
        _, d1, d2, d3 = log_ndtr_derivatives(np.where(finite_low, 0.0, high), 3)
        r_u, f_uu, f_uuu = (np.where(finite_low, a, b) for a, b in ((r_u, d1), (f_uu, d2),
                                                                     (f_uuu, d3)))
        _, d1, d2, d3 = log_ndtr_derivatives(np.where(finite_high, 0.0, -low), 3)
        r_l, f_ll, f_lll = (np.where(finite_high, a, b) for a, b in ((r_l, d1), (f_ll, d2),
                                                                      (f_lll, -d3)))
        first = (-r_l, r_u)                                             # F_l, F_u
        second = (f_ll, r_l * r_u, f_uu)                                # F_ll, F_lu, F_uu
        third = (f_lll, r_l * r_u * (2 * r_l - low), -r_l * r_u * (high + 2 * r_u), f_uuu)
        return log_p, first, second, third

    def _derivatives(self, z, y, order):
        log_p, (f_l, f_u), (f_ll, f_lu, f_uu), t = self._partials(z, y)
        d3 = -(t[0] + 3 * t[1] + 3 * t[2] + t[3]) if order >= 3 else None
        return log_p, -(f_l + f_u), f_ll + 2 * f_lu + f_uu, d3

    def _log_density(self, z, y):
        return _log_interval_probability(*self._ends(z, y))

    def _parameter_terms(self, z, y):
        _, (f_l, f_u), (f_ll, f_lu, f_uu), (f_lll, f_llu, f_luu, f_uuu) = self._partials(z, y)
        out = []
        for k, gap in enumerate(np.exp(self._log_theta)):
            # gap k moves the thresholds b_{k+2} .. b_{K-1}: l = b_y - z if y >= k + 2, and
            # u = b_{y+1} - z if k + 1 <= y <= K - 2
            moves_l = (y >= k + 2).astype(float)
            moves_u = ((y >= k + 1) & (y <= self.n_levels - 2)).astype(float)
            d_value = gap * (moves_l * f_l + moves_u * f_u)
            d_gradient = -gap * (moves_l * (f_ll + f_lu) + moves_u * (f_lu + f_uu))
            d_second = gap * (moves_l * (f_lll + 2 * f_llu + f_luu)
                              + moves_u * (f_llu + 2 * f_luu + f_uuu))
            out.append(np.stack([d_value, d_gradient, -d_second]))
        return np.stack(out) if out else np.zeros((0, 3, np.size(z)))

    def _conditional_mean(self, z):
        """E[y | z]: the expected level."""
        z = np.asarray(z, dtype=float)
        return sum(k * np.exp(_log_interval_probability(*self._ends(z, np.full(z.shape, k))))
                   for k in range(1, self.n_levels))
