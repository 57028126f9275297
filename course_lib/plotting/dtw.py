"""Plots for dynamic time warping and spoken term discovery (Unit 1): ``plot_xxx(ax, ...) -> ax``.

Matrices are drawn with ``x`` (the rows, index i) on the vertical axis and ``y`` (the columns,
index j) on the horizontal axis, origin at the bottom left, so a warping path runs from the
bottom-left to the top-right corner as in the slides. Cells outside the band (+inf in the
accumulated matrix) are drawn in light grey.
"""

from __future__ import annotations

import numpy as np
import matplotlib
from matplotlib.collections import LineCollection

from ..dtw.alignment import DTWResult
from ..dtw.subsequence import SubsequenceMatch, SubsequenceResult
from ..dtw.term_discovery import SegmentalDTWResult
from ..validation import as_float_array, as_positive_float, as_positive_int, as_waveform
from .colour import _COURSE_COLOURS

__all__ = ["plot_cost_matrix", "plot_alignment_path", "plot_dtw_result", "plot_frame_mapping",
           "plot_waveform", "plot_subsequence_matches", "plot_segmental_dtw", "plot_discoveries"]


def plot_cost_matrix(ax, matrix, *, title: str = "", cmap: str = "viridis",
                     colorbar: bool = False, row_label: str = "x frame i",
                     col_label: str = "y frame j"):
    """Draw a cost matrix (n, m) (local or accumulated) as an image; +inf cells in grey.

    Rows (frames of the first sequence, ``row_label``) run up the vertical axis, columns
    (frames of the second, ``col_label``) along the horizontal one.
    """
    matrix = as_float_array(matrix, "matrix", ndim=2, allow_inf="+inf")
    shown = np.ma.masked_invalid(matrix)
    colormap = _colormap(cmap)
    image = ax.imshow(shown, origin="lower", aspect="auto", cmap=colormap,
                      interpolation="nearest")
    if colorbar:
        ax.figure.colorbar(image, ax=ax)
    ax.set_xlabel(col_label)
    ax.set_ylabel(row_label)
    if title:
        ax.set_title(title)
    return ax


def _path(path, lengths: tuple[int, int] | None = None) -> np.ndarray:
    """A warping path as an (L, 2) array of whole-number (i, j) rows (within ``lengths``)."""
    path = as_float_array(path, "path", ndim=2)
    if path.shape[1] != 2 or np.any(path != np.round(path)) or np.any(path < 0):
        raise ValueError(f"path: expected (L, 2) rows of frame indices (i, j) >= 0, got shape "
                         f"{path.shape}")
    if lengths is not None and (np.any(path[:, 0] >= lengths[0])
                                or np.any(path[:, 1] >= lengths[1])):
        raise ValueError(f"path: indices beyond the sequences' {lengths[0]} and {lengths[1]} "
                         "frames")
    return path.astype(np.int64)


def _colormap(name):
    return matplotlib.colormaps[name].with_extremes(bad="0.88")


def plot_alignment_path(ax, path, *, color: str = "w", marker: str = ".", label: str | None = None,
                        **line_kwargs):
    """Overlay a warping path (L, 2) of (i, j) rows on a matrix drawn by :func:`plot_cost_matrix`."""
    path = _path(path)
    ax.plot(path[:, 1], path[:, 0], color=color, marker=marker, ms=3, lw=1.2, label=label,
            **line_kwargs)
    return ax


def plot_dtw_result(ax, result: DTWResult, *, which: str = "accumulated", title: str | None = None,
                    path_color: str = "w"):
    """Cost or accumulated matrix of a :class:`DTWResult` with its optimal path on top."""
    if which not in ("cost", "accumulated"):
        raise ValueError(f"which: expected 'cost' or 'accumulated', got {which!r}")
    matrix = result.cost if which == "cost" else result.accumulated
    if title is None:
        title = "local cost d(i, j)" if which == "cost" else "accumulated cost D(i, j)"
    plot_cost_matrix(ax, matrix, title=title)
    return plot_alignment_path(ax, result.path, color=path_color)


