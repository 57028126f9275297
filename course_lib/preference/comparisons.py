"""Pairwise comparisons (and single-item ratings) of items, and the comparison matrix M.

The one orientation convention of the course
--------------------------------------------
A comparison is an ORDERED pair (first, second) of items with an answer y about it.

* Row k of the comparison matrix M has +1 at the first item and -1 at the second, so the
  latent argument of every pairwise likelihood is ``z_k = (M f)_k = f(first) - f(second)``.
* A binary answer y = 1 means the FIRST item was preferred (y = 0: the second).
* A degree of preference y in [0, 1] (a slider): y > 0.5 means the first item was preferred,
  y = 0.5 no preference, and |y - 0.5| is how strongly.
* An observed difference y (real) is a noisy f(first) - f(second).

J. B. Nielsen's thesis (and the papers of his hearing-aid studies) uses the opposite orientation:
there the SECOND option v is preferred when y is large, and the argument is f(v) - f(u). A thesis
formula reads the same here once its v is taken as our first item and its u as our second (thesis
indicator rows, -1 at u and +1 at v, are then our rows; its binary y = +1 / -1 is our 1 / 0);
the code never converts. Swapping the two items of every row with y -> 1 - y (binary, degree)
or y -> -y (difference) describes the same data, so every posterior must be unchanged:
:meth:`Comparisons.swapped` builds that mirror image for the tests.

Single-item observations (bounded ratings of one item in [0, 1]) are rows of M with a single
+1 (an identity row), so one linear map z = M f serves pairs and single items alike.

The comparison graph
--------------------
Items are nodes and comparisons edges. S = M^T M is the graph Laplacian: its rows sum to zero,
so M 1 = 0 and the data identify f only up to one additive constant per connected component.
The zero-mean GP prior fixes the levels, but across components the relative offset is then the
prior's guess alone: a disconnected graph is REPORTED (a :class:`DisconnectedComparisonsWarning`
naming the components and ``is_connected = False``), not refused. A component that holds a
single-item rating is anchored (its absolute level is observed). An item that only ever wins
(or only ever loses) would be pushed to +inf (-inf) by the likelihood alone; only the prior keeps
it finite (``only_wins``, ``only_loses``).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from ..validation import as_float_array, as_positive_float, check_choice, listed_rows
from ..gp.kernel_base import as_inputs

__all__ = ["Comparisons", "DisconnectedComparisonsWarning", "KINDS"]

# what y means, by kind (the same strings as Likelihood.observation_kind)
KINDS = ("pair-binary", "pair-degree", "pair-difference", "bounded")
_NO_SECOND = -1  # the "second" index of a single-item (identity) row
_DEFAULT_TOL = 1e-8


class DisconnectedComparisonsWarning(UserWarning):
    """The comparison graph has several components: their relative levels come from the prior."""


def _item_indices(values, name: str, n_items: int, allow_none: bool = False) -> np.ndarray:
    """Whole-number indices 0..n_items-1 (``_NO_SECOND`` too when ``allow_none``)."""
    arr = as_float_array(values, name, ndim=1)
    low = _NO_SECOND if allow_none else 0
    invalid = (arr != np.round(arr)) | (arr < low) | (arr >= n_items)
    if invalid.any():
        bad = int(np.flatnonzero(invalid)[0])
        raise ValueError(f"{name}: expected item indices 0..{n_items - 1} (rows of X), "
                         f"{listed_rows(invalid)} hold {arr[bad]:g}")
    return arr.astype(np.int64)


def _check_answers(y, kind: str, m: int) -> np.ndarray:
    y = as_float_array(y, "y", ndim=1).copy()
    if y.size != m:
        raise ValueError(f"y: expected {m} answers (one per comparison), got {y.size}")
    if kind == "pair-binary":
        bad = (y != 0) & (y != 1)
        want = "0 or 1 (1 = the first item was preferred)"
    elif kind in ("pair-degree", "bounded"):
        bad = (y < 0) | (y > 1)
        want = "values in [0, 1]" + (" (> 0.5 = the first item was preferred)"
                                     if kind == "pair-degree" else "")
    else:
        bad = np.zeros(m, dtype=bool)
        want = ""
    if bad.any():
        raise ValueError(f"y: kind {kind!r} needs {want}; {listed_rows(bad)} hold "
                         f"{y[bad][0]:g}")
    return y


def _consolidate(points: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Merge rows of ``points`` that lie within ``tol`` of each other (max-norm).

    Leader clustering in order of appearance: each row not yet assigned becomes an item and
    takes every unassigned row within ``tol`` of it. Returns ``(items, index)`` with
    ``points[i] ~ items[index[i]]`` (each item is its first occurrence).
    """
    tree = cKDTree(points)
    index = np.full(points.shape[0], -1, dtype=np.int64)
    leaders = []
    for i in range(points.shape[0]):
        if index[i] >= 0:
            continue
        near = np.asarray(tree.query_ball_point(points[i], tol, p=np.inf), dtype=np.int64)
        near = near[index[near] < 0]
        index[near] = len(leaders)
        leaders.append(i)
    return points[leaders], index


