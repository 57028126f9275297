"""The machinery shared by stationary kernels k(x, x') = variance * g(s), s = r^2 the scaled
squared distance.

A stationary kernel of :mod:`course_lib.gp.kernels` gives only its profile ``g(s)`` and
``dg/ds`` (Rasmussen & Williams 2006, §4.2: SE eq. 4.9, Matern eq. 4.14, RQ eq. 4.19). This
module turns them into what the :class:`~course_lib.gp.kernel_base.Kernel` interface asks
for: the scaled squared distance with isotropic or ARD lengthscales, the kernel matrix and its
diagonal, and the chain rule through ``s`` to the gradients in the log-parameters
(``ds/dlog ell = -2 s``) and in the inputs (``ds/dz_k = 2 (z_k - x_k) / ell_k^2``). A reader of
the formulas need not open it.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.spatial.distance import cdist

from .kernel_base import Kernel
from .parameters import DEFAULT_BOUNDS, check_parameter, log_bounds, _positive_vector

__all__ = ["Stationary"]


def _vanishing_product(factor: np.ndarray, growing: np.ndarray) -> np.ndarray:
    """``factor * growing`` with 0 where ``factor`` is exactly 0.

    Far-apart inputs give a kernel factor that underflows to 0 next to a distance that
    overflows to inf; the product's limit there is 0 (every kernel of ``gp.kernels`` decays
    faster than the distance grows), where IEEE arithmetic would give NaN.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        product = factor * growing
    return np.where(factor == 0.0, 0.0, product)


class Stationary(Kernel):
    """Shared machinery for kernels of the scaled squared distance ``s = r^2``.

    ``lengthscale`` a scalar gives the isotropic kernel; a vector of length d gives ARD
    (automatic relevance determination: one lengthscale per input dimension).
    Subclasses define ``_g(s)`` and ``_dg_ds(s)``, and may add extra parameters after
    ``variance`` and the lengthscale(s) via ``_extra_*`` hooks.
    """

    def __init__(self, lengthscale=1.0, variance=1.0, lengthscale_bounds=DEFAULT_BOUNDS,
                 variance_bounds=DEFAULT_BOUNDS, name: str | None = None, extra=()):
        ell = _positive_vector(lengthscale, "lengthscale")
        var = np.array([check_parameter(variance, "variance")])
        self.ard = not (isinstance(lengthscale, numbers.Real) and not isinstance(lengthscale, bool))
        self.name = name or self.name
        names = ["variance"] + (["lengthscale"] if not self.ard
                                else [f"lengthscale_{k}" for k in range(ell.size)])
        values = [np.log(var), np.log(ell)]
        bounds = [log_bounds(variance_bounds, var, "variance"),
                  log_bounds(lengthscale_bounds, ell, "lengthscale")]
        for extra_name, value, extra_bounds in extra:
            v = np.array([check_parameter(value, extra_name)])
            names.append(extra_name)
            values.append(np.log(v))
            bounds.append(log_bounds(extra_bounds, v, extra_name))
        self._names = tuple(names)
        self._n_ell = ell.size
        self._log_theta = np.concatenate(values)
        self._log_bounds = np.vstack(bounds)

    @property
    def variance(self) -> float:
        return float(np.exp(self._log_theta[0]))

    @property
    def lengthscale(self) -> np.ndarray | float:
        ell = np.exp(self._log_theta[1:1 + self._n_ell])
        return ell if self.ard else float(ell[0])

    def _input_dim(self):
        return self._n_ell if self.ard else None

    def _scaled_sqdist(self, X, Z):
        ell = np.exp(self._log_theta[1:1 + self._n_ell])
        with np.errstate(over="ignore"):  # checked just below
            Xs = X / ell
            Zs = Xs if Z is None else Z / ell
        if not (np.all(np.isfinite(Xs)) and np.all(np.isfinite(Zs))):
            largest = max(np.abs(X).max(), 0.0 if Z is None else np.abs(Z).max())
            raise ValueError(f"X: inputs divided by the lengthscale overflow float64 (largest "
                             f"|x| {largest:.3g}, lengthscale {ell.min():.3g}); rescale the "
                             "inputs")
        # far-apart points may give inf here: exp(-inf) = 0 is the right kernel value
        return cdist(Xs, Zs, "sqeuclidean")

    def _K(self, X, Z):
        return self.variance * self._g(self._scaled_sqdist(X, Z))

    def _diag(self, X):
        return np.full(X.shape[0], self.variance * float(self._g(np.zeros(1))[0]))

    def _gradient(self, X, Z=None):
        s = self._scaled_sqdist(X, Z)
        g = self._g(s)
        K = self.variance * g
        dK = np.empty((self.n_params,) + K.shape)
        dK[0] = K
        dK_ds = self.variance * self._dg_ds(s)
        if self.ard:  # ds/dlog ell_k = -2 (x_k - x'_k)^2 / ell_k^2
            ell = np.exp(self._log_theta[1:1 + self._n_ell])
            Z = X if Z is None else Z
            for k in range(self._n_ell):
                with np.errstate(over="ignore"):
                    scaled = ((X[:, k, None] - Z[None, :, k]) / ell[k]) ** 2
                dK[1 + k] = -2.0 * _vanishing_product(dK_ds, scaled)
        else:  # ds/dlog ell = -2 s
            dK[1] = -2.0 * _vanishing_product(dK_ds, s)
        self._extra_gradient(s, dK[1 + self._n_ell:])
        return K, dK

    def _extra_gradient(self, s, out):
        """Fill derivatives w.r.t. extra log-parameters (none by default)."""

    def _gradient_diag(self, X):
        # k(x, x) = variance * g(0): only the variance moves it.
        d = self._diag(X)
        dd = np.zeros((self.n_params, X.shape[0]))
        dd[0] = d
        return d, dd

    def _gradient_inputs(self, X, Z):
        ell = np.exp(self._log_theta[1:1 + self._n_ell])
        s = self._scaled_sqdist(X, Z)
        # ds/dz_k = 2 (z_k - x_k) / ell_k^2
        with np.errstate(over="ignore"):
            diff = (Z[None, :, :] - X[:, None, :]) / ell ** 2
        return _vanishing_product((2.0 * self.variance * self._dg_ds(s))[:, :, None], diff)
