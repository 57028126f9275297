"""A figure's description composed from what it draws, for the figures widgets redraw.

A notebook cell's figures carry descriptions written for them (``figure_descriptions``, see
``plotting.lab_descriptions``). An explorer's figure changes with its controls, so no fixed text
can describe it: :func:`describe_figure` reads the figure instead, panel by panel: its title,
each axis's label and the range it shows, the series named in its legend, how many lines, point
sets, bars and images it holds, its colour scale and its direct labels. Its titles and labels
carry the key numbers (a log-likelihood, a posterior mean), so the text follows the controls.
"""

from __future__ import annotations

import base64
import html
import re

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

_MOST_NAMES = 8     # legend entries, direct labels and bar heights named per panel; more counted


def _plain(text: str) -> str:
    """``text`` without mathtext markup, which a screen reader would spell out: "$\\gamma_{nk}$"
    becomes "gamma_nk"."""
    if "$" not in text:
        return text.strip()
    return re.sub(r"\\([A-Za-z]+)", r"\1", text).replace("$", "").replace("{", "").replace(
        "}", "").strip()


def _number(value: float) -> str:
    return f"{value:.3g}"


def _axis_text(ax, which: str) -> str:
    label = _plain(ax.get_xlabel() if which == "x" else ax.get_ylabel())
    low, high = ax.get_xlim() if which == "x" else ax.get_ylim()
    scale = ax.get_xscale() if which == "x" else ax.get_yscale()
    name = f'"{label}"' if label else "(unlabelled)"
    span = f"from {_number(min(low, high))} to {_number(max(low, high))}"
    return f"{which} axis {name} {span}" + (f", {scale} scale" if scale != "linear" else "")


def _named(texts: list[str]) -> str:
    shown = ", ".join(texts[:_MOST_NAMES])
    more = len(texts) - _MOST_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def _contents(ax) -> list[str]:
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) > 0]
    points = sum(len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection))
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_height() != 0]
    images = [im for im in ax.get_images() if isinstance(im, AxesImage)]
    parts = []
    if lines:
        parts.append(f"{len(lines)} line{'s' * (len(lines) != 1)}")
    if points:
        parts.append(f"{points} point{'s' * (points != 1)}")
    if bars:
        heights = [_number(bar.get_height()) for bar in bars]
        parts.append(f"{len(bars)} bar{'s' * (len(bars) != 1)}" + (
            f" of heights {_named(heights)}" if len(bars) <= _MOST_NAMES else ""))
    for image in images:
        rows, columns = np.shape(image.get_array())[:2]
        low, high = image.get_clim()
        parts.append(f"a {rows} by {columns} grid of coloured cells, values "
                     f"{_number(low)} to {_number(high)}")
    return parts


def _panel_text(ax) -> str:
    if ax.get_label() == "<colorbar>":
        label = _plain(ax.get_ylabel() or ax.get_xlabel())
        low, high = sorted(ax.get_ylim() if ax.get_ylabel() or not ax.get_xlabel()
                           else ax.get_xlim())
        return (f'a colour scale{f" for {label!r}" if label else ""} from {_number(low)} '
                f"to {_number(high)}")
    title = _plain(ax.get_title())
    parts = [f'"{title}"'] if title else []
    if ax.axison:
        parts += [_axis_text(ax, "x"), _axis_text(ax, "y")]
    contents = _contents(ax)
    if contents:
        parts.append("showing " + ", ".join(contents))
    legend = [_plain(text) for text in ax.get_legend_handles_labels()[1]
              if not text.startswith("_")]
    if legend:
        parts.append("legend: " + _named(legend))
    labels = [_plain(text.get_text()) for text in ax.texts if text.get_text().strip()]
    if labels:
        parts.append("labelled " + _named([f'"{text}"' for text in labels]))
    return "; ".join(parts) or "an empty panel"


def describe_figure(fig) -> str:
    """One paragraph saying what ``fig`` shows, read from its artists (see the module text)."""
    panels = [ax for ax in fig.axes if ax.get_visible()]
    title = _plain(fig.get_suptitle())
    head = f'Figure "{title}"' if title else "Figure"
    if not panels:
        return f"{head}, with nothing drawn."
    if len(panels) == 1:
        return f"{head}: {_panel_text(panels[0])}."
    body = " ".join(f"Panel {k}: {_panel_text(ax)}." for k, ax in enumerate(panels, 1))
    return f"{head} in {len(panels)} panels. {body}"


def described_image_html(png: bytes | str, description: str) -> str:
    """A PNG (bytes, or already base64) as HTML: the image with ``description`` as its alt
    text, and the description again in a closed ``<details>`` beneath it for every reader."""
    data = png if isinstance(png, str) else base64.b64encode(png).decode("ascii")
    text = html.escape(description)
    return (f'<img src="data:image/png;base64,{data}" alt="{text}">'
            '<details class="course-figure-description"><summary>Description of the '
            f"figure</summary><p>{text}</p></details>")
