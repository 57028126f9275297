"""Regions of the input space for GPR-MANH: the partition, its centres and how items get one.

Gil-González, Álvarez & Orozco 2019 let an annotator's noise differ by region of the input
space, with the regions found by clustering the inputs (k-means or affinity propagation);
each item i then has a region l(i) and each label the noise variance of its (region,
annotator) cell. Finding the regions is apart from the model (``raters.annotator_noise``) because
the model only reads the labels l(i): any partition works, and a student follows the evidence
without the clustering.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .affinity import _affinity_propagation, _negative_squared_distances
from ..gmm.clustering import assign_clusters, assign_clusters_trusted, kmeans
from ..validation import (RngLike, as_float_array, as_positive_int, as_rng, check_choice,
                          renamed_error)
from ..gp.kernel_base import as_inputs

__all__ = ["Regions", "assign_regions", "region_labels", "left_to_right"]

_REGION_METHODS = ("kmeans", "affinity")


@dataclass(frozen=True)
class Regions:
    """A partition of the items into regions, each with a centre.

    labels : (N,) region of each item, 0..n_regions-1 (its nearest centre).
    centres : (n_regions, D) k-means centroids or affinity-propagation exemplars.
    method : "kmeans" or "affinity".
    """

    labels: np.ndarray
    centres: np.ndarray
    method: str

    @property
    def n_regions(self) -> int:
        return int(self.centres.shape[0])

    @property
    def sizes(self) -> np.ndarray:
        """Number of items in each region."""
        return np.bincount(self.labels, minlength=self.n_regions)

    def regions_of(self, X) -> np.ndarray:
        """Region of new points (rows of X): the nearest centre (squared Euclidean)."""
        X = as_inputs(X, "X", self.centres.shape[1])
        return assign_clusters(X, self.centres)[0]


def _merge_small_regions(X, centres, labels, min_size: int):
    """Drop the centre of the smallest region while it has fewer than ``min_size`` points; its
    points join their nearest remaining centre."""
    while centres.shape[0] > 1:
        sizes = np.bincount(labels, minlength=centres.shape[0])
        smallest = int(np.argmin(sizes))
        if sizes[smallest] >= min_size:
            break
        centres = np.delete(centres, smallest, axis=0)
        labels = assign_clusters_trusted(X, centres)[0]
    return centres, labels


def assign_regions(X, n_regions: int | None = None, method: str = "kmeans", *,
                   rng: RngLike = None, min_size: int = 1, **options) -> Regions:
    """Split the inputs (rows of X) into regions for GPR-MANH.

    ``method="kmeans"``: ``n_regions`` clusters by :func:`course_lib.gmm.clustering.kmeans` (seeded by
    ``rng``; ``n_restarts`` defaults to 10 here). ``method="affinity"``: affinity propagation on
    the negative squared distances (:mod:`course_lib.raters.affinity`,
    deterministic; ``rng`` unused); ``n_regions`` must be None because the number of regions is
    data-driven, set only through ``preference`` (default: the median similarity). Beware: that
    default gives about 5 regions on 60 points in 1-D but dozens on a few hundred points in 10-D,
    i.e. three noise variances per handful of items.

    ``options`` go to the clustering function (e.g. ``n_restarts``, ``max_iter`` for k-means;
    ``preference``, ``damping``, ``max_iter``, ``convergence_iter`` for affinity propagation).
    ``min_size``: regions with fewer points are merged into their neighbours (their centre is
    dropped, their points join the nearest remaining centre), smallest first.
    """
    X = as_inputs(X, "X")
    check_choice(method, "method", _REGION_METHODS)
    min_size = as_positive_int(min_size, "min_size")
    if method == "kmeans":
        if n_regions is None:
            raise ValueError("n_regions: k-means needs the number of regions (an int); only "
                             "method='affinity' chooses it from the data")
        options.setdefault("n_restarts", 10)
        try:
            result = kmeans(X, n_regions, rng=rng, **options)
        except (TypeError, ValueError) as err:   # k-means calls the number n_clusters
            renamed = renamed_error(err, "n_clusters", "n_regions")
            if renamed is None:
                raise
            raise renamed from None
        centres, labels = result.centroids, result.labels
    else:
        if n_regions is not None:
            raise ValueError(f"n_regions: affinity propagation chooses the number of regions "
                             f"itself (through preference); pass n_regions=None, got "
                             f"{n_regions!r}")
        as_rng(rng)
        result = _affinity_propagation(_negative_squared_distances(X), **options)
        if result.n_clusters == 0 and result.stuck:
            raise ValueError("damping: affinity propagation found no exemplar, even with ties "
                             "broken, and more sweeps will not help; raise damping towards 1 "
                             "(e.g. 0.9) or change the preference")
        if result.n_clusters == 0:
            raise ValueError(f"max_iter: affinity propagation found no exemplar in "
                             f"{result.n_iter} sweeps; raise max_iter")
        centres, labels = X[result.exemplars], result.labels
    centres, labels = _merge_small_regions(X, centres, labels, min_size)
    return Regions(labels, centres, method)

def region_labels(regions) -> tuple[np.ndarray, int]:
    """(labels (N,), n_regions) of a :class:`Regions` or of (N,) whole-number region indices,
    checked (a ``regions`` argument of the annotator-noise model and of its simulated
    annotators)."""
    if isinstance(regions, Regions):
        return regions.labels, regions.n_regions
    labels = as_float_array(regions, "regions", ndim=1)
    if np.any(labels != np.round(labels)) or np.any(labels < 0):
        raise ValueError("regions: expected one non-negative whole-number region per item")
    labels = labels.astype(np.int64)
    return labels, int(labels.max()) + 1


def left_to_right(regions: Regions) -> Regions:
    """The same partition of one-dimensional inputs with the regions numbered by their centre,
    left to right (k-means numbers them in no particular order)."""
    order = np.argsort(regions.centres[:, 0])
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return Regions(rank[regions.labels], regions.centres[order], regions.method)
