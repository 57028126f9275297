"""A redrawn figure's description, read from what it draws (``plotting.describe``), and the
HTML that carries it as alt text into JupyterLab (the explorers' images are tested in
tests/widgets/test_base.py)."""

from __future__ import annotations

import base64
import html
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from course_lib.plotting.describe import describe_figure, described_image_html  # noqa: E402


def test_a_panel_is_described_by_its_title_axes_series_and_labels():
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [1, 4, 9], label="squares")
    ax.plot([0, 1, 2], [0, 1, 2], label="_hidden helper")
    ax.scatter(np.arange(5), np.arange(5))
    ax.set(xlim=(0, 2), ylim=(0, 10), xlabel="time (s)", ylabel=r"$\sigma^2$",
           title="log-likelihood -4.06")
    ax.legend()
    ax.text(1, 5, "peak")
    text = describe_figure(fig)
    plt.close(fig)
    assert text == ('Figure: "log-likelihood -4.06"; x axis "time (s)" from 0 to 2; y axis '
                    '"sigma^2" from 0 to 10; showing 2 lines, 5 points; legend: squares; '
                    'labelled "peak".')


def test_panels_bars_log_axes_images_and_colour_scales_are_named():
    fig, (bars, grid) = plt.subplots(1, 2)
    fig.suptitle("two views")
    bars.bar([0, 1, 2], [0.25, 0.5, 0.25])
    bars.set_yscale("log")
    image = grid.imshow(np.arange(6.0).reshape(2, 3))
    fig.colorbar(image, ax=grid, label="GOP")
    text = describe_figure(fig)
    plt.close(fig)
    assert text.startswith('Figure "two views" in 3 panels. Panel 1: ')
    assert "3 bars of heights 0.25, 0.5, 0.25" in text and "log scale" in text
    assert "a 2 by 3 grid of coloured cells, values 0 to 5" in text
    assert "Panel 3: a colour scale for 'GOP' from 0 to 5." in text


def test_long_lists_are_counted_not_read_out():
    fig, ax = plt.subplots()
    for k in range(11):
        ax.plot([0, 1], [k, k], label=f"rater {k}")
    ax.legend()
    text = describe_figure(fig)
    plt.close(fig)
    assert "showing 11 lines" in text and "rater 7 and 3 more" in text and "rater 8" not in text


def test_an_empty_figure_says_so():
    fig = plt.figure()
    assert describe_figure(fig) == "Figure, with nothing drawn."
    plt.close(fig)


def test_the_image_html_carries_the_png_and_the_escaped_description_twice():
    markup = described_image_html(b"\x89PNG data", 'a "quoted" <b>name</b>')
    escaped = html.escape('a "quoted" <b>name</b>')
    assert markup.count(escaped) == 2 and "<b>" not in markup
    src = re.search(r'src="data:image/png;base64,([^"]+)"', markup).group(1)
    assert base64.b64decode(src) == b"\x89PNG data"
    assert re.search(r'<img [^>]*alt="([^"]*)"', markup).group(1) == escaped
