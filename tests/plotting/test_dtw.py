"""Tests of course_lib.plotting.dtw, Unit 1's figures: a cost matrix and its path, a DTW result,
a waveform against time, which frame is matched to which, a subsequence search's matching cost
and matches, and a segmental DTW's fragments and discoveries, each drawing what it is given
(their bad-input cases are in test_plotting_bad_input.py)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import same_color  # noqa: E402

from course_lib.dtw import term_discovery as TD  # noqa: E402
from course_lib.dtw.alignment import dtw  # noqa: E402
from course_lib.dtw.subsequence import find_matches, subsequence_dtw  # noqa: E402
from course_lib.dtw.term_clusters import cluster_fragments  # noqa: E402
from course_lib.plotting.dtw import (plot_cost_matrix, plot_discoveries,  # noqa: E402
                                     plot_dtw_result, plot_frame_mapping, plot_segmental_dtw,
                                     plot_subsequence_matches, plot_waveform)
from tests.dtw.test_term_discovery import TRANSCRIPTS, planted_collection  # noqa: E402


@pytest.fixture
def ax():
    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


def test_a_dtw_result_is_its_matrix_with_the_path_on_top(ax):
    result = dtw(np.array([0.0, 2, 3, 1]), np.array([0.0, 1, 2, 3, 3, 1]))
    plot_dtw_result(ax, result, which="cost")
    np.testing.assert_array_equal(ax.images[0].get_array(), result.cost)
    # rows are frames of x up the vertical axis: the path is drawn as (j, i)
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), result.path[:, ::-1])
    assert ax.get_title() == "local cost d(i, j)"
    with pytest.raises(ValueError, match="^which"):
        plot_dtw_result(ax, result, which="local")


def test_cells_without_a_path_are_masked_not_coloured(ax):
    plot_cost_matrix(ax, [[0.0, np.inf], [1.0, 2.0]], row_label="query", col_label="template")
    shown = ax.images[0].get_array()
    assert shown.mask.tolist() == [[False, True], [False, False]]
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("query", "template")


def test_a_long_waveform_is_thinned_on_a_time_axis_in_seconds(ax):
    plot_waveform(ax, np.sin(np.arange(16000) / 10), 8000, max_points=1000)
    t = ax.lines[0].get_xdata()
    assert t.size == 1000 and t[1] == 16 / 8000  # every 16th sample: the same division
    assert ax.get_xlim() == (0, 2.0) and ax.get_xlabel() == "time (s)"


def test_frame_mapping_joins_every_nth_pair_of_the_path(ax):
    path = np.array([[0, 0], [1, 1], [1, 2], [2, 3]])
    plot_frame_mapping(ax, np.zeros(3), np.zeros((4, 2)), path, every=2)
    segments = ax.collections[0].get_segments()
    np.testing.assert_array_equal(segments, [[[0.5, 2.0], [0.5, 1.0]], [[1.5, 2.0], [2.5, 1.0]]])
    assert len(ax.images) == 2


def test_subsequence_matches_are_shaded_on_the_matching_cost(ax):
    rng = np.random.default_rng(0)
    reference = rng.normal(size=(40, 2))
    query = reference[10:18]
    result = subsequence_dtw(query, reference)
    matches = find_matches(query, reference, max_matches=2)
    plot_subsequence_matches(ax, result, matches, frame_shift=0.01, truth=[(10, 17)])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), result.matching_cost)
    assert [t.get_text() for t in ax.texts] == ["1", "2"]
    spans = [patch for patch in ax.patches if patch.get_label() != "reference"]
    assert len(spans) == 2 and ax.get_xlabel() == "time (s)"
    bar = [line for line in ax.lines if line.get_label() == "reference"][0]
    np.testing.assert_allclose(bar.get_xdata(), [0.10, 0.18])


def test_segmental_dtw_and_discoveries_draw_what_was_discovered():
    utterances, spans, labels = planted_collection(np.random.default_rng(10), TRANSCRIPTS)
    result = TD.segmental_dtw(utterances[0], utterances[1])
    fig, (left, right) = plt.subplots(1, 2)
    plot_segmental_dtw(left, result, threshold=TD.DEFAULT_THRESHOLD)
    orange = [line for line in left.lines if same_color(line.get_color(), "C1")]
    assert len(orange) == sum(f.distortion <= TD.DEFAULT_THRESHOLD for f in result.fragments) > 0
    assert len(left.lines) == 2 * len(result.fragments)      # every band: path and fragment
    clusters = cluster_fragments(TD.discover_pairs(utterances))
    plot_discoveries(right, clusters, [len(u) for u in utterances], word_spans=spans,
                     transcripts=labels)
    thick = [line for line in right.lines if line.get_linewidth() == 6
             and not same_color(line.get_color(), "0.85")]
    assert len(thick) == sum(map(len, clusters))             # every occurrence, coloured
    assert len(right.texts) == sum(map(len, labels)) + sum(map(len, clusters))
    plt.close(fig)
