"""Clustering the pairs that segmental DTW discovered into word-like units (Unit 1).

Each discovered pair (:func:`course_lib.dtw.term_discovery.discover_pairs`) says "these two
stretches sound alike". Fragments of one utterance that overlap by at least ``min_overlap`` of
the shorter one are taken to be one *occurrence*; two occurrences are linked when a pair joins
them; average-linkage clustering of that link graph groups occurrences that are densely linked
(:func:`cluster_fragments`; Park & Glass 2008 cluster a similar graph by modularity). Ideally one
cluster per recurring word. It is a step after discovery, apart so that the discovery module holds
segmental DTW alone.

Reference: A. Park and J. Glass, "Unsupervised pattern discovery in speech", IEEE Trans. Audio,
Speech and Language Processing 16(1), 2008 (graph clustering of the discovered fragments).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from .term_discovery import Fragment, _check_pairs
from ..validation import as_positive_float

__all__ = ["cluster_fragments"]


def _occurrences(fragments: list[Fragment], min_overlap: float) -> list[list[int]]:
    """Indices of ``fragments`` grouped into occurrences: within one utterance, fragments that
    share at least ``min_overlap`` of the shorter one's frames (and chains of such)."""
    parent = list(range(len(fragments)))

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in itertools.combinations(range(len(fragments)), 2):
        fa, fb = fragments[a], fragments[b]
        if fa.overlap(fb) >= min_overlap * min(fa.length, fb.length):
            parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for k in range(len(fragments)):
        groups.setdefault(root(k), []).append(k)
    return list(groups.values())


def cluster_fragments(pairs, *, min_overlap: float = 0.5,
                      min_link_fraction: float = 0.3) -> list[list[Fragment]]:
    """Group what the discovered ``pairs`` found into clusters of occurrences of one pattern.
    Lecture 01, section 10 (Spoken term discovery: recurring words without any labels).

    1. **Occurrences.** Fragments of one utterance that share at least ``min_overlap`` of the
       shorter one's frames are the same occurrence; it spans all their frames.
    2. **Links.** Two occurrences are linked when a discovered pair joins fragments of them.
    3. **Average linkage.** Starting from single occurrences, the two clusters with the largest
       fraction of linked occurrence pairs between them are merged, as long as that fraction is
       at least ``min_link_fraction`` (agglomerative clustering with average linkage on the
       distance 0 = linked, 1 = not). Unlike connected components, one wrong pair cannot chain
       two words' clusters together: a merge needs many links.

    Returns the clusters, largest first; each is a list of occurrences (a :class:`Fragment` per
    occurrence, sorted by utterance and start).
    """
    pairs = _check_pairs(pairs)
    min_overlap = _as_fraction(min_overlap, "min_overlap")
    min_link_fraction = _as_fraction(min_link_fraction, "min_link_fraction")
    fragments = sorted({f for p in pairs for f in (p.first, p.second)},
                       key=lambda f: (f.utterance, f.start, f.end))
    if not fragments:
        return []
    groups = _occurrences(fragments, min_overlap)
    occurrence_of = {fragments[k]: g for g, members in enumerate(groups) for k in members}
    spans = [Fragment(fragments[members[0]].utterance,
                      min(fragments[k].start for k in members),
                      max(fragments[k].end for k in members)) for members in groups]
    linked = np.zeros((len(groups), len(groups)), dtype=bool)
    for p in pairs:
        a, b = occurrence_of[p.first], occurrence_of[p.second]
        linked[a, b] = linked[b, a] = True
    distance = 1.0 - linked
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    labels = fcluster(tree, t=1.0 - min_link_fraction, criterion="distance")
    clusters: dict[int, list[Fragment]] = {}
    for label, span in zip(labels, spans):
        clusters.setdefault(int(label), []).append(span)
    return sorted((sorted(c, key=lambda f: (f.utterance, f.start)) for c in clusters.values()),
                  key=lambda c: (-len(c), c[0].utterance, c[0].start))


def _as_fraction(value, name: str) -> float:
    value = as_positive_float(value, name)
    if value > 1:
        raise ValueError(f"{name}: a fraction, at most 1, got {value}")
    return value
