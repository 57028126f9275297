"""course_lib.class_panel.collect: a class's sheets into one table, losing and altering nothing.

Each case of issue 47's list of bad and odd input has its test: a half-filled sheet, a student
who submitted twice, a sheet for another clip set or seed, a rater who gave every clip the same
score, empty / truncated / hand-edited files, a colliding pseudonym, one student alone and 500
students; plus the rate-yourself panel's own sheets and nbgrader's folder layouts (the command
line is tested in test_main.py, the reading of one file in test_sheet_reading.py). Activities
are built directly (no corpus needed).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from course_lib.class_panel.activities import RateActivity, compare_activity
from course_lib.class_panel.collect import (_COUNTED, _LEFT_OUT, _SUPERSEDED, class_collection,
                                           collect, read_collection)
from course_lib.class_panel.sheets import ClassSheet, Identity
from course_lib.raters.listener_panel import ScoreSheet

RATE = RateActivity(seed=7, items=tuple(range(100, 120)))
COMPARE = compare_activity(seed=7, n_settings=5, n_pairs=8)


def _rate_sheet(folder: Path, name: str, pseudonym="amber-otter-01", key="k1", scores=None,
                activity=RATE) -> Path:
    sheet = ClassSheet(activity, Identity(pseudonym, key))
    for index, score in enumerate(range(20) if scores is None else scores):
        if score is not None:
            sheet.answer(index, score % 11)
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return sheet.save(path)


def _edited(path: Path, **changes) -> Path:
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved.update(changes)
    path.write_text(json.dumps(saved), encoding="utf-8")
    return path


def _record(collection, path: str):
    (record,) = [r for r in collection.sheets if r.path == path]
    return record


def _digests(folder: Path) -> dict:
    return {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_half_filled_sheet_counts_with_the_answers_it_has(tmp_path):
    _rate_sheet(tmp_path, "a.json", scores=[3, None, 5] + [None] * 17)
    collection = collect(tmp_path, RATE)
    record = _record(collection, "a.json")
    assert record.status == _COUNTED and record.n_answers == 2
    assert "2 of 20 answered" in record.reason
    items, raters, scores = collection.rate_labels
    assert items.tolist() == [0, 2] and scores.tolist() == [3.0, 5.0]
    assert [row["item"] for row in collection.rows] == [100, 102]


def test_a_second_submission_counts_and_the_first_is_kept(tmp_path):
    first = _rate_sheet(tmp_path, "inbound/s1+rate+2026-11-20/sheet.json", scores=[1] * 20)
    _edited(first, saved_at="2026-11-20T10:00:00+00:00")
    second = _rate_sheet(tmp_path, "inbound/s1+rate+2026-11-21/sheet.json", scores=[9] * 20)
    _edited(second, saved_at="2026-11-21T10:00:00+00:00")
    before = _digests(tmp_path)
    collection = collect(tmp_path, RATE)
    assert _record(collection, "inbound/s1+rate+2026-11-20/sheet.json").status == _SUPERSEDED
    assert _record(collection, "inbound/s1+rate+2026-11-21/sheet.json").status == _COUNTED
    assert set(collection.rate_labels[2]) == {9.0}
    assert _digests(tmp_path) == before, "collect changed a file it read"


def test_a_sheet_for_another_clip_set_is_left_out_and_one_of_another_seed_named(tmp_path):
    _rate_sheet(tmp_path, "other_seed.json", activity=RateActivity(8, RATE.items), key="k8")
    _rate_sheet(tmp_path, "other_clips.json", activity=RateActivity(7, tuple(range(200, 220))))
    _rate_sheet(tmp_path, "ours.json", pseudonym="calm-heron-02", key="k2")
    (tmp_path / "other_pairs.json").write_text(json.dumps(
        {**ClassSheet(compare_activity(8, 5, 8), Identity("a-b-01", "k9")).to_json(),
         "answers": ["none"] * 8}), encoding="utf-8")
    collection = collect(tmp_path, RATE, COMPARE)
    record = _record(collection, "other_clips.json")
    assert record.status == _LEFT_OUT and RATE.set_id in record.reason
    record = _record(collection, "other_pairs.json")
    assert record.status == _LEFT_OUT and "seed 8" in record.reason and COMPARE.set_id in \
        record.reason
    # the same clips drawn under another seed: only the order differs, so the scores count
    record = _record(collection, "other_seed.json")
    assert record.status == _COUNTED and "saved under seed 8, this class's is 7" in record.reason
    assert len(collection.rate_raters) == 2


def test_a_rater_with_one_score_for_every_clip_is_counted_and_said_to_carry_no_information(
        tmp_path):
    _rate_sheet(tmp_path, "same.json", scores=[6] * 20)
    record = _record(collect(tmp_path, RATE), "same.json")
    assert record.status == _COUNTED and "no information" in record.reason


@pytest.mark.parametrize("content, reason", [
    (b"", "empty file"),
    (b"   \n", "empty file"),
    (b'{"format": "course-class-sheet/1", "activity": "ra', "not valid JSON"),
    (b"\xff\xfe\x00", "not valid JSON"),
    (b"[1, 2, 3]", "not a class sheet"),
    (b'{"notes": "my homework"}', "not a class sheet"),
    (b'{"format": "course-class-sheet/9"}', "format"),
])
def test_an_empty_truncated_or_foreign_file_is_left_out_with_its_reason(tmp_path, content,
                                                                        reason):
    (tmp_path / "x.json").write_bytes(content)
    _rate_sheet(tmp_path, "good.json")
    collection = collect(tmp_path, RATE)
    record = _record(collection, "x.json")
    assert record.status == _LEFT_OUT and reason in record.reason
    assert _record(collection, "good.json").status == _COUNTED


@pytest.mark.parametrize("changes, reason", [
    ({"items": list(range(101, 121))}, "items differ"),
    ({"answers": [3] * 19}, "19 answers for 20 items"),
    ({"pseudonym": ""}, "no pseudonym"),
    ({"saved_at": "yesterday"}, "damaged sheet"),
    ({"saved_at": "2026-11-20T10:00:00"}, "no time zone"),
    ({"answers": None}, "damaged sheet"),
    ({"activity": "sing"}, "activity 'sing'"),
    ({"answers": [None] * 20}, "no answer"),
])
def test_a_sheet_edited_by_hand_is_left_out_naming_what_is_wrong(tmp_path, changes, reason):
    _edited(_rate_sheet(tmp_path, "edited.json"), **changes)
    record = _record(collect(tmp_path, RATE), "edited.json")
    assert record.status == _LEFT_OUT and reason in record.reason, record


def test_an_answer_off_the_scale_is_left_out_by_name_and_the_rest_kept(tmp_path):
    _edited(_rate_sheet(tmp_path, "s.json", scores=[4] * 20),
            answers=[4] * 18 + [11, "seven"])
    collection = collect(tmp_path, RATE)
    record = _record(collection, "s.json")
    assert record.status == _COUNTED and record.n_answers == 18
    assert "item 19: expected a whole score 0-10, got 11, left out" in record.reason
    assert "item 20" in record.reason


def test_a_colliding_pseudonym_keeps_both_students_apart(tmp_path):
    _rate_sheet(tmp_path, "a.json", pseudonym="amber-otter-01", key="aaaa1111", scores=[2] * 20)
    _rate_sheet(tmp_path, "b.json", pseudonym="amber-otter-01", key="aaaa2222",
                scores=list(range(20)))
    collection = collect(tmp_path, RATE)
    assert collection.rate_raters == ("amber-otter-01~aaaa1", "amber-otter-01~aaaa2")
    assert all("drawn by 2 students" in _record(collection, p).reason for p in ("a.json",
                                                                                 "b.json"))
    assert collection.rate_labels[1].tolist().count(0) == 20


def test_one_student_alone_is_a_collection(tmp_path):
    _rate_sheet(tmp_path, "only.json")
    collection = collect(tmp_path, RATE)
    assert collection.pseudonyms == ("amber-otter-01",) and len(collection.rows) == 20


def test_five_hundred_students_all_count(tmp_path):
    rng = np.random.default_rng(0)
    for student in range(500):
        _rate_sheet(tmp_path, f"s{student:03d}.json", pseudonym=f"p-{student:03d}",
                    key=f"key{student}", scores=rng.integers(0, 11, 20).tolist())
    collection = collect(tmp_path, RATE)
    items, raters, scores = collection.rate_labels
    assert len(collection.rate_raters) == 500 and items.size == 10_000
    assert np.bincount(raters).tolist() == [20] * 500


def test_comparisons_carry_the_degree_of_each_answer_and_none_is_undecided(tmp_path):
    sheet = ClassSheet(COMPARE, Identity("keen-lynx-03", "k3"))
    for index, answer in enumerate(["first", "second", "none", None, "first", "none", None,
                                    "second"]):
        sheet.answer(index, answer)
    sheet.save(tmp_path / "c.json")
    collection = collect(tmp_path, RATE, COMPARE)
    first, second, y = collection.comparisons["keen-lynx-03"]
    answered = [0, 1, 2, 4, 5, 7]
    assert first.tolist() == [COMPARE.pairs[i][0] for i in answered]
    assert second.tolist() == [COMPARE.pairs[i][1] for i in answered]
    # the degrees of Unit 6's slider at full strength: first 0.5 + 0.45, none 0.5
    assert y.tolist() == [0.95, 0.05, 0.5, 0.95, 0.5, 0.05]


def test_a_rate_yourself_sheet_still_counts_for_its_clips(tmp_path):
    saved = {"items": list(RATE.items[::-1]), "scores": [5, None] + [7] * 18}
    (tmp_path / "my_fluency_scores.json").write_text(json.dumps(saved), encoding="utf-8")
    other = {"items": list(range(300, 320)), "scores": [5] * 20}
    (tmp_path / "old.json").write_text(json.dumps(other), encoding="utf-8")
    collection = collect(tmp_path, RATE)
    record = _record(collection, "my_fluency_scores.json")
    assert record.status == _COUNTED and record.pseudonym.startswith("sheet-")
    items, _, scores = collection.rate_labels
    assert dict(zip(items.tolist(), scores.tolist()))[19] == 5.0  # first played = last item
    assert _record(collection, "old.json").status == _LEFT_OUT


def test_the_rate_yourself_sheets_of_a_class_pool_into_one_panel(tmp_path):
    """What pooling a class's saved score sheets into a panel asks: each sheet one rater,
    numbered as ``rate_raters`` (by shown name, sorted), no file name kept; a sheet for other
    clips, a malformed file and a score off the scale refused by name."""
    played = list(RATE.items)
    for name, scores in (("zoe.json", [3, None, 8]), ("adam.json", [4, 5, 9]),
                         ("kim.json", [None, 6, 7])):
        sheet = ScoreSheet(played)
        for clip, score in enumerate(scores):
            sheet.score(clip, score)
        sheet.save(tmp_path / name)
    other = ScoreSheet(list(range(300, 320)))
    other.score(0, 5)
    other.save(tmp_path / "other_clips.json")
    (tmp_path / "malformed.json").write_text('{"items": [100, 101], "scores": [3]}',
                                             encoding="utf-8")
    (tmp_path / "off_scale.json").write_text(json.dumps(
        {"items": played, "scores": [12, None, 11] + [None] * 17}), encoding="utf-8")
    collection = collect(tmp_path, RATE)
    assert [_record(collection, name).status for name in ("other_clips.json", "malformed.json",
                                                          "off_scale.json")] == [_LEFT_OUT] * 3
    assert "item 1: expected a whole score 0-10, got 12" in \
        _record(collection, "off_scale.json").reason
    ratings, raters, items = collection.rater_data()
    assert raters == collection.rate_raters and len(raters) == 3
    assert all(rater.startswith("sheet-") for rater in raters)
    assert not any(".json" in str(value) for row in collection.rows for value in row.values())
    assert items.tolist() == played[:3]          # clips nobody scored are left out
    by_name = {_record(collection, name).pseudonym: column for name, column in (
        ("zoe.json", [3, np.nan, 8]), ("adam.json", [4, 5, 9]), ("kim.json", [np.nan, 6, 7]))}
    np.testing.assert_array_equal(ratings.matrix(), np.transpose([by_name[r] for r in raters]))
    assert ratings.scale == (0, 10)
    with pytest.raises(ValueError, match="^collection: holds no rating sheets"):
        collect(tmp_path, compare=COMPARE).rater_data()


def test_names_never_leave_the_folder_names_but_pseudonyms_do(tmp_path):
    _rate_sheet(tmp_path, "submitted/jsmith/class_rate/class_sheet_rate.json",
                pseudonym="rosy-raven-55")
    collection = collect(tmp_path, RATE)
    assert {row["pseudonym"] for row in collection.rows} == {"rosy-raven-55"}
    assert not any("jsmith" in str(value) for row in collection.rows for value in row.values())


def test_write_saves_the_table_and_refuses_the_folder_read(tmp_path):
    inbox = tmp_path / "inbox"
    _rate_sheet(inbox, "a.json")
    (inbox / "broken.json").write_text("{", encoding="utf-8")
    collection = collect(inbox, RATE)
    with pytest.raises(ValueError, match="^out: .* inside the folder read"):
        collection.write(inbox / "out")
    answers, sheets = collection.write(tmp_path / "out")
    assert len(answers.read_text(encoding="utf-8").splitlines()) == 21
    assert "broken.json,left out" in sheets.read_text(encoding="utf-8")


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="^folder: "):
        collect(tmp_path / "missing", RATE)
    with pytest.raises(ValueError, match="^rate, compare: "):
        collect(tmp_path)
    with pytest.raises(TypeError, match="^compare: "):
        collect(tmp_path, RATE, RATE)


def test_scores_given_as_text_count_with_a_note(tmp_path):
    _edited(_rate_sheet(tmp_path, "t.json", scores=[4] * 20), answers=["7"] + [4] * 19)
    collection = collect(tmp_path, RATE)
    record = _record(collection, "t.json")
    assert record.status == _COUNTED and record.n_answers == 20
    assert "1 score(s) given as text (e.g. '7')" in record.reason
    assert "scores given as text, read as numbers" in record.labels
    items, _, scores = collection.rate_labels
    assert dict(zip(items.tolist(), scores.tolist()))[0] == 7.0


@pytest.mark.parametrize("answers, noted", [
    (["first"] * 8, True),
    (["second"] * 6 + [None] * 2, True),
    (["none"] * 8, False),                  # undecided throughout: not a side pressed
    (["first"] * 2 + [None] * 6, False),    # too few to tell from a taste
    (["first"] * 7 + ["second"], False),
])
def test_a_comparison_sheet_answering_one_side_throughout_is_noted(tmp_path, answers, noted):
    sheet = ClassSheet(COMPARE, Identity("keen-lynx-03", "k3"))
    for index, answer in enumerate(answers):
        sheet.answer(index, answer)
    sheet.save(tmp_path / "c.json")
    collection = collect(tmp_path, compare=COMPARE)
    record = _record(collection, "c.json")
    assert record.status == _COUNTED
    assert ("every pair answered the same side" in record.labels) is noted, record
    assert collection.n_informative_comparisons() == (0 if noted else 1)


def test_the_counts_by_reason_name_no_file_folder_or_person(tmp_path):
    week = tmp_path / "submitted"
    _rate_sheet(week, "stu007/class_rate/class_sheet_rate.json", pseudonym="rosy-raven-55",
                key="aaaa1111", scores=[5] * 20)
    _rate_sheet(week, "stu008/class_rate/class_sheet_rate.json", pseudonym="rosy-raven-55",
                key="aaaa2222", scores=[3, None, 7, None] * 5)
    first = _rate_sheet(week, "stu009/old/class_sheet_rate.json", pseudonym="tidy-yak-02",
                        key="k9")
    _edited(first, saved_at="2026-11-20T10:00:00+00:00")
    _rate_sheet(week, "stu009/class_rate/class_sheet_rate.json", pseudonym="tidy-yak-02",
                key="k9")
    (week / "stu010" / "class_rate").mkdir(parents=True)
    (week / "stu010" / "class_rate" / "class_sheet_rate.json").write_text("{", "utf-8")
    _rate_sheet(week, "stu011/class_rate/class_sheet_rate.json",
                activity=RateActivity(7, tuple(range(200, 220))), pseudonym="calm-vole-01")
    collection = collect(week, RATE)
    counts = collection.counts_by_reason()
    assert ("counted", "a pseudonym two students drew", 2) in counts
    assert ("counted", "every clip the same score", 1) in counts
    assert ("counted", "half filled", 1) in counts
    assert ("superseded", "a later sheet of the same student counts", 1) in counts
    assert ("left out", "not valid JSON", 1) in counts
    assert ("left out", "another clip set or seed", 1) in counts
    assert collection.status_counts() == {"counted": 3, "superseded": 1, "left out": 2}
    shown = repr(counts)
    for private in ("stu0", "submitted", "class_rate", "/", "rosy", "tidy", "calm", ".json"):
        assert private not in shown, private


def test_what_collect_wrote_reads_back_as_the_same_collection(tmp_path):
    inbox = tmp_path / "inbox"
    rng = np.random.default_rng(3)
    for student in range(4):
        _rate_sheet(inbox, f"s{student}.json", pseudonym=f"p-{student}", key=f"k{student}",
                    scores=rng.integers(0, 11, 20).tolist())
        sheet = ClassSheet(COMPARE, Identity(f"p-{student}", f"k{student}"))
        for index in range(student + 2):
            sheet.answer(index, ("first", "second", "none")[rng.integers(3)])
        sheet.save(inbox / f"c{student}.json")
    (inbox / "broken.json").write_text("{", encoding="utf-8")
    gathered = collect(inbox, RATE, COMPARE)
    gathered.write(tmp_path / "out")
    read = class_collection(tmp_path / "out", RATE, COMPARE)
    assert read.rows == gathered.rows and read.sheets == gathered.sheets
    assert read.pseudonyms == gathered.pseudonyms and read.rate_raters == gathered.rate_raters
    for mine, theirs in zip(read.rate_labels, gathered.rate_labels):
        assert mine.tolist() == theirs.tolist()
    assert {name: [a.tolist() for a in arrays] for name, arrays in read.comparisons.items()} \
        == {name: [a.tolist() for a in arrays] for name, arrays in gathered.comparisons.items()}
    rate_only = class_collection(tmp_path / "out", RATE)
    assert rate_only.comparisons == {} and rate_only.rate_raters == gathered.rate_raters
    assert class_collection(inbox, RATE).rate_raters == gathered.rate_raters   # the sheets
    with pytest.raises(ValueError, match=r"^folder: the rate answers .* are for "):
        read_collection(tmp_path / "out", RateActivity(7, tuple(range(200, 220))))
    with pytest.raises(ValueError, match="^folder: .* holds no collection"):
        read_collection(tmp_path / "nothing", RATE)
