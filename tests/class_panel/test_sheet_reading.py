"""The engine that reads one file of a class's folder (``class_panel._sheet_reading``): the
checked sheet with its notes, or the reason it is left out, each reason a whole text for the
lecturer and a short label that names no file or person (what the class may be shown). How a
whole folder is collected is tested in test_collect.py."""

from __future__ import annotations

import json
from datetime import timezone

import pytest

from course_lib.class_panel._sheet_reading import _Reason, _ReadSheet, _read, _time

from .test_collect import RATE, _edited, _rate_sheet

PSEUDONYM = "amber-otter-01"


@pytest.mark.parametrize("content, label, text", [
    (b"", "empty file", "empty file"),
    (b'{"format": "course-class-sheet/1", "activity": "ra', "not valid JSON",
     "not valid JSON, truncated or edited by hand?"),
    (b"[1, 2, 3]", "not a class sheet", "not a class sheet (its JSON is not an object)"),
    (b'{"format": "course-class-sheet/9"}', "another sheet format",
     "format 'course-class-sheet/9': this course reads"),
])
def test_a_file_that_is_no_sheet_gets_a_reason_and_a_label(tmp_path, content, label, text):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    reason = _read(path, "x.json", {"rate": RATE})
    assert isinstance(reason, _Reason) and reason.label == label
    assert reason.text.startswith(text)


@pytest.mark.parametrize("changes, label, detail", [
    ({"answers": [3] * 19}, "a damaged sheet", "19 answers for 20 items"),
    ({"saved_at": "2026-11-20T10:00:00"}, "a damaged sheet", "has no time zone"),
    ({"set": "other"}, "another clip set or seed", "'other'"),
    ({"answers": [None] * 20}, "no answer", "no answer"),
])
def test_a_sheet_edited_by_hand_names_what_is_wrong_but_its_label_names_nobody(
        tmp_path, changes, label, detail):
    path = _edited(_rate_sheet(tmp_path, "kim/edited.json", pseudonym=PSEUDONYM), **changes)
    reason = _read(path, "kim/edited.json", {"rate": RATE})
    assert isinstance(reason, _Reason) and reason.label == label and detail in reason.text
    assert "kim" not in reason.label and PSEUDONYM not in reason.label


def test_a_good_sheet_is_read_with_each_answer_at_the_position_it_was_met(tmp_path):
    path = _rate_sheet(tmp_path, "a.json", pseudonym=PSEUDONYM)
    sheet = _read(path, "a.json", {"rate": RATE})
    assert isinstance(sheet, _ReadSheet) and (sheet.kind, sheet.pseudonym) == ("rate", PSEUDONYM)
    order = list(RATE.order_for(PSEUDONYM))  # the order this student's clips were played in
    assert sorted(sheet.answers) == list(range(20)) and not sheet.notes
    for index, (answer, position) in sheet.answers.items():
        assert answer == index % 11 and order[position] == index


def test_a_sheet_of_a_collection_without_its_activity_says_so(tmp_path):
    path = _rate_sheet(tmp_path, "a.json")
    reason = _read(path, "a.json", {})
    assert reason.label == "a rate sheet, not collected this time"


def test_a_rate_yourself_sheet_is_named_by_its_content_and_timed_by_its_file(tmp_path):
    path = tmp_path / "mine.json"
    items = list(RATE.items)
    path.write_text(json.dumps({"items": items[::-1], "scores": [5, 6] * 5 + [None] * 10}))
    sheet = _read(path, "mine.json", {"rate": RATE})
    assert isinstance(sheet, _ReadSheet) and sheet.pseudonym.startswith("sheet-")
    assert sheet.saved_at.tzinfo is timezone.utc
    # the first clip played is the set's last: its answer is at position 0
    assert sheet.answers[len(items) - 1] == (5, 0)
    assert [note.label for note in sheet.notes] == ["a rate-yourself sheet", "half filled"]


def test_a_time_without_a_zone_is_refused():
    assert _time("2026-11-20T10:00:00+01:00").utcoffset().total_seconds() == 3600
    with pytest.raises(ValueError, match="no time zone"):
        _time("2026-11-20T10:00:00")
