"""DTW step patterns as data (Unit 1): the moves the recursion of :mod:`course_lib.dtw.alignment` may take.

The recursion, its first cell ``m(1)`` and the normaliser ``M_phi`` are in :mod:`course_lib.dtw.alignment`;
here sit the patterns it runs with, their checks, and the flat arrays the compiled loops take
(:meth:`StepPattern.arrays`, :meth:`StepPattern.kernel_form`), apart so that the recursion reads
without them.

Step patterns (names and moves as in dtw-python, which takes them from Sakoe & Chiba 1978 and
Rabiner & Juang 1993). A move is written origin offset -> cells entered (offset back from the
destination ``(i, j)``, weight):

===============  ===========================================  ======  ===================
name             moves (origin: entered cells with weights)   m(1)    normalisation M_phi
===============  ===========================================  ======  ===================
symmetric1       (1,1): (0,0) w1; (0,1): (0,0) w1;            1       none (path-dependent)
                 (1,0): (0,0) w1
symmetric2       (1,1): (0,0) w2; (0,1): (0,0) w1;            2       n + m
                 (1,0): (0,0) w1
asymmetric       (1,0): (0,0) w1; (1,1): (0,0) w1;            1       n
                 (1,2): (0,0) w1
symmetricP1      (1,2): (0,1) w2, (0,0) w1; (1,1): (0,0) w2;  2       n + m
                 (2,1): (1,0) w2, (0,0) w1
asymmetricP1     (1,2): (0,1) w1/2, (0,0) w1/2;               1       n
                 (1,1): (0,0) w1; (2,1): (1,0) w1, (0,0) w1
===============  ===========================================  ======  ===================

``asymmetricP1`` (:data:`ASYMMETRIC_P1`, not in ``STEP_PATTERNS``: pass the object) keeps the
asymmetric pattern's normaliser ``n`` but limits the slope to between 1/2 and 2, so it needs
``(n - 1) / 2 <= m - 1 <= 2 (n - 1)``. In subsequence search a match therefore spans at least
about half the query's frames, where plain ``asymmetric`` may squeeze the whole query onto a
single reference frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_choice

__all__ = ["STEP_PATTERNS", "ASYMMETRIC_P1", "StepPattern", "get_step_pattern"]


@dataclass(frozen=True)
class StepPattern:
    """A DTW step pattern as data.

    ``moves`` is a tuple of ``(origin, cells)``: ``origin = (di, dj)`` is the predecessor
    ``(i - di, j - dj)``; ``cells`` lists ``(a, b, w)`` for each cell ``(i - a, j - b)`` the
    move enters, in path order and ending with the destination ``(0, 0, w)``. The move adds
    ``sum w * d(i - a, j - b)``. A move may enter at most one intermediate cell (enough for
    the patterns here and for symmetricP0/P1; keeping the compiled loop free of a nested loop
    makes it several times faster). ``start_weight`` is ``m(1)``, the weight of the first cell.
    ``normalisation`` is ``"n+m"``, ``"n"`` or ``"none"`` (see the table in the module docstring).
    """

    name: str
    moves: tuple
    start_weight: float
    normalisation: str

    def __post_init__(self):
        check_choice(self.normalisation, "normalisation", {"n+m", "n", "none"})
        for origin, cells in self.moves:
            if min(origin) < 0 or max(origin) < 1 or tuple(cells[-1][:2]) != (0, 0):
                raise ValueError(f"moves: move {origin} must go forward and end at (0, 0)")
            if len(cells) > 2 or any(c[2] <= 0 for c in cells):
                raise ValueError(f"moves: move {origin} may enter at most one intermediate "
                                 f"cell before (0, 0), each with a weight > 0")

    @property
    def is_symmetric(self) -> bool:
        """True when swapping the roles of x and y maps the pattern onto itself."""
        def canon(moves):
            return sorted((o, tuple(c)) for o, c in moves)
        swapped = [((dj, di), tuple((b, a, w) for a, b, w in cells))
                   for (di, dj), cells in self.moves]
        return canon(swapped) == canon(self.moves)

    def normaliser(self, n: int, m: int) -> float | None:
        """``M_phi`` for lengths ``n`` and ``m``, or None when it depends on the path."""
        return {"n+m": float(n + m), "n": float(n), "none": None}[self.normalisation]

    def arrays(self):
        """The moves as flat arrays for the compiled recursion.

        ``move_di, move_dj, move_w`` (origin offset, weight of the destination cell) and
        ``mid_di, mid_dj, mid_w`` (the intermediate cell, weight 0 when there is none).
        """
        rows = []
        for (di, dj), cells in self.moves:
            mid = cells[0] if len(cells) == 2 else (0, 0, 0.0)
            rows.append((di, dj, cells[-1][2], *mid))
        cols = list(zip(*rows))
        as_int = [np.array(c, dtype=np.int64) for c in (cols[0], cols[1], cols[3], cols[4])]
        as_float = [np.array(c, dtype=np.float64) for c in (cols[2], cols[5])]
        return as_int[0], as_int[1], as_float[0], as_int[2], as_int[3], as_float[1]

    def kernel_form(self):
        """The pattern as the compiled kernels take it: ``(arrays(), start_weight, unit)``.

        ``unit = (w_diag, w_across, w_down)`` when the moves are exactly (1, 1), (0, 1) and
        (1, 0), entering no intermediate cell (symmetric1, symmetric2): those patterns run in a
        faster two-row loop. Else ``unit`` is an empty array.
        """
        moves = dict(self.moves)
        if len(self.moves) != 3 or set(moves) != {(1, 1), (0, 1), (1, 0)} or \
                any(len(cells) != 1 for cells in moves.values()):
            unit = np.empty(0)
        else:
            unit = np.array([moves[origin][0][2] for origin in ((1, 1), (0, 1), (1, 0))])
        return self.arrays(), self.start_weight, unit


STEP_PATTERNS = {
    "symmetric1": StepPattern("symmetric1", (
        ((1, 1), ((0, 0, 1.0),)),
        ((0, 1), ((0, 0, 1.0),)),
        ((1, 0), ((0, 0, 1.0),)),
    ), start_weight=1.0, normalisation="none"),
    "symmetric2": StepPattern("symmetric2", (
        ((1, 1), ((0, 0, 2.0),)),
        ((0, 1), ((0, 0, 1.0),)),
        ((1, 0), ((0, 0, 1.0),)),
    ), start_weight=2.0, normalisation="n+m"),
    "asymmetric": StepPattern("asymmetric", (
        ((1, 0), ((0, 0, 1.0),)),
        ((1, 1), ((0, 0, 1.0),)),
        ((1, 2), ((0, 0, 1.0),)),
    ), start_weight=1.0, normalisation="n"),
    "symmetricP1": StepPattern("symmetricP1", (
        ((1, 2), ((0, 1, 2.0), (0, 0, 1.0))),
        ((1, 1), ((0, 0, 2.0),)),
        ((2, 1), ((1, 0, 2.0), (0, 0, 1.0))),
    ), start_weight=2.0, normalisation="n+m"),
}


# Sakoe & Chiba's slope constraint P = 1 on the asymmetric pattern (dtw-python's asymmetricP1):
# every query frame still carries total weight 1, so M_phi = n and matching costs of
# subsequence matches of different lengths stay comparable.
ASYMMETRIC_P1 = StepPattern("asymmetricP1", (
    ((1, 2), ((0, 1, 0.5), (0, 0, 0.5))),
    ((1, 1), ((0, 0, 1.0),)),
    ((2, 1), ((1, 0, 1.0), (0, 0, 1.0))),
), start_weight=1.0, normalisation="n")


def get_step_pattern(step_pattern: str | StepPattern) -> StepPattern:
    """The :class:`StepPattern` a ``step_pattern`` argument names: looked up by name in
    ``STEP_PATTERNS`` (an unknown name is refused, naming ``step_pattern``), or a
    :class:`StepPattern` passed on."""
    if isinstance(step_pattern, StepPattern):
        return step_pattern
    check_choice(step_pattern, "step_pattern", STEP_PATTERNS)
    return STEP_PATTERNS[step_pattern]
