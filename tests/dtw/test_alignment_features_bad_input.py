"""Bad-input catalogue: DTW, spoken term discovery, the MFCC front end and the Unit 1 explorers.

Each case calls a public function of Unit 1 wrongly; it must raise the stated error with a message
that names the user's argument (see tests/bad_input.py). Families: dtw, term_discovery, features,
widgets (the recogniser's precomputed ``distances=`` are in the recognition family).
"""

import numpy as np

from bad_input import BadInput, check_case, parametrize
from course_lib.dtw import alignment as D
from course_lib.dtw import distance_matrix as DM
from course_lib.dtw import subsequence as DS
from course_lib import features as F
from course_lib import recognition as R
from course_lib.dtw import term_clusters as TC
from course_lib.dtw import term_discovery as TD
from course_lib.dtw import term_evaluation as TE
from course_lib.dtw.term_discovery import DiscoveredPair, Fragment
from course_lib.widgets.dtw import alignment_explorer, subsequence_explorer

X = np.random.default_rng(0).normal(size=(10, 3))
Y = np.random.default_rng(1).normal(size=(12, 3))
SIGNAL = np.random.default_rng(2).normal(size=400)
RATE = 8000
UTTERANCES = {"a": (np.zeros(800), RATE, X), "b": (np.ones(960), RATE, Y)}
SPANS, WORDS = [np.array([[0, 4], [5, 9]])], [("one", "two")]


def pair(first_utterance, second_utterance):
    return DiscoveredPair(Fragment(first_utterance, 0, 3), Fragment(second_utterance, 0, 3),
                          0.1, np.zeros((4, 2), dtype=int))


