"""Observation models (likelihoods) on z = M f, for Laplace, EP and variational GPs.

Every likelihood of the course acts on ONE latent number per observation row k,

    z_k = (M f)_k = f(first_k) - f(second_k)     (pairs; orientation: course_lib.preference.comparisons)
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

Integrals over z ~ N(mean, var) without a closed form come from ``course_lib.preference.quadrature``
(composite Gauss-Legendre with panel edges where the integrand has structure). A likelihood
tells it where to look: ``_link_scale()`` (the width in z over which its link changes),
``_likelihood_centre(y)`` (roughly where p(y | z) peaks in z, for likelihoods that are not
log-concave), ``_kinks()`` (where log p has a kink in z, LikertConfidence) and
``_smooth_in_z`` (smooth everywhere: narrow rows may take Gauss-Hermite).

The families (each with its table of y and p(y | z))
----------------------------------------------------
here                      a comparison of two items, z = f(first) - f(second) (Unit 6):
                          PairwiseGaussian and PairwiseProbit, in the section after the
                          checks, so that a preference GP's walk from fit to predict reads the
                          interface and its likelihood in one file; the third, PairwiseBeta,
                          sits with its Beta algebra in ``probit_beta`` (which builds on this
                          module, so it cannot sit here).
``rating_likelihoods``    a bounded rating of one item, z = f(item) (Unit 6): BetaRating,
                          TruncatedGaussianRating, WarpedProbitRating.
``feedback_likelihoods``  the mixed feedback of Unit 7 (Wu et al. 2025): BernoulliProbit,
                          GaussianConstraint, and the ordered levels LikertConfidence and
                          OrdinalProbit.
What the families share sits here too: the checks of their answers, and log Phi(t) with its
derivatives, stable in both tails, which every probit likelihood and EP's probit moments use
(section at the end). Beside it: ``probit_beta`` (the Beta algebra of PairwiseBeta and
BetaRating, finite however small a shape, and PairwiseBeta).

The pairwise family. y = 1 (a binary answer) or y > 0.5 (a degree) means the FIRST item was
preferred (the orientation of ``course_lib.preference.comparisons``); sigma = ``noise_sd``,
Phi / phi the standard normal cdf / pdf:

=================  ================  ===============================================
class              y                 p(y | z)
=================  ================  ===============================================
PairwiseGaussian   real difference   N(y; z, sigma^2)  (sigma: sd of the difference)
PairwiseProbit     0 / 1             P(y = 1) = Phi(z / (sqrt(2) sigma))  (Thurstone:
                                     each option evokes f + N(0, sigma^2))
PairwiseBeta       degree in [0, 1]  Beta(y; nu mu, nu (1 - mu)), mu = Phi(z/(sqrt2 sigma))
                                     (in ``probit_beta``)
=================  ================  ===============================================

(J. B. Nielsen's thesis, DTU 2015, section 2.3; B. S. Jensen, J. B. Nielsen and J. Larsen,
"Efficient preference learning with pairwise continuous observations and Gaussian processes",
IEEE MLSP 2011. The thesis writes pairs the other way round, see ``comparisons``; its printed
Beta derivatives miss the chain-rule factor 1/(sqrt(2) sigma), corrected in ``probit_beta``.)

log Phi and its derivatives. A probit likelihood needs log Phi(t) and its first three
derivatives in t far into the lower tail, where phi(t) / Phi(t) is 0 / 0 in floating point.
A student follows a likelihood's derivatives without them: they are numerics. log Phi is
``log_ndtr``; the inverse Mills ratio phi(t)/Phi(t) is sqrt(2/pi)/erfcx(-t/sqrt(2)) (no 0/0 in
the far tail) and, below t = -12, the second and third derivatives come from the asymptotic
series of a(t) = t + phi(t)/Phi(t) (coefficients by the recurrence of
:func:`_tail_coefficients`), so curvature and third derivative keep full relative precision at
t = -40 and beyond.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erfcx, log_ndtr, ndtr

from ..linalg import LOG_2PI
from ..validation import as_float_array, check_choice
from . import quadrature as quadrature
from ..gp.parameters import DEFAULT_BOUNDS, LogParameters

__all__ = ["LikelihoodTerms", "Likelihood", "check_rows", "check_binary", "check_levels",
           "no_parameters", "PairwiseGaussian", "PairwiseProbit", "inverse_mills_ratio",
           "log_ndtr_derivatives", "SQRT2"]


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


def check_rows(values, name: str, m: int | None = None) -> np.ndarray:
    """``values`` checked and returned as a 1-D float array of one value per observation row
    (``m`` of them when given), the check every likelihood makes of z, y, mean and var; errors
    name the argument ``name``."""
    arr = as_float_array(values, name, ndim=1)
    if m is not None and arr.size != m:
        raise ValueError(f"{name}: expected {m} values (one per observation row), got {arr.size}")
    return arr


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
        z = check_rows(z, "z")
        return z, self._check_domain(check_rows(y, "y", z.size), "y")

    def _check_gaussian(self, mean, var):
        mean = check_rows(mean, "mean")
        var = check_rows(var, "var", mean.size)
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
        integrated by :func:`course_lib.preference.quadrature.expectation` unless a subclass has a
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

        By :func:`course_lib.preference.quadrature._log_expectation`, with windows around the mode of
        p(y | z) N(z; mean, var) and around the likelihood's own bump (a likelihood that is not
        log-concave gives the integrand two bumps), both found by Newton's method; summed in
        log space, so a density far below 1e-308 is still exact. ``var = 0`` gives
        log p(y | mean).
        """
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(check_rows(y, "y", mean.size), "y")
        result = self._log_density(mean, y)
        spread = var > 0
        if np.any(spread):
            y, mean, var = y[spread], mean[spread], var[spread]
            windows = [self._window(y, mean.copy(), mean, 1.0 / var)]
            centre = self._likelihood_centre(y)
            if centre is not None:
                windows.append(self._window(y, centre, mean, np.zeros_like(var)))
            result[spread] = quadrature._log_expectation(
                lambda z, row: self._log_density(z, y[row, None]), mean, var, windows=windows,
                link_scale=self._link_scale(), kinks=self._kinks())
        return result

    def expected_parameter_gradient(self, y, mean, var) -> np.ndarray:
        """E[d log p(y | z) / d theta_p] with z ~ N(mean, var): shape (n_params, m), the
        gradient of :meth:`expected_log_likelihood`'s value in the log-parameters (for learning
        a likelihood's parameters on a variational bound). log p is continuous in theta, so
        the derivative passes under the integral even where the likelihood has kinks."""
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(check_rows(y, "y", mean.size), "y")
        return self._expected_parameter_gradient(y, mean, var)

    def _expected_parameter_gradient(self, y, mean, var):
        if self._log_theta.size == 0:   # no log-parameters to learn
            return np.zeros((0, mean.size))
        result = self._parameter_terms(mean, y)[:, 0, :].copy()
        spread = var > 0
        if np.any(spread):
            y_spread = y[spread]
            sums = self._expectation(
                lambda z, row: tuple(self._parameter_terms(z, y_spread[row, None])[:, 0]),
                mean[spread], var[spread])
            result[:, spread] = np.reshape(sums, (self._log_theta.size, -1))
        return result

    def expected_log_likelihood(self, y, mean, var):
        """``(E log p(y | z), d/dmean, d/dvar)`` with z ~ N(mean, var), each of shape (m,).

        d/dmean = E[d log p/dz] and d/dvar = E[d^2 log p/dz^2] / 2 (Price's and Bonnet's
        theorems), all three by
        :func:`course_lib.preference.quadrature.expectation`."""
        mean, var = self._check_gaussian(mean, var)
        y = self._check_domain(check_rows(y, "y", mean.size), "y")
        return self._expected_log_likelihood(y, mean, var)

    def _expected_log_likelihood(self, y, mean, var):
        """:meth:`expected_log_likelihood` on checked rows: the value at the mean where var is
        0, the quadrature elsewhere.
        Lecture 07, section 2 (The variational objective, built from its parts)."""
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

    # ----- where the quadrature looks (course_lib.preference.quadrature) --------------------------------
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
        """:func:`course_lib.preference.quadrature.expectation` told where this likelihood changes."""
        return quadrature.expectation(fun, mean, var, link_scale=self._link_scale(),
                                      kinks=self._kinks(), smooth=self._smooth_in_z)

    def _window(self, y, start, mean, precision):
        """:func:`course_lib.preference.quadrature._newton_window` on log p(y | z) from ``start``."""
        return quadrature._newton_window(lambda z: self._log_density(z, y),
                                        lambda z: self._derivatives(z, y, 2)[1:3], start, mean,
                                        precision, self._link_scale())


