"""Plots of recognition results (Units 1-3): the confusion matrix."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import Normalize

from ..recognition import RecognitionReport
from .colour import _text_colours


def plot_confusion_matrix(ax, report: RecognitionReport, *, class_names=None,
                          title: str | None = None, cmap: str = "Blues"):
    """Confusion counts (rows: true class, columns: recognised) with the counts written in.

    The title defaults to the report's accuracy.
    """
    confusion = np.asarray(report.confusion)
    norm = Normalize(0, max(int(confusion.max()), 1))
    ax.imshow(confusion, cmap=cmap, norm=norm, interpolation="nearest")
    names = [str(c) for c in report.classes] if class_names is None else list(class_names)
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("recognised as")
    ax.set_ylabel("true class")
    colours = _text_colours(confusion, cmap, norm)
    for (a, b), count in np.ndenumerate(confusion):
        if count:
            ax.text(b, a, str(count), ha="center", va="center", fontsize=7, color=colours[a, b])
    ax.set_title(f"accuracy {report.accuracy:.3f}" if title is None else title)
    return ax
