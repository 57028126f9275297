"""Hyper-priors for MAP-II: densities over one positive hyper-parameter theta.

Each prior is stated on the natural parameter theta (> 0) as usual, but hyper-parameters are
optimised as ``u = log theta``. MAP-II here maximises the posterior density OF u,

    log p(y | theta) + log p_u(u),     log p_u(u) = log p_theta(e^u) + u,

i.e. the prior density on theta plus the log-Jacobian ``u`` of theta = e^u. (Without the
Jacobian the optimum would depend on how the parameter is written; with it, a half-Student-t on a
lengthscale no longer pulls towards 0.) Every prior gives

``log_pdf(theta)``              log p_theta(theta), for plots;
``log_pdf_log(u) -> (lp, dlp)`` log p_u(u) and its derivative d/du, for the optimiser;
``sample_log(size, rng=...)``   draws of u, used as random restarts.

Each prior computes log p_u directly in u (never through theta = e^u, which overflows for
u > 709 and underflows for u < -745), so the values and derivatives are finite for every finite
u.

Priors available: :class:`LogNormal`, :class:`Gamma`, :class:`HalfStudentT` (the choice of
J. B. Nielsen's PhD thesis, *Systems for Personalization of Hearing Instruments: A Machine
Learning Approach*, DTU 2015, for lengthscales and likelihood slopes).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, gammaln

from ..validation import RngLike, as_float_array, as_positive_float, as_positive_int, as_rng

__all__ = ["Prior", "LogNormal", "Gamma", "HalfStudentT"]


class Prior:
    """Base class; subclasses implement, in u = log theta, ``_log_pdf_u(u)`` (= log p_u),
    ``_dlog_pdf_u(u)`` and ``_sample_u(rng, size)``."""

    def log_pdf(self, theta) -> np.ndarray:
        """log p_theta(theta) for theta > 0 (array in, array out)."""
        theta = as_float_array(theta, "theta", allow_empty=True)
        if np.any(theta <= 0):
            raise ValueError("theta: a hyper-parameter must be > 0")
        u = np.log(theta)
        return self._log_pdf_u(u) - u

    def log_pdf_log(self, u) -> tuple[np.ndarray, np.ndarray]:
        """``(log p_u(u), d log p_u / du)`` with ``log p_u(u) = log p_theta(e^u) + u``."""
        u = as_float_array(u, "u", allow_empty=True)
        return self._log_pdf_u(u), self._dlog_pdf_u(u)

    def sample_log(self, size=None, *, rng: RngLike = None) -> np.ndarray:
        """Samples of ``u = log theta`` with theta drawn from the prior (shape ``size``)."""
        return self._sample_u(as_rng(rng), size)

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

    def _log_pdf_u(self, u):
        z = (u - self.mu) / self.sigma
        return -0.5 * z * z - np.log(self.sigma * np.sqrt(2 * np.pi))

    def _dlog_pdf_u(self, u):
        return -(u - self.mu) / self.sigma ** 2

    def _sample_u(self, rng, size):
        return rng.normal(self.mu, self.sigma, size)


class Gamma(Prior):
    """theta ~ Gamma(shape a, rate b): p(theta) = b^a theta^(a-1) e^(-b theta) / Gamma(a).

    Mean a / b, variance a / b^2. Gamma(1, b) is an exponential with mean 1/b (the prior on
    the Beta-likelihood precision in Jensen, Nielsen & Larsen, "Efficient preference learning
    with pairwise continuous observations and Gaussian processes", IEEE MLSP 2011: b = 0.05).
    In u: ``log p_u(u) = a log b - log Gamma(a) + a u - b e^u``.
    """

    def __init__(self, shape: float = 2.0, rate: float = 1.0):
        self.shape = as_positive_float(shape, "shape")
        self.rate = as_positive_float(rate, "rate")

    def _log_pdf_u(self, u):
        a, b = self.shape, self.rate
        with np.errstate(over="ignore"):  # b e^u = inf for u > 709: log p_u = -inf, its limit
            return a * np.log(b) - gammaln(a) + a * u - b * np.exp(u)

    def _dlog_pdf_u(self, u):
        with np.errstate(over="ignore"):
            return self.shape - self.rate * np.exp(u)

    def _sample_u(self, rng, size):
        draw = rng.gamma(self.shape, 1.0 / self.rate, size)
        return np.log(np.maximum(draw, np.finfo(float).tiny))  # a tiny shape can draw 0.0


class HalfStudentT(Prior):
    """Half Student-t with ``dof`` degrees of freedom and ``scale`` s, on theta > 0:

    p(theta) = 2 Gamma((nu+1)/2) / (Gamma(nu/2) sqrt(nu pi) s) * (1 + (theta/s)^2 / nu)^(-(nu+1)/2).

    Weakly informative: flat near 0, heavy tail; ``dof=1`` is the half-Cauchy. In u, with
    ``z = 2 (u - log s) - log nu``: ``log p_u(u) = const - (nu+1)/2 log(1 + e^z) + u``.
    """

    def __init__(self, dof: int = 4, scale: float = 1.0):
        self.dof = as_positive_int(dof, "dof")
        self.scale = as_positive_float(scale, "scale")

    def _z(self, u):
        return 2.0 * (u - np.log(self.scale)) - np.log(self.dof)

    def _log_pdf_u(self, u):
        nu, s = self.dof, self.scale
        const = (np.log(2.0) + gammaln((nu + 1) / 2) - gammaln(nu / 2)
                 - 0.5 * np.log(nu * np.pi) - np.log(s))
        return const - 0.5 * (nu + 1) * np.logaddexp(0.0, self._z(u)) + u

    def _dlog_pdf_u(self, u):
        return 1.0 - (self.dof + 1) * expit(self._z(u))

    def _sample_u(self, rng, size):
        draw = np.abs(rng.standard_t(self.dof, size))
        return np.log(self.scale) + np.log(np.maximum(draw, np.finfo(float).tiny))
