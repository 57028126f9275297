"""Likelihoods of a comparison of two items (Unit 6): z = f(first) - f(second).

y = 1 (a binary answer) or y > 0.5 (a degree) means the FIRST item was preferred (the
orientation of ``course_lib.preference.comparisons``). The interface, its checks and its expectations
over z ~ N(mean, var) are those of :class:`course_lib.preference.likelihoods.Likelihood`; sigma =
``noise_sd``, Phi / phi the standard normal cdf / pdf:

=================  ================  ===============================================
class              y                 p(y | z)
=================  ================  ===============================================
PairwiseGaussian   real difference   N(y; z, sigma^2)  (sigma: sd of the difference)
PairwiseProbit     0 / 1             P(y = 1) = Phi(z / (sqrt(2) sigma))  (Thurstone:
                                     each option evokes f + N(0, sigma^2))
PairwiseBeta       degree in [0, 1]  Beta(y; nu mu, nu (1 - mu)), mu = Phi(z/(sqrt2 sigma))
=================  ================  ===============================================

(J. B. Nielsen's thesis, DTU 2015, section 2.3; B. S. Jensen, J. B. Nielsen and J. Larsen,
"Efficient preference learning with pairwise continuous observations and Gaussian processes",
IEEE MLSP 2011. The thesis writes pairs the other way round, see ``comparisons``; its printed
Beta derivatives miss the chain-rule factor 1/(sqrt(2) sigma), corrected here.)
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from ..linalg import LOG_2PI
from .likelihoods import (SQRT2, _DEFAULT_CLIP, Likelihood, check_binary, _check_clip,
                          check_rows, _check_unit_interval, log_ndtr_derivatives)
from ..gp.parameters import DEFAULT_BOUNDS
from .probit_beta import _BetaInT

__all__ = ["PairwiseGaussian", "PairwiseProbit", "PairwiseBeta"]


def _scale_parameter_terms(t, l_t, l_tt, l_ttt, scale, sign=1.0) -> np.ndarray:
    """d/du of (log p, gradient, curvature) when log p depends on u = log sigma only through
    t = sign * scale * z with scale proportional to 1/sigma (so dt/du = -t).

    gradient = sign * scale * l_t  ->  d/du = -sign * scale * (l_t + t l_tt)
    curvature = -scale^2 l_tt      ->  d/du = scale^2 (2 l_tt + t l_ttt)
    """
    return np.stack([-t * l_t, -sign * scale * (l_t + t * l_tt),
                     scale ** 2 * (2.0 * l_tt + t * l_ttt)])


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
        y = check_rows(y, "y", mean.size)
        total = self._param("noise_sd") ** 2 + var
        return -0.5 * (LOG_2PI + np.log(total) + (y - mean) ** 2 / total)

    def _expected_log_likelihood(self, y, mean, var):
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
        return check_binary(y, name, "1 = the first item was preferred")

    def _scale(self) -> float:
        return 1.0 / (SQRT2 * self._param("noise_sd"))

    def _link_scale(self):
        return SQRT2 * self._param("noise_sd")

    def _derivatives(self, z, y, order):
        """log p and its z-derivatives: Lecture 06, section 3 (Probit and Beta likelihoods)."""
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
        y = self._check_domain(check_rows(y, "y", mean.size), "y")
        return log_ndtr((2.0 * y - 1.0) * mean / self._total_sd(var))

    def _conditional_mean(self, z):
        return ndtr(self._scale() * z)


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

    Answers within ``clip`` (default ``_DEFAULT_CLIP`` = 2^-20, about 1e-6) of 0 or 1 are read as
    clip or 1 - clip (the thesis does not say what it did). The shapes alpha = nu mu and
    beta = nu (1 - mu) vanish as |z| grows; the algebra of
    :class:`~course_lib.preference.probit_beta._BetaInT` keeps every value and derivative finite.
    Predictive mean E[y] = Phi(mean / sqrt(2 sigma^2 + var)) (closed form); predictive density
    by quadrature (``course_lib.preference.quadrature``).
    """

    observation_kind = "pair-degree"
    _names = ("noise_sd", "concentration")

    def __init__(self, noise_sd: float = 1.0, concentration: float = 10.0, *,
                 noise_sd_bounds=DEFAULT_BOUNDS, concentration_bounds=DEFAULT_BOUNDS,
                 clip: float = _DEFAULT_CLIP):
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
