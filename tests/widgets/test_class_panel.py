"""The two class activities as a student meets them (course_lib.widgets.class_panel).

Every control is driven as a student would (the answer and score buttons through the widget
harness's settings, previous / next pressed), and after each answer the sheet on disk is read
back: the class sheet's JSON, the answer at the activity's own item, whatever the student's
order. A re-run cell takes the sheet up again; a file there that cannot be read whole is
renamed and kept, never replaced; a failed save keeps the answers and says so; a damaged
pseudonym file is named with what to do, and nothing is written. COURSE_CLASS_HOME points at a
temporary folder, so no test reads or writes the real home.
"""

from __future__ import annotations

import functools
import json

import matplotlib
import pytest
from widget_harness import control_settings

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from course_lib.class_panel.activities import compare_activity, rate_activity  # noqa: E402
from course_lib.class_panel.sheets import Identity, my_identity  # noqa: E402
from course_lib.raters.listener_panel import panel_with_listener  # noqa: E402
from course_lib.stimuli import wav_bytes  # noqa: E402
from course_lib.widgets import listener_panel as rate_module  # noqa: E402
from course_lib.widgets.class_panel import (_ANSWERS, _COMPARE_FILE, _RATE_FILE,  # noqa: E402
                                            class_compare, class_rate)

LABELS = {answer: label for label, answer in _ANSWERS}


@pytest.fixture
def home(tmp_path, monkeypatch):
    """The student's pseudonym folder, in a temporary place."""
    folder = tmp_path / "home"
    monkeypatch.setenv("COURSE_CLASS_HOME", str(folder))
    return folder


@pytest.fixture
def folder(tmp_path):
    """The notebook's folder."""
    path = tmp_path / "assignment"
    path.mkdir()
    return path


def on_disk(path) -> list:
    return json.loads(path.read_text(encoding="utf-8"))["answers"]


def plain(status) -> str:
    return status.value.replace("&#x27;", "'")


def test_compare_plays_the_students_order_and_saves_every_answer_at_once(home, folder):
    panel = class_compare(folder=folder)
    me = my_identity()
    activity = compare_activity()
    assert panel.sheet.order == activity.order_for(me.pseudonym)
    assert me.pseudonym in panel.widget.children[1].value and "not on the sheet" in \
        panel.widget.children[1].value
    assert panel.heading.value == "Pair 1 of 15 (0 of 15 answered)"
    assert panel.progress() == "0 of 15 answered: nothing saved yet"
    assert not (folder / _COMPARE_FILE).exists()          # nothing written before an answer
    index = panel.sheet.order[0]
    first, second = activity.versions(index)
    assert panel.players["first"].value == wav_bytes(first)
    assert panel.players["second"].value == wav_bytes(second)
    for value in control_settings(panel.answer_buttons):    # every answer, then None back
        panel.answer_buttons.value = value
        assert panel.sheet.answers[index] == value
        assert on_disk(folder / _COMPARE_FILE) == panel.sheet.answers
        assert plain(panel.status).endswith(
            f"pair 1: {LABELS.get(value, 'no answer')}; saved {panel.sheet.n_answered} answer{'s' * (panel.sheet.n_answered != 1)} "
            f"to {folder / _COMPARE_FILE}</span>")
        assert panel.heading.value.endswith(f"({panel.sheet.n_answered} of 15 answered)")
    panel.answer_buttons.value = "second"
    panel.next.click()
    assert panel.position == 1 and panel.answer_buttons.value is None
    assert panel.players["first"].value == wav_bytes(activity.versions(panel.sheet.order[1])[0])
    panel.answer_buttons.value = "none"
    panel.previous.click()
    assert panel.position == 0 and panel.answer_buttons.value == "second"
    panel.previous.click()                                   # wraps round to the last pair
    assert panel.position == 14 and panel.heading.value.startswith("Pair 15 of 15")
    saved = json.loads((folder / _COMPARE_FILE).read_text(encoding="utf-8"))
    assert saved["pseudonym"] == me.pseudonym and saved["key"] == me.key
    assert saved["answers"][panel.sheet.order[0]] == "second"
    assert saved["answers"][panel.sheet.order[1]] == "none"
    assert panel.progress() == f"2 of 15 answered, all saved in {folder / _COMPARE_FILE}"


