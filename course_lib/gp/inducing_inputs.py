"""Choosing the inducing inputs of a sparse GP from the data.

Every sparse model of the course (:mod:`course_lib.gp.sparse` after Titsias 2009,
:mod:`course_lib.gp.sparse_preference`, :mod:`course_lib.gp.sparse_variational`) takes its
inducing inputs Z as given; this picks a starting Z from the rows of X, at random or as k-means
centroids (Arthur & Vassilvitskii 2007 seeding), apart from the bounds that then use or move it.
"""

from __future__ import annotations

import numpy as np

from ..kmeans import _check_spread, _kmeans_trusted
from ..validation import RngLike, _as_positive_int, _as_rng, _check_choice
from .inputs import _as_inputs

__all__ = ["select_inducing_inputs"]


def select_inducing_inputs(X, n_inducing: int, *, method: str = "random",
                           rng: RngLike = None) -> np.ndarray:
    """Pick M inducing inputs from the data.

    method "random": M distinct rows of X drawn uniformly without replacement.
    method "kmeans": the M centroids of :func:`course_lib.kmeans.kmeans` (k-means++ seeding),
    which spreads them over the data in proportion to its density.
    X : (N, D). Returns Z : (M, D), sorted by its first column for readable plots.
    M must not exceed the number of distinct rows of X.
    """
    X = _as_inputs(X, "X")
    n_inducing = _as_positive_int(n_inducing, "n_inducing")
    _check_choice(method, "method", {"random", "kmeans"})
    rng = _as_rng(rng)
    distinct = np.unique(X, axis=0)
    if n_inducing > distinct.shape[0]:
        raise ValueError(f"n_inducing: {n_inducing} inducing inputs chosen from the data need "
                         f"as many distinct rows, X has {distinct.shape[0]}")
    if method == "random":
        Z = distinct[rng.choice(distinct.shape[0], n_inducing, replace=False)]
    else:
        _check_spread(X)   # what kmeans alone checks, in its words
        Z = _kmeans_trusted(X, n_inducing, rng).centroids
    return Z[np.argsort(Z[:, 0], kind="stable")]
