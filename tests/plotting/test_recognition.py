"""Tests of course_lib.plotting.recognition: the confusion matrix shows the report's counts,
rows the true class and columns the recognised one, each non-zero count written in a colour
that reads on its cell, and the accuracy as its title."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from course_lib.plotting.colour import _relative_luminance  # noqa: E402
from course_lib.plotting.recognition import plot_confusion_matrix  # noqa: E402
from course_lib.recognition.metrics import evaluate  # noqa: E402


def test_the_confusion_matrix_shows_the_reports_counts():
    report = evaluate(["yes", "yes", "no", "no", "no", "stop"],
                      ["yes", "no", "no", "no", "no", "stop"])
    fig, ax = plt.subplots()
    plot_confusion_matrix(ax, report, class_names=["NO", "STOP", "YES"])
    image = ax.images[0]
    np.testing.assert_array_equal(image.get_array(), report.confusion)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["NO", "STOP", "YES"]
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("true class", "recognised as")
    # one text per non-zero count, at (column = recognised, row = true)
    written = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in ax.texts}
    assert {cell: int(t.get_text()) for cell, t in written.items()} == {
        (a, b): int(c) for (a, b), c in np.ndenumerate(report.confusion) if c}
    for (a, b), text in written.items():  # white on a dark cell, black on a light one
        dark = _relative_luminance(image.cmap(image.norm(report.confusion[a, b]))) <= 0.179
        assert text.get_color() == ("w" if dark else "k")
    assert {t.get_color() for t in ax.texts} == {"w", "k"}  # the counts 3 and 1 test both
    assert ax.get_title() == f"accuracy {5 / 6:.3f}"
    plt.close(fig)