def test_controls_have_names_a_screen_reader_can_read(home, folder):
    panel = class_compare(folder=folder)
    assert [label for label, _ in panel.answer_buttons.options] == [
        "first is better", "can't decide", "second is better"]
    assert all(panel.answer_buttons.tooltips)
    assert (panel.previous.description, panel.next.description) == ("previous pair",
                                                                     "next pair")
    names = [type(child).__name__ for child in panel.widget.children]
    assert "_SliderNames" in names and "_StatusLine" in names


def test_a_rerun_cell_takes_up_the_saved_answers(home, folder):
    panel = class_compare(folder=folder)
    for value in ("first", "none", "second"):
        panel.answer_buttons.value = value
        panel.next.click()
    again = class_compare(folder=folder)
    assert again.sheet.answers == panel.sheet.answers
    assert "(3 of 15 answered)" in again.heading.value and again.answer_buttons.value == "first"
    assert plain(again.status).endswith(f"loaded {folder / _COMPARE_FILE}: 3 of 15 "
                                        "answered</span>")
    again.show(3)
    again.answer("none")
    assert on_disk(folder / _COMPARE_FILE).count(None) == 11


@pytest.mark.parametrize("content, reason", [
    ("not json", "is not a sheet of this activity"),
    ("", "is not a sheet of this activity"),
    ("[1, 2]", "is not a sheet of this activity"),
    ("other seed", "this activity is 'equaliser-"),
])
def test_a_file_that_cannot_be_read_is_kept_under_another_name(home, folder, content, reason):
    path = folder / _COMPARE_FILE
    if content == "other seed":
        other = class_compare(7, folder=folder)
        other.answer("first")
        content = path.read_text(encoding="utf-8")
    path.write_text(content, encoding="utf-8")
    panel = class_compare(folder=folder)
    aside = folder / "class_sheet_compare.unread-1.json"
    assert reason in plain(panel.status) and "kept as class_sheet_compare.unread-1.json" in \
        plain(panel.status)
    assert aside.read_text(encoding="utf-8") == content and not path.exists()
    assert panel.sheet.n_answered == 0
    panel.answer("second")
    assert on_disk(path).count("second") == 1
    assert aside.read_text(encoding="utf-8") == content


def test_a_sheet_with_a_bad_entry_keeps_the_rest_and_the_file_as_it_was(home, folder):
    panel = class_compare(folder=folder)
    panel.answer("first")
    panel.show(1)
    panel.answer("none")
    path = folder / _COMPARE_FILE
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["answers"][panel.sheet.order[1]] = "maybe"        # edited by hand
    path.write_text(json.dumps(saved), encoding="utf-8")
    again = class_compare(folder=folder)
    assert "got 'maybe'" in plain(again.status) and "kept as" in plain(again.status)
    assert again.sheet.n_answered == 1 and again.sheet.answers[panel.sheet.order[0]] == "first"
    assert json.loads((folder / "class_sheet_compare.unread-1.json").read_text()) == saved
    again.answer("second")                                  # no file there now: saved at once
    assert on_disk(path)[panel.sheet.order[0]] == "second"
    assert "does not hold them all" not in again.progress()


def test_a_failed_save_keeps_the_answers_and_says_so(home, folder):
    panel = class_compare(folder=folder)
    panel.answer("first")
    (folder / _COMPARE_FILE).unlink()
    folder.rmdir()                                          # the folder went away
    panel.show(1)
    panel.answer_buttons.value = "none"
    assert "could not save" in plain(panel.status) and "kept" in plain(panel.status)
    assert panel.sheet.n_answered == 2 and panel.heading.value.endswith("(2 of 15 answered)")
    assert "does not hold them all" in panel.progress()
    folder.mkdir()
    panel.answer_buttons.value = "second"
    assert on_disk(folder / _COMPARE_FILE).count(None) == 13
    assert panel.progress().startswith("2 of 15 answered, all saved")


def test_answers_from_code_are_checked_and_nothing_changes(home, folder):
    panel = class_compare(folder=folder)
    with pytest.raises(ValueError, match=r"^value \(item \d+\): expected one of"):
        panel.answer("maybe")
    with pytest.raises(ValueError, match="^position: "):
        panel.show("2")
    assert panel.sheet.n_answered == 0 and not (folder / _COMPARE_FILE).exists()
    assert panel.position == 0 and panel.answer_buttons.value is None


