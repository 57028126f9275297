"""Moments of EP's tilted distributions p(y_k | f) N(f; m_k, v_k): closed forms and quadrature.

Expectation propagation (:mod:`course_lib.preference.ep`) matches each site to the mean and variance of
its tilted distribution; this module computes them, apart from EP's loop because how they are
computed depends on the likelihood, not on EP. With g1, g2 the first two derivatives of log Z_k
in the cavity mean m, the tilted mean is m + delta with delta = v g1 and its variance
v_hat = v + v^2 g2 (Rasmussen & Williams 2006, sec. 3.6).

Closed forms for ``PairwiseProbit`` (Z = Phi(s m / sqrt(2 sigma^2 + v)), s = 2y - 1; R&W eq.
3.58), ``PairwiseGaussian`` and ``WarpedProbitRating`` (Gaussian in f); otherwise
(``BetaRating``, ``TruncatedGaussianRating``, ...) log Z and the tilted mean and variance come
from the composite Gauss-Legendre rule of :mod:`course_lib.preference.quadrature`, summed in log space.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from ..validation import as_float_array
from . import quadrature as quadrature
from .likelihoods import Likelihood, PairwiseGaussian, PairwiseProbit, log_ndtr_derivatives
from .rating_likelihoods import WarpedProbitRating

__all__ = ["tilted_moments", "tilted_moments_trusted"]


def tilted_moments(likelihood: Likelihood, y, mean, var, *, parameters: bool = False):
    """``(log Z, delta, v_hat)``, each (m,): the normaliser Z_k = int p(y_k | f) N(f; mean_k,
    var_k) df of the tilted distribution, its mean minus ``mean`` and its variance; with
    ``parameters=True`` also E_tilted[d log p / d theta] of shape (Q, m) (the derivative of
    log Z in the likelihood's log-parameters).

    The derivatives of log Z in the cavity mean are g1 = delta / var and
    g2 = (v_hat - var) / var^2. Closed forms for PairwiseProbit, PairwiseGaussian and
    WarpedProbitRating; otherwise :func:`course_lib.preference.quadrature._panel_rule` (windows at
    the tilted mode and at the likelihood's own bump, as for its predictive densities), with
    the tilted mean and variance as weighted sums in log space.
    """
    mean = as_float_array(mean, "mean", ndim=1)
    var = as_float_array(var, "var", ndim=1)
    if var.shape != mean.shape or np.any(var <= 0):
        raise ValueError(f"var: expected {mean.size} positive variances (one per mean)")
    y = likelihood.check_observations(y, "y")
    if y.shape != mean.shape:
        raise ValueError(f"y: expected {mean.size} observations (one per mean), got {y.size}")
    return tilted_moments_trusted(likelihood, y, mean, var,
                                  lambda: _likelihood_bump(likelihood, y), parameters)


def _likelihood_bump(likelihood, y):
    """The window (centre, width) of p(y | f)'s own peak, or None: it does not depend on the
    cavity, so EP finds it once per fit rather than once per sweep."""
    centre = likelihood._likelihood_centre(y)
    if centre is None:
        return None
    return likelihood._window(y, centre, np.zeros_like(y), np.zeros_like(y))


def tilted_moments_trusted(likelihood, y, mean, var, find_bump, parameters):
    """:func:`tilted_moments` on checked arrays, with ``find_bump()`` giving the likelihood's
    window (EP's loop calls it once per sweep).
    Lecture 06, section 5 (Bounded ratings), "EP step by step", step 2."""
    closed = _closed_form(likelihood, y, mean, var)
    if closed is not None and not parameters:
        return closed
    windows = [likelihood._window(y, mean.copy(), mean, 1.0 / var)]
    bump = find_bump()
    if bump is not None:
        windows.append(bump)
    nodes, log_weights, row, row_start = quadrature._panel_rule(
        mean, var, windows=windows, link_scale=likelihood._link_scale(), kinks=likelihood._kinks())
    log_terms = log_weights + likelihood._log_density(nodes, y[row, None])
    peak = np.maximum.reduceat(log_terms.max(axis=1), row_start)
    weights = np.exp(log_terms - peak[row, None])

    def row_sum(values):
        return np.add.reduceat((weights * values).sum(axis=1), row_start)

    total = row_sum(1.0)
    offset = nodes - mean[row, None]
    # Line 6 (R&W 2006, Alg. 3.5) by quadrature: the tilted moments eq. 3.58 gives for a probit
    delta = row_sum(offset) / total                              # E[f] - mean
    var_hat = row_sum((offset - delta[row, None]) ** 2) / total  # Var[f]
    if closed is None:
        closed = (np.log(total) + peak, delta, var_hat)
    if not parameters:
        return closed
    flat = likelihood.parameter_terms(nodes.ravel(), np.repeat(y[row], nodes.shape[1]))[:, 0]
    dtheta = np.stack([row_sum(d.reshape(nodes.shape)) / total for d in flat])
    return closed + (dtheta,)


def _closed_form(likelihood, y, mean, var):
    """(log Z, delta, v_hat) where Z has a closed form, else None.
    Lecture 06, section 5 (Bounded ratings), "EP step by step", step 2.

    Probit (R&W 3.58): t = s mean / sqrt(2 sigma^2 + var), delta = var s r(t) / sqrt(...),
    v_hat = var (2 sigma^2 + var (1 - r(t)(t + r(t)))) / (2 sigma^2 + var). Gaussian in f with
    observed o (y, or Phi^-1(y) for the warp): delta = var (o - mean) / (sigma^2 + var),
    v_hat = var sigma^2 / (sigma^2 + var)."""
    if isinstance(likelihood, PairwiseProbit):
        sign = 2.0 * y - 1.0
        noise = 2.0 * likelihood.params["noise_sd"] ** 2
        total = noise + var
        log_Z, r, d2, _ = log_ndtr_derivatives(sign * mean / np.sqrt(total))
        # Line 6 (R&W 2006, Alg. 3.5; eq. 3.58, slope 1/(sqrt2 sigma)): Z, mu_hat - m, sigma_hat^2
        return log_Z, var * sign * r / np.sqrt(total), var * (noise + var * (1.0 + d2)) / total
    if isinstance(likelihood, (PairwiseGaussian, WarpedProbitRating)):
        observed = y if isinstance(likelihood, PairwiseGaussian) else ndtri(y)
        noise = likelihood.params["noise_sd"] ** 2
        log_Z = likelihood.predictive_log_density(y, mean, var)
        return log_Z, var * (observed - mean) / (noise + var), var * noise / (noise + var)
    return None
