"""Goodness of pronunciation on a time line, and a panel's view of one recording (lecture 08).

Colour is never the only cue: every word and phone box carries its GOP as a number, and the
colour map (cividis) is readable with any colour vision and in grey.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from ..metrics import check_scale
from ..validation import as_float_array
from .colour import _text_colours

_GOP_MAP = "cividis"
# GOP in nats per frame: 0 is a phone as good as the best free phone; below about -6 the
# experts' worst sentences sit (lecture 05's example sentences span this range)
_GOP_RANGE = (-8.0, 0.0)
_LABEL_FRACTION = 0.035           # of the time axis: the narrowest box that gets its label


def plot_gop_timeline(ax, phones: Sequence, *, words: bool = True):
    """The phones of one sentence along time (``phones``: objects with ``phone``, ``word``,
    ``word_index``, ``start``, ``end`` and ``gop``, e.g. :class:`course_lib.pronunciation.PhoneScore`),
    each a box coloured by its GOP with the phone and its GOP written in it; with ``words``, a row
    above with each word's span, coloured by its frame-weighted GOP."""
    if len(phones) == 0:
        raise ValueError("phones: expected the aligned phones of a sentence, got none")
    norm = Normalize(*_GOP_RANGE, clip=True)
    starts = np.array([p.start for p in phones])
    ends = np.array([p.end for p in phones])
    gop = np.array([p.gop for p in phones])
    if np.any(ends <= starts) or not np.all(np.isfinite(gop)):
        raise ValueError("phones: expected end > start and a finite GOP for every phone")
    rows = [("phone", starts, ends, gop, [p.phone for p in phones], 0.0)]
    if words:
        index = np.array([p.word_index for p in phones])
        spans = [np.flatnonzero(index == k) for k in dict.fromkeys(index)]
        frames = ends - starts
        rows.append(("word", np.array([starts[s[0]] for s in spans]),
                     np.array([ends[s[-1]] for s in spans]),
                     np.array([np.dot(frames[s], gop[s]) / frames[s].sum() for s in spans]),
                     [phones[s[0]].word.lower() for s in spans], 1.2))
    # a box too narrow for its label keeps only its colour; the text summary lists every phone
    narrowest = _LABEL_FRACTION * (ends.max() - starts.min())
    for _, left, right, values, labels, y in rows:
        ink = _text_colours(values, _GOP_MAP, norm)
        for a, b, value, label, text_colour in zip(left, right, values, labels, ink):
            ax.barh(y, b - a, left=a, height=1.0, color=colormaps[_GOP_MAP](norm(value)),
                    edgecolor="white")
            if b - a >= narrowest:
                ax.text((a + b) / 2, y, f"{label}\n{value:.1f}", ha="center", va="center",
                        fontsize="x-small", color=text_colour)
    ax.figure.colorbar(ScalarMappable(norm, _GOP_MAP), ax=ax, label="GOP", pad=0.01)
    ax.set_yticks([row[5] for row in rows], [row[0] + "s" for row in rows])
    ax.set_ylim(-0.6, rows[-1][5] + 0.6)
    ax.set_xlim(starts.min(), ends.max())
    ax.set_xlabel("time (s)")
    return ax


def _plot_rubric(ax, rubric, low: int, high: int) -> None:
    """The aspect's bands behind the bars: every other band shaded, each named at the top
    (so the anchors are read from words, not from the shading)."""
    for k, (first, last, band, _meaning) in enumerate(sorted(rubric)):
        left, right = max(first, low) - 0.5, min(last, high) + 0.5
        if k % 2:
            ax.axvspan(left, right, color="0.92", zorder=0)
        ax.text((left + right) / 2, 0.97, band, transform=ax.get_xaxis_transform(),
                ha="center", va="top", fontsize="small", color="0.25")


def _plot_panel_distribution(ax, distribution, mean: float, interval_50, interval_90, *,
                             scale=(0, 10), rubric=()):
    """P(an expert drawn at random gives score c) as bars over the scale, and the five experts'
    mean as a diamond with its central 50% (thick) and 90% (thin, capped) intervals above them;
    behind them the bands of ``rubric`` ((low, high, name, meaning) per band)."""
    low, high = check_scale(scale)
    scores = np.arange(low, high + 1)
    distribution = as_float_array(distribution, "distribution", ndim=1)
    if distribution.shape != scores.shape or np.any(distribution < 0):
        raise ValueError(f"distribution: expected {scores.size} probabilities >= 0, one per "
                         f"score {low}..{high}")
    for name, (left, right) in (("interval_50", interval_50), ("interval_90", interval_90)):
        if not left <= right:
            raise ValueError(f"{name}: expected (low, high) with low <= high, got "
                             f"({left:.3g}, {right:.3g})")
    _plot_rubric(ax, rubric, low, high)
    ax.bar(scores, distribution, width=0.8, color="#9ecae1", edgecolor="#08519c",
           label="one expert's score")
    top = 1.1 * distribution.max()
    ax.plot(interval_90, [top, top], color="black", linewidth=1.2, marker="|",
            markersize=12)
    ax.plot(interval_50, [top, top], color="black", linewidth=4.5, solid_capstyle="butt")
    ax.plot([mean], [top], "D", color="black", markerfacecolor="white",
            label=f"five experts' mean {mean:.1f}: 50% (thick) and 90% intervals")
    ax.set_xticks(scores)
    ax.set_xlim(low - 0.6, high + 0.6)
    ax.set_ylim(0, 1.75 * top)          # room for the legend and the bands' names
    ax.set_xlabel("accuracy score")
    ax.set_ylabel("probability")
    ax.legend(loc="upper left", bbox_to_anchor=(0, 0.9), fontsize="small")
    return ax


