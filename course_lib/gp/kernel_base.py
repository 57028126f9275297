"""The ``Kernel`` interface every covariance function implements, the algebra of kernels, the
machinery of the stationary ones, and the inputs of every GP model.

What the base class does for every kernel of :mod:`course_lib.gp.kernels`: it checks the inputs
(:func:`as_inputs`, :func:`check_exact_size`, below), holds the log-parameters
(:class:`~course_lib.gp.parameters.LogParameters`) and builds sums and products, whose
parameters are those of their parts (Rasmussen & Williams 2006, §4.2.4). A reader of the kernel
formulas in ``kernels`` need not open it.

The inputs of every GP model: ``X`` is a 2-D array whose rows are points, shape ``(n, d)``; a
1-D array of length n is n points in one dimension (:func:`as_inputs`). An exact GP forms
n x n matrices, so :func:`check_exact_size` refuses, naming the argument, an n that would not
fit in memory before anything is allocated. Every kernel and every GP model checks its inputs
with them, the models of the later units (raters, preferences, mixed feedback) included.

The stationary kernels k(x, x') = variance * g(s), s = r^2 the scaled squared distance
(:class:`Stationary`): a kernel of :mod:`course_lib.gp.kernels` gives only its profile ``g(s)``
and ``dg/ds`` (Rasmussen & Williams 2006, §4.2: SE eq. 4.9, Matern eq. 4.14, RQ eq. 4.19);
:class:`Stationary` turns them into what the interface asks for: the scaled squared distance
with isotropic or ARD lengthscales, the kernel matrix and its diagonal, and the chain rule
through ``s`` to the gradients in the log-parameters (``ds/dlog ell = -2 s``) and in the inputs
(``ds/dz_k = 2 (z_k - x_k) / ell_k^2``).

The squared exponential (:class:`SquaredExponential`, R&W eq. 4.9), the kernel every lecture and
model starts from, is the one formula kept here, beside the machinery it fills in: a model
fitted with it runs this file and no other of the kernels (``kernels``, which holds the rest,
re-exports it, so ``course_lib.gp.kernels.SquaredExponential`` still works).

The interface that the rest of the package (regression, sparse, Laplace, ...) relies on
--------------------------------------------------------------------------------------
``kernel(X, X2=None)``
    Kernel matrix ``K[i, j] = k(x_i, x2_j)``, shape ``(n, m)`` (``(n, n)`` when ``X2`` is None).
``kernel.diag(X)``
    ``k(x_i, x_i)``, shape ``(n,)``, without forming the matrix.
``kernel.gradient(X, X2=None)``
    ``(K, dK)`` with ``dK[p] = dK / d theta_p`` of shape ``(n_params, n, m)``; derivatives are
    taken with respect to the LOG parameters (``dK/dlog ell = ell * dK/dell``). The cross form
    ``gradient(X, Z)`` is what inducing-point methods need (no (n + m)^2 detour).
``kernel.gradient_diag(X)``
    ``(diag K, d diag K)`` with shapes ``(n,)`` and ``(n_params, n)``, without forming matrices.
``kernel.gradient_inputs(X, Z)``
    Derivative of ``K(X, Z)`` with respect to its SECOND argument: an array ``G`` of shape
    ``(n, m, d)`` with ``G[i, j, k] = d k(x_i, z_j) / d z_jk`` (the derivative of entry (i, j)
    with respect to coordinate k of z_j; every other entry of column j does not depend on z_j).
    Chain rule for an objective ``F(K(X, Z))`` with ``A = dF/dK(X, Z)``:
    ``dF/dZ = einsum('ij,ijk->jk', A, G)``. For ``K(Z, Z)`` and a SYMMETRIC ``A = dF/dK(Z, Z)``:
    ``dF/dZ = 2 * einsum('ij,ijk->jk', A, gradient_inputs(Z, Z))`` (both arguments move;
    the diagonal entries are included by the same formula because k is symmetric).
    For the Matern 1/2 kernel, which is not differentiable at r = 0, the value there is 0.
``k1 + k2``, ``k1 * k2``
    Sums and products; their ``param_names`` are ``"<kernel name>.<parameter>"`` (names made
    unique by ``_1``, ``_2`` suffixes) and ``theta`` is the concatenation in reading order.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.spatial.distance import cdist

from ..validation import as_float_array, check_array_size
from .parameters import (DEFAULT_BOUNDS, LogParameters, _positive_vector, check_parameter,
                         log_bounds)

__all__ = ["Kernel", "Sum", "Product", "Stationary", "SquaredExponential", "as_inputs",
           "check_exact_size"]


#: what to do instead of an exact GP whose n x n kernel matrix is too large
_EXACT_GP_ADVICE = ("use the sparse model (course_lib.gp.sparse.fit_sparse_gp for regression, "
                   "SparseVariationalGP otherwise, with a few hundred inducing points) or fit "
                   "a subset of the rows")


def as_inputs(X, name: str = "X", dim: int | None = None) -> np.ndarray:
    """Return ``X`` as a finite float array of shape ``(n, d)`` (rows are points).

    A 1-D array is one-dimensional inputs. ``dim`` (if given) is the required number of columns.
    Errors name the argument ``name``.
    """
    X = as_float_array(X, name, ndim=(1, 2))
    if X.ndim == 1:
        X = X[:, None]
    if dim is not None and X.shape[1] != dim:
        raise ValueError(f"{name}: expected {dim} column(s) (one per input dimension), "
                         f"got shape {X.shape}")
    return X


def check_exact_size(n: int, name: str, m: int | None = None, *, what: str | None = None,
                     advice: str = _EXACT_GP_ADVICE) -> None:
    """Refuse, naming ``name``, an n x m (default n x n) kernel or covariance matrix beyond
    course_lib's size limit (:func:`course_lib.validation.check_array_size`) before it is
    allocated: an exact GP on 10^6 points would need 7.3 TiB."""
    m = n if m is None else m
    check_array_size((n, m), name, what or "the kernel matrix of an exact GP", advice)


class Kernel(LogParameters):
    """Base class: checks and composition; its log-parameters are held as
    :class:`~course_lib.gp.parameters.LogParameters` (``theta``, ``bounds``, ``with_theta``).

    Subclasses implement ``_K(X, Z)``, ``_diag(X)``, ``_gradient(X, Z) -> (K, dK)``,
    ``_gradient_diag(X)`` and ``_gradient_inputs(X, Z)`` on already-checked 2-D arrays, and
    list their parameters in ``_names`` (values in ``_log_theta``, log-bounds in
    ``_log_bounds``).
    """

    name = "kernel"

    # ----- public evaluation (checks inputs, then calls the subclass) -------------------
    def _check_pair(self, X, X2):
        X = as_inputs(X, "X", self._input_dim())
        if X2 is None:
            return X, None
        return X, as_inputs(X2, "X2", X.shape[1])

    def _input_dim(self) -> int | None:
        return None

    def __call__(self, X, X2=None) -> np.ndarray:
        """Kernel matrix ``K[i, j] = k(X[i], X2[j])``, shape ``(n, m)``; ``X2=None`` means X."""
        X, X2 = self._check_pair(X, X2)
        check_exact_size(X.shape[0], "X", X.shape[0] if X2 is None else X2.shape[0],
                         what="the kernel matrix")
        return self._K(X, X2)

    def diag(self, X) -> np.ndarray:
        """``k(x_i, x_i)`` for every row of X, shape ``(n,)``."""
        return self._diag(as_inputs(X, "X", self._input_dim()))

    def gradient(self, X, X2=None) -> tuple[np.ndarray, np.ndarray]:
        """``(K, dK)``: K(X, X2) and ``dK[p] = dK/dtheta_p`` (log-parameters), ``(P, n, m)``."""
        X, X2 = self._check_pair(X, X2)
        return self._gradient(X, X2)

    def gradient_diag(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(d, dd)``: ``d_i = k(x_i, x_i)`` and ``dd[p, i] = d d_i / d theta_p``, ``(P, n)``."""
        return self._gradient_diag(as_inputs(X, "X", self._input_dim()))

    def gradient_inputs(self, X, Z) -> np.ndarray:
        """``G[i, j, k] = d k(x_i, z_j) / d z_jk``, shape ``(n, m, d)`` (see module docstring)."""
        X = as_inputs(X, "X", self._input_dim())
        return self._gradient_inputs(X, as_inputs(Z, "Z", X.shape[1]))

    # ----- composition ------------------------------------------------------------------
    def __add__(self, other: "Kernel") -> "Kernel":
        if not isinstance(other, Kernel):
            return NotImplemented
        return Sum(self, other)

    def __mul__(self, other: "Kernel") -> "Kernel":
        if not isinstance(other, Kernel):
            return NotImplemented
        return Product(self, other)

    def _leaves(self) -> list["Kernel"]:
        return [self]

    def __repr__(self) -> str:
        inside = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        return f"{type(self).__name__}({inside})"


