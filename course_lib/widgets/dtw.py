"""Explorers for Unit 1 (dynamic time warping).

Each builder takes the utterances to show as data (it loads nothing itself) and returns a
:class:`course_lib.widgets.Explorer`; the alignment is computed by :mod:`course_lib.dtw.alignment` and
drawn by :mod:`course_lib.plotting.dtw`.

An utterance is a tuple ``(waveform, sample_rate, features)``: a 1-D waveform, its sample
rate in Hz, and its ``(T, d)`` feature matrix (rows are frames).

Both explorers put their controls and audio players in a narrow column beside a figure of
640 x 500 pixels, so controls, players and figure fit a 1366 x 768 laptop screen together
(JupyterLab with its file browser open leaves about 930 pixels of width for an output).
"""

from __future__ import annotations

from collections.abc import Mapping

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Audio

from ..dtw.alignment import NoWarpingPathError, band_mask, dtw, local_cost_matrix
from ..dtw.local_costs import METRICS
from ..dtw.alignment import as_sequence
from ..dtw.step_patterns import ASYMMETRIC_P1, STEP_PATTERNS
from ..dtw.subsequence import find_matches, subsequence_dtw
from ..plotting.dtw import (plot_alignment_path, plot_cost_matrix, plot_frame_mapping,
                            plot_subsequence_matches, plot_waveform)
from ..validation import as_bool, as_float_array, as_positive_float, as_positive_int
from .base import Explorer

__all__ = ["alignment_explorer", "subsequence_explorer"]

_FIGURE_SIZE = (6.4, 5.0)        # inches at 100 dpi: 640 x 500 pixels
_COLUMN_WIDTH = "260px"          # controls and players beside the figure


def _check_utterances(utterances, name: str) -> dict:
    if not isinstance(utterances, Mapping) or len(utterances) == 0:
        raise TypeError(f"{name}: expected a non-empty dict name -> (waveform, sample_rate, "
                        f"features)")
    checked = {}
    for key, value in utterances.items():
        if not isinstance(value, (tuple, list)) or len(value) != 3:
            raise TypeError(f"{name}[{key!r}]: expected (waveform, sample_rate, features)")
        waveform, rate, features = value
        checked[str(key)] = (as_float_array(waveform, f"{name}[{key!r}] waveform", ndim=1),
                             as_positive_float(rate, f"{name}[{key!r}] sample_rate"),
                             as_sequence(features, f"{name}[{key!r}] features"))
    dims = {f.shape[1] for _, _, f in checked.values()}
    if len(dims) > 1:
        raise ValueError(f"{name}: features have different dimensions {sorted(dims)}")
    return checked


class _Players:
    """``slots`` labelled audio players in a column; :meth:`show` fills them in order and hides
    the slots it is not given (an all-zero waveform gets its label but no player)."""

    def __init__(self, slots: int):
        self.labels = [W.HTML() for _ in range(slots)]
        self.audio = [W.Audio(format="wav", autoplay=False, loop=False,
                              layout=W.Layout(width="98%")) for _ in range(slots)]
        self.widget = W.VBox([w for pair in zip(self.labels, self.audio) for w in pair])
        self.shown: list[tuple] = []

    def show(self, items) -> None:
        self.shown = list(items)
        for k, (label, audio) in enumerate(zip(self.labels, self.audio)):
            if k < len(self.shown):
                text, waveform, rate = self.shown[k]
                label.value = text
                label.layout.display = None
                audible = bool(np.any(waveform))   # silence cannot be normalised or played
                if audible:
                    audio.value = Audio(waveform, rate=int(rate), normalize=True).data
                audio.layout.display = None if audible else "none"
            else:
                label.layout.display = audio.layout.display = "none"


def _small_waveform(ax, waveform, rate, title, color="C0"):
    """A waveform in a short panel: the time unit goes into the title to save a label row."""
    plot_waveform(ax, waveform, rate, color=color, title=f"{title} (time in s)")
    ax.set_xlabel("")
    ax.title.set_fontsize(9)
    ax.tick_params(labelsize=7)


def _side_by_side(explorer: Explorer, title: str, extra=()) -> W.Box:
    """The explorer's controls (and ``extra`` widgets) in a column left of its figure."""
    for control in explorer.controls.values():
        control.layout.width = "100%"
        control.style.description_width = "76px"
    column = W.VBox([W.HTML(f"<b>{title}</b>"), *explorer.controls.values(), *extra],
                    layout=W.Layout(width=_COLUMN_WIDTH, min_width=_COLUMN_WIDTH))
    return W.HBox([column, explorer.output, explorer._slider_names],
                  layout=W.Layout(align_items="flex-start"))


