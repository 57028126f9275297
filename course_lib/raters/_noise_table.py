"""The noise cells of GPR-MA and GPR-MANH: the table of noise variances and its bookkeeping.

In the annotator model (Gil-González, Álvarez & Orozco 2019; ``raters.annotator_noise``) every
label has the noise variance s_j of its cell j: its annotator (GPR-MA) or its (region,
annotator) pair (GPR-MANH). Here is what the model needs around that table but a student need
not read to follow its evidence: the bounds and the floor of every variance, the starting table,
the names of the variances, the refusal of cells with fewer than 2 labels, and the diagnostics
of the variances that end at the floor.

Boundaries. An annotator who is noise-free in a region (the toy's Lambda has a zero diagonal)
has its ML-II variance at s_j -> 0; the evidence stays bounded because the GP prior and the
other annotators keep K + Sigma positive definite. Every variance therefore has a documented
lower bound ``noise_floor`` (default :data:`NOISE_FLOOR`; upper bound :data:`_NOISE_CEILING`) or a
prior, and a fitted model reports which variances sit at the floor (``at_floor_``,
``floor_summary()``): their value is the floor, not an estimate. A cell with a
single label would collapse the same way for no good reason (the posterior mean can move onto
that label), so every cell needs at least 2 labels: fewer is refused (``ValueError`` naming
``data`` for an annotator, ``regions`` for a (region, annotator) cell);
:func:`~course_lib.raters.regions.assign_regions` can merge small regions (``min_size``).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ..validation import as_float_array, as_positive_float
from ..gp.kernel_base import Kernel
from ..gp.priors import Prior
from ..rater_data import RaterData
from ._model_input import _as_items_and_ratings, _as_rater_data
from ..gp.regression import NOISE_BOUNDS

__all__ = ["NOISE_FLOOR", "floor_summary"]

#: Default lower bound of every noise variance (state it beside any result it shapes).
NOISE_FLOOR = 1e-4
#: Upper bound of every noise variance (GPRegression's).
_NOISE_CEILING = NOISE_BOUNDS[1]
#: A variance counts as "at the floor" up to this factor above it.
_AT_FLOOR_FACTOR = 1.01


def _check_groups(groups, n_labels: int, n_groups: int) -> np.ndarray:
    """The noise cell of every label as whole numbers 0..n_groups-1 (errors name ``groups``)."""
    groups = as_float_array(groups, "groups", ndim=1)
    if groups.shape != (n_labels,):
        raise ValueError(f"groups: expected one noise cell per label ({n_labels}), got "
                         f"{groups.size}")
    if np.any(groups != np.round(groups)) or np.any(groups < 0) or np.any(groups >= n_groups):
        raise ValueError(f"groups: expected whole numbers 0..{n_groups - 1} (one per noise "
                         "variance)")
    return groups.astype(np.int64)


def _check_evidence_arguments(K, data, noise_variances, groups, dK):
    """The arguments of ``annotator_evidence``, checked: ``(K, data, noise_variances,
    groups, dK)`` with K (N, N), positive variances, one whole-number cell per label and dK
    (P, N, N) or None."""
    data = _as_rater_data(data)
    K = as_float_array(K, "K", ndim=2)
    if K.shape != (data.n_items, data.n_items):
        raise ValueError(f"K: expected shape ({data.n_items}, {data.n_items}) (one row per "
                         f"item of data), got {K.shape}")
    noise_variances = as_float_array(noise_variances, "noise_variances", ndim=1)
    if np.any(noise_variances <= 0):
        raise ValueError("noise_variances: every noise variance must be > 0")
    groups = _check_groups(groups, data.n_labels, noise_variances.size)
    if dK is not None:
        dK = as_float_array(dK, "dK", ndim=3, allow_empty=True)
        if dK.shape[1:] != K.shape:
            raise ValueError(f"dK: expected shape (P, {K.shape[0]}, {K.shape[1]}), got "
                             f"{dK.shape}")
    return K, data, noise_variances, groups, dK


def _check_noise_floor(noise_floor) -> float:
    """``noise_floor`` as a positive float below :data:`_NOISE_CEILING`."""
    noise_floor = as_positive_float(noise_floor, "noise_floor")
    if noise_floor >= _NOISE_CEILING:
        raise ValueError(f"noise_floor: must lie below the noise ceiling {_NOISE_CEILING:g}, "
                         f"got {noise_floor:g}")
    return noise_floor


def _initial_table(noise_variance, n_regions: int, n_annotators: int, noise_floor: float
                  ) -> np.ndarray:
    """The (n_regions, n_annotators) table of starting variances from a number or a table (for
    GPR-MA also (n_annotators,)), each within [noise_floor, NOISE_CEILING]."""
    shape = (n_regions, n_annotators)
    if isinstance(noise_variance, numbers.Real) and not isinstance(noise_variance, bool):
        table = np.full(shape, as_positive_float(noise_variance, "noise_variance"))
    else:
        table = as_float_array(noise_variance, "noise_variance", ndim=(1, 2))
        if table.shape == (n_annotators,) and n_regions == 1:
            table = table[None, :]
        if table.shape != shape:
            raise ValueError(f"noise_variance: expected a number or a table of shape "
                             f"{shape} (regions x annotators), got shape {table.shape}")
    outside = (table < noise_floor) | (table > _NOISE_CEILING)
    if outside.any():
        raise ValueError(f"noise_variance: starting variances must lie within "
                         f"[noise_floor, {_NOISE_CEILING:g}] = [{noise_floor:g}, "
                         f"{_NOISE_CEILING:g}], got {table[outside][0]:g}")
    return table.astype(float)


def _noise_names(by_region: bool, n_regions: int, n_annotators: int) -> tuple[str, ...]:
    """``"noise_variance[r]"`` (GPR-MA) or ``"noise_variance[l,r]"`` (GPR-MANH), row-major."""
    if not by_region:
        return tuple(f"noise_variance[{r}]" for r in range(n_annotators))
    return tuple(f"noise_variance[{l},{r}]" for l in range(n_regions)
                 for r in range(n_annotators))


def _model_priors(kernel: Kernel, kernel_priors, noise_priors, names: tuple[str, ...]) -> dict:
    """{parameter name: Prior}: ``kernel_priors`` by kernel parameter name, and the one
    ``noise_priors`` on every noise variance in ``names`` (for ``check_priors``)."""
    if noise_priors is not None and not isinstance(noise_priors, Prior):
        raise TypeError(f"noise_priors: expected one course_lib.gp.priors.Prior for every "
                        f"noise variance, got {type(noise_priors).__name__}")
    if kernel_priors is not None and not isinstance(kernel_priors, Mapping):
        raise TypeError(f"kernel_priors: expected a mapping of kernel parameter names to "
                        f"priors, got {type(kernel_priors).__name__}")
    kernel_priors = dict(kernel_priors or {})
    for name in kernel_priors:
        if name not in kernel.param_names:
            raise ValueError(f"kernel_priors: unknown kernel parameter {name!r}; known: "
                             f"{kernel.param_names}")
    noise = {} if noise_priors is None else dict.fromkeys(names, noise_priors)
    return {**kernel_priors, **noise}


def _check_labels(X, data: RaterData, n_annotators: int, regions: np.ndarray | None
                 ) -> tuple[np.ndarray, RaterData]:
    """``(X, data)`` checked for a model of ``n_annotators`` with these ``regions``: one row of X
    per item, one rater per annotator, one region per item."""
    X, data = _as_items_and_ratings(X, data)
    if data.n_raters != n_annotators:
        raise ValueError(f"data: has {data.n_raters} raters but the model was built for "
                         f"n_annotators={n_annotators} (pass n_raters= to RaterData)")
    if regions is not None and regions.size != data.n_items:
        raise ValueError(f"regions: expected one region per item ({data.n_items}), got "
                         f"{regions.size}")
    return X, data


def _cells(labels_mask: np.ndarray, n_regions: int) -> str:
    cells = np.argwhere(labels_mask)
    text = ", ".join(f"(region {l}, annotator {r})" if n_regions > 1 else f"annotator {r}"
                     for l, r in cells[:6])
    return text + (f" and {len(cells) - 6} more" if len(cells) > 6 else "")


def _check_cells(label_cells: np.ndarray, n_regions: int, n_annotators: int) -> np.ndarray:
    """Labels per cell, shape (n_regions, n_annotators); refuses an annotator (``data``) or a
    (region, annotator) cell (``regions``) with fewer than 2 labels: with one, the posterior
    mean moves onto it and its variance collapses to the floor for no good reason."""
    counts = np.bincount(label_cells, minlength=n_regions * n_annotators).reshape(
        n_regions, n_annotators)
    per_annotator = counts.sum(axis=0)
    if np.any(per_annotator < 2):
        few = np.flatnonzero(per_annotator < 2)
        raise ValueError(
            f"data: annotator{'s' if few.size > 1 else ''} "
            f"{', '.join(str(r) for r in few)} gave fewer than 2 labels "
            f"({', '.join(str(per_annotator[r]) for r in few)}); a noise variance needs at "
            "least 2 labels (with one, the posterior mean moves onto it and the variance "
            "collapses to the floor): drop their labels")
    if np.any(counts < 2):
        raise ValueError(
            f"regions: cells {_cells(counts < 2, n_regions)} have fewer than 2 labels; "
            "each (region, annotator) variance needs at least 2: use fewer regions "
            "(assign_regions(..., min_size=...)) or GPR-MA (regions=None)")
    return counts


def floor_summary(at_floor: np.ndarray, noise_floor: float, n_regions: int) -> str:
    """One line naming the variances at the floor (``at_floor``: the table's mask)."""
    if not at_floor.any():
        return f"no noise variance sits at the floor {noise_floor:g}"
    return (f"{int(at_floor.sum())} of {at_floor.size} noise variances sit at the floor "
            f"{noise_floor:g}: {_cells(at_floor, n_regions)}")
