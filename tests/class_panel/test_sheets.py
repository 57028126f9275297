"""course_lib.class_panel.sheets: a sheet under a pseudonym, saved whole, reloaded safely."""

from __future__ import annotations

import json

import pytest

from course_lib.class_panel.activities import RateActivity, compare_activity
from course_lib.class_panel.collect import collect
from course_lib.class_panel.sheets import (_IDENTITY_FILE, _SHEET_FORMAT, ClassSheet, Identity,
                                           my_identity, _new_pseudonym)

RATE = RateActivity(seed=4, items=tuple(range(10, 15)))


def test_an_identity_is_drawn_once_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CLASS_HOME", str(tmp_path / "home"))
    first = my_identity()
    assert my_identity() == first and (tmp_path / "home" / _IDENTITY_FILE).is_file()
    assert len(first.key) == 16 and first.pseudonym.count("-") == 2
    assert len({_new_pseudonym() for _ in range(200)}) > 150


def test_a_damaged_identity_file_is_refused_by_name_not_replaced(tmp_path):
    (tmp_path / _IDENTITY_FILE).write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="^folder: .* not a pseudonym file"):
        my_identity(tmp_path)
    assert (tmp_path / _IDENTITY_FILE).read_text(encoding="utf-8") == "{"


def test_a_sheet_saves_no_name_and_reloads_its_answers(tmp_path):
    sheet = ClassSheet(RATE, Identity("tidy-vole-07", "0123456789abcdef"))
    sheet.answer(0, 3)
    sheet.answer(4, 10.0)
    path = sheet.save(tmp_path / "sheet.json")
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["format"] == _SHEET_FORMAT and saved["set"] == RATE.set_id
    assert saved["answers"] == [3, None, None, None, 10]
    assert set(saved) == {"format", "activity", "set", "seed", "pseudonym", "key", "saved_at",
                          "items", "answers"}
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.json"]  # no temporary file left
    again = ClassSheet(RATE, Identity("tidy-vole-07", "0123456789abcdef"))
    assert again.load(path) == [] and again.answers == sheet.answers and again.n_answered == 2


def test_loading_keeps_what_cannot_be_used_and_says_so(tmp_path):
    sheet = ClassSheet(RATE, Identity("tidy-vole-07", "k"))
    path = sheet.save(tmp_path / "s.json")
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["answers"] = [4, 12, None, "x", 0]
    path.write_text(json.dumps(saved), encoding="utf-8")
    sheet.answer(1, 6)
    problems = sheet.load(path)
    assert sheet.answers == [4, 6, None, None, 0] and len(problems) == 2
    assert problems[0].startswith("value (item 1): expected a whole score 0-10, got 12")
    other = ClassSheet(compare_activity(4, 4, 3), Identity("tidy-vole-07", "k"))
    with pytest.raises(ValueError, match="^path: .* not a sheet of this activity"):
        other.load(path)


@pytest.mark.parametrize("index, value, name", [
    (5, 3, "index"), (-1, 3, "index"), (True, 3, "index"),
    (0, 11, "value"), (0, 2.5, "value"), (0, "seven", "value"), (0, True, "value"),
])
def test_a_bad_answer_is_refused_by_name(index, value, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        ClassSheet(RATE, Identity("a-b-01", "k")).answer(index, value)


def test_compare_answers_are_first_second_or_none():
    sheet = ClassSheet(compare_activity(4, 4, 3), Identity("a-b-01", "k"))
    sheet.answer(0, "none")
    with pytest.raises(ValueError, match=r"^value \(item 1\): expected one of"):
        sheet.answer(1, "A")
    with pytest.raises(TypeError, match="^identity: "):
        ClassSheet(RATE, "a-b-01")


def test_a_student_reads_the_name_of_their_page_and_a_namesakes_page(tmp_path):
    mine, theirs = Identity("amber-otter-07", "3f2a9c0011223344"), \
        Identity("amber-otter-07", "77aa000011223344")
    note = mine.page_note()
    assert "amber-otter-07.md" in note and "amber-otter-07~3f2a.md" in note
    for number, identity in enumerate((mine, theirs)):
        sheet = ClassSheet(RATE, identity)
        sheet.answer(0, 5)
        sheet.save(tmp_path / f"{number}.json")
    # the name collect gives this student is the one their notebook told them
    assert "amber-otter-07~3f2a" in collect(tmp_path, RATE).rate_raters
