"""The sixth-rater panel (course_lib.widgets.listener_panel) as a student meets it.

A clip goes by one number everywhere (heading, status, figure, load messages); compare on an
unscored clip says what it shows; a score changed after compare is marked in place until the
next compare; a re-run cell resumes the saved sheet and never replaces a file it has not read
without asking; the synthetic set shows the hidden truth it promises. Widgets stay consistent
after every error. Beside the figure, the noise and bias intervals are the class page's, with
the coverage measured for listeners alone with as many scores. The fits run on a small context
(the same function, fewer sentences).
"""

from __future__ import annotations

import functools
import html
import json

import matplotlib
import numpy as np
import pytest
from widget_harness import control_settings

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from course_lib.class_panel.score_model import class_ratings_model  # noqa: E402
from course_lib.class_panel.verdict_trust import counted_share as share  # noqa: E402
from course_lib.plotting.listener_panel import listener_figure  # noqa: E402
from course_lib.raters.listener_panel import ScoreSheet, panel_with_listener  # noqa: E402
from course_lib.rater_data import RaterData  # noqa: E402
from course_lib.results import load_result  # noqa: E402
from course_lib.widgets import base as widgets_base  # noqa: E402
from course_lib.widgets import listener_panel as module  # noqa: E402
from course_lib.widgets.listener_panel import _NOT_SCORED, rate_yourself  # noqa: E402
from course_lib.widgets.status import _StatusLine  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    """Every figure the panel shows, in order; the fits on 30 context sentences."""
    shown = []
    original = widgets_base._figure_image   # what base._drawn draws with

    def recorded(fig, description=None):
        shown.append({"title": fig.axes[-1].get_title(),
                      "lines": {line.get_label(): line.get_xdata()[0]
                                for line in fig.axes[-1].get_lines()},
                      "texts": [text.get_text() for text in fig.axes[-1].texts]})
        return original(fig, description)

    monkeypatch.setattr(widgets_base, "_figure_image", recorded)
    monkeypatch.setattr(module, "panel_with_listener",
                        functools.partial(panel_with_listener, n_context=30))
    yield shown
    plt.close("all")


def score(panel, scores: dict[int, str]) -> None:
    for clip, value in scores.items():
        panel.show(clip)
        panel.score_buttons.value = value


