"""Hyper-priors for MAP-II: densities over one positive hyper-parameter theta.

Each prior is stated on the natural parameter theta (> 0) as usual, but hyper-parameters are
optimised as ``u = log theta``. MAP-II here maximises the posterior density OF u,

    log p(y | theta) + log p_u(u),     log p_u(u) = log p_theta(e^u) + u,

i.e. the prior density on theta plus the log-Jacobian ``u`` of theta = e^u. (Without the
Jacobian the optimum would depend on how the parameter is written; with it, a half-Student-t on a
lengthscale no longer pulls towards 0.) Every prior gives

``log_pdf(theta)``              log p_theta(theta), for plots;
``log_pdf_log(u) -> (lp, dlp)`` log p_u(u) and its derivative d/du, for the optimiser;
``sample_log(rng, size)``       draws of u, used as random restarts.

Priors available: :class:`LogNormal`, :class:`Gamma`, :class:`HalfStudentT` (the thesis'
choice for lengthscales and likelihood slopes).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from ..validation import as_float_array, as_positive_float, as_positive_int, as_rng

__all__ = ["Prior", "LogNormal", "Gamma", "HalfStudentT"]


class Prior:
    """Base class; subclasses implement ``_log_pdf(theta)``, ``_dlog_pdf(theta)``, ``_sample``."""

    def log_pdf(self, theta) -> np.ndarray:
        """log p_theta(theta) for theta > 0 (array in, array out)."""
        theta = as_float_array(theta, "theta", allow_empty=True)
        if np.any(theta <= 0):
            raise ValueError("theta: a hyper-parameter must be > 0")
        return self._log_pdf(theta)

    def log_pdf_log(self, u) -> tuple[np.ndarray, np.ndarray]:
        """``(log p_u(u), d log p_u / du)`` with ``log p_u(u) = log p_theta(e^u) + u``."""
        u = as_float_array(u, "u", allow_empty=True)
        theta = np.exp(u)
        return self._log_pdf(theta) + u, self._dlog_pdf(theta) * theta + 1.0

    def sample_log(self, rng=None, size=None) -> np.ndarray:
        """Samples of ``u = log theta`` with theta drawn from the prior."""
        return np.log(self._sample(as_rng(rng), size))

    def __repr__(self):
        inside = ", ".join(f"{k}={v:.4g}" for k, v in vars(self).items())
        return f"{type(self).__name__}({inside})"


class LogNormal(Prior):
    """log theta ~ N(mu, sigma^2): p(theta) = N(log theta | mu, sigma^2) / theta.

    ``mu`` is the log of the median; ``sigma`` the spread in log units (sigma = 1 spans a
    factor e either side). In u = log theta this is exactly a normal density.
    """

    def __init__(self, mu: float = 0.0, sigma: float = 1.0):
        self.mu = float(as_float_array(mu, "mu", ndim=0))
        self.sigma = as_positive_float(sigma, "sigma")

    def _log_pdf(self, theta):
        z = (np.log(theta) - self.mu) / self.sigma
        return -0.5 * z * z - np.log(self.sigma * np.sqrt(2 * np.pi)) - np.log(theta)

    def _dlog_pdf(self, theta):
        return (-(np.log(theta) - self.mu) / self.sigma ** 2 - 1.0) / theta

    def _sample(self, rng, size):
        return np.exp(rng.normal(self.mu, self.sigma, size))


class Gamma(Prior):
    """theta ~ Gamma(shape a, rate b): p(theta) = b^a theta^(a-1) e^(-b theta) / Gamma(a).

    Mean a / b, variance a / b^2. Gamma(1, b) is an exponential with mean 1/b (the thesis'
    prior on the Beta-likelihood precision, Paper A: b = 0.05).
    """

    def __init__(self, shape: float = 2.0, rate: float = 1.0):
        self.shape = as_positive_float(shape, "shape")
        self.rate = as_positive_float(rate, "rate")

    def _log_pdf(self, theta):
        a, b = self.shape, self.rate
        return a * np.log(b) - gammaln(a) + (a - 1.0) * np.log(theta) - b * theta

    def _dlog_pdf(self, theta):
        return (self.shape - 1.0) / theta - self.rate

    def _sample(self, rng, size):
        return rng.gamma(self.shape, 1.0 / self.rate, size)


class HalfStudentT(Prior):
    """Half Student-t with ``dof`` degrees of freedom and ``scale`` s, on theta > 0:

    p(theta) = 2 Gamma((nu+1)/2) / (Gamma(nu/2) sqrt(nu pi) s) * (1 + (theta/s)^2 / nu)^(-(nu+1)/2).

    Weakly informative: flat near 0, heavy tail; ``dof=1`` is the half-Cauchy.
    """

    def __init__(self, dof: int = 4, scale: float = 1.0):
        self.dof = as_positive_int(dof, "dof")
        self.scale = as_positive_float(scale, "scale")

    def _log_pdf(self, theta):
        nu, s = self.dof, self.scale
        const = (np.log(2.0) + gammaln((nu + 1) / 2) - gammaln(nu / 2)
                 - 0.5 * np.log(nu * np.pi) - np.log(s))
        return const - 0.5 * (nu + 1) * np.log1p((theta / s) ** 2 / nu)

    def _dlog_pdf(self, theta):
        nu, s = self.dof, self.scale
        return -(nu + 1) * theta / (nu * s * s + theta * theta)

    def _sample(self, rng, size):
        draw = np.abs(self.scale * rng.standard_t(self.dof, size))
        return np.maximum(draw, np.finfo(float).tiny)