class _Combination(Kernel):
    """A binary sum or product; its parameters are those of k1 followed by those of k2."""

    def __init__(self, k1: Kernel, k2: Kernel):
        for arg, k in (("k1", k1), ("k2", k2)):
            if not isinstance(k, Kernel):
                raise TypeError(f"{arg}: expected a Kernel, got {type(k).__name__}")
        self.k1, self.k2 = k1, k2
        self.name = f"({k1.name}{self._symbol}{k2.name})"

    def _leaves(self):
        return self.k1._leaves() + self.k2._leaves()

    @property
    def theta(self):
        return np.concatenate([self.k1.theta, self.k2.theta])

    @property
    def bounds(self):
        return np.vstack([self.k1.bounds, self.k2.bounds])

    @property
    def param_names(self):
        leaves = self._leaves()
        labels = [leaf.name for leaf in leaves]
        counts = {label: labels.count(label) for label in labels}
        seen: dict[str, int] = {}
        names = []
        for leaf, label in zip(leaves, labels):
            if counts[label] > 1:
                seen[label] = seen.get(label, 0) + 1
                label = f"{label}_{seen[label]}"
            names.extend(f"{label}.{p}" for p in leaf.param_names)
        return tuple(names)

    def _set_theta(self, theta):
        n1 = self.k1.n_params
        self.k1 = self.k1.with_theta(theta[:n1])
        self.k2 = self.k2.with_theta(theta[n1:])

    def _input_dim(self):
        dims = {k._input_dim() for k in (self.k1, self.k2)} - {None}
        return dims.pop() if len(dims) == 1 else None

    def __repr__(self):
        return f"({self.k1!r} {self._symbol} {self.k2!r})"


