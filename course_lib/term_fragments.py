"""The fragments and pairs of spoken term discovery (Park & Glass 2008), as types.

Segmental DTW (:mod:`course_lib.term_discovery`) returns them, clustering
(:mod:`course_lib.term_clusters`) and measuring against known words
(:mod:`course_lib.term_evaluation`) take them. They sit apart so that the core module shows the
algorithm, and so that clustering and measuring need not import it. Rows are frames; frames are
0-based and spans inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Fragment", "BandFragment", "DiscoveredPair"]


@dataclass(frozen=True)
class Fragment:
    """Frames ``start..end`` (inclusive) of utterance number ``utterance``."""

    utterance: int
    start: int
    end: int

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    def overlap(self, other: "Fragment") -> int:
        """Frames shared with ``other`` (0 if they belong to different utterances)."""
        if other.utterance != self.utterance:
            return 0
        return max(0, min(self.end, other.end) - max(self.start, other.start) + 1)


@dataclass(frozen=True, eq=False)
class BandFragment:
    """The least-average-distortion stretch of one band's path (steps 3-4 of
    :mod:`course_lib.term_discovery`).

    ``path`` (K, 2) is the band's whole alignment, rows ``(i, j)``; the fragment is
    ``path[path_start:path_end + 1]`` and ``distortion`` the mean local cost along it.
    """

    offset: int
    path: np.ndarray
    path_start: int
    path_end: int
    distortion: float

    @property
    def first_span(self) -> tuple[int, int]:
        return int(self.path[self.path_start, 0]), int(self.path[self.path_end, 0])

    @property
    def second_span(self) -> tuple[int, int]:
        return int(self.path[self.path_start, 1]), int(self.path[self.path_end, 1])


@dataclass(frozen=True, eq=False)
class DiscoveredPair:
    """Two fragments, of utterances ``first.utterance < second.utterance``, that sound alike.

    ``path`` (K, 2) pairs frames of the first fragment (column 0) with frames of the second
    (column 1); ``distortion`` is the mean local cost along it.
    """

    first: Fragment
    second: Fragment
    distortion: float
    path: np.ndarray


def _check_pairs(pairs) -> list[DiscoveredPair]:
    """``pairs`` as a list, refused by name unless every item is a :class:`DiscoveredPair`."""
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs: expected a list of DiscoveredPair, got {type(pairs).__name__}")
    pairs = list(pairs)
    for k, pair in enumerate(pairs):
        if not isinstance(pair, DiscoveredPair):
            raise TypeError(f"pairs[{k}]: expected a DiscoveredPair, got {type(pair).__name__}")
    return pairs
