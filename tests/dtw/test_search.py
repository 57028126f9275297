"""Tests for course_lib.dtw.search: the bounds are bounds, the pruned searches are exact.

* property tests: LB_Kim and LB_Keogh never exceed the DTW distance, on many random sequences,
  for every step pattern, band and length combination they are stated for, and both are tight
  where the module docstring says they must be;
* the pruned searches return exactly the exhaustive answer (same index, same distance to the last
  bit, lowest index on ties), with the pruning actually happening;
* bad input names the argument (the catalogue cases are in tests/dtw/test_search_bad_input.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from course_lib.recognition import recognisers as R
from course_lib.data.digits import digit_features
from course_lib.dtw.alignment import NoWarpingPathError, _dtw_distance
from course_lib.dtw.distance_matrix import dtw_distance_matrix
from course_lib.dtw.search import (NearestTemplates, lb_keogh, lb_kim, nearest_templates,
                                   subsequence_search)
from course_lib.dtw.step_patterns import ASYMMETRIC_P1, STEP_PATTERNS, StepPattern
from course_lib.dtw.subsequence import subsequence_dtw

PATTERNS = [STEP_PATTERNS[name] for name in STEP_PATTERNS] + [ASYMMETRIC_P1]
PATTERN_IDS = [p.name for p in PATTERNS]
BANDS = [None, 0, 1, 3, 8]
# Bounds and DTW add the same numbers in different orders: they may differ by round-off.
ROUND_OFF = 1e-12


def _seed(*parts) -> list[int]:
    return [sum(map(ord, str(p))) for p in parts]  # str hash() varies between runs


def _length_pairs(rng, count):
    """Lengths n, m: equal, one frame, very different in both directions, and random."""
    fixed = [(1, 1), (1, 4), (4, 1), (6, 6), (3, 11), (11, 3), (9, 14)]
    return fixed + [tuple(rng.integers(1, 16, size=2)) for _ in range(count - len(fixed))]


def _dtw_or_none(x, y, **options):
    try:
        return _dtw_distance(x, y, **options)
    except NoWarpingPathError:
        return None  # no path: nothing to bound


# --- the bounds are lower bounds -----------------------------------------------------------------

@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean"])
@pytest.mark.parametrize("dim", [1, 3])
def test_bounds_never_exceed_dtw(pattern, metric, dim):
    rng = np.random.default_rng(_seed(pattern.name, metric, dim))
    checked = positive = 0
    for n, m in _length_pairs(rng, 50):
        x, y = rng.normal(size=(n, dim)), rng.normal(size=(m, dim))
        kim = lb_kim(x, y, metric=metric, step_pattern=pattern)
        for band in BANDS:
            exact = _dtw_or_none(x, y, band=band, metric=metric, step_pattern=pattern)
            if exact is None:
                continue
            keogh = lb_keogh(x, y, band=band, metric=metric, step_pattern=pattern)
            assert 0.0 <= kim <= exact * (1 + ROUND_OFF), (n, m, band, kim, exact)
            assert 0.0 <= keogh <= exact * (1 + ROUND_OFF), (n, m, band, keogh, exact)
            checked += 1
            positive += keogh > 0
    assert checked >= 60 and positive > checked // 2  # not vacuous: the bounds are mostly > 0


def test_lb_kim_with_cosine_never_exceeds_dtw():
    rng = np.random.default_rng(5)
    for pattern, (n, m) in itertools.product(PATTERNS, _length_pairs(rng, 12)):
        x, y = rng.normal(size=(n, 4)), rng.normal(size=(m, 4))
        exact = _dtw_or_none(x, y, metric="cosine", step_pattern=pattern)
        if exact is not None:
            assert lb_kim(x, y, metric="cosine", step_pattern=pattern) <= exact * (1 + ROUND_OFF)


def test_lb_kim_is_first_and_last_cell():
    x, y = np.array([[0.0], [5.0], [1.0]]), np.array([[3.0], [9.0], [9.0], [2.0]])
    # symmetric2: m(1) = 2, the smallest end weight is 1; normalised by n + m = 7
    assert lb_kim(x, y) == pytest.approx((2 * 3.0 + 1 * 1.0) / 7)
    assert lb_kim(x, y, step_pattern="symmetric1") == pytest.approx(3.0 + 1.0)
    # asymmetricP1: its (1, 2) move gives the end cell weight 1/2; normalised by n = 3
    assert lb_kim(x, y, step_pattern=ASYMMETRIC_P1) == pytest.approx((3.0 + 0.5) / 3)
    assert lb_kim(x[:1], y[:1], step_pattern="symmetric1") == 3.0  # one cell: counted once


@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
def test_lb_keogh_is_exact_on_the_diagonal(pattern):
    # equal lengths and band 0 leave one path, the diagonal, and every box is a single frame
    rng = np.random.default_rng(_seed("diagonal", pattern.name))
    x, y = rng.normal(size=(9, 3)), rng.normal(size=(9, 3))
    assert lb_keogh(x, y, band=0, step_pattern=pattern) == pytest.approx(
        _dtw_distance(x, y, band=0, step_pattern=pattern), rel=ROUND_OFF)


def test_lb_keogh_grows_as_the_band_narrows():
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(20, 3)), rng.normal(size=(26, 3))
    bounds = [lb_keogh(x, y, band=band, step_pattern="symmetric2") for band in (None, 8, 3, 0)]
    assert np.all(np.diff(bounds) >= 0) and bounds[-1] > bounds[0]


def test_lb_keogh_sides_combine_as_the_pattern_allows():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(12, 2)), rng.normal(size=(15, 2))
    rows = lb_keogh(x, y, band=2, step_pattern="asymmetric") * 12   # x's frames only, raw
    columns = lb_keogh(y, x, band=2, step_pattern="asymmetric") * 15  # y's frames only, raw
    assert lb_keogh(x, y, band=2, step_pattern="symmetric1") == pytest.approx(max(rows, columns))
    assert lb_keogh(x, y, band=2, step_pattern="symmetric2") == pytest.approx(
        (rows + columns) / 27)


# --- nearest templates: exactly the exhaustive answer --------------------------------------------

def _clustered(rng, count, dim=3, prototypes=4):
    """Noisy, time-warped copies of a few prototypes: close pairs and far pairs, so pruning
    has something to prune."""
    shapes = [np.cumsum(rng.normal(size=(12, dim)), axis=0) for _ in range(prototypes)]
    out = []
    for k in range(count):
        base = shapes[k % prototypes]
        length = int(rng.integers(8, 17))
        warp = np.sort(rng.uniform(0, len(base) - 1, size=length))
        frames = np.stack([np.interp(warp, np.arange(len(base)), base[:, f])
                           for f in range(dim)], axis=1)
        out.append(frames + 0.2 * rng.normal(size=frames.shape))
    return out


def _assert_exhaustive(found: NearestTemplates, queries, templates, **options):
    full = dtw_distance_matrix(queries, templates, on_no_path="inf", **options)
    np.testing.assert_array_equal(found.index, np.argmin(full, axis=1))
    np.testing.assert_array_equal(found.distance, np.min(full, axis=1))  # bit for bit
    assert found.n_pairs == full.size
    assert (found.pruned_by_kim + found.pruned_by_keogh + found.abandoned
            + found.computed_in_full) == found.n_pairs
    assert 0.0 <= found.pruning_rate <= 1.0


@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
@pytest.mark.parametrize("band", [None, 0, 3])
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean"])
def test_nearest_templates_equals_exhaustive_search(pattern, band, metric):
    rng = np.random.default_rng(_seed(pattern.name, band, metric))
    queries, templates = _clustered(rng, 8), _clustered(rng, 24)
    options = dict(band=band, step_pattern=pattern, metric=metric)
    skipped = 0
    for lower_bounds, early_abandon, leading in itertools.product((True, False), (True, False),
                                                                  (None, 1)):
        found = nearest_templates(queries, templates, lower_bounds=lower_bounds,
                                  early_abandon=early_abandon, leading_features=leading,
                                  on_no_path="inf", **options)
        _assert_exhaustive(found, queries, templates, **options)
        if not lower_bounds:
            assert found.pruned_by_kim == found.pruned_by_keogh == 0
        if not early_abandon:
            assert found.abandoned == 0
        skipped += found.n_pairs - found.computed_in_full
    assert skipped > 0  # the pruning was exercised


def test_nearest_templates_with_cosine_or_a_custom_pattern_abandons_exactly():
    rng = np.random.default_rng(8)
    queries, templates = _clustered(rng, 6), _clustered(rng, 18)
    custom = StepPattern("diagonal-or-across", (((1, 1), ((0, 0, 1.0),)),
                                                ((0, 1), ((0, 0, 1.0),)),
                                                ((1, 0), ((0, 0, 3.0),))),
                         start_weight=1.0, normalisation="none")
    for options in (dict(metric="cosine", step_pattern="symmetric2", band=4),
                    dict(metric="euclidean", step_pattern=custom, band=None)):
        found = nearest_templates(queries, templates, lower_bounds=False, **options)
        _assert_exhaustive(found, queries, templates, **options)
        assert found.abandoned > 0


def test_a_band_wider_than_every_sequence_is_no_band():
    rng = np.random.default_rng(10)
    queries, templates = _clustered(rng, 4), _clustered(rng, 9)
    wide = nearest_templates(queries, templates, band=10 ** 15)
    _assert_exhaustive(wide, queries, templates, band=None)
    assert lb_keogh(queries[0], templates[0], band=10 ** 15) == lb_keogh(
        queries[0], templates[0], band=None)


def test_nearest_templates_parallel_equals_serial():
    rng = np.random.default_rng(9)
    queries, templates = _clustered(rng, 10), _clustered(rng, 20)
    serial = nearest_templates(queries, templates, band=3)
    parallel = nearest_templates(queries, templates, band=3, parallel=True)
    np.testing.assert_array_equal(parallel.index, serial.index)
    np.testing.assert_array_equal(parallel.distance, serial.distance)
    # each query is searched alone, so even the counts agree
    assert (parallel.pruned_by_keogh, parallel.abandoned) == (serial.pruned_by_keogh,
                                                              serial.abandoned)


def test_ties_go_to_the_lowest_index_even_when_it_is_visited_later():
    # A and B are both at DTW distance 3 from the query; B has the smaller LB_Kim, so the search
    # meets B first, and A's bounds (LB_Kim 2, LB_Keogh 3) do not exceed the best: A must win
    query = np.zeros((3, 1))
    a, b = np.ones((3, 1)), np.array([[0.0], [3.0], [0.0]])
    for templates, expected in (([a, b], 0), ([b, a], 0), ([b, a, a], 0), ([a, b, a], 0)):
        found = nearest_templates([query], templates, band=None, step_pattern="symmetric1")
        assert found.index[0] == expected and found.distance[0] == 3.0
        _assert_exhaustive(found, [query], templates, band=None, step_pattern="symmetric1")


def test_no_path_raises_or_gives_minus_one():
    short, long = np.zeros((2, 1)), np.ones((9, 1))
    with pytest.raises(NoWarpingPathError, match="queries"):
        nearest_templates([short], [long], band=None, step_pattern="asymmetric")
    found = nearest_templates([short, long], [long], band=None, step_pattern="asymmetric",
                              on_no_path="inf")
    assert found.index.tolist() == [-1, 0] and found.distance[0] == np.inf


def test_real_digits_same_as_exhaustive_with_pruning():
    train, _, _ = digit_features("train")
    dev, _, _ = digit_features("dev")
    queries, templates = list(dev[:12]), list(train[::4])
    for pattern in ("symmetric1", "symmetric2"):
        options = dict(band=5, step_pattern=pattern)
        found = nearest_templates(queries, templates, leading_features=13, **options)
        _assert_exhaustive(found, queries, templates, **options)
        assert found.pruned_by_keogh > 0 and found.abandoned > 0


# --- query-by-example over many references -------------------------------------------------------

def _exhaustive_qbe(query, references, n_best, **options):
    ranked = []
    for k, reference in enumerate(references):
        try:
            result = subsequence_dtw(query, reference, **options)
        except NoWarpingPathError:
            continue
        ranked.append((result.distance, k, result))
    ranked.sort(key=lambda item: (item[0], item[1]))
    return ranked[:n_best]


@pytest.mark.parametrize("pattern", ["asymmetric", "symmetric1", ASYMMETRIC_P1],
                         ids=["asymmetric", "symmetric1", "asymmetricP1"])
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine"])
def test_subsequence_search_equals_exhaustive_search(pattern, metric):
    rng = np.random.default_rng(_seed(getattr(pattern, "name", pattern), metric))
    query = rng.normal(size=(7, 3))
    references = [rng.normal(size=(int(rng.integers(12, 40)), 3)) for _ in range(12)]
    for k in (3, 8):  # two references hold a noisy copy of the query
        start = int(rng.integers(0, len(references[k]) - 7))
        references[k][start:start + 7] = query + 0.05 * rng.normal(size=query.shape)
    options = dict(step_pattern=pattern, metric=metric)
    abandoned = 0
    for n_best, early_abandon in itertools.product((1, 3, len(references)), (True, False)):
        found = subsequence_search(query, references, n_best=n_best,
                                   early_abandon=early_abandon, **options)
        expected = _exhaustive_qbe(query, references, n_best, **options)
        assert found.reference.tolist() == [k for _, k, _ in expected]
        for match, (distance, _, result) in zip(found.matches, expected):
            assert match.distance == distance  # bit for bit
            assert (match.start, match.end) == (result.start, result.end)
            np.testing.assert_array_equal(match.path, result.path)
        np.testing.assert_array_equal(found.distance, [d for d, _, _ in expected])
        assert found.abandoned + found.computed_in_full == found.n_references == len(references)
        abandoned += found.abandoned
        if not early_abandon:
            assert found.abandoned == 0
    assert abandoned > 0


def test_subsequence_search_finds_the_spoken_digit_in_a_phone_number_like_string():
    dev, labels, _ = digit_features("dev", deltas=False)
    references = [np.concatenate(dev[k:k + 4]) for k in range(0, 40, 4)]
    query = dev[22]  # inside reference 5
    found = subsequence_search(query, references, n_best=2)
    assert found.reference[0] == 5
    start = sum(len(f) for f in dev[20:22])
    assert (found.matches[0].start, found.matches[0].end) == (start, start + len(query) - 1)
    assert found.abandon_rate > 0


# --- the recogniser uses the pruned search -------------------------------------------------------

def test_template_recogniser_predicts_with_the_pruned_search(monkeypatch):
    train, train_labels, _ = digit_features("train")
    dev, _, _ = digit_features("dev")
    templates, labels = list(train[::5]), train_labels[::5]
    queries = list(dev[:20]) + [templates[3].copy()]  # the last one ties between two classes
    templates.append(templates[3].copy())
    labels = np.append(labels, (labels[3] + 1) % 10)  # same frames, another class
    calls = []
    original = R.nearest_templates

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(R, "nearest_templates", spy)
    for options in (dict(band=5), dict(band=None, metric="cosine"),
                    dict(band=3, step_pattern="asymmetric")):
        recogniser = R.TemplateRecogniser(templates, labels, **options)
        exhaustive = recogniser.predict(scores=recogniser.scores(queries))
        calls.clear()
        np.testing.assert_array_equal(recogniser.predict(queries), exhaustive)
        assert len(calls) == 1
    # the tie goes to the first class in sorted order, as argmax over the score columns does
    assert exhaustive[-1] == min(labels[3], (labels[3] + 1) % 10)
    mean = R.TemplateRecogniser(templates, labels, combine="mean", band=5)
    calls.clear()
    mean.predict(queries[:2])
    assert calls == []  # the mean over a class needs every distance


def test_template_recogniser_without_any_path_still_names_the_item():
    recogniser = R.TemplateRecogniser([np.ones((9, 1))], ["a"], step_pattern="asymmetric")
    with pytest.raises(R.NoViableClassError, match="item 0"):
        recogniser.predict([np.zeros((2, 1))])

