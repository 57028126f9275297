"""Covariance functions (kernels) for Gaussian processes, with hyper-parameters held as logs.

Conventions (used by every kernel here and by the rest of ``course_lib.gp``)
----------------------------------------------------------------------------
* Inputs are 2-D arrays whose **rows are points**: ``X`` has shape ``(n, d)``. A 1-D array of
  length n is read as n points in one dimension.
* ``lengthscale`` is a length ell (not its square): the SE kernel is
  ``variance * exp(-r^2 / 2)`` with ``r^2 = sum_k (x_k - x'_k)^2 / ell_k^2``.
* ``variance`` is the signal variance sigma_f^2 (not its root): ``k(x, x) = variance``.
* Every hyper-parameter is positive and is stored as its natural log. ``kernel.theta`` is the
  vector of log-parameters in the order ``kernel.param_names``; ``kernel.bounds`` is an
  ``(n_params, 2)`` array of log-bounds (a parameter whose two bounds are equal is fixed).
  Kernels are immutable: ``kernel.with_theta(theta)`` returns a new kernel.
* Every hyper-parameter (and bound) lies in ``parameters.PARAMETER_RANGE`` = [1e-100, 1e100],
  i.e. every log-parameter within +-230: squares and products of such values stay inside
  float64, so a kernel never turns into inf or NaN. Values beyond it are refused, naming the
  argument. The bookkeeping (``theta``, ``bounds``, ``params``, ``with_theta``) is
  :class:`~course_lib.gp.parameters.LogParameters`, shared with the likelihoods.

The interface every kernel implements (``kernel(X, X2)``, ``diag``, ``gradient``,
``gradient_diag``, ``gradient_inputs``, ``k1 + k2``, ``k1 * k2``) is documented and built in
:mod:`course_lib.gp.kernel_base`, with the distance and chain-rule machinery of the stationary
kernels (:class:`~course_lib.gp.kernel_base.Stationary`), which give only their profile ``g(s)``
and ``dg/ds`` here. This module holds the formulas (Rasmussen & Williams 2006,
ch. 4), but the squared exponential's: :class:`SquaredExponential`, the kernel every model
starts from, sits in ``kernel_base`` beside the stationary machinery it fills in, and is
re-exported here.

The white-noise kernel follows the usual (scikit-learn) convention: ``White(X)`` is
``variance * I`` (noise on each observation), while ``White(X, X2)`` is zero even where
points coincide, so it never leaks into predictions at test points.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_choice
from .kernel_base import Kernel, SquaredExponential, Stationary, _vanishing_product
from .parameters import DEFAULT_BOUNDS, check_parameter, log_bounds

__all__ = [
    "SquaredExponential", "Matern", "Matern12", "Matern32", "Matern52",
    "RationalQuadratic", "Periodic", "Linear", "Constant", "White", "make_kernel",
    "KERNEL_FAMILIES",
]


# ---------------------------------------------------------------------------------------
# Stationary kernels k(x, x') = variance * g(s), s = r^2 (distances, chain rule and the SE
# kernel: kernel_base)
# ---------------------------------------------------------------------------------------
class Matern(Stationary):
    """Matern kernel with smoothness ``nu`` in {0.5, 1.5, 2.5}, isotropic or ARD.

    With ``r`` the scaled distance (see :class:`SquaredExponential`):

    * nu = 1/2: ``variance * exp(-r)`` (Ornstein-Uhlenbeck; rough, continuous)
    * nu = 3/2: ``variance * (1 + sqrt(3) r) exp(-sqrt(3) r)`` (once differentiable)
    * nu = 5/2: ``variance * (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)`` (twice)

    scikit-learn equivalent: ``ConstantKernel(variance) * Matern(lengthscale, nu=nu)``.
    """

    def __init__(self, nu: float = 1.5, lengthscale=1.0, variance=1.0,
                 lengthscale_bounds=DEFAULT_BOUNDS, variance_bounds=DEFAULT_BOUNDS,
                 name: str | None = None):
        self.nu = check_choice(nu, "nu", (0.5, 1.5, 2.5))
        default = {0.5: "matern12", 1.5: "matern32", 2.5: "matern52"}[self.nu]
        super().__init__(lengthscale, variance, lengthscale_bounds, variance_bounds,
                         name or default)

    def _g(self, s):
        """Profile at r = sqrt(s); Lecture 04, section 2 (Kernels and samples from the prior)."""
        r = np.sqrt(s)
        if self.nu == 0.5:
            return np.exp(-r)
        if self.nu == 1.5:
            a = np.sqrt(3.0) * r
            return _vanishing_product(np.exp(-a), 1.0 + a)
        a = np.sqrt(5.0) * r
        with np.errstate(over="ignore"):
            polynomial = 1.0 + a + a * a / 3.0
        return _vanishing_product(np.exp(-a), polynomial)

    def _dg_ds(self, s, g):
        # dg/ds = (dg/dr) / (2 r), written so that it is finite at r = 0 where possible
        r = np.sqrt(s)
        if self.nu == 0.5:
            positive = r > 0
            safe = np.where(positive, r, 1.0)
            return np.where(positive, -np.exp(-r) / (2.0 * safe), 0.0)
        if self.nu == 1.5:
            return -1.5 * np.exp(-np.sqrt(3.0) * r)
        a = np.sqrt(5.0) * r
        return -(5.0 / 6.0) * _vanishing_product(np.exp(-a), 1.0 + a)


def Matern12(lengthscale=1.0, variance=1.0, **kwargs) -> Matern:
    """Matern nu = 1/2 (exponential) kernel; see :class:`Matern`."""
    return Matern(0.5, lengthscale, variance, **kwargs)


def Matern32(lengthscale=1.0, variance=1.0, **kwargs) -> Matern:
    """Matern nu = 3/2 kernel; see :class:`Matern`."""
    return Matern(1.5, lengthscale, variance, **kwargs)


def Matern52(lengthscale=1.0, variance=1.0, **kwargs) -> Matern:
    """Matern nu = 5/2 kernel; see :class:`Matern`."""
    return Matern(2.5, lengthscale, variance, **kwargs)


class RationalQuadratic(Stationary):
    """Rational quadratic kernel: a scale mixture of SE kernels.

    ``k(x, x') = variance * (1 + r^2 / (2 alpha))^(-alpha)``; alpha -> inf gives the SE kernel.
    Parameters: ``variance``, ``lengthscale`` (or ARD), ``alpha`` (all log-stored).
    scikit-learn equivalent: ``ConstantKernel(variance) * RationalQuadratic(lengthscale, alpha)``.
    """

    name = "rq"

    def __init__(self, lengthscale=1.0, variance=1.0, alpha=1.0,
                 lengthscale_bounds=DEFAULT_BOUNDS, variance_bounds=DEFAULT_BOUNDS,
                 alpha_bounds=DEFAULT_BOUNDS, name: str | None = None):
        super().__init__(lengthscale, variance, lengthscale_bounds, variance_bounds, name,
                         extra=[("alpha", alpha, alpha_bounds)])

    @property
    def alpha(self) -> float:
        return float(np.exp(self._log_theta[-1]))

    def _g(self, s):
        return (1.0 + s / (2.0 * self.alpha)) ** (-self.alpha)

    def _dg_ds(self, s, g):
        return -0.5 * (1.0 + s / (2.0 * self.alpha)) ** (-self.alpha - 1.0)

    def _extra_gradient(self, s, out):
        # d g / d log alpha = g * (-alpha log(1 + s/(2 alpha)) + (s/2) / (1 + s/(2 alpha)))
        a = self.alpha
        base = 1.0 + s / (2.0 * a)
        with np.errstate(invalid="ignore"):  # inf / inf where s = inf; the factor is 0 there
            growing = -a * np.log(base) + 0.5 * s / base
        out[0] = self.variance * _vanishing_product(base ** (-a), growing)


class Periodic(Stationary):
    """Periodic (exp-sine-squared) kernel, isotropic.

    ``k(x, x') = variance * exp(-2 sum_k sin^2(pi (x_k - x'_k) / period) / lengthscale^2)``.
    Parameters: ``variance``, ``lengthscale``, ``period``. It is the SE kernel applied to the
    inputs mapped onto circles, hence positive semi-definite in any dimension.
    scikit-learn equivalent (1-D inputs): ``ConstantKernel(variance) * ExpSineSquared(
    lengthscale, period)`` (same formula; its lengthscale also divides the squared sine, not the
    distance). For d > 1 scikit-learn takes the sine of the Euclidean distance instead, which is
    not positive semi-definite in general, so the two differ there.
    """

    name = "periodic"

    def __init__(self, lengthscale=1.0, period=1.0, variance=1.0,
                 lengthscale_bounds=DEFAULT_BOUNDS, period_bounds=DEFAULT_BOUNDS,
                 variance_bounds=DEFAULT_BOUNDS, name: str | None = None):
        if not isinstance(lengthscale, numbers.Real) or isinstance(lengthscale, bool):
            raise TypeError("lengthscale: the periodic kernel takes a single (isotropic) "
                            f"lengthscale, got {type(lengthscale).__name__}")
        super().__init__(lengthscale, variance, lengthscale_bounds, variance_bounds, name,
                         extra=[("period", period, period_bounds)])

    @property
    def period(self) -> float:
        return float(np.exp(self._log_theta[-1]))

    def _parts(self, X, Z):
        """phase[i, j, k] = pi (x_ik - z_jk) / period, and K."""
        Z = X if Z is None else Z
        with np.errstate(over="ignore"):
            phase = (np.pi / self.period) * (X[:, None, :] - Z[None, :, :])
        if not np.all(np.isfinite(phase)):
            raise ValueError(f"X: input differences divided by the period overflow float64 "
                             f"(period {self.period:.3g}); rescale the inputs")
        sum_sin2 = np.sum(np.sin(phase) ** 2, axis=2)
        return phase, sum_sin2, self.variance * np.exp(-2.0 * sum_sin2 / self.lengthscale ** 2)

    def _K(self, X, Z):
        return self._parts(X, Z)[2]

    def _diag(self, X):
        return np.full(X.shape[0], self.variance)

    def _gradient(self, X, Z=None):
        ell2 = self.lengthscale ** 2
        phase, sum_sin2, K = self._parts(X, Z)
        dK = np.empty((3,) + K.shape)
        dK[0] = K
        dK[1] = K * 4.0 * sum_sin2 / ell2
        with np.errstate(over="ignore"):
            growing = (2.0 / ell2) * np.sum(np.sin(2.0 * phase) * phase, axis=2)
        dK[2] = _vanishing_product(K, growing)
        return K, dK

    def _gradient_inputs(self, X, Z):
        phase, _, K = self._parts(X, Z)
        scale = 2.0 * np.pi / (self.lengthscale ** 2 * self.period)
        return _vanishing_product(K, scale)[:, :, None] * np.sin(2.0 * phase)


# ---------------------------------------------------------------------------------------
# Non-stationary and trivial kernels
# ---------------------------------------------------------------------------------------
class _SingleVariance(Kernel):
    """A kernel with one parameter, ``variance``."""

    def __init__(self, variance=1.0, variance_bounds=DEFAULT_BOUNDS, name: str | None = None):
        var = np.array([check_parameter(variance, "variance")])
        self.name = name or self.name
        self._names = ("variance",)
        self._log_theta = np.log(var)
        self._log_bounds = log_bounds(variance_bounds, var, "variance")

    @property
    def variance(self) -> float:
        return float(np.exp(self._log_theta[0]))

    # K is linear in variance: dK/dlog variance = K (and the same for the diagonal).
    def _gradient(self, X, Z=None):
        K = self._K(X, Z)
        return K, K[None]

    def _gradient_diag(self, X):
        d = self._diag(X)
        return d, d[None]


class Linear(_SingleVariance):
    """Linear (dot-product) kernel ``k(x, x') = variance * x . x'``: Bayesian linear regression
    through the origin with weight prior N(0, variance I).

    scikit-learn's ``DotProduct(sigma_0)`` is ``sigma_0^2 + x . x'``, i.e. our
    ``Linear(1.0) + Constant(sigma_0**2)``.
    """

    name = "linear"

    def _K(self, X, Z):
        with np.errstate(over="ignore", invalid="ignore"):
            K = self.variance * (X @ (X if Z is None else Z).T)
        if not np.all(np.isfinite(K)):
            raise ValueError(f"X: inner products of the inputs overflow float64 (largest |x| "
                             f"{np.abs(X).max():.3g}); rescale the inputs")
        return K

    def _diag(self, X):
        return self.variance * np.einsum("ij,ij->i", X, X)

    def _gradient_inputs(self, X, Z):
        return np.broadcast_to(self.variance * X[:, None, :],
                               (X.shape[0], Z.shape[0], X.shape[1])).copy()


class Constant(_SingleVariance):
    """Constant kernel ``k(x, x') = variance``: an unknown offset with prior N(0, variance)."""

    name = "constant"

    def _K(self, X, Z):
        return np.full((X.shape[0], X.shape[0] if Z is None else Z.shape[0]), self.variance)

    def _diag(self, X):
        return np.full(X.shape[0], self.variance)

    def _gradient_inputs(self, X, Z):
        return np.zeros((X.shape[0], Z.shape[0], X.shape[1]))


class White(_SingleVariance):
    """White-noise kernel: ``White(X) = variance * I``; ``White(X, X2) = 0`` (see module doc).

    scikit-learn equivalent: ``WhiteKernel(noise_level=variance)``.
    """

    name = "white"

    def _K(self, X, Z):
        if Z is None:
            return self.variance * np.eye(X.shape[0])
        return np.zeros((X.shape[0], Z.shape[0]))

    def _diag(self, X):
        return np.full(X.shape[0], self.variance)

    def _gradient_inputs(self, X, Z):
        return np.zeros((X.shape[0], Z.shape[0], X.shape[1]))


#: The families :func:`make_kernel` builds by name, in the order of lecture 04's menu.
KERNEL_FAMILIES = ("squared exponential", "Matern 1/2", "Matern 3/2", "Matern 5/2",
                   "rational quadratic", "periodic", "linear")


def make_kernel(family: str, lengthscale: float = 1.0, variance: float = 1.0):
    """A kernel by the name of its family, as lecture 04's menu shows it: "squared exponential",
    "Matern 1/2", "Matern 3/2", "Matern 5/2", "rational quadratic" (alpha = 1), "periodic"
    (period 2) or "linear" (which has no lengthscale)."""
    check_choice(family, "family", KERNEL_FAMILIES)
    if family == "linear":
        return Linear(variance)
    if family == "periodic":
        return Periodic(lengthscale, period=2.0, variance=variance)
    if family == "rational quadratic":
        return RationalQuadratic(lengthscale, variance, alpha=1.0)
    factory = {"squared exponential": SquaredExponential, "Matern 1/2": Matern12,
               "Matern 3/2": Matern32, "Matern 5/2": Matern52}[family]
    return factory(lengthscale, variance)
