"""Spoken term discovery (course_lib.dtw.term_discovery): planted repeats are found, noise is not,
and each step equals an independent computation (library DTW, brute force, hand examples)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from course_lib.dtw import term_discovery as TD
from course_lib.dtw.term_clusters import cluster_fragments
from course_lib.dtw.term_evaluation import evaluate_discoveries, fragment_word
from course_lib.dtw.alignment import dtw_from_cost_matrix, local_cost_matrix

DIM = 13   # as many numbers per frame as the static MFCCs


# --------------------------------------------------------------------------------------------
# Synthetic collections
# --------------------------------------------------------------------------------------------

def smooth_word(rng, frames=32, dim=DIM, knots=6):
    """A word-like trajectory: random key frames joined by straight lines."""
    keys = rng.normal(size=(knots, dim))
    t = np.linspace(0, knots - 1, frames)
    return np.stack([np.interp(t, np.arange(knots), keys[:, k]) for k in range(dim)], axis=1)


def spoken(rng, word, noise=0.25):
    """One rendition of ``word``: stretched or squeezed by up to 25 %, plus noise."""
    length = int(round(len(word) * rng.uniform(0.8, 1.25)))
    t = np.linspace(0, len(word) - 1, length)
    warped = np.stack([np.interp(t, np.arange(len(word)), word[:, k])
                       for k in range(word.shape[1])], axis=1)
    return warped + noise * rng.normal(size=warped.shape)


def planted_collection(rng, transcripts, n_words=3):
    """Utterances made of the given words (indices) with white-noise fillers between them.

    Returns (utterances, word spans, token labels): fillers are tokens too, each with its own
    label, so a match between two fillers counts as wrong.
    """
    vocabulary = [smooth_word(rng) for _ in range(n_words)]
    utterances, spans, labels = [], [], []
    for u, words in enumerate(transcripts):
        pieces, span, label, t = [], [], [], 0
        for k, w in enumerate(list(words) + [None]):
            filler = rng.normal(size=(int(rng.integers(12, 30)), DIM))
            for piece, name in [(filler, f"noise {u}.{k}")] + \
                    ([] if w is None else [(spoken(rng, vocabulary[w]), f"word {w}")]):
                pieces.append(piece)
                span.append((t, t + len(piece) - 1))
                label.append(name)
                t += len(piece)
        utterances.append(np.concatenate(pieces))
        spans.append(np.array(span))
        labels.append(label)
    return utterances, spans, labels


TRANSCRIPTS = [(0, 1), (1, 2), (2, 0), (0, 2), (1, 0), (2, 1)]


# --------------------------------------------------------------------------------------------
# What it must find, and what it must not
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_repeats_are_all_found_and_nothing_else(seed):
    utterances, spans, labels = planted_collection(np.random.default_rng(seed), TRANSCRIPTS)
    pairs = TD.discover_pairs(utterances)
    report = evaluate_discoveries(pairs, spans, labels)
    assert report.n_pairs > 0 and report.precision == 1.0, report.words
    # every pair of utterances that shares a word has a discovered pair on that word
    found = {(p.first.utterance, p.second.utterance, w[0]) for p, w in zip(pairs, report.words)}
    for a, b in itertools.combinations(range(len(TRANSCRIPTS)), 2):
        for w in set(TRANSCRIPTS[a]) & set(TRANSCRIPTS[b]):
            assert (a, b, f"word {w}") in found, f"word {w} shared by {a} and {b} not found"
    # and every planted word token is the word of a right pair
    for u, flags in enumerate(report.found_tokens):
        is_word = np.array([name.startswith("word") for name in labels[u]])
        assert flags[is_word].all() and not flags[~is_word].any()


def test_clusters_of_planted_repeats_are_the_words():
    utterances, spans, labels = planted_collection(np.random.default_rng(3), TRANSCRIPTS)
    clusters = cluster_fragments(TD.discover_pairs(utterances))
    assert len(clusters) == 3
    for cluster in clusters:
        words = {fragment_word(o, spans, labels)[0] for o in cluster}
        assert len(words) == 1 and len(cluster) == 4   # each word is in 4 of the utterances


@pytest.mark.parametrize("dim", [DIM, 39])
def test_no_discoveries_in_white_noise(dim):
    rng = np.random.default_rng(dim)
    noise = [rng.normal(size=(int(rng.integers(120, 200)), dim)) for _ in range(10)]
    assert TD.discover_pairs(noise) == []


def test_no_discoveries_in_smooth_noise_of_mfcc_dimension():
    # strongly correlated frames (like speech) but nothing repeated: AR(1), coefficient 0.9
    rng = np.random.default_rng(5)
    noise = []
    for _ in range(10):
        z = rng.normal(size=(150, 39))
        for t in range(1, len(z)):
            z[t] += 0.9 * z[t - 1]
        noise.append(z - z.mean(axis=0))
    assert TD.discover_pairs(noise) == []


# --------------------------------------------------------------------------------------------
# Each step against an independent computation
# --------------------------------------------------------------------------------------------

def test_band_offsets_by_hand():
    # n = 50, m = 60, R = 10, L = 25: c from -(50 - 25) = -25 to 60 - 25 = 35 in steps of 10
    np.testing.assert_array_equal(TD._band_offsets(50, 60, 10, 25), [-20, -10, 0, 10, 20, 30])
    assert TD._band_offsets(20, 60, 10, 25).size == 0            # shorter than L
    assert TD._band_offsets(25, 25, 10, 25).tolist() == [0]


def test_bands_cover_every_cell_a_fragment_can_use():
    n, m, R, L = 40, 55, 6, 10
    offsets = TD._band_offsets(n, m, R, L)
    i, j = np.indices((n, m))
    covered = np.zeros((n, m), dtype=bool)
    for c in offsets:
        covered |= np.abs(j - i - c) <= R
    reachable = (j - i >= -(n - L)) & (j - i <= m - L)   # diagonals with at least L cells
    assert covered[reachable].all()


@pytest.mark.parametrize("offset", [-17, -5, 0, 3, 12, 20])
def test_band_alignment_equals_library_dtw_on_the_band(offset):
    # The band's DP from where diagonal c enters to where it leaves is symmetric1 DTW with a
    # Sakoe-Chiba band of radius R on the square sub-matrix spanned by that diagonal.
    rng = np.random.default_rng(offset + 100)
    cost = rng.random((30, 36))
    R = 4
    path = TD._band_alignment(cost, offset, R)
    i0, j0 = max(0, -offset), max(0, offset)
    i1 = min(29, 35 - offset)
    sub = cost[i0:i1 + 1, j0:i1 + offset + 1]
    reference = dtw_from_cost_matrix(sub, step_pattern="symmetric1", band=R)
    np.testing.assert_array_equal(path, reference.path + [i0, j0])
    assert np.isclose(cost[path[:, 0], path[:, 1]].sum(), reference.distance, rtol=1e-12)
    assert np.all(np.abs(path[:, 1] - path[:, 0] - offset) <= R)


def test_least_average_segment_equals_brute_force():
    rng = np.random.default_rng(6)
    for trial in range(40):
        values = rng.random(int(rng.integers(5, 40))) + (trial % 3) * rng.normal(size=1) ** 2
        L = int(rng.integers(1, len(values) + 1))
        best = min(((values[s:e + 1].mean(), s, e) for s in range(len(values))
                    for e in range(s + L - 1, len(values))), key=lambda t: t[0])
        start, end, mean = TD._least_average_segment(values, L)
        assert np.isclose(mean, best[0], rtol=1e-12)
        assert np.isclose(values[start:end + 1].mean(), mean, rtol=1e-12)
        assert L <= end - start + 1 <= 2 * L - 1


def test_least_average_segment_by_hand():
    # means of two neighbours: 4.5, 2.5, 0.5, 0.5, 3.5; longer stretches around the 0 average
    # more; of the two tied stretches (positions 2-3 and 3-4) the first is returned
    assert TD._least_average_segment([5, 4, 1, 0, 1, 6], 2) == (2, 3, 0.5)
    assert TD._least_average_segment([3.0, 1.0, 2.0], 3) == (0, 2, 2.0)


def test_segmental_dtw_fragments_are_means_along_their_paths():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(60, DIM)), rng.normal(size=(45, DIM))
    result = TD.segmental_dtw(x, y, band_radius=5, min_length=12)
    np.testing.assert_allclose(result.cost, local_cost_matrix(x, y, metric="cosine"))
    np.testing.assert_array_equal([f.offset for f in result.fragments],
                                  TD._band_offsets(60, 45, 5, 12))
    for f in result.fragments:
        stretch = f.path[f.path_start:f.path_end + 1]
        assert 12 <= len(stretch) <= 23
        assert np.isclose(result.cost[stretch[:, 0], stretch[:, 1]].mean(), f.distortion)
        assert f.first_span == (stretch[0, 0], stretch[-1, 0])
        assert f.second_span == (stretch[0, 1], stretch[-1, 1])


def test_segmental_dtw_is_symmetric():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(50, DIM)), rng.normal(size=(70, DIM))
    forward, backward = TD.segmental_dtw(x, y), TD.segmental_dtw(y, x)
    by_offset = {f.offset: f for f in backward.fragments}
    assert len(forward.fragments) == len(backward.fragments)
    for f in forward.fragments:
        g = by_offset[-f.offset]
        np.testing.assert_array_equal(f.path, g.path[:, ::-1])
        assert np.isclose(f.distortion, g.distortion, rtol=1e-12)


def test_discovered_pairs_drop_duplicates_and_are_sorted():
    utterances, _, _ = planted_collection(np.random.default_rng(9), TRANSCRIPTS)
    pairs = TD.discover_pairs(utterances)
    assert all(p.first.utterance < p.second.utterance for p in pairs)
    assert np.all(np.diff([p.distortion for p in pairs]) >= 0)
    for p, q in itertools.combinations(pairs, 2):
        assert not (p.first.overlap(q.first) and p.second.overlap(q.second))
    # one pair's result gives the same pairs as the collection for that pair
    one = TD.segmental_dtw(utterances[0], utterances[1]).discovered()
    assert [(p.first.start, p.second.start) for p in one] == \
        [(p.first.start, p.second.start) for p in pairs
         if (p.first.utterance, p.second.utterance) == (0, 1)]
