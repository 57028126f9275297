"""Scores of several raters per item, in long format: the one data type of Units 5-7.

Every multi-rater data set (the fluency and speechocean762 ratings, simulated panels, a
student's own score sheets) is a :class:`RaterData`: one row per label (item, rater, score),
checked once here, with the per-item summaries every model of Unit 5 reads: the counts R_i, the
means ybar_i and the within-item sums of squares S_i of the joint model's spread term
("Multiple output samples per input in a single-output Gaussian process", arXiv 2306.02719,
2024, §3). The precision-weighted means of GPR-MA (Gil-González, Álvarez & Orozco 2019, eq. 1)
are that model's own step (:func:`course_lib.raters.annotator_noise.weighted_means`).

It is data, not a model: it sits below the models, beside ``validation`` and ``metrics``, so
that the data loaders (:mod:`course_lib.data`) return it without importing a model. This is its
one import path, ``from course_lib.rater_data import RaterData``, for the library, the notebooks
and the experiments alike; the checks Unit 5's models make of their input are
:mod:`course_lib.raters._model_input`.
"""

from __future__ import annotations

import numpy as np

from .metrics import check_scale
from .validation import as_float_array, as_positive_int, as_selection, listed_rows

__all__ = ["RaterData"]

_LARGEST_INDEX = 2.0 ** 53  # beyond it float64 skips whole numbers


def _index_array(values, name: str, size: int | None) -> np.ndarray:
    """Non-negative integer indices (floats that are whole numbers accepted), checked by name."""
    arr = as_float_array(values, name, ndim=1)
    invalid = (arr != np.round(arr)) | (arr < 0) | (arr >= _LARGEST_INDEX)
    if invalid.any():
        bad = int(np.flatnonzero(invalid)[0])
        raise ValueError(f"{name}: expected non-negative whole-number indices (0, 1, 2, ...), "
                         f"row {bad} has {arr[bad]:g}")
    arr = arr.astype(np.int64)
    if size is not None and np.any(arr >= size):
        bad = int(np.flatnonzero(arr >= size)[0])
        raise ValueError(f"{name}: row {bad} has index {arr[bad]}, beyond the {size} declared")
    return arr


