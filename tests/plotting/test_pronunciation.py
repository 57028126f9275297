"""The panel's figure (``plotting.pronunciation``): it draws the five experts' mean with its 50%
and 90% intervals (not +-2 latent sd) over the rubric's named bands, and its description says
what it draws, a phone flagged mispronounced is hatched and named, and a recording that did not
align gets no figure. Drawn from a hand-made prediction, so no corpus or scorer is needed."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from course_lib.plotting.pronunciation import (panel_description, _plot_panel_distribution,
                                               panel_figure)
from course_lib.pronunciation import PhoneScore, Pronunciation
from course_lib.pronunciation.word_scores import PhoneVerdict, WordVerdict

RUBRIC = ((9, 10, "excellent", "no noticeable mistake"), (7, 8, "good", "a few mistakes"),
          (5, 6, "understandable", "many mistakes"), (3, 4, "poor", "serious mistakes"),
          (0, 2, "very poor", "hardly a word"))


def prediction(aligned: bool = True, heard_as_written: bool = True,
               mispronounced: bool = False):
    phones = (PhoneScore(0, "HELLO", "HH", 0.1, 0.2, -1.0), PhoneScore(0, "HELLO", "AH", 0.2,
                                                                       0.3, -4.5))
    distribution = np.array([0, 0, 0, 0.01, 0.04, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05])
    verdicts = (PhoneVerdict("HH", -1.0, "HH", 1.9, False, 0.1, 0.2),
                PhoneVerdict("AH", -4.5, "EH", 1.2, mispronounced, 0.2, 0.3))
    words = (WordVerdict("HELLO", 0.1, 0.3, -2.75, 6.0, verdicts, heard_as_written),) \
        if aligned else ()
    return SimpleNamespace(
        aspect="accuracy", mean=6.8, interval_50=(6.3, 7.3), interval_90=(5.6, 8.0),
        distribution=distribution, rubric=RUBRIC, aligned=aligned, words=words,
        pronunciation=Pronunciation("HELLO", phones if aligned else (), aligned, -2.0, -1.0, ()))


def test_a_word_not_heard_as_written_is_cross_hatched_and_described():
    read, misread = (panel_figure(prediction(heard_as_written=flag)).axes[1]
                     for flag in (True, False))
    hatched = [patch for patch in misread.patches if patch.get_hatch()]
    assert not any(patch.get_hatch() for patch in read.patches) and len(hatched) == 1
    assert hatched[0].get_x() == pytest.approx(0.1) and hatched[0].get_width() == pytest.approx(0.2)
    assert "cross-hatched" in misread.get_title() and "cross-hatched" not in read.get_title()
    assert "Cross-hatched, as not heard as written: hello." in panel_description(
        prediction(heard_as_written=False))
    assert "Cross-hatched" not in panel_description(prediction())


def test_the_figure_draws_the_experts_mean_and_its_two_intervals_over_the_named_bands():
    fig = panel_figure(prediction())
    top = fig.axes[0]
    lines = {tuple(np.round(line.get_xdata(), 6)): line for line in top.get_lines()}
    assert (5.6, 8.0) in lines and (6.3, 7.3) in lines and (6.8,) in lines
    assert lines[(6.3, 7.3)].get_linewidth() > lines[(5.6, 8.0)].get_linewidth()
    texts = [text.get_text() for text in top.texts]
    assert [band for *_, band, _ in sorted(RUBRIC)] == texts
    legend = [text.get_text() for text in top.get_legend().get_texts()]
    assert "five experts' mean 6.8: 50% (thick) and 90% intervals" in legend
    assert not any("sd" in entry for entry in legend)
    assert top.get_title().startswith("Accuracy")
    assert len(top.patches) == 11 + 2       # the bars and the two shaded bands


def test_the_description_says_what_is_drawn():
    text = panel_description(prediction())
    assert "panel mean 6.8 of 10" in text
    assert "50% interval (6.3 to 7.3)" in text and "90% interval (5.6 to 8.0)" in text
    assert "0 %, 0 %, 0 %, 1 %, 4 %, 10 %, 20 %, 30 %, 20 %, 10 %, 5 %" in text
    assert "0-2 very poor, 3-4 poor, 5-6 understandable, 7-8 good, 9-10 excellent" in text
    assert "phones along time" in text and "No phone is flagged mispronounced." in text


def test_a_phone_flagged_mispronounced_is_hatched_and_named():
    plain, flagged = (panel_figure(prediction(mispronounced=flag)).axes[1]
                      for flag in (False, True))
    hatched = [patch for patch in flagged.patches if patch.get_hatch() == "///"]
    assert not any(patch.get_hatch() for patch in plain.patches) and len(hatched) == 1
    # the flagged phone is AH, from 0.2 to 0.3 s, on the phone row (y 0)
    assert hatched[0].get_x() == pytest.approx(0.2) and hatched[0].get_width() == pytest.approx(0.1)
    assert hatched[0].get_y() + hatched[0].get_height() / 2 == pytest.approx(0.0)
    assert "a phone flagged mispronounced" in flagged.get_title()
    assert "Hatched with diagonals, as flagged mispronounced: AH at 0.20 s." in \
        panel_description(prediction(mispronounced=True))


def test_a_recording_that_did_not_align_has_no_figure():
    for draw in (panel_figure, panel_description):
        with pytest.raises(ValueError, match="^prediction: the sentence did not align"):
            draw(prediction(aligned=False))


def test_bad_input_is_named():
    fig = panel_figure(prediction())
    ax = fig.axes[0]
    with pytest.raises(ValueError, match="^distribution:"):
        _plot_panel_distribution(ax, np.ones(3) / 3, 5.0, (4, 6), (3, 7))
    with pytest.raises(ValueError, match="^interval_90:"):
        _plot_panel_distribution(ax, np.ones(11) / 11, 5.0, (4, 6), (7, 3))