def _caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside this module
    (the user's line, whether they called ``Comparisons`` or ``from_pairs``)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    return level


class Comparisons:
    """Answers about ordered pairs (or single items) of the items in the rows of ``X``.

    Parameters
    ----------
    X : (n_items, d) array
        The items' inputs (settings); rows are items. Rows need not all be compared.
    first, second : (m,) integer arrays
        Row indices into X of the two items of each comparison. ``second`` is ``None`` (or
        ``_NO_SECOND`` = -1 everywhere) for single-item ratings (kind ``"bounded"``).
    y : (m,) array
        The answers; what they mean depends on ``kind`` (module docstring):
        ``"pair-binary"`` 1 = first preferred, 0 = second; ``"pair-degree"`` in [0, 1],
        > 0.5 = first preferred; ``"pair-difference"`` real, an observed f(first) - f(second);
        ``"bounded"`` a rating of ONE item in [0, 1].

    Attributes: ``X``, ``first``, ``second``, ``y``, ``kind``, ``n_items``, ``n_comparisons``,
    ``n_components``, ``is_connected``, ``wins``, ``losses``, ``only_wins``, ``only_loses``,
    ``compared``. ``n_components`` counts every component of the comparison graph, an item in
    no comparison included (the labels of :meth:`components`; with no ratings, the dimension of
    the null space of M); ``is_connected`` asks only whether the compared items are tied together.
    Duplicate rows of X are not merged here: use :meth:`from_pairs` (which does) or merge them
    first, as near-identical items make the kernel matrix singular.
    """

    def __init__(self, X, first, second, y, *, kind: str = "pair-binary"):
        self.kind = check_choice(kind, "kind", KINDS)
        self.X = as_inputs(X, "X").copy()
        n = self.X.shape[0]
        self.first = _item_indices(first, "first", n)
        m = self.first.size
        if kind == "bounded":
            if second is not None:
                second = _item_indices(second, "second", n, allow_none=True)
                if np.any(second != _NO_SECOND):
                    raise ValueError(f"second: kind 'bounded' rates one item per row; pass "
                                     f"second=None (got an item index in "
                                     f"{listed_rows(second != _NO_SECOND)})")
            self.second = np.full(m, _NO_SECOND, dtype=np.int64)
        else:
            if second is None:
                raise ValueError(f"second: kind {kind!r} needs the second item of each pair "
                                 "(second=None is only for kind 'bounded')")
            self.second = _item_indices(second, "second", n)
        if self.second.size != m:
            raise ValueError(f"second: expected {m} indices (one per entry of first), got "
                             f"{self.second.size}")
        same = self.first == self.second
        if same.any():
            raise ValueError(f"second: {listed_rows(same)} compare an item with itself (item "
                             f"{self.first[same][0]}); a comparison needs two different items")
        self.y = _check_answers(y, self.kind, m)
        for array in (self.X, self.first, self.second, self.y):
            array.setflags(write=False)
        self._count_outcomes()
        self._labels = self._graph_components()
        self._report_components()

    @classmethod
    def from_pairs(cls, X_first, X_second, y, *, kind: str = "pair-binary",
                   tol: float = _DEFAULT_TOL) -> "Comparisons":
        """From the inputs of the two items of each comparison (rows of ``X_first``,
        ``X_second``), merging items whose inputs agree within ``tol`` in every coordinate
        (the same setting presented twice is one item). Items are numbered in order of first
        appearance, reading ``X_first[0], X_second[0], X_first[1], ...``."""
        tol = as_positive_float(tol, "tol", allow_zero=True)
        A = as_inputs(X_first, "X_first")
        B = as_inputs(X_second, "X_second", A.shape[1])
        if A.shape[0] != B.shape[0]:
            raise ValueError(f"X_second: expected {A.shape[0]} rows (one per row of X_first), "
                             f"got {B.shape[0]}")
        interleaved = np.empty((2 * A.shape[0], A.shape[1]))
        interleaved[0::2], interleaved[1::2] = A, B
        items, index = _consolidate(interleaved, tol)
        first, second = index[0::2], index[1::2]
        same = first == second
        if same.any():
            raise ValueError(f"X_second: {listed_rows(same)} present the same item as X_first "
                             f"(inputs equal within tol={tol:g}); a comparison needs two "
                             "different items")
        return cls(items, first, second, y, kind=kind)

    @classmethod
    def from_ratings(cls, X, y, *, tol: float = _DEFAULT_TOL) -> "Comparisons":
        """Bounded ratings in [0, 1] of single items (rows of ``X``, one per rating), as
        identity rows of M; repeated settings (within ``tol``) become one item."""
        tol = as_positive_float(tol, "tol", allow_zero=True)
        X = as_inputs(X, "X")
        items, index = _consolidate(X, tol)
        return cls(items, index, None, y, kind="bounded")

    # ----- sizes and the matrix ---------------------------------------------------------------
    @property
    def n_items(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_comparisons(self) -> int:
        """m, the number of rows (comparisons or ratings)."""
        return int(self.y.size)

    @property
    def is_pairwise(self) -> bool:
        return self.kind != "bounded"

    def matrix(self) -> np.ndarray:
        """The comparison matrix M, shape (m, n_items): +1 at each row's first item, -1 at its
        second (none for a single-item row), so ``M @ f`` is z = f(first) - f(second)."""
        M = np.zeros((self.n_comparisons, self.n_items))
        rows = np.arange(self.n_comparisons)
        M[rows, self.first] = 1.0
        pair = self.second != _NO_SECOND
        M[rows[pair], self.second[pair]] = -1.0
        return M

    def differences(self, f) -> np.ndarray:
        """z = M f without forming M: f(first) - f(second) (f(first) for single items)."""
        f = as_float_array(f, "f", ndim=1)
        if f.size != self.n_items:
            raise ValueError(f"f: expected {self.n_items} values (one per item), got {f.size}")
        z = f[self.first].copy()
        pair = self.second != _NO_SECOND
        z[pair] -= f[self.second[pair]]
        return z

    # ----- outcomes -----------------------------------------------------------------------------
    def _count_outcomes(self) -> None:
        n, pair = self.n_items, self.second != _NO_SECOND
        if self.kind == "pair-binary":
            first_won = self.y == 1
            second_won = self.y == 0
        elif self.kind == "pair-degree":
            first_won, second_won = self.y > 0.5, self.y < 0.5
        elif self.kind == "pair-difference":
            first_won, second_won = self.y > 0, self.y < 0
        else:
            first_won = second_won = np.zeros(self.n_comparisons, dtype=bool)
        first_won, second_won = first_won & pair, second_won & pair
        self.wins = (np.bincount(self.first[first_won], minlength=n)
                     + np.bincount(self.second[second_won], minlength=n))
        self.losses = (np.bincount(self.first[second_won], minlength=n)
                       + np.bincount(self.second[first_won], minlength=n))
        self.only_wins = (self.wins > 0) & (self.losses == 0)
        self.only_loses = (self.losses > 0) & (self.wins == 0)
        self.compared = np.bincount(self.first, minlength=n) > 0
        self.compared |= np.bincount(self.second[pair], minlength=n) > 0
        for array in (self.wins, self.losses, self.only_wins, self.only_loses, self.compared):
            array.setflags(write=False)

    # ----- the graph -----------------------------------------------------------------------------
    def _graph_components(self) -> np.ndarray:
        pair = self.second != _NO_SECOND
        n = self.n_items
        graph = coo_matrix((np.ones(int(pair.sum())), (self.first[pair], self.second[pair])),
                           shape=(n, n))
        _, labels = connected_components(graph, directed=False)
        # renumber in order of the lowest item, so labels read 0, 1, 2, ... down the items
        _, first_seen, inverse = np.unique(labels, return_index=True, return_inverse=True)
        order = np.argsort(np.argsort(first_seen))
        return order[inverse]

    def components(self) -> np.ndarray:
        """Component label (0, 1, ...) of every item in the comparison graph; an item in no
        comparison is a component of its own."""
        return self._labels.copy()

    def _report_components(self) -> None:
        observed = np.unique(self._labels[self.compared])
        anchored = np.unique(self._labels[self.first[self.second == _NO_SECOND]])
        floating = np.setdiff1d(observed, anchored)
        # every component, an item in no comparison included: as many as components() labels
        self.n_components = int(self._labels.max()) + 1
        # several observed components of which one has no absolute anchor: offsets unidentified
        self.is_connected = bool(observed.size <= 1 or floating.size == 0)
        if not self.is_connected:
            groups = "; ".join(self._describe(label) for label in observed[:4])
            more = f"; and {observed.size - 4} more" if observed.size > 4 else ""
            n_alone = self.n_components - observed.size
            where = f" ({groups}{more})"
            if n_alone:
                where = (f", {observed.size} of them among the compared items{where} and "
                         f"{n_alone} item{'s' if n_alone > 1 else ''} in no comparison")
            warnings.warn(
                f"Comparisons: the comparison graph has {self.n_components} components{where}; "
                "the data say nothing about the levels of one against another, which then "
                "come from the prior alone. Compare an item of one with an item of another to "
                "connect them.", DisconnectedComparisonsWarning,
                stacklevel=_caller_stacklevel())

    def _describe(self, label: int) -> str:
        members = np.flatnonzero(self._labels == label)
        shown = ", ".join(str(i) for i in members[:6])
        return f"items {shown}{' ...' if members.size > 6 else ''}"

    # ----- the mirror image -----------------------------------------------------------------------
    def swapped(self) -> "Comparisons":
        """The same data written the other way round: first <-> second, with y -> 1 - y
        (binary, degree) or y -> -y (difference). Every posterior must be unchanged."""
        if not self.is_pairwise:
            raise ValueError("kind: 'bounded' ratings rate one item per row; there is no "
                             "second item to swap")
        y = -self.y if self.kind == "pair-difference" else 1.0 - self.y
        with warnings.catch_warnings():  # already reported for the original
            warnings.simplefilter("ignore", DisconnectedComparisonsWarning)
            return Comparisons(self.X, self.second, self.first, y, kind=self.kind)

    def __repr__(self) -> str:
        return (f"Comparisons(kind={self.kind!r}, n_items={self.n_items}, "
                f"n_comparisons={self.n_comparisons}, n_components={self.n_components})")