# --------------------------------------------------------------------------------------------
# Shared by the families: checks of the answers
# --------------------------------------------------------------------------------------------

def check_binary(y, name: str, meaning: str) -> np.ndarray:
    """Refuse answers other than 0 and 1, naming the first bad row, and return ``y``; ``meaning``
    says what 1 means (the answers of a binary likelihood, pairwise or single-item)."""
    bad = (y != 0) & (y != 1)
    if np.any(bad):
        raise ValueError(f"{name}: binary answers must be 0 or 1 ({meaning}), row "
                         f"{int(np.argmax(bad))} has {y[bad][0]:g}")
    return y


# Answers closer than this to 0 or 1 are moved to it (log y, log(1 - y) and Phi^-1(y) are
# infinite at the ends): finer than any slider's resolution, so real answers are untouched,
# while an answer of exactly 0 or 1 gets a finite, very strong, log density. A power of two
# (2^-20 = 9.5e-7), so 1 - clip is exact and the answers y and 1 - y clip symmetrically.
_DEFAULT_CLIP = 2.0 ** -20


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


def check_levels(y, name: str, n_levels: int) -> np.ndarray:
    """Refuse ratings that are not whole levels 0 .. n_levels - 1, naming the first bad row,
    and return ``y`` (the answers of a likelihood of levels: ordinal ratings, confidence)."""
    bad = (y != np.round(y)) | (y < 0) | (y > n_levels - 1)
    if np.any(bad):
        raise ValueError(f"{name}: ratings must be whole levels 0 .. {n_levels - 1}, "
                         f"row {int(np.argmax(bad))} has {y[bad][0]:g}")
    return y


def no_parameters(likelihood: Likelihood) -> None:
    """Set up an empty log-parameter vector on ``likelihood``, in its constructor (a likelihood
    with nothing to learn; one with parameters calls ``_init_parameters``)."""
    likelihood._log_theta = np.zeros(0)
    likelihood._log_bounds = np.zeros((0, 2))


# --------------------------------------------------------------------------------------------
# The pairwise family: a comparison of two items, z = f(first) - f(second) (module docstring)
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# log Phi and its derivatives, stable in both tails, for every probit (module docstring)
# --------------------------------------------------------------------------------------------
#: sqrt(2), the scale between a probit's noise sd and its link (Phi(z / (sqrt(2) sigma))).
SQRT2 = float(np.sqrt(2.0))


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


def _normal_pdf(t):
    return np.exp(-0.5 * t * t) / np.sqrt(2.0 * np.pi)