def test_a_clip_goes_by_one_number_everywhere(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json")
    score(panel, {0: "6", 1: "5", 2: "7"})
    assert panel.heading.value.startswith("Clip 3 of 20") and panel.status.value.endswith(
        "clip 3: 7</span>")
    panel.show(1)
    panel.compare()
    panel.show(2)
    assert figures[-1]["title"].startswith("clip 3:"), figures[-1]["title"]
    (shown,) = panel.output.outputs   # the figure drawn last, with its description
    assert shown["data"]["text/html"].startswith('<img src="data:image/png;base64,')
    items = list(panel.sheet.items)
    (tmp_path / "edited.json").write_text(json.dumps({"items": items,
                                                     "scores": [6, 5, 12] + [None] * 17}))
    panel.file.value = str(tmp_path / "edited.json")
    panel.load()
    assert "clip 3: expected a whole score 0-10, got 12; kept 7" in panel.status.value
    assert panel.sheet.scores[:3] == [6, 5, 7]


def test_every_score_button_is_kept_and_shown(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json")
    panel.show(4)
    panel.score_buttons.value = "10"                 # so that every setting below is a change
    for value in control_settings(panel.score_buttons):
        panel.score_buttons.value = value
        kept = None if value == _NOT_SCORED else int(value)
        assert panel.sheet.scores[4] == kept and panel.status.value.endswith(
            f"clip 5: {value}</span>")
        assert panel.heading.value.endswith(f"({panel.sheet.n_scored} of 20 scored)")


def test_compare_on_an_unscored_clip_says_what_it_shows(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json")
    score(panel, {0: "6", 1: "5", 2: "7"})
    panel.show(3)
    panel.compare()
    assert panel.result is not None
    assert "clip 4 is not scored" in panel.status.value, panel.status.value
    assert figures and figures[-1]["title"].startswith("clip 4:")
    assert any("clip 4 was not scored" in text for text in figures[-1]["texts"])
    panel.show(0)
    assert figures[-1]["lines"]["your score"] == 6


def test_a_score_changed_after_compare_is_marked_until_the_next(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json")
    score(panel, {0: "6", 1: "5", 2: "7"})
    panel.compare()
    first = panel.result
    assert panel.note.value == ""
    assert isinstance(panel.note, _StatusLine)        # a live region: the note is read out
    panel.score_buttons.value = "2"                   # clip 3, rescored
    assert "compare again" in panel.status.value
    assert "Not refitted" in panel.note.value and "clip 3: 7 → 2" in panel.note.value
    assert figures[-1]["lines"]["your score"] == 7    # the fit's score, not the new one
    assert panel.result is first
    panel.show(3)
    panel.score_buttons.value = "9"                   # a clip the fit never saw
    assert f"clip 4: {_NOT_SCORED} → 9" in panel.note.value
    panel.compare()
    assert panel.note.value == "" and panel.result is not first
    panel.show(2)
    assert figures[-1]["lines"]["your score"] == 2
    for clip in (0, 1, 2):                           # too few scores: the old fit stays, marked
        panel.show(clip)
        panel.score_buttons.value = _NOT_SCORED
    panel.compare()
    assert "score at least 3" in panel.status.value and "earlier" in panel.status.value
    assert "Not refitted" in panel.note.value and f"clip 1: 6 → {_NOT_SCORED}" in panel.note.value


def test_a_rerun_cell_resumes_the_saved_sheet(tmp_path, figures):
    path = tmp_path / "scores.json"
    panel = rate_yourself(path)
    score(panel, {0: "6", 1: "5", 2: "7"})
    panel.save()
    again = rate_yourself(path)                      # the cell run once more
    assert again.sheet.scores == panel.sheet.scores
    assert "3 of 20 scored" in again.heading.value and "loaded" in again.status.value
    again.show(3)
    again.score_buttons.value = "4"
    again.save()                                     # its own file: saved at once
    assert json.loads(path.read_text())["scores"][:4] == [6, 5, 7, 4]


def test_save_never_replaces_an_unread_file_silently(tmp_path, figures):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"items": [1, 2, 3], "scores": [4, 5, 6]}))
    panel = rate_yourself(tmp_path / "mine.json")
    score(panel, {0: "6"})
    panel.file.value = str(other)
    panel.save()
    assert "holds scores this explorer has not loaded" in panel.status.value
    assert json.loads(other.read_text())["scores"] == [4, 5, 6]
    panel.save()                                     # asked once: now replaced
    assert panel.status.value.count("saved 1 score to") == 1
    assert json.loads(other.read_text())["scores"][0] == 6
    # a sheet of other clips found at start is reported, and not replaced without asking
    other.write_text(json.dumps({"items": [1, 2, 3], "scores": [4, 5, 6]}))
    resumed = rate_yourself(other)
    assert "item 1: not one of this sheet's clips" in resumed.status.value.replace("&#x27;", "'")
    assert resumed.sheet.n_scored == 0
    resumed.save()
    assert json.loads(other.read_text())["items"] == [1, 2, 3]
    (tmp_path / "broken.json").write_text("not json")
    broken = rate_yourself(tmp_path / "broken.json")
    assert "not a saved score sheet" in broken.status.value and broken.sheet.n_scored == 0
    broken.save()
    assert (tmp_path / "broken.json").read_text() == "not json"


def test_the_synthetic_set_shows_the_hidden_truth_it_promises(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json", data_set="fluency")
    score(panel, {0: "3", 1: "2", 2: "4"})
    panel.compare()
    assert "hidden true fluency" in panel.status.value
    truth = panel.clips[2].truth
    assert figures[-1]["lines"][f"hidden true fluency {truth:.1f}"] == truth
    experts = rate_yourself(tmp_path / "experts.json")
    score(experts, {0: "3", 1: "2", 2: "4"})
    experts.compare()
    assert "hidden" not in experts.status.value
    assert not any(label.startswith("hidden") for label in figures[-1]["lines"])


def test_widget_keeps_its_state_through_errors(tmp_path, figures):
    widget = rate_yourself(tmp_path / "scores.json")
    widget.score_buttons.value = "8"
    widget.show(1)
    widget.score_buttons.value = "3"
    assert widget.sheet.scores[:2] == [8, 3]
    widget.compare()                                       # two scores: refused, nothing lost
    assert "score at least 3" in widget.status.value and widget.result is None
    assert widget.sheet.scores[:2] == [8, 3] and not figures
    widget.file.value = str(tmp_path / "missing" / "scores.json")
    widget.save()
    assert "could not save" in widget.status.value and "kept" in widget.status.value
    widget.file.value = str(tmp_path / "scores.json")
    widget.save()
    widget.score_buttons.value = _NOT_SCORED
    widget.load()
    assert widget.sheet.scores[:2] == [8, 3] and widget.score_buttons.value == "3"
    widget.show(0)
    assert widget.score_buttons.value == "8" and "Clip 1 of 20" in widget.heading.value


def test_given_clips_and_sheet_are_played_and_scored_as_given(tmp_path, figures):
    """The class rating round's way in (course_lib.widgets.class_panel): clips in another
    order, a sheet of the same clips; a sheet of other clips is refused by name."""
    clips = rate_yourself(tmp_path / "first.json").clips[::-1]
    sheet = ScoreSheet([clip.item for clip in clips])
    panel = module.RateYourself(tmp_path / "scores.json", clips=clips, sheet=sheet)
    panel.score_buttons.value = "9"
    assert panel.sheet is sheet and sheet.scores[0] == 9 and sheet.items[0] == clips[0].item
    assert panel.progress() == f"1 of 20 scored, but {tmp_path / 'scores.json'} does not " \
        "hold them all: press save"
    panel.save()
    assert panel.progress() == f"1 of 20 scored, all saved in {tmp_path / 'scores.json'}"
    with pytest.raises(ValueError, match="^sheet: its items are not the clips'"):
        module.RateYourself(tmp_path / "s.json", clips=clips, sheet=ScoreSheet(sheet.items[::-1]))
    with pytest.raises(TypeError, match="^sheet: expected a ScoreSheet"):
        module.RateYourself(tmp_path / "s.json", sheet={"items": sheet.items})


def test_autosave_saves_every_score_and_keeps_an_unread_file(tmp_path, figures):
    path = tmp_path / "scores.json"
    path.write_text("not json")
    panel = module.RateYourself(path, autosave=True)
    assert "not a saved score sheet" in panel.status.value
    assert (tmp_path / "scores.unread-1.json").read_text() == "not json"
    panel.score_buttons.value = "4"
    assert panel.status.value.endswith(f"clip 1: 4; saved 1 score to {path}</span>")
    assert json.loads(path.read_text())["scores"][0] == 4
    path.write_text("made meanwhile")                 # a file that appeared after the start
    panel.score_buttons.value = "5"
    assert "the file that was there is kept as scores.unread-2.json" in panel.status.value
    assert (tmp_path / "scores.unread-2.json").read_text() == "made meanwhile"
    assert json.loads(path.read_text())["scores"][0] == 5


def test_compare_with_the_fewest_scores_says_how_far_to_trust_the_intervals(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json")
    score(panel, {0: "6", 1: "5", 2: "7"})           # the fewest compare accepts
    panel.compare()
    text = html.unescape(panel.trust.value)
    measured = load_result("class_panel_calibration")["result"]["alone_summary"]["3"]
    assert (f"on {measured['listeners']:,} simulated listeners of known truth who each scored 3 "
            f"clips alone, " in text
            and f"held the true noise for "
                f"{share(measured['noise_held'], measured['noise_intervals'])} listeners who got "
                f"one, and the true bias for "
                f"{share(measured['bias_held'], measured['bias_intervals'])}" in text), text
    beside = panel.beside
    low, high = beside.noise_interval
    assert f"90 % Bayesian credible interval: {low:.2f} to {high:.2f}" in text, text
    # three scores leave the noise wide: no expert is told apart, and the text says so
    assert all(low <= v <= high for v in beside.expert_noise)
    assert "cannot tell you apart from the experts on noise" in text, text


def test_the_figures_intervals_are_the_class_pages_for_the_same_scores(tmp_path, figures):
    panel = rate_yourself(tmp_path / "scores.json")
    score(panel, {0: "6", 1: "5", 2: "7", 3: "3"})
    panel.compare()
    items, scores = panel.sheet.scored()
    ratings = RaterData.from_long(range(items.size), [0] * items.size, scores,
                                  n_items=items.size, n_raters=1, scale=(0, 10))
    page = class_ratings_model((ratings, ("amber-otter-07",), items), panel.panel)
    assert np.allclose(panel.beside.noise_interval, page.noise_interval[0])
    assert np.allclose(panel.beside.bias_interval, page.bias_interval[0])
    assert np.allclose(panel.beside.expert_noise, page.expert_noise_variance)
    fig = listener_figure(panel.result, panel.clip, beside=panel.beside)
    (drawn,) = [c for c in fig.axes[0].collections if len(c.get_segments()) == 1]
    assert np.allclose(drawn.get_segments()[0][:, 1], page.noise_interval[0])
    plt.close(fig)
