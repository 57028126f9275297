"""The course's colours (course_lib/plotting/colour.py): a cycle that people with the common
colour-vision deficiencies can still tell apart, applied on import, and a second cue beside
colour in the library's comparison plots.

Colour-vision deficiency is simulated with the matrices of Machado, Oliveira & Fernandes (2009,
"A physiologically-based model for simulation of color vision deficiency", IEEE TVCG 15(6)),
severity 1.0 (protanopia and deuteranopia, together about 2% of men), applied to linear sRGB.
Distances are CIE 1976 Delta E*ab in CIELAB (D65 white).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb

import course_lib.plotting  # noqa: F401  (sets the cycle)
from course_lib.plotting.colour import (_COURSE_COLOURS, _relative_luminance, _series_linestyle,
                                       _series_marker)
from course_lib.plotting.gp import plot_timings
from course_lib.plotting.mixed import plot_likert_levels
from course_lib.plotting.raters import RATER_COLOURS, plot_speedup

# Machado et al. (2009), Table: severity 1.0 (rows give the simulated R, G, B).
CVD_MATRICES = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}
# linear sRGB to CIE XYZ (IEC 61966-2-1), and the D65 white it maps (1, 1, 1) to
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805],
                        [0.2126, 0.7152, 0.0722],
                        [0.0193, 0.1192, 0.9505]])
# Delta E*ab of 2.3 is a just-noticeable difference side by side (Sharma 2003, Digital Color
# Imaging Handbook). Series in a plot are small marks read against a legend, not patches side
# by side, so the cycle must keep a wide margin: at least 15 (six or more JNDs) in every vision.
# Matplotlib's default cycle has orange and green 4.6 apart under protanopia: a near-match.
MIN_DELTA_E = 15.0


def linear_rgb(colours) -> np.ndarray:
    srgb = np.array([to_rgb(colour) for colour in colours])
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def cielab(linear: np.ndarray) -> np.ndarray:
    """CIELAB of linear sRGB rows (CIE 1976 formulas, D65 white)."""
    ratio = (linear @ SRGB_TO_XYZ.T) / SRGB_TO_XYZ.sum(axis=1)
    small = (6 / 29) ** 3
    f = np.where(ratio > small, np.cbrt(ratio), ratio / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]),
                     200 * (f[:, 1] - f[:, 2])], axis=1)


def closest_pair(colours, vision: str) -> tuple[float, str, str]:
    """The smallest Delta E*ab between two of ``colours`` as seen with ``vision``."""
    seen = np.clip(linear_rgb(colours) @ CVD_MATRICES[vision].T, 0.0, 1.0)
    lab = cielab(seen)
    return min((float(np.linalg.norm(lab[i] - lab[j])), colours[i], colours[j])
               for i, j in itertools.combinations(range(len(colours)), 2))


def test_the_colour_science_matches_known_values():
    white, red = cielab(linear_rgb(["#ffffff", "#ff0000"]))
    np.testing.assert_allclose(white, [100.0, 0.0, 0.0], atol=0.01)
    np.testing.assert_allclose(red, [53.24, 80.09, 67.20], atol=0.05)   # sRGB red's CIELAB
    for matrix in CVD_MATRICES.values():          # greys stay grey under every simulation
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("vision", CVD_MATRICES)
def test_the_course_cycle_stays_apart_in_every_vision(vision):
    distance, first, second = closest_pair(_COURSE_COLOURS, vision)
    assert distance >= MIN_DELTA_E, (f"{vision}: {first} and {second} are only "
                                     f"{distance:.1f} apart")


# WCAG 2.1's 1.4.11: a graphic a reader needs reaches 3:1 against its background. Orange and
# sky blue cannot without merging with vermillion and blue (course_lib/plotting/colour.py).
MIN_GRAPHIC_CONTRAST = 3.0
BELOW_3_TO_1 = {"#E69F00", "#56B4E9"}


def contrast_on_white(colour) -> float:
    return 1.05 / (float(_relative_luminance(to_rgb(colour))) + 0.05)


def test_the_cycle_reaches_3_to_1_on_white_but_for_orange_and_sky_blue():
    assert contrast_on_white("#767676") == pytest.approx(4.54, abs=0.01)  # WCAG's known grey
    low = {colour for colour in _COURSE_COLOURS if contrast_on_white(colour) < MIN_GRAPHIC_CONTRAST}
    assert low == BELOW_3_TO_1, f"below 3:1 on white: {sorted(low)}"
    greys = [colour for colour in RATER_COLOURS if not colour.startswith("C")]
    assert min(contrast_on_white(grey) for grey in greys) >= MIN_GRAPHIC_CONTRAST


def test_darker_orange_or_sky_blue_would_merge_with_vermillion_or_blue():
    # why BELOW_3_TO_1 holds its two: each, darkened to 3:1, falls under the cycle's margin
    for light, darker in (("#E69F00", "#C38700"), ("#56B4E9", "#4A9BC8")):
        assert contrast_on_white(darker) >= MIN_GRAPHIC_CONTRAST
        changed = [darker if colour == light else colour for colour in _COURSE_COLOURS]
        assert min(closest_pair(changed, vision)[0] for vision in CVD_MATRICES) < MIN_DELTA_E


def test_the_measure_fails_matplotlibs_default_cycle():
    default = matplotlib.rcParamsDefault["axes.prop_cycle"].by_key()["color"]
    worst = min(closest_pair(default, vision)[0] for vision in CVD_MATRICES)
    assert worst < MIN_DELTA_E


def test_importing_the_plotting_package_sets_the_course_cycle():
    assert plt.rcParams["axes.prop_cycle"].by_key()["color"] == list(_COURSE_COLOURS)
    fig, ax = plt.subplots()
    line, = ax.plot([0, 1])
    assert line.get_color() == _COURSE_COLOURS[0]
    plt.close(fig)


def test_no_plot_reaches_for_matplotlibs_default_palette():
    for path in Path(course_lib.plotting.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for name in ("tab10", "tab:", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"):
            assert name not in text, f"{path.name} uses {name}"


def test_compared_series_differ_in_more_than_colour():
    fig, (timings, speedup, levels) = plt.subplots(1, 3)
    plot_timings(timings, {"exact": ([10, 100], [0.1, 1.0]), "sparse": ([10, 100], [0.1, 0.2]),
                           "other": ([10, 100], [0.2, 0.3])})
    assert len({line.get_marker() for line in timings.lines}) == 3
    plot_speedup(speedup, [1, 2, 4], {"a": [1, 2, 4], "b": [1, 3, 9]}, powers=())
    assert len({line.get_marker() for line in speedup.lines if line.get_label() in "ab"}) == 2
    z = np.linspace(-2, 2, 9)
    plot_likert_levels(levels, z, np.full((9, 3), 1 / 3), [0.0, 0.5, 1.0])
    level_lines = [line for line in levels.lines if line.get_label().startswith("level")]
    assert len({str(line._dash_pattern) for line in level_lines}) == 3
    plt.close(fig)


def test_the_series_cues_cycle_and_avoid_the_dotted_guides():
    assert [_series_marker(k) for k in (0, 8)] == ["o", "o"]
    assert ":" not in [_series_linestyle(k) for k in range(12)]
