"""class/class_panel.ipynb on the classes a lecturer brings to it, executed as in class.

nbval runs the notebook's dry run (30 simulated students). Here it runs, through the course's
kernel client, on three classes written to disk (by :func:`simulated_class`, then laid out as a
lecturer finds them):

* nbgrader's ``submitted/<student id>/<assignment>/`` folders of a whole round, with the odd
  sheets a real class hands in (a broken file, a resubmission, two students with one
  pseudonym, a score typed as text, a comparison sheet answering "first" throughout, a sheet of
  another round). The notebook is projected: no output may name a path, a student id, an
  nbgrader folder or the account running it; the per-file report goes to ``REPORT_FOLDER``;
* what ``course.py class-panel collect DIR --out OUT --only rate`` wrote for a rating round of
  ten clips (the notebook given OUT and ``N_CLIPS = 10``): rate-only, shorter, and read back;
* a comparison round alone (the sheets' folder holds no rating sheet).

Each run starts a kernel and fits the class's models: a few seconds each, on classes of a
dozen students.
"""

from __future__ import annotations

import getpass
import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from course_lib.class_panel.__main__ import main
from course_lib.class_panel.activities import DEFAULT_SEED, compare_activity, rate_activity
from course_lib.class_panel.sheets import ClassSheet, Identity
from course_lib.class_panel.simulated import simulated_class
from course_lib.data.speechocean762 import load_speechocean762

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from kernel_client import notebook_client  # noqa: E402

NOTEBOOK = ROOT / "class" / "class_panel.ipynb"
N_STUDENTS = 12


@pytest.fixture(scope="module")
def panel():
    return load_speechocean762("fluency")


def _simulated(folder: Path, panel, n_clips=None):
    rate = rate_activity(DEFAULT_SEED, n_clips, panel=panel)
    compare = compare_activity(DEFAULT_SEED)
    simulated_class(folder, N_STUDENTS, rate, compare, panel.ratings.means[list(rate.items)],
                    rng=5)
    return rate, compare


