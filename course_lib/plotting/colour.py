"""The course's colours: one colour-blind-safe cycle for every figure, a second cue (marker or
line style) for each series of a comparison, and readable numbers on coloured cells."""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib import colormaps, cycler
from matplotlib.colors import Normalize

# Okabe and Ito's (2008) colour-universal-design palette, as "C0".."C7": blue, orange, bluish
# green, vermillion, sky blue, reddish purple, brown, black. Matplotlib's default cycle puts
# orange against green and red, which protanopes and deuteranopes see as near-matches;
# tests/plotting/test_colour.py measures both cycles under simulated colour-vision deficiency.
# Brown stands in for Okabe and Ito's yellow, a line hardly seen on white (1.3:1; 7.1:1 now).
# Orange and sky blue stay below WCAG's 3:1 for graphics (2.3:1): any darker orange merges with
# vermillion for deuteranopes and any darker sky blue with blue, and a series in them always
# has its own marker or line style as well.
_COURSE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#8B4513",
                   "#000000")
# The second cue of series k in a comparison, so colour is never the only difference. No dotted
# style: the library draws cut points, thresholds and guides dotted.
_SERIES_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_SERIES_LINESTYLES = ("-", "--", "-.", (0, (6, 2, 1, 2, 1, 2)), (0, (10, 3)),
                      (0, (3, 1, 3, 4)))

# Relative luminance above which black text reads better than white (WCAG's crossover point).
_LUMINANCE_THRESHOLD = 0.179


def _use_course_colours() -> None:
    """Make the course's palette matplotlib's colour cycle, so "C0".."C7" and every colour
    matplotlib picks by itself come from it (``course_lib.plotting`` calls this on import)."""
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(_COURSE_COLOURS))


def _series_marker(index: int) -> str:
    """The marker of series ``index`` of a comparison (cycling)."""
    return _SERIES_MARKERS[index % len(_SERIES_MARKERS)]


def _series_linestyle(index: int):
    """The line style of series ``index`` of a comparison (cycling)."""
    return _SERIES_LINESTYLES[index % len(_SERIES_LINESTYLES)]


def _relative_luminance(rgba) -> np.ndarray:
    """WCAG relative luminance of sRGB colours (..., 3 or 4) in [0, 1]."""
    rgb = np.asarray(rgba, dtype=float)[..., :3]
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def _text_colours(values, cmap, norm: Normalize) -> np.ndarray:
    """"k" or "w" for each value: the one that contrasts with ``cmap(norm(value))``."""
    colours = colormaps[cmap](norm(np.asarray(values, dtype=float))) if isinstance(cmap, str) \
        else cmap(norm(np.asarray(values, dtype=float)))
    return np.where(_relative_luminance(colours) > _LUMINANCE_THRESHOLD, "k", "w")
