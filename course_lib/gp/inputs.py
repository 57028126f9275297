"""The inputs of every GP model: rows are points, and the size limit of an exact GP.

``X`` is a 2-D array whose rows are points, shape ``(n, d)``; a 1-D array of length n is n points
in one dimension (:func:`as_inputs`). An exact GP forms n x n matrices, so
:func:`check_exact_size` refuses, naming the argument, an n that would not fit in memory before
anything is allocated. They sit apart from the kernel formulas of :mod:`course_lib.gp.kernels`
(Rasmussen & Williams 2006, ch. 4) because every kernel and every model of ``gp`` checks its
inputs with them, and so do the GP models of the later units (raters, preferences, mixed
feedback) and what drives them.
"""

from __future__ import annotations

import numpy as np

from ..validation import as_float_array, check_array_size


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