def alignment_explorer(utterances: Mapping, *, first: str | None = None,
                       second: str | None = None, audio: bool = True) -> Explorer:
    """Align two chosen utterances by DTW and show how.

    Controls: the two utterances, the step pattern, the Sakoe-Chiba band radius in frames
    (the largest value means no band) and the local distance (``gaussian_nll`` uses the
    per-dimension variance of all frames pooled). The figure shows both waveforms, the local
    and the accumulated cost matrices with the optimal path (grey = outside the band), and the
    frame mapping; when the band leaves no path it says so instead of a path. With ``audio``,
    players for the two utterances sit under the controls.
    """
    utterances = _check_utterances(utterances, "utterances")
    audio = as_bool(audio, "audio")
    names = list(utterances)
    first = names[0] if first is None else first
    second = names[min(1, len(names) - 1)] if second is None else second
    for value, label in ((first, "first"), (second, "second")):
        if value not in utterances:
            raise ValueError(f"{label}: {value!r} is not one of the utterances")
    pooled = np.concatenate([f for _, _, f in utterances.values()])
    variances = np.maximum(pooled.var(axis=0), 1e-6)
    longest = max(len(f) for _, _, f in utterances.values())
    controls = {
        "x_name": W.Dropdown(options=names, value=first, description="x"),
        "y_name": W.Dropdown(options=names, value=second, description="y"),
        "step_pattern": W.Dropdown(options=list(STEP_PATTERNS), value="symmetric2",
                                   description="steps"),
        "band": W.IntSlider(value=longest, min=0, max=longest, description="band r",
                            continuous_update=False),
        "metric": W.Dropdown(options=list(METRICS), value="euclidean", description="distance"),
    }

    def render(x_name, y_name, step_pattern, band, metric):
        wave_x, rate_x, x = utterances[x_name]
        wave_y, rate_y, y = utterances[y_name]
        band_r = None if band >= longest else band
        options = {"variances": variances} if metric == "gaussian_nll" else {}
        # fixed margins: constrained layout would double the drawing time
        fig = plt.figure(figsize=_FIGURE_SIZE)
        grid = fig.add_gridspec(3, 2, height_ratios=[0.55, 2.2, 1.0], left=0.1, right=0.99,
                                bottom=0.08, top=0.84, hspace=0.55, wspace=0.3)
        _small_waveform(fig.add_subplot(grid[0, 0]), wave_x, rate_x, f"x = {x_name}")
        _small_waveform(fig.add_subplot(grid[0, 1]), wave_y, rate_y, f"y = {y_name}", "C1")
        ax_cost, ax_acc = fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1])
        ax_map = fig.add_subplot(grid[2, :])
        band_text = "no band" if band_r is None else f"band r = {band_r}"
        try:
            result = dtw(x, y, step_pattern=step_pattern, metric=metric, band=band_r, **options)
        except NoWarpingPathError as err:
            cost = local_cost_matrix(x, y, metric=metric, **options)
            allowed = band_mask(len(x), len(y), band_r)
            plot_cost_matrix(ax_cost, np.where(allowed, cost, np.inf), title="local cost d(i, j)")
            ax_acc.text(0.5, 0.5, "no warping path:\n" + str(err).split(":", 1)[1].strip()[:90],
                        ha="center", va="center", wrap=True, transform=ax_acc.transAxes)
            ax_acc.set_axis_off()
            ax_map.set_axis_off()
            fig.suptitle(f"{step_pattern}, {metric}, {band_text}: no path", fontsize=10)
            return fig
        masked_cost = np.where(np.isfinite(result.accumulated), result.cost, np.inf)
        plot_cost_matrix(ax_cost, masked_cost, title="local cost d(i, j)")
        plot_alignment_path(ax_cost, result.path)
        plot_cost_matrix(ax_acc, result.accumulated, title="accumulated cost D(i, j)")
        plot_alignment_path(ax_acc, result.path)
        plot_frame_mapping(ax_map, x, y, result.path, every=max(1, len(result.path) // 80),
                           x_name="x", y_name="y")
        for ax in (ax_cost, ax_acc):
            ax.title.set_fontsize(10)
        summary = f"D(n-1, m-1) = {result.distance:.4g}"
        if result.normalised_distance is not None:
            summary += (f"; d(X, Y) = D(n-1, m-1) / {result.normaliser:g} = "
                        f"{result.normalised_distance:.4g}")
        fig.suptitle(f"{step_pattern}, {metric}, {band_text}\n{summary}", fontsize=10)
        return fig

    explorer = Explorer(render, controls)
    players = _Players(2)
    if audio:
        def update_players(_change=None):
            players.show([(f"{name} = <b>{controls[key].value}</b>",
                           *utterances[controls[key].value][:2])
                          for key, name in (("x_name", "x"), ("y_name", "y"))])

        for key in ("x_name", "y_name"):
            controls[key].observe(update_players, names="value")
        update_players()
    explorer.players = players
    explorer.widget = _side_by_side(explorer, "DTW alignment of two utterances",
                                    [players.widget] if audio else [])
    return explorer


def subsequence_explorer(queries: Mapping, references: Mapping, *,
                         max_matches: int = 5, frame_shift: float = 0.01) -> Explorer:
    """Query-by-example: search a spoken query inside a longer reference utterance.

    Controls: the query, the reference, the step pattern (those that admit a free start and
    end, including the slope-limited :data:`~course_lib.dtw.step_patterns.ASYMMETRIC_P1`), the local distance
    and how many non-overlapping matches to show. The figure shows the reference waveform with
    the matches shaded, the accumulated cost of subsequence DTW with the best path, and the
    matching cost along the reference (``frame_shift`` seconds per frame). Audio players under
    the controls play the query and the stretch of the reference that best matches it; after a
    failed redraw only the query's player is left, never a match of earlier settings.
    """
    queries = _check_utterances(queries, "queries")
    references = _check_utterances(references, "references")
    max_matches = as_positive_int(max_matches, "max_matches")
    frame_shift = as_positive_float(frame_shift, "frame_shift")
    patterns = [(name, name) for name, p in STEP_PATTERNS.items()
                if p.normalisation in ("n", "none")] + [(ASYMMETRIC_P1.name, ASYMMETRIC_P1)]
    controls = {
        "query": W.Dropdown(options=list(queries), description="query"),
        "reference": W.Dropdown(options=list(references), description="reference"),
        "step_pattern": W.Dropdown(options=patterns, value="asymmetric", description="steps"),
        "metric": W.Dropdown(options=["euclidean", "sqeuclidean", "cosine"],
                             value="euclidean", description="distance"),
        "n_matches": W.IntSlider(value=min(3, max_matches), min=1, max=max_matches,
                                 description="matches", continuous_update=False),
    }

    best = {}   # the settings of the last successful render and the span it found

    def render(query, reference, step_pattern, metric, n_matches):
        best.clear()
        _, _, q = queries[query]
        wave, rate, r = references[reference]
        fig = plt.figure(figsize=_FIGURE_SIZE)
        grid = fig.add_gridspec(3, 1, height_ratios=[0.8, 1.6, 1.3], left=0.12, right=0.99,
                                bottom=0.09, top=0.85, hspace=0.7)
        ax_wave, ax_acc, ax_cost = (fig.add_subplot(grid[k]) for k in range(3))
        _small_waveform(ax_wave, wave, rate, f"reference {reference}")
        if len(q) > len(r):
            ax_acc.text(0.5, 0.5, f"query ({len(q)} frames) is longer than the reference "
                        f"({len(r)} frames)", ha="center", va="center",
                        transform=ax_acc.transAxes)
            ax_acc.set_axis_off()
            ax_cost.set_axis_off()
            return fig
        result = subsequence_dtw(q, r, step_pattern=step_pattern, metric=metric)
        matches = find_matches(q, r, max_matches=n_matches, step_pattern=step_pattern,
                               metric=metric)
        for rank, match in enumerate(matches):
            ax_wave.axvspan(match.start * frame_shift, (match.end + 1) * frame_shift,
                            color="C1", alpha=0.3)
            ax_wave.text((match.start + match.end + 1) / 2 * frame_shift, 0.85, str(rank + 1),
                         transform=ax_wave.get_xaxis_transform(), ha="center", va="top",
                         fontsize=8)
        plot_cost_matrix(ax_acc, result.accumulated, title="accumulated cost (free start/end)",
                         row_label="query frame", col_label="reference frame")
        plot_alignment_path(ax_acc, result.path)
        ax_acc.title.set_fontsize(10)
        plot_subsequence_matches(ax_cost, result, matches, frame_shift=frame_shift)
        ax_cost.set_xlim(0, len(r) * frame_shift)
        fig.suptitle(f"query {query!r} in {reference!r}\nbest match frames "
                     f"{result.start}-{result.end}, cost {result.distance:.4g}", fontsize=10)
        best.update(settings=(query, reference, step_pattern, metric),
                    span=(result.start, result.end))
        return fig

    def now_playing():
        q_wave, q_rate, _ = queries[controls["query"].value]
        shown = [(f"query <b>{controls['query'].value}</b>", q_wave, q_rate)]
        current = tuple(controls[k].value for k in ("query", "reference", "step_pattern",
                                                    "metric"))
        if best.get("settings") == current:
            wave, rate, _ = references[current[1]]
            start, end = best["span"]
            first, last = (round(t * frame_shift * rate) for t in (start, end + 1))
            shown.append((f"best match, {start * frame_shift:.2f}-{(end + 1) * frame_shift:.2f} s",
                          wave[first:last], rate))
        return shown

    explorer = _PlayingExplorer(render, controls, now_playing)
    explorer.widget = _side_by_side(explorer, "Query-by-example search",
                                    [explorer.players.widget])
    return explorer


class _PlayingExplorer(Explorer):
    """An explorer whose audio players are rebuilt after every redraw from ``playing()``."""

    keeps_figures = False   # render also notes the span it found, which the players play

    def __init__(self, render, controls, now_playing):
        super().__init__(render, controls)
        self.players = _Players(2)
        self._now_playing = now_playing

    def playing(self) -> list[tuple]:
        """(label, waveform, sample rate) of each player, from the last successful render."""
        return self._now_playing()

    def refresh(self) -> None:
        super().refresh()
        self.players.show(self.playing())
