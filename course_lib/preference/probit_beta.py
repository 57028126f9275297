"""log Beta(y; nu Phi(t), nu (1 - Phi(t))) in t and log nu: the Beta algebra of two families.

The degree-of-preference likelihood of a pair (``PairwiseBeta``, Nielsen 2015, eqs. 2.59-2.61;
Jensen, Nielsen & Larsen 2013) and the bounded rating of one item (``BetaRating``) are the same
Beta density whose mean Phi(t) is a probit of the latent; only t differs (a scaled difference of
two items, or f at one item). Its derivatives, written once here, sit beside the likelihood
interface (``course_lib.preference.likelihoods``) and the two family modules that use them.

They never form Gamma(alpha) for a vanishing shape alpha = nu Phi(t): log Gamma(alpha) =
log Gamma(1 + alpha) - log alpha with log alpha = log nu + log Phi(t), and psi(alpha) =
psi(1 + alpha) - 1/alpha with nu phi(t)/alpha = phi(t)/Phi(t), so the log density and every
derivative stay finite for every finite t.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, log_ndtr, polygamma, psi

from .likelihoods import _normal_pdf, log_ndtr_derivatives


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
