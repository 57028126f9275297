"""The class panel's command line (``python -m course_lib.class_panel``, ``class_panel.__main__``):
it collects a folder and reports what it counted and left out, and a bad argument ends it with
status 2 and one line naming the argument."""

from __future__ import annotations

import pytest

from course_lib.class_panel.__main__ import _clips, main

from .test_collect import _rate_sheet


def test_the_command_line_collects_and_reports(tmp_path, capsys):
    inbox = tmp_path / "inbox"
    _rate_sheet(inbox, "a.json")
    (inbox / "empty.json").write_bytes(b"")
    code = main(["collect", str(inbox), "--out", str(tmp_path / "out"), "--seed", "7",
                 "--only", "compare"])
    printed = capsys.readouterr().out
    assert code == 0 and "left out: empty.json: empty file" in printed
    assert "a rate sheet, and this collection has no rate activity" in printed
    assert main(["collect", str(inbox), "--out", str(inbox), "--only", "compare"]) == 2
    assert main(["collect", str(inbox), "--seed", "-1", "--only", "compare"]) == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith("seed: expected a whole number")


def test_clips_are_a_set_name_or_item_numbers(tmp_path, capsys):
    assert _clips("scale") == "scale" and _clips("3,15,200") == [3, 15, 200]
    with pytest.raises(SystemExit) as stop:  # argparse's own exit for what it cannot read
        main(["collect", str(tmp_path), "--clips", "three,four"])
    assert stop.value.code == 2
    assert "--clips: expected one of" in capsys.readouterr().err
