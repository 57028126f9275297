"""Level-set acquisitions of the query's own marginal: BALD and straddle.

They score a candidate by the posterior of f at it alone, with no reference points and no
look-ahead, unlike the acquisitions of :mod:`course_lib.gp.levelset` (global mutual
information, EAVC), and so sit apart from that core.

* :func:`bald_bernoulli` (bits): H(p1) - E_f[H(Phi(f_q))] with p1 = Phi(mu_q / sqrt(1 + v_q)),
  the information of a Bernoulli probit answer y about f(x_q) alone, the expectation by
  Gauss-Legendre quadrature.
* :func:`straddle`: width * sd_q - |mu_q - threshold| (Bryan et al. 2005; width 1.96).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from ..validation import _as_positive_float
from .inputs import _as_inputs
from .levelset_posterior import _as_threshold, _binary_entropy_bits, _fitted_posterior

__all__ = ["bald_bernoulli", "straddle"]


def _predictive(model, candidates):
    kernel, X_train, posterior = _fitted_posterior(model)
    candidates = _as_inputs(candidates, "candidates", X_train.shape[1])
    mean, var = posterior.predict(kernel(X_train, candidates), kernel.diag(candidates))
    return mean, np.maximum(var, 0.0)


# E_f[H(Phi(f))]: Gauss-Legendre on the part of mean +- _BALD_WINDOW sd where |f| < _BALD_WINDOW
# (H(Phi(f)) < 1e-20 beyond |f| = 10); the integrand is smooth there
_BALD_WINDOW = 10.0
_BALD_X, _BALD_W = np.polynomial.legendre.leggauss(64)


def bald_bernoulli(model, candidates) -> np.ndarray:
    """BALD (BITS): the information a Bernoulli probit answer at each candidate carries about f,
    H(Phi(mu / sqrt(1 + v))) - E_{f ~ N(mu, v)}[H(Phi(f))] (module docstring). Returns (n_c,).
    The expectation is a 64-node Gauss-Legendre rule on the window where both the Gaussian and
    H(Phi(f)) are non-negligible (error below 1e-9 bits, checked against adaptive quadrature).
    """
    mean, var = _predictive(model, candidates)
    sd = np.sqrt(var)
    lo = np.maximum(mean - _BALD_WINDOW * sd, -_BALD_WINDOW)
    hi = np.minimum(mean + _BALD_WINDOW * sd, _BALD_WINDOW)
    half = np.maximum(hi - lo, 0.0) / 2.0
    f = (lo + hi)[:, None] / 2.0 + half[:, None] * _BALD_X[None, :]
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        density = np.exp(-0.5 * ((f - mean[:, None]) / sd[:, None]) ** 2) / (
            sd[:, None] * np.sqrt(2.0 * np.pi))
        expected = half * np.sum(_BALD_W * density * _binary_entropy_bits(ndtr(f), ndtr(-f)),
                                 axis=1)
    expected = np.where(sd > 0, np.where(half > 0, expected, 0.0),
                        _binary_entropy_bits(ndtr(mean), ndtr(-mean)))
    a = mean / np.sqrt(1.0 + var)
    marginal = _binary_entropy_bits(ndtr(a), ndtr(-a))
    return np.maximum(marginal - expected, 0.0)


def straddle(model, candidates, threshold, *, width: float = 1.96) -> np.ndarray:
    """Straddle score width * sd - |mean - threshold| at each candidate (Bryan et al. 2005):
    large where the posterior is unsure on which side of the threshold f lies. Returns (n_c,)."""
    width = _as_positive_float(width, "width")
    threshold = _as_threshold(threshold)
    mean, var = _predictive(model, candidates)
    return width * np.sqrt(var) - np.abs(mean - threshold)
