"""docs/TEACHING.md's collect commands, run as written, from an nbgrader course folder.

The block of section 7 ("the lecturer collects") is read from the guide and run by bash in a
temporary nbgrader course folder whose ``submitted/`` holds two students' sheets, with the
hub's paths put where this checkout has them: the environment's Python for
``/srv/course-env/bin/python``, the corpus's copy for ``/srv/speechocean762``. Its
``nbgrader collect`` lines are left out: ``test_collect_nbgrader_exchange.py`` runs nbgrader's
own collect, and here ``submitted/`` is written as it leaves it. So the test fails when the
guide's commands name a folder or a program that is not where they run.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

from course_lib.class_panel.activities import compare_activity, rate_activity
from course_lib.class_panel.sheets import ClassSheet, Identity

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "TEACHING.md"


def _collect_block() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("### Day 4 or 5, before class: the lecturer collects"):]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)


def test_the_guides_collect_commands_run_from_the_nbgrader_course_folder(tmp_path):
    block = _collect_block()
    assert block.startswith("cd <the nbgrader course folder>\n")
    course = tmp_path / "course"
    rate, compare = rate_activity(), compare_activity()
    for number, student in enumerate(("stu007", "stu008")):
        identity = Identity(f"keen-lynx-0{number}", f"key{number}")
        for activity in (rate, compare):
            sheet = ClassSheet(activity, identity)
            for index in range(len(sheet.answers)):
                sheet.answer(index, (index + number) % 11 if activity is rate else "second")
            folder = course / "submitted" / student / f"class_{activity.kind}"
            folder.mkdir(parents=True)
            sheet.save(folder / f"class_sheet_{activity.kind}.json")
    script = "\n".join(line for line in block.replace(
        "<the nbgrader course folder>", str(course)).replace(
        "/srv/course-env/bin/python", sys.executable).replace(
        "/srv/speechocean762", os.environ["COURSE_SPEECHOCEAN762"]).splitlines()
        if not line.startswith("nbgrader collect"))
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "2 student(s); 2 rated, 2 compared" in done.stdout
    with (course / "class_panel" / "answers.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * (len(rate.items) + len(compare.pairs))
    assert {row["pseudonym"] for row in rows} == {"keen-lynx-00", "keen-lynx-01"}