class Sum(_Combination):
    """``k(x, x') = k1(x, x') + k2(x, x')``."""

    _symbol = "+"

    def _K(self, X, Z):
        return self.k1._K(X, Z) + self.k2._K(X, Z)

    def _diag(self, X):
        return self.k1._diag(X) + self.k2._diag(X)

    def _gradient(self, X, Z=None):
        K1, dK1 = self.k1._gradient(X, Z)
        K2, dK2 = self.k2._gradient(X, Z)
        return K1 + K2, np.concatenate([dK1, dK2])

    def _gradient_diag(self, X):
        d1, dd1 = self.k1._gradient_diag(X)
        d2, dd2 = self.k2._gradient_diag(X)
        return d1 + d2, np.concatenate([dd1, dd2])

    def _gradient_inputs(self, X, Z):
        return self.k1._gradient_inputs(X, Z) + self.k2._gradient_inputs(X, Z)


class Product(_Combination):
    """``k(x, x') = k1(x, x') * k2(x, x')``."""

    _symbol = "*"

    def _K(self, X, Z):
        return self.k1._K(X, Z) * self.k2._K(X, Z)

    def _diag(self, X):
        return self.k1._diag(X) * self.k2._diag(X)

    def _gradient(self, X, Z=None):
        K1, dK1 = self.k1._gradient(X, Z)
        K2, dK2 = self.k2._gradient(X, Z)
        return K1 * K2, np.concatenate([dK1 * K2, K1 * dK2])

    def _gradient_diag(self, X):
        d1, dd1 = self.k1._gradient_diag(X)
        d2, dd2 = self.k2._gradient_diag(X)
        return d1 * d2, np.concatenate([dd1 * d2, d1 * dd2])

    def _gradient_inputs(self, X, Z):
        K1, K2 = self.k1._K(X, Z), self.k2._K(X, Z)
        return (self.k1._gradient_inputs(X, Z) * K2[:, :, None]
                + K1[:, :, None] * self.k2._gradient_inputs(X, Z))


# --------------------------------------------------------------------------------------------
# The stationary kernels' machinery: the scaled squared distance and the chain rule through it
# --------------------------------------------------------------------------------------------
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
    Subclasses define ``_g(s)`` and ``_dg_ds(s, g)`` (``g``: ``_g(s)`` when the caller has it,
    else None), and may add extra parameters after ``variance`` and the lengthscale(s) via
    ``_extra_*`` hooks.
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
        dK = np.empty((self._log_theta.size,) + K.shape)  # one per log-parameter
        dK[0] = K
        dK_ds = self.variance * self._dg_ds(s, g)
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
        dd = np.zeros((self._log_theta.size, X.shape[0]))
        dd[0] = d
        return d, dd

    def _gradient_inputs(self, X, Z):
        ell = np.exp(self._log_theta[1:1 + self._n_ell])
        s = self._scaled_sqdist(X, Z)
        # ds/dz_k = 2 (z_k - x_k) / ell_k^2
        with np.errstate(over="ignore"):
            diff = (Z[None, :, :] - X[:, None, :]) / ell ** 2
        return _vanishing_product((2.0 * self.variance * self._dg_ds(s, None))[:, :, None], diff)


# --------------------------------------------------------------------------------------------
# The squared exponential: the stationary kernel every model starts from (module docstring)
# --------------------------------------------------------------------------------------------
class SquaredExponential(Stationary):
    """Squared exponential (RBF) kernel, isotropic or ARD.

    ``k(x, x') = variance * exp(-r^2 / 2)``, ``r^2 = sum_k (x_k - x'_k)^2 / lengthscale_k^2``.
    Parameters (log-stored): ``variance``, ``lengthscale`` (or ``lengthscale_0..d-1`` for ARD).
    scikit-learn equivalent: ``ConstantKernel(variance) * RBF(lengthscale)``.
    """

    name = "se"

    def _g(self, s):
        """Lecture 04, section 1 (From Bayesian linear regression to a prior over functions)."""
        return np.exp(-0.5 * s)

    def _dg_ds(self, s, g):
        # g' = -g / 2: the gradient reuses the kernel's own exp instead of a second one
        return -0.5 * (np.exp(-0.5 * s) if g is None else g)