def _run(tmp_path: Path, monkeypatch, class_folder: Path, **settings) -> nbformat.NotebookNode:
    """The notebook executed on ``class_folder`` (COURSE_CLASS_SHEETS), its settings cell
    changed as a lecturer would (``NAME = value``); every code cell must run."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    setup = notebook.cells[1]
    for name, value in settings.items():
        setup.source, n = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", setup.source,
                                  flags=re.M)
        assert n == 1, f"the settings cell has no line {name} = ..."
    monkeypatch.setenv("COURSE_CLASS_SHEETS", str(class_folder))
    cwd = tmp_path / "lecturer"
    cwd.mkdir()
    notebook_client(notebook, timeout=300, kernel_name="python3",
                    resources={"metadata": {"path": str(cwd)}}).execute()
    return notebook


def _shown(notebook) -> str:
    """Every text a projector would show: streams, results (plain, HTML, Markdown), errors."""
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            texts.append(output.get("text", ""))
            for kind, value in output.get("data", {}).items():
                if kind.startswith("text/"):      # a figure's PNG inside its HTML is no text
                    texts.append(re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", value))
            texts += output.get("traceback", [])
    return "\n".join(texts)


def _nbgrader_class(root: Path, panel) -> tuple[Path, list[str]]:
    """A round as ``nbgrader collect`` leaves it: ``submitted/<id>/class_rate/...``, with
    the odd sheets of the module docstring; returns the folder and the student ids."""
    simulated = root / "simulated"
    rate, compare = _simulated(simulated, panel)
    submitted = root / "course" / "submitted"
    ids = []
    for number, home in enumerate(sorted(simulated.iterdir())):
        student = f"stu{number + 7:03d}"
        ids.append(student)
        for kind in ("rate", "compare"):
            target = submitted / student / f"class_{kind}" / f"class_sheet_{kind}.json"
            target.parent.mkdir(parents=True)
            shutil.copy(home / f"class_sheet_{kind}.json", target)
    # a student who drew another's pseudonym (another key), a score typed as text
    first = json.loads((submitted / ids[0] / "class_rate" / "class_sheet_rate.json")
                       .read_text(encoding="utf-8"))
    namesake = ClassSheet(rate, Identity(first["pseudonym"], "ffff0000aaaa1111"))
    for index in range(len(rate.items)):
        namesake.answer(index, index % 11)
    sheet = namesake.to_json()
    sheet["answers"][0] = "7"
    ids.append("stu099")
    target = submitted / "stu099" / "class_rate" / "class_sheet_rate.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(sheet), encoding="utf-8")
    # "first" to every pair
    same = ClassSheet(compare, Identity("tidy-yak-02", "0123456789abcdef"))
    for index in range(len(compare.pairs)):
        same.answer(index, "first")
    same.save(target.parent.parent / "class_compare.json")
    # a broken file, a resubmission kept in an old folder, a sheet of another round
    (submitted / ids[1] / "class_rate" / "class_sheet_rate.json.bak.json").write_text(
        "{", encoding="utf-8")
    old = submitted / ids[2] / "class_rate_old" / "class_sheet_rate.json"
    old.parent.mkdir()
    saved = json.loads((submitted / ids[2] / "class_rate" / "class_sheet_rate.json")
                       .read_text(encoding="utf-8"))
    saved["saved_at"] = "2026-11-01T09:00:00+00:00"
    old.write_text(json.dumps(saved), encoding="utf-8")
    other = ClassSheet(rate_activity(DEFAULT_SEED, 8, panel=panel), Identity("calm-vole-01", "k"))
    other.answer(0, 5)
    other.save(submitted / ids[3] / "class_rate" / "class_sheet_rate_v0.json")
    return submitted, ids


def test_the_projected_notebook_names_no_path_student_or_folder(tmp_path, monkeypatch, panel):
    submitted, ids = _nbgrader_class(tmp_path, panel)
    report = tmp_path / "report"
    notebook = _run(tmp_path, monkeypatch, submitted, REPORT_FOLDER=str(report))
    shown = _shown(notebook)
    private = [*ids, "submitted", "class_rate", "class_compare", "class_sheet", ".json",
               str(tmp_path), tmp_path.name, str(Path.home())]
    assert [word for word in private if word in shown] == []
    assert re.search(rf"\b{re.escape(getpass.getuser())}\b", shown) is None   # the account
    # no path of any kind: a folder, then a slash, then a name
    assert re.findall(r"[\w.~-]+/[\w.~-]+/", shown) == []
    # the counts by reason are shown, each odd sheet under its own reason
    # the namesakes: the first student's two sheets and the other student's rating sheet
    for line in ("counted, a pseudonym two students drew: 3",
                 "counted, scores given as text, read as numbers: 1",
                 "counted, every pair answered the same side: 1",
                 "superseded, a later sheet of the same student counts: 1",
                 "left out, not valid JSON: 1",
                 "left out, another clip set or seed: 1"):
        assert line in shown, line
    # the per-file report, with the ids, went to the lecturer's folder alone
    written = (report / "sheets.csv").read_text(encoding="utf-8")
    assert all(student in written for student in ids)


def test_the_notebook_reads_a_short_rating_round_that_collect_wrote(tmp_path, monkeypatch,
                                                                    panel, capsys):
    _simulated(tmp_path / "sheets", panel, n_clips=10)
    out = tmp_path / "collected"
    assert main(["collect", str(tmp_path / "sheets"), "--out", str(out), "--n-clips", "10",
                 "--only", "rate"]) == 0
    capsys.readouterr()
    notebook = _run(tmp_path, monkeypatch, out, N_CLIPS=10)
    shown = _shown(notebook)
    assert f"{N_STUDENTS} student(s); {N_STUDENTS} rated, 0 compared" in shown
    assert "10 clips along the x axis" in shown                # the consensus figure
    assert "No preferences figure: no sheet of its activity was counted." in shown
    assert f"{N_STUDENTS} pages written" in shown
    assert str(out) not in shown


def test_the_notebook_shows_a_comparison_round_alone(tmp_path, monkeypatch, panel):
    _simulated(tmp_path / "sheets", panel)
    for sheet in (tmp_path / "sheets").rglob("class_sheet_rate.json"):
        sheet.unlink()
    shown = _shown(_run(tmp_path, monkeypatch, tmp_path / "sheets"))
    assert f"{N_STUDENTS} student(s); 0 rated, {N_STUDENTS} compared" in shown
    assert "No students figure: no sheet of its activity was counted." in shown
    assert "15 pairs of equaliser settings" in shown
    assert f"{N_STUDENTS} pages written" in shown
