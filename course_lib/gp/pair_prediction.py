"""Predictions about pairs of settings under a latent GP: the difference f(a) - f(b).

Apart from :mod:`course_lib.gp.preference` because every model of comparisons (the preference
GP, its sparse form, the confidence-rating GP of :mod:`course_lib.gp.confidence`) predicts a
difference the same way: it is a linear functional of f, so one prediction with the kernel
differences gives its mean and variance (J. B. Nielsen 2015, eqs. 2.14-2.16), and the pairs'
own kernel values k(a_i, b_i) come in chunks, never as a full matrix.
"""

from __future__ import annotations

import numpy as np

from .inputs import _as_inputs
from .kernel_algebra import Kernel
from .prediction import LatentGaussian

__all__ = ["latent_difference"]

# rows of test pairs handled per kernel call in _paired_kernel (memory stays O(chunk n))
_PAIR_CHUNK = 1024


def _paired_kernel(kernel: Kernel, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """k(a_i, b_i) for every row i, in chunks (never the full len(A) x len(B) matrix)."""
    out = np.empty(A.shape[0])
    for start in range(0, A.shape[0], _PAIR_CHUNK):
        stop = start + _PAIR_CHUNK
        out[start:stop] = np.diag(kernel(A[start:stop], B[start:stop]))
    return out


def latent_difference(kernel: Kernel, X_train: np.ndarray, posterior: LatentGaussian, Xa, Xb
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and variance of d_i = f(Xa_i) - f(Xb_i) for paired rows, under a
    ``posterior`` of f at ``X_train``. The difference is a linear functional of f, so
    ``K* = k(X, Xa) - k(X, Xb)`` and ``k** = k_aa + k_bb - 2 k_ab`` give it in one prediction,
    without any len(Xa) x len(Xa) covariance."""
    d = X_train.shape[1]
    Xa, Xb = _as_inputs(Xa, "Xa", d), _as_inputs(Xb, "Xb", d)
    if Xa.shape[0] != Xb.shape[0]:
        raise ValueError(f"Xb: expected {Xa.shape[0]} rows (one per row of Xa), got "
                         f"{Xb.shape[0]}")
    K_cross = kernel(X_train, Xa) - kernel(X_train, Xb)
    k_test = kernel.diag(Xa) + kernel.diag(Xb) - 2.0 * _paired_kernel(kernel, Xa, Xb)
    return posterior.predict(K_cross, np.maximum(k_test, 0.0))
