"""A Gaussian held by its mean and lower-triangular square root, N(m, S S^T): how the sparse
variational fit of :mod:`course_lib.mixed.sparse_variational` takes and optimises its whitened
q(v) = N(m, S S^T).

Two things a reader of the bound need not open: the checks of a given (m, S) at the border
(:func:`_check_mean`, :func:`_check_root`: one value per inducing point; S lower triangular with
a positive diagonal), and :class:`_TriangularPacking`, the one vector L-BFGS moves: m, then the
lower triangle of S row by row with its diagonal as logs (so it stays positive), each log kept
within ``_LOG_DIAGONAL_BOUNDS``, and the gradient in that vector from the gradients in m and S
(d/dlog S_ii = S_ii d/dS_ii).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds

from ..validation import as_float_array, check_length

# L-BFGS keeps log S_ii within these bounds (S_ii from 4e-18 to 150; with a log-concave
# likelihood the optimal q(v) is no wider than the prior N(0, I), i.e. S_ii <= 1).
_LOG_DIAGONAL_BOUNDS = (-40.0, 5.0)


def _check_root(S, name: str, p: int) -> np.ndarray:
    S = as_float_array(S, name, ndim=2)
    if S.shape != (p, p):
        raise ValueError(f"{name}: expected shape ({p}, {p}) (one row and column per inducing "
                         f"point), got {S.shape}")
    if np.any(np.triu(S, 1)) or np.any(np.diag(S) <= 0):
        raise ValueError(f"{name}: expected a lower-triangular square root S with a positive "
                         "diagonal (q(v) = N(m, S S^T))")
    return S


def _check_mean(m, name: str, p: int) -> np.ndarray:
    return check_length(as_float_array(m, name, ndim=1), name, p, "inducing point")


class _TriangularPacking:
    """(m, S) of p inducing points as one vector and back (module docstring)."""

    def __init__(self, p: int):
        self.p = p
        self.lower = np.tril_indices(p)
        self.on_diagonal = self.lower[0] == self.lower[1]

    def pack(self, m, S) -> np.ndarray:
        """The vector of (m, S), log S_ii clipped to ``_LOG_DIAGONAL_BOUNDS``."""
        packed = S[self.lower].copy()
        packed[self.on_diagonal] = np.log(np.diag(S))
        packed[self.on_diagonal] = np.clip(packed[self.on_diagonal], *_LOG_DIAGONAL_BOUNDS)
        return np.concatenate([m, packed])

    def unpack(self, x) -> tuple[np.ndarray, np.ndarray]:
        """(m, S) from the vector ``x``."""
        root = np.zeros((self.p, self.p))
        values = x[self.p:].copy()
        values[self.on_diagonal] = np.exp(values[self.on_diagonal])
        root[self.lower] = values
        return x[:self.p], root

    def gradient(self, grad_m, grad_S, S) -> np.ndarray:
        """The gradient in the vector from d/dm and d/dS (lower triangle) at S."""
        grad_root = grad_S[self.lower]
        grad_root[self.on_diagonal] *= np.diag(S)  # d/dlog S_ii = S_ii d/dS_ii
        return np.concatenate([grad_m, grad_root])

    def bounds(self) -> Bounds:
        """L-BFGS-B's bounds: free m and off-diagonal entries, log S_ii within the bounds."""
        size = self.p + self.lower[0].size
        low, high = np.full(size, -np.inf), np.full(size, np.inf)
        low[self.p:][self.on_diagonal], high[self.p:][self.on_diagonal] = _LOG_DIAGONAL_BOUNDS
        return Bounds(low, high)
