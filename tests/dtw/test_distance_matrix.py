"""Unit tests for course_lib.dtw.distance_matrix: every query against every template, bit for bit the
single-pair DTW of course_lib.dtw.alignment; normalisation, threads, missing paths, bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.dtw.alignment import NoWarpingPathError, _dtw_distance
from course_lib.dtw.distance_matrix import dtw_distance_matrix
from course_lib.dtw.step_patterns import ASYMMETRIC_P1, STEP_PATTERNS

PATTERNS = list(STEP_PATTERNS)
INF = np.inf


def _sequences(rng, count, low=5, high=15, dim=3):
    return [rng.normal(size=(rng.integers(low, high), dim)) for _ in range(count)]


def _pairwise(queries, templates, options):
    """_dtw_distance of every query-template pair, one call each (inf where no path exists)."""
    out = np.full((len(queries), len(templates)), INF)
    for a, q in enumerate(queries):
        for b, t in enumerate(templates):
            try:
                out[a, b] = _dtw_distance(q, t, **options)
            except NoWarpingPathError:
                pass
    return out


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("metric,band", [("euclidean", None), ("sqeuclidean", 3),
                                         ("cosine", None), ("gaussian_nll", 4)])
def test_distance_matrix_equals_pairwise_calls(pattern, metric, band):
    rng = np.random.default_rng(9)
    queries, templates = _sequences(rng, 4, 8, 14), _sequences(rng, 5, 8, 14)
    variances = np.array([0.5, 1.0, 2.0]) if metric == "gaussian_nll" else None
    options = dict(step_pattern=pattern, metric=metric, band=band, variances=variances)
    matrix = dtw_distance_matrix(queries, templates, on_no_path="inf", **options)
    np.testing.assert_allclose(matrix, _pairwise(queries, templates, options), rtol=1e-12)
    square = dtw_distance_matrix(queries, on_no_path="inf", **options)
    full = dtw_distance_matrix(queries, list(queries), on_no_path="inf", **options)
    np.testing.assert_allclose(square, full, rtol=1e-12)


@pytest.mark.parametrize("pattern", PATTERNS + [ASYMMETRIC_P1],
                         ids=PATTERNS + ["asymmetricP1"])
@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine", "gaussian_nll"])
def test_distance_matrix_is_bit_for_bit_the_single_pair_dtw(pattern, metric):
    # The matrix kernel keeps two rows of D for symmetric1/2, computes two cost rows at once and
    # lets the shorter sequence give the rows of a symmetric pattern; none of it may change a bit.
    name = getattr(pattern, "name", pattern)
    rng = np.random.default_rng([sum(map(ord, name + metric))])
    queries = [rng.normal(size=(n, 3)) for n in (1, 2, 5, 9, 14)]
    templates = [rng.normal(size=(m, 3)) for m in (1, 3, 6, 9, 13)]
    variances = np.array([0.5, 1.0, 2.0]) if metric == "gaussian_nll" else None
    for band in (None, 0, 2):
        options = dict(step_pattern=pattern, metric=metric, band=band, variances=variances)
        matrix = dtw_distance_matrix(queries, templates, on_no_path="inf", **options)
        np.testing.assert_array_equal(matrix, _pairwise(queries, templates, options),
                                      err_msg=f"band={band}")


def test_distance_matrix_normalisation_options():
    rng = np.random.default_rng(10)
    seqs = _sequences(rng, 3)
    raw = dtw_distance_matrix(seqs, normalise=False)
    lengths = np.array([len(s) for s in seqs])
    np.testing.assert_allclose(dtw_distance_matrix(seqs), raw / np.add.outer(lengths, lengths))
    np.testing.assert_allclose(dtw_distance_matrix(seqs, step_pattern="symmetric1"),
                               dtw_distance_matrix(seqs, step_pattern="symmetric1",
                                                   normalise=False))
    with pytest.raises(ValueError, match="normalise"):
        dtw_distance_matrix(seqs, step_pattern="symmetric1", normalise=True)


def test_distance_matrix_parallel_equals_serial():
    rng = np.random.default_rng(11)
    seqs = _sequences(rng, 5)
    np.testing.assert_array_equal(dtw_distance_matrix(seqs, parallel=True),
                                  dtw_distance_matrix(seqs))


def test_distance_matrix_no_path_raises_or_inf():
    short, long = np.zeros((2, 1)), np.ones((9, 1))
    with pytest.raises(NoWarpingPathError, match="step_pattern"):
        dtw_distance_matrix([short], [long], step_pattern="asymmetric")
    out = dtw_distance_matrix([short], [long, short], step_pattern="asymmetric",
                              on_no_path="inf")
    assert np.isinf(out[0, 0]) and out[0, 1] == 0.0


# --- bad input catalogue -------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: dtw_distance_matrix([]), "queries"),
    (lambda: dtw_distance_matrix([np.ones((3, 2)), np.ones((3, 3))]), "queries"),
    (lambda: dtw_distance_matrix([np.ones((3, 2))], [np.ones((3, 3))]), "templates"),
    (lambda: dtw_distance_matrix([np.ones((3, 2))], on_no_path="skip"), "on_no_path"),
    (lambda: dtw_distance_matrix([np.ones((3, 2))], metric="gaussian_nll",
                                 variances=np.ones((3, 2))), "variances"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=f"^{match}"):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: dtw_distance_matrix(np.ones((3, 2))), "queries"),
])
def test_bad_input_type_errors(call, match):
    with pytest.raises((TypeError, ValueError), match=f"^{match}"):
        call()


def test_no_path_error_is_a_value_error_with_a_hint():
    # the lengths are the real obstacle here (asymmetric needs m <= 2n - 1): the hint says so
    with pytest.raises(NoWarpingPathError, match="none without a band either"):
        dtw_distance_matrix([np.ones((3, 1))], [np.ones((9, 1))], step_pattern="asymmetric",
                            band=2)