def plot_waveform(ax, waveform, sample_rate: float, *, color: str = "C0", title: str = "",
                  max_points: int = 4000):
    """Waveform against time in seconds (long signals are thinned to ``max_points`` for speed)."""
    waveform = as_waveform(waveform, "waveform")
    sample_rate = as_positive_float(sample_rate, "sample_rate")
    max_points = as_positive_int(max_points, "max_points")
    step = max(1, len(waveform) // max_points)
    t = np.arange(0, len(waveform), step) / sample_rate
    ax.plot(t, waveform[::step], color=color, lw=0.6)
    ax.set_xlim(0, len(waveform) / sample_rate)
    ax.set_xlabel("time (s)")
    if title:
        ax.set_title(title)
    return ax


def plot_frame_mapping(ax, x, y, path, *, every: int = 1, x_name: str = "x",
                       y_name: str = "y", cmap: str = "magma"):
    """Which frame of ``x`` is matched to which frame of ``y``.

    ``x`` (n, d) is drawn as an image strip on top, ``y`` (m, d) below (features on the
    vertical axis, frames along the horizontal), and a line joins the centres of frames i and j
    for every ``every``-th pair (i, j) of ``path``.
    """
    # 1-D input is a sequence of scalar frames, as in course_lib.dtw.alignment
    x = as_float_array(x, "x", ndim=(1, 2))
    y = as_float_array(y, "y", ndim=(1, 2))
    path = _path(path, (len(x), len(y)))
    every = as_positive_int(every, "every")
    x = x[:, None] if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    ax.imshow(x.T, extent=(0, len(x), 2.0, 3.0), aspect="auto", cmap=cmap, origin="lower",
              interpolation="nearest")
    ax.imshow(y.T, extent=(0, len(y), 0.0, 1.0), aspect="auto", cmap=cmap, origin="lower",
              interpolation="nearest")
    pairs = path[::max(1, int(every))]
    segments = [((i + 0.5, 2.0), (j + 0.5, 1.0)) for i, j in pairs]
    ax.add_collection(LineCollection(segments, colors="C0", linewidths=0.6, alpha=0.7))
    ax.set_xlim(0, max(len(x), len(y)))
    ax.set_ylim(-0.05, 3.05)
    ax.set_yticks([0.5, 2.5], [y_name, x_name])
    ax.set_xlabel("frame")
    return ax


def plot_subsequence_matches(ax, result: SubsequenceResult,
                             matches: list[SubsequenceMatch] | None = None, *,
                             frame_shift: float | None = None, truth=None):
    """Matching cost along the reference, with the found matches shaded.

    ``matches`` defaults to the single best match of ``result``. With ``frame_shift`` (seconds
    per frame) the horizontal axis is in seconds. ``truth`` is an optional list of reference
    (start, end) frame spans, drawn as black bars under the curve.
    """
    if matches is None:
        matches = [SubsequenceMatch(result.start, result.end, result.distance, result.path)]
    scale = 1.0 if frame_shift is None else float(frame_shift)
    cost = np.ma.masked_invalid(result.matching_cost)
    ax.plot(np.arange(len(cost)) * scale, cost, color="C0", lw=1.0, label="matching cost")
    for rank, match in enumerate(matches):
        ax.axvspan(match.start * scale, (match.end + 1) * scale, color="C1", alpha=0.3,
                   label="matches" if rank == 0 else None)
        ax.annotate(str(rank + 1), ((match.start + match.end + 1) / 2 * scale, match.distance),
                    ha="center", va="bottom", fontsize=8)
    if truth is not None:
        bottom = float(np.min(cost)) if cost.count() else 0.0
        for k, (start, end) in enumerate(truth):
            ax.plot([start * scale, (end + 1) * scale], [bottom, bottom], color="k", lw=4,
                    solid_capstyle="butt", label="reference" if k == 0 else None)
    ax.set_xlabel("reference frame" if frame_shift is None else "time (s)")
    ax.set_ylabel("matching cost")
    ax.legend(loc="upper right", fontsize=8)
    return ax


def plot_segmental_dtw(ax, result: SegmentalDTWResult, *, threshold: float | None = None,
                       x_name: str = "x", y_name: str = "y"):
    """Segmental DTW of one pair: local costs, every band's path, and each band's fragment.

    Band paths are thin white lines; each band's least-average fragment is drawn thick and solid,
    in orange, when its distortion is at most ``threshold`` (a discovered pair), else thinner,
    dashed and grey.
    ``threshold`` is checked as :meth:`SegmentalDTWResult.discovered` checks it (> 0).
    """
    # a NaN threshold would mark no fragment as discovered, silently
    threshold = None if threshold is None else as_positive_float(threshold, "threshold")
    plot_cost_matrix(ax, result.cost, row_label=f"{x_name} frame i", col_label=f"{y_name} frame j")
    found = False
    for fragment in result.fragments:
        path = fragment.path
        ax.plot(path[:, 1], path[:, 0], color="w", lw=0.5, alpha=0.6)
        stretch = path[fragment.path_start:fragment.path_end + 1]
        kept = threshold is not None and fragment.distortion <= threshold
        # kept or not shows in width and dashes as well as colour
        ax.plot(stretch[:, 1], stretch[:, 0], color="C1" if kept else "0.6", lw=3 if kept else 1.8,
                ls="-" if kept else "--", solid_capstyle="butt",
                label="discovered pair" if kept and not found else None)
        found |= kept
    if found:
        ax.legend(loc="upper left", fontsize=8)
    return ax


def _cluster_colour(number: int) -> str:
    return _COURSE_COLOURS[number % len(_COURSE_COLOURS)]


def plot_discoveries(ax, clusters, lengths, *, frame_shift: float = 0.01, names=None,
                     word_spans=None, transcripts=None, max_clusters: int = 10):
    """Where the clusters of discovered fragments lie: one row per utterance, time across.

    ``clusters`` comes from :func:`course_lib.dtw.term_clusters.cluster_fragments` (occurrences as
    :class:`~course_lib.dtw.term_discovery.Fragment`); the ``max_clusters`` largest get a colour and
    a number (the number tells clusters apart where colours repeat or look alike), the rest are
    drawn in grey. ``lengths`` are the utterances' frame counts. With
    ``word_spans`` and ``transcripts`` the known words are written under each row (for reading
    the result, not used to find it).
    """
    lengths = np.asarray(lengths)
    rows = len(lengths)
    for u, length in enumerate(lengths):
        ax.plot([0, length * frame_shift], [u, u], color="0.85", lw=6, solid_capstyle="butt")
        if word_spans is not None:
            for (start, end), word in zip(word_spans[u], transcripts[u]):
                ax.text((start + end + 1) / 2 * frame_shift, u + 0.36, str(word), ha="center",
                        va="center", fontsize=8, color="0.3")
    for number, cluster in enumerate(clusters):
        coloured = number < max_clusters
        for occurrence in cluster:
            ax.plot([occurrence.start * frame_shift, (occurrence.end + 1) * frame_shift],
                    [occurrence.utterance] * 2,
                    color=_cluster_colour(number) if coloured else "0.55",
                    lw=6 if coloured else 3, solid_capstyle="butt")
            if coloured:
                ax.text((occurrence.start + occurrence.end + 1) / 2 * frame_shift,
                        occurrence.utterance - 0.36, str(number + 1), ha="center", va="center",
                        fontsize=8, fontweight="bold", color=_cluster_colour(number))
    ax.set_ylim(rows - 0.4, -0.65)
    ax.set_yticks(range(rows), names if names is not None else [str(u) for u in range(rows)],
                  fontsize=8)
    ax.set_xlim(0, lengths.max() * frame_shift)
    ax.set_xlabel("time (s)")
    return ax
