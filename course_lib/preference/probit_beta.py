"""log Beta(y; nu Phi(t), nu (1 - Phi(t))) in t and log nu: the Beta algebra of two families,
and the degree of preference of a pair (:class:`PairwiseBeta`) built on it.

The degree-of-preference likelihood of a pair (``PairwiseBeta``, Nielsen 2015, eqs. 2.59-2.61;
Jensen, Nielsen & Larsen 2013) and the bounded rating of one item (``BetaRating``) are the same
Beta density whose mean Phi(t) is a probit of the latent; only t differs (a scaled difference of
two items, or f at one item). Its derivatives, written once here, build on the likelihood
interface (``course_lib.preference.likelihoods``, where the other two pairwise likelihoods
sit); ``rating_likelihoods`` takes them for BetaRating. PairwiseBeta sits here, not beside its
two siblings, because this algebra imports the interface's log Phi: the interface cannot import
it back. The orientation of a pair, the table of the pairwise family and its sources are in
``course_lib.preference.likelihoods``.

They never form Gamma(alpha) for a vanishing shape alpha = nu Phi(t): log Gamma(alpha) =
log Gamma(1 + alpha) - log alpha with log alpha = log nu + log Phi(t), and psi(alpha) =
psi(1 + alpha) - 1/alpha with nu phi(t)/alpha = phi(t)/Phi(t), so the log density and every
derivative stay finite for every finite t.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, log_ndtr, ndtr, ndtri, polygamma, psi

from ..gp.parameters import DEFAULT_BOUNDS
from .likelihoods import (SQRT2, _DEFAULT_CLIP, Likelihood, _check_clip, _check_unit_interval,
                          _normal_pdf, _scale_parameter_terms, log_ndtr_derivatives)

__all__ = ["PairwiseBeta"]


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
        """log p and its t-derivatives: Lecture 06, section 3 (Probit and Beta likelihoods)."""
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


# --------------------------------------------------------------------------------------------
# The degree of preference of a pair (module docstring), on the algebra above
# --------------------------------------------------------------------------------------------
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