class RaterData:
    """Scores of several raters on N items, in long format: one row per label (item, rater, score).

    ``items`` index the rows of the input matrix X (0..n_items-1); ``raters`` are 0..n_raters-1.
    Any rater may skip any item (missing labels), and two raters need not share an item. Every
    item needs at least one label, and a rater scores an item at most once. With ``scale=(low,
    high)`` the scores must be whole numbers in low..high; scores outside are refused with the
    offending rows named.

    Build it with :meth:`from_long` or :meth:`from_matrix` (an N x R table, NaN = missing).
    """

    def __init__(self, items, raters, scores, *, n_items: int | None = None,
                 n_raters: int | None = None, scale=None):
        """Item summaries; Lecture 05, section 3 (The joint likelihood, step by step)."""
        n_items = None if n_items is None else as_positive_int(n_items, "n_items")
        n_raters = None if n_raters is None else as_positive_int(n_raters, "n_raters")
        items = _index_array(items, "items", n_items)
        raters = _index_array(raters, "raters", n_raters)
        if np.asarray(scores).dtype == np.bool_:
            raise TypeError("scores: booleans are not scores (numpy would read True / False as "
                            "1 / 0); pass the numbers the raters gave")
        scores = as_float_array(scores, "scores", ndim=1).copy()  # frozen below: not the caller's
        if not items.shape == raters.shape == scores.shape:
            raise ValueError(f"scores: items, raters and scores must have one entry per label, "
                             f"got lengths {items.size}, {raters.size}, {scores.size}")
        # every item needs a label, so there are at most as many items as labels (checked
        # before any per-item array is allocated); an undeclared index beyond the number of
        # labels is an id, not an index (0, 1, 2, ...)
        if n_items is not None and n_items > scores.size:
            raise ValueError(f"n_items: {n_items} items declared but only {scores.size} labels; "
                             "every item needs at least one label")
        declared = {"items": n_items, "raters": n_raters}
        for name, index in (("items", items), ("raters", raters)):
            if declared[name] is None and index.max() >= scores.size:
                raise ValueError(f"{name}: index {index.max()} implies {index.max() + 1} {name} "
                                 f"for only {scores.size} labels; number the {name} 0, 1, 2, "
                                 f"... (or pass n_{name})")
        self.scale = None if scale is None else check_scale(scale)
        if self.scale is not None:
            low, high = self.scale
            outside = (scores < low) | (scores > high)
            if outside.any():
                raise ValueError(f"scores: outside the scale {low}..{high} at "
                                 f"{listed_rows(outside)} (e.g. {scores[outside][0]:g})")
            fractional = scores != np.round(scores)
            if fractional.any():
                raise ValueError(f"scores: not a whole score of the scale {low}..{high} at "
                                 f"{listed_rows(fractional)} (e.g. {scores[fractional][0]:g})")
        self.n_items = int(items.max()) + 1 if n_items is None else n_items
        self.n_raters = int(raters.max()) + 1 if n_raters is None else n_raters
        order = np.lexsort((raters, items))  # by item, then rater
        repeated = np.zeros(items.size, dtype=bool)
        repeated[order[1:]] = ((items[order[1:]] == items[order[:-1]])
                               & (raters[order[1:]] == raters[order[:-1]]))
        if repeated.any():
            raise ValueError(f"raters: an (item, rater) pair given again at "
                             f"{listed_rows(repeated)}; a rater scores each item at most once")
        counts = np.bincount(items, minlength=self.n_items)
        if np.any(counts == 0):
            raise ValueError(f"items: no label for {listed_rows(counts == 0, 'item')}; drop them "
                             "from X (or pass the right n_items)")
        self.items, self.raters, self.scores = items, raters, scores
        self.counts = counts
        self.means = np.bincount(items, weights=scores, minlength=self.n_items) / counts
        self.within_ss_per_item = np.bincount(items, weights=(scores - self.means[items]) ** 2,
                                              minlength=self.n_items)
        self._freeze()

    def _freeze(self) -> None:
        # the summaries are computed once: an edited score would leave them stale
        for array in (self.items, self.raters, self.scores, self.counts, self.means,
                      self.within_ss_per_item):
            array.setflags(write=False)

    def __setstate__(self, state: dict) -> None:
        """An unpickled copy is read-only like the original (numpy unpickles arrays writeable)."""
        self.__dict__.update(state)
        self._freeze()

    @classmethod
    def from_long(cls, items, raters, scores, *, n_items=None, n_raters=None, scale=None
                  ) -> "RaterData":
        """From three equal-length sequences, one entry per label."""
        return cls(items, raters, scores, n_items=n_items, n_raters=n_raters, scale=scale)

    @classmethod
    def from_matrix(cls, Y, *, scale=None) -> "RaterData":
        """From an (n_items, n_raters) table with NaN where a rater did not score an item. A
        numpy masked array is read the same way: its masked entries are the missing scores
        (whatever number lies under the mask is ignored)."""
        booleans = False
        try:
            if Y is None or isinstance(Y, (str, bytes)) or np.iscomplexobj(Y):
                raise TypeError
            if isinstance(Y, np.ma.MaskedArray):      # masked = missing, i.e. NaN
                table = np.where(np.ma.getmaskarray(Y), np.nan,
                                 np.asarray(np.ma.getdata(Y), dtype=float))
            else:
                booleans = np.asarray(Y).dtype == np.bool_
                table = np.asarray(Y, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise TypeError(f"Y: expected an (n_items, n_raters) table of real numbers "
                            f"(equal-length rows, NaN where a rater gave no score), got "
                            f"{type(Y).__name__}") from None
        if booleans:
            raise TypeError("Y: booleans are not scores (numpy would read True / False as 1 / "
                            "0); pass the numbers the raters gave, NaN where none")
        if table.ndim != 2 or table.size == 0:
            raise ValueError(f"Y: expected a non-empty (n_items, n_raters) table, got shape "
                             f"{table.shape}")
        if np.isinf(table).any():
            raise ValueError("Y: contains inf (use NaN for a missing score)")
        unscored = np.all(np.isnan(table), axis=1)
        if unscored.any():
            raise ValueError(f"Y: no score in {listed_rows(unscored)} (every item needs at "
                             "least one; drop those rows and the matching rows of X)")
        items, raters = np.nonzero(~np.isnan(table))
        return cls(items, raters, table[items, raters], n_items=table.shape[0],
                   n_raters=table.shape[1], scale=scale)

    # ----- summaries --------------------------------------------------------------------
    @property
    def n_labels(self) -> int:
        """M, the total number of labels."""
        return int(self.scores.size)

    @property
    def within_ss(self) -> float:
        """S = sum_i sum_r (y_ir - ybar_i)^2, the raters' disagreement."""
        return float(self.within_ss_per_item.sum())

    @property
    def rater_counts(self) -> np.ndarray:
        """Number of labels each rater gave, shape (n_raters,)."""
        return np.bincount(self.raters, minlength=self.n_raters)

    def matrix(self) -> np.ndarray:
        """The (n_items, n_raters) table of scores, NaN where a rater gave none."""
        table = np.full((self.n_items, self.n_raters), np.nan)
        table[self.items, self.raters] = self.scores
        return table

    def histograms(self) -> np.ndarray:
        """(n_items, n_scores) counts of each whole score of ``scale`` per item (needs a scale)."""
        if self.scale is None:
            raise ValueError("scale: histograms need a score scale; build the data with "
                             "scale=(low, high)")
        low, high = self.scale
        out = np.zeros((self.n_items, high - low + 1))
        np.add.at(out, (self.items, self.scores.astype(np.int64) - low), 1.0)
        return out

    def subset(self, items) -> "RaterData":
        """The labels of the given items, renumbered 0..len-1: indices (in that order) or a
        boolean mask with one entry per item (:func:`~course_lib.validation.as_selection`)."""
        keep = as_selection(items, "items", self.n_items, allow_repeats=False)
        position = np.full(self.n_items, -1)
        position[keep] = np.arange(keep.size)
        rows = position[self.items] >= 0
        return RaterData(position[self.items[rows]], self.raters[rows], self.scores[rows],
                         n_items=keep.size, n_raters=self.n_raters, scale=self.scale)

    def __repr__(self):
        scale = "" if self.scale is None else f", scale={self.scale}"
        return (f"RaterData(n_items={self.n_items}, n_raters={self.n_raters}, "
                f"n_labels={self.n_labels}{scale})")