def test_a_damaged_pseudonym_file_is_named_and_nothing_is_written(home, folder):
    home.mkdir()
    (home / "identity.json").write_text("{not json", encoding="utf-8")
    for build in (class_compare, class_rate):
        with pytest.raises(ValueError, match=r"^identity: .*identity\.json is not a pseudonym "
                                             r"file .*move it away"):
            build(folder=folder)
    assert (home / "identity.json").read_text(encoding="utf-8") == "{not json"
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("call, name, error", [
    (lambda folder: class_compare(-1, folder=folder), "seed", ValueError),
    (lambda folder: class_compare(folder=folder / "missing"), "folder", ValueError),
    (lambda folder: class_compare(folder=folder, identity="me"), "identity", TypeError),
    (lambda folder: class_rate("1", folder=folder), "seed", ValueError),
    (lambda folder: class_rate(folder=folder / "missing"), "folder", ValueError),
    (lambda folder: class_rate(n_clips=41, folder=folder), "n_clips", ValueError),
    (lambda folder: class_rate(clips="all", folder=folder), "clips", ValueError),
])
def test_bad_arguments_are_named(home, folder, call, name, error):
    with pytest.raises(error, match=f"^{name}: "):
        call(folder)


@pytest.fixture
def fits(monkeypatch):
    """The comparison with the panel on 30 context sentences (the same function)."""
    monkeypatch.setattr(rate_module, "panel_with_listener",
                        functools.partial(panel_with_listener, n_context=30))
    yield
    plt.close("all")


def test_rate_plays_the_students_order_and_saves_a_class_sheet_at_every_score(home, folder,
                                                                               fits):
    me = Identity("quiet-heron-07", "0123456789abcdef")
    panel = class_rate(folder=folder, identity=me)
    activity = rate_activity()
    order = activity.order_for(me.pseudonym)
    assert [clip.item for clip in panel.clips] == [activity.items[i] for i in order]
    assert "quiet-heron-07" in panel.widget.children[1].value
    assert panel.file not in [w for box in panel.widget.children
                              for w in getattr(box, "children", ())]   # no file box
    path = folder / _RATE_FILE
    panel.show(2)
    panel.score_buttons.value = "10"                 # so that every setting below is a change
    for value in control_settings(panel.score_buttons):
        panel.score_buttons.value = value
        kept = None if value == rate_module._NOT_SCORED else int(value)
        assert on_disk(path)[order[2]] == kept
        assert plain(panel.status).endswith(f"clip 3: {value}; saved {panel.sheet.n_scored} "
                                            f"score{'s' * (panel.sheet.n_scored != 1)} to {path}</span>")
    for clip, value in ((0, "3"), (1, "8"), (2, "5")):
        panel.show(clip)
        panel.score_buttons.value = value
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["activity"] == "rate" and saved["set"] == activity.set_id
    assert saved["pseudonym"] == me.pseudonym and saved["items"] == list(activity.items)
    assert [saved["answers"][order[k]] for k in range(3)] == [3, 8, 5]
    panel.compare_button.click()                            # the student's own feedback
    assert panel.result is not None and panel.result.rated_clips.tolist() == [0, 1, 2]
    again = class_rate(folder=folder, identity=me)
    n = len(activity.items)
    assert again.sheet.scores == panel.sheet.scores and f"(3 of {n} scored)" in \
        again.heading.value
    assert again.progress() == f"3 of {n} scored, all saved in {path}"


def test_rate_keeps_a_file_it_cannot_read_under_another_name(home, folder, fits):
    path = folder / _RATE_FILE
    path.write_text('{"format": "course-class-sheet/1", "set": "other"}', encoding="utf-8")
    panel = class_rate(folder=folder)
    assert "is not a sheet of this activity" in plain(panel.status)
    assert "kept as class_sheet_rate.unread-1.json" in plain(panel.status)
    panel.score_buttons.value = "6"
    assert on_disk(path).count(6) == 1
    assert "other" in (folder / "class_sheet_rate.unread-1.json").read_text(encoding="utf-8")


def test_a_sheet_another_notebook_wrote_meanwhile_is_kept(home, folder):
    """Two notebooks of the same activity in one folder (a copy opened beside the original)
    write the same file: neither replaces what the other saved."""
    one, two = class_compare(folder=folder), class_compare(folder=folder)
    one.answer("first")
    two.show(4)
    two.answer("second")
    assert "the file that was there is kept as class_sheet_compare.unread-1.json" in \
        plain(two.status)
    assert on_disk(folder / "class_sheet_compare.unread-1.json").count("first") == 1
    assert on_disk(folder / _COMPARE_FILE).count("second") == 1