def panel_figure(prediction) -> Figure:
    """The panel's view of one recording (a :class:`course_lib.pronunciation.panel.PanelPrediction`):
    the distribution of one expert's score and the interval of the five experts' mean over the
    aspect's bands above, the sentence's words and phones by GOP below, a phone flagged
    mispronounced hatched with diagonals and a word not heard as written cross-hatched. A
    recording that did not align has no view to draw (ValueError: show its summary line)."""
    _check_aligned(prediction)
    fig = Figure(figsize=(9, 5.4), layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=(3, 2))
    _plot_panel_distribution(top, prediction.distribution, prediction.mean,
                             prediction.interval_50, prediction.interval_90,
                             rubric=prediction.rubric)
    top.set_title(f"{prediction.aspect.capitalize()}: how the five experts would score it")
    plot_gop_timeline(bottom, prediction.pronunciation.phones)
    # the word row (y 1.2): a word not heard as written is cross-hatched, not only recoloured
    for word in _not_as_written(prediction):
        bottom.barh(1.2, word.end - word.start, left=word.start, height=1.0, fill=False,
                    hatch="xx", edgecolor="black", linewidth=0.0)
    # the phone row (y 0): a phone flagged mispronounced is hatched with diagonals
    for phone in _mispronounced(prediction):
        bottom.barh(0.0, phone.end - phone.start, left=phone.start, height=1.0, fill=False,
                    hatch="///", edgecolor="black", linewidth=0.0)
    marks = (["hatched: a phone flagged mispronounced"] if _mispronounced(prediction) else []) \
        + (["cross-hatched: a word not heard as written"] if _not_as_written(prediction) else [])
    bottom.set_title("Goodness of pronunciation (nats per frame; 0 = as good as the best "
                     "phone)" + "".join(f"; {mark}" for mark in marks), fontsize="small")
    return fig


def _check_aligned(prediction) -> None:
    if not prediction.aligned:
        raise ValueError("prediction: the sentence did not align, so the panel has no view to "
                         "draw; show prediction.summary(), its one line, instead")


def panel_description(prediction) -> str:
    """What :func:`panel_figure` draws for ``prediction``, in words (the figure's alt text):
    every number the top panel shows, and what the bottom panel holds."""
    _check_aligned(prediction)
    (low50, high50), (low90, high90) = prediction.interval_50, prediction.interval_90
    bands = ", ".join(f"{low}-{high} {band}" for low, high, band, _ in sorted(prediction.rubric))
    top = (f"Top, {prediction.aspect} as the five experts would score it: bars give the "
           "probability that one expert drawn at random gives each score from 0 to 10: "
           + ", ".join(f"{100 * p:.0f} %" for p in prediction.distribution)
           + f". Above them a diamond marks the panel mean {prediction.mean:.1f} of 10, the "
           f"predicted mean of the five experts, with a thick line for its 50% interval "
           f"({low50:.1f} to {high50:.1f}) and a thin capped line for its 90% interval "
           f"({low90:.1f} to {high90:.1f}). The background names the rubric's bands: {bands}.")
    misread = _not_as_written(prediction)
    flagged = _mispronounced(prediction)
    return top + (" Bottom: the sentence's words and phones along time, each a box coloured "
                  "by its goodness of pronunciation (dark for poor, yellow for good) and "
                  "labelled with it where the box is wide enough; the text beside the figure "
                  "lists the words that pulled the score down." + (
                      " Hatched with diagonals, as flagged mispronounced: "
                      + ", ".join(f"{p.phone} at {p.start:.2f} s" for p in flagged) + "."
                      if flagged else " No phone is flagged mispronounced.") + (
                      " Cross-hatched, as not heard as written: "
                      + ", ".join(word.word.lower() for word in misread) + "."
                      if misread else ""))


def _not_as_written(prediction) -> list:
    """The words of ``prediction`` (its ``words`` verdicts) not heard as written."""
    return [word for word in prediction.words if word.heard_as_written is False]


def _mispronounced(prediction) -> list:
    """The phones of ``prediction`` (its ``words`` verdicts) flagged mispronounced."""
    return [phone for word in prediction.words for phone in word.phones if phone.mispronounced]
