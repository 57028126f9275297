"""Where the inducing points sit (lecture 07, section 4; Wu et al. 2025, section 2 and App. A).

A sparse model can only bend where its inducing points let it. Wu et al. (2025) put 100
scrambled Sobol points over the domain **plus one at every constraint location**: a constraint
between inducing points, held with a tiny sd, must be met by moving the values at its
neighbours, which carry the rest of the function too, and the fit turns rigid.
:func:`inducing_points` places Z that way for
:class:`~course_lib.mixed.sparse_variational.SparseVariationalGP`, which takes its inducing
points as given (as every sparse model of the course does, :mod:`course_lib.gp.sparse`).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import qmc

from ..validation import (RngLike, check_array_size, as_float_array, as_positive_int,
                          as_rng, check_width)
from ..gp.kernel_base import as_inputs

__all__ = ["inducing_points"]


def inducing_points(bounds, n: int, *, include=None, rng: RngLike = None) -> np.ndarray:
    """``n`` scrambled Sobol points in the box ``bounds`` (d x 2, rows (low, high)), followed by
    the rows of ``include`` (k x d; Wu et al. 2025 put an inducing point at every constraint
    location, without which its mixed model is "inflexible"). Returns an (n + k, d) array.
    ``n`` may be 0 when ``include`` is given; ``rng`` scrambles the Sobol sequence. Sobol points
    are best balanced when n is a power of two, but Wu et al.'s 100 are accepted."""
    bounds = as_float_array(bounds, "bounds", ndim=2)
    if bounds.shape[1] != 2 or np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError(f"bounds: expected a (d, 2) array of (low, high) rows with low < high, "
                         f"got {bounds.tolist()}")
    check_width(bounds[:, 0], bounds[:, 1], "bounds")
    d = bounds.shape[0]
    extra = np.empty((0, d)) if include is None else as_inputs(include, "include", d)
    n = as_positive_int(n, "n", minimum=0 if extra.shape[0] else 1)
    check_array_size((n + extra.shape[0], d), "n", "the inducing points",
                     "a sparse model needs tens to a few thousand inducing points (the "
                     "level-set sessions use 100)")
    sobol = qmc.Sobol(d, rng=as_rng(rng))
    with warnings.catch_warnings():  # Wu et al.'s n = 100 is not a power of two
        warnings.filterwarnings("ignore", message="The balance properties of Sobol")
        points = qmc.scale(sobol.random(n), bounds[:, 0], bounds[:, 1]) if n else np.empty((0, d))
    return np.vstack([points, extra])