CASES = [
    # --- dtw --------------------------------------------------------------------------------
    BadInput("dtw: complex x", lambda: D.dtw(X + 1j, Y), TypeError, "x"),
    BadInput("dtw: 3-D x", lambda: D.dtw(np.zeros((2, 3, 4)), Y), ValueError, "x"),
    BadInput("dtw: empty y", lambda: D.dtw(X, np.zeros((0, 3))), ValueError, "y"),
    BadInput("dtw: y with another feature dimension", lambda: D.dtw(X, Y[:, :2]), ValueError, "y"),
    BadInput("dtw: NaN in y", lambda: D.dtw(X, np.full((4, 3), np.nan)), ValueError, "y"),
    BadInput("dtw: x as a string", lambda: D.dtw("abc", Y), TypeError, "x"),
    BadInput("dtw: ragged x", lambda: D.dtw([[1.0, 2.0], [3.0]], Y), TypeError, "x"),
    BadInput("dtw: huge Python int in x", lambda: D.dtw([[10 ** 400]], [[1.0]]), ValueError, "x"),
    BadInput("dtw: values of 1e200 overflow the distances", lambda: D.dtw(X * 1e200, Y),
             ValueError, "x"),
    BadInput("dtw: negative band", lambda: D.dtw(X, Y, band=-1), ValueError, "band"),
    BadInput("dtw: fractional band", lambda: D.dtw(X, Y, band=2.5), TypeError, "band"),
    BadInput("dtw: unknown step pattern", lambda: D.dtw(X, Y, step_pattern="symmetric3"),
             ValueError, "step_pattern"),
    BadInput("dtw: unknown metric", lambda: D.dtw(X, Y, metric="manhattan"), ValueError,
             "metric"),
    BadInput("dtw: variances of the wrong shape",
             lambda: D.dtw(X, Y, metric="gaussian_nll", variances=np.ones(5)), ValueError,
             "variances"),
    BadInput("dtw: negative variances",
             lambda: D.dtw(X, Y, metric="gaussian_nll", variances=-np.ones(3)), ValueError,
             "variances"),
    BadInput("dtw: variances without gaussian_nll", lambda: D.dtw(X, Y, variances=np.ones(3)),
             ValueError, "variances"),
    BadInput("dtw: cosine with an all-zero frame",
             lambda: D.dtw(np.zeros((3, 3)), Y, metric="cosine"), ValueError, "x"),
    BadInput("subsequence_dtw: cosine with an all-zero frame in the query",
             lambda: DS.subsequence_dtw(np.zeros((3, 3)), Y, metric="cosine"), ValueError,
             "query", first=True),
    BadInput("subsequence_dtw: cosine with an all-zero frame in the reference",
             lambda: DS.subsequence_dtw(X[:3], np.zeros((8, 3)), metric="cosine"), ValueError,
             "reference", first=True),
    BadInput("align_words: cosine with an all-zero frame in a template",
             lambda: DS.align_words(X, [Y[:3], np.zeros((3, 3))], metric="cosine"), ValueError,
             "word_templates", first=True),
    BadInput("dtw: the band leaves no path",
             lambda: D.dtw(X[:4], Y, step_pattern="asymmetric", band=0), D.NoWarpingPathError,
             "band"),
    BadInput("dtw: one sequence where a list is expected", lambda: DM.dtw_distance_matrix(X),
             TypeError, "queries"),
    BadInput("dtw: normalise not a bool", lambda: DM.dtw_distance_matrix([X], normalise="yes"),
             TypeError, "normalise"),
    BadInput("dtw: parallel not a bool", lambda: DM.dtw_distance_matrix([X], parallel="yes"),
             TypeError, "parallel"),
    BadInput("dtw: query longer than the reference", lambda: DS.subsequence_dtw(Y, X),
             ValueError, "query"),
    BadInput("dtw: subsequence with a span-normalised pattern",
             lambda: DS.subsequence_dtw(X, Y, step_pattern="symmetric2"), ValueError,
             "step_pattern"),
    BadInput("dtw: no matches asked for", lambda: DS.find_matches(X, Y, max_matches=0),
             ValueError, "max_matches"),
    BadInput("dtw: too few templates per class", lambda: R.select_templates([0, 1, 1], 2),
             ValueError, "n_per_class"),
    BadInput("dtw: word templates as one array", lambda: DS.align_words(X, Y), TypeError,
             "word_templates"),
    # --- term_discovery ---------------------------------------------------------------------
    BadInput("term_discovery: a single utterance", lambda: TD.discover_pairs([X]), ValueError,
             "utterances"),
    BadInput("term_discovery: band radius 0", lambda: TD.discover_pairs([X, Y], band_radius=0),
             ValueError, "band_radius"),
    BadInput("term_discovery: minimum length 1", lambda: TD.discover_pairs([X, Y], min_length=1),
             ValueError, "min_length"),
    BadInput("term_discovery: negative threshold",
             lambda: TD.discover_pairs([X, Y], threshold=-0.1), ValueError, "threshold"),
    BadInput("term_discovery: euclidean without a threshold",
             lambda: TD.discover_pairs([X, Y], metric="euclidean"), ValueError, "threshold"),
    BadInput("term_discovery: unsupported metric",
             lambda: TD.discover_pairs([X, Y], metric="gaussian_nll"), ValueError, "metric"),
    BadInput("term_discovery: all-zero frame under cosine",
             lambda: TD.discover_pairs([X, np.zeros((12, 3))]), ValueError, "utterances[1]"),
    BadInput("term_discovery: utterances of different dimensions",
             lambda: TD.discover_pairs([X, Y[:, :2]]), ValueError, "utterances"),
    BadInput("term_discovery: complex x in segmental_dtw", lambda: TD.segmental_dtw(X + 1j, Y),
             TypeError, "x"),
    BadInput("term_discovery: offset off the matrix",
             lambda: TD._band_alignment(np.ones((5, 5)), 9, 2), ValueError, "offset"),
    BadInput("term_discovery: negative local costs",
             lambda: TD._band_alignment(-np.ones((5, 5)), 0, 2), ValueError, "cost"),
    BadInput("term_discovery: min_length longer than the values",
             lambda: TD._least_average_segment([1.0, 2.0], 3), ValueError, "min_length"),
    BadInput("term_discovery: pairs that are not DiscoveredPair",
             lambda: TC.cluster_fragments([1, 2]), TypeError, "pairs[0]"),
    BadInput("term_discovery: overlap fraction above 1",
             lambda: TC.cluster_fragments([], min_overlap=1.5), ValueError, "min_overlap"),
    BadInput("term_discovery: one transcript too many",
             lambda: TE.evaluate_discoveries([], SPANS, WORDS * 2), ValueError, "transcripts"),
    BadInput("term_discovery: word span that ends before it starts",
             lambda: TE.evaluate_discoveries([], [np.array([[4, 0], [5, 9]])], WORDS),
             ValueError, "word_spans[0]"),
    BadInput("term_discovery: pair of an unknown utterance",
             lambda: TE.evaluate_discoveries([pair(0, 3)], SPANS, WORDS), ValueError,
             "pairs[0]"),
    # --- features ---------------------------------------------------------------------------
    BadInput("features: append_energy as a string",
             lambda: F.mfcc(SIGNAL, RATE, append_energy="no"), TypeError, "append_energy"),
    BadInput("features: negative preemph", lambda: F.mfcc(SIGNAL, RATE, preemph=-0.5),
             ValueError, "preemph"),
    BadInput("features: preemph above 1", lambda: F.mfcc(SIGNAL, RATE, preemph=1.5),
             ValueError, "preemph"),
    BadInput("features: negative cep_lifter", lambda: F.mfcc(SIGNAL, RATE, cep_lifter=-1),
             ValueError, "cep_lifter"),
    BadInput("features: fractional cep_lifter", lambda: F.mfcc(SIGNAL, RATE, cep_lifter=2.5),
             TypeError, "cep_lifter"),
    BadInput("features: signal of 1e200 overflows the power spectrum",
             lambda: F.mfcc(np.full(400, 1e200), RATE), ValueError, "signal"),
    BadInput("features: complex signal", lambda: F.mfcc(SIGNAL + 1j, RATE), TypeError, "signal"),
    BadInput("features: 2-D signal", lambda: F.mfcc(np.ones((400, 2)), RATE), ValueError,
             "signal"),
    BadInput("features: empty signal", lambda: F.mfcc([], RATE), ValueError, "signal"),
    BadInput("features: huge Python int sample rate", lambda: F.mfcc(SIGNAL, 10 ** 400),
             ValueError, "sample_rate"),
    BadInput("features: more filters than FFT bins",
             lambda: F.mfcc(SIGNAL, RATE, n_filters=200), ValueError, "n_filters"),
    BadInput("features: nfft of a terabyte", lambda: F.mfcc(SIGNAL, RATE, nfft=2 ** 40),
             ValueError, "nfft"),
    BadInput("features: frame length of a billion seconds",
             lambda: F.mfcc(SIGNAL, RATE, frame_length_s=1e9), ValueError, "frame_length_s"),
    BadInput("features: delta window of a trillion frames",
             lambda: F.delta(np.ones((4, 2)), N=10 ** 12), ValueError, "N"),
    BadInput("features: mean of values near the float64 limit",
             lambda: F._mean_normalise(np.array([[1e308], [1e308]])), ValueError, "features"),
    BadInput("features: mel value whose frequency overflows", lambda: F._mel_to_hz(1e6),
             ValueError, "m"),
    BadInput("features: cmn not a bool", lambda: F.mfcc_features(SIGNAL, RATE, cmn=None),
             TypeError, "cmn"),
    # --- widgets ----------------------------------------------------------------------------
    BadInput("widgets: utterances as a list", lambda: alignment_explorer([1, 2]), TypeError,
             "utterances"),
    BadInput("widgets: utterance without features",
             lambda: alignment_explorer({"a": (np.zeros(10), RATE)}), TypeError,
             "utterances['a']"),
    BadInput("widgets: unknown first utterance",
             lambda: alignment_explorer(UTTERANCES, first="nope"), ValueError, "first"),
    BadInput("widgets: features of different dimensions",
             lambda: alignment_explorer({"a": (np.zeros(10), RATE, X),
                                         "b": (np.zeros(10), RATE, Y[:, :2])}),
             ValueError, "utterances"),
    BadInput("widgets: negative sample rate",
             lambda: alignment_explorer({"a": (np.zeros(10), -RATE, X)}), ValueError,
             "utterances['a'] sample_rate"),
    BadInput("widgets: audio flag as a string",
             lambda: alignment_explorer(UTTERANCES, audio="yes"), TypeError, "audio"),
    BadInput("widgets: no matches to show",
             lambda: subsequence_explorer(UTTERANCES, UTTERANCES, max_matches=0), ValueError,
             "max_matches"),
    BadInput("widgets: zero frame shift",
             lambda: subsequence_explorer(UTTERANCES, UTTERANCES, frame_shift=0), ValueError,
             "frame_shift"),
    BadInput("widgets: NaN in a query's features",
             lambda: subsequence_explorer({"q": (np.zeros(10), RATE, np.full((3, 3), np.nan))},
                                          UTTERANCES), ValueError, "queries['q'] features"),
]


@parametrize(CASES)
def test_bad_input(case):
    check_case(case)
