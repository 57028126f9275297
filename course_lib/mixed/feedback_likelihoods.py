"""Likelihoods of the mixed feedback of Unit 7 (K. Wu, C. Sanders, B. Letham and P. Guan,
"Mixed likelihood variational Gaussian processes", preprint 2025): yes/no answers about one
item, constraints on the latent as pseudo-observations, and how confidently a preference was
felt. A variational GP gives each its own rows (``course_lib.mixed.variational_model.MixedLikelihood``);
the interface, its checks and its expectations over z ~ N(mean, var) are those of
:class:`course_lib.preference.likelihoods.Likelihood`:

==================  ================  ===============================================
class               y                 p(y | z)
==================  ================  ===============================================
BernoulliProbit     0 / 1, one item   P(y = 1) = Phi(z)  (PairwiseProbit, sigma = 1/sqrt2)
GaussianConstraint  latent target     N(y; z, sigma_k^2), a fixed sigma_k per row
LikertConfidence    level 0 .. l - 1  softmax of -distance of |z| to each level's
                                      interval, with a lapse (Wu et al. 2025, eq. 2)
OrdinalProbit       level 0 .. K - 1  Phi(b_{y+1} - z) - Phi(b_y - z)  (cumulative
                                      probit, thresholds b)
==================  ================  ===============================================

The ordered levels are one family: LikertConfidence rates how sure a choice between two items
was, OrdinalProbit rates one item on K levels.
"""

from __future__ import annotations

import numpy as np

from ..linalg import LOG_2PI
from ..metrics import log_normal_interval
from ..validation import as_float_array, check_length
from ..preference.likelihoods import (SQRT2, Likelihood, PairwiseProbit, check_binary,
                                      check_levels, check_rows, log_ndtr_derivatives,
                                      no_parameters)
from ..gp.parameters import DEFAULT_BOUNDS, check_parameter

__all__ = ["BernoulliProbit", "GaussianConstraint", "LikertConfidence", "OrdinalProbit"]


class BernoulliProbit(PairwiseProbit):
    """A yes/no answer about ONE item (detection, classification): P(y = 1 | z) = Phi(z), with
    z = f(item) (identity rows of M; the convention of Wu et al. 2025 and of GPyTorch's Bernoulli
    likelihood).

    This is :class:`~course_lib.preference.likelihoods.PairwiseProbit` with its ``noise_sd``
    fixed at 1/sqrt(2), since Phi(z / (sqrt(2) sigma)) = Phi(z) there: every derivative, the
    closed-form predictive P(y = 1) = Phi(mean / sqrt(1 + var)) and the expectations come from
    that class. It is a class of its own only so the scale cannot drift (the latent's scale is
    the kernel's; a free ``noise_sd`` would not be identified) and so its answers are described
    as single-item answers. ``noise_sd`` stays in ``param_names`` with equal (fixed) bounds.
    """

    observation_kind = "single-binary"

    def __init__(self):
        self._init_parameters({"noise_sd": 1.0 / SQRT2}, {"noise_sd": "fixed"})

    def _check_domain(self, y, name):
        return check_binary(y, name, "1 = yes / detected")

    def __repr__(self) -> str:
        return "BernoulliProbit()"


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
        no_parameters(self)

    def __repr__(self) -> str:
        return f"GaussianConstraint(noise_sd=<{self.noise_sd.size} rows>)"

    def _variance(self, m: int) -> np.ndarray:
        if m != self.noise_sd.size:
            raise ValueError(f"noise_sd: this likelihood has {self.noise_sd.size} rows (one sd "
                             f"each), but got {m} observation rows")
        return self.noise_sd ** 2

    def check_observations(self, y, name: str = "y") -> np.ndarray:
        """``y`` as a 1-D float array of one target per row of ``noise_sd`` (errors name
        ``name``). Every target is allowed, but the rows are this likelihood's own, so a wrong
        number is refused here, where the data are joined (``MixedLikelihood``), not at the
        first evaluation inside a fit."""
        return check_length(as_float_array(y, name, ndim=1), name, self.noise_sd.size,
                            "row of noise_sd")

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
        y = check_rows(y, "y", mean.size)
        total = self._variance(mean.size) + var
        return -0.5 * (LOG_2PI + np.log(total) + (y - mean) ** 2 / total)

    def _expected_log_likelihood(self, y, mean, var):
        variance = self._variance(mean.size)
        value = -0.5 * (LOG_2PI + np.log(variance) + ((y - mean) ** 2 + var) / variance)
        return value, (y - mean) / variance, -0.5 / variance


