"""Readable numbers on coloured cells: the text colour follows the colour actually drawn."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize

# Relative luminance above which black text reads better than white (WCAG's crossover point).
_LUMINANCE_THRESHOLD = 0.179


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
