"""Unit 1, dynamic time warping: the face of ``course_lib.dtw``.

What the unit teaches, in the order of lecture 01 (each module holds one idea; the cores are listed
in ``docs/ALGORITHMS.md``):

- ``alignment``: the local cost matrix, the DTW recursion with a step pattern and a Sakoe-Chiba
  band, and back-tracking the warping path (Sakoe & Chiba 1978; Rabiner & Juang 1993, ch. 4)
  (:func:`dtw`, :class:`DTWResult`).
- ``step_patterns``: the step patterns as data (:class:`StepPattern`, :data:`STEP_PATTERNS`).
- ``distance_matrix``: DTW of many sequences against many, in one compiled loop
  (:func:`dtw_distance_matrix`).
- ``subsequence``: a short query inside a long recording, with free start and end (Giorgino 2009)
  (:func:`subsequence_dtw`, :func:`find_matches`, :func:`align_words`).
- ``term_discovery``, ``term_clusters``, ``term_evaluation``: spoken term discovery with segmental
  DTW (Park & Glass 2008), clustering the pairs into word-like units, and judging them by known
  word spans.
- ``search``: fast nearest-template and subsequence search with the LB_Kim and LB_Keogh lower
  bounds and early abandoning (Rakthanmanon et al. 2012) (:func:`nearest_templates`,
  :func:`subsequence_search`), and which bound holds for which metric and step pattern.

Compiled beside them: ``local_costs`` (the local distances) and ``pruning`` (the kernels of the
pruned searches: the lower bounds, the band's envelope and early abandoning).
"""

from .alignment import (band_mask, dtw, dtw_from_cost_matrix, DTWResult, local_cost_matrix,
                        NoWarpingPathError)
from .step_patterns import ASYMMETRIC_P1, STEP_PATTERNS, StepPattern
from .distance_matrix import dtw_distance_matrix
from .subsequence import (align_words, find_matches, subsequence_dtw, SubsequenceMatch,
                          SubsequenceResult)
from .search import (lb_keogh, lb_kim, nearest_templates, NearestTemplates, subsequence_search,
                     SubsequenceSearch)
from .term_discovery import (BandFragment, DEFAULT_THRESHOLD, discover_pairs, DiscoveredPair,
                             Fragment, segmental_dtw, SegmentalDTWResult)
from .term_clusters import cluster_fragments
from .term_evaluation import DiscoveryReport, evaluate_discoveries, fragment_word

__all__ = [
    "NoWarpingPathError", "local_cost_matrix", "band_mask", "DTWResult", "dtw_from_cost_matrix",
    "dtw", "STEP_PATTERNS", "ASYMMETRIC_P1", "StepPattern", "dtw_distance_matrix",
    "SubsequenceMatch", "SubsequenceResult", "subsequence_dtw", "find_matches", "align_words",
    "lb_kim", "lb_keogh", "NearestTemplates", "nearest_templates", "SubsequenceSearch",
    "subsequence_search", "DEFAULT_THRESHOLD", "SegmentalDTWResult", "segmental_dtw",
    "discover_pairs", "Fragment", "BandFragment", "DiscoveredPair", "cluster_fragments",
    "DiscoveryReport", "fragment_word", "evaluate_discoveries",
]