# --------------------------------------------------------------------------------------------
# Confidence ratings of pairs (Wu et al. 2025, eq. 2): z = f(first) - f(second)
# --------------------------------------------------------------------------------------------

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
        return check_levels(y, name, self.n_levels)

    def _kinks(self):
        cuts = self.cut_points
        return tuple(np.concatenate([-cuts[1:], cuts]))

    def _levels(self, z):
        """Per level (last axis): slope s_j = d dist_j / da, below / above the interval, and
        log p_j, for a = |z|. Lecture 07, section 5 (Confidence ratings: the Likert likelihood)."""
        cuts = self.cut_points
        a = np.abs(z)[..., None]
        upper = np.append(cuts[1:], np.inf)
        below, above = a < cuts, a > upper
        dist = np.where(below, cuts - a, 0.0) + np.where(above, a - upper, 0.0)
        # a lies in one level's interval (dist 0), so the sum is in [1, n_levels]: no overflow,
        # and a plain sum is 3x faster than logaddexp.reduce
        log_p = -dist - np.log(np.sum(np.exp(-dist), axis=-1, keepdims=True))
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

    def _expected_log_likelihood(self, y, mean, var):
        """``(E log P(y | z), d/dmean, d/dvar)``, z ~ N(mean, var), by the composite rule with
        panel edges at the kinks.

        d/dvar = E[d^2 log P/dz^2] / 2 holds for smooth likelihoods only: here d log P/dz jumps
        by J_k at each kink z_k, whose second derivative is then J_k times a point mass, so
        d/dvar = (E[smooth second derivative] + sum_k J_k N(z_k; mean, var)) / 2. (Without
        the point masses, d/dvar is wrong wherever the Gaussian sits on a kink, e.g. a pair
        with mean 0: the fixed point lambda = -2 d/dvar of a variational GP would be wrong.)
        With var = 0 the point masses are left out (d/dvar is unbounded on a kink).
        """
        value, d_mean, d_var = super()._expected_log_likelihood(y, mean, var)
        spread = var > 0
        kinks = np.array(self._kinks())
        # the slope just above and just below every kink, in one call (rows: above, below)
        sides = np.nextafter(kinks, np.array([[np.inf], [-np.inf]]))
        slopes = self._derivatives(np.repeat(sides[..., None], mean.size, axis=-1), y, 2)[1]
        for kink, jump in zip(kinks, slopes[0] - slopes[1]):
            d_var[spread] += 0.5 * jump[spread] * np.exp(
                -0.5 * (kink - mean[spread]) ** 2 / var[spread]) / np.sqrt(
                2.0 * np.pi * var[spread])
        return value, d_mean, d_var

    def level_probabilities(self, z) -> np.ndarray:
        """P(y = i | z) for every level i (columns) at every z (rows): (1 - lapse) p_i + lapse / l."""
        return self._level_probabilities(as_float_array(z, "z", ndim=1))

    def _level_probabilities(self, z):
        _, _, _, log_p = self._levels(z)
        lapse = self._param("lapse")
        return (1.0 - lapse) * np.exp(log_p) + lapse / self.n_levels

    def _conditional_mean(self, z):
        """E[y | z]: the expected level."""
        return self._level_probabilities(z) @ np.arange(self.n_levels, dtype=float)


# --------------------------------------------------------------------------------------------
# Ordinal ratings (cumulative probit)
# --------------------------------------------------------------------------------------------

class OrdinalProbit(Likelihood):
    """An absolute rating of ONE item on ``n_levels`` ordered levels y = 0 .. K - 1 (cumulative
    probit; AEPsych's ordinal likelihood, which Wu et al. 2025 mention but do not use):

        P(y = k | z) = Phi(b_{k+1} - z) - Phi(b_k - z),   b_0 = -inf < b_1 = 0 < ... < b_K = inf.

    The first threshold is fixed at 0 (a GP with zero mean then places the boundary between
    levels 0 and 1 at f = 0); the others are b_{k+1} = b_k + gap_k with log-parameters
    ``gap_1`` .. ``gap_{K-2}``. There is no noise scale: it would only rescale f and the gaps,
    which the kernel's variance and the gaps already do. With two levels this is
    :class:`~course_lib.mixed.feedback_likelihoods.BernoulliProbit` (P(y = 1) = Phi(z)).

    With l = b_y - z, u = b_{y+1} - z, P = Phi(u) - Phi(l) and r_l = phi(l)/P, r_u = phi(u)/P
    (0 at an infinite end):

        d log P/dz = r_l - r_u,   d^2 log P/dz^2 = l r_l - u r_u - (r_l - r_u)^2  (< 0:
        log-concave), and the third derivative from the partials of log P in (l, u).

    log P is formed in the tail that holds the interval
    (:func:`course_lib.metrics.log_normal_interval`), so it stays finite far beyond where P
    underflows.
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
            no_parameters(self)

    @property
    def thresholds(self) -> np.ndarray:
        """(b_1 = 0, b_2, ..., b_{K-1}): the boundaries between neighbouring levels."""
        return np.concatenate([[0.0], np.cumsum(np.exp(self._log_theta))])

    def _check_domain(self, y, name):
        return check_levels(y, name, self.n_levels)

    def _ends(self, z, y):
        """l = b_y - z and u = b_{y+1} - z (+-inf at the outer levels)."""
        edges = np.concatenate([[-np.inf], self.thresholds, [np.inf]])
        level = np.broadcast_to(y, np.shape(z)).astype(np.int64)
        return edges[level] - z, edges[level + 1] - z

    def _partials(self, z, y):
        """log P and its partials in (l, u) up to third order; infinite ends contribute 0."""
        low, high = self._ends(z, y)
        log_p = log_normal_interval(low, high)
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
        return log_normal_interval(*self._ends(z, y))

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
        return sum(k * np.exp(log_normal_interval(*self._ends(z, np.full(z.shape, k))))
                   for k in range(1, self.n_levels))
