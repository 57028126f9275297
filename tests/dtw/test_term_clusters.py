"""Clustering discovered pairs (course_lib.dtw.term_clusters): occurrences merge, and average
linkage keeps two words apart across one wrong pair."""

from __future__ import annotations

import itertools

import numpy as np

from course_lib.dtw.term_clusters import cluster_fragments
from course_lib.dtw.term_discovery import DiscoveredPair, Fragment


def test_average_linkage_resists_one_wrong_pair():
    F = Fragment

    def pair(f, g):
        return DiscoveredPair(f, g, 0.1, np.zeros((1, 2), dtype=int))

    a = [F(0, 0, 30), F(1, 10, 40), F(2, 5, 35)]       # one word, in three utterances
    b = [F(0, 50, 80), F(3, 0, 30), F(4, 20, 50)]      # another, in three more
    pairs = [pair(f, g) for group in (a, b) for f, g in itertools.combinations(group, 2)]
    pairs.append(pair(a[1], b[1]))                     # one wrong pair between them
    pairs.append(pair(F(0, 2, 31), F(1, 12, 41)))      # a near-duplicate: the same occurrences
    clusters = cluster_fragments(pairs)
    assert sorted(len(c) for c in clusters) == [3, 3]
    assert F(0, 0, 31) in clusters[0] + clusters[1]     # merged occurrence spans both fragments
    # with every link enough to merge (a fraction of 1e-9), the wrong pair chains them
    assert len(cluster_fragments(pairs, min_link_fraction=1e-9)) == 1
