"""course_lib.dtw.alignment against dtw-python and dtaidistance on random and real (MFCC) inputs.

Conventions that differ, and how each test maps them:

* First cell weight m(1): ours is the textbook value (2 for symmetric2 / symmetricP1, so the
  weights along any path sum to exactly n + m); dtw-python always uses 1. Hence
  ``D_ours = D_dtwpython + (m(1) - 1) d(0, 0)`` in every cell, and dtw-python's
  ``normalizedDistance`` is ``(D_ours - (m(1) - 1) d(0, 0)) / (n + m)``. Moves, other
  weights, normalisers and optimal paths are the same.
* Band: ours (radius r, widened by |n - m|) is dtaidistance's ``window=r + 1``. dtw-python's
  ``"sakoechiba"`` is not widened, so for dtw-python we pass our band as a window function.
* dtaidistance's default local cost is squared Euclidean with a square root of the total:
  ``sqrt(D_symmetric1(sqeuclidean))``; ``inner_dist="euclidean"`` is our symmetric1 euclidean.
"""

from __future__ import annotations

import dtw as dtw_python
import numpy as np
import pytest
from dtaidistance import dtw_ndim as dtai

from course_lib.data.digits import digit_features
from course_lib.dtw.alignment import band_mask, dtw
from course_lib.dtw.distance_matrix import dtw_distance_matrix
from course_lib.dtw.search import nearest_templates, subsequence_search
from course_lib.dtw.step_patterns import ASYMMETRIC_P1, STEP_PATTERNS
from course_lib.dtw.subsequence import subsequence_dtw

RTOL = 1e-10  # the libraries add the same numbers in other orders (round-off only)


def _random_pairs(seed, count=6, dim=4):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(rng.integers(8, 30), dim)), rng.normal(size=(rng.integers(8, 30), dim)))
            for _ in range(count)]


def our_band_as_window(band):
    """Our widened Sakoe-Chiba band as a dtw-python window function."""
    def window(iw, jw, query_size, reference_size):
        return band_mask(query_size, reference_size, band)[iw, jw]
    return window


def _compare_with_dtw_python(x, y, pattern, band=None, check_path=True):
    ours = dtw(x, y, step_pattern=pattern, band=band)
    kwargs = {} if band is None else {"window_type": our_band_as_window(band)}
    theirs = dtw_python.dtw(x, y, step_pattern=getattr(dtw_python, pattern),
                            keep_internals=True, **kwargs)
    start_correction = (STEP_PATTERNS[pattern].start_weight - 1) * ours.cost[0, 0]
    assert ours.distance - start_correction == pytest.approx(theirs.distance, rel=RTOL)
    reachable = np.isfinite(ours.accumulated)
    np.testing.assert_allclose(ours.accumulated[reachable] - start_correction,
                               theirs.costMatrix[reachable], rtol=RTOL)
    if ours.normaliser is not None:
        assert (ours.distance - start_correction) / ours.normaliser == pytest.approx(
            theirs.normalizedDistance, rel=RTOL)
    if check_path:  # random continuous data: no ties
        np.testing.assert_array_equal(ours.path[:, 0], theirs.index1)
        np.testing.assert_array_equal(ours.path[:, 1], theirs.index2)


@pytest.mark.parametrize("pattern", list(STEP_PATTERNS))
def test_dtw_python_random(pattern):
    for x, y in _random_pairs(sum(map(ord, pattern))):  # str hash() varies between runs
        if pattern in ("asymmetric", "symmetricP1") and not (len(y) - 1 <= 2 * (len(x) - 1) and
                                                              len(x) - 1 <= 2 * (len(y) - 1)):
            continue
        _compare_with_dtw_python(x, y, pattern)


def test_dtw_python_asymmetric_p1_full_alignment():
    # Slopes between 1/2 and 2 only: keep pairs whose lengths admit a path.
    checked = 0
    for x, y in _random_pairs(27, count=12):
        if not (len(y) - 1 <= 2 * (len(x) - 1) and len(x) - 1 <= 2 * (len(y) - 1)):
            continue
        ours = dtw(x, y, step_pattern=ASYMMETRIC_P1)
        theirs = dtw_python.dtw(x, y, step_pattern=dtw_python.asymmetricP1)
        start_correction = (ASYMMETRIC_P1.start_weight - 1) * ours.cost[0, 0]
        assert ours.distance - start_correction == pytest.approx(theirs.distance, rel=RTOL)
        np.testing.assert_array_equal(ours.path[:, 0], theirs.index1)
        np.testing.assert_array_equal(ours.path[:, 1], theirs.index2)
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("pattern", ["symmetric1", "symmetric2", "asymmetric"])
def test_dtw_python_with_band(pattern):
    for x, y in _random_pairs(7):
        if pattern == "asymmetric" and len(y) > 2 * len(x) - 1:
            continue
        _compare_with_dtw_python(x, y, pattern, band=3)


def test_dtw_python_subsequence():
    rng = np.random.default_rng(8)
    for _ in range(5):
        reference = rng.normal(size=(60, 3))
        query = rng.normal(size=(rng.integers(5, 20), 3))
        ours = subsequence_dtw(query, reference, step_pattern="asymmetric")
        theirs = dtw_python.dtw(query, reference, step_pattern=dtw_python.asymmetric,
                                open_begin=True, open_end=True)
        assert ours.distance == pytest.approx(theirs.normalizedDistance, rel=RTOL)
        assert (ours.start, ours.end) == (theirs.index2[0], theirs.index2[-1])
        np.testing.assert_array_equal(ours.path[:, 1], theirs.index2)


