"""The ``Kernel`` interface every covariance function implements, and the algebra of kernels.

What the base class does for every kernel of :mod:`course_lib.gp.kernels`: it checks the inputs
(:mod:`course_lib.gp.inputs`), holds the log-parameters
(:class:`~course_lib.gp.parameters.LogParameters`) and builds sums and products, whose
parameters are those of their parts (Rasmussen & Williams 2006, §4.2.4). A reader of the kernel
formulas need not open it; it sits apart so that ``kernels`` holds the formulas alone.

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

import numpy as np

from .inputs import as_inputs, check_exact_size
from .parameters import LogParameters

__all__ = ["Kernel", "Sum", "Product"]


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
