"""Likelihoods of a rating of one item: z = f(item) (identity rows of M, see
``Comparisons.from_ratings``).

Bounded ratings in [0, 1] (Unit 6; J. B. Nielsen's thesis, DTU 2015, eqs. 2.35-2.39;
B. S. Jensen, J. B. Nielsen and J. Larsen, "Bounded Gaussian process regression", IEEE MLSP
2013); ratings on ordered levels are Unit 7's (``course_lib.mixed.feedback_likelihoods``).
The interface, its checks and its expectations over z ~ N(mean, var) are those of
:class:`course_lib.preference.likelihoods.Likelihood`; sigma = ``noise_sd``, Phi / phi the
standard normal cdf / pdf:

=======================  ================  ==============================================
class                    y                 p(y | z)
=======================  ================  ==============================================
BetaRating               rating in [0, 1]  Beta(y; nu Phi(z), nu (1 - Phi(z)))
TruncatedGaussianRating  rating in [0, 1]  N(y; Phi(z), sigma^2) truncated to [0, 1]
WarpedProbitRating       rating in [0, 1]  N(Phi^-1(y); z, sigma^2) / phi(Phi^-1(y))
=======================  ================  ==============================================

(The thesis's warped-GP density divides by Phi(Phi^-1(y)) = y instead of the Jacobian
phi(Phi^-1(y)); corrected here.)
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf, ndtr, ndtri

from ..linalg import LOG_2PI
from .likelihoods import (_DEFAULT_CLIP, Likelihood, _check_clip, check_rows,
                          _check_unit_interval)
from .likelihoods import SQRT2, _normal_pdf
from ..gp.parameters import DEFAULT_BOUNDS
from .probit_beta import _BetaInT

__all__ = ["BetaRating", "TruncatedGaussianRating", "WarpedProbitRating"]


# --------------------------------------------------------------------------------------------
# Bounded ratings in [0, 1]
# --------------------------------------------------------------------------------------------

class BetaRating(Likelihood):
    """A rating y in [0, 1] of one item: y ~ Beta(nu Phi(z), nu (1 - Phi(z))) (thesis
    eqs. 2.36-2.37; "GP-BE" of Jensen, Nielsen & Larsen 2013). The mean rating is Phi(z); not
    log-concave (as :class:`~course_lib.preference.probit_beta.PairwiseBeta`, of which it is
    the case t = z). Answers within ``clip`` of 0 or 1 are moved to the clip. Predictive mean
    E[y] = Phi(mean / sqrt(1 + var)); predictive density by quadrature.
    """

    observation_kind = "bounded"
    _names = ("concentration",)

    def __init__(self, concentration: float = 10.0, *, concentration_bounds=DEFAULT_BOUNDS,
                 clip: float = _DEFAULT_CLIP):
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
    by quadrature (``course_lib.preference.quadrature``).
    """

    observation_kind = "bounded"
    _names = ("noise_sd",)

    def __init__(self, noise_sd: float = 0.1, *, noise_sd_bounds=DEFAULT_BOUNDS):
        self._init_parameters({"noise_sd": noise_sd}, {"noise_sd": noise_sd_bounds})

    def _check_domain(self, y, name):
        return _check_unit_interval(y, name, None)

    def _likelihood_centre(self, y):
        return ndtri(np.clip(y, _DEFAULT_CLIP, 1.0 - _DEFAULT_CLIP))

    def _standardised(self, z, y):
        """sigma, x = (y - m) / sigma, the truncation ends a < 0 < b and the mass D."""
        s = self._param("noise_sd")
        m, m_c = ndtr(z), ndtr(-z)
        a, b, x = -m / s, m_c / s, (y - m) / s
        D = 0.5 * (erf(b / SQRT2) + erf(-a / SQRT2))
        return s, x, D, a, b

    def _pieces(self, z, y):
        s, x, D, a, b = self._standardised(z, y)
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
        s, x, D, _, _ = self._standardised(z, y)  # the k_j are for the derivatives only
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
                 clip: float = _DEFAULT_CLIP):
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
        w = ndtri(self._check_domain(check_rows(y, "y", mean.size), "y"))
        total = self._param("noise_sd") ** 2 + var
        return -0.5 * (np.log(total) + (w - mean) ** 2 / total) + 0.5 * w * w

    def _expected_log_likelihood(self, y, mean, var):
        w = ndtri(y)
        variance = self._param("noise_sd") ** 2
        value = (-0.5 * ((w - mean) ** 2 + var) / variance - 0.5 * np.log(variance)
                 + 0.5 * w * w)
        return value, (w - mean) / variance, np.full(mean.shape, -0.5 / variance)

    def _conditional_mean(self, z):
        return ndtr(z / np.sqrt(1.0 + self._param("noise_sd") ** 2))