@pytest.mark.parametrize("band", [None, 0, 4])
def test_dtaidistance_random(band):
    window = None if band is None else band + 1
    for x, y in _random_pairs(9):
        kwargs = {} if window is None else {"window": window}
        theirs = dtai.distance(x, y, inner_dist="euclidean", **kwargs)
        ours = dtw(x, y, step_pattern="symmetric1", band=band).distance
        assert ours == pytest.approx(theirs, rel=RTOL)
        theirs_sq = dtai.distance(x, y, **kwargs)  # squared euclidean, sqrt of the total
        ours_sq = dtw(x, y, step_pattern="symmetric1", metric="sqeuclidean", band=band).distance
        assert np.sqrt(ours_sq) == pytest.approx(theirs_sq, rel=RTOL)


def test_dtaidistance_distance_matrix_block():
    rng = np.random.default_rng(10)
    queries = [rng.normal(size=(rng.integers(10, 40), 5)) for _ in range(6)]
    templates = [rng.normal(size=(rng.integers(10, 40), 5)) for _ in range(4)]
    everything = queries + templates
    theirs = dtai.distance_matrix_fast(everything, inner_dist="euclidean", parallel=False,
                                       block=((0, 6), (6, 10)))[:6, 6:]
    ours = dtw_distance_matrix(queries, templates, step_pattern="symmetric1")
    np.testing.assert_allclose(ours, theirs, rtol=RTOL)
    theirs_all = dtai.distance_matrix_fast(queries, inner_dist="euclidean", parallel=False,
                                           window=3)
    ours_all = dtw_distance_matrix(queries, step_pattern="symmetric1", band=2)
    upper = np.triu_indices(6, 1)  # dtaidistance leaves the diagonal and lower triangle inf
    np.testing.assert_allclose(ours_all[upper], theirs_all[upper], rtol=RTOL)


# --- real data: MFCCs of the spoken digits ---------------------------------------------------------

def _digit_mfccs():
    features, labels, _ = digit_features("dev", deltas=False)
    return [np.asarray(f) for f in features], labels


def test_real_mfccs_against_dtw_python_and_dtaidistance():
    features, _ = _digit_mfccs()
    picks = features[:12]
    for a, b in zip(picks[:6], picks[6:]):
        _compare_with_dtw_python(a, b, "symmetric2")
        _compare_with_dtw_python(a, b, "symmetric1", band=10, check_path=False)
    ours = dtw_distance_matrix(picks, step_pattern="symmetric1")
    theirs = dtai.distance_matrix_fast(picks, inner_dist="euclidean", parallel=False)
    upper = np.triu_indices(len(picks), 1)
    np.testing.assert_allclose(ours[upper], theirs[upper], rtol=RTOL)


def test_real_mfcc_query_in_a_connected_utterance():
    features, _ = _digit_mfccs()
    reference = np.concatenate(features[20:25])
    query = features[22]
    ours = subsequence_dtw(query, reference)
    theirs = dtw_python.dtw(query, reference, step_pattern=dtw_python.asymmetric,
                            open_begin=True, open_end=True)
    assert ours.distance == pytest.approx(theirs.normalizedDistance, rel=RTOL)
    start = sum(len(f) for f in features[20:22])
    assert (ours.start, ours.end) == (start, start + len(query) - 1)


# --- the pruned searches of course_lib.dtw.search -------------------------------------------------

@pytest.mark.parametrize("band", [None, 5])
def test_nearest_templates_finds_dtaidistance_nearest_templates(band):
    # dtaidistance computes every distance of the block; ours prunes, and must agree
    dev, _, _ = digit_features("dev")
    train, _, _ = digit_features("train")
    queries = [np.ascontiguousarray(f) for f in dev[:15]]
    templates = [np.ascontiguousarray(f) for f in train[::5]]
    everything = queries + templates
    window = {} if band is None else {"window": band + 1}
    theirs = dtai.distance_matrix_fast(everything, inner_dist="euclidean", parallel=False,
                                       block=((0, 15), (15, len(everything))), **window)
    theirs = theirs[:15, 15:]
    found = nearest_templates(queries, templates, band=band, step_pattern="symmetric1",
                              leading_features=13)
    np.testing.assert_array_equal(found.index, np.argmin(theirs, axis=1))
    np.testing.assert_allclose(found.distance, np.min(theirs, axis=1), rtol=RTOL)


def test_subsequence_search_ranks_references_as_dtw_python():
    features, _ = _digit_mfccs()
    references = [np.concatenate(features[k:k + 3]) for k in range(0, 30, 3)]
    query = features[13]  # inside reference 4
    found = subsequence_search(query, references, n_best=3)
    theirs = [dtw_python.dtw(query, reference, step_pattern=dtw_python.asymmetric,
                             open_begin=True, open_end=True).normalizedDistance
              for reference in references]
    np.testing.assert_array_equal(found.reference, np.argsort(theirs, kind="stable")[:3])
    np.testing.assert_allclose(found.distance, np.sort(theirs)[:3], rtol=RTOL)
    assert found.reference[0] == 4
